/* libebb-policy's registry of policies, their default parameters and checks, and the
 * life cycle of a policy instance. */
#include "config.h"

#include "policies/policy-impl.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

static const ebb_pol_ops *const registry[] = {
  &ebb_pol_fifo_ops,
  &ebb_pol_sparrow_ops,
  &ebb_pol_hawk_ops,
  &ebb_pol_bigc_ops,
  &ebb_pol_eagle_ops,
  &ebb_pol_peacock_ops,
  &ebb_pol_ebb_ops,
  /* Speculation-aware policies (policies/spec.h). */
  &ebb_pol_hopper_ops,
  &ebb_pol_srpt_ops,
  /* DAG policies (policies/dag.h). */
  &ebb_pol_graphene_ops,
  &ebb_pol_cp_ops,
  &ebb_pol_tetris_ops,
  &ebb_pol_random_ops,
  NULL,
};

const ebb_pol_ops *const *
ebb_pol_list (void)
{
  return registry;
}

const ebb_pol_ops *
ebb_pol_lookup (const char *name)
{
  for (size_t i = 0; registry[i]; i++)
    if (strcmp (registry[i]->name, name) == 0)
      return registry[i];
  return NULL;
}

void
ebb_pol_params_default (ebb_pol_params *p)
{
  memset (p, 0, sizeof *p);
  p->nnodes = 1;
  p->seed = 1;
  p->net_delay_sec = 0.0005;
  p->cutoff_sec = INFINITY;
  p->probe_ratio = 2.0;
  p->short_part_pct = 2.0;
  p->steal_cap = 10;
  p->steal_limit = EBB_POL_NONE;
  p->cancel_probes = 0;
  p->sample_replacement = 1;
  p->footprint = (ebb_pol_res){ .cpu_millis = 10, .memory_bytes = 64ll << 20 };
  p->kill_attempts = 4;
  p->bigc_mode = EBB_POL_BIGC_GP;
  p->short_share = 0.95;
  p->reserve_share = 0.60;
  p->gp_step = (ebb_pol_res){ .cpu_millis = 2000, .memory_bytes = 4ll << 30 };
  p->resume_tries = 3;
  p->long_share = 0.5;
  p->working_set = 0.5;
  p->arrival_preempt = 1;
  p->rotation_interval_sec = 1.0;
  p->threshold_scale = 1.0;
  p->spec_beta = 1.5;
  p->epsilon = 0.1;
  p->hopper_probes = 4.0;
  p->refusals = 2;
  p->heartbeat_sec = 0.1;
  p->dag_kappa = 0.25;
  p->dag_queues = 1;
}

static int
check_params (const ebb_pol_params *p, ebb_error **err)
{
  if (p->nnodes == 0 || p->nnodes >= EBB_POL_NONE)
    return ebb_error_set (err, EBB_ERANGE, "node count %u out of range", p->nnodes);
  if (!(p->net_delay_sec >= 0) || !isfinite (p->net_delay_sec))
    return ebb_error_set (err, EBB_ERANGE, "network delay must be >= 0");
  if (!(p->probe_ratio >= 1) || p->probe_ratio > 1000)
    return ebb_error_set (err, EBB_ERANGE, "probe ratio %g out of range [1, 1000]", p->probe_ratio);
  if (!(p->short_part_pct >= 0) || p->short_part_pct >= 100)
    return ebb_error_set (err, EBB_ERANGE, "short partition %g%% out of range [0, 100)",
                          p->short_part_pct);
  if (isnan (p->cutoff_sec) || p->cutoff_sec < 0)
    return ebb_error_set (err, EBB_ERANGE, "cutoff must be >= 0");
  if (p->node_cap.cpu_millis < 0 || p->node_cap.memory_bytes < 0 || p->footprint.cpu_millis < 0
      || p->footprint.memory_bytes < 0 || p->gp_step.cpu_millis < 0 || p->gp_step.memory_bytes < 0)
    return ebb_error_set (err, EBB_ERANGE, "resource vectors must be >= 0");
  if (p->book_footprint > EBB_POL_BOOK_NONE)
    return ebb_error_set (err, EBB_ERANGE, "unknown footprint booking %u", p->book_footprint);
  /* Nodes without memory (a Hawk trace's slots) have no room to book memory in. */
  if (p->node_cap.cpu_millis > 0 && p->node_cap.memory_bytes == 0 && p->footprint.memory_bytes > 0
      && (p->book_footprint == EBB_POL_BOOK_ALL || p->book_footprint == EBB_POL_BOOK_MEMORY))
    return ebb_error_set (err, EBB_ERANGE,
                          "nodes without memory cannot book a memory footprint (book none)");
  if (!(p->tick_sec >= 0) || !isfinite (p->tick_sec))
    return ebb_error_set (err, EBB_ERANGE, "tick period must be >= 0");
  if (p->kill_attempts == 0)
    return ebb_error_set (err, EBB_ERANGE, "kill attempts must be >= 1");
  if (!(p->short_share >= 0 && p->short_share <= 1)
      || !(p->reserve_share >= 0 && p->reserve_share < 1))
    return ebb_error_set (err, EBB_ERANGE, "shares must be in [0, 1]");
  if (!(p->working_set >= 0 && p->working_set <= 1)
      || !(p->natural_term >= 0 && p->natural_term <= 1)
      || !(p->max_round_share >= 0 && p->max_round_share <= 1))
    return ebb_error_set (err, EBB_ERANGE, "working set and damper shares must be in [0, 1]");
  if (!(p->rotation_interval_sec > 0) || !isfinite (p->rotation_interval_sec))
    return ebb_error_set (err, EBB_ERANGE, "rotation interval must be > 0");
  if (!(p->threshold_scale >= 0))
    return ebb_error_set (err, EBB_ERANGE, "threshold scale must be >= 0");
  if (!(p->spec_beta > 1) || !isfinite (p->spec_beta) || !(p->epsilon >= 0 && p->epsilon <= 1)
      || !(p->hopper_probes >= 1) || p->hopper_probes > 1000 || !(p->heartbeat_sec > 0)
      || !isfinite (p->heartbeat_sec) || p->spec_mode > EBB_POL_SPEC_CENTRAL)
    return ebb_error_set (err, EBB_ERANGE,
                          "speculation: beta must be > 1, epsilon in [0, 1], probes in [1, 1000], "
                          "heartbeat > 0");
  if (p->node_net_mbps < 0 || !(p->dag_kappa > 0 && p->dag_kappa <= 1) || p->dag_queues == 0
      || p->dag_queues > 1000000)
    return ebb_error_set (err, EBB_ERANGE,
                          "network capacity must be >= 0, kappa in (0, 1], queues >= 1");
  return 0;
}

