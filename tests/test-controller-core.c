/* CUnit suite of the controller's pure parts: policy options (ebb-sim's names), the option
 * table (command line over file, lists replaced), the SQLite store (save, reload, decision
 * log), heartbeat validation (a malformed report changes nothing), adopting tasks of
 * POST /v1/jobs (bad requests refused with the right status, an accepted one committed
 * before its call and placed on its node when the agent answers), and the node index and
 * the task counters, which must agree with a full scan after any sequence of changes
 * (adoptions included), and the policy jobs a slot policy forgets (their ids reused). */
#include "config.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "controller/ops.h"
#include "controller/outbox.h"
#include "controller/store-sqlite.h"
#include "controller/sched.h"
#include "controller/options.h"
#include "lib/json.h"
#include "lib/rng.h"
#include "lib/util.h"
#include "tests/ctl-fixture.h"
#include "tests/cu.h"

static int
init (void)
{
  return ctlfix_init ("/tmp/ebb-ctl-core.XXXXXX");
}

static void
test_policy_params (void)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  CU_ASSERT_EQUAL (p.dag_prio, EBB_DAG_PRIO_REMAINING); /* graphene's default priScore */
  char *good[] = { "cutoff=90",
                   "probe-ratio=3",
                   "seed=7",
                   "sample=without",
                   "mode=kill",
                   "round-sec=0.5",
                   "gp-step=1",
                   "footprint-memory=32M",
                   "book-footprint=none",
                   NULL };
  CU_ASSERT_EQUAL (ebb_ctl_policy_params (good, &p, NULL), 0);
  CU_ASSERT_DOUBLE_EQUAL (p.cutoff_sec, 90, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (p.probe_ratio, 3, 1e-9);
  CU_ASSERT_EQUAL (p.seed, 7);
  CU_ASSERT_EQUAL (p.sample_replacement, 0);
  CU_ASSERT_EQUAL (p.bigc_mode, EBB_POL_BIGC_KILL);
  CU_ASSERT_DOUBLE_EQUAL (p.tick_sec, 0.5, 1e-9);
  CU_ASSERT_EQUAL (p.gp_step.cpu_millis, 1000);
  CU_ASSERT_EQUAL (p.footprint.memory_bytes, 32 << 20);
  CU_ASSERT_EQUAL (p.book_footprint, EBB_POL_BOOK_NONE);
  char *all[] = { "book-footprint=all", NULL }, *mem[] = { "book-footprint=memory", NULL };
  CU_ASSERT_EQUAL (ebb_ctl_policy_params (all, &p, NULL), 0);
  CU_ASSERT_EQUAL (p.book_footprint, EBB_POL_BOOK_ALL);
  CU_ASSERT_EQUAL (ebb_ctl_policy_params (mem, &p, NULL), 0);
  CU_ASSERT_EQUAL (p.book_footprint, EBB_POL_BOOK_MEMORY);
  /* ebb-sim's other policy flags, its switches as KEY=yes|no. */
  char *sim[] = { "no-steal=yes",
                  "no-partition=yes",
                  "no-central=yes",
                  "no-rotation=yes",
                  "cancel-probes=no",
                  "rotation-interval=2.5",
                  "threshold-scale=3",
                  "natural-termination=0.5",
                  "max-preempt-per-round=0.25",
                  "kappa=0.5",
                  "queues=4",
                  "graphene-prio=order",
                  "graphene-bypass=single",
                  NULL };
  CU_ASSERT_EQUAL (ebb_ctl_policy_params (sim, &p, NULL), 0);
  CU_ASSERT (p.no_steal && p.no_partition && p.no_central && p.no_rotation);
  CU_ASSERT (!p.cancel_probes);
  CU_ASSERT_DOUBLE_EQUAL (p.rotation_interval_sec, 2.5, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (p.threshold_scale, 3, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (p.natural_term, 0.5, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (p.max_round_share, 0.25, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (p.dag_kappa, 0.5, 1e-9);
  CU_ASSERT_EQUAL (p.dag_queues, 4);
  CU_ASSERT_EQUAL (p.dag_prio, EBB_DAG_PRIO_ORDER);
  CU_ASSERT_EQUAL (p.dag_bypass, EBB_DAG_BYPASS_SINGLE);
  char *dag[] = { "graphene-prio=dag", NULL }, *rem[] = { "graphene-prio=remaining", NULL };
  CU_ASSERT_EQUAL (ebb_ctl_policy_params (dag, &p, NULL), 0);
  CU_ASSERT_EQUAL (p.dag_prio, EBB_DAG_PRIO_DAG);
  CU_ASSERT_EQUAL (ebb_ctl_policy_params (rem, &p, NULL), 0);
  CU_ASSERT_EQUAL (p.dag_prio, EBB_DAG_PRIO_REMAINING);
  char *off[] = { "no-steal=no", NULL };
  CU_ASSERT_EQUAL (ebb_ctl_policy_params (off, &p, NULL), 0);
  CU_ASSERT (!p.no_steal);
  const char *bad[] = { "cutoff",
                        "cutoff=-1",
                        "probe-ratio=0.5",
                        "seed=1.5",
                        "nosuch=1",
                        "sample=maybe",
                        "mode=x",
                        "cutoff=1e999",
                        "footprint-memory=lots",
                        "book-footprint=some",
                        "no-steal=maybe",
                        "rotation-interval=0",
                        "natural-termination=2",
                        "kappa=0",
                        "queues=1.5",
                        "graphene-prio=best",
                        "graphene-bypass=none" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_error *err = NULL;
      char *one[] = { (char *)bad[i], NULL };
      CU_ASSERT (ebb_ctl_policy_params (one, &p, &err) < 0);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
    }
}

static void
test_options (void)
{
  cleanup_free char *conf = ebb_xasprintf ("%s/controller.conf", ctlfix_dir);
  FILE *f = fopen (conf, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  fprintf (f, "policy = sparrow\nnode_timeout = 20s\nlisten = 127.0.0.1:1\nlisten = unix:/x\n");
  fclose (f);
  char *argv[] = { "ebb-controller", "--config", conf, "--node-timeout", "3s", "--listen",
                   "unix:/y",        "-v",       NULL };
  ebb_ctl_config cfg = { 0 };
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_ctl_parse_args (8, argv, &cfg, &err), 0);
  CU_ASSERT_STRING_EQUAL (cfg.policy, "sparrow");    /* from the file */
  CU_ASSERT_EQUAL (cfg.node_timeout_usec, 3000000);  /* command line wins */
  CU_ASSERT_EQUAL (ebb_strv_length (cfg.listen), 1); /* list replaced */
  CU_ASSERT_STRING_EQUAL (cfg.listen[0], "unix:/y");
  CU_ASSERT_EQUAL (cfg.verbose, 1);
  ebb_ctl_config_free (&cfg);

  char *bad1[] = { "ebb-controller", "--nosuch", NULL };
  char *bad2[] = { "ebb-controller", "--node-timeout", "1ms", NULL };
  char *bad3[] = { "ebb-controller", "--listen", "nocolon", NULL };
  char *bad4[] = { "ebb-controller", "--policy-opt", "x=1", NULL };
  char *bad5[] = { "ebb-controller", "--policy", "nosuch", NULL };
  char *bad6[] = { "ebb-controller", "--policy", "hopper", NULL }; /* speculative: sim only */
  char *bad7[] = { "ebb-controller", "--policy", "srpt", NULL };   /* speculative too */
  char *bad8[] = { "ebb-controller", "--store", "mysql://x", NULL };
  char *bad9[] = { "ebb-controller", "--store", "sqlite:relative.db", NULL };
  char **bads[] = { bad1, bad2, bad3, bad4, bad5, bad6, bad7, bad8, bad9 };
  int argcs[] = { 2, 3, 3, 3, 3, 3, 3, 3, 3 };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bads); i++)
    {
      ebb_ctl_config c2 = { 0 };
      CU_ASSERT (ebb_ctl_parse_args (argcs[i], bads[i], &c2, &err) < 0);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
      ebb_ctl_config_free (&c2);
    }
  /* The store: SQLite at an absolute path, or a PostgreSQL URI (either scheme). */
  const char *stores[] = { "sqlite:/var/lib/x.db", "postgresql://u@h/db", "postgres://h/db" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (stores); i++)
    {
      char *good[] = { "ebb-controller", "--store", (char *)stores[i], NULL };
      ebb_ctl_config sc = { 0 };
      CU_ASSERT_EQUAL (ebb_ctl_parse_args (3, good, &sc, &err), 0);
      CU_ASSERT_STRING_EQUAL (sc.store, stores[i]);
      ebb_ctl_config_free (&sc);
    }
  /* Timed probe rounds run in the controller too (controller/sched-timed.c). */
  char *peacock[] = { "ebb-controller", "--policy", "peacock", NULL };
  ebb_ctl_config pc = { 0 };
  CU_ASSERT_EQUAL (ebb_ctl_parse_args (3, peacock, &pc, &err), 0);
  CU_ASSERT_STRING_EQUAL (pc.policy, "peacock");
  ebb_ctl_config_free (&pc);
  /* DAG policies run too: jobs bring their edges (controller/sched-dag.c). */
  char *graphene[] = { "ebb-controller", "--policy", "graphene", NULL };
  CU_ASSERT_EQUAL (ebb_ctl_parse_args (3, graphene, &pc, &err), 0);
  CU_ASSERT_STRING_EQUAL (pc.policy, "graphene");
  ebb_ctl_config_free (&pc);
  size_t n;
  const ebb_conf_setting *t = ebb_ctl_conf_table (&n);
  CU_ASSERT (n >= 8);
  CU_ASSERT_PTR_NOT_NULL (ebb_conf_find (t, n, "policy_opt"));
}

static ebb_ctl *
ctl_new (ebb_ctl_config *cfg)
{
  ebb_ctl *c = ctlfix_ctl_new (cfg, "state", "fifo");
  ctlfix_ctl_open (c);
  return c;
}

/* Removes the store, for a test that counts on rows of its own. */
static void
fresh_store (void)
{
  cleanup_free char *rm = ebb_xasprintf ("rm -rf '%s/state'", ctlfix_dir);
  CU_ASSERT_EQUAL_FATAL (system (rm), 0);
  free (ctlfix_store ("state", true));
}

/* A node named name (with url unless NULL), not yet added. */
static ebb_ctl_node *
node_new (const char *name, const char *url)
{
  ebb_ctl_node *n = ebb_xcalloc (1, sizeof *n);
  n->name = ebb_xstrdup (name);
  n->url = url ? ebb_xstrdup (url) : NULL;
  return n;
}

static void
test_store (void)
{
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  ebb_ctl_node *n = node_new ("n1", "unix:/run/x.sock");
  n->epoch = 3;
  n->cap_cpu_millis = 2000;
  ebb_ctl_add_node (c, n);
  ebb_ctl_store_node (c, n);
  ebb_ctl_job *j = ctlfix_job_new (5, "job", CLS_LONG, 2);
  j->request_id = ebb_xstrdup ("r1");
  j->answer = ebb_xstrdup ("{\"id\":5}");
  for (uint32_t i = 0; i < 2; i++)
    {
      j->tasks[i].node = i == 1 ? 0 : -1;
      j->tasks[i].state = i == 1 ? TASK_RUNNING : TASK_PENDING;
      j->tasks[i].generation = i;
      j->tasks[i].spec = json_tokener_parse ("{\"argv\":[\"x\"],\"cpu_millis\":100,"
                                             "\"memory_bytes\":4194304}");
    }
  ebb_ctl_add_job (c, j);
  ebb_ctl_store_job (c, j);
  ebb_ctl_task_write (c, &j->tasks[0]);
  ebb_ctl_task_write (c, &j->tasks[1]);
  CU_ASSERT_EQUAL (ebb_ctl_store_decision (c, "launch", &j->tasks[1], 0, 5, "test"), 1);
  ctlfix_ctl_del (c);

  c = ctl_new (&cfg);
  CU_ASSERT_EQUAL_FATAL (c->n_jobs, 1);
  CU_ASSERT_EQUAL_FATAL (c->n_nodes, 1);
  CU_ASSERT_EQUAL (c->next_job_id, 6);
  CU_ASSERT_EQUAL (ebb_ctl_store_last_seq (c), 1);
  CU_ASSERT_EQUAL (c->nodes[0]->epoch, 3);
  CU_ASSERT_STRING_EQUAL (c->nodes[0]->url, "unix:/run/x.sock");
  ebb_ctl_job *k = ebb_ctl_job_find (c, 5);
  CU_ASSERT_PTR_NOT_NULL_FATAL (k);
  CU_ASSERT_STRING_EQUAL (k->request_id, "r1");
  CU_ASSERT_EQUAL (k->cls, CLS_LONG);
  CU_ASSERT_EQUAL (k->tasks[1].state, TASK_RUNNING);
  CU_ASSERT_EQUAL (k->tasks[1].node, 0);
  CU_ASSERT_EQUAL (k->tasks[1].generation, 1);
  CU_ASSERT_EQUAL (k->tasks[0].cpu_millis, 100);
  json_object *d = ebb_ctl_store_decisions (c, 0, 10);
  CU_ASSERT_EQUAL (json_object_array_length (d), 1);
  json_object_put (d);
  d = ebb_ctl_store_decisions (c, 1, 10);
  CU_ASSERT_EQUAL (json_object_array_length (d), 0);
  json_object_put (d);
  ctlfix_ctl_del (c);
}

/* The preemptions counted in the decision log (the metrics' counters at a start): the
 * suspensions, resumptions and the policy's kills, not a kill of another reason. */
static void
test_store_preemptions (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  ebb_ctl_job *j = ctlfix_job_new (3, "long", CLS_LONG, 1);
  j->tasks[0].spec = json_tokener_parse ("{\"argv\":[\"x\"]}");
  ebb_ctl_add_job (c, j);
  static const char *const d[][2] = { { "launch", "placed" },
                                      { "suspend", "for a short job" },
                                      { "resume", "room again" },
                                      { "suspend", "for a short job" },
                                      { "kill", "preemptive kill for a short job" },
                                      { "kill", "DELETE /v1/jobs" } };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (d); i++)
    CU_ASSERT_EQUAL (ebb_ctl_store_decision (c, d[i][0], &j->tasks[0], -1, 0, d[i][1]), i + 1);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
  ebb_ctl_store_preemptions p = { 0 };
  CU_ASSERT_EQUAL (ebb_ctl_store_preemptions_get (c, &p), 0);
  CU_ASSERT_EQUAL (p.suspends, 2);
  CU_ASSERT_EQUAL (p.resumes, 1);
  CU_ASSERT_EQUAL (p.preempt_kills, 1);
  ctlfix_ctl_del (c);
}

/* SQLite's page cache: explicit sizes, and its pages in the memory reserved at the first
 * store opened (controller/store-sqlite.c), not in SQLite's heap. */
static void
test_store_cache (void)
{
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  sqlite3_stmt *st = ebb_ctl_sqlite_prep (ebb_ctl_sqlite_of (c->store), "PRAGMA cache_size");
  CU_ASSERT_EQUAL_FATAL (sqlite3_step (st), SQLITE_ROW);
  CU_ASSERT_EQUAL (sqlite3_column_int (st, 0), EBB_CTL_STORE_CACHE_PAGES);
  sqlite3_finalize (st);
  st = ebb_ctl_sqlite_prep (ebb_ctl_sqlite_of (c->store), "PRAGMA page_size");
  CU_ASSERT_EQUAL_FATAL (sqlite3_step (st), SQLITE_ROW);
  CU_ASSERT_EQUAL (sqlite3_column_int (st, 0), EBB_CTL_STORE_PAGE_SIZE);
  sqlite3_finalize (st);
  ebb_ctl_node *n = node_new ("cache1", NULL);
  ebb_ctl_add_node (c, n);
  ebb_ctl_store_node (c, n);
  int used = 0, hi = 0, over = 0;
  CU_ASSERT_EQUAL (sqlite3_status (SQLITE_STATUS_PAGECACHE_USED, &used, &hi, 0), SQLITE_OK);
  CU_ASSERT (used > 0);
  CU_ASSERT (hi <= EBB_CTL_STORE_CACHE_PAGES + EBB_CTL_STORE_CACHE_PAGES / 8);
  CU_ASSERT_EQUAL (sqlite3_status (SQLITE_STATUS_PAGECACHE_OVERFLOW, &over, &hi, 0), SQLITE_OK);
  CU_ASSERT_EQUAL (over, 0);
  ctlfix_ctl_del (c);
}

/* A SUSPEND, RESUME or policy KILL decided and committed is kept until its answer: a
 * restart sends it again with its request id and sets its task to the state it brings. */
static void
test_store_calls (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  ebb_ctl_node *n = node_new ("n1", "unix:/run/x.sock");
  ebb_ctl_add_node (c, n);
  ebb_ctl_store_node (c, n);
  ebb_ctl_job *j = ctlfix_job_new (9, "long", CLS_LONG, 4);
  for (uint32_t i = 0; i < 4; i++)
    {
      j->tasks[i].node = 0;
      j->tasks[i].state = i == 1 ? TASK_SUSPENDED : TASK_RUNNING;
      j->tasks[i].generation = 1;
      j->tasks[i].spec = json_tokener_parse ("{\"argv\":[\"x\"],\"cpu_millis\":1000,"
                                             "\"memory_bytes\":4194304}");
    }
  ebb_ctl_add_job (c, j);
  ebb_ctl_store_job (c, j);
  for (uint32_t i = 0; i < 4; i++)
    ebb_ctl_task_write (c, &j->tasks[i]);
  json_object *b = json_tokener_parse ("{\"mode\":\"graceful\",\"cpu_millis\":990,"
                                       "\"request_id\":\"j9-t0-g1-S7\",\"generation\":1}");
  CU_ASSERT_EQUAL (
      ebb_ctl_store_call (c, &j->tasks[0], 7, "suspend", "/v1/tasks/j9-t0-g1/suspend", b), 0);
  json_object_put (b);
  b = json_tokener_parse ("{\"request_id\":\"j9-t1-g1-R8\",\"generation\":1}");
  CU_ASSERT_EQUAL (
      ebb_ctl_store_call (c, &j->tasks[1], 8, "resume", "/v1/tasks/j9-t1-g1/resume", b), 0);
  json_object_put (b);
  CU_ASSERT_EQUAL (ebb_ctl_store_call (c, &j->tasks[2], 9, "kill",
                                       "/v1/tasks/j9-t2-g1?request_id=j9-t2-g1-K0", NULL),
                   0);
  /* Answered: gone. An answer to an older call of a task leaves its newer one. */
  ebb_ctl_store_call (c, &j->tasks[3], 10, "suspend", "/v1/tasks/j9-t3-g1/suspend", NULL);
  CU_ASSERT_EQUAL (ebb_ctl_store_call_done (c, 9, 3, 10), 0);
  ebb_ctl_store_call_done (c, 9, 0, 6);
  /* A row of an older generation (the task started again since) is dropped, not sent. */
  j->tasks[3].generation = 0;
  b = json_tokener_parse ("{\"request_id\":\"old\"}");
  ebb_ctl_store_call (c, &j->tasks[3], 11, "suspend", "/v1/tasks/j9-t3-g0/suspend", b);
  json_object_put (b);
  ebb_ctl_store_commit (c);
  ctlfix_ctl_del (c);

  c = ctl_new (&cfg);
  ebb_ctl_stored_call *v;
  size_t nv = ebb_ctl_store_calls (c, &v);
  CU_ASSERT_EQUAL_FATAL (nv, 4);
  CU_ASSERT_EQUAL (v[0].seq, 7);
  CU_ASSERT_STRING_EQUAL (v[0].kind, "suspend");
  CU_ASSERT_PTR_NOT_NULL (v[0].body && strstr (v[0].body, "j9-t0-g1-S7"));
  CU_ASSERT_STRING_EQUAL (v[2].kind, "kill");
  CU_ASSERT_PTR_NULL (v[2].body);
  ebb_ctl_stored_calls_free (v, nv);
  ebb_ctl_replay_calls (c);
  ebb_ctl_job *k = ebb_ctl_job_find (c, 9);
  CU_ASSERT_PTR_NOT_NULL_FATAL (k);
  /* Their answers change the states, not the replay: the policy adopts what the store says. */
  CU_ASSERT_EQUAL (k->tasks[0].state, TASK_RUNNING);
  CU_ASSERT_EQUAL (k->tasks[1].state, TASK_SUSPENDED);
  CU_ASSERT_EQUAL (k->tasks[2].state, TASK_RUNNING);
  CU_ASSERT (k->tasks[2].pkill);
  CU_ASSERT_FALSE (k->tasks[0].pkill);
  CU_ASSERT_EQUAL_FATAL (c->n_outbox, 3); /* sent at the first flush, with their request ids */
  ebb_ctl_store_commit (c);
  ctlfix_ctl_del (c);

  /* The dropped row is gone, the three others wait for their answers. */
  c = ctl_new (&cfg);
  nv = ebb_ctl_store_calls (c, &v);
  CU_ASSERT_EQUAL (nv, 3);
  ebb_ctl_stored_calls_free (v, nv);

  /* A call carries the sequence number of its own decision, not of the last one written:
   * a suspension sent after a later decision keeps its id and row. */
  k = ebb_ctl_job_find (c, 9);
  CU_ASSERT_PTR_NOT_NULL_FATAL (k);
  uint64_t seq = ebb_ctl_store_decision (c, "suspend", &k->tasks[3], 0, 9, "test");
  CU_ASSERT_EQUAL (seq, ebb_ctl_store_last_seq (c));
  CU_ASSERT_EQUAL (ebb_ctl_store_decision (c, "resume", &k->tasks[1], 0, 9, "test"), seq + 1);
  ebb_ctl_send_suspend (c, &k->tasks[3], seq, NULL, (ebb_pol_res){ 0, 0 }, false);
  ebb_ctl_store_commit (c);
  nv = ebb_ctl_store_calls (c, &v);
  bool found = false;
  /* ... and the leader's epoch, so a controller on a fresh store cannot reuse it. */
  cleanup_free char *rid = ebb_xasprintf ("\"j9-t3-g1-e%" PRIu64 "-S%" PRIu64 "\"", c->epoch, seq);
  for (size_t i = 0; i < nv; i++)
    if (v[i].job == 9 && v[i].idx == 3)
      found = v[i].seq == seq && v[i].body && strstr (v[i].body, rid);
  CU_ASSERT (found);
  ebb_ctl_stored_calls_free (v, nv);
  ctlfix_ctl_del (c);
}

static void
test_heartbeat_validation (void)
{
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  size_t n0 = c->n_nodes;
  const char *bad[] = {
    "[]",
    "{}",
    "{\"node\":1}",
    "{\"node\":{\"capacity\":{\"cpu_millis\":0,\"memory_bytes\":1}}}",
    "{\"node\":{\"capacity\":{\"cpu_millis\":1000}}}",
    "{\"node\":{\"capacity\":{\"cpu_millis\":1000,\"memory_bytes\":1}},\"url\":\"file:/x\"}",
    "{\"node\":{\"capacity\":{\"cpu_millis\":1000,\"memory_bytes\":1}},\"url\":7}",
    "{\"node\":{\"capacity\":{\"cpu_millis\":1000,\"memory_bytes\":1}},\"tasks\":3}",
    "{\"node\":{\"capacity\":{\"cpu_millis\":1000,\"memory_bytes\":1}},\"seq\":-1}",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      json_object *o = json_tokener_parse (bad[i]);
      ebb_error *err = NULL;
      CU_ASSERT (ebb_ctl_heartbeat (c, "nx", o, &err) < 0);
      CU_ASSERT_PTR_NOT_NULL (err);
      ebb_error_free (&err);
      json_object_put (o);
      CU_ASSERT_EQUAL (c->n_nodes, n0);
    }
  json_object *o = json_tokener_parse (
      "{\"seq\":1,\"url\":\"unix:/a.sock\",\"node\":{\"capacity\":{\"cpu_millis\":3500,"
      "\"memory_bytes\":1073741824}},\"tasks\":[{\"id\":\"foreign\",\"state\":\"running\"}]}");
  CU_ASSERT_EQUAL (ebb_ctl_heartbeat (c, "nx", o, NULL), 0);
  json_object_put (o);
  int idx = -1;
  ebb_ctl_node *n = ebb_ctl_node_find (c, "nx", &idx);
  CU_ASSERT_PTR_NOT_NULL_FATAL (n);
  CU_ASSERT_EQUAL (n->state, NODE_READY);
  CU_ASSERT_EQUAL (n->nslots, 3);
  CU_ASSERT_EQUAL (n->epoch, 1);
  /* The policy was built over its slots (and the store's other ready nodes'). */
  uint32_t mine = 0;
  for (uint32_t s = 0; s < c->n_slots; s++)
    mine += c->slots[s].node == idx;
  CU_ASSERT_EQUAL (mine, 3);
  ctlfix_ctl_del (c);
}

/* A heartbeat's stale copy (an older generation of a task) is fenced through a decision of
 * the heartbeat's transaction, and its DELETE waits in the outbox for the commit. */
static void
test_heartbeat_fence (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  json_object *o = json_tokener_parse (
      "{\"seq\":1,\"url\":\"unix:/a.sock\",\"node\":{\"capacity\":{\"cpu_millis\":2000,"
      "\"memory_bytes\":1073741824}}}");
  CU_ASSERT_EQUAL (ebb_ctl_heartbeat (c, "nx", o, NULL), 0);
  json_object_put (o);
  ebb_ctl_job *j = ctlfix_job_new (c->next_job_id++, "j", CLS_LONG, 1);
  j->tasks[0].generation = 2;
  j->tasks[0].spec = json_tokener_parse ("{\"argv\":[\"x\"],\"cpu_millis\":100,"
                                         "\"memory_bytes\":4194304}");
  ebb_ctl_add_job (c, j);
  ebb_ctl_store_job (c, j);
  ebb_ctl_task_write (c, &j->tasks[0]);
  ebb_ctl_store_commit (c);
  uint64_t seq0 = ebb_ctl_store_last_seq (c);
  size_t out0 = c->n_outbox;
  cleanup_free char *hb = ebb_xasprintf (
      "{\"seq\":2,\"url\":\"unix:/a.sock\",\"node\":{\"capacity\":{\"cpu_millis\":2000,"
      "\"memory_bytes\":1073741824}},\"tasks\":[{\"id\":\"j%" PRIu64
      "-t0-g1\",\"state\":\"running\"}]}",
      j->id);
  o = json_tokener_parse (hb);
  CU_ASSERT_EQUAL (ebb_ctl_heartbeat (c, "nx", o, NULL), 0);
  json_object_put (o);
  CU_ASSERT_EQUAL (c->n_outbox, out0 + 1);
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_store_last_seq (c), seq0 + 1);
  CU_ASSERT (ebb_ctl_store_in_transaction (c)); /* committed by the flush, then sent */
  json_object *d = ebb_ctl_store_decisions (c, seq0, 10);
  json_object *e = json_object_array_get_idx (d, 0), *v;
  CU_ASSERT (e && json_object_object_get_ex (e, "action", &v)
             && strcmp (json_object_get_string (v), "fence") == 0);
  CU_ASSERT (e && json_object_object_get_ex (e, "generation", &v)
             && json_object_get_int64 (v) == 1);
  CU_ASSERT (e && json_object_object_get_ex (e, "node", &v)
             && strcmp (json_object_get_string (v), "nx") == 0);
  json_object_put (d);
  ebb_ctl_store_commit (c);
  ctlfix_ctl_del (c);
}

