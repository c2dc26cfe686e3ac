/* Fixtures shared by the controller's CUnit suites: a scratch directory for their stores,
 * and jobs built by hand the way the controller builds them. */
#ifndef EBB_TESTS_CTL_FIXTURE_H
#define EBB_TESTS_CTL_FIXTURE_H

#include <CUnit/CUnit.h>
#include <ctype.h>
#include <libpq-fe.h>
#include <systemd/sd-event.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/sched.h"
#include "controller/store.h"
#include "lib/util.h"

/* The suite's scratch directory: ctlfix_init makes it from the template, ctlfix_clean
 * removes it with everything in it. */
static char ctlfix_dir[64];

static inline int
ctlfix_init (const char *tmpl)
{
  snprintf (ctlfix_dir, sizeof ctlfix_dir, "%s", tmpl);
  return mkdtemp (ctlfix_dir) ? 0 : -1;
}

static inline int
ctlfix_clean (void)
{
  cleanup_free char *cmd = ebb_xasprintf ("rm -rf '%s'", ctlfix_dir);
  return system (cmd) == 0 ? 0 : -1;
}

/* The store of a core on state STATE: with EBB_TEST_PG_URL set (tests/ha/test-pg-store.sh),
 * a schema of PostgreSQL of its own (named after the suite's directory and STATE, emptied
 * first when fresh), so that a suite of the store's operations runs on either backend; else
 * NULL (SQLite in the state directory). */
static inline char *
ctlfix_store (const char *state, bool fresh)
{
  const char *url = getenv ("EBB_TEST_PG_URL");
  if (!url)
    return NULL;
  char *schema = ebb_xasprintf ("%s_%s", strrchr (ctlfix_dir, '/') + 1, state);
  for (char *p = schema; *p; p++)
    *p = isalnum ((unsigned char)*p) ? (char)tolower ((unsigned char)*p) : '_';
  cleanup_free char *sql
      = fresh ? ebb_xasprintf ("DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s", schema, schema)
              : ebb_xasprintf ("CREATE SCHEMA IF NOT EXISTS %s", schema);
  PGconn *conn = PQconnectdb (url);
  PGresult *r = PQexec (conn, sql);
  CU_ASSERT_EQUAL (PQresultStatus (r), PGRES_COMMAND_OK);
  PQclear (r);
  PQfinish (conn);
  char *store = ebb_xasprintf ("%s%coptions=-csearch_path%%3D%s", url,
                               strchr (url, '?') ? '&' : '?', schema);
  free (schema);
  return store;
}

/* A job of ntasks pending tasks, not yet added: each task belongs to it, on no node and in
 * no slot of the policy. */
static inline ebb_ctl_job *
ctlfix_job_new (uint64_t id, const char *name, ebb_ctl_class cls, uint32_t ntasks)
{
  ebb_ctl_job *j = ebb_xcalloc (1, sizeof *j);
  j->id = id;
  j->name = ebb_xstrdup (name);
  j->cls = cls;
  j->ntasks = ntasks;
  j->tasks = ebb_xcalloc (ntasks, sizeof *j->tasks);
  for (uint32_t i = 0; i < ntasks; i++)
    {
      ebb_ctl_task *t = &j->tasks[i];
      t->job = j;
      t->idx = i;
      t->node = -1;
      t->slot = t->pjob = EBB_POL_NONE;
    }
  return j;
}

/* A job of ntasks tasks of 1 CPU and 64 MiB (class cls), stored, added and submitted to c's
 * policy as POST /v1/jobs does (ctlfix_job_new's, with specs). */
static inline ebb_ctl_job *
ctlfix_submit (ebb_ctl *c, const char *name, ebb_ctl_class cls, uint32_t ntasks)
{
  ebb_ctl_job *j = ctlfix_job_new (c->next_job_id++, name, cls, ntasks);
  for (uint32_t k = 0; k < ntasks; k++)
    {
      j->tasks[k].cpu_millis = 1000;
      j->tasks[k].memory_bytes = 64 << 20;
      j->tasks[k].spec = json_tokener_parse ("{\"argv\":[\"x\"],\"cpu_millis\":1000,"
                                             "\"memory_bytes\":67108864}");
    }
  ebb_ctl_store_begin (c);
  ebb_ctl_store_job (c, j);
  for (uint32_t k = 0; k < ntasks; k++)
    ebb_ctl_task_write (c, &j->tasks[k]);
  ebb_ctl_add_job (c, j);
  ebb_ctl_sched_job (c, j);
  ebb_ctl_explain_job (c, j);
  ebb_ctl_store_commit (c);
  return j;
}

/* A controller core on the store ctlfix_dir/STATE running POLICY, configured as daemon.c
 * configures it (resource mode from the policy), its store not open yet: the caller may set
 * params first, then calls ctlfix_ctl_open. cfg must outlive the core. */
static inline ebb_ctl *
ctlfix_ctl_new (ebb_ctl_config *cfg, const char *state, const char *policy)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->state_dir = ebb_xasprintf ("%s/%s", ctlfix_dir, state);
  cfg->store = ctlfix_store (state, false);
  cfg->policy = ebb_xstrdup (policy);
  cfg->node_timeout_usec = 15000000;
  ebb_ctl *c = ebb_xcalloc (1, sizeof *c);
  c->cfg = cfg;
  ebb_pol_params_default (&c->params);
  c->res_mode = ebb_pol_lookup (policy)->needs_resources;
  ebb_ctl_sched_calls_route (c); /* as ebb_ctl_new does */
  c->leading = true;             /* as ebb_ctl_leader_start does without --etcd */
  return c;
}

static inline void
ctlfix_ctl_open (ebb_ctl *c)
{
  CU_ASSERT_EQUAL (ebb_ctl_store_open (c, NULL), 0);
  CU_ASSERT_EQUAL (ebb_ctl_store_load (c, NULL), 0);
}

/* Stops it as the daemon does (the store keeps the jobs) and frees it and its cfg's strings. */
static inline void
ctlfix_ctl_del (ebb_ctl *c)
{
  ebb_ctl_sched_free (c);
  ebb_ctl_store_close (c);
  sd_event_unref (c->event);
  free (c->cfg->state_dir);
  free (c->cfg->store);
  free (c->cfg->policy);
  free (c);
}

/* Nodes n0 .. n(nnodes - 1) report (heartbeat seq) with the given capacity each, on fake
 * unix sockets: the controller takes them as agents. */
static inline void
ctlfix_nodes_report (ebb_ctl *c, int nnodes, int64_t cpu_millis, int64_t memory_bytes, int seq)
{
  for (int i = 0; i < nnodes; i++)
    {
      cleanup_free char *name = ebb_xasprintf ("n%d", i);
      cleanup_free char *hb = ebb_xasprintf (
          "{\"seq\":%d,\"url\":\"unix:/n%d.sock\",\"node\":{\"capacity\":{\"cpu_millis\":%" PRId64
          ",\"memory_bytes\":%" PRId64 "}}}",
          seq, i, cpu_millis, memory_bytes);
      json_object *o = json_tokener_parse (hb);
      CU_ASSERT_EQUAL (ebb_ctl_heartbeat (c, name, o, NULL), 0);
      json_object_put (o);
    }
}

#endif
