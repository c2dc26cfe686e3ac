/* ebb-sim's speculation engine. Slot mode (one task per node), its own event type and heap
 * (lib/heap.h), so the main engine's hot path stays as it is.
 *
 * The model. The first copy of a task runs for the trace's duration; every later copy
 * draws a fresh duration from the job's Pareto distribution (shape params.spec_beta, the
 * job's mean; the same for a given seed, task and copy number whatever the policy):
 * stragglers are "natural", a new copy is as likely to be fast as any task (Hopper §2.2,
 * GRASS). A copy's progress grows linearly from its start to its end; the
 * policy reads it through params.progress. The first copy to finish completes the task and
 * is reported (task_finished); a later copy's finish is not reported: the winner's KILL is
 * on its way and the node stays taken until the KILL arrives (ebb_pol_copy_killed). */
#include "config.h"

#include "sim/speculate.h"
#include "sim/drain.h"
#include "lib/heap.h"
#include "lib/time.h"
#include "lib/util.h"
#include "policies/spec.h"

#include <math.h>
#include <string.h>

enum
{
  SE_PROBE,
  SE_FINISH, /* arg: the node's incarnation when the copy started */
  SE_KILL,   /* arg: task */
  SE_TICK,
};

typedef struct spec_ev
{
  double t;
  uint64_t seq;
  uint32_t kind, node, job, arg;
} spec_ev;

typedef struct spec_node
{
  double start, dur;
  uint32_t job, task, incarn;
  uint8_t busy;
} spec_node;

EBB_HEAP_DEFINE (spec_heap, spec_ev, t, 2, 4096)

typedef struct spec_run
{
  const ebb_sim_trace *trace;
  ebb_pol *pol;
  ebb_sim_result *res;
  spec_heap heap;
  uint64_t seq;
  spec_node *nodes;
  uint8_t *done;     /* per task (trace index): a copy finished */
  uint8_t *launched; /* per task: copies launched so far (saturates) */
  uint32_t *left;    /* per job: tasks not finished */
  uint32_t jobs_left;
  uint64_t seed; /* of the copies' durations */
  double beta;
} spec_run;

static void
push (spec_run *r, double t, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg)
{
  spec_ev x = { .t = t, .seq = r->seq++, .kind = kind, .node = node, .job = job, .arg = arg };
  spec_heap_push (&r->heap, &x);
}

double
ebb_sim_spec_copy_duration (ebb_rng *rng, double mean_sec, double beta)
{
  double xm = mean_sec * (beta - 1) / beta;
  double u = 1.0 - ebb_rng_double (rng); /* (0, 1] */
  return xm / pow (u, 1.0 / beta);
}

/* The duration of copy number `copy` (1 for the first speculative one) of task k: drawn
 * from a stream of its own, seeded by (seed, task, copy), so the n-th copy of a task lasts
 * as long whichever policy launches it and whenever: policies compared on one seed see the
 * same stragglers and the same copies (common random numbers). */
static double
copy_duration (const spec_run *r, uint64_t k, uint32_t copy, double mean_sec)
{
  ebb_rng g;
  ebb_rng_seed (&g, r->seed ^ ((k + 1) * UINT64_C (0x9e3779b97f4a7c15))
                        ^ (copy * UINT64_C (0xbf58476d1ce4e5b9)));
  return ebb_sim_spec_copy_duration (&g, mean_sec, r->beta);
}

static double
progress (void *ctx, uint32_t node, uint32_t job, uint32_t task, double now_sec)
{
  const spec_run *r = ctx;
  const spec_node *n = &r->nodes[node];
  if (!n->busy || n->job != job || n->task != task || now_sec <= n->start)
    return 0;
  double p = n->dur > 0 ? (now_sec - n->start) / n->dur : 1;
  return p < 1 ? p : 1;
}

static inline uint64_t
tidx (const spec_run *r, uint32_t job, uint32_t task)
{
  return r->trace->first_task[job] + task;
}

/* Turns one of the policy's actions into a future event; a LAUNCH starts a copy. */
static void
spec_act (void *run, double now, const ebb_pol_action *a)
{
  spec_run *r = run;
  switch (a->kind)
    {
    case EBB_POL_ACT_PROBE:
      push (r, now + a->delay_sec, SE_PROBE, a->node, a->job, a->arg);
      break;
    case EBB_POL_ACT_LAUNCH:
      {
        spec_node *nd = &r->nodes[a->node];
        if (nd->busy)
          abort (); /* the policy launched on a taken slot */
        uint64_t k = tidx (r, a->job, a->arg);
        nd->busy = 1;
        nd->job = a->job;
        nd->task = a->arg;
        nd->start = now + a->delay_sec;
        nd->dur = r->launched[k] == 0
                      ? r->trace->dur_sec[k]
                      : copy_duration (r, k, r->launched[k], r->trace->mean_sec[a->job]);
        if (r->launched[k] > 0)
          r->res->speculative_copies++;
        if (r->launched[k] < UINT8_MAX)
          r->launched[k]++;
        r->res->tasks++;
        push (r, nd->start + nd->dur, SE_FINISH, a->node, a->job, nd->incarn);
        break;
      }
    case EBB_POL_ACT_KILL:
      push (r, now + a->delay_sec, SE_KILL, a->node, a->job, a->arg);
      break;
    default: /* informational */
      break;
    }
}

/* Frees the node; returns the time its copy ran up to now. */
static double
node_release (spec_run *r, uint32_t node, double now)
{
  spec_node *nd = &r->nodes[node];
  double end = fmin (now, nd->start + nd->dur);
  nd->busy = 0;
  nd->incarn++;
  return end > nd->start ? end - nd->start : 0;
}

