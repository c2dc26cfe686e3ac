/* Priority tiers in the ebb policy (issue 23): a higher tier suspends a lower tier's tasks,
 * short or long and whatever their share; a lower tier never suspends a higher one; within
 * a tier the short/long rules stay. The preemption core on hand-built nodes, then the
 * policy driven as the controller drives it. */
#include "config.h"

#include "policies/ebb.h"
#include "tests/cu.h"
#include "tests/policy-fixture.h"

#include <stdlib.h>

#define GIB    (1ll << 30)
#define CPU(c) ((int64_t)(c)*1000)

static ebb_pre_params
params (void)
{
  ebb_pre_params p;
  ebb_pre_params_default (&p);
  p.footprint = (ebb_pol_res){ 0, 0 };
  return p;
}

static void
add (ebb_pre_node *n, uint32_t job, int is_long, int32_t tier, int64_t cpu)
{
  ebb_pre_task t = {
    .job = job, .is_long = (uint8_t)is_long, .tier = tier, .demand = { cpu, 0 }, .est_end_sec = 100
  };
  ebb_pre_add (n, &t);
}

/* A tier-1 long task takes from a tier-0 long one (long never does within a tier); a
 * tier-0 short task takes nothing from a tier-1 long one. */
static void
test_pre_higher_tier_only (void)
{
  ebb_pre_params p = params ();
  ebb_pre_take out[4];
  double d;
  ebb_pre_node n = { .cap = { CPU (2), GIB } };
  add (&n, 1, 1, 0, CPU (2));
  ebb_pre_asker prod_long = { .tier = 1, .is_long = 1 }, be_long = { .tier = 0, .is_long = 1 };
  CU_ASSERT_EQUAL (
      ebb_pre_plan_for (&n, &p, &be_long, (ebb_pol_res){ CPU (1), 0 }, 10, 0, out, 4, &d), -1);
  CU_ASSERT_EQUAL_FATAL (
      ebb_pre_plan_for (&n, &p, &prod_long, (ebb_pol_res){ CPU (1), 0 }, 1e6, 0, out, 4, &d),
      1); /* no share against a higher tier, however long it holds */
  CU_ASSERT_EQUAL (out[0].amount.cpu_millis, CPU (1));
  ebb_pre_node_fini (&n);

  ebb_pre_node m = { .cap = { CPU (2), GIB } };
  add (&m, 2, 1, 1, CPU (2));
  ebb_pre_asker be_short = { .tier = 0, .is_long = 0 }, prod_short = { .tier = 1, .is_long = 0 };
  CU_ASSERT_EQUAL (
      ebb_pre_plan_for (&m, &p, &be_short, (ebb_pol_res){ CPU (1), 0 }, 1, 0, out, 4, &d), -1);
  /* Within tier 1, short over long as before. */
  CU_ASSERT_EQUAL (
      ebb_pre_plan_for (&m, &p, &prod_short, (ebb_pol_res){ CPU (1), 0 }, 1, 0, out, 4, &d), 1);
  /* ebb_pre_plan is a tier-0 short task: nothing of tier 1 for it. */
  CU_ASSERT_EQUAL (ebb_pre_plan (&m, &p, (ebb_pol_res){ CPU (1), 0 }, 1, 0, out, 4, &d), -1);
  ebb_pre_node_fini (&m);
}

/* Victims: the lowest tier first, before the task that lost least. */
static void
test_pre_lowest_tier_first (void)
{
  ebb_pre_params p = params ();
  ebb_pre_take out[4];
  double d;
  ebb_pre_node n = { .cap = { CPU (4), GIB } };
  add (&n, 1, 1, 1, CPU (2));
  add (&n, 2, 1, 0, CPU (2));
  ebb_pre_asker a = { .tier = 1, .is_long = 0 };
  CU_ASSERT_EQUAL_FATAL (
      ebb_pre_plan_for (&n, &p, &a, (ebb_pol_res){ CPU (1), 0 }, 1, 0, out, 4, &d), 1);
  CU_ASSERT_EQUAL (n.tasks[out[0].slot].job, 2);
  ebb_pre_node_fini (&n);
}

