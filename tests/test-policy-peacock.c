/* peacock on hand-built cases: rotation along the ring at round boundaries, reordering by
 * estimated runtime bounded by thresholds, the elastic queue, and determinism per seed. */
#include "config.h"

#include "policies/policy-impl.h" /* a unit test of the library: its insides */
#include "sim/engine.h"
#include "sim/trace.h"
#include "tests/cu.h"
#include "tests/policy-fixture.h"
#include "tests/sim-fixture.h"

#include <math.h>

static ebb_pol *
make_scaled (uint32_t nnodes, ebb_pol_job *jobs, double interval, double scale)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  p.nnodes = nnodes;
  p.net_delay_sec = 0; /* times below are exact */
  p.rotation_interval_sec = interval;
  p.sample_replacement = 0;
  p.threshold_scale = scale;
  ebb_error *err = NULL;
  ebb_pol *pol = ebb_pol_new ("peacock", &p, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (pol);
  return pol;
}

static ebb_pol *
make (uint32_t nnodes, ebb_pol_job *jobs, double interval)
{
  return make_scaled (nnodes, jobs, interval, 1.0);
}

/* Delivers every probe action (one probe per task, each to its node) at now. */
static void
deliver_all (ebb_pol *p, double now)
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  ebb_pol_action copy[64];
  CU_ASSERT_FATAL (n <= 64);
  for (size_t i = 0; i < n; i++)
    copy[i] = a[i];
  ebb_pol_clear_actions (p);
  for (size_t i = 0; i < n; i++)
    if (copy[i].kind == EBB_POL_ACT_PROBE)
      ebb_pol_probe_arrived (p, now, copy[i].node, copy[i].arg);
}

/* Three busy workers; a one-task job's probe finds its worker busy and, with no room in
 * any queue (3 + 1 probes on 3 workers: queue size 1/3), rotates at every round boundary to
 * the successor: x+1, then x+2, where a freed worker finally runs it. */
static void
test_ring_rotation_order (void)
{
  ebb_pol_job jobs[2] = { { .ntasks = 3, .est_task_sec = 100 },
                          { .ntasks = 1, .est_task_sec = 10, .submit_sec = 0.3 } };
  ebb_pol *p = make (3, jobs, 1.0);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_PROBE), 3);
  deliver_all (p, 0); /* distinct targets: every worker runs one task */
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 0.3, 1);
  ebb_pol_action pr = polfix_only (p, EBB_POL_ACT_PROBE);
  uint32_t x = pr.node, probe = pr.arg;
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 0.3, x, probe);
  ebb_pol_action r1 = polfix_only (p, EBB_POL_ACT_PROBE);
  CU_ASSERT_EQUAL (r1.node, (x + 1) % 3);
  CU_ASSERT_DOUBLE_EQUAL (r1.delay_sec, 0.7, 1e-9); /* leaves at the round boundary t = 1 */
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 1.0, r1.node, r1.arg);
  ebb_pol_action r2 = polfix_only (p, EBB_POL_ACT_PROBE);
  CU_ASSERT_EQUAL (r2.node, (x + 2) % 3);
  CU_ASSERT_DOUBLE_EQUAL (r2.delay_sec, 1.0, 1e-9);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 1.5, (x + 2) % 3, 0, 0); /* that worker frees up meanwhile */
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 2.0, r2.node, r2.arg);
  ebb_pol_action l = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (l.node, (x + 2) % 3);
  CU_ASSERT_EQUAL (l.job, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_PROBE), 0);
  CU_ASSERT_EQUAL (p->stats.rotations, 2);
  ebb_pol_free (p);
}

/* Every probe marked in one round travels in the round's one message, each hop counted as a
 * rotation: four busy workers, a 3-task job's probes find no room (7 tasks on 4 workers:
 * queue size 3/4) and leave together at t = 1; one worker frees up meanwhile, and of the
 * round's hops the one reaching it launches there while the others go on, again in one
 * message. */
