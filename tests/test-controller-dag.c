/* CUnit suite of DAG jobs in the controller (controller/sched-dag.c, the "deps" of POST
 * /v1/jobs in api-jobs.c): graphene driven through the controller's core on a fake cluster
 * of 2 nodes (no agents: launches stay in the outbox, task ends are told by hand). A
 * diamond starts each task only once its parents ended, each once; cycles, duplicate and
 * out-of-range edges are refused, and so are edges for a policy that ignores them; after a
 * restart with a job half done, its tasks still wait for their parents, running or not; and
 * so do those of random DAGs ended in a random order with a restart halfway. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/rng.h"
#include "lib/util.h"
#include "tests/ctl-fixture.h"
#include "tests/cu.h"

static int
init (void)
{
  return ctlfix_init ("/tmp/ebb-ctl-dag.XXXXXX");
}

static ebb_ctl_config cfg;

/* A controller core on store `state` (a fresh one: removed first) running policy. */
static ebb_ctl *
ctl_new (const char *state, bool fresh, const char *policy)
{
  ebb_ctl *c = ctlfix_ctl_new (&cfg, state, policy);
  if (fresh)
    {
      cleanup_free char *cmd = ebb_xasprintf ("rm -rf '%s'", cfg.state_dir);
      CU_ASSERT_EQUAL (system (cmd), 0);
    }
  ctlfix_ctl_open (c);
  return c;
}

/* Nodes n0 and n1 report with 16 CPUs each: room for every task of the jobs below at once
 * (40 of 500 millicores at most), so that only the edges hold a task back. */
static void
nodes_report (ebb_ctl *c, int seq)
{
  ctlfix_nodes_report (c, 2, 16000, INT64_C (4294967296), seq);
}

/* The body of POST /v1/jobs: ntasks tasks and the given "deps" (JSON text, NULL: none). */
static json_object *
body (uint32_t ntasks, const char *deps)
{
  cleanup_free char *tasks = ebb_xstrdup ("");
  for (uint32_t k = 0; k < ntasks; k++)
    {
      char *next = ebb_xasprintf ("%s%s{\"argv\":[\"/bin/true\"],\"cpu_millis\":500,"
                                  "\"memory_bytes\":4194304,\"net_mbps\":10,\"stage\":%u}",
                                  tasks, k ? "," : "", k);
      free (tasks);
      tasks = next;
    }
  cleanup_free char *text = ebb_xasprintf ("{\"est_task_sec\":1,\"tasks\":[%s]%s%s}", tasks,
                                           deps ? ",\"deps\":" : "", deps ? deps : "");
  return json_tokener_parse (text);
}

/* Submits as the handler does after validation; NULL (and the message in *msg) if refused. */
static ebb_ctl_job *
submit (ebb_ctl *c, uint32_t ntasks, const char *deps, char **msg)
{
  json_object *b = body (ntasks, deps);
  CU_ASSERT_PTR_NOT_NULL_FATAL (b);
  ebb_error *err = NULL;
  ebb_ctl_job *j = ebb_ctl_api_job_new (c, b, &err);
  json_object_put (b);
  if (msg)
    *msg = j ? NULL : ebb_xstrdup (ebb_error_msg (&err));
  ebb_error_free (&err);
  if (!j)
    return NULL;
  ebb_ctl_store_job (c, j);
  for (uint32_t k = 0; k < j->ntasks; k++)
    ebb_ctl_task_write (c, &j->tasks[k]);
  ebb_ctl_add_job (c, j);
  ebb_ctl_sched_job (c, j);
  return j;
}

/* Bit k set: task k started (left pending). */
static unsigned
started (const ebb_ctl_job *j)
{
  unsigned m = 0;
  for (uint32_t k = 0; k < j->ntasks; k++)
    m |= (unsigned)(j->tasks[k].state != TASK_PENDING) << k;
  return m;
}

static void
finish (ebb_ctl *c, ebb_ctl_job *j, uint32_t k)
{
  CU_ASSERT_FATAL (ebb_ctl_task_active (&j->tasks[k]));
  ebb_ctl_finish_task (c, &j->tasks[k], TASK_EXITED, "test");
}

static bool
launched_once (const ebb_ctl_job *j)
{
  bool ok = true;
  for (uint32_t k = 0; k < j->ntasks; k++)
    ok = ok && j->tasks[k].generation == 1 && j->tasks[k].state == TASK_EXITED;
  return ok;
}

#define DIAMOND "[[0,1],[0,2],[1,3],[2,3]]"

