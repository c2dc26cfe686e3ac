/* The inside of a policy instance, for libebb-policy's own files (the core and the
 * policies under policies/) and its unit tests. The environments (ebb-sim,
 * ebb-controller) see struct ebb_pol as opaque and use the calls of policies/policy.h:
 * ebb_pol_take_actions, ebb_pol_params_of, ebb_pol_stats_of, ebb_pol_node_cap,
 * ebb_pol_ops_of. */
#ifndef EBB_POLICIES_POLICY_IMPL_H
#define EBB_POLICIES_POLICY_IMPL_H

#include "policies/policy.h"

struct ebb_pol
{
  const ebb_pol_ops *ops;
  ebb_pol_params params;
  ebb_rng rng;
  ebb_pol_job *jobs; /* environment's array; may be replaced with ebb_pol_set_jobs */
  ebb_pol_node *nodes;
  ebb_pol_probe *probes;
  uint32_t probes_cap, probes_free;
  ebb_pol_action *acts;
  size_t nacts, acts_cap;
  uint32_t *scratch; /* a permutation of node ids for sampling without replacement */
  ebb_pol_stats stats;
  void *priv;
  /* Resource mode only (NULL in slot mode). */
  ebb_pol_res *node_cap;  /* per node */
  ebb_pol_res *node_free; /* capacity minus what tasks hold or were promised */
  /* 1 once a node was bound or queued on (a policy on the probe queues): until then a
   * task's end need not read the node's probe queue (a cache miss at every end at scale). */
  uint8_t res_queues_used;
  /* Both modes. */
  uint32_t jobs_seen; /* 1 + highest job id that arrived (the ids ebb_pol_job_forget
                         accepts; resource mode: the tasks arrays to free) */
  /* Per job id: the job's probes alive (sent, queued, rotating), so that its id is not
   * forgotten while one may still reach a node's head and bind a task of whatever job
   * holds the id then. Kept here, not in ebb_pol_job: the job array stays 72 bytes a job,
   * which the policies' hot loops index with one lea (80 would take a shift more). */
  uint32_t *job_probes;
  uint32_t job_probes_cap;
  /* Per job id: its priority tier (policy-tier.c); 0 beyond the cap. */
  int32_t *job_prio;
  uint32_t job_prio_cap;
  /* Calls of ebb_pol_node_capacity so far: a policy that keeps books by node's free room
   * sees a change no event tells it (bigc). */
  uint32_t cap_changes;
};

#endif
