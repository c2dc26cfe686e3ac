/* The SQLite backend of the store (WAL): jobs, tasks, nodes with their epochs, and the
 * decision log. The in-memory model is authoritative while running; every change is written
 * through, and a decision is committed before the agent call it causes goes out, so a
 * restart after kill -9 reloads what was decided. synchronous=NORMAL: a committed
 * transaction survives a crash of the process (not necessarily of the machine), which is
 * the failure the controller fences. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "controller/store-sqlite.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"

#define cached    ebb_ctl_sqlite_cached
#define step_done ebb_ctl_sqlite_step_done

static const char schema[]
    = "PRAGMA journal_mode=WAL;"
      "PRAGMA synchronous=NORMAL;"
      "CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, request_id TEXT, name TEXT,"
      " class INTEGER, est REAL, state INTEGER, submitted_at REAL, started_at REAL,"
      " finished_at REAL, answer TEXT, ntasks INTEGER);"
      "CREATE TABLE IF NOT EXISTS tasks (job INTEGER, idx INTEGER, spec TEXT, state INTEGER,"
      " node TEXT, generation INTEGER, exit_status INTEGER, has_exit INTEGER,"
      " suspensions INTEGER, started_at REAL, finished_at REAL, kill_wanted INTEGER,"
      " PRIMARY KEY (job, idx));"
      "CREATE TABLE IF NOT EXISTS nodes (name TEXT PRIMARY KEY, url TEXT, state INTEGER,"
      " epoch INTEGER, cap_cpu INTEGER, cap_mem INTEGER, last_hb REAL);"
      "CREATE TABLE IF NOT EXISTS decisions (seq INTEGER PRIMARY KEY, time REAL, kind TEXT,"
      " job INTEGER, task INTEGER, generation INTEGER, node TEXT, for_job INTEGER,"
      " reason TEXT);"
      "CREATE TABLE IF NOT EXISTS calls (job INTEGER, idx INTEGER, generation INTEGER,"
      " seq INTEGER, kind TEXT, path TEXT, body TEXT, PRIMARY KEY (job, idx));"
      /* A replayed request id of a job evicted from memory is found here. */
      "CREATE INDEX IF NOT EXISTS jobs_request_id ON jobs (request_id);";

/* Migrations of a store made by an older controller: the columns added since the first
 * schema, in this order (a new store gets them the same way, so every store has its columns
 * in one order, which INSERT ... VALUES relies on). */
static int migrate (ebb_ctl_sqlite *s);

static void
db_warn (ebb_ctl_sqlite *s, const char *what)
{
  ebb_log_err ("store: %s: %s", what, sqlite3_errmsg (s->db));
}

