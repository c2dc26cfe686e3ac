/* CUnit suite of the controller's timed delivery of policy messages (controller/
 * sched-timed.c): the heap gives messages back by due time, those due at the same time in
 * the order they were pushed; and peacock, driven through the controller's core on a fake
 * cluster of 3 one-slot nodes (no agents: launches stay in the outbox, task ends are told
 * by hand) with its rounds 0.05 s apart on a real sd-event loop: probes wait for their
 * delay, a probe rotated off a busy node travels the ring one node a round, each round's
 * carrier due one network delay after the round's boundary, and reaches a freed node only
 * with its round; more tasks than nodes all launch, each exactly once, and so do the tasks
 * whose probes were in flight when the controller stopped, once it restarts on its store. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/ctl.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "controller/options.h"
#include "lib/rng.h"
#include "lib/time.h"
#include "lib/util.h"
#include "tests/ctl-fixture.h"
#include "tests/cu.h"

#define ROUND_SEC 0.05
#define NET_SEC   0.0005 /* ebb_pol_params_default's net delay */

static int
init (void)
{
  /* A policy message delivered out of its round can make peacock pass a probe round and
   * round the ring for ever: ended by SIGALRM (a failure), not hung. */
  alarm (120);
  return ctlfix_init ("/tmp/ebb-ctl-timed.XXXXXX");
}

static double
wall (void)
{
  return (double)ebb_now_usec () / 1e6;
}

/* Messages pushed in a random order with few distinct due times come back by due, those
 * of one due in push order, and only once due. */
static void
test_heap_order (void)
{
  ebb_ctl c = { 0 };
  ebb_rng rng;
  ebb_rng_seed (&rng, 7);
  enum
  {
    N = 5000
  };
  for (uint32_t i = 0; i < N; i++)
    {
      ebb_ctl_pevent e = { EBB_POL_ACT_PROBE, 0, 0, i };
      ebb_ctl_timed_push (&c, 1.0 + (double)ebb_rng_below (&rng, 40) * 0.25, &e);
    }
  CU_ASSERT_EQUAL (c.timed.n, N);
  ebb_ctl_timed m;
  CU_ASSERT_FALSE (ebb_ctl_timed_pop (&c, 0.99, &m)); /* nothing due yet */
  double last_due = 0;
  uint32_t last_arg = 0, n = 0, bad = 0;
  while (ebb_ctl_timed_pop (&c, 100, &m))
    {
      if (m.due < last_due || (m.due == last_due && n && m.ev.arg <= last_arg))
        bad++;
      last_due = m.due;
      last_arg = m.ev.arg;
      n++;
    }
  CU_ASSERT_EQUAL (n, N);
  CU_ASSERT_EQUAL (bad, 0);
  /* Due at 2.0 and 1.5: only the earlier is due at 1.7. */
  ebb_ctl_timed_push (&c, 2.0, &(ebb_ctl_pevent){ EBB_POL_ACT_WAKE, 1, 0, 0 });
  ebb_ctl_timed_push (&c, 1.5, &(ebb_ctl_pevent){ EBB_POL_ACT_WAKE, 2, 0, 0 });
  CU_ASSERT_TRUE (ebb_ctl_timed_pop (&c, 1.7, &m));
  CU_ASSERT_EQUAL (m.ev.node, 2);
  CU_ASSERT_FALSE (ebb_ctl_timed_pop (&c, 1.7, &m));
  ebb_ctl_timed_clear (&c);
  CU_ASSERT_EQUAL (c.timed.n, 0);
  ebb_ctl_timed_free (&c);
}

static ebb_ctl_config cfg;

/* A controller core on the suite's store, running peacock with rounds of ROUND_SEC, with
 * an sd-event loop of its own for the timer. */
static ebb_ctl *
ctl_new (void)
{
  ebb_ctl *c = ctlfix_ctl_new (&cfg, "state", "peacock");
  /* Probes to distinct nodes (ebb-sim's default samples with replacement). */
  char *opts[] = { "rotation-interval=0.05", "sample=without", NULL };
  CU_ASSERT_EQUAL (ebb_ctl_policy_params (opts, &c->params, NULL), 0);
  CU_ASSERT_EQUAL (c->params.rotation_interval_sec, ROUND_SEC);
  CU_ASSERT_EQUAL (c->params.net_delay_sec, NET_SEC);
  ctlfix_ctl_open (c);
  CU_ASSERT_EQUAL (sd_event_new (&c->event), 0);
  return c;
}

/* Nodes n0, n1, n2 report with one CPU each: one slot each for the policy. */
static void
nodes_report (ebb_ctl *c, int seq)
{
  ctlfix_nodes_report (c, 3, 1000, INT64_C (1073741824), seq);
}

