/* CUnit suite of the PostgreSQL store (controller/store-pg*.c) on a real server (the URL in
 * EBB_PG_URL; tests/ha/test-pg-store.sh starts PostgreSQL 15 and runs it): the schema's
 * migrations (an empty database, an older version, a second open that changes nothing, a
 * newer version refused, a store of before the added columns with a job in it), the controller's
 * rows saved and loaded back, the fence (a transaction of an older epoch fails once a newer one is
 * claimed, and the calls it decided never leave), and a connection lost (the server ended it)
 * opened again at the next transaction, and retention telling which pruned tasks went to a
 * node (their agents' kept logs go too). Each test starts on an empty schema. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/outbox.h"
#include "controller/store-pg.h"
#include "lib/json.h"
#include "lib/util.h"
#include "tests/ctl-fixture.h"
#include "tests/cu.h"

static const char *url;

/* Runs sql on a connection of its own; returns the first value of its result (the
 * caller's), or NULL. */
static char *
sql1 (const char *sql)
{
  PGconn *conn = PQconnectdb (url);
  PGresult *r = PQexec (conn, sql);
  char *v = PQresultStatus (r) == PGRES_TUPLES_OK && PQntuples (r) > 0
                ? ebb_xstrdup (PQgetvalue (r, 0, 0))
                : NULL;
  if (PQresultStatus (r) != PGRES_TUPLES_OK && PQresultStatus (r) != PGRES_COMMAND_OK)
    fprintf (stderr, "%s: %s", sql, PQerrorMessage (conn));
  PQclear (r);
  PQfinish (conn);
  return v;
}

static void
empty_schema (void)
{
  free (sql1 ("DROP SCHEMA public CASCADE; CREATE SCHEMA public"));
}

/* A controller core on the PostgreSQL store, opened and loaded. */
static ebb_ctl *
ctl_new (ebb_ctl_config *cfg)
{
  ebb_ctl *c = ctlfix_ctl_new (cfg, "state", "fifo");
  free (cfg->store);
  cfg->store = ebb_xstrdup (url);
  ctlfix_ctl_open (c);
  return c;
}

#define ctl_del ctlfix_ctl_del

static int
init (void)
{
  url = getenv ("EBB_PG_URL");
  return url ? ctlfix_init ("/tmp/ebb-pg-store.XXXXXX") : -1;
}

static void
test_migrate (void)
{
  empty_schema ();
  PGconn *conn = PQconnectdb (url);
  CU_ASSERT_EQUAL_FATAL (PQstatus (conn), CONNECTION_OK);
  CU_ASSERT_EQUAL (ebb_ctl_pg_schema_version (conn), -EIO); /* no table yet */
  /* A database of version 1 (before the fence): the open migrates it. */
  CU_ASSERT_EQUAL (ebb_ctl_pg_migrate (conn, 1, NULL), 0);
  CU_ASSERT_EQUAL (ebb_ctl_pg_schema_version (conn), 1);
  cleanup_free char *none = sql1 ("SELECT to_regclass('leader') IS NULL");
  CU_ASSERT_STRING_EQUAL (none, "t");
  ebb_ctl_store *s = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_store_pg_open (url, &s, NULL), 0);
  CU_ASSERT_EQUAL (ebb_ctl_pg_schema_version (conn), EBB_CTL_PG_SCHEMA_VERSION);
  cleanup_free char *epoch = sql1 ("SELECT epoch FROM leader");
  CU_ASSERT_STRING_EQUAL (epoch, "0");
  s->ops->close (s);
  /* Open again: nothing to do, nothing changed. */
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_store_pg_open (url, &s, NULL), 0);
  s->ops->close (s);
  cleanup_free char *rows = sql1 ("SELECT COUNT(*) FROM schema_version");
  CU_ASSERT_STRING_EQUAL (rows, "1");
  CU_ASSERT_EQUAL (ebb_ctl_pg_schema_version (conn), EBB_CTL_PG_SCHEMA_VERSION);
  /* A database of a newer controller is not touched. */
  free (sql1 ("UPDATE schema_version SET version = 99"));
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_ctl_store_pg_open (url, &s, &err), -EPROTO);
  ebb_error_free (&err);
  /* An empty database: every migration. */
  empty_schema ();
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_store_pg_open (url, &s, NULL), 0);
  CU_ASSERT_EQUAL (ebb_ctl_pg_schema_version (conn), EBB_CTL_PG_SCHEMA_VERSION);
  s->ops->close (s);
  PQfinish (conn);
}

