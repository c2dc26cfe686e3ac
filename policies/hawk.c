/* hawk: hybrid scheduling (Delgado et al., USENIX ATC 2015).
 *  - Jobs whose estimated task runtime (mean of the job's tasks) is below the cutoff are
 *    short: probed Sparrow-style over the whole cluster by an independent scheduler.
 *  - Long jobs are placed centrally on the general partition: each task goes to the node
 *    with the least estimated waiting time (sum of the estimates of the long tasks queued
 *    there plus the remainder of the running one), updated after every assignment.
 *  - The first short_part_pct% of the nodes form the short partition: long tasks never go
 *    there.
 *  - A node that runs out of work contacts up to steal_cap random general-partition nodes
 *    and steals, from the first that has some, the first consecutive group of short probes
 *    queued after a long task (running or queued).
 * Ablations (Hawk §5.4): no_steal, no_partition, no_central. */
#include "config.h"

#include "policies/policy-impl.h"
#include "policies/iheap.h"
#include "lib/util.h"

#include <math.h>

/* The central queue of <node, estimated waiting time>, kept up to date incrementally so a
 * long job costs O(t log n), not a scan of the cluster. A node's waiting time is
 *   W                                 no long task running (W: long work assigned to it)
 *   W + 2d - min(now - start, est)    a long task bound at `start` with estimate `est`
 * The second is (W + 2d + start) - now until the task overruns its estimate, W + 2d - est
 * after: each form has a key that does not change with time, so the nodes sit in three heaps
 * (idle, running, overrun) and a fourth orders the running ones by when they overrun. */
enum
{
  Q_IDLE,
  Q_RUN,
  Q_OVER,
};

typedef struct hawk_priv
{
  uint32_t first_general;
  double *wait_sec;       /* W: estimated long work assigned to the node, not yet finished */
  uint32_t *nlong;        /* long tasks assigned to the node, not yet finished */
  double *long_est_sec;   /* estimate of the running long task */
  double *key;            /* the node's key in the heap named by where[] */
  double *overrun_at_sec; /* start + est of the running long task */
  uint8_t *where;
  uint32_t *pos, *tpos;
  ebb_pol_iheap q[3];
  ebb_pol_iheap overrun; /* Q_RUN nodes by overrun_at_sec */
} hawk_priv;

static int
hawk_init (ebb_pol *p, ebb_error **err)
{
  hawk_priv *h = p->priv;
  uint32_t n = p->params.nnodes;
  if (!p->params.no_partition)
    h->first_general = (uint32_t)floor (p->params.short_part_pct * n / 100.0);
  if (h->first_general >= n)
    return ebb_error_set (err, EBB_ERANGE, "the short partition leaves no general node");
  h->wait_sec = ebb_xcalloc (n, sizeof *h->wait_sec);
  h->nlong = ebb_xcalloc (n, sizeof *h->nlong);
  h->long_est_sec = ebb_xcalloc (n, sizeof *h->long_est_sec);
  h->key = ebb_xcalloc (n, sizeof *h->key);
  h->overrun_at_sec = ebb_xcalloc (n, sizeof *h->overrun_at_sec);
  h->where = ebb_xcalloc (n, sizeof *h->where);
  h->pos = ebb_xmalloc (n * sizeof *h->pos);
  h->tpos = ebb_xmalloc (n * sizeof *h->tpos);
  for (uint32_t i = 0; i < n; i++)
    h->pos[i] = h->tpos[i] = UINT32_MAX;
  for (int i = 0; i < 3; i++)
    ebb_pol_iheap_init (&h->q[i], n, h->pos);
  ebb_pol_iheap_init (&h->overrun, n, h->tpos);
  for (uint32_t i = h->first_general; i < n; i++)
    ebb_pol_iheap_push (&h->q[Q_IDLE], i, 0);
  return 0;
}

static void
hawk_fini (ebb_pol *p)
{
  hawk_priv *h = p->priv;
  free (h->wait_sec);
  free (h->nlong);
  free (h->long_est_sec);
  free (h->key);
  free (h->overrun_at_sec);
  free (h->where);
  free (h->pos);
  free (h->tpos);
  for (int i = 0; i < 3; i++)
    ebb_pol_iheap_fini (&h->q[i]);
  ebb_pol_iheap_fini (&h->overrun);
}