static int
exec (ebb_ctl_sqlite *s, const char *sql)
{
  char *msg = NULL;
  if (sqlite3_exec (s->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    {
      ebb_log_err ("store: %s: %s", sql, msg ? msg : "?");
      sqlite3_free (msg);
      return -EIO;
    }
  return 0;
}

/* After each commit: how many pages the WAL holds. */
static int
on_wal (void *ud, sqlite3 *db, const char *name, int pages)
{
  (void)db, (void)name;
  ((ebb_ctl_sqlite *)ud)->wal_pages = pages;
  return SQLITE_OK;
}

/* Copies the WAL back into the database once it holds EBB_CTL_WAL_CHECKPOINT_PAGES (from
 * the periodic tick, so that no decision waits for it). */
static void
checkpoint (ebb_ctl_store *base)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  if (s->wal_pages < EBB_CTL_WAL_CHECKPOINT_PAGES || !sqlite3_get_autocommit (s->db))
    return;
  int log = 0, done = 0;
  if (sqlite3_wal_checkpoint_v2 (s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done) != SQLITE_OK)
    db_warn (s, "checkpoint");
  else if (done == log)
    s->wal_pages = 0;
}

/* SQLite's page cache gets its memory from one buffer made and touched before the first
 * connection: the cache then fills (as the store grows) inside pages already resident, and
 * the controller's RSS does not creep toward a steady state over the first minutes of a job
 * stream. The buffer holds EBB_CTL_STORE_CACHE_PAGES pages of the default page size and a
 * little more (the temporary database's pages, a page above the cap while it is replaced);
 * beyond, or with larger pages, SQLite takes heap as it would without it. Process-wide: set
 * once, by the first store opened (a later one, or a process that used SQLite before, keeps
 * what is set). */
static void
store_cache_setup (void)
{
  static bool done;
  if (done)
    return;
  done = true;
  int hdr = 0;
  if (sqlite3_config (SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK)
    return;
  size_t line = (EBB_CTL_STORE_PAGE_SIZE + (size_t)hdr + 7) & ~(size_t)7;
  size_t lines = EBB_CTL_STORE_CACHE_PAGES + EBB_CTL_STORE_CACHE_PAGES / 8;
  void *buf = ebb_xmalloc (line * lines);
  memset (buf, 0, line * lines); /* resident now: the figure an operator sees at start */
  if (sqlite3_config (SQLITE_CONFIG_PAGECACHE, buf, (int)line, (int)lines) != SQLITE_OK)
    free (buf);
}

/* Adds column (its SQL definition def) to table unless it is there. */
static int
add_column (ebb_ctl_sqlite *s, const char *table, const char *column, const char *def)
{
  sqlite3_stmt *st = NULL;
  cleanup_free char *probe = ebb_xasprintf ("SELECT %s FROM %s LIMIT 0", column, table);
  if (sqlite3_prepare_v2 (s->db, probe, -1, &st, NULL) == SQLITE_OK)
    {
      sqlite3_finalize (st);
      return 0;
    }
  ebb_log_info ("store: adding the column %s.%s", table, column);
  cleanup_free char *sql = ebb_xasprintf ("ALTER TABLE %s ADD COLUMN %s %s", table, column, def);
  return exec (s, sql);
}

/* The columns store-schema.h lists as added since the first schema (a job's request digest,
 * the end of its wait, why it or a task waits, ...), each unless it is there. */
static int
migrate (ebb_ctl_sqlite *s)
{
  for (size_t i = 0; i < EBB_CTL_STORE_N_ADDED; i++)
    {
      const ebb_ctl_store_column *a = &ebb_ctl_store_added[i];
      if (add_column (s, a->table, a->column, a->type) < 0)
        return -EIO;
    }
  return 0;
}

/* See store-sqlite.h. */
sqlite3_stmt *
ebb_ctl_sqlite_prep (ebb_ctl_sqlite *s, const char *sql)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2 (s->db, sql, -1, &st, NULL) != SQLITE_OK)
    db_warn (s, "prepare");
  return st;
}

/* See store-sqlite.h. The statements of the write path are prepared once: parsing SQL per
 * write cost more than the write. */
sqlite3_stmt *
ebb_ctl_sqlite_cached (ebb_ctl_sqlite *s, sqlite3_stmt **slot, const char *sql)
{
  if (!*slot)
    *slot = ebb_ctl_sqlite_prep (s, sql);
  return *slot;
}

/* See store-sqlite.h. */
char *
ebb_ctl_sqlite_col_str (sqlite3_stmt *st, int i)
{
  const unsigned char *v = sqlite3_column_text (st, i);
  return v ? ebb_xstrdup ((const char *)v) : NULL;
}

/* See store-sqlite.h. */
int
ebb_ctl_sqlite_step_done (ebb_ctl_sqlite *s, sqlite3_stmt *st, const char *what)
{
  int r = sqlite3_step (st);
  sqlite3_reset (st);
  sqlite3_clear_bindings (st);
  if (r != SQLITE_DONE)
    {
      db_warn (s, what);
      return -EIO;
    }
  return 0;
}