/* Submits a job of ntasks tasks of est seconds each, as POST /v1/jobs does. */
static ebb_ctl_job *
submit (ebb_ctl *c, const char *name, uint32_t ntasks, double est)
{
  ebb_ctl_job *j = ctlfix_job_new (c->next_job_id++, name, CLS_SHORT, ntasks);
  j->est_task_sec = est;
  for (uint32_t k = 0; k < ntasks; k++)
    {
      ebb_ctl_task *t = &j->tasks[k];
      t->cpu_millis = 100;
      t->memory_bytes = 4 << 20;
      t->spec = json_tokener_parse ("{\"argv\":[\"x\"],\"cpu_millis\":100,"
                                    "\"memory_bytes\":4194304}");
    }
  ebb_ctl_store_job (c, j);
  for (uint32_t k = 0; k < ntasks; k++)
    ebb_ctl_task_write (c, &j->tasks[k]);
  ebb_ctl_add_job (c, j);
  ebb_ctl_sched_job (c, j);
  return j;
}

static uint32_t
started (const ebb_ctl_job *j)
{
  uint32_t n = 0;
  for (uint32_t k = 0; k < j->ntasks; k++)
    n += j->tasks[k].state != TASK_PENDING;
  return n;
}

/* Runs the loop (the timer) until `until` (the wall clock) or, when j is not NULL, until j
 * has `want` tasks started. Returns whether that happened. */
static bool
run_loop (ebb_ctl *c, double until, const ebb_ctl_job *j, uint32_t want)
{
  for (;;)
    {
      if (j && started (j) >= want)
        return true;
      double now = wall ();
      if (now >= until)
        return j == NULL;
      CU_ASSERT_FATAL (sd_event_run (c->event, (uint64_t)((until - now) * 1e6) + 1) >= 0);
    }
}

/* What wait_for saw. */
enum
{
  WAIT_DONE,  /* it happened, never seen before not_before */
  WAIT_EARLY, /* it happened and a loop turn that ended before not_before saw it: too early */
  WAIT_NEVER, /* not within a second */
};

/* Runs the loop until the timer has delivered `delivered` messages, or (j not NULL) j has
 * a task started. Reports too early only what certainly was (seen while the wall clock was
 * still before not_before): a loaded host may run a turn late, never early. */
static int
wait_for (ebb_ctl *c, uint64_t delivered, const ebb_ctl_job *j, double not_before)
{
  double until = wall () + 1;
  for (;;)
    {
      bool done = j ? started (j) > 0 : c->timed_delivered >= delivered;
      if (done)
        return wall () < not_before ? WAIT_EARLY : WAIT_DONE;
      double now = wall ();
      if (now >= until)
        return WAIT_NEVER;
      CU_ASSERT_FATAL (sd_event_run (c->event, (uint64_t)((until - now) * 1e6) + 1) >= 0);
    }
}

/* Ends every started task of job j that has not ended (as its agent's report would). */
static void
finish_started (ebb_ctl *c, ebb_ctl_job *j)
{
  for (uint32_t k = 0; k < j->ntasks; k++)
    if (ebb_ctl_task_active (&j->tasks[k]))
      ebb_ctl_finish_task (c, &j->tasks[k], TASK_EXITED, "test");
}

/* Runs the loop, ending the tasks of j as they start, until all have started (5 s at most).
 * Returns whether they did. */
static bool
run_all (ebb_ctl *c, ebb_ctl_job *j)
{
  double until = wall () + 5;
  while (started (j) < j->ntasks && wall () < until)
    {
      run_loop (c, fmin (until, wall () + 0.01), j, j->ntasks);
      finish_started (c, j);
    }
  finish_started (c, j);
  return started (j) == j->ntasks;
}

/* Every task of j started exactly once (one generation) and ended. */
static bool
launched_once (const ebb_ctl_job *j)
{
  bool ok = true;
  for (uint32_t k = 0; k < j->ntasks; k++)
    ok = ok && j->tasks[k].generation == 1 && j->tasks[k].state == TASK_EXITED;
  return ok;
}

/* Returns the slot the timed heap's earliest message goes to, and its due in *due. */
static uint32_t
next_hop (const ebb_ctl *c, double *due)
{
  CU_ASSERT_FATAL (c->timed.n > 0);
  *due = c->timed.ev[0].due;
  return c->timed.ev[0].ev.node;
}

/* The instant due is past the last round boundary (in rounds). */
static double
past_boundary (double due)
{
  double r = due / ROUND_SEC;
  return r - floor (r);
}

