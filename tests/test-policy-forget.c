/* ebb_pol_job_forget in the policies the controller runs: a finished job's id goes back to
 * the environment, which gives it to the next job (as the controller does), and nothing the
 * policies decide changes for it. A small discrete-event driver plays one workload twice,
 * once with a fresh id for every job and once reusing forgotten ids, and the two runs must
 * take the same decisions in the same order. */
#include "config.h"

#include "policies/policy-impl.h" /* a unit test of the library: its insides */
#include "tests/cu.h"
#include "tests/policy-fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define D      0.0005
#define NJOBS  300
#define NNODES 50
#define MAXT   8

static const char *const slot_policies[] = { "fifo", "sparrow", "hawk", "eagle", "peacock" };

static ebb_pol *
make (const char *name, uint32_t nnodes, ebb_pol_job *jobs, int cancel, int resources)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  p.nnodes = nnodes;
  p.cancel_probes = cancel;
  p.cutoff_sec = 10;
  if (resources)
    p.node_cap = (ebb_pol_res){ 2000, 1LL << 30 };
  ebb_error *err = NULL;
  ebb_pol *pol = ebb_pol_new (name, &p, jobs, &err);
  ebb_error_free (&err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (pol);
  return pol;
}

/* ---- the driver ---- */

enum
{
  EV_ARRIVE = 100, /* job = the workload's job number */
  EV_FINISH,       /* node, job (policy id), arg = task */
};

typedef struct
{
  double t;
  uint64_t seq;
  uint32_t kind, node, job, arg;
} event;

/* What one action said, the job named by its number in the workload, not by its id. */
typedef struct
{
  double t;
  uint32_t kind, node, job, arg;
} record;

typedef struct
{
  ebb_pol *p;
  ebb_pol_job jobs[NJOBS];
  uint32_t number[NJOBS]; /* workload number of the job holding each id */
  event heap[NJOBS * MAXT * 8 + NJOBS];
  size_t nheap;
  uint64_t seq;
  record *rec;
  size_t nrec, cap_rec;
  int reuse;
  uint32_t free_ids[NJOBS], n_free, later[NJOBS], n_later, ids;
  uint32_t done;
} driver;

static int
before (const event *a, const event *b)
{
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void
push (driver *d, double t, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg)
{
  if (d->nheap == sizeof d->heap / sizeof d->heap[0])
    abort (); /* the workload is sized to fit */
  size_t i = d->nheap++;
  d->heap[i] = (event){ t, d->seq++, kind, node, job, arg };
  while (i > 0 && before (&d->heap[i], &d->heap[(i - 1) / 2]))
    {
      event x = d->heap[i];
      d->heap[i] = d->heap[(i - 1) / 2];
      d->heap[(i - 1) / 2] = x;
      i = (i - 1) / 2;
    }
}

static event
pop (driver *d)
{
  event top = d->heap[0];
  d->heap[0] = d->heap[--d->nheap];
  for (size_t i = 0;;)
    {
      size_t l = 2 * i + 1, r = l + 1, m = i;
      if (l < d->nheap && before (&d->heap[l], &d->heap[m]))
        m = l;
      if (r < d->nheap && before (&d->heap[r], &d->heap[m]))
        m = r;
      if (m == i)
        break;
      event x = d->heap[i];
      d->heap[i] = d->heap[m];
      d->heap[m] = x;
      i = m;
    }
  return top;
}

/* The workload: job k's task count, estimate and each task's duration (a fixed function of
 * k, so that both runs see the same jobs whatever ids they get). */
static uint32_t
ntasks_of (uint32_t k)
{
  return 1 + (k * 7 + 3) % MAXT;
}

static double
est_of (uint32_t k)
{
  return 2 + (double)((k * 13) % 17); /* 2 to 18 s: both sides of the cutoff of 10 */
}

static double
dur_of (uint32_t k, uint32_t task)
{
  return est_of (k) * (0.5 + (double)((k * 31 + task * 17) % 11) / 10);
}

static void
run_actions (driver *d, double now)
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (d->p, &n);
  for (size_t i = 0; i < n; i++)
    {
      record r = { now + a[i].delay_sec, a[i].kind, a[i].node, a[i].job, a[i].arg };
      if (a[i].kind != EBB_POL_ACT_STEAL) /* its job field is the victim node */
        r.job = d->number[a[i].job];
      if (d->nrec == d->cap_rec)
        {
          d->cap_rec = d->cap_rec ? 2 * d->cap_rec : 4096;
          d->rec = realloc (d->rec, d->cap_rec * sizeof *d->rec);
          CU_ASSERT_PTR_NOT_NULL_FATAL (d->rec);
        }
      d->rec[d->nrec++] = r;
      if (a[i].kind == EBB_POL_ACT_PROBE || a[i].kind == EBB_POL_ACT_WAKE)
        push (d, r.t, a[i].kind, a[i].node, a[i].job, a[i].arg);
      else if (a[i].kind == EBB_POL_ACT_LAUNCH)
        push (d, r.t + dur_of (d->number[a[i].job], a[i].arg), EV_FINISH, a[i].node, a[i].job,
              a[i].arg);
    }
  ebb_pol_clear_actions (d->p);
}

