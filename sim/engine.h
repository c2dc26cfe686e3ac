/* The ebb-sim engine: a discrete-event loop in virtual time that drives a libebb-policy
 * instance over a trace. One binary heap of events, job arrivals merged from the sorted
 * trace instead of queued, all arrays sized up front or grown geometrically. */
#ifndef EBB_SIM_ENGINE_H
#define EBB_SIM_ENGINE_H

#include <stdint.h>

#include "lib/error.h"
#include "policies/policy.h"
#include "sim/trace.h"

typedef struct ebb_sim_config
{
  const char *policy;
  ebb_pol_params pol;
  double util_interval_sec; /* utilization snapshot period (Hawk: 100 s); 0: none */
  /* Resource mode (policies with needs_resources): preemption costs. */
  double reclaim_sec_per_gib; /* memory freed by a SUSPEND (BIG-C: 3 s per GiB) */
  double resume_sec_per_gib;  /* memory reloaded by a RESUME (BIG-C: 3 s per GiB) */
  double suspend_latency_sec; /* fixed cost before a SUSPEND takes the CPU */
  double resume_latency_sec;  /* fixed cost of a RESUME besides reloading memory */
  /* Fixed costs of every task on a real cluster (default 0; not for hopper and srpt): a
   * task starts launch_delay_sec after the policy's LAUNCH (the call to the node, its fork
   * and exec, the answer), and its finish reaches the policy and the job's completion
   * finish_delay_sec after its work ends (the exit noticed, reported and recorded): it
   * holds its room meanwhile. bench/real-vs-sim.sh measures both on the real cluster. */
  double launch_delay_sec;
  double finish_delay_sec;
} ebb_sim_config;

/* Fills the resource-mode costs with BIG-C's figures (paper section 5.4: about 3 s to
 * reclaim 1 GiB of dirty memory; the same for reloading it), no fixed latency. */
void ebb_sim_config_costs_bigc (ebb_sim_config *cfg);
/* Fills them with ebb-agent's measured figures (bench/agent-bench.txt: suspend request to
 * limits applied, mean 6.5 ms; resume p50 2.5 ms). The repository holds no measured memory
 * reclaim rate yet (bench/cgroup-latency --memory runs in the v2 VM only), so memory keeps
 * BIG-C's 3 s per GiB each way. */
void ebb_sim_config_costs_ebb_agent (ebb_sim_config *cfg);

typedef struct ebb_sim_result
{
  uint32_t njobs;
  double *finish_sec;  /* per job (trace order): last task finish */
  double *runtime_sec; /* per job: finish - submission */
  uint64_t events;
  uint64_t tasks;
  double busy_sec;  /* sum of task durations run */
  double start_sec; /* first submission */
  double end_sec;   /* last task finish */
  double utilization;
  double *util_samples; /* busy share of nodes at start + k x interval */
  uint32_t nutil, util_cap;
  ebb_pol_stats pol;
  double wall_seconds;
  /* Resource mode. */
  int resources;
  uint8_t *failed;          /* per job: 1 when the policy failed it (kill attempts) */
  double util_above_80_sec; /* time with dominant-share utilization above 80% */
  /* The length of every preemption ended by a RESUME: the policy's first SUSPEND of a task
   * to its RESUME, decision to decision (the controller's GET /v1/decisions compares). */
  double *preempt_sec;
  uint32_t npreempt, preempt_cap;
  /* Speculative policies (sim/speculate.c). */
  int speculation;
  uint64_t speculative_copies; /* copies launched of a task already launched */
  /* DAG policies (sim/dag.h). */
  int dag;                 /* the run used a DAG policy */
  uint64_t dep_violations; /* tasks started before a parent finished (0 unless a bug) */
} ebb_sim_result;

/* Runs the trace through the policy. Returns 0 and fills *res (free it with
 * ebb_sim_result_clear), or a negative code with *err (unknown policy, bad parameter). */
int ebb_sim_run (const ebb_sim_config *cfg, const ebb_sim_trace *trace, ebb_sim_result *res,
                 ebb_error **err);
void ebb_sim_result_clear (ebb_sim_result *res);

#endif