static void
test_peacock_rounds (void)
{
  ebb_ctl *c = ctl_new ();
  nodes_report (c, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c->pol);
  CU_ASSERT_EQUAL_FATAL (c->n_slots, 3);
  CU_ASSERT_EQUAL (ebb_pol_ops_of (c->pol)->timed_probes, 1);

  /* Job A, a task per node: its probes wait for their network delay; at once, they would
   * have launched before sched_job returned. */
  double t0 = wall ();
  ebb_ctl_job *a = submit (c, "a", 3, 1.0);
  CU_ASSERT_EQUAL (started (a), 0);
  CU_ASSERT_EQUAL_FATAL (c->timed.n, 3);
  CU_ASSERT_PTR_NOT_NULL (c->timed_src);
  CU_ASSERT_TRUE (run_loop (c, t0 + 1, a, 3));
  CU_ASSERT (wall () >= t0 + NET_SEC);
  CU_ASSERT_EQUAL (c->timed_delivered, 3);
  bool seen[3] = { false, false, false };
  for (uint32_t k = 0; k < 3; k++)
    if (a->tasks[k].slot < 3)
      seen[a->tasks[k].slot] = true;
  CU_ASSERT (seen[0] && seen[1] && seen[2]); /* one on each node */

  /* Job B, one long task: its estimate over the average load, no node keeps its probe,
   * which goes round the ring: each hop to the next node, its carrier due one network
   * delay after a round's boundary, one round after the last. */
  ebb_ctl_job *b = submit (c, "b", 1, 10.0);
  CU_ASSERT_EQUAL (c->timed.n, 1);
  CU_ASSERT_EQUAL (wait_for (c, c->timed_delivered + 1, NULL, 0), WAIT_DONE); /* it lands */
  CU_ASSERT_EQUAL (started (b), 0);
  CU_ASSERT (ebb_pol_stats_of (c->pol)->rotations >= 1);
  double due;
  uint32_t node = next_hop (c, &due);
  CU_ASSERT_EQUAL (c->timed.n, 1);
  CU_ASSERT (due > wall ());
  CU_ASSERT (fabs (past_boundary (due) - NET_SEC / ROUND_SEC) < 1e-6);
  for (int hop = 0; hop < 3; hop++)
    {
      double before = due;
      uint32_t from = node;
      CU_ASSERT_EQUAL (wait_for (c, c->timed_delivered + 1, NULL, before), WAIT_DONE);
      node = next_hop (c, &due);
      CU_ASSERT_EQUAL (node, (from + 1) % 3);
      /* The next round, even when the timer fired late: delivered at its due time. */
      CU_ASSERT (fabs (due - (before + ROUND_SEC)) < 1e-6);
    }
  CU_ASSERT_EQUAL (started (b), 0);

  /* A's task on the node after next ends: the probe gets there two rounds later, with the
   * delivery of that round's carrier, not before. */
  uint32_t freed = (node + 1) % 3;
  ebb_ctl_task *leaving = NULL;
  for (uint32_t k = 0; k < 3; k++)
    if (a->tasks[k].slot == freed)
      leaving = &a->tasks[k];
  CU_ASSERT_PTR_NOT_NULL_FATAL (leaving);
  ebb_ctl_finish_task (c, leaving, TASK_EXITED, "test");
  CU_ASSERT_EQUAL (started (b), 0);
  double arrives = due + ROUND_SEC;
  uint64_t hops = c->timed_delivered;
  CU_ASSERT_EQUAL (wait_for (c, 0, b, arrives), WAIT_DONE);
  CU_ASSERT_EQUAL (c->timed_delivered, hops + 2); /* the hop to node, then to freed */
  CU_ASSERT_EQUAL (b->tasks[0].slot, freed);
  CU_ASSERT (b->tasks[0].state == TASK_STARTING);

  /* Job C: more tasks than nodes, once A and B ended: all launch, each once. */
  finish_started (c, a);
  finish_started (c, b);
  ebb_ctl_job *jc = submit (c, "c", 7, 0.5);
  CU_ASSERT_TRUE (run_all (c, jc));
  CU_ASSERT (launched_once (a) && launched_once (b) && launched_once (jc));
  CU_ASSERT_EQUAL (c->m.launches, 3 + 1 + 7);
  /* Policy time never went back, and the heap is empty once all is placed. */
  CU_ASSERT (c->pol_last <= wall ());
  CU_ASSERT_EQUAL (c->timed.n, 0);

  /* Job D: submitted, its probes in flight when the controller stops. The store has its
   * tasks pending; the restarted controller queues them again at its first heartbeats,
   * and each launches once. */
  ebb_ctl_job *d = submit (c, "d", 4, 0.5);
  uint64_t did = d->id;
  CU_ASSERT_EQUAL (c->timed.n, 4); /* a probe per task */
  CU_ASSERT_EQUAL (started (d), 0);
  ebb_ctl_store_commit (c);
  ctlfix_ctl_del (c);
  c = ctl_new ();
  d = ebb_ctl_job_find (c, did);
  CU_ASSERT_PTR_NOT_NULL_FATAL (d);
  CU_ASSERT_EQUAL (started (d), 0);
  CU_ASSERT_EQUAL (c->timed.n, 0);
  nodes_report (c, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c->pol);
  CU_ASSERT_EQUAL (c->timed.n, 4); /* queued again: new probes */
  CU_ASSERT_TRUE (run_all (c, d));
  CU_ASSERT (launched_once (d));
  CU_ASSERT_EQUAL (c->m.launches, 4);
  ctlfix_ctl_del (c);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_heap_order),
  EBB_CU_TEST (test_peacock_rounds),
};

EBB_CU_MAIN ("controller-timed", init, ctlfix_clean, tests)