static void
test_diamond (void)
{
  ebb_ctl *c = ctl_new ("diamond", true, "graphene");
  nodes_report (c, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c->pol);
  CU_ASSERT_EQUAL (ebb_pol_ops_of (c->pol)->dag, 1);
  ebb_ctl_job *j = submit (c, 4, DIAMOND, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (j);
  CU_ASSERT_EQUAL (j->nedges, 4);
  CU_ASSERT_EQUAL (j->tasks[3].net_mbps, 10);
  /* Net and stage move to the controller's "dag" member (not sent to the agent). */
  CU_ASSERT_FALSE (json_object_object_get_ex (j->tasks[3].spec, "net_mbps", NULL));
  CU_ASSERT_TRUE (json_object_object_get_ex (j->tasks[3].spec, "dag", NULL));
  CU_ASSERT_EQUAL (started (j), 1u); /* the root only */
  finish (c, j, 0);
  CU_ASSERT_EQUAL (started (j), 0x7u); /* both middle tasks, not the sink */
  finish (c, j, 1);
  CU_ASSERT_EQUAL (started (j), 0x7u); /* the sink waits for 2 too */
  finish (c, j, 2);
  CU_ASSERT_EQUAL (started (j), 0xfu);
  finish (c, j, 3);
  CU_ASSERT (launched_once (j));
  /* A DAG policy takes a job without deps: every task at once. */
  ebb_ctl_job *flat = submit (c, 3, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (flat);
  CU_ASSERT_EQUAL (started (flat), 0x7u);
  ctlfix_ctl_del (c);
}

/* Returns whether deps over ntasks are refused with a message containing want. */
static bool
refused (ebb_ctl *c, uint32_t ntasks, const char *deps, const char *want)
{
  char *msg = NULL;
  ebb_ctl_job *j = submit (c, ntasks, deps, &msg);
  bool ok = !j && msg && strstr (msg, want);
  if (!ok)
    fprintf (stderr, "deps %s: %s\n", deps, msg ? msg : "accepted");
  free (msg);
  return ok;
}

static void
test_refused (void)
{
  ebb_ctl *c = ctl_new ("refused", true, "graphene");
  CU_ASSERT (refused (c, 4, "[[0,1],[1,2],[2,0]]", "cycle"));
  CU_ASSERT (refused (c, 2, "[[1,1]]", "cycle"));
  CU_ASSERT (refused (c, 3, "[[0,1],[0,1]]", "twice"));
  CU_ASSERT (refused (c, 3, "[[0,3]]", "[0, 3)"));
  CU_ASSERT (refused (c, 3, "[[0,-1]]", "[0, 3)"));
  CU_ASSERT (refused (c, 3, "[[0,\"1\"]]", "[0, 3)"));
  CU_ASSERT (refused (c, 3, "[[0,1,2]]", "pair"));
  CU_ASSERT (refused (c, 3, "{}", "pairs"));
  CU_ASSERT_EQUAL (c->n_jobs, 0);
  ctlfix_ctl_del (c);
  /* Hawk ignores edges: a job with some is refused, one without runs. */
  c = ctl_new ("refused-hawk", true, "hawk");
  CU_ASSERT (refused (c, 4, DIAMOND, "ignores task dependencies"));
  CU_ASSERT_PTR_NOT_NULL (submit (c, 4, "[]", NULL)); /* no edge: accepted */
  ctlfix_ctl_del (c);
}

static void
test_restart (void)
{
  ebb_ctl *c = ctl_new ("restart", true, "graphene");
  nodes_report (c, 1);
  /* A diamond with its root and one middle task done, the other running; a chain with its
   * head running. */
  ebb_ctl_job *d = submit (c, 4, DIAMOND, NULL), *ch = submit (c, 3, "[[0,1],[1,2]]", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (d);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ch);
  uint64_t did = d->id, cid = ch->id;
  finish (c, d, 0);
  finish (c, d, 1);
  CU_ASSERT_EQUAL (started (d), 0x7u);
  CU_ASSERT_EQUAL (started (ch), 0x1u);
  ebb_ctl_store_commit (c);
  ctlfix_ctl_del (c);

  c = ctl_new ("restart", false, "graphene");
  d = ebb_ctl_job_find (c, did);
  ch = ebb_ctl_job_find (c, cid);
  CU_ASSERT_PTR_NOT_NULL_FATAL (d);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ch);
  CU_ASSERT_EQUAL (d->nedges, 4); /* read back from the store */
  CU_ASSERT_EQUAL (ch->nedges, 2);
  CU_ASSERT_EQUAL (d->tasks[2].net_mbps, 10);
  CU_ASSERT_EQUAL (d->tasks[2].stage, 2);
  nodes_report (c, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c->pol);
  /* Pending tasks whose parent still runs (not in the new batch) wait. */
  CU_ASSERT_EQUAL (started (d), 0x7u);
  CU_ASSERT_EQUAL (started (ch), 0x1u);
  CU_ASSERT (d->tasks[3].dag_held && ch->tasks[1].dag_held && ch->tasks[2].dag_held);
  CU_ASSERT (d->n_held == 1 && ch->n_held == 2);
  finish (c, d, 2);
  CU_ASSERT_EQUAL (started (d), 0xfu);
  finish (c, ch, 0);
  CU_ASSERT_EQUAL (started (ch), 0x3u); /* its child, not the grandchild */
  finish (c, ch, 1);
  CU_ASSERT_EQUAL (started (ch), 0x7u);
  CU_ASSERT (d->n_held == 0 && ch->n_held == 0);
  finish (c, d, 3);
  finish (c, ch, 2);
  CU_ASSERT (launched_once (d) && launched_once (ch));
  ctlfix_ctl_del (c);
}

/* Tasks of j that started while a parent had not ended (each parent's end is final, so a
 * check after every event sees any). */
static uint32_t
violations (const ebb_ctl_job *j)
{
  uint32_t bad = 0;
  for (uint32_t e = 0; e < j->nedges; e++)
    bad += j->tasks[j->edges[2 * e + 1]].state != TASK_PENDING
           && j->tasks[j->edges[2 * e]].state != TASK_EXITED;
  return bad;
}

/* Pending tasks of j whose parents all ended: with room for all, each should have started. */
static uint32_t
ready_waiting (const ebb_ctl_job *j)
{
  uint32_t n = 0;
  for (uint32_t k = 0; k < j->ntasks; k++)
    {
      bool ready = j->tasks[k].state == TASK_PENDING;
      for (uint32_t e = 0; ready && e < j->nedges; e++)
        ready = j->edges[2 * e + 1] != k || j->tasks[j->edges[2 * e]].state == TASK_EXITED;
      n += ready;
    }
  return n;
}

/* Random DAGs of 40 tasks (each edge i -> k, i < k, with probability 0.08), their running
 * tasks ended in a random order, the controller restarted on its store after the 15th end:
 * no task starts before its parents ended, none whose parents ended waits, every task
 * starts once. */
static void
test_random_dags (void)
{
  enum
  {
    N = 40
  };
  ebb_rng rng;
  ebb_rng_seed (&rng, 11);
  for (int round = 0; round < 5; round++)
    {
      cleanup_free char *deps = ebb_xstrdup ("[");
      for (uint32_t i = 0; i < N; i++)
        for (uint32_t k = i + 1; k < N; k++)
          if (ebb_rng_below (&rng, 100) < 8)
            {
              char *next = ebb_xasprintf ("%s%s[%u,%u]", deps, deps[1] ? "," : "", i, k);
              free (deps);
              deps = next;
            }
      char *closed = ebb_xasprintf ("%s]", deps);
      free (deps);
      deps = closed;
      ebb_ctl *c = ctl_new ("random", true, "graphene");
      nodes_report (c, 1);
      ebb_ctl_job *j = submit (c, N, deps, NULL);
      CU_ASSERT_PTR_NOT_NULL_FATAL (j);
      uint64_t id = j->id;
      uint32_t ends = 0, bad = violations (j), stuck = 0, late = ready_waiting (j);
      while (j->n_terminal < N && stuck == 0)
        {
          uint32_t act[N], na = 0;
          for (uint32_t k = 0; k < N; k++)
            if (ebb_ctl_task_active (&j->tasks[k]))
              act[na++] = k;
          if (na == 0)
            {
              stuck = 1; /* pending tasks and nothing running: one was never released */
              break;
            }
          finish (c, j, act[ebb_rng_below (&rng, na)]);
          bad += violations (j);
          late += ready_waiting (j);
          if (++ends == 15)
            {
              ebb_ctl_store_commit (c);
              ctlfix_ctl_del (c);
              c = ctl_new ("random", false, "graphene");
              nodes_report (c, 2);
              j = ebb_ctl_job_find (c, id);
              CU_ASSERT_PTR_NOT_NULL_FATAL (j);
              bad += violations (j);
              late += ready_waiting (j);
            }
        }
      CU_ASSERT_EQUAL (stuck, 0);
      CU_ASSERT_EQUAL (bad, 0);
      CU_ASSERT_EQUAL (late, 0);
      CU_ASSERT (launched_once (j));
      ctlfix_ctl_del (c);
    }
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_diamond),
  EBB_CU_TEST (test_refused),
  EBB_CU_TEST (test_restart),
  EBB_CU_TEST (test_random_dags),
};

EBB_CU_MAIN ("controller-dag", init, ctlfix_clean, tests)
