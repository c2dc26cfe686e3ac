/* BIG-C (policies/bigc.c) driven directly, events in and actions out: Algorithm 1 on
 * hand-computed vectors, Algorithm 2's victim order, graceful steps and the working-set
 * freeze, delayed resumption D, the arrival pass (arrival_preempt), kill attempts and
 * priority tiers. */
#include "config.h"

#include "policies/bigc.h"
#include "tests/cu.h"
#include "tests/policy-fixture.h"

#include <string.h>

#define GIB (INT64_C (1) << 30)
#define MIB (INT64_C (1) << 20)

static ebb_pol_res
R (int64_t cpu, int64_t mem)
{
  return (ebb_pol_res){ cpu, mem };
}

#define ASSERT_RES(x, c, m)                                                                        \
  do                                                                                               \
    {                                                                                              \
      ebb_pol_res x_ = (x);                                                                        \
      CU_ASSERT_EQUAL (x_.cpu_millis, (c));                                                        \
      CU_ASSERT_EQUAL (x_.memory_bytes, (m));                                                      \
    }                                                                                              \
  while (0)

/* The Google-replay cluster: 26 x <32 CPU, 128 GiB>. */
static const ebb_pol_res cap26 = { 26 * 32000, 26 * 128 * GIB };

static void
test_computedr_vectors (void)
{
  /* CPU dominant (40000/832000 > 40/3328): all of a's CPU, memory in rs's ratio
   * 16000 x 40 GiB / 40000 = 16 GiB, under a's 64 GiB. */
  ASSERT_RES (ebb_pol_bigc_computedr (R (40000, 40 * GIB), R (16000, 64 * GIB), cap26), 16000,
              16 * GIB);
  /* Memory dominant (100/3328 > 1000/832000): a's 50 GiB, CPU in ratio 500, capped by a's 300. */
  ASSERT_RES (ebb_pol_bigc_computedr (R (1000, 100 * GIB), R (300, 50 * GIB), cap26), 300,
              50 * GIB);
  /* Integer division rounds down: 1000 x (2^30 + 1) / 3000 = 357913941.67 -> 357913941. */
  ASSERT_RES (ebb_pol_bigc_computedr (R (3000, GIB + 1), R (1000, 10 * GIB), cap26), 1000,
              357913941);
  /* Nothing over the share: nothing to take. */
  ASSERT_RES (ebb_pol_bigc_computedr (R (4000, 4 * GIB), R (0, 0), cap26), 0, 0);
}

static void
test_alg1 (void)
{
  /* Fits in a = rl - 5% x cap: p = rs exactly. */
  ASSERT_RES (ebb_pol_bigc_alg1 (R (800000, 1600 * GIB), R (40000, 40 * GIB), cap26, 0.05), 40000,
              40 * GIB);
  /* a = <800000 - 41600, ...> but rs asks more CPU than a has: COMPUTEDR. f_l's memory is
   * 3328 GiB x 50000 / 10^6 = 178670639513 bytes (integer). */
  ebb_pol_res rl = { 50000, 300 * GIB };
  ebb_pol_res p = ebb_pol_bigc_alg1 (rl, R (40000, 40 * GIB), cap26, 0.05);
  /* a = <8400, 300 GiB - 178670639513>; CPU dominant: 8400, memory 8400 x 40 GiB / 40000. */
  ASSERT_RES (p, 8400, (int64_t)((__int128)8400 * 40 * GIB / 40000));
  /* Idle cluster (no long allocation): nothing to preempt. */
  ASSERT_RES (ebb_pol_bigc_alg1 (R (0, 0), R (40000, 40 * GIB), cap26, 0.05), 0, 0);
  /* Long queue within its share: nothing. */
  ASSERT_RES (ebb_pol_bigc_alg1 (R (41600, 100 * GIB), R (40000, 40 * GIB), cap26, 0.05), 0, 0);
  /* No unmet short demand: nothing. */
  ASSERT_RES (ebb_pol_bigc_alg1 (R (800000, 1600 * GIB), R (0, 0), cap26, 0.05), 0, 0);
}

/* A job of ntasks tasks of est seconds, of class cls, each task asking demand. */
static ebb_pol_job
J (uint32_t ntasks, double est, uint32_t cls, ebb_pol_res demand)
{
  return (
      ebb_pol_job){ .ntasks = ntasks, .est_task_sec = est, .class_hint = cls, .demand = demand };
}

/* The defaults for nnodes nodes of cap under BIG-C mode. */
static ebb_pol_params
bigc_params (uint32_t nnodes, ebb_pol_res cap, uint32_t mode)
{
  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  pp.nnodes = nnodes;
  pp.node_cap = cap;
  pp.bigc_mode = mode;
  /* The paper's rounds only: the cases below check what a round decides (the arrival pass,
   * on by default, has its own case). */
  pp.arrival_preempt = 0;
  return pp;
}