/* A node's calls wait for its fence (outbox.c): held after the flush that sends the fence,
 * dropped when the node is lost before the answer (and its fence sent again when back), and
 * a call decided for a lost node is dropped at once. The fence goes to a socket that does not
 * exist: its answer never comes while the loop does not run. */
static void
test_calls_wait_for_fence (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  CU_ASSERT_EQUAL_FATAL (sd_event_new (&c->event), 0);
  c->client = ebb_http_client_new (c->event, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c->client);
  c->epoch = 5;
  cleanup_free char *url = ebb_xasprintf ("unix:%s/none.sock", ctlfix_dir);
  CU_ASSERT_EQUAL_FATAL (ebb_ctl_add_node (c, node_new ("nf", url)), 0);
  ebb_ctl_node *n = c->nodes[c->n_nodes - 1];
  int idx = (int)c->n_nodes - 1;
  n->state = NODE_READY;
  ebb_ctl_job *j = ctlfix_job_new (77, "j", CLS_LONG, 1);
  ebb_ctl_send_delete (c, &j->tasks[0], 1, idx, CALL_FORGET);
  ebb_ctl_send_delete (c, &j->tasks[0], 2, idx, CALL_FORGET);
  ebb_ctl_flush (c);
  CU_ASSERT_EQUAL (n->fenced, 5);
  CU_ASSERT_EQUAL (n->fence_ok, 0);
  CU_ASSERT_EQUAL_FATAL (n->n_held, 2);
  CU_ASSERT_STRING_EQUAL (n->held[0]->path, "/v1/tasks/j77-t0-g1?request_id=j77-t0-g1-e5-F0");
  CU_ASSERT_EQUAL (n->held[1]->generation, 2); /* in the order decided */
  CU_ASSERT_EQUAL (j->ncalls, 2);
  /* Lost before the answer: dropped, and fenced again at the next flush. */
  n->state = NODE_LOST;
  ebb_ctl_outbox_node_reset (c, idx);
  CU_ASSERT_EQUAL (n->n_held, 0);
  CU_ASSERT_EQUAL (n->fenced, 0);
  ebb_ctl_send_delete (c, &j->tasks[0], 3, idx, CALL_FORGET);
  ebb_ctl_flush (c);
  CU_ASSERT_EQUAL (n->fenced, 5);
  CU_ASSERT_EQUAL (n->n_held, 0);   /* decided for a lost node: dropped, not held */
  ebb_http_client_free (c->client); /* the fences end (ECANCELED) */
  c->client = NULL;
  ebb_ctl_job_free (j);
  ctlfix_ctl_del (c);
}

