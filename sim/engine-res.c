/* ebb-sim's resource mode (policies with needs_resources): tasks get CPU and memory, run
 * at the rate their CPU allows, and are suspended, resumed and killed at the preemption
 * costs of the configuration. */
#include "config.h"

#include "sim/engine-run.h"

#include "policies/policy.h"

#include <math.h>

/* Integrates the dominant-share utilization up to now (before the event at now applies). */
void
ebb_sim_res_util_advance (sim_run *r, double now)
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
                  .seq = r->seq++,
                  .kind = kind,
                  .node = a->node,
                  .job = a->job,
                  .task = a->arg,
                  .incarn = rtask (r, a->job, a->arg)->incarn,
                  .mode = a->mode,
                  .cpu = cpu,
                  .mem = mem };
  res_heap_push (&r->rheap, &x);
}

/* Brings the task's progress to now and sets its rate from what it is given. Its finish
 * event comes finish_delay_sec after its work ends: a task whose work is done meanwhile has
 * exited, and nothing done to it delays the report on its way. */
static void
task_rerate (sim_run *r, res_task *t, uint32_t node, uint32_t job, uint32_t task, double now)
{
  double fin_delay = r->cfg->finish_delay_sec;
  if (fin_delay > 0 && isfinite (t->fin_t) && now >= t->fin_t - fin_delay)
    return;
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
      t->fin_t = t->last_t + t->remaining / rate + fin_delay;
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

/* A preemption's length, decision to decision: from the first SUSPEND of a task to its
 * RESUME (later steps of the same preemption do not restart it). */
static void
preempt_mark (sim_run *r, const ebb_pol_action *a, double now)
{
  res_task *t = rtask (r, a->job, a->arg);
  if (a->kind == EBB_POL_ACT_SUSPEND && !t->preempted)
    {
      t->preempted = 1;
      t->preempt_at = now;
    }
  else if (a->kind == EBB_POL_ACT_RESUME && t->preempted)
    {
      t->preempted = 0;
      ebb_sim_result *res = r->res;
      if (res->npreempt == res->preempt_cap)
        {
          res->preempt_cap = res->preempt_cap ? 2 * res->preempt_cap : 64;
          res->preempt_sec
              = ebb_xrealloc (res->preempt_sec, res->preempt_cap * sizeof *res->preempt_sec);
        }
      res->preempt_sec[res->npreempt++] = now - t->preempt_at;
    }
}

static void
drain_res_action (sim_run *r, double now, const ebb_pol_action *a)
{
  double at = now + a->delay_sec;
  switch (a->kind)
    {
    case EBB_POL_ACT_LAUNCH:
      rv_push (r, at + r->cfg->launch_delay_sec, RV_START, a, a->amount.cpu_millis,
               a->amount.memory_bytes);
      break;
    case EBB_POL_ACT_SUSPEND:
      preempt_mark (r, a, now);
      rv_push (r, at + r->cfg->suspend_latency_sec, RV_SUSPEND, a, a->amount.cpu_millis,
               a->amount.memory_bytes);
      break;
    case EBB_POL_ACT_RESUME:
      preempt_mark (r, a, now);
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

void
ebb_sim_res_dispatch (sim_run *r, const res_event *e)
{
  res_task *t = rtask (r, e->job, e->task);
  if (!t || (e->kind != RV_START && (e->incarn != t->incarn || !t->running)))
    return; /* the task finished or was killed meanwhile */
  switch (e->kind)
    {
    case RV_START:
      t->remaining = task_dur (r, e->job, e->task);
      t->last_t = e->t;
      t->fin_t = INFINITY; /* no finish on its way yet */
      t->cpu = e->cpu;
      t->mem = e->mem;
      t->running = 1;
      t->suspended = 0;
      t->preempted = 0;
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
            x.seq = r->seq++;
            res_heap_push (&r->rheap, &x);
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
      t->preempted = 0;
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
void
ebb_sim_res_finish (sim_run *r, const sim_event *e)
{
  res_task *t = rtask (r, e->job, e->arg);
  if (!t || !t->running || e->t != t->fin_t)
    return;
  t->running = 0;
  t->preempted = 0;
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
  /* A job done is forgotten, as the controller does: a policy that allows it (ebb) frees
   * its per-task state, so peak memory follows the jobs alive, not every task of the trace
   * (56 bytes a task: 1.2 GB for the 22 M tasks of bench/ebb-perf.sh). */
  const ebb_pol_job *j = ebb_pol_job_of (r->pol, e->job);
  if (j && j->finished >= j->ntasks)
    {
      ebb_pol_job_forget (r->pol, e->job);
      free (r->jtasks[e->job]);
      r->jtasks[e->job] = NULL;
    }
}

/* Resource mode's drain, out of line (in this file) so the slot path stays small and
 * inlined. */
void
ebb_sim_res_drain (sim_run *r, double now)
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
