/* The state ebb-sim's engine shares between its slot-mode loop (sim/engine.c) and its
 * resource-mode events (sim/engine-res.c): the event types, their heaps and queues, and
 * the run. Internal to the engine. */
#ifndef EBB_SIM_ENGINE_RUN_H
#define EBB_SIM_ENGINE_RUN_H

#include "sim/dag.h"
#include "sim/engine.h"
#include "lib/heap.h"

#include <stdint.h>
#include <stdlib.h>

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

EBB_HEAP_DEFINE (res_heap, res_event, t, 2, 256)

/* A task's progress in resource mode. */
typedef struct res_task
{
  double remaining;  /* seconds of work left at full rate */
  double last_t;     /* remaining is as of this time */
  double rate;       /* min(1, cpu given / cpu demanded); 0 while suspended */
  double fin_t;      /* time of its pending finish event (stale events differ) */
  int64_t cpu, mem;  /* given */
  double preempt_at; /* the policy's first SUSPEND of the preemption under way (preempted) */
  uint32_t incarn;
  uint8_t running, suspended;
  uint8_t preempted; /* a SUSPEND was decided and no RESUME yet */
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
EBB_HEAP_DEFINE (sim_heap, sim_event, t, 4, 4096)

/* Events of one constant delay (probes: one network delay; wakes: one round trip) are
 * created in time order, so a ring buffer holds them sorted without a heap: only task
 * finishes, whose times vary, pay log n. An event that would break the order (a policy
 * using unusual delays) falls back to the heap, so the result never depends on this. */
typedef struct sim_fifo
{
  sim_event *ev;
  size_t head, n, cap; /* cap is a power of two */
} sim_fifo;

static inline void
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
  /* Resource mode: each job's tasks, from its arrival until all of them finished (then
   * NULL again: peak memory follows the jobs alive, not every task of the trace). */
  res_task **jtasks;
  double cap_cpu, cap_mem;
  int64_t use_cpu, use_mem; /* given to running tasks, cluster-wide */
  double util_t;            /* utilization integrated up to here */
  double util_area;
  double tick_sec, next_tick;
  ebb_sim_dag_run *dag; /* DAG policies: per-task demands, parents, finished flags */
  uint64_t seq;         /* events created so far, of every kind: ties break in this order */
} sim_run;

static inline void
schedule (sim_run *r, double t, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg)
{
  sim_event x = { .t = t, .seq = r->seq++, .kind = kind, .node = node, .job = job, .arg = arg };
  if (kind != EV_FINISH)
    {
      sim_fifo *q = &r->fifo[kind == EV_PROBE ? 0 : 1];
      if (q->n == 0 || fifo_tail (q)->t <= t)
        {
          fifo_push (q, &x);
          return;
        }
    }
  sim_heap_push (&r->heap, &x);
}

static inline double
task_dur (const sim_run *r, uint32_t job, uint32_t task)
{
  return r->trace->dur_sec[r->trace->first_task[job] + task];
}

static inline res_task *
rtask (sim_run *r, uint32_t job, uint32_t task)
{
  return r->jtasks[job] ? &r->jtasks[job][task] : NULL;
}

/* Resource mode (sim/engine-res.c). */
void ebb_sim_res_util_advance (sim_run *r, double now);
void ebb_sim_res_dispatch (sim_run *r, const res_event *e);
void ebb_sim_res_finish (sim_run *r, const sim_event *e);
void ebb_sim_res_drain (sim_run *r, double now);

#endif