/* Node n0's heartbeat number seq with the task list tasks (JSON). */
static void
hb_n0 (ebb_ctl *c, int seq, const char *tasks)
{
  cleanup_free char *hb = ebb_xasprintf (
      "{\"seq\":%d,\"url\":\"unix:/n0.sock\",\"node\":{\"capacity\":{\"cpu_millis\":1000,"
      "\"memory_bytes\":1073741824}},\"tasks\":%s}",
      seq, tasks);
  json_object *o = json_tokener_parse (hb);
  CU_ASSERT_EQUAL (ebb_ctl_heartbeat (c, "n0", o, NULL), 0);
  json_object_put (o);
}

/* Node n0 with one CPU, and a job of one task launched there (starting). */
static ebb_ctl_task *
n0_starting (ebb_ctl *c, const char *name)
{
  ctlfix_nodes_report (c, 1, 1000, INT64_C (1) << 30, 1);
  ebb_ctl_job *j = ctlfix_submit (c, name, CLS_LONG, 1);
  CU_ASSERT_EQUAL_FATAL (j->tasks[0].state, TASK_STARTING);
  return &j->tasks[0];
}

/* A task whose exit a heartbeat reports before the launch's answer is back (a task of a few
 * milliseconds) ran: it has its start time (bench/ha-failover.sh waited for it in vain). */