/* As the controller: a job is forgotten after its last task, or later while its probes hold
 * it back; its id goes to the next job. */
static void
forget_finished (driver *d, uint32_t id)
{
  if (d->jobs[id].finished == d->jobs[id].ntasks)
    d->later[d->n_later++] = id;
  for (uint32_t i = 0; i < d->n_later;)
    if (ebb_pol_job_forget (d->p, d->later[i]))
      d->free_ids[d->n_free++] = d->later[i], d->later[i] = d->later[--d->n_later];
    else
      i++;
}

/* Plays the workload through policy name; returns the driver (records kept). */
static void
play (driver *d, const char *name, int cancel, int reuse)
{
  memset (d, 0, sizeof *d);
  d->reuse = reuse;
  d->p = make (name, NNODES, d->jobs, cancel, 0);
  for (uint32_t k = 0; k < NJOBS; k++)
    push (d, 1.0 + k * 1.3, EV_ARRIVE, 0, k, 0);
  while (d->nheap > 0)
    {
      event e = pop (d);
      switch (e.kind)
        {
        case EV_ARRIVE:
          {
            uint32_t id = reuse && d->n_free ? d->free_ids[--d->n_free] : d->ids++;
            d->jobs[id] = (ebb_pol_job){ .submit_sec = e.t,
                                         .est_task_sec = est_of (e.job),
                                         .ntasks = ntasks_of (e.job) };
            d->number[id] = e.job;
            ebb_pol_job_arrived (d->p, e.t, id);
            break;
          }
        case EBB_POL_ACT_PROBE:
          ebb_pol_probe_arrived (d->p, e.t, e.node, e.arg);
          break;
        case EBB_POL_ACT_WAKE:
          ebb_pol_node_wake (d->p, e.t, e.node);
          break;
        case EV_FINISH:
          ebb_pol_task_finished (d->p, e.t, e.node, e.job, e.arg);
          d->done++;
          break;
        }
      run_actions (d, e.t);
      if (e.kind == EV_FINISH && reuse)
        forget_finished (d, e.job);
    }
}

static void
driver_free (driver *d)
{
  ebb_pol_free (d->p);
  free (d->rec);
}

static uint32_t
total_tasks (void)
{
  uint32_t n = 0;
  for (uint32_t k = 0; k < NJOBS; k++)
    n += ntasks_of (k);
  return n;
}

/* Reusing the forgotten ids changes no decision (the same actions, at the same times, for
 * the same jobs), and the ids stay few: what the policy keeps by job id stays small. */
static void
test_reuse_same_decisions (void)
{
  static driver fresh, reused;
  for (size_t i = 0; i < sizeof slot_policies / sizeof *slot_policies; i++)
    for (int cancel = 0; cancel < 2; cancel++)
      {
        play (&fresh, slot_policies[i], cancel, 0);
        play (&reused, slot_policies[i], cancel, 1);
        CU_ASSERT_EQUAL (fresh.done, total_tasks ());
        CU_ASSERT_EQUAL (reused.done, total_tasks ());
        CU_ASSERT_EQUAL (fresh.ids, NJOBS);
        /* At most the jobs under way at once: a few dozen, not one per job. */
        CU_ASSERT (reused.ids < NJOBS / 3);
        CU_ASSERT (reused.ids > 1);
        CU_ASSERT_EQUAL (reused.n_later, 0); /* every job forgotten in the end */
        CU_ASSERT_EQUAL (reused.n_free, reused.ids);
        CU_ASSERT_EQUAL_FATAL (fresh.nrec, reused.nrec);
        size_t diff = 0;
        for (size_t r = 0; r < fresh.nrec; r++)
          {
            const record *a = &fresh.rec[r], *b = &reused.rec[r];
            diff += a->t != b->t || a->kind != b->kind || a->node != b->node || a->job != b->job
                    || a->arg != b->arg;
          }
        CU_ASSERT_EQUAL (diff, 0);
        CU_ASSERT_EQUAL (fresh.p->stats.probes_sent, reused.p->stats.probes_sent);
        CU_ASSERT_EQUAL (fresh.p->stats.probes_surplus, reused.p->stats.probes_surplus);
        CU_ASSERT_EQUAL (fresh.p->stats.probes_cancelled, reused.p->stats.probes_cancelled);
        CU_ASSERT_EQUAL (fresh.p->stats.rotations, reused.p->stats.rotations);
        if (diff || fresh.nrec != reused.nrec)
          fprintf (stderr, "%s cancel=%d: %zu of %zu actions differ\n", slot_policies[i], cancel,
                   diff, fresh.nrec);
        driver_free (&fresh);
        driver_free (&reused);
      }
}

