/* The policy core: node probe queues, late binding, the probe pool and the action array.
 * Policies plug in through ebb_pol_ops; everything here is shared by all of them. */
#include "config.h"

#include "policies/policy.h"
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
  p->working_set = 0.5;
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
  free (p->acts);
  free (p);
}

void
ebb_pol_set_jobs (ebb_pol *p, ebb_pol_job *jobs)
{
  p->jobs = jobs;
}

static void
acts_grow (ebb_pol *p)
{
  p->acts_cap *= 2;
  p->acts = ebb_xrealloc (p->acts, sizeof *p->acts * p->acts_cap);
}

/* Inlined in the hot paths (bind_task, probes): one store of the action. */
static inline void
emit (ebb_pol *p, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg, double delay_sec)
{
  if (__builtin_expect (p->nacts == p->acts_cap, 0))
    acts_grow (p);
  /* Field by field: mode and amount are left for emit_res (resource actions), so the
   * slot policies' actions cost one 24-byte store, as before the resource model. */
  ebb_pol_action *x = &p->acts[p->nacts++];
  x->delay_sec = delay_sec;
  x->kind = kind;
  x->node = node;
  x->job = job;
  x->arg = arg;
}

void
ebb_pol_emit (ebb_pol *p, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg,
              double delay_sec)
{
  emit (p, kind, node, job, arg, delay_sec);
}

static ebb_pol_action *
emit_res (ebb_pol *p, uint32_t kind, uint32_t node, uint32_t job, uint32_t task, double delay_sec)
{
  ebb_pol_emit (p, kind, node, job, task, delay_sec);
  ebb_pol_action *x = &p->acts[p->nacts - 1];
  x->mode = 0;
  x->amount = (ebb_pol_res){ 0, 0 };
  return x;
}

/* Returns a probe index from the free list, growing the pool geometrically when empty. */
static uint32_t
probe_alloc (ebb_pol *p, uint32_t job)
{
  if (p->probes_free == EBB_POL_NONE)
    {
      uint32_t old = p->probes_cap;
      uint32_t cap = old ? old * 2 : 4096;
      if (cap <= old)
        abort (); /* more than 2^32 live probes: not a cluster we simulate */
      p->probes = ebb_xrealloc (p->probes, sizeof *p->probes * cap);
      for (uint32_t i = old; i < cap; i++)
        p->probes[i].next = i + 1 < cap ? i + 1 : EBB_POL_NONE;
      p->probes_free = old;
      p->probes_cap = cap;
    }
  uint32_t id = p->probes_free;
  p->probes_free = p->probes[id].next;
  p->probes[id] = (ebb_pol_probe){ .job = job, .next = EBB_POL_NONE };
  return id;
}

uint32_t
ebb_pol_probe_new (ebb_pol *p, uint32_t job)
{
  return probe_alloc (p, job);
}

void
ebb_pol_probe_release (ebb_pol *p, uint32_t probe)
{
  p->probes[probe].next = p->probes_free;
  p->probes_free = probe;
}

void
ebb_pol_send_probe (ebb_pol *p, uint32_t node, uint32_t job)
{
  uint32_t id = probe_alloc (p, job);
  p->stats.probes_sent++;
  emit (p, EBB_POL_ACT_PROBE, node, job, id, p->params.net_delay_sec);
}

uint32_t
ebb_pol_probe_count (const ebb_pol *p, uint32_t job)
{
  uint32_t t = p->jobs[job].ntasks;
  double c = ceil (p->params.probe_ratio * t);
  return c < t ? t : (uint32_t)c;
}

void
ebb_pol_send_probes_random (ebb_pol *p, uint32_t job, uint32_t count, uint32_t first, uint32_t n)
{
  if (n == 0)
    abort ();
  if (p->params.sample_replacement)
    {
      for (uint32_t i = 0; i < count; i++)
        ebb_pol_send_probe (p, first + (uint32_t)ebb_rng_below (&p->rng, n), job);
      return;
    }
  /* Distinct nodes: a partial Fisher-Yates shuffle over the persistent permutation of
   * [first, first + n) kept in scratch (any starting order gives a uniform sample). When
   * there are more probes than nodes, each round covers every node once. */
  uint32_t *perm = p->scratch + first;
  while (count > 0)
    {
      uint32_t k = count < n ? count : n;
      for (uint32_t i = 0; i < k; i++)
        {
          uint32_t j = i + (uint32_t)ebb_rng_below (&p->rng, n - i);
          uint32_t t = perm[i];
          perm[i] = perm[j];
          perm[j] = t;
          ebb_pol_send_probe (p, perm[i], job);
        }
      count -= k;
    }
}

