/* hopper and srpt on hand-built cases: the virtual size and the allocation guidelines,
 * epsilon-fairness, a speculative copy that wins and the original killed (policy and
 * engine), probes and refusals in the decentralized mode, determinism per seed. */
#include "config.h"

#include "policies/hopper.h"
#include "policies/policy.h"
#include "policies/spec.h"
#include "sim/engine.h"
#include "sim/speculate.h"
#include "sim/trace.h"
#include "tests/cu.h"
#include "tests/policy-fixture.h"

#include <errno.h>
#include <math.h>

/* The progress every copy reports (the test plays the environment). */
static double fake_progress_value;

static double
fake_progress (void *ctx, uint32_t node, uint32_t job, uint32_t task, double now_sec)
{
  (void)ctx, (void)node, (void)job, (void)task, (void)now_sec;
  return fake_progress_value;
}

static ebb_pol *
make (const char *name, uint32_t nnodes, ebb_pol_job *jobs, uint32_t mode, double epsilon)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  p.nnodes = nnodes;
  p.net_delay_sec = 0.001;
  p.spec_mode = mode;
  p.epsilon = epsilon;
  p.progress = fake_progress;
  ebb_error *err = NULL;
  ebb_pol *pol = ebb_pol_new (name, &p, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (pol);
  return pol;
}

static void
test_virtual_size (void)
{
  CU_ASSERT_DOUBLE_EQUAL (ebb_spec_virtual_size (1.5, 3), 4.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL (ebb_spec_virtual_size (2.0, 7), 7.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL (ebb_spec_virtual_size (1.25, 10), 16.0, 1e-12);
  /* Past beta 2 the threshold is 1 slot per task: max(2 / beta, 1). */
  CU_ASSERT_DOUBLE_EQUAL (ebb_spec_virtual_size (4.0, 6), 6.0, 1e-12);
}

/* Guideline 2 (slots short of the sum of virtual sizes): the smallest jobs get their
 * virtual size each until slots run out. Guideline 3 (enough slots): proportional. */
static void
test_guidelines (void)
{
  const double v[3] = { 2, 4, 10 };
  uint32_t a[3];
  ebb_hopper_allocate (v, 3, 5, 1.0, a);
  CU_ASSERT (a[0] == 2 && a[1] == 3 && a[2] == 0);
  ebb_hopper_allocate (v, 3, 15, 1.0, a);
  CU_ASSERT (a[0] == 2 && a[1] == 4 && a[2] == 9);
  ebb_hopper_allocate (v, 3, 32, 1.0, a);
  CU_ASSERT (a[0] == 4 && a[1] == 8 && a[2] == 20);
  /* Floors: 2.5 x 2 = 5.0, 2.5 x 2.5 = 6.25, 2.5 x 5.5 = 13.75. */
  const double w[3] = { 2, 2.5, 5.5 };
  ebb_hopper_allocate (w, 3, 25, 1.0, a);
  CU_ASSERT (a[0] == 5 && a[1] == 6 && a[2] == 13);
}

/* Epsilon-fairness: a job below floor((1 - epsilon) S / N) is raised to it and the others
 * share the rest by the guidelines. */
static void
test_epsilon_allocation (void)
{
  const double v[3] = { 2, 4, 10 };
  uint32_t a[3];
  /* epsilon 0.1: fair = floor(0.9 x 6 / 3) = 1; the third job gets 1, the others share 5. */
  ebb_hopper_allocate (v, 3, 6, 0.1, a);
  CU_ASSERT (a[0] == 2 && a[1] == 3 && a[2] == 1);
  /* epsilon 0: perfectly fair, 2 each. */
  ebb_hopper_allocate (v, 3, 6, 0.0, a);
  CU_ASSERT (a[0] == 2 && a[1] == 2 && a[2] == 2);
  /* epsilon 1: the guidelines alone. */
  ebb_hopper_allocate (v, 3, 6, 1.0, a);
  CU_ASSERT (a[0] == 2 && a[1] == 4 && a[2] == 0);
}

/* Central hopper, 4 slots. Job A (3 tasks, V = 4) takes 3 slots and keeps the 4th for its
 * stragglers (Figure 2's budget). Job B (10 tasks) then arrives: with epsilon 1 the slot
 * stays A's; with epsilon 0 B is owed its fair share (2 of 4) and takes it. */
static void
run_fairness_case (double epsilon, size_t want_b)
{
  ebb_pol_job jobs[2] = { { .ntasks = 3, .est_task_sec = 1 }, { .ntasks = 10, .est_task_sec = 1 } };
  ebb_pol *p = make ("hopper", 4, jobs, EBB_POL_SPEC_CENTRAL, epsilon);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 3);
  ebb_pol_clear_actions (p);
  ebb_pol_job_arrived (p, 0.01, 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), want_b);
  ebb_pol_free (p);
}