ebb_pol *
ebb_pol_new (const char *name, const ebb_pol_params *params, ebb_pol_job *jobs, ebb_error **err)
{
  const ebb_pol_ops *ops = ebb_pol_lookup (name);
  if (!ops)
    {
      ebb_error_set (err, EINVAL, "unknown policy '%s'", name);
      return NULL;
    }
  return ebb_pol_new_ops (ops, params, jobs, err);
}

ebb_pol *
ebb_pol_new_ops (const ebb_pol_ops *ops, const ebb_pol_params *params, ebb_pol_job *jobs,
                 ebb_error **err)
{
  const char *name = ops->name;
  if (check_params (params, err) < 0)
    return NULL;
  int res_mode = params->node_cap.cpu_millis > 0 || params->node_cap.memory_bytes > 0;
  if (res_mode != !!ops->needs_resources)
    {
      ebb_error_set (err, EINVAL,
                     res_mode ? "policy '%s' works with single-slot nodes only"
                              : "policy '%s' needs node capacities (resource mode)",
                     name);
      return NULL;
    }
  ebb_pol *p = ebb_xcalloc (1, sizeof *p);
  p->ops = ops;
  p->params = *params;
  p->jobs = jobs;
  ebb_rng_seed (&p->rng, params->seed);
  p->nodes = ebb_xmalloc (sizeof *p->nodes * params->nnodes);
  p->scratch = ebb_xmalloc (sizeof *p->scratch * params->nnodes);
  for (uint32_t i = 0; i < params->nnodes; i++)
    {
      p->nodes[i] = (ebb_pol_node){ .head = EBB_POL_NONE, .tail = EBB_POL_NONE };
      p->scratch[i] = i;
    }
  p->probes_free = EBB_POL_NONE;
  p->acts_cap = 64;
  p->acts = ebb_xmalloc (sizeof *p->acts * p->acts_cap);
  if (res_mode)
    {
      p->node_cap = ebb_xmalloc (sizeof *p->node_cap * params->nnodes);
      p->node_free = ebb_xmalloc (sizeof *p->node_free * params->nnodes);
      for (uint32_t i = 0; i < params->nnodes; i++)
        p->node_cap[i] = p->node_free[i] = params->node_cap;
    }
  if (ops->priv_size)
    p->priv = ebb_xcalloc (1, ops->priv_size);
  if (ops->init && ops->init (p, err) < 0)
    {
      ebb_pol_free (p);
      return NULL;
    }
  return p;
}

void
ebb_pol_free (ebb_pol *p)
{
  if (!p)
    return;
  if (p->ops->fini)
    p->ops->fini (p);
  free (p->priv);
  if (p->node_cap)
    for (uint32_t j = 0; j < p->jobs_seen; j++)
      {
        free (p->jobs[j].tasks);
        p->jobs[j].tasks = NULL;
      }
  free (p->node_cap);
  free (p->node_free);
  free (p->nodes);
  free (p->scratch);
  free (p->probes);
  free (p->job_probes);
  free (p->job_prio);
  free (p->acts);
  free (p);
}

void
ebb_pol_set_jobs (ebb_pol *p, ebb_pol_job *jobs)
{
  p->jobs = jobs;
}