/* A bigc policy over jobs; the test stops unless it is made. */
static ebb_pol *
bigc_new (const ebb_pol_params *pp, ebb_pol_job *jobs)
{
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new ("bigc", pp, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  return p;
}

/* One node <32 CPU, 64 GiB>; job 0 long (est 100 s, 2 tasks), job 1 long (est 1000 s, 2
 * tasks), both <8 CPU, 16 GiB>: the node is full. Job 2 short, one task <4 CPU, 4 GiB>. */
static void
one_node_jobs (ebb_pol_job *jobs)
{
  jobs[0] = J (2, 100, EBB_POL_CLASS_LONG, R (8000, 16 * GIB));
  jobs[1] = J (2, 1000, EBB_POL_CLASS_LONG, R (8000, 16 * GIB));
  jobs[2] = J (1, 10, EBB_POL_CLASS_SHORT, R (4000, 4 * GIB));
}

/* A bigc policy over jobs whose job 0, long, has all its tasks launched (actions cleared). */
static ebb_pol *
bigc_long_running (const ebb_pol_params *pp, ebb_pol_job *jobs)
{
  ebb_pol *p = bigc_new (pp, jobs);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), jobs[0].ntasks);
  ebb_pol_clear_actions (p);
  return p;
}

/* one_node_jobs with jobs 0 and 1 launched (four LAUNCH actions, cleared); arrival:
 * params.arrival_preempt. */
static ebb_pol *
setup_arrival (ebb_pol_job *jobs, uint32_t mode, double working_set, uint32_t d, int arrival)
{
  ebb_pol_params pp = bigc_params (1, R (32000, 64 * GIB), mode);
  pp.arrival_preempt = arrival;
  pp.working_set = working_set;
  pp.resume_tries = d;
  one_node_jobs (jobs);
  ebb_pol *p = bigc_new (&pp, jobs);
  CU_ASSERT_EQUAL (p->params.tick_sec, 3.0);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_job_arrived (p, 1, 1);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 4);
  for (size_t i = 0; i < n; i++)
    {
      CU_ASSERT_EQUAL (a[i].kind, EBB_POL_ACT_LAUNCH);
      ASSERT_RES (a[i].amount, 8000, 16 * GIB);
    }
  ebb_pol_clear_actions (p);
  return p;
}

/* setup_arrival with the rounds only preempting (the paper). */
static ebb_pol *
setup (ebb_pol_job *jobs, uint32_t mode, double working_set, uint32_t d)
{
  return setup_arrival (jobs, mode, working_set, d, 0);
}

static void
test_no_preemption_when_short_fits (void)
{
  ebb_pol_job jobs[3];
  ebb_pol *p = setup (jobs, EBB_POL_BIGC_GP, 0.5, 3);
  /* One long task ends: the short task fits in the room it leaves. */
  ebb_pol_task_finished (p, 5, 0, 0, 0);
  ebb_pol_job_arrived (p, 6, 2);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  ebb_pol_clear_actions (p);
  ebb_pol_tick (p, 9);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  CU_ASSERT_EQUAL (p->stats.suspends, 0);
  ebb_pol_free (p);
}

static void
test_idle_cluster_no_preemption (void)
{
  ebb_pol_job jobs[3] = { { .ntasks = 0 } };
  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  pp.nnodes = 2;
  pp.node_cap = R (32000, 64 * GIB);
  jobs[2] = J (1, 10, EBB_POL_CLASS_SHORT, R (4000, 4 * GIB));
  ebb_pol *p = bigc_new (&pp, jobs);
  ebb_pol_job_arrived (p, 0, 2);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  ebb_pol_clear_actions (p);
  for (int i = 1; i <= 5; i++)
    ebb_pol_tick (p, 3.0 * i);
  size_t n;
  ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL (n, 0);
  ebb_pol_free (p);
}

/* kill on one_node_jobs' full node when job 2's short task arrives: the victim is job 1
 * (1000 s x 2 tasks left beats 100 s x 2), its first container (equal allocations: lowest
 * index), exactly one container for p = <4 CPU, 4 GiB>. The kill lands: the short task takes
 * the room, the killed task waits (re-queued). */
