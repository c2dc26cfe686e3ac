/* eagle: job-aware hybrid scheduling (Delgado, Didona, Dinu, Zwaenepoel, SoCC 2016), the
 * Hawk authors' successor and Peacock's baseline.
 *  - Long jobs (estimate >= cutoff) are placed centrally on the general partition exactly as
 *    in Hawk (least estimated waiting time); this file delegates that part to hawk.c.
 *  - Succinct State Sharing (SSS): the central scheduler's view of which nodes hold long
 *    work (assigned and not finished) is shared with the short schedulers. A short probe that
 *    reaches a node running or queueing long work is refused and the scheduler learns the
 *    view; it re-probes the missing tasks on nodes outside it (second round, one more
 *    delay), and what is still missing goes to the short-only partition.
 *  - Sticky Batch Probing (SBP): a probe whose task launched stays in its queue, so the node
 *    keeps taking that job's tasks until none is left.
 *  - SRPT: a free node serves the short probe whose job has the least remaining work
 *    (unlaunched tasks x estimate), but never bypasses a short probe that has already been
 *    delayed by more than CAP x its own estimate (the starvation bound); a long probe at
 *    the head of the queue is served first.
 * Short probes go to the whole cluster, at least EAGLE_MIN_PROBES per job; there is no work
 * stealing. */
#include "config.h"

#include "policies/policy-impl.h"
#include "lib/util.h"

#include <math.h>

/* Starvation bound of SRPT and SBP: a short probe may be delayed by bypassing probes for at
 * most this many times its own estimate (the authors' simulator: CAP_SRPT_SBP = 5). */
#define EAGLE_SRPT_CAP 5.0
/* Fewest probes a short job sends (the authors' Eagle runs: MIN_NR_PROBES = 20). */
#define EAGLE_MIN_PROBES 20
/* Draws per probe when sampling outside the long-job view in the second round. */
#define EAGLE_RESAMPLE_DRAWS 32

typedef struct eagle_priv
{
  void *hawk;              /* hawk.c's private state: Eagle's long-job placement is Hawk's */
  uint32_t first_general;  /* nodes [0, first_general) take short tasks only */
  uint32_t *long_assigned; /* central view: long tasks assigned to the node, not finished */
  double *delayed_sec;     /* per probe: how long bypassing probes have delayed it */
  uint32_t delayed_cap;
  uint64_t refused, resampled, fallbacks, sticky; /* counters for tests and reports */
} eagle_priv;

/* Calls one of hawk.c's hooks on hawk's own private state. */
#define HAWK_CALL(p, e, hook, ...)                                                                 \
  do                                                                                               \
    {                                                                                              \
      void *mine_ = (p)->priv;                                                                     \
      (p)->priv = (e)->hawk;                                                                       \
      ebb_pol_hawk_ops.hook ((p), __VA_ARGS__);                                                    \
      (p)->priv = mine_;                                                                           \
    }                                                                                              \
  while (0)

static int
eagle_init (ebb_pol *p, ebb_error **err)
{
  eagle_priv *e = p->priv;
  uint32_t n = p->params.nnodes;
  if (isinf (p->params.cutoff_sec))
    return ebb_error_set (err, EINVAL, "policy eagle needs a cutoff between short and long jobs");
  e->hawk = ebb_xcalloc (1, ebb_pol_hawk_ops.priv_size);
  p->priv = e->hawk;
  int r = ebb_pol_hawk_ops.init (p, err);
  p->priv = e;
  if (r < 0)
    {
      free (e->hawk);
      e->hawk = NULL;
      return r;
    }
  if (!p->params.no_partition)
    e->first_general = (uint32_t)floor (p->params.short_part_pct * n / 100.0);
  e->long_assigned = ebb_xcalloc (n, sizeof *e->long_assigned);
  return 0;
}

