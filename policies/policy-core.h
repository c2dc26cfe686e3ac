/* Internal to libebb-policy's core (policy.c, policy-res.c): what the probe queues and the
 * resource bookkeeping call in each other. Policies use policies/policy.h. */
#ifndef EBB_POLICIES_POLICY_CORE_H
#define EBB_POLICIES_POLICY_CORE_H

#include "policies/policy-impl.h"

/* The node's slot is free: serves the head of its queue (policy.c). */
void ebb_pol_serve_next (ebb_pol *p, double now_sec, uint32_t node);
/* Emits a resource action with no mode and no amount yet; returns it to be filled. */
ebb_pol_action *ebb_pol_emit_res (ebb_pol *p, uint32_t kind, uint32_t node, uint32_t job,
                                  uint32_t task, double delay_sec);
/* The task's state (resource mode); aborts on a job without tasks or a task out of range. */
ebb_pol_task *ebb_pol_task_of (ebb_pol *p, uint32_t job, uint32_t task);

#endif