/* Forgetting a job whose tasks are not all finished is refused and leaves it as it was: it
 * still runs to its end, and is forgotten then (every policy the controller runs; a job
 * that never arrived is refused too). */
static void
test_forget_refused_while_running (void)
{
  static const char *const names[]
      = { "fifo", "sparrow", "hawk", "eagle", "peacock", "ebb", "bigc" };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    {
      int resources = i >= 5;
      ebb_pol_job jobs[2] = { { .ntasks = 2, .est_task_sec = 1, .demand = { 1000, 1 << 20 } } };
      ebb_pol *p = make (names[i], 4, jobs, 1, resources);
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* not arrived */
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 7), 0); /* out of range */
      ebb_pol_job_arrived (p, 0, 0);
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* pending */
      /* Deliver probes (at once) until both tasks are launched. */
      uint32_t nodes[2] = { EBB_POL_NONE, EBB_POL_NONE };
      for (int round = 0; round < 64 && (nodes[0] == EBB_POL_NONE || nodes[1] == EBB_POL_NONE);
           round++)
        {
          size_t n;
          const ebb_pol_action *a = ebb_pol_actions (p, &n);
          ebb_pol_action *copy = calloc (n ? n : 1, sizeof *copy);
          memcpy (copy, a, n * sizeof *copy);
          ebb_pol_clear_actions (p);
          for (size_t k = 0; k < n; k++)
            if (copy[k].kind == EBB_POL_ACT_LAUNCH && copy[k].arg < 2)
              nodes[copy[k].arg] = copy[k].node;
            else if (copy[k].kind == EBB_POL_ACT_PROBE)
              ebb_pol_probe_arrived (p, 0.001, copy[k].node, copy[k].arg);
            else if (copy[k].kind == EBB_POL_ACT_WAKE)
              ebb_pol_node_wake (p, 0.001, copy[k].node);
          free (copy);
        }
      CU_ASSERT_FATAL (nodes[0] != EBB_POL_NONE && nodes[1] != EBB_POL_NONE);
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* both running */
      ebb_pol_task_finished (p, 1, nodes[0], 0, 0);
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* one still running */
      CU_ASSERT_EQUAL (jobs[0].forgotten, 0);
      CU_ASSERT_EQUAL (jobs[0].launched, 2);
      if (resources)
        {
          /* Its state is all there: the running task still holds its node. */
          CU_ASSERT_PTR_NOT_NULL_FATAL (jobs[0].tasks);
          CU_ASSERT_EQUAL (jobs[0].tasks[1].state, EBB_POL_TASK_RUNNING);
        }
      ebb_pol_task_finished (p, 2, nodes[1], 0, 1);
      ebb_pol_clear_actions (p);
      /* eagle: its sticky probes leave at the nodes' scans; the others hold none by now. */
      if (ebb_pol_job_probes (p, 0) == 0)
        {
          CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 1);
          CU_ASSERT_EQUAL (jobs[0].forgotten, 1);
          CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* once */
          if (resources)
            CU_ASSERT_PTR_NULL (jobs[0].tasks);
        }
      else
        CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0);
      ebb_pol_free (p);
    }
}

/* A finished job's surplus probe still on its way holds the id: forgetting is refused until
 * the probe reached its node and found nothing (sparrow without cancellation). Then the id
 * is a new job's, which that probe never sees. */
