/* Operations on one task (agent/ops.c): suspend, resume, delete, exit, refresh, and the
 * answer to the request that waits for one. Below launch, adopt and reconcile; calls only
 * the task table, release, proc, metrics and the context. */
#ifndef EBB_AGENT_OPS_H
#define EBB_AGENT_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "agent/context.h"

/* One graceful step as asked: what to take, and what the scheduler counts the task as
 * holding before it (booked_*; 0: not said, the step starts from the cgroup's limits). */
typedef struct ebb_agent_step
{
  uint64_t cpu_millis, memory_bytes;
  uint64_t booked_cpu_millis, booked_memory_bytes;
} ebb_agent_step;

/* Each returns 0 when started or done; on failure negative with
 * *err, and nothing changed. pending (may be NULL) is answered when the operation ends.
 * ebb_agent_op_suspend: step NULL suspends at once (to the footprint), else one graceful
 * step (ebb_cg_step). */
int ebb_agent_op_suspend (ebb_agent *a, ebb_agent_task *t, const ebb_agent_step *step,
                          ebb_agent_pending *pending, ebb_error **err);
int ebb_agent_op_resume (ebb_agent *a, ebb_agent_task *t, ebb_agent_pending *pending,
                         ebb_error **err);
int ebb_agent_op_delete (ebb_agent *a, ebb_agent_task *t, uint64_t grace_usec,
                         ebb_agent_pending *pending, ebb_error **err);
/* Marks t exited with a wait status (-1: unknown), journals, answers its pending request. */
void ebb_agent_task_exited (ebb_agent *a, ebb_agent_task *t, int code, int status);
/* Starts watching a live process that is not our child (pidfd). Returns 0 or negative. */
int ebb_agent_watch_pid (ebb_agent *a, ebb_agent_task *t, ebb_error **err);
/* Answers a pending request with t's JSON (status ok_status) or with an error, records the
 * answer under its request id, frees p. */
void ebb_agent_pending_finish (ebb_agent *a, ebb_agent_task *t, ebb_agent_pending *p,
                               unsigned status, const char *code, const char *detail);

/* Ends the launched tasks that ran past their time limit at now_usec (CLOCK_REALTIME);
 * called from the periodic tick. */
void ebb_agent_check_limits (ebb_agent *a, uint64_t now_usec);

/* During shutdown: resumes every suspended task; exits the loop when none is left busy. */
void ebb_agent_check_stop (ebb_agent *a);

/* Re-reads the applied limits and the usage of t (quietly; a vanished cgroup is noted). */
void ebb_agent_refresh_task (ebb_agent *a, ebb_agent_task *t);

#endif