static void
test_round_moves_together (void)
{
  ebb_pol_job jobs[2] = { { .ntasks = 4, .est_task_sec = 100 },
                          { .ntasks = 3, .est_task_sec = 10, .submit_sec = 0.3 } };
  ebb_pol *p = make (4, jobs, 1.0);
  ebb_pol_job_arrived (p, 0, 0);
  deliver_all (p, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 0.3, 1);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 3);
  uint32_t first = a[0].node;
  deliver_all (p, 0.3);
  ebb_pol_action c1 = polfix_only (p, EBB_POL_ACT_PROBE); /* one message for the round */
  CU_ASSERT_DOUBLE_EQUAL (c1.delay_sec, 0.7, 1e-9);
  CU_ASSERT_EQUAL (c1.node, (first + 1) % 4);
  CU_ASSERT_EQUAL (p->stats.rotations, 3);
  ebb_pol_clear_actions (p);
  uint32_t w = (first + 1) % 4;
  ebb_pol_task_finished (p, 0.9, w, 0, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 1.0, c1.node, c1.arg);
  ebb_pol_action l = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (l.node, w);
  CU_ASSERT_EQUAL (l.job, 1);
  ebb_pol_action c2 = polfix_only (p, EBB_POL_ACT_PROBE);
  CU_ASSERT_DOUBLE_EQUAL (c2.delay_sec, 1.0, 1e-9);
  CU_ASSERT_EQUAL (p->stats.rotations, 5); /* two more hops; the third ended in a launch */
  ebb_pol_free (p);
}

/* A round's message reaching a worker that freed up: the worker places the message's
 * probes by Algorithm 1 and runs the head, the shortest (its threshold allows), not the
 * one marked first. Three workers run 100 s tasks; a 50 s probe (job 1) then a 5 s probe
 * (job 2) find worker 0 busy with no room (5 tasks on 3 workers: queue size 2/3) and are
 * marked in that order; worker 1 frees up; of the round's message it runs job 2, and job
 * 1's probe goes on to worker 2. */
static void
test_idle_worker_runs_message_head (void)
{
  ebb_pol_job jobs[3] = { { .ntasks = 3, .est_task_sec = 100 },
                          { .ntasks = 1, .est_task_sec = 50, .submit_sec = 0.2 },
                          { .ntasks = 1, .est_task_sec = 5, .submit_sec = 0.3 } };
  ebb_pol *p = make (3, jobs, 1.0);
  ebb_pol_job_arrived (p, 0, 0);
  deliver_all (p, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_action c = { 0 };
  for (uint32_t j = 1; j <= 2; j++)
    {
      ebb_pol_job_arrived (p, jobs[j].submit_sec, j);
      ebb_pol_action pr = polfix_only (p, EBB_POL_ACT_PROBE);
      ebb_pol_clear_actions (p);
      /* Both to worker 0, wherever the scheduler sampled: the case is one worker's message. */
      ebb_pol_probe_arrived (p, jobs[j].submit_sec, 0, pr.arg);
      if (j == 1)
        c = polfix_only (p, EBB_POL_ACT_PROBE); /* the round's one message */
      else
        CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_PROBE), 0); /* rides in it */
      ebb_pol_clear_actions (p);
    }
  CU_ASSERT_EQUAL (c.node, 1);
  CU_ASSERT_EQUAL (p->stats.rotations, 2);
  ebb_pol_task_finished (p, 0.9, 1, 0, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 1.0, c.node, c.arg);
  ebb_pol_action l = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (l.node, 1);
  CU_ASSERT_EQUAL (l.job, 2);
  ebb_pol_action on = polfix_only (p, EBB_POL_ACT_PROBE);
  CU_ASSERT_EQUAL (on.node, 2);
  CU_ASSERT_EQUAL (p->probes[on.arg].job, 1);
  CU_ASSERT_EQUAL (p->stats.rotations, 3);
  ebb_pol_free (p);
}

/* Follows node 0's queue (job ids, head first). */
static size_t
queue_jobs (const ebb_pol *p, uint32_t node, uint32_t *out, size_t cap)
{
  size_t n = 0;
  for (uint32_t c = p->nodes[node].head; c != EBB_POL_NONE && n < cap; c = p->probes[c].next)
    out[n++] = p->probes[c].job;
  return n;
}

