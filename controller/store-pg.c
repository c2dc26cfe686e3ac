/* The PostgreSQL backend of the store (--store postgresql://...): the tables of the SQLite
 * backend on a server that outlives the controller's machine, fenced. Every transaction of
 * the leader begins by reading the leader epoch's row FOR SHARE and fails when the row holds
 * an epoch above the one this controller claimed; a new leader raises the row (claim), which
 * waits for the share locks of the transactions under way. So once a new leader's claim has
 * returned, no transaction of an older one commits. The session's
 * idle_in_transaction_session_timeout ends a transaction left open by a paused process, so
 * that it cannot hold the row. A connection lost is opened again at the next transaction;
 * until then every transaction fails and no call leaves (ebb_ctl_flush). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/store-pg.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"

#define run ebb_ctl_pg_run

_Static_assert(EBB_CTL_JOB_N_COLS <= EBB_CTL_PG_MAX_PARAMS
                   && EBB_CTL_TASK_N_COLS <= EBB_CTL_PG_MAX_PARAMS,
               "a row's values are a statement's parameters");

/* The SQL of the prepared statements (names "s0", "s1", ...). */
static const char *const stmt_sql[PG_N_STMTS] = {
  /* PG_JOB, PG_TASK_INSERT, PG_TASK_UPDATE: built from the column lists (stmt_text). */
  [PG_NODE] = "INSERT INTO nodes VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (name) DO UPDATE SET"
              " url = $2, state = $3, epoch = $4, cap_cpu = $5, cap_mem = $6, last_hb = $7",
  [PG_DECISION] = "INSERT INTO decisions VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)",
  [PG_CALL] = "INSERT INTO calls VALUES ($1,$2,$3,$4,$5,$6,$7) ON CONFLICT (job, idx) DO UPDATE"
              " SET generation = $3, seq = $4, kind = $5, path = $6, body = $7",
  [PG_CALL_DONE] = "DELETE FROM calls WHERE job = $1 AND idx = $2 AND seq = $3",
  [PG_RID] = "SELECT answer, body_digest FROM jobs WHERE request_id = $1"
             " ORDER BY id DESC LIMIT 1",
  [PG_JOB_GET] = "SELECT " EBB_CTL_PG_JOB_COLS " FROM jobs WHERE id = $1",
  [PG_TASKS_GET] = "SELECT " EBB_CTL_PG_TASK_COLS " FROM tasks t WHERE t.job = $1",
  /* A page of jobs, each with its tasks' count, suspensions and suspended time per state (as
   * the SQLite backend's; a job without task rows has one row of NULL state). */
  [PG_JOB_PAGE_ASC] = "SELECT j.*, t.state, t.n, t.su, t.ss FROM (SELECT " EBB_CTL_PG_JOB_COLS
                      " FROM jobs WHERE id > $1 ORDER BY id LIMIT $2) j LEFT JOIN LATERAL"
                      " (SELECT state, COUNT(*) n, SUM(suspensions) su, SUM(suspended_sec) ss"
                      " FROM tasks WHERE job = j.id AND idx < j.ntasks GROUP BY state) t ON true"
                      " ORDER BY j.id",
  [PG_JOB_PAGE_DESC] = "SELECT j.*, t.state, t.n, t.su, t.ss FROM (SELECT " EBB_CTL_PG_JOB_COLS
                       " FROM jobs WHERE id <= $1 ORDER BY id DESC LIMIT $2) j LEFT JOIN LATERAL"
                       " (SELECT state, COUNT(*) n, SUM(suspensions) su, SUM(suspended_sec) ss"
                       " FROM tasks WHERE job = j.id AND idx < j.ntasks GROUP BY state) t ON true"
                       " ORDER BY j.id DESC",
  /* The policy's kills are the "kill" decisions whose reason sched-preempt.c words so. */
  [PG_PREEMPTIONS] = "SELECT COUNT(*) FILTER (WHERE kind = 'suspend'),"
                     " COUNT(*) FILTER (WHERE kind = 'resume'), COUNT(*) FILTER (WHERE kind ="
                     " 'kill' AND reason LIKE '%preemptive kill%') FROM decisions",
};

/* See store-pg.h. */
void
ebb_ctl_pg_int (ebb_ctl_pg_params *p, int64_t v)
{
  snprintf (p->buf[p->n], sizeof p->buf[p->n], "%" PRId64, v);
  p->v[p->n] = p->buf[p->n];
  p->n++;
}