/* Moves the running nodes whose long task has overrun its estimate by now. */
static void
advance_overruns (ebb_pol *p, hawk_priv *h, double now_sec)
{
  while (h->overrun.n > 0 && h->overrun.s[0].key <= now_sec)
    {
      uint32_t id = h->overrun.s[0].id;
      ebb_pol_iheap_remove (&h->overrun, id);
      ebb_pol_iheap_remove (&h->q[Q_RUN], id);
      h->key[id] = h->wait_sec[id] + 2 * p->params.net_delay_sec - h->long_est_sec[id];
      h->where[id] = Q_OVER;
      ebb_pol_iheap_push (&h->q[Q_OVER], id, h->key[id]);
    }
}

/* Returns the general node with the least estimated waiting time (ties: lower id). */
static uint32_t
least_waiting (const hawk_priv *h, double now_sec)
{
  uint32_t best = EBB_POL_NONE;
  double best_w = 0;
  for (int i = 0; i < 3; i++)
    {
      if (h->q[i].n == 0)
        continue;
      uint32_t id = h->q[i].s[0].id;
      double w = i == Q_RUN ? h->q[i].s[0].key - now_sec : h->q[i].s[0].key;
      if (w < 0)
        w = 0;
      if (best == EBB_POL_NONE || w < best_w || (w == best_w && id < best))
        best = id, best_w = w;
    }
  return best;
}

/* Central placement: each task on the node with the least estimated waiting time, whose
 * wait then grows by the job's estimate. Nodes without long work (wait 0) come first, in
 * ascending id. */
static void
place_long (ebb_pol *p, double now_sec, uint32_t job)
{
  hawk_priv *h = p->priv;
  double est = p->jobs[job].est_task_sec;
  advance_overruns (p, h, now_sec);
  for (uint32_t left = p->jobs[job].ntasks; left > 0; left--)
    {
      uint32_t node = least_waiting (h, now_sec);
      h->wait_sec[node] += est;
      h->nlong[node]++;
      h->key[node] += est;
      ebb_pol_iheap_set (&h->q[h->where[node]], node, h->key[node]);
      ebb_pol_send_probe (p, node, job);
    }
}

/* Moves node to the idle heap with key W (its long task ended). */
static void
to_idle (hawk_priv *h, uint32_t node)
{
  uint8_t w = h->where[node];
  if (w == Q_IDLE)
    return;
  if (w == Q_RUN)
    ebb_pol_iheap_remove (&h->overrun, node);
  ebb_pol_iheap_remove (&h->q[w], node);
  h->key[node] = h->wait_sec[node];
  h->where[node] = Q_IDLE;
  ebb_pol_iheap_push (&h->q[Q_IDLE], node, h->key[node]);
}

static void
hawk_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  hawk_priv *h = p->priv;
  const ebb_pol_job *j = &p->jobs[job];
  uint32_t n = p->params.nnodes, g = h->first_general;
  if (j->ntasks == 0)
    return;
  if (!j->is_long)
    ebb_pol_send_probes_random (p, job, ebb_pol_probe_count (p, job), 0, n);
  else if (p->params.no_central)
    ebb_pol_send_probes_random (p, job, ebb_pol_probe_count (p, job), g, n - g);
  else
    place_long (p, now_sec, job);
}

static void
hawk_task_bound (ebb_pol *p, double now_sec, uint32_t node, uint32_t job)
{
  hawk_priv *h = p->priv;
  if (!p->jobs[job].is_long || p->params.no_central || node < h->first_general)
    return;
  double est = p->jobs[job].est_task_sec;
  to_idle (h, node);
  ebb_pol_iheap_remove (&h->q[Q_IDLE], node);
  h->long_est_sec[node] = est;
  h->overrun_at_sec[node] = now_sec + est;
  if (est > 0)
    {
      h->key[node] = h->wait_sec[node] + 2 * p->params.net_delay_sec + now_sec;
      h->where[node] = Q_RUN;
      ebb_pol_iheap_push (&h->overrun, node, h->overrun_at_sec[node]);
    }
  else
    {
      h->key[node] = h->wait_sec[node] + 2 * p->params.net_delay_sec;
      h->where[node] = Q_OVER;
    }
  ebb_pol_iheap_push (&h->q[h->where[node]], node, h->key[node]);
}

static void
hawk_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  hawk_priv *h = p->priv;
  if (!p->jobs[job].is_long || p->params.no_central || node < h->first_general)
    return;
  /* Exact bookkeeping by count, so float drift never hides an empty node. */
  if (--h->nlong[node] == 0)
    h->wait_sec[node] = 0;
  else
    h->wait_sec[node] -= p->jobs[job].est_task_sec;
  to_idle (h, node);
  h->key[node] = h->wait_sec[node];
  ebb_pol_iheap_set (&h->q[Q_IDLE], node, h->key[node]);
}