/* A job of two tasks (one running on n1, decided by a logged launch) and a finished one. */
static void
write_jobs (ebb_ctl *c)
{
  ebb_ctl_node *n = ebb_xcalloc (1, sizeof *n);
  n->name = ebb_xstrdup ("n1");
  n->url = ebb_xstrdup ("unix:/run/x.sock");
  n->epoch = 3;
  n->cap_cpu_millis = 2000;
  ebb_ctl_add_node (c, n);
  ebb_ctl_store_node (c, n);
  for (uint64_t id = 5; id <= 6; id++)
    {
      ebb_ctl_job *j = ctlfix_job_new (id, "job", CLS_LONG, 2);
      j->request_id = ebb_xasprintf ("r%" PRIu64, id);
      j->answer = ebb_xasprintf ("{\"id\":%" PRIu64 "}", id);
      for (uint32_t i = 0; i < 2; i++)
        {
          j->tasks[i].node = i == 1 ? 0 : -1;
          j->tasks[i].state = id == 6 ? TASK_EXITED : i == 1 ? TASK_RUNNING : TASK_PENDING;
          j->tasks[i].generation = i;
          j->tasks[i].spec = json_tokener_parse ("{\"argv\":[\"x\"],\"cpu_millis\":100,"
                                                 "\"memory_bytes\":4194304}");
        }
      j->state = id == 6 ? JOB_DONE : JOB_RUNNING;
      ebb_ctl_add_job (c, j);
      ebb_ctl_store_job (c, j);
      ebb_ctl_task_write (c, &j->tasks[0]);
      ebb_ctl_task_write (c, &j->tasks[1]);
    }
  ebb_ctl_job *j = ebb_ctl_job_find (c, 5);
  CU_ASSERT_EQUAL (ebb_ctl_store_decision (c, "launch", &j->tasks[1], 0, 5, "test"), 1);
  json_object *b = json_tokener_parse ("{\"request_id\":\"j5-t1-g1-S2\"}");
  CU_ASSERT_EQUAL (ebb_ctl_store_call (c, &j->tasks[1], 2, "suspend", "/v1/tasks/x/suspend", b), 0);
  json_object_put (b);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
}

static void
test_store (void)
{
  empty_schema ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  write_jobs (c);
  ctl_del (c);

  c = ctl_new (&cfg);
  CU_ASSERT_EQUAL_FATAL (c->n_nodes, 1);
  CU_ASSERT_EQUAL_FATAL (c->n_jobs, 1); /* the finished job stays in the store */
  CU_ASSERT_EQUAL (c->n_jobs_stored, 2);
  CU_ASSERT_EQUAL (c->next_job_id, 7);
  CU_ASSERT_EQUAL (ebb_ctl_store_last_seq (c), 1);
  CU_ASSERT_EQUAL (c->nodes[0]->epoch, 3);
  ebb_ctl_job *k = ebb_ctl_job_find (c, 5);
  CU_ASSERT_PTR_NOT_NULL_FATAL (k);
  CU_ASSERT_STRING_EQUAL (k->request_id, "r5");
  CU_ASSERT_EQUAL (k->tasks[1].state, TASK_RUNNING);
  CU_ASSERT_EQUAL (k->tasks[1].node, 0);
  CU_ASSERT_EQUAL (k->tasks[1].generation, 1);
  CU_ASSERT_EQUAL (k->tasks[0].cpu_millis, 100);
  /* The reads of a running controller. */
  cleanup_free char *digest = NULL;
  cleanup_free char *a = ebb_ctl_store_rid_answer (c, "r6", &digest);
  CU_ASSERT_STRING_EQUAL (a, "{\"id\":6}");
  ebb_ctl_job *g = ebb_ctl_store_job_get (c, 6);
  CU_ASSERT_PTR_NOT_NULL_FATAL (g);
  CU_ASSERT_EQUAL (g->tasks[1].state, TASK_EXITED);
  ebb_ctl_job_free (g);
  ebb_ctl_job_summary *v;
  size_t n;
  CU_ASSERT_EQUAL (ebb_ctl_store_job_page (c, 6, true, 10, &v, &n), 0);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (v[0].id, 5);
  CU_ASSERT_EQUAL (v[0].task_states[TASK_RUNNING], 1);
  CU_ASSERT_EQUAL (v[0].task_states[TASK_PENDING], 1);
  ebb_ctl_job_summaries_free (v, n);
  json_object *d = ebb_ctl_store_decisions (c, 0, 10);
  CU_ASSERT_EQUAL (json_object_array_length (d), 1);
  json_object_put (d);
  ebb_ctl_stored_call *calls;
  size_t nc = ebb_ctl_store_calls (c, &calls);
  CU_ASSERT_EQUAL_FATAL (nc, 1);
  CU_ASSERT_STRING_EQUAL (calls[0].kind, "suspend");
  CU_ASSERT_PTR_NOT_NULL (strstr (calls[0].body, "j5-t1-g1-S2"));
  ebb_ctl_stored_calls_free (calls, nc);
  CU_ASSERT_EQUAL (ebb_ctl_store_call_done (c, 5, 1, 2), 0);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
  CU_ASSERT_EQUAL (ebb_ctl_store_calls (c, &calls), 0);
  /* A write that fails on the server (seq 1 again) is seen at the commit, which fails and
   * keeps nothing of the transaction. */
  c->store->seq = 0;
  CU_ASSERT_EQUAL (ebb_ctl_store_task (c, &k->tasks[0]), 0);
  CU_ASSERT_EQUAL (ebb_ctl_store_decision (c, "launch", &k->tasks[0], 0, 5, "again"), 1);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), -EIO);
  cleanup_free char *again = sql1 ("SELECT COUNT(*) FROM decisions WHERE reason = 'again'");
  CU_ASSERT_STRING_EQUAL (again, "0");
  CU_ASSERT_EQUAL (ebb_ctl_store_begin (c), 0); /* the next transaction works */
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
  ctl_del (c);
}