/* Resource mode of ebb_pol_bind_task: the task is the first one pending (tasks killed and
 * re-queued come back), the node's resources are taken and LAUNCH carries the demand. */
static int
bind_task_res (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, double delay_sec)
{
  ebb_pol_job *j = &p->jobs[job];
  uint32_t task = j->launched;
  if (task >= j->ntasks || j->tasks[task].state != EBB_POL_TASK_PENDING)
    for (task = 0; task < j->ntasks && j->tasks[task].state != EBB_POL_TASK_PENDING; task++)
      ;
  if (task == j->ntasks)
    return -1;
  ebb_pol_node *n = &p->nodes[node];
  n->busy = 1;
  n->running_long = j->is_long;
  if (j->launched + 1 == j->ntasks && p->params.cancel_probes)
    {
      j->cancel_at_sec = now_sec + 2 * p->params.net_delay_sec;
      ebb_pol_emit (p, EBB_POL_ACT_CANCEL, EBB_POL_NONE, job, 0, 2 * p->params.net_delay_sec);
    }
  ebb_pol_launch_res (p, node, job, task, delay_sec);
  if (p->ops->task_bound)
    p->ops->task_bound (p, now_sec, node, job);
  return 0;
}

int
ebb_pol_bind_task (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, double delay_sec)
{
  ebb_pol_job *j = &p->jobs[job];
  if (j->launched >= j->ntasks)
    return -1;
  if (p->node_cap)
    return bind_task_res (p, now_sec, node, job, delay_sec);
  uint32_t task = j->launched++;
  ebb_pol_node *n = &p->nodes[node];
  n->busy = 1;
  n->running_long = j->is_long;
  if (j->launched == j->ntasks && p->params.cancel_probes)
    {
      /* The scheduler learns of the last bind one delay after the node asked and its cancel
       * needs one more to reach the nodes: both are inside the round trip. */
      j->cancel_at_sec = now_sec + 2 * p->params.net_delay_sec;
      ebb_pol_emit (p, EBB_POL_ACT_CANCEL, EBB_POL_NONE, job, 0, 2 * p->params.net_delay_sec);
    }
  if (p->ops->task_bound)
    p->ops->task_bound (p, now_sec, node, job);
  emit (p, EBB_POL_ACT_LAUNCH, node, job, task, delay_sec);
  return 0;
}

int
ebb_pol_probe_dead (const ebb_pol *p, double now_sec, uint32_t job)
{
  const ebb_pol_job *j = &p->jobs[job];
  return p->params.cancel_probes && j->launched == j->ntasks && now_sec >= j->cancel_at_sec;
}

void
ebb_pol_queue_append (ebb_pol *p, uint32_t node, uint32_t probe)
{
  ebb_pol_node *n = &p->nodes[node];
  p->probes[probe].next = EBB_POL_NONE;
  if (n->tail == EBB_POL_NONE)
    n->head = probe;
  else
    p->probes[n->tail].next = probe;
  n->tail = probe;
  n->qlen++;
  n->qlong += p->jobs[p->probes[probe].job].is_long;
}

static uint32_t
queue_pop (ebb_pol *p, uint32_t node)
{
  ebb_pol_node *n = &p->nodes[node];
  uint32_t id = n->head;
  n->head = p->probes[id].next;
  if (n->head == EBB_POL_NONE)
    n->tail = EBB_POL_NONE;
  n->qlen--;
  n->qlong -= p->jobs[p->probes[id].job].is_long;
  return id;
}

/* The node's slot is free: serve the head of its queue (late binding), dropping cancelled
 * probes; when the queue is empty give the policy one chance to find work (stealing). */