static ebb_pol *
make_ebb (ebb_pol_job *jobs)
{
  ebb_pol_params pp;
  polfix_one_node (&pp, (ebb_pol_res){ CPU (2), GIB });
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new ("ebb", &pp, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT (ebb_pol_ops_of (p)->tiers);
  return p;
}

/* The policy: a tier-1 long job suspends the tier-0 long job holding the node, starts when
 * its room is reported free, and the tier-0 job resumes only when the tier-1 one is done;
 * then a tier-0 short job waits for a tier-1 long job instead of suspending it. */
static void
test_policy_tier_preempts_long (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { CPU (2), 0 } }, /* tier 0, long */
    { .ntasks = 1, .est_task_sec = 1000, .demand = { CPU (2), 0 } }, /* tier 1, long */
    { .ntasks = 1, .est_task_sec = 1, .demand = { CPU (1), 0 } },    /* tier 0, short */
  };
  ebb_pol *p = make_ebb (jobs);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  ebb_pol_clear_actions (p);
  ebb_pol_job_set_priority (p, 1, 1);
  CU_ASSERT_EQUAL (ebb_pol_job_priority (p, 1), 1);
  ebb_pol_job_arrived (p, 10, 1);
  ebb_pol_action a = polfix_only (p, EBB_POL_ACT_SUSPEND);
  CU_ASSERT_EQUAL (a.job, 0);
  CU_ASSERT_EQUAL (a.amount.cpu_millis, CPU (2));
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 10, 0, 0, 0, (ebb_pol_res){ CPU (2), 0 }, 1);
  a = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a.job, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
  ebb_pol_clear_actions (p);
  ebb_pol_tick (p, 20);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
  /* Tier 0 short: no victim on the node, it waits. */
  ebb_pol_job_arrived (p, 30, 2);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_clear_actions (p);
  /* The tier-1 job ends: the short job starts, the tier-0 long job comes back after it. */
  ebb_pol_task_finished (p, 40, 0, 1, 0);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 2), 1);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 41, 0, 2, 0);
  a = polfix_only (p, EBB_POL_ACT_RESUME);
  CU_ASSERT_EQUAL (a.job, 0);
  CU_ASSERT_EQUAL (p->stats.suspends, 1);
  /* A forgotten id starts its next job at the default tier. */
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 1), 1);
  CU_ASSERT_EQUAL (ebb_pol_job_priority (p, 1), 0);
  ebb_pol_free (p);
  for (int i = 0; i < 3; i++)
    free (jobs[i].tasks);
}

/* Without tiers, a long job waits for the long job holding the node (no suspension). */
static void
test_policy_same_tier_long_waits (void)
{
  ebb_pol_job jobs[2] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { CPU (2), 0 } },
    { .ntasks = 1, .est_task_sec = 1000, .demand = { CPU (2), 0 } },
  };
  ebb_pol *p = make_ebb (jobs);
  ebb_pol_job_set_priority (p, 0, 1);
  ebb_pol_job_set_priority (p, 1, 1);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 10, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_free (p);
  for (int i = 0; i < 2; i++)
    free (jobs[i].tasks);
}

/* The policies without tiers say so. */
static void
test_tierless_policies (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 1 } };
  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  pp.nnodes = 1;
  pp.node_cap = (ebb_pol_res){ CPU (2), GIB };
  ebb_pol *p = ebb_pol_new ("graphene", &pp, jobs, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  CU_ASSERT_FALSE (ebb_pol_ops_of (p)->tiers);
  ebb_pol_free (p);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_pre_higher_tier_only),      EBB_CU_TEST (test_pre_lowest_tier_first),
  EBB_CU_TEST (test_policy_tier_preempts_long), EBB_CU_TEST (test_policy_same_tier_long_waits),
  EBB_CU_TEST (test_tierless_policies),
};

EBB_CU_MAIN ("policy-tiers", NULL, NULL, tests)