static void
eagle_fini (ebb_pol *p)
{
  eagle_priv *e = p->priv;
  if (e->hawk)
    {
      p->priv = e->hawk;
      ebb_pol_hawk_ops.fini (p);
      p->priv = e;
      free (e->hawk);
    }
  free (e->long_assigned);
  free (e->delayed_sec);
}

static double *
delayed (ebb_pol *p, eagle_priv *e, uint32_t probe)
{
  if (probe >= e->delayed_cap)
    {
      uint32_t cap = p->probes_cap > probe ? p->probes_cap : probe + 1;
      e->delayed_sec = ebb_xrealloc (e->delayed_sec, cap * sizeof *e->delayed_sec);
      for (uint32_t i = e->delayed_cap; i < cap; i++)
        e->delayed_sec[i] = 0;
      e->delayed_cap = cap;
    }
  return &e->delayed_sec[probe];
}

/* The node refuses short probes while it runs or queues long work (what it tells the
 * scheduler with its refusal). */
static int
holds_long (const ebb_pol *p, uint32_t node)
{
  const ebb_pol_node *v = &p->nodes[node];
  return v->running_long || v->qlong > 0;
}

static void
send_after (ebb_pol *p, uint32_t node, uint32_t job, double delay_sec)
{
  uint32_t id = ebb_pol_probe_new (p, job);
  *delayed (p, p->priv, id) = 0;
  p->stats.probes_sent++;
  ebb_pol_emit (p, EBB_POL_ACT_PROBE, node, job, id, delay_sec);
}

/* Short job: batch probing over the cluster with SSS (see the top of the file). Round one
 * arrives after one delay, the later rounds after two (refusal, then the new probe). */
static void
place_short (ebb_pol *p, uint32_t job)
{
  eagle_priv *e = p->priv;
  uint32_t n = p->params.nnodes, count = ebb_pol_probe_count (p, job), missing = 0;
  if (count < EAGLE_MIN_PROBES)
    count = EAGLE_MIN_PROBES;
  double d = p->params.net_delay_sec;
  for (uint32_t i = 0; i < count; i++)
    {
      uint32_t node = (uint32_t)ebb_rng_below (&p->rng, n);
      if (holds_long (p, node))
        missing++, e->refused++;
      else
        send_after (p, node, job, d);
    }
  for (; missing > 0; missing--)
    {
      uint32_t node = EBB_POL_NONE;
      for (int k = 0; k < EAGLE_RESAMPLE_DRAWS && node == EBB_POL_NONE; k++)
        {
          uint32_t c = (uint32_t)ebb_rng_below (&p->rng, n);
          if (e->long_assigned[c] == 0)
            node = c;
        }
      if (node != EBB_POL_NONE && !holds_long (p, node))
        {
          e->resampled++;
          send_after (p, node, job, 2 * d);
          continue;
        }
      /* Still refused: the short-only partition, which never holds long work. */
      e->fallbacks++;
      uint32_t g = e->first_general ? e->first_general : n;
      send_after (p, (uint32_t)ebb_rng_below (&p->rng, g), job, 2 * d);
    }
}

static void
eagle_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  eagle_priv *e = p->priv;
  if (p->jobs[job].ntasks == 0)
    return;
  if (!p->jobs[job].is_long)
    {
      place_short (p, job);
      return;
    }
  size_t first = p->nacts;
  HAWK_CALL (p, e, job_arrived, now_sec, job);
  for (size_t i = first; i < p->nacts; i++)
    if (p->acts[i].kind == EBB_POL_ACT_PROBE)
      {
        e->long_assigned[p->acts[i].node]++;
        *delayed (p, e, p->acts[i].arg) = 0;
      }
}

static void
eagle_task_bound (ebb_pol *p, double now_sec, uint32_t node, uint32_t job)
{
  eagle_priv *e = p->priv;
  HAWK_CALL (p, e, task_bound, now_sec, node, job);
}