static void
serve_next (ebb_pol *p, double now_sec, uint32_t node)
{
  ebb_pol_node *n = &p->nodes[node];
  int asked_idle = 0;
  n->busy = 0;
  n->running_long = 0;
  for (;;)
    {
      if (n->head == EBB_POL_NONE)
        {
          if (asked_idle || !p->ops->node_idle || !p->ops->node_idle (p, now_sec, node))
            return;
          asked_idle = 1;
          continue;
        }
      uint32_t id
          = p->ops->probe_pick ? p->ops->probe_pick (p, now_sec, node) : queue_pop (p, node);
      if (id == EBB_POL_NONE)
        {
          if (n->head == EBB_POL_NONE)
            continue; /* the policy dropped what was left: the queue is empty now */
          return;
        }
      uint32_t job = p->probes[id].job;
      ebb_pol_probe_release (p, id);
      if (ebb_pol_probe_dead (p, now_sec, job))
        {
          p->stats.probes_cancelled++;
          continue;
        }
      if (ebb_pol_bind_task (p, now_sec, node, job, 2 * p->params.net_delay_sec) == 0)
        return;
      /* Surplus probe: the node learns there is nothing left one round trip later. */
      p->stats.probes_surplus++;
      n->busy = 1;
      ebb_pol_emit (p, EBB_POL_ACT_WAKE, node, job, 0, 2 * p->params.net_delay_sec);
      return;
    }
}

/* A new job's counters, class and (resource mode) per-task state (job_arrived and
 * job_adopted share it). */
static void
job_init (ebb_pol *p, uint32_t job)
{
  ebb_pol_job *j = &p->jobs[job];
  j->launched = j->finished = 0;
  j->cancel_at_sec = INFINITY;
  j->failed = 0;
  if (j->class_hint == EBB_POL_CLASS_SHORT || j->class_hint == EBB_POL_CLASS_LONG)
    j->is_long = j->class_hint == EBB_POL_CLASS_LONG;
  else
    j->is_long = j->est_task_sec >= p->params.cutoff_sec;
  if (p->node_cap)
    {
      if (job >= p->jobs_seen)
        p->jobs_seen = job + 1;
      free (j->tasks);
      j->tasks = ebb_xcalloc (j->ntasks ? j->ntasks : 1, sizeof *j->tasks);
      for (uint32_t t = 0; t < j->ntasks; t++)
        j->tasks[t].node = EBB_POL_NONE;
    }
}

void
ebb_pol_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  job_init (p, job);
  p->ops->job_arrived (p, now_sec, job);
}

int
ebb_pol_job_adopted (ebb_pol *p, double now_sec, uint32_t job, const uint32_t *nodes)
{
  /* Slot mode: the environment holds the slots itself (the controller adopts only in
   * resource mode), so the job is left as it was, uninitialized. */
  if (!p->node_cap)
    return -1;
  ebb_pol_job *j = &p->jobs[job];
  for (uint32_t k = 0; k < j->ntasks; k++)
    if (nodes[k] != EBB_POL_NONE && nodes[k] >= p->params.nnodes)
      return -1; /* checked before anything changes */
  job_init (p, job);
  for (uint32_t k = 0; k < j->ntasks; k++)
    {
      if (nodes[k] == EBB_POL_NONE)
        continue;
      /* As ebb_pol_launch_res, without the LAUNCH: it runs already. */
      ebb_pol_task *t = &j->tasks[k];
      t->node = nodes[k];
      t->alloc = j->demand;
      t->state = EBB_POL_TASK_RUNNING;
      p->node_free[nodes[k]].cpu_millis -= j->demand.cpu_millis;
      p->node_free[nodes[k]].memory_bytes -= j->demand.memory_bytes;
      j->launched++;
    }
  if (p->ops->job_adopted)
    p->ops->job_adopted (p, now_sec, job);
  return 0;
}

void
ebb_pol_probe_arrived (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe)
{
  uint32_t job = p->probes[probe].job;
  if (ebb_pol_probe_dead (p, now_sec, job))
    {
      p->stats.probes_cancelled++;
      ebb_pol_probe_release (p, probe);
      return;
    }
  if (p->ops->probe_enqueue)
    p->ops->probe_enqueue (p, now_sec, node, probe);
  else
    ebb_pol_queue_append (p, node, probe);
  if (!p->nodes[node].busy)
    serve_next (p, now_sec, node);
}

static void serve_next (ebb_pol *p, double now_sec, uint32_t node);

static void
res_add (ebb_pol_res *a, ebb_pol_res b)
{
  a->cpu_millis += b.cpu_millis;
  a->memory_bytes += b.memory_bytes;
}