static void
test_exit_before_launch_answer (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  ebb_ctl_task *t = n0_starting (c, "quick");
  CU_ASSERT_EQUAL (t->started_at, 0);
  cleanup_free char *tasks = ebb_xasprintf ("[{\"id\":\"j%" PRIu64 "-t0-g%" PRIu64
                                            "\",\"state\":\"exited\",\"exit_status\":0}]",
                                            t->job->id, t->generation);
  hb_n0 (c, 2, tasks);
  CU_ASSERT_EQUAL (t->state, TASK_EXITED);
  CU_ASSERT (t->started_at > 0);
  ebb_ctl_store_commit (c);
  ctlfix_ctl_del (c);
}

/* A task its agent no longer reports is lost on its node after three full reports in a row
 * without it, never while it starts, and a report that has it starts the count again
 * (issue 20: sched-reconcile.c, ebb_ctl_reconcile_missing). */
static void
test_task_missing (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  ebb_ctl_task *t = n0_starting (c, "gone");
  uint64_t gen = t->generation;
  cleanup_free char *has = ebb_xasprintf (
      "[{\"id\":\"j%" PRIu64 "-t0-g%" PRIu64 "\",\"state\":\"running\"}]", t->job->id, gen);
  hb_n0 (c, 2, "[]"); /* built before the launch reached the agent */
  hb_n0 (c, 3, "[]");
  CU_ASSERT_EQUAL (t->state, TASK_STARTING);
  hb_n0 (c, 4, has);
  CU_ASSERT_EQUAL_FATAL (t->state, TASK_RUNNING);
  hb_n0 (c, 5, "[]");
  hb_n0 (c, 6, "[]");
  hb_n0 (c, 7, has);
  hb_n0 (c, 8, "[]");
  hb_n0 (c, 9, "[]");
  CU_ASSERT_EQUAL (t->state, TASK_RUNNING); /* never three in a row */
  CU_ASSERT_EQUAL (t->generation, gen);
  hb_n0 (c, 10, "[]");
  /* Placed again (slot mode: its slot a ghost, the policy rebuilt). */
  CU_ASSERT_EQUAL (t->state, TASK_STARTING);
  CU_ASSERT_EQUAL (t->generation, gen + 1);
  CU_ASSERT_EQUAL (c->m.tasks_lost, 1);
  ebb_ctl_store_commit (c);
  ctlfix_ctl_del (c);
}

/* The counters as a full scan computes them. */
typedef struct
{
  ebb_ctl_counts cl;
  uint32_t *ntasks, *nstarting;
  uint64_t *cpu, *mem;
} scan_counts;

static void
scan (ebb_ctl *c, scan_counts *sc)
{
  memset (&sc->cl, 0, sizeof sc->cl);
  sc->ntasks = ebb_xcalloc (c->n_nodes + 1, sizeof *sc->ntasks);
  sc->nstarting = ebb_xcalloc (c->n_nodes + 1, sizeof *sc->nstarting);
  sc->cpu = ebb_xcalloc (c->n_nodes + 1, sizeof *sc->cpu);
  sc->mem = ebb_xcalloc (c->n_nodes + 1, sizeof *sc->mem);
  for (size_t i = 0; i < c->n_jobs; i++)
    {
      ebb_ctl_job *j = c->jobs[i];
      sc->cl.queued_jobs[j->cls] += j->state == JOB_QUEUED;
      sc->cl.queued_by_reason[j->reason.code] += j->state == JOB_QUEUED;
      uint32_t term = 0, failed = 0, killed = 0, started = 0;
      for (uint32_t k = 0; k < j->ntasks; k++)
        {
          ebb_ctl_task *t = &j->tasks[k];
          bool holds = t->state == TASK_STARTING || t->state == TASK_RUNNING;
          sc->cl.running += holds;
          sc->cl.suspended += t->state == TASK_SUSPENDED;
          sc->cl.pending_by_reason[t->reason.code] += t->state == TASK_PENDING;
          sc->cl.alloc_cpu_millis += holds ? t->cpu_millis : 0;
          sc->cl.alloc_memory_bytes += holds ? t->memory_bytes : 0;
          if (t->node >= 0 && (holds || t->state == TASK_SUSPENDED))
            {
              sc->ntasks[t->node]++;
              sc->nstarting[t->node] += t->state == TASK_STARTING;
              sc->cpu[t->node] += holds ? t->cpu_millis : 0;
              sc->mem[t->node] += holds ? t->memory_bytes : 0;
            }
          term += t->state >= TASK_EXITED;
          sc->cl.unfinished += t->state < TASK_EXITED;
          failed += t->state == TASK_FAILED;
          killed += t->state == TASK_KILLED;
          started += t->state != TASK_PENDING;
        }
      CU_ASSERT_EQUAL (j->n_terminal, term);
      CU_ASSERT_EQUAL (j->n_failed, failed);
      CU_ASSERT_EQUAL (j->n_killed, killed);
      CU_ASSERT_EQUAL (j->n_started, started);
    }
}

/* Returns true when the kept counters equal a full scan. */
static bool
counters_agree (ebb_ctl *c)
{
  scan_counts sc;
  scan (c, &sc);
  bool ok = memcmp (&sc.cl, &c->counts, sizeof sc.cl) == 0;
  for (size_t i = 0; i < c->n_nodes; i++)
    ok = ok && sc.ntasks[i] == c->nodes[i]->ntasks && sc.nstarting[i] == c->nodes[i]->nstarting
         && sc.cpu[i] == c->nodes[i]->alloc_cpu_millis
         && sc.mem[i] == c->nodes[i]->alloc_memory_bytes;
  free (sc.ntasks);
  free (sc.nstarting);
  free (sc.cpu);
  free (sc.mem);
  return ok;
}

/* Makes node nx ready (a heartbeat with 3 CPUs and a URL): the policy gets its slots. */
static void
node_nx (ebb_ctl *c)
{
  json_object *o = json_tokener_parse (
      "{\"seq\":1,\"url\":\"unix:/a.sock\",\"node\":{\"capacity\":{\"cpu_millis\":3000,"
      "\"memory_bytes\":1073741824}}}");
  CU_ASSERT_EQUAL (ebb_ctl_heartbeat (c, "nx", o, NULL), 0);
  json_object_put (o);
}

/* Adopts the cgroup cg on nx for a new job without an allocation asked, and gives it the
 * agent's answer answer. Returns its task. */