static void
short_arrives_one_kill (ebb_pol *p, ebb_pol_job *jobs)
{
  ebb_pol_job_arrived (p, 2, 2);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_tick (p, 3);
  ebb_pol_action a = polfix_sole (p);
  CU_ASSERT_EQUAL (a.kind, EBB_POL_ACT_KILL);
  CU_ASSERT_EQUAL (a.job, 1);
  CU_ASSERT_EQUAL (a.arg, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_task_killed (p, 3.1, 0, 1, 0);
  a = polfix_sole (p);
  CU_ASSERT_EQUAL (a.kind, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a.job, 2);
  CU_ASSERT_EQUAL (jobs[1].tasks[0].state, EBB_POL_TASK_PENDING);
  CU_ASSERT_EQUAL (jobs[1].tasks[0].kills, 1);
}

static void
test_victim_order_kill (void)
{
  ebb_pol_job jobs[3];
  ebb_pol *p = setup (jobs, EBB_POL_BIGC_KILL, 0.5, 3);
  short_arrives_one_kill (p, jobs);
  ebb_pol_free (p);
}

/* Adoption (the controller after a restart): the same four long containers, adopted where
 * they run instead of launched, are victims like launched ones: no LAUNCH for them, the
 * same KILL of the longest job's first container, and the killed one is queued again. */
static void
test_adopted_containers_are_victims (void)
{
  ebb_pol_params pp = bigc_params (1, R (32000, 64 * GIB), EBB_POL_BIGC_KILL);
  ebb_pol_job jobs[3];
  one_node_jobs (jobs);
  ebb_pol *p = bigc_new (&pp, jobs);
  const uint32_t nodes[2] = { 0, 0 };
  ebb_pol_job_adopted (p, 0, 0, nodes);
  ebb_pol_job_adopted (p, 0, 1, nodes);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  CU_ASSERT_EQUAL (jobs[1].launched, 2);
  ASSERT_RES (p->node_free[0], 0, 0);
  short_arrives_one_kill (p, jobs);
  ebb_pol_free (p);
}

/* gp: steps of min(r_GP, r_c, p): <2 CPU, 4 GiB> from job 1's task 0, then the rest of p's
 * dominant resource (CPU: 2000 more, memory already met) from task 1. Next round, largest
 * allocation first: task 1 (6 CPU) is not larger than task 0 (6 CPU) -- equal, lowest index. */
static void
test_gp_steps (void)
{
  ebb_pol_job jobs[3];
  ebb_pol *p = setup (jobs, EBB_POL_BIGC_GP, 0.5, 3);
  ebb_pol_job_arrived (p, 2, 2);
  ebb_pol_tick (p, 3);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_SUSPEND);
  CU_ASSERT_EQUAL (a[0].mode, EBB_POL_SUSPEND_GRACEFUL);
  CU_ASSERT_EQUAL (a[0].job, 1);
  CU_ASSERT_EQUAL (a[0].arg, 0);
  ASSERT_RES (a[0].amount, 2000, 4 * GIB);
  CU_ASSERT_EQUAL (a[1].job, 1);
  CU_ASSERT_EQUAL (a[1].arg, 1);
  ASSERT_RES (a[1].amount, 2000, 0);
  CU_ASSERT_EQUAL (p->stats.gp_steps, 2);
  ebb_pol_clear_actions (p);
  /* In flight: the next round asks nothing more (reclaims under way cover the demand). */
  ebb_pol_tick (p, 6);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  /* CPU comes back at once: 4000 millicores free, but memory not yet: no launch. */
  ebb_pol_task_reclaimed (p, 6.1, 0, 1, 0, R (2000, 0), 0);
  ebb_pol_task_reclaimed (p, 6.1, 0, 1, 1, R (2000, 0), 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_task_reclaimed (p, 18.1, 0, 1, 0, R (0, 4 * GIB), 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  ASSERT_RES (jobs[1].tasks[0].alloc, 6000, 12 * GIB);
  ASSERT_RES (jobs[1].tasks[1].alloc, 6000, 16 * GIB);
  ASSERT_RES (p->node_free[0], 0, 0);
  ebb_pol_free (p);
}

/* A step that leaves a container below its working set (here 90% of 16 GiB) freezes it, as
 * BIG-C's container monitor does on swapping: the step's 4 GiB and all its CPU are taken, the
 * other 12 GiB stay (the paper freezes, it does not suspend), and a frozen container is no
 * victim in later rounds. */
static void
test_freeze_exclusion (void)
{
  ebb_pol_job jobs[3];
  ebb_pol *p = setup (jobs, EBB_POL_BIGC_GP, 0.9, 3);
  ebb_pol_job_arrived (p, 2, 2);
  ebb_pol_tick (p, 3);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (a[0].mode, EBB_POL_SUSPEND_GRACEFUL);
  CU_ASSERT_EQUAL (a[0].job, 1);
  CU_ASSERT_EQUAL (a[0].arg, 0);
  ASSERT_RES (a[0].amount, 8000, 4 * GIB);
  CU_ASSERT_EQUAL (p->stats.frozen, 1);
  CU_ASSERT (jobs[1].tasks[0].frozen);
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 3.1, 0, 1, 0, R (8000, 0), 0);
  ebb_pol_task_reclaimed (p, 15, 0, 1, 0, R (0, 4 * GIB), 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  CU_ASSERT_EQUAL (jobs[1].tasks[0].state, EBB_POL_TASK_RUNNING);
  ASSERT_RES (jobs[1].tasks[0].alloc, 0, 12 * GIB);
  ebb_pol_clear_actions (p);
  /* A second short job asking <8 CPU, 4 GiB> more than the <4 CPU, 0> left: task 0 of job 1
   * is frozen, so the round takes from task 1 (which freezes too). */
  jobs[2].launched = 0;
  jobs[2].demand = R (8000, 4 * GIB);
  ebb_pol_job_arrived (p, 51, 2);
  ebb_pol_clear_actions (p);
  ebb_pol_tick (p, 54);
  a = ebb_pol_actions (p, &n);
  CU_ASSERT_FATAL (n >= 1);
  CU_ASSERT_EQUAL (a[0].job, 1);
  CU_ASSERT_EQUAL (a[0].arg, 1);
  CU_ASSERT_EQUAL (p->stats.frozen, 2);
  ebb_pol_free (p);
}

/* Delayed resumption: a suspended container on a cluster without spare room resumes only
 * after D rounds with room on its node; D = 0 at the first chance. */
static void
test_delayed_resumption (void)
{
  for (uint32_t d = 0; d <= 3; d += 3)
    {
      ebb_pol_job jobs[3];
      ebb_pol *p = setup (jobs, EBB_POL_BIGC_IP, 0.5, d);
      ebb_pol_job_arrived (p, 2, 2);
      ebb_pol_tick (p, 3);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 1);
      ebb_pol_clear_actions (p);
      ebb_pol_task_reclaimed (p, 3.1, 0, 1, 0, R (8000, 0), 0);
      ebb_pol_task_reclaimed (p, 50, 0, 1, 0, R (0, 16 * GIB), 1);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
      CU_ASSERT_EQUAL (jobs[1].tasks[0].state, EBB_POL_TASK_SUSPENDED);
      ebb_pol_clear_actions (p);
      /* The short task ends: room on the node, none elsewhere (one node). */
      ebb_pol_task_finished (p, 60, 0, 2, 0);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), d == 0 ? 1 : 0);
      for (uint32_t r = 1; d > 0 && r <= d; r++)
        {
          ebb_pol_tick (p, 60 + 3.0 * r);
          CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
          CU_ASSERT_EQUAL (jobs[1].tasks[0].tries, r);
        }
      if (d > 0)
        {
          ebb_pol_tick (p, 60 + 3.0 * (d + 1));
          CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 1);
        }
      CU_ASSERT_EQUAL (jobs[1].tasks[0].state, EBB_POL_TASK_RESUMING);
      ASSERT_RES (p->node_free[0], 0, 0);
      ebb_pol_free (p);
    }
}