/* See store-sqlite.h. */
int
ebb_ctl_sqlite_begin (ebb_ctl_store *base)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  if (!sqlite3_get_autocommit (s->db))
    return 0;
  sqlite3_stmt *st = cached (s, &s->st_begin, "BEGIN");
  return st ? step_done (s, st, "begin") : -EIO;
}

static int
commit (ebb_ctl_store *base)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  if (sqlite3_get_autocommit (s->db))
    return 0;
  sqlite3_stmt *st = cached (s, &s->st_commit, "COMMIT");
  if (!st)
    return -EIO;
  s->commits++;
  return step_done (s, st, "commit");
}

static bool
in_transaction (ebb_ctl_store *base)
{
  return !sqlite3_get_autocommit (ebb_ctl_sqlite_of (base)->db);
}

static void
close_store (ebb_ctl_store *base)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  if (s->db)
    commit (base);
  sqlite3_stmt *sts[]
      = { s->st_job,     s->st_task_insert, s->st_task_update, s->st_node,       s->st_decision,
          s->st_begin,   s->st_commit,      s->st_call,        s->st_call_done,  s->st_rid,
          s->st_job_get, s->st_tasks_get,   s->st_job_page[0], s->st_job_page[1] };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (sts); i++)
    sqlite3_finalize (sts[i]);
  sqlite3_close (s->db);
  free (s);
}

static void
bind_text (sqlite3_stmt *st, int i, const char *s)
{
  if (s)
    sqlite3_bind_text (st, i, s, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_null (st, i);
}

/* Binds values v[0..n-1] to parameters 1..n of st. */
static void
bind_values (sqlite3_stmt *st, const ebb_ctl_store_value *v, int n)
{
  for (int i = 0; i < n; i++)
    if (v[i].kind == EBB_CTL_VAL_INT)
      sqlite3_bind_int64 (st, i + 1, v[i].i);
    else if (v[i].kind == EBB_CTL_VAL_DOUBLE)
      sqlite3_bind_double (st, i + 1, v[i].d);
    else
      bind_text (st, i + 1, v[i].kind == EBB_CTL_VAL_TEXT ? v[i].s : NULL);
}

/* The statement in *slot, prepared from sql (freed) at its first use. */
static sqlite3_stmt *
cached_built (ebb_ctl_sqlite *s, sqlite3_stmt **slot, char *sql)
{
  sqlite3_stmt *st = *slot ? *slot : cached (s, slot, sql);
  free (sql);
  return st;
}

static int
put_job (ebb_ctl_store *base, const ebb_ctl_job *j)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  sqlite3_stmt *st = s->st_job
                         ? s->st_job
                         : cached_built (s, &s->st_job, ebb_ctl_store_sql_insert (false, true));
  if (!st || ebb_ctl_sqlite_begin (base) < 0)
    return -EIO;
  ebb_ctl_store_value v[EBB_CTL_JOB_N_COLS];
  ebb_ctl_store_job_values (j, v);
  bind_values (st, v, EBB_CTL_JOB_N_COLS);
  return step_done (s, st, "store job");
}

static int
put_task (ebb_ctl_store *base, const ebb_ctl_task *t, const char *node)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  /* The spec never changes: once the row exists, an update leaves it (serializing it again
   * was most of the cost of a launch's write). */
  sqlite3_stmt **slot = t->stored ? &s->st_task_update : &s->st_task_insert;
  sqlite3_stmt *st = *slot ? *slot
                           : cached_built (s, slot,
                                           t->stored ? ebb_ctl_store_sql_task_update (false)
                                                     : ebb_ctl_store_sql_insert (false, false));
  if (!st || ebb_ctl_sqlite_begin (base) < 0)
    return -EIO;
  ebb_ctl_store_value v[EBB_CTL_TASK_N_COLS];
  ebb_ctl_store_task_values (t, node, v);
  bind_values (st, v, EBB_CTL_TASK_N_COLS);
  return step_done (s, st, "store task");
}

