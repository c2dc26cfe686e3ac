/* Discrete-event engine of ebb-sim: the event loop, slot mode, and the run's set-up and
 * results. Resource mode's events are in sim/engine-res.c. */
#include "config.h"

#include "sim/drain.h"
#include "sim/engine-run.h"
#include "sim/speculate.h"
#include "lib/time.h"
#include "lib/util.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Returns the earliest pending event (by time, then creation order), or NULL. */
static const sim_event *
peek_next (const sim_run *r, int *src)
{
  const sim_event *best = r->heap.n ? &r->heap.ev[0] : NULL;
  *src = -1;
  for (int i = 0; i < 2; i++)
    {
      const sim_fifo *q = &r->fifo[i];
      if (q->n && (!best || sim_heap_less (&q->ev[q->head], best)))
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
    return sim_heap_pop (&r->heap);
  sim_fifo *q = &r->fifo[src];
  sim_event e = q->ev[q->head];
  q->head = (q->head + 1) & (q->cap - 1);
  q->n--;
  return e;
}

/* Turns one of the policy's actions into a future event (slot mode). */
static inline __attribute__ ((always_inline)) void
slot_act (void *run, double now, const ebb_pol_action *a)
{
  sim_run *r = run;
  switch (a->kind)
    {
    case EBB_POL_ACT_PROBE:
      schedule (r, now + a->delay_sec, EV_PROBE, a->node, a->job, a->arg);
      break;
    case EBB_POL_ACT_LAUNCH:
      {
        const ebb_sim_trace *t = r->trace;
        double dur = t->dur_sec[t->first_task[a->job] + a->arg];
        double fin = now + a->delay_sec + r->cfg->launch_delay_sec + dur + r->cfg->finish_delay_sec;
        r->res->busy_sec += dur;
        r->res->tasks++;
        r->running++;
        if (fin > r->res->finish_sec[a->job])
          r->res->finish_sec[a->job] = fin;
        schedule (r, fin, EV_FINISH, a->node, a->job, a->arg);
        break;
      }
    case EBB_POL_ACT_WAKE:
      schedule (r, now + a->delay_sec, EV_WAKE, a->node, a->job, 0);
      break;
    default: /* STEAL, CANCEL: counted by the policy */
      break;
    }
}

/* Turns the policy's actions into future events. Always inlined into the event loop: the
 * slot policies' hot path (measured with callgrind: out of line it costs 7% more
 * instructions on sparrow). */
static inline __attribute__ ((always_inline)) void
drain_actions (sim_run *r, double now)
{
  if (r->jtasks)
    {
      ebb_sim_res_drain (r, now);
      return;
    }
  ebb_sim_drain (r->pol, r, now, slot_act);
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
      if (r->jtasks)
        {
          ebb_sim_res_finish (r, e);
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
  ebb_sim_config_costs_bigc (cfg);
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
      if (r->jtasks)
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
      if (r->jtasks)
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
              res_event x = res_heap_pop (&r->rheap);
              now = x.t;
              snapshot_until (r, now);
              ebb_sim_res_util_advance (r, now);
              ebb_sim_res_dispatch (r, &x);
              r->res->events++;
              drain_actions (r, now);
              continue;
            }
          if (tk < ta && tk < te && tk < tr)
            {
              now = r->next_tick;
              r->next_tick += r->tick_sec;
              snapshot_until (r, now);
              ebb_sim_res_util_advance (r, now);
              ebb_pol_tick (r->pol, now);
              drain_actions (r, now);
              continue;
            }
        }
      if (next < t->njobs && (!e || t->submit_sec[order[next]] <= e->t))
        {
          now = t->submit_sec[order[next]];
          snapshot_until (r, now);
          if (r->jtasks)
            {
              ebb_sim_res_util_advance (r, now);
              r->jtasks[order[next]] = ebb_xcalloc (
                  t->ntasks[order[next]] ? t->ntasks[order[next]] : 1, sizeof **r->jtasks);
            }
          ebb_pol_job_arrived (r->pol, now, order[next++]);
        }
      else if (e)
        {
          sim_event x = take_next (r, src);
          if (r->jtasks && x.kind == EV_FINISH)
            {
              /* The next finish's task and node are cache misses away (22 M tasks and
               * 15,000 nodes at full scale): fetched now, they arrive while this event
               * is handled. Hints only. */
              const sim_event *y = r->heap.n ? &r->heap.ev[0] : NULL;
              if (y && y->kind == EV_FINISH && r->jtasks[y->job])
                {
                  __builtin_prefetch (&r->jtasks[y->job][y->arg]);
                  ebb_pol_prefetch_node (r->pol, y->node);
                }
              const res_task *k = rtask (r, x.job, x.arg);
              if (!k || !k->running || x.t != k->fin_t)
                continue; /* superseded: the task's rate changed since */
            }
          now = x.t;
          snapshot_until (r, now);
          if (r->jtasks)
            ebb_sim_res_util_advance (r, now);
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
  if (!(cfg->launch_delay_sec >= 0) || !isfinite (cfg->launch_delay_sec)
      || !(cfg->finish_delay_sec >= 0) || !isfinite (cfg->finish_delay_sec))
    return ebb_error_set (err, EBB_ERANGE, "launch and finish delays must be >= 0");
  if (spec_ops && spec_ops->speculative)
    {
      /* Its copies start and end on its own clock (sim/speculate.c): not modelled there. */
      if (cfg->launch_delay_sec > 0 || cfg->finish_delay_sec > 0)
        return ebb_error_set (
            err, EINVAL, "--launch-delay and --finish-delay are not modelled for %s", cfg->policy);
      return ebb_sim_run_spec (cfg, trace, res, err);
    }
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
  /* Tiers: given to a policy that has them; a trace with priorities is refused by one that
   * would ignore them (as the controller refuses such a job). */
  for (uint32_t j = 0; trace->priority && j < n; j++)
    {
      if (trace->priority[j] != 0 && !ebb_pol_ops_of (pol)->tiers)
        {
          ebb_pol_free (pol);
          ebb_sim_dag_run_free (&dag_run);
          return ebb_error_set (err, EINVAL,
                                "job %u: priority %d, but policy '%s' has no priority tiers "
                                "(ebb has)",
                                j + 1, trace->priority[j], cfg->policy);
        }
      ebb_pol_job_set_priority (pol, j, trace->priority[j]);
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
      r.jtasks = ebb_xcalloc (n ? n : 1, sizeof *r.jtasks);
      r.cap_cpu = (double)cfg->pol.node_cap.cpu_millis * cfg->pol.nnodes;
      r.cap_mem = (double)cfg->pol.node_cap.memory_bytes * cfg->pol.nnodes;
      r.util_t = r.next_snap_sec;
      r.tick_sec = ebb_pol_params_of (pol)->tick_sec;
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
      ebb_sim_res_util_advance (&r, res->end_sec);
      res->utilization = span > 0 ? r.util_area / span : 0;
    }
  res->pol = *ebb_pol_stats_of (pol);
  res->dep_violations = dag_run.violations;
  res->dag = dag_run.dags != NULL;
  ebb_pol_free (pol);
  ebb_sim_dag_run_free (&dag_run);
  free (r.heap.ev);
  free (r.fifo[0].ev);
  free (r.fifo[1].ev);
  free (r.rheap.ev);
  for (uint32_t j = 0; r.jtasks && j < n; j++)
    free (r.jtasks[j]);
  free (r.jtasks);
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
  free (res->preempt_sec);
  memset (res, 0, sizeof *res);
}