static void
eagle_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  eagle_priv *e = p->priv;
  if (p->jobs[job].is_long && e->long_assigned[node] > 0)
    e->long_assigned[node]--;
  HAWK_CALL (p, e, task_finished, now_sec, node, job, task);
}

static void
unlink_after (ebb_pol *p, uint32_t node, uint32_t prev, uint32_t cur)
{
  ebb_pol_node *v = &p->nodes[node];
  uint32_t next = p->probes[cur].next;
  if (prev == EBB_POL_NONE)
    v->head = next;
  else
    p->probes[prev].next = next;
  if (next == EBB_POL_NONE)
    v->tail = prev;
  v->qlen--;
  v->qlong -= p->jobs[p->probes[cur].job].is_long;
}

/* SRPT with the starvation bound, and SBP: returns the probe to serve. A short probe stays
 * queued (sticky) and a fresh probe of its job is served in its place. */
static uint32_t
eagle_probe_pick (ebb_pol *p, double now_sec, uint32_t node)
{
  eagle_priv *e = p->priv;
  const ebb_pol_job *jobs = p->jobs;
  ebb_pol_probe *pr = p->probes;
  uint32_t prev = EBB_POL_NONE, cur = p->nodes[node].head;
  uint32_t best = EBB_POL_NONE, best_prev = EBB_POL_NONE;
  double min_rem = INFINITY, min_slack = INFINITY;
  while (cur != EBB_POL_NONE)
    {
      uint32_t job = pr[cur].job, next = pr[cur].next;
      const ebb_pol_job *j = &jobs[job];
      if (j->launched >= j->ntasks || ebb_pol_probe_dead (p, now_sec, job))
        {
          /* The job has nothing left to launch: its probe leaves at no cost (the node
           * knows the remaining work of the jobs it holds probes of). */
          unlink_after (p, node, prev, cur);
          p->stats.probes_cancelled++;
          ebb_pol_probe_release (p, cur);
          cur = next;
          continue;
        }
      if (j->is_long)
        {
          if (prev == EBB_POL_NONE)
            {
              best = cur, best_prev = prev;
              break;
            }
        }
      else
        {
          double est = j->est_task_sec;
          double rem = (double)(j->ntasks - j->launched) * est;
          if (rem < min_rem && est <= min_slack)
            best = cur, best_prev = prev, min_rem = rem;
          double slack = EAGLE_SRPT_CAP * est - *delayed (p, e, cur);
          if (slack < min_slack)
            min_slack = slack;
        }
      prev = cur, cur = next;
    }
  if (best == EBB_POL_NONE)
    return EBB_POL_NONE;
  const ebb_pol_job *bj = &jobs[pr[best].job];
  if (bj->is_long)
    {
      unlink_after (p, node, best_prev, best);
      return best;
    }
  /* Every short probe bypassed waits one more task of the chosen job. */
  for (uint32_t c = p->nodes[node].head; c != best; c = pr[c].next)
    if (!jobs[pr[c].job].is_long)
      *delayed (p, e, c) += bj->est_task_sec;
  if (bj->launched > 0)
    e->sticky++;
  return ebb_pol_probe_new (p, pr[best].job);
}

const ebb_pol_ops ebb_pol_eagle_ops = {
  .name = "eagle",
  .summary = "Hawk's split plus succinct state sharing, sticky batch probing and SRPT with a "
             "starvation bound",
  .priv_size = sizeof (eagle_priv),
  .init = eagle_init,
  .fini = eagle_fini,
  .job_arrived = eagle_job_arrived,
  .task_bound = eagle_task_bound,
  .task_finished = eagle_task_finished,
  .probe_pick = eagle_probe_pick,
  /* Hawk's state and long_assigned are per node, delayed_sec per probe; a job's sticky
   * probes stay queued after its last launch, but the core counts them until a node's scan
   * drops them, and refuses to forget the job until then. */
  .forgets_jobs = 1,
};
