/* Discrete-event engine of ebb-sim. */
#include "config.h"

#include "sim/engine.h"
#include "lib/time.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

enum
{
  EV_PROBE,
  EV_FINISH,
  EV_WAKE,
};

typedef struct sim_event
{
  double t;
  uint64_t seq; /* insertion order breaks ties: same inputs, same order */
  uint32_t kind;
  uint32_t node;
  uint32_t job;
  uint32_t arg;
} sim_event;

/* A 4-ary min-heap: half the depth of a binary one and the four children of a node share
 * two cache lines. */
typedef struct sim_heap
{
  sim_event *ev;
  size_t n, cap;
  uint64_t seq;
} sim_heap;

static inline int
ev_less (const sim_event *a, const sim_event *b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void
heap_push (sim_heap *h, double t, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg)
{
  if (h->n == h->cap)
    {
      h->cap = h->cap ? h->cap * 2 : 4096;
      h->ev = ebb_xrealloc (h->ev, h->cap * sizeof *h->ev);
    }
  sim_event x = { .t = t, .seq = h->seq++, .kind = kind, .node = node, .job = job, .arg = arg };
  size_t i = h->n++;
  while (i > 0)
    {
      size_t parent = (i - 1) / 4;
      if (!ev_less (&x, &h->ev[parent]))
        break;
      h->ev[i] = h->ev[parent];
      i = parent;
    }
  h->ev[i] = x;
}

static sim_event
heap_pop (sim_heap *h)
{
  sim_event top = h->ev[0];
  sim_event x = h->ev[--h->n];
  size_t i = 0, n = h->n;
  for (;;)
    {
      size_t c = 4 * i + 1;
      if (c >= n)
        break;
      size_t end = c + 4 < n ? c + 4 : n;
      for (size_t k = c + 1; k < end; k++)
        if (ev_less (&h->ev[k], &h->ev[c]))
          c = k;
      if (!ev_less (&h->ev[c], &x))
        break;
      h->ev[i] = h->ev[c];
      i = c;
    }
  if (n > 0)
    h->ev[i] = x;
  return top;
}

/* Events of one constant delay (probes: one network delay; wakes: one round trip) are
 * created in time order, so a ring buffer holds them sorted without a heap: only task
 * finishes, whose times vary, pay log n. An event that would break the order (a policy
 * using unusual delays) falls back to the heap, so the result never depends on this. */
typedef struct sim_fifo
{
  sim_event *ev;
  size_t head, n, cap; /* cap is a power of two */
} sim_fifo;

static void
fifo_push (sim_fifo *q, const sim_event *x)
{
  if (q->n == q->cap)
    {
      size_t cap = q->cap ? q->cap * 2 : 4096;
      sim_event *ev = ebb_xmalloc (cap * sizeof *ev);
      for (size_t i = 0; i < q->n; i++)
        ev[i] = q->ev[(q->head + i) & (q->cap - 1)];
      free (q->ev);
      q->ev = ev;
      q->head = 0;
      q->cap = cap;
    }
  q->ev[(q->head + q->n++) & (q->cap - 1)] = *x;
}

static inline const sim_event *
fifo_tail (const sim_fifo *q)
{
  return &q->ev[(q->head + q->n - 1) & (q->cap - 1)];
}

typedef struct sim_run
{
  const ebb_sim_trace *trace;
  ebb_pol *pol;
  sim_heap heap;
  sim_fifo fifo[2]; /* EV_PROBE, EV_WAKE */
  ebb_sim_result *res;
  uint32_t running;    /* tasks between launch and finish */
  double interval_sec; /* utilization snapshots */
  double next_snap_sec;
  uint32_t nnodes;
} sim_run;

static void
schedule (sim_run *r, double t, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg)
{
  if (kind != EV_FINISH)
    {
      sim_fifo *q = &r->fifo[kind == EV_PROBE ? 0 : 1];
      if (q->n == 0 || fifo_tail (q)->t <= t)
        {
          sim_event x = {
            .t = t, .seq = r->heap.seq++, .kind = kind, .node = node, .job = job, .arg = arg
          };
          fifo_push (q, &x);
          return;
        }
    }
  heap_push (&r->heap, t, kind, node, job, arg);
}

/* Returns the earliest pending event (by time, then creation order), or NULL. */
static const sim_event *
peek_next (const sim_run *r, int *src)
{
  const sim_event *best = r->heap.n ? &r->heap.ev[0] : NULL;
  *src = -1;
  for (int i = 0; i < 2; i++)
    {
      const sim_fifo *q = &r->fifo[i];
      if (q->n && (!best || ev_less (&q->ev[q->head], best)))
        best = &q->ev[q->head], *src = i;
    }
  return best;
}

static sim_event
take_next (sim_run *r, int src)
{
  if (src < 0)
    return heap_pop (&r->heap);
  sim_fifo *q = &r->fifo[src];
  sim_event e = q->ev[q->head];
  q->head = (q->head + 1) & (q->cap - 1);
  q->n--;
  return e;
}

/* Turns the policy's actions into future events. */
static void
drain_actions (sim_run *r, double now)
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (r->pol, &n);
  for (size_t i = 0; i < n; i++)
    switch (a[i].kind)
      {
      case EBB_POL_ACT_PROBE:
        schedule (r, now + a[i].delay_sec, EV_PROBE, a[i].node, a[i].job, a[i].arg);
        break;
      case EBB_POL_ACT_LAUNCH:
        {
          const ebb_sim_trace *t = r->trace;
          double dur = t->dur_sec[t->first_task[a[i].job] + a[i].arg];
          double fin = now + a[i].delay_sec + dur;
          r->res->busy_sec += dur;
          r->res->tasks++;
          r->running++;
          if (fin > r->res->finish_sec[a[i].job])
            r->res->finish_sec[a[i].job] = fin;
          schedule (r, fin, EV_FINISH, a[i].node, a[i].job, a[i].arg);
          break;
        }
      case EBB_POL_ACT_WAKE:
        schedule (r, now + a[i].delay_sec, EV_WAKE, a[i].node, a[i].job, 0);
        break;
      default: /* STEAL, CANCEL: counted by the policy */
        break;
      }
  ebb_pol_clear_actions (r->pol);
}