/* arrival_preempt: a short job that finds no room preempts at its arrival when on, at the
 * next round when off, the same victim either way; and the arrival pass is no round: a
 * container suspended with room on its node gets its resumption chances (tries) from the
 * rounds only. ip, D = 3, one node. */
static void
test_arrival_preempt (void)
{
  for (int on = 0; on <= 1; on++)
    {
      ebb_pol_job jobs[4];
      ebb_pol *p = setup_arrival (jobs, EBB_POL_BIGC_IP, 0.5, 3, on);
      CU_ASSERT_EQUAL (p->params.arrival_preempt, on);
      ebb_pol_job_arrived (p, 2, 2);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), (size_t)on);
      if (!on)
        ebb_pol_tick (p, 3);
      ebb_pol_action a = polfix_only (p, EBB_POL_ACT_SUSPEND);
      CU_ASSERT_EQUAL (a.job, 1);
      CU_ASSERT_EQUAL (a.arg, 0);
      ebb_pol_clear_actions (p);
      ebb_pol_task_reclaimed (p, 3.1, 0, 1, 0, R (8000, 0), 0);
      ebb_pol_task_reclaimed (p, 50, 0, 1, 0, R (0, 16 * GIB), 1);
      CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 2), 1);
      ebb_pol_clear_actions (p);
      /* The short task ends: room for the suspended container, which waits D rounds. */
      ebb_pol_task_finished (p, 60, 0, 2, 0);
      ebb_pol_tick (p, 63);
      CU_ASSERT_EQUAL (jobs[1].tasks[0].tries, 1);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
      /* A short task larger than the room: <12 CPU, 4 GiB> against <8 CPU, 16 GiB> free. */
      jobs[3] = J (1, 10, EBB_POL_CLASS_SHORT, R (12000, 4 * GIB));
      ebb_pol_job_arrived (p, 64, 3);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), (size_t)on);
      CU_ASSERT_EQUAL (jobs[1].tasks[0].tries, 1); /* the arrival is no chance */
      ebb_pol_tick (p, 66);
      a = polfix_only (p, EBB_POL_ACT_SUSPEND);
      CU_ASSERT_EQUAL (a.job, 1);
      CU_ASSERT_EQUAL (a.arg, 1);
      CU_ASSERT_EQUAL (jobs[1].tasks[0].tries, 2); /* one round, one chance */
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
      CU_ASSERT_EQUAL (p->stats.suspends, 2);
      ebb_pol_free (p);
    }
}

