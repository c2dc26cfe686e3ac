/* A task held by the operator (issue 22, ebb_pol_task_hold): its SUSPEND leaves at once,
 * the policy never resumes it however much room comes back and never takes from it, and
 * only the release resumes it. For the two policies that preempt (ebb, bigc). */
#include "config.h"

#include "policies/policy.h"
#include "tests/cu.h"
#include "tests/policy-fixture.h"

#include <stdlib.h>

#define GIB    (1ll << 30)
#define CPU(c) ((int64_t)(c)*1000)

static ebb_pol *
make (const char *name, ebb_pol_job *jobs)
{
  ebb_pol_params pp;
  polfix_one_node (&pp, (ebb_pol_res){ CPU (2), GIB });
  pp.footprint = (ebb_pol_res){ 10, 0 }; /* a task held keeps 10 millicores */
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new (name, &pp, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  return p;
}

/* Rounds with room and no other work: a policy would resume a task it suspended. */
static void
ticks (ebb_pol *p, double from_sec, int n)
{
  for (int i = 0; i < n; i++)
    ebb_pol_tick (p, from_sec + 3 * i);
}

/* The long job's task runs, is held (one immediate SUSPEND), a short job comes and goes,
 * rounds pass with the node empty: no RESUME; the policy's own ebb_pol_resume and
 * ebb_pol_suspend do nothing to it; the release resumes it. */
static void
check_held_never_resumed (const char *name)
{
  ebb_pol_job jobs[2] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { CPU (2), 0 } }, /* long */
    { .ntasks = 1, .est_task_sec = 1, .demand = { CPU (1), 0 } },    /* short */
  };
  ebb_pol *p = make (name, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL_FATAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_task_hold (p, 1, 0, 0, 0), -1); /* not held: nothing to release */
  CU_ASSERT_EQUAL_FATAL (ebb_pol_task_hold (p, 1, 0, 0, 1), 0);
  ebb_pol_action a = polfix_sole (p);
  CU_ASSERT_EQUAL (a.kind, EBB_POL_ACT_SUSPEND);
  CU_ASSERT_EQUAL (a.mode, EBB_POL_SUSPEND_IMMEDIATE);
  CU_ASSERT (a.amount.cpu_millis >= CPU (2) - 10); /* down to the footprint */
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_task_hold (p, 1, 0, 0, 1), -1); /* held already */
  ebb_pol_task_reclaimed (p, 2, 0, 0, 0, a.amount, 1);
  CU_ASSERT_EQUAL (jobs[0].tasks[0].state, EBB_POL_TASK_SUSPENDED);
  CU_ASSERT_EQUAL (ebb_pol_job_of (p, 0)->tasks[0].held, 1);
  /* The room it left is the short job's; no resumption meanwhile nor after. */
  ebb_pol_job_arrived (p, 3, 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 4, 0, 1, 0);
  ticks (p, 5, 20);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
  ebb_pol_resume (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
  CU_ASSERT_EQUAL (
      ebb_pol_suspend (p, 0, 0, EBB_POL_SUSPEND_IMMEDIATE, (ebb_pol_res){ 0, 0 }).cpu_millis, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  CU_ASSERT_EQUAL (jobs[0].tasks[0].state, EBB_POL_TASK_SUSPENDED);
  /* The release: RESUME to its demand, and the policy's again. */
  CU_ASSERT_EQUAL_FATAL (ebb_pol_task_hold (p, 70, 0, 0, 0), 0);
  a = polfix_only (p, EBB_POL_ACT_RESUME);
  CU_ASSERT_EQUAL (a.job, 0);
  CU_ASSERT_EQUAL (jobs[0].tasks[0].held, 0);
  CU_ASSERT_EQUAL (jobs[0].tasks[0].alloc.cpu_millis, CPU (2));
  ebb_pol_clear_actions (p);
  ebb_pol_task_resumed (p, 71, 0, 0, 0);
  CU_ASSERT_EQUAL (jobs[0].tasks[0].state, EBB_POL_TASK_RUNNING);
  ebb_pol_free (p);
}

static void
test_held_never_resumed_ebb (void)
{
  check_held_never_resumed ("ebb");
}

static void
test_held_never_resumed_bigc (void)
{
  check_held_never_resumed ("bigc");
}

/* ebb: a task the policy shrank for a short job (a graceful step), then held, goes down to
 * its footprint and stays there when the short job ends (the policy would have given its
 * room back); the next short job takes nothing from it. */
static void
test_ebb_holds_its_victim (void)
{
  ebb_pol_job jobs[3] = {
    { .ntasks = 1, .est_task_sec = 1000, .demand = { CPU (2), 0 } },
    { .ntasks = 1, .est_task_sec = 1, .demand = { CPU (1), 0 } },
    { .ntasks = 1, .est_task_sec = 1, .demand = { CPU (1), 0 } },
  };
  ebb_pol *p = make ("ebb", jobs);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 1, 1);
  ebb_pol_action a = polfix_only (p, EBB_POL_ACT_SUSPEND);
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_task_hold (p, 1, 0, 0, 1), -1); /* its SUSPEND is under way */
  ebb_pol_task_reclaimed (p, 2, 0, 0, 0, a.amount, 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 1);
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL_FATAL (ebb_pol_task_hold (p, 3, 0, 0, 1), 0);
  a = polfix_only (p, EBB_POL_ACT_SUSPEND); /* the rest of it */
  CU_ASSERT_EQUAL (a.mode, EBB_POL_SUSPEND_IMMEDIATE);
  CU_ASSERT (a.amount.cpu_millis > 0 && a.amount.cpu_millis <= CPU (1));
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 3, 0, 0, 0, a.amount, 1);
  ebb_pol_task_finished (p, 4, 0, 1, 0);
  ticks (p, 5, 20);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
  /* A short job now: room is there (the held task keeps less than its demand): launched,
   * and nothing asked of the held task. */
  ebb_pol_job_arrived (p, 70, 2);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 2), 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  ebb_pol_free (p);
}

/* Refusals: slot mode, a task not placed. */
static void
test_hold_refused (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 2, .est_task_sec = 1000, .demand = { CPU (2), 0 } } };
  ebb_pol *p = make ("ebb", jobs);
  ebb_pol_job_arrived (p, 0, 0); /* one task runs, the other waits */
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  uint32_t waiting = polfix_only (p, EBB_POL_ACT_LAUNCH).arg == 0 ? 1 : 0;
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_task_hold (p, 1, 0, waiting, 1), -1);
  CU_ASSERT_EQUAL (ebb_pol_task_hold (p, 1, 0, 5, 1), -1);
  CU_ASSERT_EQUAL (ebb_pol_task_hold (p, 1, 3, 0, 1), -1);
  ebb_pol_free (p);

  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  pp.nnodes = 1;
  ebb_pol_job sj[1] = { { .ntasks = 1, .est_task_sec = 1 } };
  p = ebb_pol_new ("sparrow", &pp, sj, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (ebb_pol_task_hold (p, 1, 0, 0, 1), -1);
  ebb_pol_free (p);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_held_never_resumed_ebb),
  EBB_CU_TEST (test_held_never_resumed_bigc),
  EBB_CU_TEST (test_ebb_holds_its_victim),
  EBB_CU_TEST (test_hold_refused),
};

EBB_CU_MAIN ("policy-hold", NULL, NULL, tests)