static void
test_epsilon_fairness (void)
{
  run_fairness_case (1.0, 0);
  run_fairness_case (0.0, 1);
}

/* Figure 2's budget is what the job is owed, not every free slot. Central hopper, 10 slots,
 * epsilon 0. C (100 tasks) arrives first and takes all 10; A (3 tasks, V = 4) arrives: the
 * fair share (5 each) raises A to 5 and leaves C 5, so C is above its allotment. As C's
 * tasks end, A takes the first 3 freed slots, the 4th is kept for A's stragglers (A holds
 * 3 < V), and the 5th goes back to C, which has work: one slot idles, not two. */
static void
test_budget_owed (void)
{
  ebb_pol_job jobs[2]
      = { { .ntasks = 100, .est_task_sec = 1 }, { .ntasks = 3, .est_task_sec = 1 } };
  ebb_pol *p = make ("hopper", 10, jobs, EBB_POL_SPEC_CENTRAL, 0.0);
  fake_progress_value = 0; /* no copy is judged: A has nothing to run */
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 10);
  ebb_pol_job_arrived (p, 0.01, 1);
  ebb_pol_clear_actions (p);
  ebb_spec *s = p->priv;
  for (uint32_t k = 0; k < 5; k++)
    ebb_pol_task_finished (p, 0.1 + 0.01 * k, s->jobs[0].tasks[k].node[0], 0, k);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 3);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 1);
  CU_ASSERT_EQUAL (s->nidle, 1);
  ebb_pol_free (p);
}

/* Guideline 1 for a slot no allotment claims. Central hopper, 12 slots, epsilon 0. D
 * (3 tasks, V = 4) runs alone and gets a copy of its straggler: it holds 4 = V. A (1 task,
 * too young to judge) arrives, then B (30 tasks, V = 40): the fair share (4 each) raises A
 * to 4, leaving D 4 and B 4; A's share past its V is nobody's, so B takes 2 more slots and
 * one stays kept for A. LATE then names D's second straggler, and a task of B ends: the
 * freed slot is below no allotment (D and B hold theirs), and it goes to B's waiting
 * original (B holds fewer than V), not to a copy of D, which holds V already. */
static void
test_spare_slot_below_v (void)
{
  ebb_pol_job jobs[3] = { { .ntasks = 3, .est_task_sec = 1 },
                          { .ntasks = 1, .est_task_sec = 100 },
                          { .ntasks = 30, .est_task_sec = 1 } };
  ebb_pol *p = make ("hopper", 12, jobs, EBB_POL_SPEC_CENTRAL, 0.0);
  ebb_spec *s = p->priv;
  fake_progress_value = 0;
  ebb_pol_job_arrived (p, 0, 0);
  fake_progress_value = 0.1;
  ebb_pol_tick (p, 0.5);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 4);
  CU_ASSERT_EQUAL (p->stats.speculative_copies, 1);
  fake_progress_value = 0;
  ebb_pol_job_arrived (p, 0.6, 1);
  ebb_pol_job_arrived (p, 0.7, 2);
  CU_ASSERT_EQUAL (s->jobs[0].alloc, 4);
  CU_ASSERT_EQUAL (s->jobs[1].alloc, 4);
  CU_ASSERT_EQUAL (s->jobs[2].alloc, 4);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 2), 6);
  CU_ASSERT_EQUAL (s->nidle, 1);
  fake_progress_value = 0.1;
  ebb_pol_tick (p, 1.0);
  CU_ASSERT_EQUAL (s->jobs[0].ncand, 1); /* D's straggler, no slot for it yet */
  ebb_pol_clear_actions (p);
  uint32_t node = s->jobs[2].tasks[0].node[0];
  ebb_pol_task_finished (p, 1.0, node, 2, 0);
  ebb_pol_action a = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (a.job, 2);
  CU_ASSERT_EQUAL (a.arg, 6); /* B's next original */
  CU_ASSERT_EQUAL (p->stats.speculative_copies, 1);
  CU_ASSERT_EQUAL (s->nidle, 1); /* still kept for A */
  ebb_pol_free (p);
}

/* The same arrivals under srpt: best effort keeps nothing back, B takes the free slot. */
static void
test_srpt_keeps_nothing (void)
{
  ebb_pol_job jobs[2] = { { .ntasks = 3, .est_task_sec = 1 }, { .ntasks = 10, .est_task_sec = 1 } };
  ebb_pol *p = make ("srpt", 4, jobs, EBB_POL_SPEC_CENTRAL, 0.1);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_job_arrived (p, 0.01, 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 3);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 1);
  ebb_pol_free (p);
}