/* A task killed kill_attempts (4) times fails its job: FAIL once, no more launches. */
static void
test_kill_attempts (void)
{
  ebb_pol_job jobs[3];
  ebb_pol *p = setup (jobs, EBB_POL_BIGC_KILL, 0.5, 3);
  for (int k = 1; k <= 4; k++)
    {
      ebb_pol_clear_actions (p);
      ebb_pol_task_killed (p, 10.0 * k, 0, 1, 1);
      size_t relaunch = polfix_count (p, EBB_POL_ACT_LAUNCH);
      CU_ASSERT_EQUAL (relaunch, k < 4 ? 1 : 0);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_FAIL), k < 4 ? 0 : 1);
    }
  CU_ASSERT (jobs[1].failed);
  CU_ASSERT_EQUAL (p->stats.failed_jobs, 1);
  /* Its other container is ended so the job frees the cluster. */
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_KILL), 1);
  ebb_pol_free (p);
}

/* The footprint is not counted by default (book_footprint none: BIG-C's resource manager
 * books a preempted container at what it still holds for YARN): on one-CPU slots, a gp step
 * frees the whole slot and the waiting short task takes it. Counting the default
 * 10-millicore footprint left 990 millicores, where no one-CPU short task ever fits. The
 * footprint itself is left as given (what the agent keeps). */
static void
test_footprint_not_counted (void)
{
  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  CU_ASSERT_EQUAL (pp.footprint.cpu_millis, 10);
  CU_ASSERT_EQUAL (pp.book_footprint, EBB_POL_BOOK_DEFAULT);
  /* 20 slots, all held by the long job: p = the short task's <1000, 0>, inside a. */
  pp.nnodes = 20;
  pp.node_cap = R (1000, 0);
  pp.bigc_mode = EBB_POL_BIGC_GP;
  ebb_pol_job jobs[2] = {
    J (20, 1000, EBB_POL_CLASS_LONG, R (1000, 0)),
    J (1, 10, EBB_POL_CLASS_SHORT, R (1000, 0)),
  };
  ebb_pol *p = bigc_new (&pp, jobs);
  CU_ASSERT_EQUAL (p->params.book_footprint, EBB_POL_BOOK_NONE);
  CU_ASSERT_EQUAL (p->params.footprint.cpu_millis, 10);
  CU_ASSERT_EQUAL (p->params.footprint.memory_bytes, 64 * MIB);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 20);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 1, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_tick (p, 3);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_SUSPEND);
  ASSERT_RES (a[0].amount, 1000, 0);
  uint32_t node = jobs[0].tasks[a[0].arg].node;
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 3.1, node, 0, a[0].arg, R (1000, 0), 1);
  a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a[0].job, 1);
  CU_ASSERT_EQUAL (a[0].node, node);
  ebb_pol_free (p);
}

/* Booked when asked (book_footprint all): an ip suspension takes everything above the
 * footprint, which the container keeps in the books; a gp step stops at it. */
static void
test_footprint_booked_when_asked (void)
{
  for (uint32_t mode = EBB_POL_BIGC_IP; mode <= EBB_POL_BIGC_GP; mode++)
    {
      ebb_pol_params pp = bigc_params (1, R (1000, GIB), mode);
      pp.book_footprint = EBB_POL_BOOK_ALL;
      pp.working_set = 0;
      ebb_pol_job jobs[2] = {
        J (1, 1000, EBB_POL_CLASS_LONG, R (1000, 512 * MIB)),
        J (1, 10, EBB_POL_CLASS_SHORT, R (990, 256 * MIB)),
      };
      ebb_pol *p = bigc_new (&pp, jobs);
      CU_ASSERT_EQUAL (p->params.book_footprint, EBB_POL_BOOK_ALL);
      ebb_pol_job_arrived (p, 0, 0);
      ebb_pol_clear_actions (p);
      ebb_pol_job_arrived (p, 1, 1);
      ebb_pol_tick (p, 3);
      size_t n;
      const ebb_pol_action *a = ebb_pol_actions (p, &n);
      CU_ASSERT_EQUAL_FATAL (n, 1);
      CU_ASSERT_EQUAL (a[0].kind, EBB_POL_ACT_SUSPEND);
      CU_ASSERT_EQUAL (a[0].amount.cpu_millis, 990);
      if (mode == EBB_POL_BIGC_IP)
        ASSERT_RES (a[0].amount, 990, 448 * MIB); /* all above <10, 64 MiB> */
      else
        ASSERT_RES (a[0].amount, 990, 0); /* one step of p: the node has the memory */
      ebb_pol_free (p);
    }
}