static void
test_forget_waits_for_probes (void)
{
  ebb_pol_job jobs[1] = { { .ntasks = 1, .est_task_sec = 5 } };
  ebb_pol *p = make ("sparrow", 1, jobs, 0, 0);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL_FATAL (polfix_count (p, EBB_POL_ACT_PROBE), 2);
  CU_ASSERT_EQUAL (ebb_pol_job_probes (p, 0), 2);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  uint32_t first = a[0].arg, second = a[1].arg;
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, D, 0, first);
  ebb_pol_action l = polfix_sole (p);
  CU_ASSERT_EQUAL (l.kind, EBB_POL_ACT_LAUNCH);
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_job_probes (p, 0), 1);
  ebb_pol_task_finished (p, 6, 0, 0, 0);
  CU_ASSERT_EQUAL (jobs[0].finished, 1);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* the second probe is still on its way */
  CU_ASSERT_EQUAL (jobs[0].forgotten, 0);
  ebb_pol_probe_arrived (p, 6.5, 0, second);
  CU_ASSERT_EQUAL (polfix_sole (p).kind, EBB_POL_ACT_WAKE); /* surplus: a round trip */
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_job_probes (p, 0), 0);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 1);
  ebb_pol_node_wake (p, 6.5 + 2 * D, 0);
  /* The id again, a job of two tasks: its own probes bind both. */
  jobs[0] = (ebb_pol_job){ .ntasks = 2, .est_task_sec = 1 };
  ebb_pol_job_arrived (p, 7, 0);
  CU_ASSERT_EQUAL (jobs[0].forgotten, 0);
  CU_ASSERT_EQUAL (ebb_pol_job_probes (p, 0), 4);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0);
  ebb_pol_free (p);
}

/* The policy's consent: two copies of sparrow, one without forgets_jobs. The same finished
 * job with no probe left is forgotten by the one that sets it and kept by the other. */
static void
forget_with (int consent, int expect)
{
  ebb_pol_ops ops = ebb_pol_sparrow_ops;
  ops.forgets_jobs = consent;
  ebb_pol_params params;
  ebb_pol_params_default (&params);
  params.nnodes = 1;
  params.cancel_probes = 1;
  ebb_pol_job jobs[1] = { { .ntasks = 1, .est_task_sec = 1 } };
  ebb_pol *p = ebb_pol_new_ops (&ops, &params, jobs, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  ebb_pol_job_arrived (p, 0, 0);
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  uint32_t probes[2] = { a[0].arg, a[1].arg };
  ebb_pol_clear_actions (p);
  ebb_pol_probe_arrived (p, D, 0, probes[0]);
  ebb_pol_probe_arrived (p, D, 0, probes[1]); /* queued behind the task */
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 2, 0, 0, 0); /* the queued probe is cancelled: none left */
  CU_ASSERT_EQUAL (ebb_pol_job_probes (p, 0), 0);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), expect);
  CU_ASSERT_EQUAL (jobs[0].forgotten, expect);
  ebb_pol_free (p);
}

static void
test_forget_needs_policy_consent (void)
{
  forget_with (1, 1);
  forget_with (0, 0);
}

/* bigc: a job fails (kill_attempts 1: its first task killed, as on a lost node); bigc kills
 * its other container. The job never finishes every task, yet once that kill is reported
 * nothing of it is placed and it is forgotten (ops.forgets_failed_jobs), and its id serves a
 * new job to its end. A copy of bigc without forgets_failed_jobs keeps it. */