/* See store-pg.h. */
void
ebb_ctl_pg_double (ebb_ctl_pg_params *p, double v)
{
  snprintf (p->buf[p->n], sizeof p->buf[p->n], "%.17g", v);
  p->v[p->n] = p->buf[p->n];
  p->n++;
}

/* See store-pg.h. */
void
ebb_ctl_pg_str (ebb_ctl_pg_params *p, const char *v)
{
  p->v[p->n++] = v;
}

/* A statement failed: logged, and the open transaction will roll back. */
static PGresult *
failed (ebb_ctl_pg *s, PGresult *r, const char *what)
{
  ebb_log_err ("store: %s: %s", what, PQerrorMessage (s->conn));
  PQclear (r);
  if (s->in_tx)
    s->failed = true;
  return NULL;
}

static bool
result_ok (const PGresult *r)
{
  ExecStatusType st = PQresultStatus (r);
  return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

/* The writes of a transaction go out in libpq's pipeline mode without waiting for their
 * results (one round trip per transaction instead of one per row: the placement rate); the
 * results are read here, before anything that waits for an answer (a read, the commit), and
 * every PIPELINE_MAX writes so that neither side's socket buffer fills. A failed write fails
 * the transaction. */
#define PIPELINE_MAX 256

static void
drain (ebb_ctl_pg *s)
{
  if (PQpipelineStatus (s->conn) == PQ_PIPELINE_OFF)
    return;
  bool ok = PQpipelineSync (s->conn) == 1;
  /* Each statement's results end with a NULL; two NULLs in a row: nothing more comes. */
  for (int nulls = 0; ok;)
    {
      PGresult *r = PQgetResult (s->conn);
      if (!r)
        {
          ok = ++nulls < 2 && PQstatus (s->conn) == CONNECTION_OK;
          continue;
        }
      nulls = 0;
      ExecStatusType st = PQresultStatus (r);
      if (st == PGRES_FATAL_ERROR)
        ebb_log_err ("store: a write failed: %s", PQresultErrorMessage (r));
      if (st == PGRES_FATAL_ERROR || st == PGRES_PIPELINE_ABORTED)
        s->failed = true;
      PQclear (r);
      if (st == PGRES_PIPELINE_SYNC)
        break;
    }
  if (!ok || PQexitPipelineMode (s->conn) != 1)
    s->failed = true;
  s->pending = 0;
}

/* The SQL of statement id. */
static const char *
stmt_text (ebb_ctl_pg *s, ebb_ctl_pg_stmt id)
{
  if (stmt_sql[id])
    return stmt_sql[id];
  if (!s->built[id])
    s->built[id] = id == PG_TASK_UPDATE ? ebb_ctl_store_sql_task_update (true)
                                        : ebb_ctl_store_sql_insert (true, id == PG_JOB);
  return s->built[id];
}

/* Prepares statement id on this connection (at its first use). */
static bool
prepared (ebb_ctl_pg *s, ebb_ctl_pg_stmt id, const char *name)
{
  if (s->prepared[id])
    return true;
  PGresult *r = PQprepare (s->conn, name, stmt_text (s, id), 0, NULL);
  if (!result_ok (r))
    return failed (s, r, "prepare"), false;
  PQclear (r);
  return s->prepared[id] = true;
}

/* A write in pipeline mode: sent, its result read at the next drain. */
static int
send_write (ebb_ctl_pg *s, ebb_ctl_pg_stmt id, const ebb_ctl_pg_params *p)
{
  char name[16];
  snprintf (name, sizeof name, "s%d", (int)id);
  if (!s->prepared[id])
    drain (s); /* a statement is prepared outside the pipeline */
  if (!prepared (s, id, name))
    return -EIO;
  if ((PQpipelineStatus (s->conn) == PQ_PIPELINE_OFF && PQenterPipelineMode (s->conn) != 1)
      || PQsendQueryPrepared (s->conn, name, p->n, p->v, NULL, NULL, 0) != 1)
    {
      ebb_log_err ("store: send a write: %s", PQerrorMessage (s->conn));
      s->failed = true;
      return -EIO;
    }
  if (++s->pending >= PIPELINE_MAX)
    drain (s);
  return 0;
}

/* See store-pg.h. */
PGresult *
ebb_ctl_pg_run (ebb_ctl_pg *s, ebb_ctl_pg_stmt id, const ebb_ctl_pg_params *p)
{
  char name[16];
  snprintf (name, sizeof name, "s%d", (int)id);
  drain (s);
  if (!prepared (s, id, name))
    return NULL;
  PGresult *r = PQexecPrepared (s->conn, name, p ? p->n : 0, p ? p->v : NULL, NULL, NULL, 0);
  return result_ok (r) ? r : failed (s, r, stmt_text (s, id));
}

/* See store-pg.h. */
PGresult *
ebb_ctl_pg_exec (ebb_ctl_pg *s, const char *sql)
{
  drain (s);
  PGresult *r = PQexec (s->conn, sql);
  return result_ok (r) ? r : failed (s, r, sql);
}

/* See store-pg.h. */
char *
ebb_ctl_pg_get_str (const PGresult *r, int row, int col)
{
  return PQgetisnull (r, row, col) ? NULL : ebb_xstrdup (PQgetvalue (r, row, col));
}

/* See store-pg.h. */
int64_t
ebb_ctl_pg_get_int (const PGresult *r, int row, int col)
{
  return strtoll (PQgetvalue (r, row, col), NULL, 10);
}

/* See store-pg.h. */
double
ebb_ctl_pg_get_double (const PGresult *r, int row, int col)
{
  return strtod (PQgetvalue (r, row, col), NULL);
}

/* Settings of each session: the idle transaction's timeout (the fence), and a commit that
 * returns once durable on the server (its own synchronous_commit and standbys decide). */
static int
session_setup (ebb_ctl_pg *s)
{
  memset (s->prepared, 0, sizeof s->prepared);
  cleanup_free char *sql = ebb_xasprintf ("SET idle_in_transaction_session_timeout = %d;"
                                          " SET application_name = 'ebb-controller';"
                                          " SET client_min_messages = warning",
                                          EBB_CTL_PG_IDLE_TX_MSEC);
  PGresult *r = ebb_ctl_pg_exec (s, sql);
  PQclear (r);
  return r ? 0 : -EIO;
}

/* The connection, opened again if it was lost (an outage, a server restart, the idle
 * transaction timeout). */
static int
connected (ebb_ctl_pg *s)
{
  if (PQstatus (s->conn) == CONNECTION_OK)
    return 0;
  PQreset (s->conn);
  if (PQstatus (s->conn) != CONNECTION_OK)
    {
      ebb_log_err ("store: PostgreSQL: %s", PQerrorMessage (s->conn));
      return -EIO;
    }
  ebb_log_notice ("store: connected to PostgreSQL again");
  return session_setup (s);
}

/* See store-pg.h. A transaction begins with the fence: the leader row read FOR SHARE (a
 * claim waits for this transaction to end) and compared with the epoch this process holds. */
int
ebb_ctl_pg_begin (ebb_ctl_store *base)
{
  ebb_ctl_pg *s = ebb_ctl_pg_of (base);
  if (s->in_tx)
    return s->failed ? -EIO : 0;
  static const char fence[] = "BEGIN; SELECT epoch FROM leader WHERE id = 1 FOR SHARE";
  if (connected (s) < 0)
    return -EIO;
  PGresult *r = ebb_ctl_pg_exec (s, fence);
  /* A session the server ended since the last transaction (a restart, the idle timeout) is
   * seen only now: once more on a new one. */
  if (!r && PQstatus (s->conn) != CONNECTION_OK && connected (s) == 0)
    r = ebb_ctl_pg_exec (s, fence);
  if (!r)
    {
      PQclear (PQexec (s->conn, "ROLLBACK"));
      return -EIO;
    }
  uint64_t stored = PQntuples (r) == 1 ? (uint64_t)ebb_ctl_pg_get_int (r, 0, 0) : UINT64_MAX;
  PQclear (r);
  s->in_tx = true;
  s->failed = false;
  if (stored > s->epoch)
    {
      ebb_log_err ("store: fenced: the leader epoch stored is %" PRIu64 ", ours %" PRIu64, stored,
                   s->epoch);
      s->failed = true;
      return -ESTALE;
    }
  return 0;
}

/* The commit; a transaction with a failed statement rolls back and fails. */
static int
commit (ebb_ctl_store *base)
{
  ebb_ctl_pg *s = ebb_ctl_pg_of (base);
  if (!s->in_tx)
    return 0;
  drain (s);
  s->in_tx = false;
  bool ok = !s->failed;
  PGresult *r = PQexec (s->conn, ok ? "COMMIT" : "ROLLBACK");
  /* COMMIT of a transaction the server aborted answers ROLLBACK. */
  ok = ok && result_ok (r) && strcmp (PQcmdStatus (r), "COMMIT") == 0;
  if (!ok)
    ebb_log_err ("store: transaction rolled back: %s",
                 s->failed ? "a statement failed" : PQerrorMessage (s->conn));
  PQclear (r);
  s->failed = false;
  s->commits++;
  return ok ? 0 : -EIO;
}

static bool
in_transaction (ebb_ctl_store *base)
{
  return ebb_ctl_pg_of (base)->in_tx;
}

static void
checkpoint (ebb_ctl_store *base)
{
  (void)base; /* the server's own */
}

/* Claims epoch (0: the stored one + 1, a controller without election); fails with -ESTALE
 * when the stored epoch is not below it. Waits for the transactions holding the row. */
static int
claim (ebb_ctl_store *base, uint64_t epoch, uint64_t *claimed)
{
  ebb_ctl_pg *s = ebb_ctl_pg_of (base);
  if (s->in_tx || connected (s) < 0)
    return -EIO;
  ebb_ctl_pg_params p = { 0 };
  ebb_ctl_pg_int (&p, (int64_t)epoch);
  PGresult *r = PQexecParams (s->conn,
                              "UPDATE leader SET epoch = CASE WHEN $1::bigint = 0 THEN epoch + 1"
                              " ELSE $1::bigint END WHERE id = 1 AND ($1::bigint = 0 OR epoch < $1)"
                              " RETURNING epoch",
                              1, NULL, p.v, NULL, NULL, 0);
  if (!result_ok (r))
    return failed (s, r, "claim the leader epoch"), -EIO;
  int n = PQntuples (r);
  if (n == 1)
    s->epoch = *claimed = (uint64_t)ebb_ctl_pg_get_int (r, 0, 0);
  PQclear (r);
  if (n != 1)
    {
      ebb_log_err ("store: epoch %" PRIu64 " is not above the stored one", epoch);
      return -ESTALE;
    }
  return 0;
}

static void
close_store (ebb_ctl_store *base)
{
  ebb_ctl_pg *s = ebb_ctl_pg_of (base);
  commit (base);
  PQfinish (s->conn);
  for (int i = 0; i < PG_N_STMTS; i++)
    free (s->built[i]);
  free (s);
}

/* A write: inside the open transaction (one begun when none is). */
static int
write_stmt (ebb_ctl_store *base, ebb_ctl_pg_stmt id, const ebb_ctl_pg_params *p)
{
  if (ebb_ctl_pg_begin (base) < 0)
    return -EIO;
  return send_write (ebb_ctl_pg_of (base), id, p);
}

/* Values as libpq's text parameters. */
static void
params_of (ebb_ctl_pg_params *p, const ebb_ctl_store_value *v, int n)
{
  for (int i = 0; i < n; i++)
    if (v[i].kind == EBB_CTL_VAL_INT)
      ebb_ctl_pg_int (p, v[i].i);
    else if (v[i].kind == EBB_CTL_VAL_DOUBLE)
      ebb_ctl_pg_double (p, v[i].d);
    else
      ebb_ctl_pg_str (p, v[i].kind == EBB_CTL_VAL_TEXT ? v[i].s : NULL);
}

static int
put_job (ebb_ctl_store *base, const ebb_ctl_job *j)
{
  ebb_ctl_store_value v[EBB_CTL_JOB_N_COLS];
  ebb_ctl_store_job_values (j, v);
  ebb_ctl_pg_params p = { 0 };
  params_of (&p, v, EBB_CTL_JOB_N_COLS);
  return write_stmt (base, PG_JOB, &p);
}

/* The spec never changes: once the row exists, an update leaves it. */
static int
put_task (ebb_ctl_store *base, const ebb_ctl_task *t, const char *node)
{
  ebb_ctl_store_value v[EBB_CTL_TASK_N_COLS];
  ebb_ctl_store_task_values (t, node, v);
  ebb_ctl_pg_params p = { 0 };
  params_of (&p, v, EBB_CTL_TASK_N_COLS);
  return write_stmt (base, t->stored ? PG_TASK_UPDATE : PG_TASK_INSERT, &p);
}

static int
put_node (ebb_ctl_store *base, const ebb_ctl_node *n)
{
  ebb_ctl_pg_params p = { 0 };
  ebb_ctl_pg_str (&p, n->name);
  ebb_ctl_pg_str (&p, n->url);
  ebb_ctl_pg_int (&p, n->state);
  ebb_ctl_pg_int (&p, (int64_t)n->epoch);
  ebb_ctl_pg_int (&p, (int64_t)n->cap_cpu_millis);
  ebb_ctl_pg_int (&p, (int64_t)n->cap_memory_bytes);
  ebb_ctl_pg_double (&p, n->last_hb_at);
  return write_stmt (base, PG_NODE, &p);
}

static int
put_decision (ebb_ctl_store *base, uint64_t seq, double at, const char *kind, const ebb_ctl_task *t,
              const char *node, uint64_t for_job, const char *reason)
{
  ebb_ctl_pg_params p = { 0 };
  ebb_ctl_pg_int (&p, (int64_t)seq);
  ebb_ctl_pg_double (&p, at);
  ebb_ctl_pg_str (&p, kind);
  ebb_ctl_pg_int (&p, (int64_t)t->job->id);
  ebb_ctl_pg_int (&p, t->idx);
  ebb_ctl_pg_int (&p, (int64_t)t->generation);
  ebb_ctl_pg_str (&p, node);
  ebb_ctl_pg_int (&p, (int64_t)for_job);
  ebb_ctl_pg_str (&p, reason);
  return write_stmt (base, PG_DECISION, &p);
}

static int
put_call (ebb_ctl_store *base, const ebb_ctl_task *t, uint64_t seq, const char *kind,
          const char *path, json_object *body)
{
  ebb_ctl_pg_params p = { 0 };
  ebb_ctl_pg_int (&p, (int64_t)t->job->id);
  ebb_ctl_pg_int (&p, t->idx);
  ebb_ctl_pg_int (&p, (int64_t)t->generation);
  ebb_ctl_pg_int (&p, (int64_t)seq);
  ebb_ctl_pg_str (&p, kind);
  ebb_ctl_pg_str (&p, path);
  ebb_ctl_pg_str (&p,
                  body ? json_object_to_json_string_ext (body, EBB_JSON_TO_STRING_FLAGS) : NULL);
  return write_stmt (base, PG_CALL, &p);
}

static int
call_done (ebb_ctl_store *base, uint64_t job, uint32_t idx, uint64_t seq)
{
  ebb_ctl_pg_params p = { 0 };
  ebb_ctl_pg_int (&p, (int64_t)job);
  ebb_ctl_pg_int (&p, idx);
  ebb_ctl_pg_int (&p, (int64_t)seq);
  return write_stmt (base, PG_CALL_DONE, &p);
}

static void
stats (ebb_ctl_store *base, ebb_ctl_store_stats *st)
{
  (void)base; /* the server's memory, not the process's */
  st->heap_bytes = 0;
  st->cache_pages = 0;
}

static const ebb_ctl_store_ops pg_ops = {
  .name = "postgresql",
  .close = close_store,
  .begin = ebb_ctl_pg_begin,
  .commit = commit,
  .in_transaction = in_transaction,
  .checkpoint = checkpoint,
  .claim = claim,
  .put_job = put_job,
  .put_task = put_task,
  .put_node = put_node,
  .put_decision = put_decision,
  .put_call = put_call,
  .call_done = call_done,
  .calls = ebb_ctl_pg_calls,
  .decisions = ebb_ctl_pg_decisions,
  .load = ebb_ctl_pg_load,
  .job_get = ebb_ctl_pg_job_get,
  .job_page = ebb_ctl_pg_job_page,
  .rid_answer = ebb_ctl_pg_rid_answer,
  .prune = ebb_ctl_pg_prune,
  .pruned_tasks = ebb_ctl_pg_pruned_tasks,
  .preemptions = ebb_ctl_pg_preemptions,
  .stats = stats,
};

/* See store-backend.h. */
int
ebb_ctl_store_pg_open (const char *conninfo, ebb_ctl_store **out, ebb_error **err)
{
  ebb_ctl_pg *s = ebb_xcalloc (1, sizeof *s);
  s->base.ops = &pg_ops;
  s->conn = PQconnectdb (conninfo);
  int r = 0;
  if (PQstatus (s->conn) != CONNECTION_OK)
    r = ebb_error_set (err, EIO, "connect to PostgreSQL: %s", PQerrorMessage (s->conn));
  if (r == 0 && session_setup (s) < 0)
    r = ebb_error_set (err, EIO, "PostgreSQL session: %s", PQerrorMessage (s->conn));
  if (r == 0)
    r = ebb_ctl_pg_migrate (s->conn, EBB_CTL_PG_SCHEMA_VERSION, err);
  if (r < 0)
    {
      PQfinish (s->conn);
      free (s);
      return r;
    }
  *out = &s->base;
  return 0;
}