/* One worker running a 1000 s task; thresholds = arrival + 1.015 x load, so job A (100 s,
 * arrives at 1) must start by 1016. B (10 s, later) bypasses A: A then starts at 1010. C
 * (10 s, later still) may not: A would start at 1020, past its threshold; C queues behind
 * A although it is shorter. D (1 s) may pass everyone: A still starts at 1011 <= 1016.
 * The worker then serves D, B, A, C: A is never delayed past its threshold. */
static void
test_threshold_bounds_reordering (void)
{
  ebb_pol_job jobs[5] = {
    { .ntasks = 1, .est_task_sec = 1000, .submit_sec = 0 },
    { .ntasks = 1, .est_task_sec = 100, .submit_sec = 1 },
    { .ntasks = 1, .est_task_sec = 10, .submit_sec = 2 },
    { .ntasks = 1, .est_task_sec = 10, .submit_sec = 3 },
    { .ntasks = 1, .est_task_sec = 1, .submit_sec = 4 },
  };
  ebb_pol *p = make_scaled (1, jobs, 1.0, 1.015);
  for (uint32_t j = 0; j < 5; j++)
    {
      ebb_pol_job_arrived (p, jobs[j].submit_sec, j);
      deliver_all (p, jobs[j].submit_sec);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_PROBE), 0); /* nothing rotates: room enough */
      ebb_pol_clear_actions (p);
    }
  uint32_t q[8];
  size_t n = queue_jobs (p, 0, q, 8);
  CU_ASSERT_EQUAL_FATAL (n, 4);
  uint32_t expect[4] = { 4, 2, 1, 3 };
  for (size_t i = 0; i < 4; i++)
    CU_ASSERT_EQUAL (q[i], expect[i]);
  double t = 1000;
  ebb_pol_task_finished (p, t, 0, 0, 0);
  for (int i = 0; i < 4; i++)
    {
      ebb_pol_action l = polfix_only (p, EBB_POL_ACT_LAUNCH);
      CU_ASSERT_EQUAL (l.job, expect[i]);
      if (l.job == 1)
        CU_ASSERT (t <= 1 + 1.015 * 1000 + 1e-9); /* A starts before its threshold */
      ebb_pol_clear_actions (p);
      t += jobs[expect[i]].est_task_sec;
      ebb_pol_task_finished (p, t, 0, expect[i], 0);
    }
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_free (p);
}

/* A probe past its threshold is never bypassed: with scale 0 every threshold is the job's
 * arrival, so every queued probe is already past it and the queue stays FIFO, even for a
 * far shorter newcomer; and a probe past its own threshold stays instead of rotating. */
static void
test_past_threshold_never_bypassed (void)
{
  ebb_pol_job jobs[4] = {
    { .ntasks = 1, .est_task_sec = 1000, .submit_sec = 0 },
    { .ntasks = 1, .est_task_sec = 500, .submit_sec = 1 },
    { .ntasks = 1, .est_task_sec = 400, .submit_sec = 2 },
    { .ntasks = 1, .est_task_sec = 1, .submit_sec = 3 },
  };
  ebb_pol *p = make_scaled (1, jobs, 1.0, 0);
  for (uint32_t j = 0; j < 4; j++)
    {
      ebb_pol_job_arrived (p, jobs[j].submit_sec, j);
      deliver_all (p, jobs[j].submit_sec + 0.5); /* a slow network: thresholds have passed */
      ebb_pol_clear_actions (p);
    }
  uint32_t q[8];
  size_t n = queue_jobs (p, 0, q, 8);
  CU_ASSERT_EQUAL_FATAL (n, 3);
  CU_ASSERT_EQUAL (q[0], 1);
  CU_ASSERT_EQUAL (q[1], 2);
  CU_ASSERT_EQUAL (q[2], 3);
  ebb_pol_free (p);
}

/* The elastic queue follows the shared state: with one worker and 1 running + 2 waiting
 * probes the queue may hold 2; when the scheduler's view drops (tasks finish) a worker
 * learns it with the next task it is handed and rotates its tail. */