/* Best effort as Hopper's Figure 1a has it (section 3.1, footnote 2): A (4 tasks) and B (5)
 * on 7 slots; SRPT gives A 4 and B 3, B's last 2 wait. A straggler of A is found while
 * every slot is taken; when A's first task ends, the slot goes to A's copy "because its
 * remaining processing is smaller than job B's", ahead of B's waiting originals: a copy
 * competes in its job's SRPT turn, not below every original of every job (as in Spark's
 * scheduler, which offers a slot to the task sets in order, each running its pending
 * tasks first and its speculative ones next). */
static void
test_srpt_copy_in_turn (void)
{
  ebb_pol_job jobs[2] = { { .ntasks = 4, .est_task_sec = 1 }, { .ntasks = 5, .est_task_sec = 1 } };
  ebb_pol *p = make ("srpt", 7, jobs, EBB_POL_SPEC_CENTRAL, 0.1);
  fake_progress_value = 0;
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_job_arrived (p, 0, 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 4);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 3);
  ebb_pol_clear_actions (p);
  /* Every copy is slow (10% after 2 s): LATE names stragglers, but no slot is open. */
  fake_progress_value = 0.1;
  ebb_pol_tick (p, 2.0);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, EBB_POL_NONE), 0);
  ebb_spec *s = p->priv;
  uint32_t node = s->jobs[0].tasks[0].node[0];
  ebb_pol_task_finished (p, 10.0, node, 0, 0);
  ebb_pol_action copy = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (copy.job, 0);
  CU_ASSERT_EQUAL (copy.node, node);
  CU_ASSERT_NOT_EQUAL (copy.arg, 0);
  CU_ASSERT_EQUAL (p->stats.speculative_copies, 1);
  CU_ASSERT_EQUAL (p->jobs[1].launched, 3);
  ebb_pol_free (p);
}

/* One task on 2 nodes: at a heartbeat its copy is slow (10% done after 0.5 s: 4.5 s left),
 * LATE names it and the free node runs a copy; the copy finishes first and the policy
 * kills the original; the killed node is free again. */
static void
check_copy_kill (const char *name)
{
  ebb_pol_job jobs[1] = { { .ntasks = 1, .est_task_sec = 1 } };
  ebb_pol *p = make (name, 2, jobs, EBB_POL_SPEC_CENTRAL, 0.1);
  ebb_pol_job_arrived (p, 0, 0);
  ebb_pol_action orig = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (orig.arg, 0);
  ebb_pol_clear_actions (p);
  fake_progress_value = 0; /* no report yet: nothing to judge */
  ebb_pol_tick (p, 0.1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, EBB_POL_NONE), 0);
  fake_progress_value = 0.1;
  ebb_pol_tick (p, 0.5);
  ebb_pol_action copy = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (copy.job, 0);
  CU_ASSERT_EQUAL (copy.arg, 0);
  CU_ASSERT_NOT_EQUAL (copy.node, orig.node);
  CU_ASSERT_EQUAL (p->stats.speculative_copies, 1);
  ebb_pol_clear_actions (p);
  /* No third copy: LATE runs one speculative copy per task. */
  ebb_pol_tick (p, 0.6);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, EBB_POL_NONE), 0);
  ebb_pol_task_finished (p, 1.0, copy.node, 0, 0);
  ebb_pol_action kill = polfix_only (p, EBB_POL_ACT_KILL);
  CU_ASSERT_EQUAL (kill.node, orig.node);
  CU_ASSERT_EQUAL (kill.job, 0);
  CU_ASSERT_EQUAL (kill.arg, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_copy_killed (p, 1.001, orig.node, 0, 0);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, EBB_POL_NONE), 0);
  CU_ASSERT_EQUAL (jobs[0].finished, 1);
  ebb_pol_free (p);
}

static void
test_copy_kill (void)
{
  check_copy_kill ("srpt");
  check_copy_kill ("hopper");
}

/* A fast task is left alone: LATE speculates the slowest quarter only. 8 tasks all report
 * the same progress (a tie), so the slowest quarter is 2 tasks (ceil(8 / 4)): 2 copies
 * though 32 nodes are free. With 12 nodes, srpt's SpeculativeCap (10% of the slots) allows
 * one copy at a time. */
static void
check_late_quarter (uint32_t nnodes, size_t want)
{
  ebb_pol_job jobs[1] = { { .ntasks = 8, .est_task_sec = 1 } };
  ebb_pol *p = make ("srpt", nnodes, jobs, EBB_POL_SPEC_CENTRAL, 0.1);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 8);
  ebb_pol_clear_actions (p);
  fake_progress_value = 0.5;
  ebb_pol_tick (p, 0.5);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), want);
  CU_ASSERT_EQUAL (p->stats.speculative_copies, want);
  ebb_pol_free (p);
}

static void
test_late_quarter (void)
{
  check_late_quarter (40, 2);
  check_late_quarter (12, 1);
}

/* Delivers the PROBE actions, the i-th to node i % nnodes (the environment's part: where
 * a reservation lands is the sampling's business, not what these tests check). */