static void
res_sub (ebb_pol_res *a, ebb_pol_res b)
{
  a->cpu_millis -= b.cpu_millis;
  a->memory_bytes -= b.memory_bytes;
}

static ebb_pol_task *
task_of (ebb_pol *p, uint32_t job, uint32_t task)
{
  ebb_pol_job *j = &p->jobs[job];
  if (!j->tasks || task >= j->ntasks)
    abort ();
  return &j->tasks[task];
}

void
ebb_pol_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  p->jobs[job].finished++;
  if (p->node_cap)
    {
      ebb_pol_task *t = task_of (p, job, task);
      res_add (&p->node_free[node], t->alloc);
      t->alloc = (ebb_pol_res){ 0, 0 };
      t->state = EBB_POL_TASK_DONE;
      if (p->ops->task_finished)
        p->ops->task_finished (p, now_sec, node, job, task);
      /* A policy on the probe queues (bind_task) is served as in slot mode; one placing
       * with ebb_pol_launch_res never marks a node busy nor queues on it. */
      if (p->nodes[node].busy || p->nodes[node].head != EBB_POL_NONE)
        serve_next (p, now_sec, node);
      return;
    }
  if (p->ops->task_finished)
    p->ops->task_finished (p, now_sec, node, job, task);
  serve_next (p, now_sec, node);
}

void
ebb_pol_node_capacity (ebb_pol *p, uint32_t node, ebb_pol_res cap)
{
  if (!p->node_cap || node >= p->params.nnodes)
    abort ();
  /* Keep what is in use: free moves by the change of capacity (it may go negative until
   * tasks end; a policy sees the node as full meanwhile). */
  p->node_free[node].cpu_millis += cap.cpu_millis - p->node_cap[node].cpu_millis;
  p->node_free[node].memory_bytes += cap.memory_bytes - p->node_cap[node].memory_bytes;
  p->node_cap[node] = cap;
}

void
ebb_pol_task_reclaimed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task,
                        ebb_pol_res freed, int done)
{
  ebb_pol_task *t = task_of (p, job, task);
  if (t->node != node)
    abort ();
  /* Never count more than the task holds as free. */
  if (freed.cpu_millis > t->alloc.cpu_millis)
    freed.cpu_millis = t->alloc.cpu_millis;
  if (freed.memory_bytes > t->alloc.memory_bytes)
    freed.memory_bytes = t->alloc.memory_bytes;
  res_sub (&t->alloc, freed);
  res_sub (&t->pending, freed);
  res_add (&p->node_free[node], freed);
  if (done && t->inflight > 0 && --t->inflight == 0)
    {
      /* What the SUSPENDs asked and was not freed will not be: the task keeps it. */
      t->pending = (ebb_pol_res){ 0, 0 };
      if (t->state == EBB_POL_TASK_SUSPENDING)
        t->state = EBB_POL_TASK_SUSPENDED;
    }
  if (p->ops->task_reclaimed)
    p->ops->task_reclaimed (p, now_sec, node, job, task, freed, done);
}

void
ebb_pol_task_resumed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_pol_task *t = task_of (p, job, task);
  if (t->state == EBB_POL_TASK_RESUMING)
    t->state = EBB_POL_TASK_RUNNING;
  if (p->ops->task_resumed)
    p->ops->task_resumed (p, now_sec, node, job, task);
}

void
ebb_pol_task_killed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_pol_job *j = &p->jobs[job];
  ebb_pol_task *t = task_of (p, job, task);
  if (t->node != node)
    abort ();
  res_add (&p->node_free[node], t->alloc);
  t->alloc = t->pending = (ebb_pol_res){ 0, 0 };
  t->inflight = 0;
  t->node = EBB_POL_NONE;
  t->frozen = 0;
  t->tries = 0;
  t->kills++;
  t->state = EBB_POL_TASK_PENDING;
  if (j->launched > 0)
    j->launched--; /* to be launched again */
  if (t->kills >= p->params.kill_attempts && !j->failed)
    {
      j->failed = 1;
      p->stats.failed_jobs++;
      emit_res (p, EBB_POL_ACT_FAIL, EBB_POL_NONE, job, task, 0);
    }
  if (j->failed)
    t->state = EBB_POL_TASK_FAILED;
  if (p->ops->task_killed)
    p->ops->task_killed (p, now_sec, node, job, task);
  if (p->nodes[node].busy || p->nodes[node].head != EBB_POL_NONE)
    serve_next (p, now_sec, node);
}

