/* eagle on hand-built cases: succinct state sharing keeps short probes off nodes holding
 * long work, sticky batch probing keeps a node on its job, SRPT with its starvation bound,
 * and determinism per seed. */
#include "config.h"

#include "policies/policy-impl.h" /* a unit test of the library: its insides */
#include "sim/engine.h"
#include "sim/trace.h"
#include "tests/cu.h"
#include "tests/policy-fixture.h"
#include "tests/sim-fixture.h"

#include <math.h>

static ebb_pol *
make (uint32_t nnodes, ebb_pol_job *jobs, double short_pct, double ratio)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  p.nnodes = nnodes;
  p.net_delay_sec = 0;
  p.cutoff_sec = 50;
  p.short_part_pct = short_pct;
  p.probe_ratio = ratio;
  ebb_error *err = NULL;
  ebb_pol *pol = ebb_pol_new ("eagle", &p, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (pol);
  return pol;
}

/* 10 nodes, node 0 short-only. A long job of 9 tasks takes nodes 1-9 (running on 1-8);
 * a short job of 20 tasks then never probes them: its probes land on node 9 (its long task
 * is still on its way, so it does not refuse yet) and, once refused, on node 0 (the only
 * node outside the central view). */
static void
test_sss_avoids_long_nodes (void)
{
  ebb_pol_job jobs[2] = { { .ntasks = 9, .est_task_sec = 1000 },
                          { .ntasks = 20, .est_task_sec = 5, .submit_sec = 1 } };
  ebb_pol *p = make (10, jobs, 10, 2);
  ebb_pol_job_arrived (p, 0, 0);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 9);
  ebb_pol_action probes[9];
  for (size_t i = 0; i < n; i++)
    {
      probes[i] = a[i];
      CU_ASSERT (a[i].node >= 1); /* long work never on the short partition */
    }
  ebb_pol_clear_actions (p);
  for (size_t i = 0; i < 9; i++)
    if (probes[i].node != 9)
      ebb_pol_probe_arrived (p, 0, probes[i].node, probes[i].arg);
  /* node 9's long probe is still in flight: the central view holds it already */
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 1, 1);
  a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 40);
  for (size_t i = 0; i < n; i++)
    {
      CU_ASSERT_EQUAL (a[i].kind, EBB_POL_ACT_PROBE);
      CU_ASSERT (a[i].node == 0 || a[i].node == 9);
    }
  ebb_pol_free (p);
}

/* Sticky batch probing: job A (2 tasks; 20 probes, Eagle's minimum) has one probe on node 0
 * and one still in flight (the others are lost in this test);
 * when A's first task ends node 0 takes A's second at once, and the late probe finds
 * nothing left and costs nothing. */
static void
test_sticky_probing (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 2, .est_task_sec = 10 } };
  ebb_pol *p = make (2, jobs, 0, 1);
  ebb_pol_job_arrived (p, 0, 0);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 20);
  uint32_t p0 = a[0].arg, p1 = a[1].arg;
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 0, 0, p0);
  ebb_pol_action l = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (l.node, 0);
  CU_ASSERT_EQUAL (l.arg, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 10, 0, 0, 0);
  l = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (l.node, 0);
  CU_ASSERT_EQUAL (l.arg, 1);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 11, 1, p1); /* arrives late on node 1 */
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_WAKE), 0);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 20, 0, 0, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  CU_ASSERT_EQUAL (p->nodes[0].qlen, 0); /* the sticky probe left with the job's last task */
  ebb_pol_free (p);
}

/* SRPT with the starvation bound: job A (2 s tasks, 50 left: 100 s of work) is queued
 * before twelve 1-task jobs of 1 s. Each of those has less remaining work, so they go
 * first, each delaying A by 1 s, until A has been delayed 5 x 2 s = 10 s: then A runs. */
static void
test_srpt_starvation_bound (void)
{
  ebb_pol_job jobs[14];
  jobs[0] = (ebb_pol_job){ .ntasks = 1, .est_task_sec = 40 }; /* keeps the node busy */
  jobs[1] = (ebb_pol_job){ .ntasks = 50, .est_task_sec = 2, .submit_sec = 1 };
  for (int i = 2; i < 14; i++)
    jobs[i] = (ebb_pol_job){ .ntasks = 1, .est_task_sec = 1, .submit_sec = 2 };
  ebb_pol *p = make (1, jobs, 0, 1);
  for (uint32_t j = 0; j < 14; j++)
    {
      ebb_pol_job_arrived (p, jobs[j].submit_sec, j);
      size_t n;
      const ebb_pol_action *a = ebb_pol_actions (p, &n);
      ebb_pol_action copy[64];
      CU_ASSERT_FATAL (n <= 64);
      for (size_t i = 0; i < n; i++)
        copy[i] = a[i];
      ebb_pol_clear_actions (p);
      for (size_t i = 0; i < n; i++)
        ebb_pol_probe_arrived (p, jobs[j].submit_sec, 0, copy[i].arg);
      ebb_pol_clear_actions (p);
    }
  double t = 40;
  uint32_t job = 0;
  int shorts_before_a = 0;
  for (;;)
    {
      ebb_pol_task_finished (p, t, 0, job, 0);
      ebb_pol_action l = polfix_only (p, EBB_POL_ACT_LAUNCH);
      ebb_pol_clear_actions (p);
      job = l.job;
      if (job == 1)
        break;
      shorts_before_a++;
      t += 1;
      CU_ASSERT_FATAL (shorts_before_a <= 12);
    }
  CU_ASSERT_EQUAL (shorts_before_a, 10);
  ebb_pol_free (p);
}

static void
test_deterministic_per_seed (void)
{
  ebb_sim_trace *t = simfix_hetero_trace (3, 300, 2.0);
  ebb_sim_result r[3] = { 0 };
  simfix_seed_runs ("eagle", t, 100, 100, r);
  for (int i = 0; i < 3; i++)
    ebb_sim_result_clear (&r[i]);
  ebb_sim_trace_free (t);
}

static void
test_needs_cutoff (void)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  ebb_error *err = NULL;
  CU_ASSERT_PTR_NULL (ebb_pol_new ("eagle", &p, NULL, &err));
  CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
  ebb_error_free (&err);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_sss_avoids_long_nodes), EBB_CU_TEST (test_sticky_probing),
  EBB_CU_TEST (test_srpt_starvation_bound), EBB_CU_TEST (test_deterministic_per_seed),
  EBB_CU_TEST (test_needs_cutoff),
};

EBB_CU_MAIN ("policy-eagle", NULL, NULL, tests)