static void
deliver_probes (ebb_pol *p, double now)
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  ebb_pol_action *copy = malloc (sizeof *copy * (n ? n : 1));
  memcpy (copy, a, sizeof *copy * n);
  ebb_pol_clear_actions (p);
  for (size_t i = 0; i < n; i++)
    if (copy[i].kind == EBB_POL_ACT_PROBE)
      ebb_pol_probe_arrived (p, now, (uint32_t)(i % p->params.nnodes), copy[i].arg);
  free (copy);
}

/* Decentral: d reservations per task (hopper's --probes), srpt its probe ratio. */
static void
test_probe_counts (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 3, .est_task_sec = 1 } };
  ebb_pol *h = make ("hopper", 50, jobs, EBB_POL_SPEC_DECENTRAL, 0.1);
  ebb_pol_job_arrived (h, 0, 0);
  CU_ASSERT_EQUAL (polfix_count_job (h, EBB_POL_ACT_PROBE, 0), 12);
  ebb_pol_free (h);
  ebb_pol_job jobs2[1] = { { .ntasks = 3, .est_task_sec = 1 } };
  ebb_pol *s = make ("srpt", 50, jobs2, EBB_POL_SPEC_DECENTRAL, 0.1);
  ebb_pol_job_arrived (s, 0, 0);
  CU_ASSERT_EQUAL (polfix_count_job (s, EBB_POL_ACT_PROBE, 0), 6);
  ebb_pol_free (s);
}

/* Sparrow-SRPT places a copy as it places a task (Hopper section 7.1: best effort, copies
 * are ordinary tasks): when LATE names a straggler, the job's scheduler sends probe_ratio
 * reservations for it, once. 8 tasks on 40 nodes; their surplus reservations were spent on
 * "no task" answers, so without these probes no copy could start. Hopper sends none: its
 * own reservations stay queued (section 6.1). */
static size_t
copy_probes_case (const char *name, size_t *copies)
{
  ebb_pol_job jobs[1] = { { .ntasks = 8, .est_task_sec = 1 } };
  ebb_pol *p = make (name, 40, jobs, EBB_POL_SPEC_DECENTRAL, 0.1);
  fake_progress_value = 0;
  ebb_pol_job_arrived (p, 0, 0);
  deliver_probes (p, 0);
  CU_ASSERT_EQUAL (p->jobs[0].launched, 8);
  ebb_pol_clear_actions (p);
  fake_progress_value = 0.5;
  ebb_pol_tick (p, 0.5);
  size_t n, probes = 0;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  ebb_pol_action sent[8];
  for (size_t i = 0; i < n; i++)
    if (a[i].kind == EBB_POL_ACT_PROBE && probes < 8)
      sent[probes++] = a[i];
  ebb_pol_clear_actions (p);
  /* The same two stragglers at the next heartbeat: no new reservations. */
  ebb_pol_tick (p, 0.55);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_PROBE, 0), 0);
  ebb_pol_clear_actions (p);
  /* The reservations land on idle nodes (20 on) at once: each of the two stragglers gets
   * its copy there, the other two reservations find no task (LATE already looked now). */
  for (size_t i = 0; i < probes; i++)
    ebb_pol_probe_arrived (p, 0.55, (uint32_t)(20 + i), sent[i].arg);
  *copies = p->stats.speculative_copies;
  ebb_pol_free (p);
  return probes;
}

static void
test_srpt_copy_probes (void)
{
  size_t copies = 0;
  /* ceil(8 / 4) = 2 stragglers (a tie), 2 reservations each. */
  CU_ASSERT_EQUAL (copy_probes_case ("srpt", &copies), 4);
  CU_ASSERT_EQUAL (copies, 2);
  CU_ASSERT_EQUAL (copy_probes_case ("hopper", &copies), 0);
}

/* Sparrow-SRPT asks again for a straggler's copy once its job's reservations are all used
 * or spent: 8 tasks on 10 nodes (SpeculativeCap 1), one reservation a task (and a copy).
 * At 0.5 s LATE names 2 stragglers (a tie: ceil(8 / 4)), one reservation each; on node 8
 * the first gets its copy, the other finds the cap reached on node 9 and is spent. At the
 * next heartbeat both stragglers LATE names (the uncopied one of before and a new one) get
 * reservations (before: only the new one, so a straggler could run its whole Pareto tail
 * uncopied); while those are out, no more. Once the first copy wins, a renewed reservation starts
 * the next copy. */