void
ebb_pol_launch_res (ebb_pol *p, uint32_t node, uint32_t job, uint32_t task, double delay_sec)
{
  ebb_pol_job *j = &p->jobs[job];
  ebb_pol_task *t = task_of (p, job, task);
  t->node = node;
  t->alloc = j->demand;
  t->pending = (ebb_pol_res){ 0, 0 };
  t->inflight = 0;
  t->state = EBB_POL_TASK_RUNNING;
  t->frozen = 0;
  t->tries = 0;
  res_sub (&p->node_free[node], j->demand);
  j->launched++;
  emit_res (p, EBB_POL_ACT_LAUNCH, node, job, task, delay_sec)->amount = j->demand;
}

void
ebb_pol_launch_task (ebb_pol *p, uint32_t node, uint32_t job, uint32_t task, ebb_pol_res demand,
                     double delay_sec)
{
  ebb_pol_task *t = task_of (p, job, task);
  t->node = node;
  t->alloc = demand;
  t->pending = (ebb_pol_res){ 0, 0 };
  t->inflight = 0;
  t->state = EBB_POL_TASK_RUNNING;
  t->frozen = 0;
  t->tries = 0;
  res_sub (&p->node_free[node], demand);
  p->jobs[job].launched++;
  emit_res (p, EBB_POL_ACT_LAUNCH, node, job, task, delay_sec)->amount = demand;
}

ebb_pol_res
ebb_pol_suspend (ebb_pol *p, uint32_t job, uint32_t task, uint32_t mode, ebb_pol_res amount)
{
  ebb_pol_task *t = task_of (p, job, task);
  const ebb_pol_res *fp = &p->params.footprint;
  /* What the task could still give: what it holds, minus what is already asked, minus
   * the footprint it keeps. */
  ebb_pol_res room = t->alloc;
  res_sub (&room, t->pending);
  res_sub (&room, *fp);
  if (room.cpu_millis < 0)
    room.cpu_millis = 0;
  if (room.memory_bytes < 0)
    room.memory_bytes = 0;
  if (mode == EBB_POL_SUSPEND_IMMEDIATE)
    amount = room;
  else
    {
      if (amount.cpu_millis > room.cpu_millis)
        amount.cpu_millis = room.cpu_millis;
      if (amount.memory_bytes > room.memory_bytes)
        amount.memory_bytes = room.memory_bytes;
      p->stats.gp_steps++;
    }
  res_add (&t->pending, amount);
  t->suspends++;
  t->inflight++;
  if (mode == EBB_POL_SUSPEND_IMMEDIATE)
    t->state = EBB_POL_TASK_SUSPENDING;
  p->stats.suspends++;
  ebb_pol_action *a
      = emit_res (p, EBB_POL_ACT_SUSPEND, t->node, job, task, p->params.net_delay_sec);
  a->mode = mode;
  a->amount = amount;
  return amount;
}

void
ebb_pol_resume (ebb_pol *p, uint32_t job, uint32_t task)
{
  ebb_pol_job *j = &p->jobs[job];
  ebb_pol_task *t = task_of (p, job, task);
  ebb_pol_res lack = j->demand;
  res_sub (&lack, t->alloc);
  res_sub (&p->node_free[t->node], lack);
  t->alloc = j->demand;
  t->pending = (ebb_pol_res){ 0, 0 };
  t->state = EBB_POL_TASK_RESUMING;
  t->frozen = 0;
  t->tries = 0;
  p->stats.resumes++;
  emit_res (p, EBB_POL_ACT_RESUME, t->node, job, task, p->params.net_delay_sec)->amount = lack;
}

void
ebb_pol_kill (ebb_pol *p, uint32_t job, uint32_t task)
{
  ebb_pol_task *t = task_of (p, job, task);
  p->stats.kills++;
  emit_res (p, EBB_POL_ACT_KILL, t->node, job, task, p->params.net_delay_sec);
}

void
ebb_pol_node_wake (ebb_pol *p, double now_sec, uint32_t node)
{
  serve_next (p, now_sec, node);
}

void
ebb_pol_tick (ebb_pol *p, double now_sec)
{
  if (p->ops->tick)
    p->ops->tick (p, now_sec);
}