/* Unlinks and frees the probes of cancelled jobs after prev (or at the head) in node's
 * queue; returns the first live probe there. A real cancel removes them from the queue, so
 * stealing must not see them. */
static uint32_t
drop_dead (ebb_pol *p, double now_sec, ebb_pol_node *v, uint32_t prev)
{
  ebb_pol_probe *pr = p->probes;
  uint32_t cur = prev == EBB_POL_NONE ? v->head : pr[prev].next;
  while (cur != EBB_POL_NONE && ebb_pol_probe_dead (p, now_sec, pr[cur].job))
    {
      uint32_t next = pr[cur].next;
      if (prev == EBB_POL_NONE)
        v->head = next;
      else
        pr[prev].next = next;
      if (next == EBB_POL_NONE)
        v->tail = prev;
      v->qlen--;
      v->qlong -= p->jobs[pr[cur].job].is_long;
      p->stats.probes_cancelled++;
      ebb_pol_probe_release (p, cur);
      cur = next;
    }
  return cur;
}

/* Moves the first run of short probes after a long task in victim's queue to thief's queue;
 * returns how many moved. */
static uint32_t
steal_from (ebb_pol *p, double now_sec, uint32_t victim, uint32_t thief)
{
  ebb_pol_node *v = &p->nodes[victim];
  ebb_pol_probe *pr = p->probes;
  const ebb_pol_job *jobs = p->jobs;
  if ((!v->running_long && v->qlong == 0) || v->qlen == v->qlong)
    return 0; /* no long task, or no short probe: nothing to steal */
  uint32_t prev = EBB_POL_NONE, cur = drop_dead (p, now_sec, v, prev);
  if (!v->running_long)
    while (cur != EBB_POL_NONE && !jobs[pr[cur].job].is_long)
      prev = cur, cur = drop_dead (p, now_sec, v, prev);
  while (cur != EBB_POL_NONE && jobs[pr[cur].job].is_long)
    prev = cur, cur = drop_dead (p, now_sec, v, prev);
  uint32_t first = cur, last = EBB_POL_NONE, count = 0;
  while (cur != EBB_POL_NONE && !jobs[pr[cur].job].is_long && count < p->params.steal_limit)
    last = cur, cur = drop_dead (p, now_sec, v, cur), count++;
  if (count == 0)
    return 0;
  if (prev == EBB_POL_NONE)
    v->head = cur;
  else
    pr[prev].next = cur;
  if (cur == EBB_POL_NONE)
    v->tail = prev;
  v->qlen -= count;
  ebb_pol_node *t = &p->nodes[thief];
  pr[last].next = EBB_POL_NONE;
  if (t->tail == EBB_POL_NONE)
    t->head = first;
  else
    pr[t->tail].next = first;
  t->tail = last;
  t->qlen += count;
  return count;
}

static int
hawk_node_idle (ebb_pol *p, double now_sec, uint32_t node)
{
  hawk_priv *h = p->priv;
  if (p->params.no_steal)
    return 0;
  uint32_t g = h->first_general, n = p->params.nnodes;
  for (uint32_t a = 0; a < p->params.steal_cap; a++)
    {
      uint32_t victim = g + (uint32_t)ebb_rng_below (&p->rng, n - g);
      p->stats.steal_attempts++;
      uint32_t got = steal_from (p, now_sec, victim, node);
      if (got > 0)
        {
          p->stats.steals++;
          p->stats.probes_stolen += got;
          ebb_pol_emit (p, EBB_POL_ACT_STEAL, node, victim, got, 0);
          return 1;
        }
    }
  return 0;
}

const ebb_pol_ops ebb_pol_hawk_ops = {
  .name = "hawk",
  .summary = "long jobs central (least waiting time), short jobs probed, short partition, "
             "randomized stealing",
  .priv_size = sizeof (hawk_priv),
  .init = hawk_init,
  .fini = hawk_fini,
  .job_arrived = hawk_job_arrived,
  .node_idle = hawk_node_idle,
  .task_bound = hawk_task_bound,
  .task_finished = hawk_task_finished,
  /* Per node state only (a finished task took its estimate off its node): nothing of a job
   * but its probes, which the core counts, stolen ones too. */
  .forgets_jobs = 1,
};