static void
test_srpt_copy_probes_renewed (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 8, .est_task_sec = 1 } };
  ebb_pol_params prm;
  ebb_pol_params_default (&prm);
  prm.nnodes = 10;
  prm.net_delay_sec = 0.001;
  prm.spec_mode = EBB_POL_SPEC_DECENTRAL;
  prm.probe_ratio = 1;
  prm.progress = fake_progress;
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new ("srpt", &prm, jobs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  fake_progress_value = 0;
  ebb_pol_job_arrived (p, 0, 0);
  deliver_probes (p, 0);
  CU_ASSERT_EQUAL (p->jobs[0].launched, 8);
  fake_progress_value = 0.5;
  ebb_pol_tick (p, 0.5);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_PROBE, 0), 2);
  ebb_pol_action first = { 0 };
  {
    size_t n;
    const ebb_pol_action *a = ebb_pol_actions (p, &n);
    ebb_pol_action sent[2] = { 0 };
    size_t k = 0;
    for (size_t i = 0; i < n && k < 2; i++)
      if (a[i].kind == EBB_POL_ACT_PROBE)
        sent[k++] = a[i];
    CU_ASSERT_FATAL (k == 2);
    ebb_pol_clear_actions (p);
    ebb_pol_probe_arrived (p, 0.5, 8, sent[0].arg);
    first = polfix_only (p, EBB_POL_ACT_LAUNCH);
    ebb_pol_clear_actions (p);
    for (size_t i = 1; i < k; i++)
      ebb_pol_probe_arrived (p, 0.5, 9, sent[i].arg);
  }
  CU_ASSERT_EQUAL (first.node, 8);
  CU_ASSERT_EQUAL (p->stats.speculative_copies, 1);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, EBB_POL_NONE), 0);
  ebb_pol_tick (p, 0.6);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_PROBE, 0), 2);
  ebb_pol_action renewed[2];
  {
    size_t n, k = 0;
    const ebb_pol_action *a = ebb_pol_actions (p, &n);
    for (size_t i = 0; i < n && k < 2; i++)
      if (a[i].kind == EBB_POL_ACT_PROBE)
        renewed[k++] = a[i];
  }
  ebb_pol_clear_actions (p);
  ebb_pol_tick (p, 0.7);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_PROBE, 0), 0);
  /* The copy wins; the original's node frees when the KILL lands. */
  ebb_pol_task_finished (p, 1.0, first.node, 0, first.arg);
  ebb_pol_action kill = polfix_only (p, EBB_POL_ACT_KILL);
  ebb_pol_clear_actions (p);
  ebb_pol_copy_killed (p, 1.001, kill.node, 0, first.arg);
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, 1.001, 9, renewed[0].arg);
  ebb_pol_action next = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (next.node, 9);
  CU_ASSERT_NOT_EQUAL (next.arg, first.arg);
  CU_ASSERT_EQUAL (p->stats.speculative_copies, 2);
  ebb_pol_free (p);
}

/* Decentral hopper on 2 nodes (Pseudocode 2 and 3). Job C (2 tasks) takes both; A and B
 * (1 task each) queue reservations on both. When C's first task ends, its worker offers
 * the smallest job, A, which accepts (a task to run): one round trip. When C's second task
 * ends, the worker offers A first again; A's only task runs and reports no progress yet
 * (nothing to copy), so A's scheduler refuses, and B accepts: two round trips. */
static void
test_refusal (void)
{
  ebb_pol_job jobs[3] = { { .ntasks = 1, .est_task_sec = 1 },
                          { .ntasks = 1, .est_task_sec = 1 },
                          { .ntasks = 2, .est_task_sec = 1 } };
  /* Epsilon 1: no fair share, which would offer B (holding nothing) before A. */
  ebb_pol *p = make ("hopper", 2, jobs, EBB_POL_SPEC_DECENTRAL, 1.0);
  double net = p->params.net_delay_sec;
  fake_progress_value = 0;
  /* C (2 tasks) arrives first and takes both nodes (8 reservations over 2 nodes). */
  ebb_pol_job_arrived (p, 0, 2);
  deliver_probes (p, 0);
  CU_ASSERT_EQUAL_FATAL (p->jobs[2].launched, 2); /* holds for the test's seed */
  ebb_pol_clear_actions (p);
  /* A and B (1 task each, smaller than C) queue everywhere. */
  ebb_pol_job_arrived (p, 0.01, 0);
  deliver_probes (p, 0.01);
  ebb_pol_job_arrived (p, 0.02, 1);
  deliver_probes (p, 0.02);
  /* C's task 0 on node 0 finishes: node 0 serves A (smallest, pending): no refusal. */
  ebb_spec *s = p->priv;
  uint32_t n0 = s->jobs[2].tasks[0].node[0];
  ebb_pol_task_finished (p, 1.0, n0, 2, 0);
  ebb_pol_action la = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (la.job, 0);
  CU_ASSERT_DOUBLE_EQUAL (la.delay_sec, 2 * net, 1e-12);
  ebb_pol_clear_actions (p);
  /* C's task 1 finishes: the worker offers A first (1 task left, launched, no progress
   * report: nothing to run), A refuses; B accepts one round trip later. */
  uint32_t n1 = s->jobs[2].tasks[1].node[0];
  ebb_pol_task_finished (p, 1.5, n1, 2, 1);
  ebb_pol_action lb = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (lb.job, 1);
  CU_ASSERT_DOUBLE_EQUAL (lb.delay_sec, 4 * net, 1e-12);
  ebb_pol_free (p);
}