/* Two controllers on one store: the second's claim fences the first, whose transaction
 * fails and whose decided call never leaves; a claim below the stored epoch is refused. */
static void
test_fence (void)
{
  empty_schema ();
  ebb_ctl_config cfg1, cfg2;
  ebb_ctl *old = ctl_new (&cfg1);
  uint64_t e1 = 0, e2 = 0;
  CU_ASSERT_EQUAL (ebb_ctl_store_claim (old, 0, &e1), 0);
  CU_ASSERT_EQUAL (e1, 1);
  write_jobs (old);
  ebb_ctl *neu = ctl_new (&cfg2);
  CU_ASSERT_EQUAL (ebb_ctl_store_claim (neu, 0, &e2), 0);
  CU_ASSERT_EQUAL (e2, 2);
  CU_ASSERT_EQUAL (ebb_ctl_store_claim (neu, 2, &e2), -ESTALE); /* not above */
  CU_ASSERT_EQUAL (ebb_ctl_store_claim (neu, 40, &e2), 0);      /* an election's epoch */
  CU_ASSERT_EQUAL (e2, 40);
  /* The deposed one: its transaction fails at its start, and the flush sends nothing. */
  CU_ASSERT_EQUAL (ebb_ctl_store_begin (old), -ESTALE);
  ebb_ctl_job *j = ebb_ctl_job_find (old, 5);
  j->tasks[1].state = TASK_SUSPENDED;
  CU_ASSERT (ebb_ctl_store_task (old, &j->tasks[1]) < 0);
  ebb_ctl_send_pkill (old, &j->tasks[1], 9);
  CU_ASSERT_EQUAL (old->n_outbox, 1);
  ebb_ctl_flush (old); /* no client: a call started here would crash the test */
  CU_ASSERT_EQUAL (old->n_outbox, 0);
  CU_ASSERT (old->store_lost);
  CU_ASSERT_PTR_NULL (old->store);
  cleanup_free char *st = sql1 ("SELECT state FROM tasks WHERE job = 5 AND idx = 1");
  cleanup_free char *running = ebb_xasprintf ("%d", TASK_RUNNING);
  CU_ASSERT_STRING_EQUAL (st, running);
  /* The new leader writes. */
  ebb_ctl_job *k = ebb_ctl_job_find (neu, 5);
  CU_ASSERT_PTR_NOT_NULL_FATAL (k);
  CU_ASSERT_EQUAL (ebb_ctl_store_task (neu, &k->tasks[0]), 0);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (neu), 0);
  /* The session cannot hold the fence while paused inside a transaction. */
  ebb_ctl_pg *s = ebb_ctl_pg_of (neu->store);
  PGresult *r = ebb_ctl_pg_exec (s, "SHOW idle_in_transaction_session_timeout");
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  CU_ASSERT_STRING_EQUAL (PQgetvalue (r, 0, 0), "5s");
  PQclear (r);
  ctlfix_ctl_del (old);
  ctl_del (neu);
}

/* The server ends the store's session (as a restart or the idle timeout would): the next
 * transaction connects again. */
static void
test_reconnect (void)
{
  empty_schema ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  write_jobs (c);
  cleanup_free char *killed = sql1 ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                    " WHERE application_name = 'ebb-controller'");
  CU_ASSERT_STRING_EQUAL (killed, "t");
  ebb_ctl_job *j = ebb_ctl_job_find (c, 5);
  CU_ASSERT_EQUAL (ebb_ctl_store_begin (c), 0);
  CU_ASSERT_EQUAL (ebb_ctl_store_task (c, &j->tasks[0]), 0);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
  ctl_del (c);
}