/* ip on the full node: one suspended <8 CPU, 16 GiB> container is room for two <4 CPU,
 * 4 GiB> short tasks (7990 millicores, with the footprint counted, was room for one). */
static void
test_suspended_room_two_shorts (void)
{
  ebb_pol_job jobs[3];
  ebb_pol *p = setup (jobs, EBB_POL_BIGC_IP, 0.5, 3);
  ebb_pol_job_arrived (p, 2, 2);
  ebb_pol_tick (p, 3);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  ASSERT_RES (a[0].amount, 8000, 16 * GIB);
  ebb_pol_clear_actions (p);
  ebb_pol_task_reclaimed (p, 3.1, 0, 1, 0, R (8000, 0), 0);
  ebb_pol_task_reclaimed (p, 50, 0, 1, 0, R (0, 16 * GIB), 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 1);
  ASSERT_RES (jobs[1].tasks[0].alloc, 0, 0);
  ASSERT_RES (p->node_free[0], 4000, 12 * GIB);
  CU_ASSERT (ebb_pol_res_fits (jobs[2].demand, p->node_free[0]));
  ebb_pol_free (p);
}

/* The controller's test cluster: 3 nodes <2 CPU>, six long tasks <1 CPU, 64 MiB> fill it,
 * a short job of two <990, 64 MiB> tasks arrives. p = <1980>: the first victim gives all it
 * holds (1000, no footprint booked), the second would give the remaining 980, where no short
 * task fits, and the cluster's free total (1990) then covers the demand: no later round
 * preempts, the second task waited for a resumption (2 s in the controller's test). The
 * second step is topped up to one short task: both launch at once. */
static void
test_steps_make_room_per_node (void)
{
  ebb_pol_params pp = bigc_params (3, R (2000, 8 * GIB), EBB_POL_BIGC_GP);
  ebb_pol_job jobs[2] = {
    J (6, 1000, EBB_POL_CLASS_LONG, R (1000, 64 * MIB)),
    J (2, 2, EBB_POL_CLASS_SHORT, R (990, 64 * MIB)),
  };
  ebb_pol *p = bigc_long_running (&pp, jobs);
  ebb_pol_job_arrived (p, 1, 1);
  ebb_pol_tick (p, 1);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 2);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  ebb_pol_action sus[2] = { a[0], a[1] };
  CU_ASSERT_NOT_EQUAL (sus[0].node, sus[1].node);
  ASSERT_RES (sus[0].amount, 1000, 0);
  ASSERT_RES (sus[1].amount, 990, 0);
  ebb_pol_clear_actions (p);
  /* CPU-only steps: the controller tells the policy at once. */
  for (int i = 0; i < 2; i++)
    ebb_pol_task_reclaimed (p, 1.01, sus[i].node, 0, sus[i].arg, sus[i].amount, 1);
  a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 2);
  for (size_t i = 0; i < n; i++)
    if (a[i].kind == EBB_POL_ACT_LAUNCH)
      CU_ASSERT_EQUAL (a[i].job, 1);
  CU_ASSERT_EQUAL (jobs[1].launched, 2);
  ebb_pol_free (p);
}

/* Nothing is preempted on a draining node (the controller sets its capacity to 0) for a
 * short task that cannot go there, in every mode: two nodes <1 CPU> each run a long task; the
 * node of the task BIG-C takes first is drained, a short <990> task arrives: only the other
 * node's task is a victim (before the fix, the drained node's: issue 21). */
static void
test_no_preemption_on_drained_node (void)
{
  for (uint32_t mode = EBB_POL_BIGC_KILL; mode <= EBB_POL_BIGC_GP; mode++)
    {
      ebb_pol_params pp = bigc_params (2, R (1000, 2 * GIB), mode);
      ebb_pol_job jobs[2] = {
        J (2, 1000, EBB_POL_CLASS_LONG, R (1000, 64 * MIB)),
        J (1, 2, EBB_POL_CLASS_SHORT, R (990, 64 * MIB)),
      };
      ebb_pol *p = bigc_long_running (&pp, jobs);
      /* The node of the first victim in BIG-C's order (the first task of equal ones). */
      uint32_t drained = jobs[0].tasks[0].node;
      ebb_pol_node_capacity (p, drained, R (0, 0));
      ebb_pol_job_arrived (p, 1, 1);
      ebb_pol_tick (p, 1);
      size_t n;
      const ebb_pol_action *a = ebb_pol_actions (p, &n);
      size_t victims = 0;
      for (size_t i = 0; i < n; i++)
        if (a[i].kind == EBB_POL_ACT_SUSPEND || a[i].kind == EBB_POL_ACT_KILL)
          {
            CU_ASSERT_NOT_EQUAL (a[i].node, drained);
            victims++;
          }
      CU_ASSERT (victims >= 1);
      ebb_pol_free (p);
    }
}