/* A refusal names the refusing scheduler's smallest unsatisfied job (job j belongs to
 * scheduler j mod 10). A (job 0, 2 tasks) runs on both nodes; K (job 10, same scheduler)
 * arrives, its reservations still on their way. When A's first task ends, the worker offers
 * A (nothing to run: refused, K named); after the one refusal allowed, it makes K a
 * non-refusable offer: three round trips, and K runs though it has no reservation there. */
static void
test_refusal_names_unsatisfied (void)
{
  ebb_pol_job jobs[11]
      = { [0] = { .ntasks = 2, .est_task_sec = 1 }, [10] = { .ntasks = 1, .est_task_sec = 1 } };
  ebb_pol *p = make ("hopper", 2, jobs, EBB_POL_SPEC_DECENTRAL, 1.0);
  p->params.refusals = 1;
  fake_progress_value = 0;
  ebb_pol_job_arrived (p, 0, 0);
  deliver_probes (p, 0);
  CU_ASSERT_EQUAL_FATAL (p->jobs[0].launched, 2);
  ebb_pol_job_arrived (p, 0.01, 10);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_PROBE, 10), 4);
  ebb_pol_clear_actions (p);
  ebb_spec *s = p->priv;
  ebb_pol_task_finished (p, 1.0, s->jobs[0].tasks[0].node[0], 0, 0);
  ebb_pol_action lk = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (lk.job, 10);
  CU_ASSERT_DOUBLE_EQUAL (lk.delay_sec, 6 * p->params.net_delay_sec, 1e-12);
  ebb_pol_free (p);
}

/* The same with epsilon 0.1: B holds less than its fair share (0.9 x 2 / 2 slots) and is
 * offered first, so nobody refuses. */
static void
test_fair_first (void)
{
  ebb_pol_job jobs[3] = { { .ntasks = 1, .est_task_sec = 1 },
                          { .ntasks = 1, .est_task_sec = 1 },
                          { .ntasks = 2, .est_task_sec = 1 } };
  ebb_pol *p = make ("hopper", 2, jobs, EBB_POL_SPEC_DECENTRAL, 0.1);
  fake_progress_value = 0;
  ebb_pol_job_arrived (p, 0, 2);
  deliver_probes (p, 0);
  ebb_pol_job_arrived (p, 0.01, 0);
  deliver_probes (p, 0.01);
  ebb_pol_job_arrived (p, 0.02, 1);
  deliver_probes (p, 0.02);
  ebb_spec *s = p->priv;
  ebb_pol_task_finished (p, 1.0, s->jobs[2].tasks[0].node[0], 2, 0);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 1.5, s->jobs[2].tasks[1].node[0], 2, 1);
  ebb_pol_action lb = polfix_only (p, EBB_POL_ACT_LAUNCH);
  CU_ASSERT_EQUAL (lb.job, 1);
  CU_ASSERT_DOUBLE_EQUAL (lb.delay_sec, 2 * p->params.net_delay_sec, 1e-12);
  ebb_pol_free (p);
}

/* The engine: one task of 10 s (the job's mean is 1 s) on 2 nodes. LATE copies it; the
 * copy (mean 1 s) finishes first, the original is killed: the job ends well before 10 s
 * and the engine counts one speculative copy. */
static void
check_engine_copy (const char *policy, uint32_t mode)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  double d = 10;
  ebb_sim_trace_add (t, 0, 1, 1, &d);
  ebb_sim_config cfg = { .policy = policy };
  ebb_pol_params_default (&cfg.pol);
  cfg.pol.nnodes = 2;
  cfg.pol.spec_mode = mode;
  ebb_sim_result res;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_sim_run (&cfg, t, &res, &err), 0);
  CU_ASSERT_EQUAL (res.speculative_copies, 1);
  CU_ASSERT_EQUAL (res.pol.kills, 1);
  CU_ASSERT_EQUAL (res.tasks, 2);
  CU_ASSERT (res.runtime_sec[0] < 10);
  /* Both copies ran until the winner finished (the loser a network delay longer). */
  CU_ASSERT (res.busy_sec > res.runtime_sec[0]);
  CU_ASSERT (res.busy_sec < 2 * res.runtime_sec[0] + 0.01);
  ebb_sim_result_clear (&res);
  ebb_sim_trace_free (t);
}