static int
put_node (ebb_ctl_store *base, const ebb_ctl_node *n)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  sqlite3_stmt *st = cached (s, &s->st_node, "INSERT OR REPLACE INTO nodes VALUES (?,?,?,?,?,?,?)");
  if (!st || ebb_ctl_sqlite_begin (base) < 0)
    return -EIO;
  bind_text (st, 1, n->name);
  bind_text (st, 2, n->url);
  sqlite3_bind_int (st, 3, n->state);
  sqlite3_bind_int64 (st, 4, (sqlite3_int64)n->epoch);
  sqlite3_bind_int64 (st, 5, (sqlite3_int64)n->cap_cpu_millis);
  sqlite3_bind_int64 (st, 6, (sqlite3_int64)n->cap_memory_bytes);
  sqlite3_bind_double (st, 7, n->last_hb_at);
  return step_done (s, st, "store node");
}

static int
put_decision (ebb_ctl_store *base, uint64_t seq, double at, const char *kind, const ebb_ctl_task *t,
              const char *node, uint64_t for_job, const char *reason)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  sqlite3_stmt *st
      = cached (s, &s->st_decision, "INSERT INTO decisions VALUES (?,?,?,?,?,?,?,?,?)");
  if (!st || ebb_ctl_sqlite_begin (base) < 0)
    return -EIO;
  sqlite3_bind_int64 (st, 1, (sqlite3_int64)seq);
  sqlite3_bind_double (st, 2, at);
  bind_text (st, 3, kind);
  sqlite3_bind_int64 (st, 4, (sqlite3_int64)t->job->id);
  sqlite3_bind_int64 (st, 5, t->idx);
  sqlite3_bind_int64 (st, 6, (sqlite3_int64)t->generation);
  bind_text (st, 7, node);
  sqlite3_bind_int64 (st, 8, (sqlite3_int64)for_job);
  bind_text (st, 9, reason);
  return step_done (s, st, "store decision");
}

static json_object *
decisions (ebb_ctl_store *base, uint64_t since, unsigned limit)
{
  json_object *arr = json_object_new_array ();
  sqlite3_stmt *st = ebb_ctl_sqlite_prep (
      ebb_ctl_sqlite_of (base), "SELECT seq, time, kind, job, task, generation, node, for_job,"
                                " reason FROM decisions WHERE seq > ? ORDER BY seq LIMIT ?");
  if (!st)
    return arr;
  sqlite3_bind_int64 (st, 1, (sqlite3_int64)since);
  sqlite3_bind_int (st, 2, (int)limit);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      json_object *o = json_object_new_object ();
      ebb_json_add_uint64 (o, "seq", (uint64_t)sqlite3_column_int64 (st, 0));
      ebb_json_add_double (o, "time", sqlite3_column_double (st, 1));
      ebb_json_add_string (o, "action", (const char *)sqlite3_column_text (st, 2));
      cleanup_free char *task = ebb_xasprintf ("%lld-%lld", (long long)sqlite3_column_int64 (st, 3),
                                               (long long)sqlite3_column_int64 (st, 4));
      ebb_json_add_uint64 (o, "job", (uint64_t)sqlite3_column_int64 (st, 3));
      ebb_json_add_string (o, "task", task);
      ebb_json_add_uint64 (o, "generation", (uint64_t)sqlite3_column_int64 (st, 5));
      ebb_json_add_string (o, "node", (const char *)sqlite3_column_text (st, 6));
      ebb_json_add_uint64 (o, "for_job", (uint64_t)sqlite3_column_int64 (st, 7));
      ebb_json_add_string (o, "reason", (const char *)sqlite3_column_text (st, 8));
      json_object_array_add (arr, o);
    }
  sqlite3_finalize (st);
  return arr;
}