static void
test_mode_checks (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 1 } };
  ebb_pol_params pp;
  ebb_pol_params_default (&pp);
  ebb_error *err = NULL;
  /* bigc needs capacities; the slot policies refuse them. */
  CU_ASSERT_PTR_NULL (ebb_pol_new ("bigc", &pp, jobs, &err));
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "needs node capacities"));
  ebb_error_free (&err);
  pp.node_cap = R (1000, 0);
  CU_ASSERT_PTR_NULL (ebb_pol_new ("fifo", &pp, jobs, &err));
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "single-slot"));
  ebb_error_free (&err);
  pp.bigc_mode = 9;
  CU_ASSERT_PTR_NULL (ebb_pol_new ("bigc", &pp, jobs, &err));
  ebb_error_free (&err);
}

/* Tiers (issue 23): one node full of tier-0 long containers (setup: jobs 0 and 1, two
 * <8 CPU, 16 GiB> each); a tier-1 long job <8 CPU, 16 GiB> takes a whole tier-0
 * container at the next round (in gp too: at once, not in graceful steps), starts when it
 * is reported free, and the victim comes back only after it. */
static void
test_tier_takes_lower_long (void)
{
  for (uint32_t mode = EBB_POL_BIGC_IP; mode <= EBB_POL_BIGC_GP; mode++)
    {
      ebb_pol_job jobs[3];
      ebb_pol *p = setup (jobs, mode, 0.5, 0);
      jobs[2] = J (1, 1000, EBB_POL_CLASS_LONG, R (8000, 16 * GIB));
      ebb_pol_job_set_priority (p, 2, 1);
      ebb_pol_job_arrived (p, 2, 2);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0); /* rounds only here */
      ebb_pol_tick (p, 3);
      ebb_pol_action a = polfix_only (p, EBB_POL_ACT_SUSPEND);
      CU_ASSERT_EQUAL (a.mode, EBB_POL_SUSPEND_IMMEDIATE);
      ASSERT_RES (a.amount, 8000, 16 * GIB);
      uint32_t vj = a.job, vt = a.arg;
      CU_ASSERT (vj == 0 || vj == 1);
      ebb_pol_clear_actions (p);
      ebb_pol_task_reclaimed (p, 3.1, 0, vj, vt, R (8000, 16 * GIB), 1);
      a = polfix_only (p, EBB_POL_ACT_LAUNCH);
      CU_ASSERT_EQUAL (a.job, 2);
      ebb_pol_clear_actions (p);
      ebb_pol_tick (p, 6);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_RESUME), 0);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
      ebb_pol_task_finished (p, 20, 0, 2, 0);
      a = polfix_only (p, EBB_POL_ACT_RESUME);
      CU_ASSERT_EQUAL (a.job, vj);
      CU_ASSERT_EQUAL (a.arg, vt);
      ebb_pol_free (p);
    }
}

/* A lower tier never takes from a higher one: a tier-0 short job waits for the tier-1 long
 * containers holding the node (BIG-C would preempt them within one tier); a tier-1 short
 * job takes from them by Algorithm 2 (a graceful step in gp), the short/long rule within a
 * tier. */
static void
test_tier_lower_never_preempts (void)
{
  ebb_pol_job jobs[4];
  ebb_pol_params pp = bigc_params (1, R (32000, 64 * GIB), EBB_POL_BIGC_GP);
  one_node_jobs (jobs);
  jobs[3] = J (1, 10, EBB_POL_CLASS_SHORT, R (4000, 4 * GIB));
  ebb_pol *p = bigc_new (&pp, jobs);
  ebb_pol_job_set_priority (p, 0, 1);
  ebb_pol_job_set_priority (p, 1, 1);
  ebb_pol_job_set_priority (p, 3, 1);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_job_arrived (p, 1, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 4);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 2, 2);
  ebb_pol_tick (p, 3);
  ebb_pol_tick (p, 6);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_job_arrived (p, 7, 3);
  ebb_pol_tick (p, 9);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT (polfix_count (p, EBB_POL_ACT_SUSPEND) >= 1);
  for (size_t i = 0; i < n; i++)
    if (a[i].kind == EBB_POL_ACT_SUSPEND)
      {
        CU_ASSERT_EQUAL (a[i].mode, EBB_POL_SUSPEND_GRACEFUL);
        CU_ASSERT_EQUAL (a[i].job, 1); /* longest remaining time first */
      }
  ebb_pol_free (p);
}

/* While a higher tier waits for its room, a lower tier starts nothing in it: a tier-1 long
 * job <16 CPU, 32 GiB> takes two tier-0 containers; when the first is reported free, the
 * tier-0 short job <4 CPU, 4 GiB> that arrived meanwhile (and would fit) stays queued. */