static ebb_ctl_task *
adopt_answered (ebb_ctl *c, const char *cg, const char *answer)
{
  ebb_ctl_job *j = ctlfix_job_new (c->next_job_id++, cg, CLS_LONG, 1);
  ebb_ctl_task *t = &j->tasks[0];
  cleanup_free char *body = ebb_xasprintf ("{\"adopt\":{\"node\":\"nx\",\"cgroup\":\"%s\"}}", cg);
  json_object *o = json_tokener_parse (body);
  ebb_ctl_task_set_spec (t, ebb_ctl_adopt_parse_task (o, 0, NULL));
  json_object_put (o);
  CU_ASSERT_PTR_NOT_NULL_FATAL (t->spec);
  ebb_ctl_add_job (c, j);
  ebb_ctl_adopt_prepare (c, j);
  ebb_http_result res = { 0 };
  res.status = 201;
  res.json = json_tokener_parse (answer);
  ebb_ctl_adopt_done (c, t, &res);
  json_object_put (res.json);
  CU_ASSERT_EQUAL (t->state, TASK_RUNNING);
  return t;
}

static void
test_adopt_validation (void)
{
  const char *bad[] = {
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c\",\"cgroup\":\"/x\"}}", /* both */
    "{\"adopt\":{\"node\":\"nx\"}}",                                       /* neither */
    "{\"adopt\":{\"container\":\"c\"}}",                                   /* no node */
    "{\"adopt\":{\"node\":\"\",\"container\":\"c\"}}",
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c\"},\"argv\":[\"true\"]}", /* argv too */
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c\"},\"env\":{}}",
    "{\"adopt\":{\"node\":\"nx\",\"cgroup\":\"relative\"}}",
    "{\"adopt\":{\"node\":\"nx\",\"cgroup\":\"/x\",\"runtime\":\"docker\"}}",
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c\",\"runtime\":\"lxc\"}}",
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"a b\"}}",
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c\",\"extra\":1}}",
    "{\"adopt\":{\"node\":7,\"container\":\"c\"}}",
    "{\"adopt\":\"c\"}",
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c\"},\"cpu_millis\":1}",
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c\"},\"memory_bytes\":\"1G\"}",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      json_object *o = json_tokener_parse (bad[i]);
      CU_ASSERT_PTR_NOT_NULL_FATAL (o);
      ebb_error *err = NULL;
      json_object *spec = ebb_ctl_adopt_parse_task (o, i, &err);
      if (spec)
        CU_FAIL (bad[i]);
      CU_ASSERT_PTR_NOT_NULL (err);
      json_object_put (spec);
      ebb_error_free (&err);
      json_object_put (o);
    }

  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  node_nx (c);
  const char *good[] = {
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c1\",\"runtime\":\"docker\"}}",
    "{\"adopt\":{\"node\":\"nx\",\"cgroup\":\"/ebb/x\"},\"cpu_millis\":500,"
    "\"memory_bytes\":67108864}",
    "{\"adopt\":{\"node\":\"nx\",\"container\":\"c1\"}}", /* twice in one job */
    "{\"adopt\":{\"node\":\"ny\",\"container\":\"c2\"}}", /* unknown node */
  };
  json_object *specs[4];
  for (size_t i = 0; i < 4; i++)
    {
      json_object *o = json_tokener_parse (good[i]);
      specs[i] = ebb_ctl_adopt_parse_task (o, i, NULL);
      CU_ASSERT_PTR_NOT_NULL_FATAL (specs[i]);
      json_object_put (o);
    }
  size_t decisions0 = ebb_ctl_store_last_seq (c), jobs0 = c->n_jobs;
  CU_ASSERT_EQUAL (ebb_ctl_adopt_check (c, specs, 2, NULL), 0);
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_ctl_adopt_check (c, specs, 3, &err), 409);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_ctl_adopt_check (c, specs + 3, 1, &err), 404);
  CU_ASSERT_PTR_NOT_NULL (err);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_ctl_store_last_seq (c), decisions0); /* nothing changed */
  CU_ASSERT_EQUAL (c->n_jobs, jobs0);

  /* An accepted job: the adoption is decided and stored before its call, and the agent's
   * answer (limits from the container's labels) places the task on nx. */
  ebb_ctl_job *j = ctlfix_job_new (c->next_job_id++, "adopted", CLS_LONG, 1);
  ebb_ctl_task *t = &j->tasks[0];
  ebb_ctl_task_set_spec (t, specs[0]);
  ebb_ctl_add_job (c, j);
  CU_ASSERT (ebb_ctl_task_is_adopt (t));
  CU_ASSERT_STRING_EQUAL (t->adopt->container, "c1");
  ebb_ctl_adopt_prepare (c, j);
  CU_ASSERT_EQUAL (t->state, TASK_STARTING);
  CU_ASSERT_EQUAL (t->generation, 1);
  CU_ASSERT_STRING_EQUAL (c->nodes[t->node]->name, "nx");
  CU_ASSERT_EQUAL (ebb_ctl_store_last_seq (c), decisions0 + 1);
  CU_ASSERT_EQUAL (ebb_ctl_adopt_check (c, specs + 2, 1, NULL), 409); /* c1 is taken now */
  ebb_http_result res = { 0 };
  res.status = 201;
  res.json = json_tokener_parse ("{\"id\":\"j1-t0-g1\",\"source\":\"docker\",\"limits\":"
                                 "{\"cpu_millis\":1500,\"memory_bytes\":134217728}}");
  ebb_ctl_adopt_done (c, t, &res);
  json_object_put (res.json);
  CU_ASSERT_EQUAL (t->state, TASK_RUNNING);
  CU_ASSERT_EQUAL (t->cpu_millis, 1500);
  CU_ASSERT_EQUAL (t->memory_bytes, 134217728);
  uint32_t held = 0;
  for (uint32_t s = 0; s < c->n_slots; s++)
    held += c->slots[s].task == t;
  CU_ASSERT_EQUAL (held, 1); /* slot mode (fifo): one slot of nx is busy for the policy */
  /* A heartbeat may show the adopted task running before the agent's answer arrives: the
   * answer still gives it its allocation and its slot, once. */
  ebb_ctl_job *j2 = ctlfix_job_new (c->next_job_id++, "adopted2", CLS_LONG, 1);
  ebb_ctl_task *t2 = &j2->tasks[0];
  json_object *o = json_tokener_parse ("{\"adopt\":{\"node\":\"nx\",\"cgroup\":\"/ebb/y\"}}");
  ebb_ctl_task_set_spec (t2, ebb_ctl_adopt_parse_task (o, 0, NULL)); /* no allocation asked */
  json_object_put (o);
  CU_ASSERT_PTR_NOT_NULL_FATAL (t2->spec);
  ebb_ctl_add_job (c, j2);
  ebb_ctl_adopt_prepare (c, j2);
  cleanup_free char *hb = ebb_xasprintf (
      "{\"seq\":2,\"url\":\"unix:/a.sock\",\"node\":{\"capacity\":{\"cpu_millis\":3000,"
      "\"memory_bytes\":1073741824}},\"tasks\":[{\"id\":\"j%llu-t0-g1\",\"state\":\"running\"}]}",
      (unsigned long long)j2->id);
  o = json_tokener_parse (hb);
  CU_ASSERT_EQUAL (ebb_ctl_heartbeat (c, "nx", o, NULL), 0);
  json_object_put (o);
  CU_ASSERT_EQUAL (t2->state, TASK_RUNNING);
  /* The cgroup's own limits, as the agent shows them: a quarter of a CPU, 128 MiB. */
  res.json = json_tokener_parse ("{\"source\":\"cgroup\",\"limits\":{\"cpu_millis\":0,"
                                 "\"memory_bytes\":0},\"applied\":{\"cpu_max\":\"25000 100000\","
                                 "\"memory_high\":\"max\",\"memory_max\":134217728}}");
  ebb_ctl_adopt_done (c, t2, &res);
  ebb_ctl_adopt_done (c, t2, &res);
  json_object_put (res.json);
  held = 0;
  for (uint32_t s = 0; s < c->n_slots; s++)
    held += c->slots[s].task == t2;
  CU_ASSERT_EQUAL (held, 1);
  CU_ASSERT_EQUAL (t2->cpu_millis, 250);
  CU_ASSERT_EQUAL (t2->memory_bytes, 134217728);
  /* What the agent reports is bounded: at most nx's capacity (3000 millicores, 1 GiB), at
   * least what a task may hold; nothing reported gives the defaults. */
  ebb_ctl_task *t3
      = adopt_answered (c, "/ebb/z", "{\"limits\":{\"cpu_millis\":5000,\"memory_bytes\":1024}}");
  CU_ASSERT_EQUAL (t3->cpu_millis, 3000);
  CU_ASSERT_EQUAL (t3->memory_bytes, EBB_CTL_MEMORY_BYTES_MIN);
  ebb_ctl_task *t4
      = adopt_answered (c, "/ebb/w", "{\"limits\":{\"cpu_millis\":1,\"memory_bytes\":4294967296}}");
  CU_ASSERT_EQUAL (t4->cpu_millis, EBB_CTL_CPU_MILLIS_MIN);
  CU_ASSERT_EQUAL (t4->memory_bytes, 1073741824);
  ebb_ctl_task *t5 = adopt_answered (c, "/ebb/v", "{\"source\":\"cgroup\"}");
  CU_ASSERT_EQUAL (t5->cpu_millis, 1000);
  CU_ASSERT_EQUAL (t5->memory_bytes, 64ULL << 20);
  CU_ASSERT (counters_agree (c));
  for (size_t i = 1; i < 4; i++)
    json_object_put (specs[i]);
  uint64_t jid = j->id;
  ctlfix_ctl_del (c);

  /* A restart reloads it as an adopting task that runs on nx with its allocation. */
  c = ctl_new (&cfg);
  j = ebb_ctl_job_find (c, jid);
  CU_ASSERT_PTR_NOT_NULL_FATAL (j);
  t = &j->tasks[0];
  CU_ASSERT (ebb_ctl_task_is_adopt (t));
  CU_ASSERT_EQUAL (t->state, TASK_RUNNING);
  CU_ASSERT_EQUAL (t->cpu_millis, 1500);
  CU_ASSERT_EQUAL (t->memory_bytes, 134217728);
  CU_ASSERT (t->node >= 0 && strcmp (c->nodes[t->node]->name, "nx") == 0);
  ctlfix_ctl_del (c);
}

