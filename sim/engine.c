/* Discrete-event engine of ebb-sim. */
#include "config.h"

#include "sim/engine.h"
#include "sim/speculate.h"
#include "sim/dag.h"
#include "lib/time.h"
#include "lib/util.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

enum
{
  EV_PROBE,
  EV_FINISH,
  EV_WAKE,
  EV_TICK,
};

/* Resource-mode events: on a heap of their own so the slot-mode event stays 32 bytes. */
enum
{
  RV_START,   /* a LAUNCH reached the node */
  RV_SUSPEND, /* a SUSPEND reached the node: CPU drops now, memory follows */
  RV_MEMFREE, /* the memory of a SUSPEND is reclaimed */
  RV_RESUMED, /* a RESUME completed (after reloading memory) */
  RV_KILL,    /* a KILL reached the node */
};

typedef struct res_event
{
  double t;
  uint64_t seq;
  uint32_t kind, node, job, task;
  uint32_t incarn; /* the task's incarnation when sent: stale after a finish or kill */
  uint32_t mode;
  int64_t cpu, mem;
} res_event;

typedef struct res_heap
{
  res_event *ev;
  size_t n, cap;
} res_heap;

static inline int
rv_less (const res_event *a, const res_event *b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void
rheap_push (res_heap *h, const res_event *x)
{
  if (h->n == h->cap)
    {
      h->cap = h->cap ? h->cap * 2 : 256;
      h->ev = ebb_xrealloc (h->ev, h->cap * sizeof *h->ev);
    }
  size_t i = h->n++;
  while (i > 0 && rv_less (x, &h->ev[(i - 1) / 2]))
    {
      h->ev[i] = h->ev[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  h->ev[i] = *x;
}

static res_event
rheap_pop (res_heap *h)
{
  res_event top = h->ev[0], x = h->ev[--h->n];
  size_t i = 0;
  for (;;)
    {
      size_t c = 2 * i + 1;
      if (c >= h->n)
        break;
      if (c + 1 < h->n && rv_less (&h->ev[c + 1], &h->ev[c]))
        c++;
      if (!rv_less (&h->ev[c], &x))
        break;
      h->ev[i] = h->ev[c];
      i = c;
    }
  if (h->n > 0)
    h->ev[i] = x;
  return top;
}

/* A task's progress in resource mode. */
typedef struct res_task
{
  double remaining; /* seconds of work left at full rate */
  double last_t;    /* remaining is as of this time */
  double rate;      /* min(1, cpu given / cpu demanded); 0 while suspended */
  double fin_t;     /* time of its pending finish event (stale events differ) */
  int64_t cpu, mem; /* given */
  uint32_t incarn;
  uint8_t running, suspended;
} res_task;

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
  /* Resource mode. */
  const ebb_sim_config *cfg;
  ebb_pol_job *jobs;
  res_heap rheap;
  res_task *tasks; /* by global task index (trace first_task + task) */
  double cap_cpu, cap_mem;
  int64_t use_cpu, use_mem; /* given to running tasks, cluster-wide */
  double util_t;            /* utilization integrated up to here */
  double util_area;
  double tick_sec, next_tick;
  ebb_sim_dag_run *dag; /* DAG policies: per-task demands, parents, finished flags */
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

/* Resource mode: 1 when the resource heap's head comes before e (or e is NULL). */
static inline int
res_first (const sim_run *r, const sim_event *e)
{
  if (r->rheap.n == 0)
    return 0;
  const res_event *x = &r->rheap.ev[0];
  return !e || x->t < e->t || (x->t == e->t && x->seq < e->seq);
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

static inline double
task_dur (const sim_run *r, uint32_t job, uint32_t task)
{
  return r->trace->dur_sec[r->trace->first_task[job] + task];
}

static inline res_task *
rtask (sim_run *r, uint32_t job, uint32_t task)
{
  return &r->tasks[r->trace->first_task[job] + task];
}

/* Integrates the dominant-share utilization up to now (before the event at now applies). */
static void
util_advance (sim_run *r, double now)
{
  if (now <= r->util_t)
    return;
  double u = (double)r->use_cpu / r->cap_cpu;
  if (r->cap_mem > 0 && (double)r->use_mem / r->cap_mem > u)
    u = (double)r->use_mem / r->cap_mem;
  r->util_area += u * (now - r->util_t);
  if (u > 0.8)
    r->res->util_above_80_sec += now - r->util_t;
  r->util_t = now;
}

static void
rv_push (sim_run *r, double t, uint32_t kind, const ebb_pol_action *a, int64_t cpu, int64_t mem)
{
  res_event x = { .t = t,
                  .seq = r->heap.seq++,
                  .kind = kind,
                  .node = a->node,
                  .job = a->job,
                  .task = a->arg,
                  .incarn = rtask (r, a->job, a->arg)->incarn,
                  .mode = a->mode,
                  .cpu = cpu,
                  .mem = mem };
  rheap_push (&r->rheap, &x);
}

/* Brings the task's progress to now and sets its rate from what it is given. */
static void
task_rerate (sim_run *r, res_task *t, uint32_t node, uint32_t job, uint32_t task, double now)
{
  if (now > t->last_t)
    {
      t->remaining -= t->rate * (now - t->last_t);
      if (t->remaining < 0)
        t->remaining = 0;
      t->last_t = now;
    }
  int64_t want = r->dag ? r->jobs[job].dag->demand[(size_t)task * EBB_DAG_NRES + EBB_DAG_CPU]
                        : r->jobs[job].demand.cpu_millis;
  double rate = t->suspended ? 0 : (want <= 0 || t->cpu >= want ? 1.0 : (double)t->cpu / want);
  t->rate = rate;
  if (rate > 0)
    {
      t->fin_t = t->last_t + t->remaining / rate;
      schedule (r, t->fin_t, EV_FINISH, node, job, task);
    }
  else
    t->fin_t = INFINITY;
}

static double
gib (int64_t bytes)
{
  return (double)bytes / (1024.0 * 1024 * 1024);
}

static void
drain_res_action (sim_run *r, double now, const ebb_pol_action *a)
{
  double at = now + a->delay_sec;
  switch (a->kind)
    {
    case EBB_POL_ACT_LAUNCH:
      rv_push (r, at, RV_START, a, a->amount.cpu_millis, a->amount.memory_bytes);
      break;
    case EBB_POL_ACT_SUSPEND:
      rv_push (r, at + r->cfg->suspend_latency_sec, RV_SUSPEND, a, a->amount.cpu_millis,
               a->amount.memory_bytes);
      break;
    case EBB_POL_ACT_RESUME:
      /* Memory comes back first, at the reload cost; the task runs again after it. */
      rv_push (r,
               at + r->cfg->resume_latency_sec
                   + gib (a->amount.memory_bytes) * r->cfg->resume_sec_per_gib,
               RV_RESUMED, a, a->amount.cpu_millis, a->amount.memory_bytes);
      break;
    case EBB_POL_ACT_KILL:
      rv_push (r, at, RV_KILL, a, 0, 0);
      break;
    case EBB_POL_ACT_FAIL:
      r->res->failed[a->job] = 1;
      break;
    default:
      break;
    }
}

static void
dispatch_res (sim_run *r, const res_event *e)
{
  res_task *t = rtask (r, e->job, e->task);
  if (e->kind != RV_START && (e->incarn != t->incarn || !t->running))
    return; /* the task finished or was killed meanwhile */
  switch (e->kind)
    {
    case RV_START:
      t->remaining = task_dur (r, e->job, e->task);
      t->last_t = e->t;
      t->cpu = e->cpu;
      t->mem = e->mem;
      t->running = 1;
      t->suspended = 0;
      r->use_cpu += t->cpu;
      r->use_mem += t->mem;
      r->running++;
      r->res->tasks++;
      if (r->dag)
        ebb_sim_dag_started (r->dag, r->trace, e->job, e->task);
      task_rerate (r, t, e->node, e->job, e->task, e->t);
      break;
    case RV_SUSPEND:
      {
        /* CPU is taken at once (BIG-C: throttle first so the task stops dirtying memory). */
        int64_t cpu = e->cpu < t->cpu ? e->cpu : t->cpu;
        t->cpu -= cpu;
        r->use_cpu -= cpu;
        if (e->mode == EBB_POL_SUSPEND_IMMEDIATE)
          t->suspended = 1;
        task_rerate (r, t, e->node, e->job, e->task, e->t);
        int last = e->mem <= 0;
        ebb_pol_task_reclaimed (r->pol, e->t, e->node, e->job, e->task,
                                (ebb_pol_res){ .cpu_millis = cpu }, last);
        if (!last)
          {
            res_event x = *e;
            x.kind = RV_MEMFREE;
            x.t = e->t + gib (e->mem) * r->cfg->reclaim_sec_per_gib;
            x.seq = r->heap.seq++;
            rheap_push (&r->rheap, &x);
          }
        break;
      }
    case RV_MEMFREE:
      {
        int64_t mem = e->mem < t->mem ? e->mem : t->mem;
        t->mem -= mem;
        r->use_mem -= mem;
        ebb_pol_task_reclaimed (r->pol, e->t, e->node, e->job, e->task,
                                (ebb_pol_res){ .memory_bytes = mem }, 1);
        break;
      }
    case RV_RESUMED:
      t->cpu += e->cpu;
      t->mem += e->mem;
      r->use_cpu += e->cpu;
      r->use_mem += e->mem;
      t->suspended = 0;
      task_rerate (r, t, e->node, e->job, e->task, e->t);
      ebb_pol_task_resumed (r->pol, e->t, e->node, e->job, e->task);
      break;
    default: /* RV_KILL: progress is lost */
      t->running = 0;
      t->incarn++;
      t->fin_t = INFINITY;
      r->use_cpu -= t->cpu;
      r->use_mem -= t->mem;
      r->running--;
      ebb_pol_task_killed (r->pol, e->t, e->node, e->job, e->task);
      break;
    }
}

/* Resource mode: a finish event is real only when it is the task's current one. */
static void
finish_res (sim_run *r, const sim_event *e)
{
  res_task *t = rtask (r, e->job, e->arg);
  if (!t->running || e->t != t->fin_t)
    return;
  t->running = 0;
  t->incarn++;
  r->use_cpu -= t->cpu;
  r->use_mem -= t->mem;
  r->running--;
  r->res->busy_sec += task_dur (r, e->job, e->arg);
  if (r->dag)
    ebb_sim_dag_finished (r->dag, r->trace->first_task[e->job] + e->arg);
  if (e->t > r->res->finish_sec[e->job])
    r->res->finish_sec[e->job] = e->t;
  ebb_pol_task_finished (r->pol, e->t, e->node, e->job, e->arg);
}

/* Resource mode's drain, out of line so the slot path stays small and inlined. */
static __attribute__ ((noinline)) void
drain_actions_res (sim_run *r, double now)
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (r->pol, &n);
  for (size_t i = 0; i < n; i++)
    if (a[i].kind == EBB_POL_ACT_PROBE || a[i].kind == EBB_POL_ACT_WAKE)
      schedule (r, now + a[i].delay_sec, a[i].kind == EBB_POL_ACT_PROBE ? EV_PROBE : EV_WAKE,
                a[i].node, a[i].job, a[i].arg);
    else
      drain_res_action (r, now, &a[i]);
  ebb_pol_clear_actions (r->pol);
}

/* Turns the policy's actions into future events. Always inlined into the event loop: the
 * slot policies' hot path (measured with callgrind: out of line it costs 7% more
 * instructions on sparrow). */
static inline __attribute__ ((always_inline)) void
drain_actions (sim_run *r, double now)
{
  if (r->tasks)
    {
      drain_actions_res (r, now);
      return;
    }
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
      if (r->tasks)
        {
          finish_res (r, e);
          break;
        }
      r->running--;
      ebb_pol_task_finished (r->pol, e->t, e->node, e->job, e->arg);
      break;
    case EV_TICK:
      ebb_pol_tick (r->pol, e->t);
      break;
    default:
      ebb_pol_node_wake (r->pol, e->t, e->node);
      break;
    }
}

void
ebb_sim_config_costs_bigc (ebb_sim_config *cfg)
{
  cfg->reclaim_sec_per_gib = 3;
  cfg->resume_sec_per_gib = 3;
  cfg->suspend_latency_sec = 0;
  cfg->resume_latency_sec = 0;
}

void
ebb_sim_config_costs_ebb_agent (ebb_sim_config *cfg)
{
  cfg->reclaim_sec_per_gib = 3;
  cfg->resume_sec_per_gib = 3;
  cfg->suspend_latency_sec = 0.0065;
  cfg->resume_latency_sec = 0.0025;
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
      double u = (double)r->running / r->nnodes;
      if (r->tasks)
        {
          u = (double)r->use_cpu / r->cap_cpu;
          if (r->cap_mem > 0 && (double)r->use_mem / r->cap_mem > u)
            u = (double)r->use_mem / r->cap_mem;
        }
      res->util_samples[res->nutil++] = u;
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
      if (r->tasks)
        {
          /* Resource mode: the resource heap and the policy's round compete too. Order at
           * equal times: arrivals, slot events, resource events, then the round. */
          double ta = next < t->njobs ? t->submit_sec[order[next]] : INFINITY;
          double te = e ? e->t : INFINITY;
          double tr = r->rheap.n ? r->rheap.ev[0].t : INFINITY;
          /* Stale finish events (a task slowed down, then sped up) do not keep rounds going. */
          int work = r->rheap.n || next < t->njobs || r->running > 0;
          double tk = r->tick_sec > 0 && work ? r->next_tick : INFINITY;
          if (r->rheap.n && tr < ta && res_first (r, e) && tr <= tk)
            {
              res_event x = rheap_pop (&r->rheap);
              now = x.t;
              snapshot_until (r, now);
              util_advance (r, now);
              dispatch_res (r, &x);
              r->res->events++;
              drain_actions (r, now);
              continue;
            }
          if (tk < ta && tk < te && tk < tr)
            {
              now = r->next_tick;
              r->next_tick += r->tick_sec;
              snapshot_until (r, now);
              util_advance (r, now);
              ebb_pol_tick (r->pol, now);
              drain_actions (r, now);
              continue;
            }
        }
      if (next < t->njobs && (!e || t->submit_sec[order[next]] <= e->t))
        {
          now = t->submit_sec[order[next]];
          snapshot_until (r, now);
          if (r->tasks)
            util_advance (r, now);
          ebb_pol_job_arrived (r->pol, now, order[next++]);
        }
      else if (e)
        {
          sim_event x = take_next (r, src);
          if (r->tasks && x.kind == EV_FINISH)
            {
              const res_task *k = rtask (r, x.job, x.arg);
              if (!k->running || x.t != k->fin_t)
                continue; /* superseded: the task's rate changed since */
            }
          now = x.t;
          snapshot_until (r, now);
          if (r->tasks)
            util_advance (r, now);
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
  const ebb_pol_ops *spec_ops = ebb_pol_lookup (cfg->policy);
  if (spec_ops && spec_ops->speculative)
    return ebb_sim_run_spec (cfg, trace, res, err);
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
  const ebb_pol_ops *ops = ebb_pol_lookup (cfg->policy);
  int resources = ops && ops->needs_resources;
  if (ops && trace->dag && !ops->dag)
    return ebb_error_set (err, EINVAL,
                          "policy '%s' ignores task dependencies: a trace with DAG jobs needs "
                          "graphene, cp, tetris or random",
                          cfg->policy);
  ebb_sim_dag_run dag_run = { .dags = NULL };
  if (ops && ops->dag)
    {
      ebb_sim_dag_prepare (trace, &dag_run);
      for (uint32_t j = 0; j < n; j++)
        jobs[j].dag = &dag_run.dags[j];
      int64_t net = cfg->pol.node_net_mbps;
      for (uint64_t i = 0; net > 0 && i < trace->ntasks_total; i++)
        if (dag_run.demand[i * EBB_DAG_NRES + EBB_DAG_NET] > net)
          {
            int64_t want = dag_run.demand[i * EBB_DAG_NRES + EBB_DAG_NET];
            ebb_sim_dag_run_free (&dag_run);
            return ebb_error_set (err, EBB_ERANGE,
                                  "a task needs %" PRId64 " Mbit/s, more than a node has", want);
          }
    }
  if (resources)
    for (uint32_t j = 0; j < n; j++)
      {
        /* A Hawk-format trace in resource mode: every task is one slot of one CPU. */
        if (ebb_sim_trace_has_res (trace))
          {
            jobs[j].demand = (ebb_pol_res){ trace->cpu_millis[j], trace->memory_bytes[j] };
            jobs[j].class_hint = trace->klass[j];
          }
        else
          jobs[j].demand = (ebb_pol_res){ .cpu_millis = 1000 };
      }
  ebb_pol *pol = ebb_pol_new (cfg->policy, &cfg->pol, jobs, err);
  if (!pol)
    {
      ebb_sim_dag_run_free (&dag_run);
      /* err may be NULL (the caller wants no message): a failure must still be negative. */
      int code = ebb_error_code (err);
      return code > 0 ? -code : -EINVAL;
    }
  if (resources)
    for (uint32_t j = 0; j < n; j++)
      if (!ebb_pol_res_fits (jobs[j].demand, cfg->pol.node_cap))
        {
          ebb_pol_free (pol);
          ebb_sim_dag_run_free (&dag_run);
          return ebb_error_set (err, EBB_ERANGE,
                                "job %u: a task needs <%" PRId64 " millicores, %" PRId64
                                " bytes>, more than a node has",
                                j + 1, jobs[j].demand.cpu_millis, jobs[j].demand.memory_bytes);
        }
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
                .nnodes = cfg->pol.nnodes,
                .cfg = cfg,
                .jobs = jobs,
                .dag = dag_run.dags ? &dag_run : NULL };
  if (resources)
    {
      res->resources = 1;
      res->failed = ebb_xcalloc (n, 1);
      r.tasks = ebb_xcalloc (trace->ntasks_total ? trace->ntasks_total : 1, sizeof *r.tasks);
      r.cap_cpu = (double)cfg->pol.node_cap.cpu_millis * cfg->pol.nnodes;
      r.cap_mem = (double)cfg->pol.node_cap.memory_bytes * cfg->pol.nnodes;
      r.util_t = r.next_snap_sec;
      r.tick_sec = pol->params.tick_sec;
      r.next_tick = r.next_snap_sec + r.tick_sec;
    }
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
  if (resources)
    {
      util_advance (&r, res->end_sec);
      res->utilization = span > 0 ? r.util_area / span : 0;
    }
  res->pol = pol->stats;
  res->dep_violations = dag_run.violations;
  res->dag = dag_run.dags != NULL;
  ebb_pol_free (pol);
  ebb_sim_dag_run_free (&dag_run);
  free (r.heap.ev);
  free (r.fifo[0].ev);
  free (r.fifo[1].ev);
  free (r.rheap.ev);
  free (r.tasks);
  res->wall_seconds = (ebb_now_usec () - t0) / 1e6;
  return 0;
}

void
ebb_sim_result_clear (ebb_sim_result *res)
{
  free (res->finish_sec);
  free (res->runtime_sec);
  free (res->util_samples);
  free (res->failed);
  memset (res, 0, sizeof *res);
}