static void
test_tier_lower_waits (void)
{
  ebb_pol_job jobs[4];
  ebb_pol *p = setup (jobs, EBB_POL_BIGC_IP, 0.5, 0);
  jobs[2] = J (1, 1000, EBB_POL_CLASS_LONG, R (16000, 32 * GIB));
  jobs[3] = J (1, 10, EBB_POL_CLASS_SHORT, R (4000, 4 * GIB));
  ebb_pol_job_set_priority (p, 2, 1);
  ebb_pol_job_arrived (p, 2, 2);
  ebb_pol_tick (p, 3);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 2);
  uint32_t v[2][2] = { { a[0].job, a[0].arg }, { a[1].job, a[1].arg } };
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 4, 3);
  ebb_pol_task_reclaimed (p, 5, 0, v[0][0], v[0][1], R (8000, 16 * GIB), 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_SUSPEND), 0);
  ebb_pol_task_reclaimed (p, 6, 0, v[1][0], v[1][1], R (8000, 16 * GIB), 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 2), 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 3), 0);
  ebb_pol_free (p);
}

/* The node heap (policies/bigc-books.c) picks what the full scan picks: the node where the
 * demand fits with the most free CPU, the lowest id of equals; after marked changes, and
 * after a change of capacity nobody marks (p->cap_changes). */
static uint32_t
scan_best (const ebb_pol *p, ebb_pol_res d)
{
  uint32_t best = EBB_POL_NONE;
  for (uint32_t n = 0; n < p->params.nnodes; n++)
    if (ebb_pol_res_fits (d, p->node_free[n])
        && (best == EBB_POL_NONE || p->node_free[n].cpu_millis > p->node_free[best].cpu_millis))
      best = n;
  return best;
}

static void
test_nodes_best_is_the_scan (void)
{
  ebb_pol_params pp = bigc_params (40, R (4000, 8 * GIB), EBB_POL_BIGC_GP);
  ebb_pol_job jobs[1] = { J (1, 1, EBB_POL_CLASS_SHORT, R (1000, GIB)) };
  ebb_pol *p = bigc_new (&pp, jobs);
  ebb_pol_bigc_nodes m;
  ebb_pol_bigc_nodes_init (&m, p);
  uint32_t seed = 7;
  for (int round = 0; round < 400; round++)
    {
      seed = seed * 1103515245u + 12345u;
      uint32_t n = (seed >> 8) % 40;
      p->node_free[n]
          = R ((int64_t)((seed >> 4) % 9) * 500 - 500, (int64_t)((seed >> 12) % 9) * GIB);
      ebb_pol_bigc_nodes_mark (&m, n);
      if (round % 50 == 0)
        ebb_pol_node_capacity (p, (seed >> 16) % 40, R ((int64_t)(round % 3) * 4000, 8 * GIB));
      ebb_pol_res d = R ((int64_t)((seed >> 20) % 5) * 1000, (int64_t)((seed >> 24) % 4) * GIB);
      CU_ASSERT_EQUAL (ebb_pol_bigc_nodes_best (&m, p, d), scan_best (p, d));
    }
  ebb_pol_res sum = { 0, 0 };
  for (uint32_t n = 0; n < 40; n++)
    {
      sum.cpu_millis += p->node_free[n].cpu_millis > 0 ? p->node_free[n].cpu_millis : 0;
      sum.memory_bytes += p->node_free[n].memory_bytes > 0 ? p->node_free[n].memory_bytes : 0;
    }
  ebb_pol_res got = ebb_pol_bigc_nodes_free (&m, p);
  ASSERT_RES (got, sum.cpu_millis, sum.memory_bytes);
  ebb_pol_bigc_nodes_fini (&m);
  ebb_pol_free (p);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_computedr_vectors),
  EBB_CU_TEST (test_alg1),
  EBB_CU_TEST (test_no_preemption_when_short_fits),
  EBB_CU_TEST (test_idle_cluster_no_preemption),
  EBB_CU_TEST (test_victim_order_kill),
  EBB_CU_TEST (test_adopted_containers_are_victims),
  EBB_CU_TEST (test_gp_steps),
  EBB_CU_TEST (test_freeze_exclusion),
  EBB_CU_TEST (test_delayed_resumption),
  EBB_CU_TEST (test_arrival_preempt),
  EBB_CU_TEST (test_kill_attempts),
  EBB_CU_TEST (test_footprint_not_counted),
  EBB_CU_TEST (test_footprint_booked_when_asked),
  EBB_CU_TEST (test_suspended_room_two_shorts),
  EBB_CU_TEST (test_steps_make_room_per_node),
  EBB_CU_TEST (test_no_preemption_on_drained_node),
  EBB_CU_TEST (test_mode_checks),
  EBB_CU_TEST (test_tier_takes_lower_long),
  EBB_CU_TEST (test_tier_lower_never_preempts),
  EBB_CU_TEST (test_tier_lower_waits),
  EBB_CU_TEST (test_nodes_best_is_the_scan),
};

EBB_CU_MAIN ("bigc-alg", NULL, NULL, tests)