static void
test_engine_copy_wins (void)
{
  check_engine_copy ("srpt", EBB_POL_SPEC_CENTRAL);
  check_engine_copy ("hopper", EBB_POL_SPEC_CENTRAL);
  check_engine_copy ("hopper", EBB_POL_SPEC_DECENTRAL);
}

/* Copies draw Pareto durations with the job's mean: check the sample mean and minimum. */
static void
test_copy_durations (void)
{
  ebb_rng rng;
  ebb_rng_seed (&rng, 7);
  double sum = 0, min = INFINITY;
  for (int i = 0; i < 200000; i++)
    {
      double x = ebb_sim_spec_copy_duration (&rng, 2.0, 3.0);
      sum += x;
      min = fmin (min, x);
    }
  CU_ASSERT (min >= 2.0 * 2 / 3 - 1e-12);
  CU_ASSERT (fabs (sum / 200000 - 2.0) < 0.05);
}

static void
run_gen (uint64_t gen_seed, uint64_t seed, const char *policy, uint32_t mode, ebb_sim_result *res)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_rng rng;
  ebb_rng_seed (&rng, gen_seed);
  ebb_sim_gen_pareto (t, 200, 50, 0.8, 1.5, &rng);
  ebb_sim_config cfg = { .policy = policy };
  ebb_pol_params_default (&cfg.pol);
  cfg.pol.nnodes = 50;
  cfg.pol.seed = seed;
  cfg.pol.spec_mode = mode;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_sim_run (&cfg, t, res, &err), 0);
  ebb_sim_trace_free (t);
}

/* Same seeds, same results; another seed, other results. */
static void
test_determinism (void)
{
  for (uint32_t mode = 0; mode < 2; mode++)
    {
      ebb_sim_result a, b, c;
      run_gen (3, 1, "hopper", mode, &a);
      run_gen (3, 1, "hopper", mode, &b);
      run_gen (3, 2, "hopper", mode, &c);
      CU_ASSERT_EQUAL (a.njobs, 200);
      CU_ASSERT (memcmp (a.runtime_sec, b.runtime_sec, sizeof (double) * a.njobs) == 0);
      CU_ASSERT_EQUAL (a.speculative_copies, b.speculative_copies);
      CU_ASSERT (a.speculative_copies > 0);
      CU_ASSERT (memcmp (a.runtime_sec, c.runtime_sec, sizeof (double) * a.njobs) != 0);
      /* Every job ran to its end. */
      for (uint32_t j = 0; j < a.njobs; j++)
        CU_ASSERT (a.runtime_sec[j] > 0);
      ebb_sim_result_clear (&a);
      ebb_sim_result_clear (&b);
      ebb_sim_result_clear (&c);
    }
}

/* The generator: same seed, same trace; the load is what was asked (work / span / nodes). */
static void
test_gen_pareto (void)
{
  ebb_sim_trace *a = ebb_sim_trace_new (), *b = ebb_sim_trace_new ();
  ebb_rng r1, r2;
  ebb_rng_seed (&r1, 5);
  ebb_rng_seed (&r2, 5);
  ebb_sim_gen_pareto (a, 3000, 100, 0.6, 1.5, &r1);
  ebb_sim_gen_pareto (b, 3000, 100, 0.6, 1.5, &r2);
  CU_ASSERT_EQUAL_FATAL (a->ntasks_total, b->ntasks_total);
  CU_ASSERT (memcmp (a->dur_sec, b->dur_sec, sizeof (double) * a->ntasks_total) == 0);
  CU_ASSERT (memcmp (a->submit_sec, b->submit_sec, sizeof (double) * a->njobs) == 0);
  double work = 0;
  for (uint64_t i = 0; i < a->ntasks_total; i++)
    work += a->dur_sec[i];
  double span = a->submit_sec[a->njobs - 1] - a->submit_sec[0];
  double load = work / (span * 100);
  CU_ASSERT (load > 0.5 && load < 0.7);
  for (uint32_t j = 0; j < a->njobs; j++)
    CU_ASSERT (a->ntasks[j] >= 5 && a->ntasks[j] <= 1000);
  ebb_sim_trace_free (a);
  ebb_sim_trace_free (b);
}

/* The replay of a trace: its jobs' task counts in its order, the first arrival at 0, every
 * gap scaled by one factor, the load from the drawn work, the seed fixing the draws; and
 * the traces it refuses. */