static void
dispatch (spec_run *r, const spec_ev *e)
{
  switch (e->kind)
    {
    case SE_PROBE:
      ebb_pol_probe_arrived (r->pol, e->t, e->node, e->arg);
      break;
    case SE_FINISH:
      {
        spec_node *nd = &r->nodes[e->node];
        if (!nd->busy || nd->incarn != e->arg)
          return; /* killed before it finished */
        uint64_t k = tidx (r, nd->job, nd->task);
        if (r->done[k])
          return; /* lost the race: the winner's KILL frees the node */
        r->done[k] = 1;
        uint32_t job = nd->job, task = nd->task;
        r->res->busy_sec += node_release (r, e->node, e->t);
        if (e->t > r->res->finish_sec[job])
          r->res->finish_sec[job] = e->t;
        if (--r->left[job] == 0)
          r->jobs_left--;
        ebb_pol_task_finished (r->pol, e->t, e->node, job, task);
        break;
      }
    case SE_KILL:
      {
        spec_node *nd = &r->nodes[e->node];
        if (!nd->busy || nd->job != e->job || nd->task != e->arg)
          abort (); /* a KILL for a copy the node does not run */
        r->res->busy_sec += node_release (r, e->node, e->t);
        ebb_pol_copy_killed (r->pol, e->t, e->node, e->job, e->arg);
        break;
      }
    default:
      ebb_pol_tick (r->pol, e->t);
      if (r->jobs_left > 0)
        push (r, e->t + ebb_pol_params_of (r->pol)->tick_sec, SE_TICK, 0, 0, 0);
      break;
    }
}

int
ebb_sim_run_spec (const ebb_sim_config *cfg, const ebb_sim_trace *trace, ebb_sim_result *res,
                  ebb_error **err)
{
  memset (res, 0, sizeof *res);
  if (trace->njobs == 0)
    return ebb_error_set (err, EINVAL, "empty trace");
  uint64_t t0 = ebb_now_usec ();
  uint32_t n = trace->njobs;
  spec_run r = { .trace = trace, .res = res, .beta = cfg->pol.spec_beta };
  cleanup_free ebb_pol_job *jobs = ebb_xcalloc (n, sizeof *jobs);
  for (uint32_t j = 0; j < n; j++)
    {
      jobs[j].submit_sec = trace->submit_sec[j];
      jobs[j].est_task_sec = trace->mean_sec[j];
      jobs[j].ntasks = trace->ntasks[j];
    }
  ebb_pol_params params = cfg->pol;
  params.progress = progress;
  params.progress_ctx = &r;
  r.pol = ebb_pol_new (cfg->policy, &params, jobs, err);
  if (!r.pol)
    {
      int code = ebb_error_code (err);
      return code > 0 ? -code : -EINVAL;
    }
  r.seed = cfg->pol.seed ^ UINT64_C (0x5eed5bec);
  r.nodes = ebb_xcalloc (cfg->pol.nnodes, sizeof *r.nodes);
  r.done = ebb_xcalloc (trace->ntasks_total ? trace->ntasks_total : 1, 1);
  r.launched = ebb_xcalloc (trace->ntasks_total ? trace->ntasks_total : 1, 1);
  r.left = ebb_xmalloc (n * sizeof *r.left);
  res->njobs = n;
  res->speculation = 1;
  res->finish_sec = ebb_xmalloc (n * sizeof (double));
  res->runtime_sec = ebb_xmalloc (n * sizeof (double));
  uint32_t *order = ebb_xmalloc (n * sizeof *order);
  for (uint32_t j = 0; j < n; j++)
    {
      res->finish_sec[j] = trace->submit_sec[j];
      r.left[j] = trace->ntasks[j];
      r.jobs_left += trace->ntasks[j] > 0;
      order[j] = j;
    }
  /* Arrival order: submission time, then trace order (insertion sort on a sorted trace
   * costs one pass). */
  for (uint32_t i = 1; i < n; i++)
    {
      uint32_t x = order[i], k = i;
      while (k > 0 && trace->submit_sec[order[k - 1]] > trace->submit_sec[x])
        {
          order[k] = order[k - 1];
          k--;
        }
      order[k] = x;
    }
  double start = trace->submit_sec[order[0]];
  push (&r, start + ebb_pol_params_of (r.pol)->tick_sec, SE_TICK, 0, 0, 0);
  uint32_t next = 0;
  for (;;)
    {
      double now;
      if (next < n && (r.heap.n == 0 || trace->submit_sec[order[next]] <= r.heap.ev[0].t))
        {
          now = trace->submit_sec[order[next]];
          ebb_pol_job_arrived (r.pol, now, order[next++]);
        }
      else if (r.heap.n > 0)
        {
          spec_ev e = spec_heap_pop (&r.heap);
          now = e.t;
          dispatch (&r, &e);
        }
      else
        break;
      res->events++;
      ebb_sim_drain (r.pol, &r, now, spec_act);
    }
  res->start_sec = start;
  res->end_sec = start;
  for (uint32_t j = 0; j < n; j++)
    {
      res->runtime_sec[j] = res->finish_sec[j] - trace->submit_sec[j];
      if (res->finish_sec[j] > res->end_sec)
        res->end_sec = res->finish_sec[j];
    }
  double span = res->end_sec - res->start_sec;
  res->utilization = span > 0 ? res->busy_sec / (span * cfg->pol.nnodes) : 0;
  res->pol = *ebb_pol_stats_of (r.pol);
  ebb_pol_free (r.pol);
  free (order);
  free (r.heap.ev);
  free (r.nodes);
  free (r.done);
  free (r.launched);
  free (r.left);
  res->wall_seconds = (ebb_now_usec () - t0) / 1e6;
  return 0;
}