/* A node reloaded from the store has the slots of its capacity, as its heartbeat gave them:
 * a new leader (or a restarted controller) builds its first policy over every ready node,
 * not only over those that happened to heartbeat before the first rebuild. A node with no
 * slot stays out of the policy until a rebuild, which waits for no task placed: under a
 * steady load (the fault cycle's fleet) that was never, and a failover left the new leader
 * on two of 202 nodes. */
static void
test_reload_node_slots (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  json_object *o = json_tokener_parse ("{\"seq\":1,\"url\":\"unix:/a.sock\",\"node\":{\"capacity\":"
                                       "{\"cpu_millis\":3000,\"memory_bytes\":1073741824}}}");
  CU_ASSERT_EQUAL (ebb_ctl_heartbeat (c, "ns", o, NULL), 0);
  json_object_put (o);
  ctlfix_ctl_del (c);

  c = ctl_new (&cfg);
  CU_ASSERT_EQUAL_FATAL (c->n_nodes, 1);
  CU_ASSERT_EQUAL (c->nodes[0]->nslots, 3);
  ebb_ctl_rebuild (c);
  CU_ASSERT_EQUAL (c->n_slots, 3);
  ctlfix_ctl_del (c);
}

static void
test_index_counters (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  ebb_rng rng;
  ebb_rng_seed (&rng, 42);
  enum
  {
    NODES = 300,
    JOBS = 40,
    OPS = 20000
  };
  for (int i = 0; i < NODES; i++)
    {
      char name[32];
      snprintf (name, sizeof name, "node-%d", i);
      ebb_ctl_node *n = node_new (name, NULL);
      CU_ASSERT_EQUAL_FATAL (ebb_ctl_add_node (c, n), 0);
      ebb_ctl_store_node (c, n);
    }
  uint64_t next_id = 1;
  for (int i = 0; i < JOBS; i++)
    {
      char name[32];
      snprintf (name, sizeof name, "job-%d", i);
      ebb_ctl_class cls = (ebb_ctl_class)ebb_rng_below (&rng, 3);
      ebb_ctl_job *j
          = ctlfix_job_new (next_id++, name, cls, 1 + (uint32_t)ebb_rng_below (&rng, 20));
      if (i % 3)
        j->request_id = ebb_xasprintf ("rid-%d", i);
      for (uint32_t k = 0; k < j->ntasks; k++)
        {
          ebb_ctl_task *t = &j->tasks[k];
          t->cpu_millis = 100 * (1 + ebb_rng_below (&rng, 40));
          t->memory_bytes = (1 + ebb_rng_below (&rng, 64)) << 20;
          /* The store keeps the demand in the spec, as a submission does. */
          cleanup_free char *spec = ebb_xasprintf ("{\"argv\":[\"x\"],\"cpu_millis\":%" PRIu64
                                                   ",\"memory_bytes\":%" PRIu64 "}",
                                                   t->cpu_millis, t->memory_bytes);
          t->spec = json_tokener_parse (spec);
          ebb_ctl_task_write (c, t);
        }
      ebb_ctl_store_job (c, j);
      ebb_ctl_add_job (c, j);
    }
  CU_ASSERT (counters_agree (c));
  for (int op = 0; op < OPS; op++)
    {
      ebb_ctl_job *j = c->jobs[ebb_rng_below (&rng, c->n_jobs)];
      ebb_ctl_task *t = &j->tasks[ebb_rng_below (&rng, j->ntasks)];
      ebb_ctl_task_set_state (c, t, (ebb_ctl_task_state)ebb_rng_below (&rng, TASK_N_STATES));
      ebb_ctl_task_set_node (c, t,
                             ebb_rng_below (&rng, 4) == 0 ? -1 : (int)ebb_rng_below (&rng, NODES));
      if (op % 2)
        ebb_ctl_task_write (c, t); /* the counters move whether or not it is written */
      ebb_ctl_job_update (c, j);
      if (op % 997 == 0)
        CU_ASSERT (counters_agree (c));
    }
  CU_ASSERT (counters_agree (c));
  for (size_t i = 0; i < c->n_jobs; i++) /* what a restart reloads below */
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      ebb_ctl_task_write (c, &c->jobs[i]->tasks[k]);
  /* An adopted task: counted on its node while starting (no allocation asked), then with
   * the allocation the agent's answer gives it, then ended. */
  ebb_ctl_job *aj = ctlfix_job_new (next_id++, "adopted", CLS_LONG, 1);
  ebb_ctl_task *at = &aj->tasks[0];
  json_object *ao = json_tokener_parse ("{\"adopt\":{\"node\":\"node-5\",\"cgroup\":\"/x\"}}");
  ebb_ctl_task_set_spec (at, ebb_ctl_adopt_parse_task (ao, 0, NULL));
  json_object_put (ao);
  CU_ASSERT_PTR_NOT_NULL_FATAL (at->spec);
  ebb_ctl_store_job (c, aj);
  ebb_ctl_task_write (c, at);
  ebb_ctl_add_job (c, aj);
  uint64_t cpu5 = c->nodes[5]->alloc_cpu_millis, running = c->counts.running;
  ebb_ctl_adopt_prepare (c, aj);
  ebb_ctl_task_write (c, at); /* as the submission does after preparing it */
  CU_ASSERT_EQUAL (at->state, TASK_STARTING);
  CU_ASSERT_EQUAL (at->node, 5);
  CU_ASSERT_EQUAL (c->counts.running, running + 1);
  CU_ASSERT (counters_agree (c));
  ebb_http_result ares = { 0 };
  ares.status = 201;
  ares.json = json_tokener_parse ("{\"limits\":{\"cpu_millis\":1500,\"memory_bytes\":134217728}}");
  ebb_ctl_adopt_done (c, at, &ares);
  json_object_put (ares.json);
  CU_ASSERT_EQUAL (at->state, TASK_RUNNING);
  CU_ASSERT_EQUAL (c->nodes[5]->alloc_cpu_millis, cpu5 + 1500);
  CU_ASSERT (counters_agree (c));
  ebb_ctl_finish_task (c, at, TASK_EXITED, "test");
  CU_ASSERT_EQUAL (c->nodes[5]->alloc_cpu_millis, cpu5);
  CU_ASSERT_EQUAL (c->counts.running, running);
  CU_ASSERT (counters_agree (c));
  /* Every name finds its node, an unknown one none. */
  bool found = true;
  for (int i = 0; i < NODES; i++)
    {
      char name[32];
      snprintf (name, sizeof name, "node-%d", i);
      int idx = -1;
      found = found && ebb_ctl_node_find (c, name, &idx) == c->nodes[i] && idx == i;
    }
  CU_ASSERT (found);
  CU_ASSERT_PTR_NULL (ebb_ctl_node_find (c, "node-300", NULL));
  CU_ASSERT_PTR_NULL (ebb_ctl_node_find (c, "", NULL));
  /* Every request id finds its job, an unknown one none. */
  for (size_t i = 0; i < c->n_jobs; i++)
    if (c->jobs[i]->request_id)
      found = found && ebb_ctl_index_find_rid (c, c->jobs[i]->request_id) == c->jobs[i];
  CU_ASSERT (found);
  CU_ASSERT_PTR_NULL (ebb_ctl_index_find_rid (c, "rid-0"));
  CU_ASSERT_PTR_NULL (ebb_ctl_index_find_rid (c, NULL));
  ebb_ctl_counts before = c->counts;
  ctlfix_ctl_del (c);

  /* Reloaded from the store: the same counters, the same index. */
  c = ctl_new (&cfg);
  CU_ASSERT_EQUAL (c->n_nodes, NODES);
  CU_ASSERT (counters_agree (c));
  CU_ASSERT (memcmp (&before, &c->counts, sizeof before) == 0);
  int idx = -1;
  CU_ASSERT_PTR_NOT_NULL (ebb_ctl_node_find (c, "node-123", &idx));
  CU_ASSERT (idx >= 0 && strcmp (c->nodes[idx]->name, "node-123") == 0);
  /* A finished job stays in the store only; an unfinished one is in the index too. */
  ebb_ctl_job *loaded = NULL;
  ebb_ctl_job *r = ebb_ctl_job_get (c, 8, &loaded);
  CU_ASSERT (r && strcmp (r->name, "job-7") == 0 && strcmp (r->request_id, "rid-7") == 0);
  CU_ASSERT (r && (loaded != NULL) == (r->state >= JOB_DONE));
  CU_ASSERT ((ebb_ctl_index_find_rid (c, "rid-7") == r) == (loaded == NULL));
  ebb_ctl_job_free (loaded);
  /* The adopted task's allocation, written into its spec after its row existed, too (its
   * job finished: read from the store). */
  r = ebb_ctl_job_get (c, next_id - 1, &loaded);
  CU_ASSERT_FATAL (r && loaded && strcmp (r->name, "adopted") == 0);
  CU_ASSERT_EQUAL (r->tasks[0].cpu_millis, 1500);
  CU_ASSERT_EQUAL (r->tasks[0].memory_bytes, 134217728);
  ebb_ctl_job_free (loaded);
  ctlfix_ctl_del (c);
}

/* Slot mode (sparrow, surplus probes kept): a finished batch is forgotten and its id goes to
 * the next batch; one whose surplus probe is still on its way is refused at its last task,
 * kept to be asked again, and forgotten at the first tick after the probe is gone. */
