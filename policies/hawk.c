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

#include "policies/policy.h"
#include "lib/util.h"

#include <math.h>

typedef struct hawk_slot
{
  double key;
  uint32_t id;
} hawk_slot;

typedef struct hawk_priv
{
  uint32_t first_general;
  double *wait_sec;       /* estimated long work assigned to the node, not yet finished */
  uint32_t *nlong;        /* long tasks assigned to the node, not yet finished */
  double *long_start_sec; /* bind time of the running long task, or -1 */
  double *long_est_sec;   /* its estimate */
  hawk_slot *heap;
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
  h->long_start_sec = ebb_xmalloc (n * sizeof *h->long_start_sec);
  h->long_est_sec = ebb_xcalloc (n, sizeof *h->long_est_sec);
  h->heap = ebb_xmalloc (n * sizeof *h->heap);
  for (uint32_t i = 0; i < n; i++)
    h->long_start_sec[i] = -1;
  return 0;
}

static void
hawk_fini (ebb_pol *p)
{
  hawk_priv *h = p->priv;
  free (h->wait_sec);
  free (h->nlong);
  free (h->long_start_sec);
  free (h->long_est_sec);
  free (h->heap);
}

static inline int
slot_less (const hawk_slot *a, const hawk_slot *b)
{
  return a->key < b->key || (a->key == b->key && a->id < b->id);
}

static void
sift_down (hawk_slot *hp, uint32_t n, uint32_t i)
{
  hawk_slot x = hp[i];
  for (;;)
    {
      uint32_t c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && slot_less (&hp[c + 1], &hp[c]))
        c++;
      if (!slot_less (&hp[c], &x))
        break;
      hp[i] = hp[c];
      i = c;
    }
  hp[i] = x;
}

/* Estimated time before a new long task would start on node i. */
static double
adjusted_wait (const ebb_pol *p, const hawk_priv *h, double now_sec, uint32_t i)
{
  double w = h->wait_sec[i];
  if (h->long_start_sec[i] >= 0)
    {
      double done = now_sec - h->long_start_sec[i];
      if (done > h->long_est_sec[i])
        done = h->long_est_sec[i];
      w += 2 * p->params.net_delay_sec - done;
    }
  return w > 0 ? w : 0;
}

static void
assign_long (ebb_pol *p, hawk_priv *h, uint32_t node, uint32_t job)
{
  h->wait_sec[node] += p->jobs[job].est_task_sec;
  h->nlong[node]++;
  ebb_pol_send_probe (p, node, job);
}

/* Central placement: nodes without long work first, in ascending id; then repeatedly the
 * node with the least estimated waiting time (a heap of <wait, node>, ties to the lower id),
 * whose wait grows by the job's estimate after each assignment. */
static void
place_long (ebb_pol *p, double now_sec, uint32_t job)
{
  hawk_priv *h = p->priv;
  uint32_t g = h->first_general, n = p->params.nnodes;
  uint32_t left = p->jobs[job].ntasks;
  double est = p->jobs[job].est_task_sec;
  for (uint32_t i = g; i < n && left > 0; i++)
    if (h->nlong[i] == 0)
      {
        assign_long (p, h, i, job);
        left--;
      }
  if (left == 0)
    return;
  uint32_t m = n - g;
  for (uint32_t i = 0; i < m; i++)
    h->heap[i] = (hawk_slot){ .key = adjusted_wait (p, h, now_sec, g + i), .id = g + i };
  for (uint32_t i = m / 2; i-- > 0;)
    sift_down (h->heap, m, i);
  while (left-- > 0)
    {
      assign_long (p, h, h->heap[0].id, job);
      h->heap[0].key += est;
      sift_down (h->heap, m, 0);
    }
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
  if (p->jobs[job].is_long)
    {
      h->long_start_sec[node] = now_sec;
      h->long_est_sec[node] = p->jobs[job].est_task_sec;
    }
  else
    h->long_start_sec[node] = -1;
}

static void
hawk_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job)
{
  hawk_priv *h = p->priv;
  h->long_start_sec[node] = -1;
  if (!p->jobs[job].is_long || p->params.no_central)
    return;
  /* Exact bookkeeping by count, so float drift never hides an empty node. */
  if (--h->nlong[node] == 0)
    h->wait_sec[node] = 0;
  else
    h->wait_sec[node] -= p->jobs[job].est_task_sec;
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
};