static void
forget_failed_with (int consent, int expect)
{
  ebb_pol_ops ops = ebb_pol_bigc_ops;
  ops.forgets_failed_jobs = consent;
  ebb_pol_params params;
  ebb_pol_params_default (&params);
  params.nnodes = 1;
  params.cutoff_sec = 10;
  params.kill_attempts = 1;
  params.bigc_mode = EBB_POL_BIGC_KILL;
  params.node_cap = (ebb_pol_res){ 2000, 1LL << 30 };
  ebb_pol_job jobs[2] = { { .ntasks = 2, .est_task_sec = 20, .demand = { 1000, 1 << 20 } } };
  ebb_pol *p = ebb_pol_new_ops (&ops, &params, jobs, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL_FATAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 2);
  ebb_pol_clear_actions (p);
  ebb_pol_task_killed (p, 1, 0, 0, 0);
  CU_ASSERT_EQUAL (jobs[0].failed, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_FAIL), 1);
  CU_ASSERT_EQUAL (polfix_only (p, EBB_POL_ACT_KILL).arg, 1); /* its other container */
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_job_placed (p, 0), 1);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* that kill is not reported yet */
  ebb_pol_task_killed (p, 2, 0, 0, 1);
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (jobs[0].finished, 0);
  CU_ASSERT_EQUAL (ebb_pol_job_placed (p, 0), 0);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), expect);
  CU_ASSERT_EQUAL (jobs[0].forgotten, expect);
  if (expect)
    {
      CU_ASSERT_PTR_NULL (jobs[0].tasks);
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* once */
      /* The id again, a short job of two tasks that fills the node; a second short job
       * waits for room. bigc preempts only long jobs: had the failed job stayed in its
       * running list, the id would make it take the short tasks for long containers. */
      jobs[0] = (ebb_pol_job){ .ntasks = 2, .est_task_sec = 2, .demand = { 1000, 1 << 20 } };
      jobs[1] = (ebb_pol_job){ .ntasks = 1, .est_task_sec = 2, .demand = { 1000, 1 << 20 } };
      ebb_pol_job_arrived (p, 3, 0);
      CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 2);
      ebb_pol_clear_actions (p);
      ebb_pol_job_arrived (p, 3.5, 1);
      ebb_pol_tick (p, 4);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_KILL), 0);
      CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
      ebb_pol_clear_actions (p);
      ebb_pol_task_finished (p, 5, 0, 0, 0);
      CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 1), 1); /* its room */
      ebb_pol_clear_actions (p);
      ebb_pol_task_finished (p, 6, 0, 0, 1);
      CU_ASSERT_EQUAL (jobs[0].failed, 0);
      CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 1);
    }
  ebb_pol_free (p);
}

/* ebb never kills, but a job fails when the environment reports its tasks killed (a lost
 * node): its task still queued is dropped then, never launched, and once its running task
 * ends nothing of it is placed and it is forgotten; its id then serves a new job. */
static void
test_forget_failed_job_ebb (void)
{
  ebb_pol_params params;
  ebb_pol_params_default (&params);
  params.nnodes = 1;
  params.cutoff_sec = 10;
  params.kill_attempts = 1;
  params.node_cap = (ebb_pol_res){ 2000, 1LL << 30 };
  ebb_pol_job jobs[1] = { { .ntasks = 3, .est_task_sec = 20, .demand = { 1000, 1 << 20 } } };
  ebb_error *err = NULL;
  ebb_pol *p = ebb_pol_new ("ebb", &params, jobs, &err);
  ebb_error_free (&err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (p);
  ebb_pol_job_arrived (p, 0, 0);
  CU_ASSERT_EQUAL_FATAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 2); /* the third one queued */
  uint32_t node = polfix_first (p, EBB_POL_ACT_LAUNCH).node;
  ebb_pol_clear_actions (p);
  ebb_pol_task_killed (p, 1, node, 0, 0);
  CU_ASSERT_EQUAL (jobs[0].failed, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0); /* the queued one is dropped */
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_job_placed (p, 0), 1);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 0); /* its second task still runs */
  ebb_pol_task_finished (p, 20, node, 0, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0);
  ebb_pol_clear_actions (p);
  CU_ASSERT_EQUAL (ebb_pol_job_placed (p, 0), 0);
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 1);
  CU_ASSERT_PTR_NULL (jobs[0].tasks);
  jobs[0] = (ebb_pol_job){ .ntasks = 2, .est_task_sec = 20, .demand = { 1000, 1 << 20 } };
  ebb_pol_job_arrived (p, 21, 0);
  CU_ASSERT_EQUAL (polfix_count_job (p, EBB_POL_ACT_LAUNCH, 0), 2);
  ebb_pol_clear_actions (p);
  ebb_pol_task_finished (p, 40, node, 0, 0);
  ebb_pol_task_finished (p, 41, node, 0, 1);
  CU_ASSERT_EQUAL (polfix_count (p, EBB_POL_ACT_LAUNCH), 0); /* nothing of the old job */
  CU_ASSERT_EQUAL (ebb_pol_job_forget (p, 0), 1);
  ebb_pol_free (p);
}

static void
test_forget_failed_job (void)
{
  forget_failed_with (1, 1);
  forget_failed_with (0, 0);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_reuse_same_decisions),    EBB_CU_TEST (test_forget_refused_while_running),
  EBB_CU_TEST (test_forget_waits_for_probes), EBB_CU_TEST (test_forget_needs_policy_consent),
  EBB_CU_TEST (test_forget_failed_job),       EBB_CU_TEST (test_forget_failed_job_ebb),
};

EBB_CU_MAIN ("policy-forget", NULL, NULL, tests)