static void
test_gen_pareto_replay (void)
{
  static const double at[] = { 5, 5, 6, 10, 30, 31.5 };
  static const uint32_t n[] = { 3, 1, 7, 2, 4, 1 };
  ebb_sim_trace *src = ebb_sim_trace_new ();
  for (size_t j = 0; j < EBB_ARRAY_SIZE (at); j++)
    ebb_sim_trace_add (src, at[j], 9, n[j], NULL);
  ebb_sim_trace *a = ebb_sim_trace_new (), *b = ebb_sim_trace_new ();
  ebb_rng r1, r2;
  ebb_rng_seed (&r1, 4);
  ebb_rng_seed (&r2, 4);
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_sim_gen_pareto_replay (a, src, 3, 0.6, 1.5, &r1, &err), 0);
  CU_ASSERT_EQUAL_FATAL (ebb_sim_gen_pareto_replay (b, src, 3, 0.6, 1.5, &r2, &err), 0);
  CU_ASSERT_EQUAL_FATAL (a->njobs, src->njobs);
  CU_ASSERT_EQUAL_FATAL (a->ntasks_total, src->ntasks_total);
  CU_ASSERT (memcmp (a->dur_sec, b->dur_sec, sizeof (double) * a->ntasks_total) == 0);
  CU_ASSERT (memcmp (a->submit_sec, b->submit_sec, sizeof (double) * a->njobs) == 0);
  double work = 0;
  for (uint64_t i = 0; i < a->ntasks_total; i++)
    {
      CU_ASSERT (a->dur_sec[i] >= 0.333); /* the Pareto scale (beta - 1) / beta, rounded */
      work += a->dur_sec[i];
    }
  double factor = a->submit_sec[5] / (31.5 - 5);
  for (uint32_t j = 0; j < a->njobs; j++)
    {
      CU_ASSERT_EQUAL (a->ntasks[j], n[j]);
      CU_ASSERT_DOUBLE_EQUAL (a->mean_sec[j], 1.0, 1e-12);
      CU_ASSERT_DOUBLE_EQUAL (a->submit_sec[j], (at[j] - 5) * factor, 1e-9);
    }
  /* Mean gap = mean work of a job / (load x nodes). */
  CU_ASSERT_DOUBLE_EQUAL (a->submit_sec[5] / 5, work / 6 / (0.6 * 3), 1e-9);
  /* Another seed, other durations, so another factor. */
  ebb_sim_trace *c = ebb_sim_trace_new ();
  ebb_rng_seed (&r1, 5);
  CU_ASSERT_EQUAL (ebb_sim_gen_pareto_replay (c, src, 3, 0.6, 1.5, &r1, &err), 0);
  CU_ASSERT (memcmp (a->dur_sec, c->dur_sec, sizeof (double) * a->ntasks_total) != 0);
  ebb_sim_trace_free (c);

  /* Refused: one job, arrivals out of order, every job at one time; nothing appended. */
  static const double bad_at[][2] = { { 5, 4 }, { 5, 5 } };
  for (size_t k = 0; k <= EBB_ARRAY_SIZE (bad_at); k++)
    {
      ebb_sim_trace *s = ebb_sim_trace_new (), *t = ebb_sim_trace_new ();
      ebb_sim_trace_add (s, k < EBB_ARRAY_SIZE (bad_at) ? bad_at[k][0] : 5, 1, 2, NULL);
      if (k < EBB_ARRAY_SIZE (bad_at))
        ebb_sim_trace_add (s, bad_at[k][1], 1, 2, NULL);
      CU_ASSERT_EQUAL (ebb_sim_gen_pareto_replay (t, s, 3, 0.6, 1.5, &r1, &err), -EINVAL);
      CU_ASSERT_PTR_NOT_NULL (err);
      CU_ASSERT_EQUAL (t->njobs, 0);
      ebb_error_free (&err);
      ebb_sim_trace_free (s);
      ebb_sim_trace_free (t);
    }
  ebb_sim_trace_free (src);
  ebb_sim_trace_free (a);
  ebb_sim_trace_free (b);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_virtual_size),
  EBB_CU_TEST (test_guidelines),
  EBB_CU_TEST (test_epsilon_allocation),
  EBB_CU_TEST (test_epsilon_fairness),
  EBB_CU_TEST (test_srpt_keeps_nothing),
  EBB_CU_TEST (test_srpt_copy_in_turn),
  EBB_CU_TEST (test_budget_owed),
  EBB_CU_TEST (test_spare_slot_below_v),
  EBB_CU_TEST (test_copy_kill),
  EBB_CU_TEST (test_late_quarter),
  EBB_CU_TEST (test_probe_counts),
  EBB_CU_TEST (test_srpt_copy_probes),
  EBB_CU_TEST (test_srpt_copy_probes_renewed),
  EBB_CU_TEST (test_refusal),
  EBB_CU_TEST (test_fair_first),
  EBB_CU_TEST (test_refusal_names_unsatisfied),
  EBB_CU_TEST (test_engine_copy_wins),
  EBB_CU_TEST (test_copy_durations),
  EBB_CU_TEST (test_determinism),
  EBB_CU_TEST (test_gen_pareto),
  EBB_CU_TEST (test_gen_pareto_replay),
};

EBB_CU_MAIN ("policy-hopper", NULL, NULL, tests)