static void
dispatch (sim_run *r, const sim_event *e)
{
  switch (e->kind)
    {
    case EV_PROBE:
      ebb_pol_probe_arrived (r->pol, e->t, e->node, e->arg);
      break;
    case EV_FINISH:
      r->running--;
      ebb_pol_task_finished (r->pol, e->t, e->node, e->job, e->arg);
      break;
    default:
      ebb_pol_node_wake (r->pol, e->t, e->node);
      break;
    }
}

static int
cmp_submit (const void *a, const void *b, void *arg)
{
  const double *s = arg;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (s[x] != s[y])
    return s[x] < s[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Returns the order in which jobs arrive: trace order, stably sorted by submission. */
static uint32_t *
arrival_order (const ebb_sim_trace *t)
{
  uint32_t *order = ebb_xmalloc ((size_t)t->njobs * sizeof *order);
  for (uint32_t j = 0; j < t->njobs; j++)
    order[j] = j;
  if (!ebb_sim_trace_is_sorted (t))
    qsort_r (order, t->njobs, sizeof *order, cmp_submit, t->submit_sec);
  return order;
}

/* Records the share of nodes running a task at every snapshot time up to now (the state
 * before the event at now is applied, as a monitor polling every interval would see it). */
static void
snapshot_until (sim_run *r, double now)
{
  ebb_sim_result *res = r->res;
  while (r->interval_sec > 0 && r->next_snap_sec <= now && res->nutil < (1u << 28))
    {
      if (res->nutil == res->util_cap)
        {
          res->util_cap = res->util_cap ? res->util_cap * 2 : 1024;
          res->util_samples
              = ebb_xrealloc (res->util_samples, res->util_cap * sizeof *res->util_samples);
        }
      res->util_samples[res->nutil++] = (double)r->running / r->nnodes;
      r->next_snap_sec += r->interval_sec;
    }
}

static void
event_loop (sim_run *r, const uint32_t *order)
{
  const ebb_sim_trace *t = r->trace;
  uint32_t next = 0;
  for (;;)
    {
      int src;
      const sim_event *e = peek_next (r, &src);
      double now;
      if (next < t->njobs && (!e || t->submit_sec[order[next]] <= e->t))
        {
          now = t->submit_sec[order[next]];
          snapshot_until (r, now);
          ebb_pol_job_arrived (r->pol, now, order[next++]);
        }
      else if (e)
        {
          sim_event x = take_next (r, src);
          now = x.t;
          snapshot_until (r, now);
          dispatch (r, &x);
        }
      else
        break;
      r->res->events++;
      drain_actions (r, now);
    }
}

int
ebb_sim_run (const ebb_sim_config *cfg, const ebb_sim_trace *trace, ebb_sim_result *res,
             ebb_error **err)
{
  memset (res, 0, sizeof *res);
  if (trace->njobs == 0)
    return ebb_error_set (err, EINVAL, "empty trace");
  if (!(cfg->util_interval_sec >= 0) || !isfinite (cfg->util_interval_sec))
    return ebb_error_set (err, EBB_ERANGE, "utilization interval must be >= 0");
  uint64_t t0 = ebb_now_usec ();
  uint32_t n = trace->njobs;
  cleanup_free ebb_pol_job *jobs = ebb_xcalloc (n, sizeof *jobs);
  for (uint32_t j = 0; j < n; j++)
    {
      jobs[j].submit_sec = trace->submit_sec[j];
      jobs[j].est_task_sec = trace->mean_sec[j];
      jobs[j].ntasks = trace->ntasks[j];
    }
  ebb_pol *pol = ebb_pol_new (cfg->policy, &cfg->pol, jobs, err);
  if (!pol)
    return -ebb_error_code (err);
  res->njobs = n;
  res->finish_sec = ebb_xmalloc (n * sizeof (double));
  res->runtime_sec = ebb_xmalloc (n * sizeof (double));
  for (uint32_t j = 0; j < n; j++)
    res->finish_sec[j] = trace->submit_sec[j];
  cleanup_free uint32_t *order = arrival_order (trace);
  sim_run r = { .trace = trace,
                .pol = pol,
                .res = res,
                .interval_sec = cfg->util_interval_sec,
                .next_snap_sec = trace->submit_sec[order[0]],
                .nnodes = cfg->pol.nnodes };
  event_loop (&r, order);
  res->start_sec = trace->submit_sec[order[0]];
  res->end_sec = res->start_sec;
  for (uint32_t j = 0; j < n; j++)
    {
      res->runtime_sec[j] = res->finish_sec[j] - trace->submit_sec[j];
      if (res->finish_sec[j] > res->end_sec)
        res->end_sec = res->finish_sec[j];
    }
  double span = res->end_sec - res->start_sec;
  res->utilization = span > 0 ? res->busy_sec / (span * cfg->pol.nnodes) : 0;
  res->pol = pol->stats;
  ebb_pol_free (pol);
  free (r.heap.ev);
  free (r.fifo[0].ev);
  free (r.fifo[1].ev);
  res->wall_seconds = (ebb_now_usec () - t0) / 1e6;
  return 0;
}

void
ebb_sim_result_clear (ebb_sim_result *res)
{
  free (res->finish_sec);
  free (res->runtime_sec);
  free (res->util_samples);
  memset (res, 0, sizeof *res);
}
