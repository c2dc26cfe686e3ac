/* The PostgreSQL store's schema, versioned: schema_version holds the version applied, and
 * each migration runs in one transaction that also raises it, so a database is at one version
 * or the next, never between. Controllers starting together serialize on an advisory lock
 * and read the version again under it. A migration is appended, never edited: after the
 * first two, each adds a column of store-schema.h's EBB_CTL_STORE_ADDED, in its order. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/store-pg.h"
#include "lib/util.h"

/* ebb's key for pg_advisory_xact_lock: "ebb" in ASCII. */
#define MIGRATE_LOCK "6644322"

static const char *const migrations[] = {
  /* 1: the tables of the SQLite store, with PostgreSQL's types. */
  "CREATE TABLE jobs (id BIGINT PRIMARY KEY, request_id TEXT, name TEXT, class INTEGER,"
  " est DOUBLE PRECISION, state INTEGER, submitted_at DOUBLE PRECISION,"
  " started_at DOUBLE PRECISION, finished_at DOUBLE PRECISION, answer TEXT, ntasks BIGINT);"
  "CREATE INDEX jobs_request_id ON jobs (request_id);"
  "CREATE TABLE tasks (job BIGINT, idx BIGINT, spec TEXT, state INTEGER, node TEXT,"
  " generation BIGINT, exit_status BIGINT, has_exit INTEGER, suspensions BIGINT,"
  " started_at DOUBLE PRECISION, finished_at DOUBLE PRECISION, kill_wanted INTEGER,"
  " PRIMARY KEY (job, idx));"
  "CREATE TABLE nodes (name TEXT PRIMARY KEY, url TEXT, state INTEGER, epoch BIGINT,"
  " cap_cpu BIGINT, cap_mem BIGINT, last_hb DOUBLE PRECISION);"
  "CREATE TABLE decisions (seq BIGINT PRIMARY KEY, time DOUBLE PRECISION, kind TEXT,"
  " job BIGINT, task BIGINT, generation BIGINT, node TEXT, for_job BIGINT, reason TEXT);"
  "CREATE TABLE calls (job BIGINT, idx BIGINT, generation BIGINT, seq BIGINT, kind TEXT,"
  " path TEXT, body TEXT, PRIMARY KEY (job, idx));",
  /* 2: the fence: the leader epoch, one row, read FOR SHARE at the start of each of the
   * leader's transactions and raised by a new leader. */
  "CREATE TABLE leader (id INTEGER PRIMARY KEY CHECK (id = 1), epoch BIGINT NOT NULL);"
  "INSERT INTO leader VALUES (1, 0);",
};

static int
exec_ok (PGconn *conn, const char *sql, ebb_error **err)
{
  PGresult *r = PQexec (conn, sql);
  ExecStatusType st = PQresultStatus (r);
  int ret = 0;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
    ret = ebb_error_set (err, EIO, "store schema: %s", PQerrorMessage (conn));
  PQclear (r);
  return ret;
}

/* See store-pg.h. */
int
ebb_ctl_pg_schema_version (PGconn *conn)
{
  PGresult *r = PQexec (conn, "SELECT version FROM schema_version");
  int v = -EIO;
  if (PQresultStatus (r) == PGRES_TUPLES_OK)
    v = PQntuples (r) == 1 ? atoi (PQgetvalue (r, 0, 0)) : 0;
  PQclear (r);
  return v;
}

/* The SQL of migration v (1-based): one of the first ones, or the column added (v - 2)th. */
static char *
migration (int v)
{
  if (v <= (int)EBB_ARRAY_SIZE (migrations))
    return ebb_xstrdup (migrations[v - 1]);
  const ebb_ctl_store_column *a = &ebb_ctl_store_added[v - 1 - EBB_ARRAY_SIZE (migrations)];
  return ebb_xasprintf ("ALTER TABLE %s ADD COLUMN %s %s", a->table, a->column, a->type);
}

/* Migration v (1-based) in its transaction, unless another controller applied it first. */
static int
migrate_one (PGconn *conn, int v, ebb_error **err)
{
  if (exec_ok (conn, "BEGIN; SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", err) < 0)
    return -EIO;
  int have = ebb_ctl_pg_schema_version (conn);
  int r = have < 0 ? ebb_error_set (err, EIO, "store schema: %s", PQerrorMessage (conn)) : 0;
  if (r == 0 && have < v)
    {
      cleanup_free char *bump = ebb_xasprintf ("UPDATE schema_version SET version = %d", v);
      cleanup_free char *sql = migration (v);
      r = exec_ok (conn, sql, err);
      if (r == 0)
        r = exec_ok (conn, bump, err);
    }
  if (r < 0)
    {
      PQclear (PQexec (conn, "ROLLBACK"));
      return r;
    }
  return exec_ok (conn, "COMMIT", err);
}

/* See store-pg.h. */
int
ebb_ctl_pg_migrate (PGconn *conn, int target, ebb_error **err)
{
  if (target > EBB_CTL_PG_SCHEMA_VERSION)
    return ebb_error_set (err, EINVAL, "store schema: no version %d", target);
  /* The version table itself: created once, one row, version 0 (nothing applied). */
  if (exec_ok (conn,
               "BEGIN; SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ");"
               "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);"
               "INSERT INTO schema_version SELECT 0 WHERE NOT EXISTS"
               " (SELECT 1 FROM schema_version); COMMIT",
               err)
      < 0)
    {
      PQclear (PQexec (conn, "ROLLBACK"));
      return -EIO;
    }
  int have = ebb_ctl_pg_schema_version (conn);
  if (have > EBB_CTL_PG_SCHEMA_VERSION)
    return ebb_error_set (err, EPROTO,
                          "store schema: version %d is newer than this controller's (%d)", have,
                          EBB_CTL_PG_SCHEMA_VERSION);
  for (int v = have + 1; v <= target; v++)
    if (migrate_one (conn, v, err) < 0)
      return -EIO;
  return 0;
}