static void
test_elastic_queue_shrinks (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1, .est_task_sec = 50, .submit_sec = 0 },
    { .ntasks = 1, .est_task_sec = 50, .submit_sec = 1 },
    { .ntasks = 2, .est_task_sec = 50, .submit_sec = 2 },
  };
  ebb_pol *p = make (2, jobs, 1.0);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_action a = polfix_only (p, EBB_POL_ACT_PROBE);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 0, 0, a.arg); /* worker 0 runs job 0 */
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 1, 1);
  a = polfix_only (p, EBB_POL_ACT_PROBE);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 1, 1, a.arg); /* worker 1 runs job 1 */
  ebb_pol_clear_actions (p);
  /* 4 active tasks on 2 workers: queue size 1, load 100 s each. Both probes of job 2 to
   * worker 0: the first stays, the second is one too many and rotates to worker 1. */
  ebb_pol_job_arrived (p, 2, 2);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_PROBE), 2);
  size_t n;
  const ebb_pol_action *acts = ebb_pol_actions (p, &n);
  uint32_t p0 = acts[0].arg, p1 = acts[1].arg;
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 2, 0, p0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_PROBE), 0);
  CU_ASSERT_EQUAL (p->nodes[0].qlen, 1);
  ebb_pol_probe_arrived (p, 2, 0, p1);
  ebb_pol_action r = polfix_only (p, EBB_POL_ACT_PROBE);
  CU_ASSERT_EQUAL (r.node, 1);
  CU_ASSERT_EQUAL (p->nodes[0].qlen, 1);
  ebb_pol_free (p);
}

/* The ablation keeps both probes on worker 0: nothing rotates. */
static void
test_no_rotation_ablation (void)
{
  ebb_pol_job jobs[2] = { { .ntasks = 1, .est_task_sec = 50 },
                          { .ntasks = 3, .est_task_sec = 50, .submit_sec = 1 } };
  ebb_pol_params prm;
  ebb_pol_params_default (&prm);
  prm.nnodes = 2;
  prm.net_delay_sec = 0;
  prm.no_rotation = 1;
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new ("peacock", &prm, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_action a = polfix_only (p, EBB_POL_ACT_PROBE);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 0, 0, a.arg);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 1, 1);
  size_t n;
  const ebb_pol_action *acts = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 3);
  uint32_t ids[3] = { acts[0].arg, acts[1].arg, acts[2].arg };
  ebb_pol_clear_actions (p);
  for (int i = 0; i < 3; i++)
    ebb_pol_probe_arrived (p, 1, 0, ids[i]); /* all on the busy worker 0 */
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_PROBE), 0);
  CU_ASSERT_EQUAL (p->nodes[0].qlen, 3);
  CU_ASSERT_EQUAL (p->stats.rotations, 0);
  ebb_pol_free (p);
}

/* The same trace and seed give the same job runtimes; another seed another placement. */
static void
test_deterministic_per_seed (void)
{
  ebb_sim_trace *t = simfix_hetero_trace (7, 100, 8.0);
  ebb_sim_result r[3] = { 0 };
  simfix_seed_runs ("peacock", t, 100, 0, r);
  CU_ASSERT_EQUAL (r[0].tasks, r[2].tasks);
  for (int i = 0; i < 3; i++)
    ebb_sim_result_clear (&r[i]);
  ebb_sim_trace_free (t);
}

static void
test_bad_parameters (void)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  ebb_error *err = NULL;
  p.rotation_interval_sec = 0;
  CU_ASSERT_PTR_NULL (ebb_pol_new ("peacock", &p, NULL, &err));
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_ERANGE);
  ebb_error_free (&err);
  p.rotation_interval_sec = 1;
  p.threshold_scale = NAN;
  CU_ASSERT_PTR_NULL (ebb_pol_new ("peacock", &p, NULL, &err));
  ebb_error_free (&err);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_ring_rotation_order),           EBB_CU_TEST (test_round_moves_together),
  EBB_CU_TEST (test_idle_worker_runs_message_head), EBB_CU_TEST (test_threshold_bounds_reordering),
  EBB_CU_TEST (test_past_threshold_never_bypassed), EBB_CU_TEST (test_elastic_queue_shrinks),
  EBB_CU_TEST (test_deterministic_per_seed),        EBB_CU_TEST (test_bad_parameters),
  EBB_CU_TEST (test_no_rotation_ablation),
};

EBB_CU_MAIN ("policy-peacock", NULL, NULL, tests)
