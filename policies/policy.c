/* The policy core: node probe queues, late binding, the probe pool and the action array.
 * Policies plug in through ebb_pol_ops; everything here is shared by all of them. The
 * registry and parameters are in policy-registry.c, the resource bookkeeping in
 * policy-res.c. */
#include "config.h"

#include "policies/policy-core.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
  /* Field by field: mode and amount are left for ebb_pol_emit_res (resource actions), so the
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

/* Makes room in job_probes for job (zeroed): at a job's first probe. */
static void
job_probes_grow (ebb_pol *p, uint32_t job)
{
  uint32_t cap = p->job_probes_cap ? p->job_probes_cap : 1024;
  while (cap <= job)
    cap *= 2;
  p->job_probes = ebb_xrealloc (p->job_probes, cap * sizeof *p->job_probes);
  memset (p->job_probes + p->job_probes_cap, 0, (cap - p->job_probes_cap) * sizeof *p->job_probes);
  p->job_probes_cap = cap;
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
  if (__builtin_expect (job >= p->job_probes_cap, 0))
    job_probes_grow (p, job);
  p->job_probes[job]++;
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
  p->job_probes[p->probes[probe].job]--;
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
  p->res_queues_used = 1;
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
  p->res_queues_used = 1;
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
void
ebb_pol_serve_next (ebb_pol *p, double now_sec, uint32_t node)
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
  j->forgotten = 0;
  if (job >= p->jobs_seen)
    p->jobs_seen = job + 1;
  if (j->class_hint == EBB_POL_CLASS_SHORT || j->class_hint == EBB_POL_CLASS_LONG)
    j->is_long = j->class_hint == EBB_POL_CLASS_LONG;
  else
    j->is_long = j->est_task_sec >= p->params.cutoff_sec;
  if (p->node_cap)
    {
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
    ebb_pol_serve_next (p, now_sec, node);
}

uint32_t
ebb_pol_job_probes (const ebb_pol *p, uint32_t job)
{
  return job < p->job_probes_cap ? p->job_probes[job] : 0;
}

uint32_t
ebb_pol_job_placed (const ebb_pol *p, uint32_t job)
{
  const ebb_pol_job *j = &p->jobs[job];
  if (!p->node_cap || !j->tasks)
    return j->ntasks > j->finished ? j->ntasks - j->finished : 0;
  uint32_t n = 0;
  for (uint32_t t = 0; t < j->ntasks; t++)
    n += j->tasks[t].node != EBB_POL_NONE && j->tasks[t].state != EBB_POL_TASK_DONE
         && j->tasks[t].state != EBB_POL_TASK_FAILED;
  return n;
}

int
ebb_pol_job_forget (ebb_pol *p, uint32_t job)
{
  if (!p->ops->forgets_jobs || job >= p->jobs_seen)
    return 0;
  ebb_pol_job *j = &p->jobs[job];
  if (j->forgotten || ebb_pol_job_probes (p, job) > 0)
    return 0;
  /* A failed job's killed tasks never finish: it goes once nothing of it is placed. */
  int gone = j->finished >= j->ntasks
             || (j->failed && p->ops->forgets_failed_jobs && ebb_pol_job_placed (p, job) == 0);
  if (!gone)
    return 0;
  if (p->node_cap)
    {
      free (j->tasks); /* the per-task state */
      j->tasks = NULL;
    }
  j->forgotten = 1;
  ebb_pol_job_set_priority (p, job, 0); /* the id's next job starts at the default */
  return 1;
}

int
ebb_pol_job_cancel (ebb_pol *p, double now_sec, uint32_t job)
{
  if (!p->ops->job_cancelled || job >= p->jobs_seen)
    return 0;
  p->ops->job_cancelled (p, now_sec, job);
  return 1;
}

void
ebb_pol_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  p->jobs[job].finished++;
  if (p->node_cap)
    {
      ebb_pol_task *t = ebb_pol_task_of (p, job, task);
      ebb_pol_res_add (&p->node_free[node], t->alloc);
      t->alloc = (ebb_pol_res){ 0, 0 };
      t->state = EBB_POL_TASK_DONE;
      if (p->ops->task_finished)
        p->ops->task_finished (p, now_sec, node, job, task);
      /* A policy on the probe queues (bind_task) is served as in slot mode; one placing
       * with ebb_pol_launch_res never marks a node busy nor queues on it. */
      if (p->res_queues_used && (p->nodes[node].busy || p->nodes[node].head != EBB_POL_NONE))
        ebb_pol_serve_next (p, now_sec, node);
      return;
    }
  if (p->ops->task_finished)
    p->ops->task_finished (p, now_sec, node, job, task);
  ebb_pol_serve_next (p, now_sec, node);
}

void
ebb_pol_prefetch_node (const ebb_pol *p, uint32_t node)
{
  if (p->ops->prefetch_node)
    p->ops->prefetch_node (p, node);
}

void
ebb_pol_node_wake (ebb_pol *p, double now_sec, uint32_t node)
{
  ebb_pol_serve_next (p, now_sec, node);
}

void
ebb_pol_tick (ebb_pol *p, double now_sec)
{
  if (p->ops->tick)
    p->ops->tick (p, now_sec);
}