static void
stats (ebb_ctl_store *base, ebb_ctl_store_stats *st)
{
  (void)base;
  int hi = 0;
  st->cache_pages = 0;
  sqlite3_status (SQLITE_STATUS_PAGECACHE_USED, &st->cache_pages, &hi, 0);
  st->heap_bytes = sqlite3_memory_used ();
}

/* The policy's kills are the "kill" decisions whose reason sched-preempt.c words so. */
static int
preemptions (ebb_ctl_store *base, ebb_ctl_store_preemptions *p)
{
  sqlite3_stmt *st = ebb_ctl_sqlite_prep (
      ebb_ctl_sqlite_of (base),
      "SELECT sum (kind = 'suspend'), sum (kind = 'resume'),"
      " sum (kind = 'kill' AND reason LIKE '%preemptive kill%') FROM decisions");
  if (!st)
    return -EIO;
  int r = sqlite3_step (st) == SQLITE_ROW ? 0 : -EIO;
  if (r == 0)
    {
      p->suspends = (uint64_t)sqlite3_column_int64 (st, 0);
      p->resumes = (uint64_t)sqlite3_column_int64 (st, 1);
      p->preempt_kills = (uint64_t)sqlite3_column_int64 (st, 2);
    }
  sqlite3_finalize (st);
  return r;
}

static const ebb_ctl_store_ops sqlite_ops = {
  .name = "sqlite",
  .close = close_store,
  .begin = ebb_ctl_sqlite_begin,
  .commit = commit,
  .in_transaction = in_transaction,
  .checkpoint = checkpoint,
  .put_job = put_job,
  .put_task = put_task,
  .put_node = put_node,
  .put_decision = put_decision,
  .put_call = ebb_ctl_sqlite_put_call,
  .call_done = ebb_ctl_sqlite_call_done,
  .calls = ebb_ctl_sqlite_calls,
  .decisions = decisions,
  .load = ebb_ctl_sqlite_load,
  .job_get = ebb_ctl_sqlite_job_get,
  .job_page = ebb_ctl_sqlite_job_page,
  .rid_answer = ebb_ctl_sqlite_rid_answer,
  .prune = ebb_ctl_sqlite_prune,
  .pruned_tasks = ebb_ctl_sqlite_pruned_tasks,
  .preemptions = preemptions,
  .stats = stats,
};

/* See store-backend.h. */
int
ebb_ctl_store_sqlite_open (const char *path, ebb_ctl_store **out, ebb_error **err)
{
  store_cache_setup ();
  ebb_ctl_sqlite *s = ebb_xcalloc (1, sizeof *s);
  s->base.ops = &sqlite_ops;
  int r = 0;
  if (sqlite3_open_v2 (path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
    r = ebb_error_set (err, EIO, "open %s: %s", path,
                       s->db ? sqlite3_errmsg (s->db) : "out of memory");
  /* The page size before the schema's WAL mode (a new database cannot change it once in WAL
   * mode), and the cache size explicit, in pages: the buffer of store_cache_setup holds them. */
  cleanup_free char *sizes = ebb_xasprintf ("PRAGMA page_size=%d; PRAGMA cache_size=%d;",
                                            EBB_CTL_STORE_PAGE_SIZE, EBB_CTL_STORE_CACHE_PAGES);
  if (r == 0)
    sqlite3_busy_timeout (s->db, 2000);
  if (r == 0 && (exec (s, sizes) < 0 || exec (s, schema) < 0 || migrate (s) < 0))
    r = ebb_error_set (err, EIO, "%s: cannot create the schema: %s", path, sqlite3_errmsg (s->db));
  if (r < 0)
    {
      sqlite3_close (s->db);
      free (s);
      return r;
    }
  /* Checkpoints (which sync) run from the periodic tick, not inside the commit of a
   * decision: checkpoint. */
  sqlite3_wal_autocheckpoint (s->db, 0);
  sqlite3_wal_hook (s->db, on_wal, s);
  *out = &s->base;
  return 0;
}