/* A store of version 2 (the first tables and the fence, before the columns added since)
 * with a job in it: the open adds every column, one migration each, and the job loads with
 * the added columns' defaults; a job written then reads back with them. */
static void
test_migrate_columns (void)
{
  empty_schema ();
  PGconn *conn = PQconnectdb (url);
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_pg_migrate (conn, 2, NULL), 0);
  free (sql1 ("INSERT INTO jobs VALUES (1, 'r1', 'old', 1, 0, 1, 10, 11, 0, '{}', 1);"
              "INSERT INTO tasks VALUES (1, 0, '{\"argv\":[\"x\"]}', 1, NULL, 1, 0, 0, 2, 11,"
              " 0, 0)"));
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  CU_ASSERT_EQUAL (ebb_ctl_pg_schema_version (conn), EBB_CTL_PG_SCHEMA_VERSION);
  CU_ASSERT_EQUAL (EBB_CTL_PG_SCHEMA_VERSION, 2 + EBB_CTL_STORE_N_ADDED);
  ebb_ctl_job *j = ebb_ctl_job_find (c, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL (j);
  CU_ASSERT_STRING_EQUAL (j->name, "old");
  CU_ASSERT_EQUAL (j->priority, 0);
  CU_ASSERT_EQUAL (j->reason.code, REASON_NONE);
  CU_ASSERT_EQUAL (j->tasks[0].suspensions, 2);
  CU_ASSERT_EQUAL (j->tasks[0].suspended_sec, 0);
  j->priority = 3;
  j->tasks[0].suspended_sec = 1.5;
  snprintf (j->submitted_by, sizeof j->submitted_by, "alice");
  ebb_ctl_store_job (c, j);
  ebb_ctl_store_task (c, &j->tasks[0]);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
  ctl_del (c);
  c = ctl_new (&cfg);
  j = ebb_ctl_job_find (c, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL (j);
  CU_ASSERT_EQUAL (j->priority, 3);
  CU_ASSERT_STRING_EQUAL (j->submitted_by, "alice");
  CU_ASSERT_EQUAL (j->tasks[0].suspended_sec, 1.5);
  ctl_del (c);
  PQfinish (conn);
}

/* The pruned tasks that went to a node, told after the prune's commit (sched-evict.c drops
 * their kept logs): none before a prune; of job 6 (done) its task 1 on n1, not its task 0
 * that never left the queue; none after a prune that removed nothing. */
static void
test_pruned_tasks (void)
{
  empty_schema ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  ebb_ctl_pruned_task *v = NULL;
  CU_ASSERT_EQUAL (ebb_ctl_store_pruned_tasks (c, 10, &v), 0);
  write_jobs (c);
  uint64_t pruned = 0;
  CU_ASSERT_EQUAL (ebb_ctl_store_prune (c, 0, 0, 100, &pruned), 0);
  CU_ASSERT_EQUAL (pruned, 1);
  size_t n = ebb_ctl_store_pruned_tasks (c, 10, &v);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  CU_ASSERT_EQUAL (v[0].job, 6);
  CU_ASSERT_EQUAL (v[0].idx, 1);
  CU_ASSERT_EQUAL (v[0].generation, 1);
  CU_ASSERT_STRING_EQUAL (v[0].node, "n1");
  ebb_ctl_pruned_tasks_free (v, n);
  CU_ASSERT_EQUAL (ebb_ctl_store_pruned_tasks (c, 0, &v), 0); /* max 0: none */
  ebb_ctl_pruned_tasks_free (v, 0);
  cleanup_free char *left = sql1 ("SELECT COUNT(*) FROM tasks WHERE job = 6");
  CU_ASSERT_STRING_EQUAL (left, "0");
  CU_ASSERT_EQUAL (ebb_ctl_store_prune (c, 0, 0, 100, &pruned), 0);
  CU_ASSERT_EQUAL (pruned, 0);
  CU_ASSERT_EQUAL (ebb_ctl_store_pruned_tasks (c, 10, &v), 0);
  ebb_ctl_pruned_tasks_free (v, 0);
  ctl_del (c);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_migrate), EBB_CU_TEST (test_migrate_columns), EBB_CU_TEST (test_store),
  EBB_CU_TEST (test_fence),   EBB_CU_TEST (test_reconnect),       EBB_CU_TEST (test_pruned_tasks),
};

int
main (void)
{
  if (!getenv ("EBB_PG_URL"))
    return ebb_cu_skip ("EBB_PG_URL unset (tests/ha/test-pg-store.sh sets it)");
  return ebb_cu_run ("pg-store", init, ctlfix_clean, tests, EBB_ARRAY_SIZE (tests));
}