static void
test_pjob_forget_slot_mode (void)
{
  ebb_ctl c = { 0 };
  c.cap_pjobs = 4;
  c.pjobs = ebb_xcalloc (c.cap_pjobs, sizeof *c.pjobs);
  c.pjobs_pol = ebb_xcalloc (c.cap_pjobs, sizeof *c.pjobs_pol);
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  p.nnodes = 1; /* every probe on node 0 */
  p.cancel_probes = 0;
  c.pol = ebb_pol_new ("sparrow", &p, c.pjobs_pol, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c.pol);
  ebb_ctl_job *j = ctlfix_job_new (1, "one", CLS_SHORT, 2);
  ebb_ctl_task *ts[2] = { &j->tasks[0], &j->tasks[1] };
  /* Batch a: task 0 alone, two probes; the first binds it, the second is held back. */
  uint32_t a = ebb_ctl_pjob_new (&c, j, ts, 1);
  ebb_pol_job_arrived (c.pol, ebb_ctl_pol_now (&c), a);
  size_t n;
  const ebb_pol_action *act = ebb_pol_actions (c.pol, &n);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  uint32_t late = act[1].arg;
  ebb_pol_probe_arrived (c.pol, ebb_ctl_pol_now (&c), 0, act[0].arg);
  ebb_pol_clear_actions (c.pol);
  ebb_pol_task_finished (c.pol, ebb_ctl_pol_now (&c), 0, a, 0);
  ebb_pol_clear_actions (c.pol);
  ebb_ctl_pjob_forget (&c, a);
  CU_ASSERT_EQUAL (c.n_pjob_free, 0); /* its probe is on its way */
  CU_ASSERT_EQUAL_FATAL (c.n_pjob_later, 1);
  CU_ASSERT_EQUAL (c.pjob_later[0], a);
  CU_ASSERT_EQUAL (c.pjobs[a].n, 1); /* still known */
  ebb_ctl_pjobs_forget_later (&c);   /* a tick: still on its way */
  CU_ASSERT_EQUAL (c.n_pjob_free, 0);
  CU_ASSERT_EQUAL (c.n_pjob_later, 1);
  ebb_pol_probe_arrived (c.pol, ebb_ctl_pol_now (&c), 0, late); /* surplus: WAKE */
  ebb_pol_clear_actions (c.pol);
  ebb_pol_node_wake (c.pol, ebb_ctl_pol_now (&c), 0);
  ebb_ctl_pjobs_forget_later (&c);
  CU_ASSERT_EQUAL (c.n_pjob_later, 0);
  CU_ASSERT_EQUAL_FATAL (c.n_pjob_free, 1);
  CU_ASSERT_EQUAL (c.pjobs[a].n, 0); /* forgotten */
  /* Batch b (task 1) gets a's id; finished with no probe left, it is forgotten at once. */
  uint32_t b = ebb_ctl_pjob_new (&c, j, ts + 1, 1);
  CU_ASSERT_EQUAL (b, a);
  CU_ASSERT_EQUAL (c.n_pjobs, 1);
  CU_ASSERT_EQUAL (c.pjobs_pol[b].forgotten, 0);
  ebb_pol_job_arrived (c.pol, ebb_ctl_pol_now (&c), b);
  act = ebb_pol_actions (c.pol, &n);
  CU_ASSERT_EQUAL_FATAL (n, 2);
  uint32_t probes[2] = { act[0].arg, act[1].arg };
  ebb_pol_clear_actions (c.pol);
  ebb_ctl_pjob_forget (&c, b); /* not finished: refused, not kept either */
  CU_ASSERT_EQUAL (c.n_pjob_free, 0);
  CU_ASSERT_EQUAL (c.n_pjob_later, 0);
  ebb_pol_probe_arrived (c.pol, ebb_ctl_pol_now (&c), 0, probes[0]);
  ebb_pol_probe_arrived (c.pol, ebb_ctl_pol_now (&c), 0, probes[1]); /* queued */
  ebb_pol_clear_actions (c.pol);
  ebb_pol_task_finished (c.pol, ebb_ctl_pol_now (&c), 0, b, 0); /* the queued one: surplus */
  ebb_pol_clear_actions (c.pol);
  ebb_ctl_pjob_forget (&c, b);
  CU_ASSERT_EQUAL (c.n_pjob_free, 1);
  CU_ASSERT_EQUAL (c.n_pjob_later, 0);
  ebb_ctl_pjob_forget (&c, b); /* a second time: nothing */
  CU_ASSERT_EQUAL (c.n_pjob_free, 1);
  ebb_pol_free (c.pol);
  ebb_ctl_pjobs_clear (&c);
  free (c.pjobs);
  free (c.pjobs_pol);
  free (c.pjob_free);
  free (c.pjob_later);
  ebb_ctl_job_free (j);
}

/* A job of ntasks tasks of 1 CPU, submitted to c's policy as POST /v1/jobs does. */
static ebb_ctl_job *
reason_submit (ebb_ctl *c, const char *name, uint32_t ntasks)
{
  return ctlfix_submit (c, name, CLS_LONG, ntasks);
}

#define REASON_IS(r, want) CU_ASSERT_STRING_EQUAL (ebb_ctl_reason_name ((r).code), want)

#define PENDING_BY(c, code) ((c)->counts.pending_by_reason[REASON_##code])

/* Every waiting task and its job say why (sched-reason.c): no room, draining nodes, parents,
 * the policy's share; an event's reason stays while the task waits; leaving pending clears
 * it, but a failed launch's, which its job keeps too. The job's wait ends at placed_at. */
static void
test_reasons (void)
{
  fresh_store ();
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  ctlfix_nodes_report (c, 1, 1000, INT64_C (1) << 30, 1); /* one slot */
  ebb_ctl_job *a = reason_submit (c, "a", 1);
  CU_ASSERT_EQUAL (a->tasks[0].state, TASK_STARTING);
  CU_ASSERT_EQUAL (a->reason.code, REASON_NONE);
  CU_ASSERT (a->placed_at > 0);
  ebb_ctl_job *b = reason_submit (c, "b", 2);
  CU_ASSERT_EQUAL_FATAL (b->tasks[1].state, TASK_PENDING);
  REASON_IS (b->tasks[0].reason, "no_room");
  REASON_IS (b->tasks[1].reason, "no_room");
  REASON_IS (b->reason, "no_room");
  CU_ASSERT_PTR_NOT_NULL (strstr (b->reason.message, "no free slot"));
  CU_ASSERT_EQUAL (b->placed_at, 0);
  CU_ASSERT_EQUAL (PENDING_BY (c, NO_ROOM), 2);
  CU_ASSERT_EQUAL (c->counts.queued_by_reason[REASON_NO_ROOM], 1);
  CU_ASSERT (counters_agree (c));
  /* The only node big enough drains. */
  c->nodes[0]->state = NODE_DRAINING;
  ebb_ctl_explain_job (c, b);
  REASON_IS (b->tasks[0].reason, "node_draining");
  REASON_IS (b->reason, "node_draining");
  CU_ASSERT_EQUAL (PENDING_BY (c, NODE_DRAINING), 2);
  CU_ASSERT_EQUAL (PENDING_BY (c, NO_ROOM), 0);
  CU_ASSERT_EQUAL (c->counts.queued_by_reason[REASON_NODE_DRAINING], 1);
  CU_ASSERT (counters_agree (c));
  c->nodes[0]->state = NODE_READY;
  /* Parents not ended; the policy's share (what ebb's preemption says). */
  b->tasks[0].dag_held = true;
  c->pjobs_pol[b->tasks[1].pjob].wait = EBB_POL_WAIT_SHARE;
  ebb_ctl_explain_job (c, b);
  REASON_IS (b->tasks[0].reason, "waiting_for_parents");
  REASON_IS (b->tasks[1].reason, "long_work_protected");
  REASON_IS (b->reason, "waiting_for_parents");
  CU_ASSERT_EQUAL (PENDING_BY (c, WAITING_FOR_PARENTS), 1);
  CU_ASSERT_EQUAL (PENDING_BY (c, LONG_WORK_PROTECTED), 1);
  CU_ASSERT (counters_agree (c));
  b->tasks[0].dag_held = false;
  c->pjobs_pol[b->tasks[1].pjob].wait = EBB_POL_WAIT_NONE;
  /* An event's reason is kept while the task waits. */
  ebb_ctl_task_set_reason (c, &b->tasks[0], REASON_NODE_LOST, "queued again: %s", "node lost");
  ebb_ctl_explain_job (c, b);
  CU_ASSERT_EQUAL (PENDING_BY (c, NODE_LOST), 1);
  CU_ASSERT (counters_agree (c));
  REASON_IS (b->tasks[0].reason, "node_lost");
  CU_ASSERT_STRING_EQUAL (b->tasks[0].reason.message, "queued again: node lost");
  REASON_IS (b->tasks[1].reason, "no_room");
  /* Leaving pending clears a task's reason; none pending, its job's too, and its wait ends. */
  ebb_ctl_task_set_state (c, &b->tasks[0], TASK_STARTING);
  CU_ASSERT_EQUAL (b->tasks[0].reason.code, REASON_NONE);
  CU_ASSERT_PTR_NULL (b->tasks[0].reason.message);
  CU_ASSERT_EQUAL (PENDING_BY (c, NODE_LOST), 0); /* out under the code it had */
  CU_ASSERT (counters_agree (c));
  ebb_ctl_job_update (c, b);
  CU_ASSERT_EQUAL (b->placed_at, 0);
  ebb_ctl_task_set_state (c, &b->tasks[1], TASK_STARTING);
  ebb_ctl_job_update (c, b);
  CU_ASSERT_EQUAL (b->reason.code, REASON_NONE);
  CU_ASSERT (b->placed_at >= b->submitted_at);
  /* A failed launch: the agent's detail on the task and its job, kept. */
  ebb_ctl_task_set_state (c, &b->tasks[1], TASK_FAILED);
  ebb_ctl_launch_failed (c, &b->tasks[1], "agent n0: argv[0] /x: No such file or directory");
  ebb_ctl_explain_job (c, b);
  ebb_ctl_job_update (c, b);
  REASON_IS (b->tasks[1].reason, "launch_failed");
  REASON_IS (b->reason, "launch_failed");
  CU_ASSERT_STRING_EQUAL (b->reason.message,
                          "task 1: agent n0: argv[0] /x: No such file or directory");
  CU_ASSERT (counters_agree (c));
  for (size_t k = 0; k < EBB_CTL_REASON_N; k++)
    CU_ASSERT_EQUAL (c->counts.pending_by_reason[k] + c->counts.queued_by_reason[k], 0);
  /* The store keeps them and the end of the wait: a job read back says the same. */
  ebb_ctl_task_write (c, &b->tasks[1]);
  ebb_ctl_store_job (c, b);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
  ebb_ctl_job *r = ebb_ctl_store_job_get (c, b->id);
  CU_ASSERT_PTR_NOT_NULL_FATAL (r);
  REASON_IS (r->tasks[1].reason, "launch_failed");
  CU_ASSERT_STRING_EQUAL (r->tasks[1].reason.message, b->tasks[1].reason.message);
  CU_ASSERT_STRING_EQUAL (r->reason.message, b->reason.message);
  CU_ASSERT_EQUAL (r->tasks[0].reason.code, REASON_NONE);
  CU_ASSERT_DOUBLE_EQUAL (r->placed_at, b->placed_at, 1e-6);
  ebb_ctl_job_free (r);
  ctlfix_ctl_del (c);
}

/* A store made before the reasons (no placed_at, reason columns) opens, its jobs load,
 * and a job written to it reads back with its reason. */
static void
test_store_before_reasons (void)
{
  fresh_store ();
  cleanup_free char *dir = ebb_xasprintf ("%s/state", ctlfix_dir);
  CU_ASSERT_EQUAL_FATAL (mkdir (dir, 0700), 0);
  cleanup_free char *path = ebb_xasprintf ("%s/controller.db", dir);
  sqlite3 *db = NULL;
  CU_ASSERT_EQUAL_FATAL (sqlite3_open (path, &db), SQLITE_OK);
  CU_ASSERT_EQUAL (
      sqlite3_exec (db,
                    "CREATE TABLE jobs (id INTEGER PRIMARY KEY, request_id TEXT, name TEXT,"
                    " class INTEGER, est REAL, state INTEGER, submitted_at REAL, started_at REAL,"
                    " finished_at REAL, answer TEXT, ntasks INTEGER);"
                    "CREATE TABLE tasks (job INTEGER, idx INTEGER, spec TEXT, state INTEGER,"
                    " node TEXT, generation INTEGER, exit_status INTEGER, has_exit INTEGER,"
                    " suspensions INTEGER, started_at REAL, finished_at REAL, kill_wanted INTEGER,"
                    " PRIMARY KEY (job, idx));"
                    "INSERT INTO jobs VALUES (1, 'r1', 'old', 1, 0, 2, 10, 11, 12, '{}', 1);"
                    "INSERT INTO tasks VALUES (1, 0, '{\"argv\":[\"x\"]}', 4, NULL, 1, 0, 1, 0,"
                    " 11, 12, 0);",
                    NULL, NULL, NULL),
      SQLITE_OK);
  sqlite3_close (db);
  ebb_ctl_config cfg;
  ebb_ctl *c = ctl_new (&cfg);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c->store);
  ebb_ctl_job *old = ebb_ctl_store_job_get (c, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL (old);
  CU_ASSERT_STRING_EQUAL (old->name, "old");
  CU_ASSERT_EQUAL (old->reason.code, REASON_NONE);
  CU_ASSERT_EQUAL (old->placed_at, 0);
  ebb_ctl_job_free (old);
  ebb_ctl_job *j = ctlfix_job_new (2, "new", CLS_LONG, 1);
  j->tasks[0].spec = json_tokener_parse ("{\"argv\":[\"x\"]}");
  ebb_ctl_reason_set (&j->reason, REASON_NO_ROOM, "needs %d CPU", 2);
  ebb_ctl_task_write (c, &j->tasks[0]);
  ebb_ctl_store_job (c, j);
  CU_ASSERT_EQUAL (ebb_ctl_store_commit (c), 0);
  ebb_ctl_job *back = ebb_ctl_store_job_get (c, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL (back);
  REASON_IS (back->reason, "no_room");
  CU_ASSERT_STRING_EQUAL (back->reason.message, "needs 2 CPU");
  ebb_ctl_job_free (back);
  ebb_ctl_job_free (j);
  ctlfix_ctl_del (c);
}

/* The histograms of model-metrics.c, observed by the writer of a task's state: a short
 * job's first start only (not a start again after a node loss, not a long job's), a
 * suspension's length (not one whose start a restart lost). */
static void
test_metrics_observe (void)
{
  static ebb_ctl c; /* large (the ring of decision times): not on the stack */
  memset (&c, 0, sizeof c);
  ebb_ctl_metrics_init (&c);
  ebb_ctl_job *j = ctlfix_job_new (1, "short", CLS_SHORT, 2);
  ebb_ctl_job *l = ctlfix_job_new (2, "long", CLS_LONG, 1);
  j->submitted_at = l->submitted_at = ebb_ctl_now () - 2;
  ebb_ctl_task *t = &j->tasks[0];
  ebb_ctl_task_set_state (&c, t, TASK_STARTING);
  CU_ASSERT_EQUAL (c.hist.start_delay.n, 0);
  ebb_ctl_task_set_state (&c, t, TASK_RUNNING);
  CU_ASSERT_EQUAL (c.hist.start_delay.n, 1);
  CU_ASSERT (c.hist.start_delay.sum >= 2 && c.hist.start_delay.sum < 10);
  ebb_ctl_task_set_state (&c, &l->tasks[0], TASK_STARTING);
  ebb_ctl_task_set_state (&c, &l->tasks[0], TASK_RUNNING);
  CU_ASSERT_EQUAL (c.hist.start_delay.n, 1); /* a long job's start: not the promise */
  ebb_ctl_task_set_state (&c, t, TASK_SUSPENDED);
  t->suspended_at -= 3; /* suspended 3 s ago */
  ebb_ctl_task_set_state (&c, t, TASK_RUNNING);
  CU_ASSERT_EQUAL (c.hist.suspended.n, 1);
  CU_ASSERT (c.hist.suspended.sum >= 3 && c.hist.suspended.sum < 10);
  /* Its node lost: queued and started again, not observed again. */
  ebb_ctl_task_set_state (&c, t, TASK_PENDING);
  ebb_ctl_task_set_state (&c, t, TASK_STARTING);
  ebb_ctl_task_set_state (&c, t, TASK_RUNNING);
  CU_ASSERT_EQUAL (c.hist.start_delay.n, 1);
  /* Loaded as suspended (from the load's placeholder state): its suspension's start is
   * unknown, its resumption not observed. */
  ebb_ctl_task *u = &j->tasks[1];
  ebb_ctl_task_set_state (&c, u, TASK_FAILED);
  ebb_ctl_task_set_state (&c, u, TASK_SUSPENDED);
  ebb_ctl_task_set_state (&c, u, TASK_RUNNING);
  CU_ASSERT_EQUAL (c.hist.suspended.n, 1);
  CU_ASSERT_EQUAL (c.hist.start_delay.n, 1);
  ebb_ctl_job_free (j);
  ebb_ctl_job_free (l);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_policy_params),
  EBB_CU_TEST (test_options),
  EBB_CU_TEST (test_store),
  EBB_CU_TEST (test_store_cache),
  EBB_CU_TEST (test_store_calls),
  EBB_CU_TEST (test_heartbeat_validation),
  EBB_CU_TEST (test_heartbeat_fence),
  EBB_CU_TEST (test_calls_wait_for_fence),
  EBB_CU_TEST (test_exit_before_launch_answer),
  EBB_CU_TEST (test_task_missing),
  EBB_CU_TEST (test_adopt_validation),
  EBB_CU_TEST (test_index_counters),
  EBB_CU_TEST (test_pjob_forget_slot_mode),
  EBB_CU_TEST (test_reasons),
  EBB_CU_TEST (test_store_before_reasons),
  EBB_CU_TEST (test_metrics_observe),
  EBB_CU_TEST (test_store_preemptions),
  EBB_CU_TEST (test_reload_node_slots),
};

int
main (void)
{
  if (!getenv ("EBB_TEST_PG_URL"))
    return ebb_cu_run ("controller-core", init, ctlfix_clean, tests, EBB_ARRAY_SIZE (tests));
  /* On PostgreSQL (tests/ha/test-pg-store.sh): all but the tests of SQLite's own page cache
   * and file (tests/ha/pg-store.c tests PostgreSQL's migrations). */
  ebb_cu_test pg[EBB_ARRAY_SIZE (tests)];
  size_t n = 0;
  for (size_t i = 0; i < EBB_ARRAY_SIZE (tests); i++)
    if (tests[i].fn != test_store_cache && tests[i].fn != test_store_before_reasons)
      pg[n++] = tests[i];
  return ebb_cu_run ("controller-core on PostgreSQL", init, ctlfix_clean, pg, n);
}
