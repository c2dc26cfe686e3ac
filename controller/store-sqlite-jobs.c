/* Reading jobs back from the store: at the start, the nodes and the unfinished jobs (a
 * finished job is only counted: the model does not grow with the jobs of every earlier
 * run); while running, a finished job that left memory (sched-evict.c) for GET /v1/jobs
 * and GET /v1/jobs/{id}, and the first answer to a replayed request id. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/store-sqlite.h"
#include "lib/util.h"

#define JOB_COLS  EBB_CTL_STORE_JOB_COLS
#define TASK_COLS EBB_CTL_STORE_TASK_COLS

/* A statement's current row as store-rows.c reads it. */
static int64_t
col_int (const ebb_ctl_store_row *r, int col)
{
  return sqlite3_column_int64 ((sqlite3_stmt *)r->res, col);
}

static double
col_double (const ebb_ctl_store_row *r, int col)
{
  return sqlite3_column_double ((sqlite3_stmt *)r->res, col);
}

static const char *
col_text (const ebb_ctl_store_row *r, int col)
{
  return (const char *)sqlite3_column_text ((sqlite3_stmt *)r->res, col);
}

static int
load_nodes (ebb_ctl_sqlite *s, ebb_ctl *c)
{
  sqlite3_stmt *st
      = ebb_ctl_sqlite_prep (s, "SELECT " EBB_CTL_STORE_NODE_COLS " FROM nodes ORDER BY name");
  if (!st)
    return -EIO;
  while (sqlite3_step (st) == SQLITE_ROW)
    ebb_ctl_store_node_of_row (c, &(ebb_ctl_store_row){ col_int, col_double, col_text, st, 0 });
  sqlite3_finalize (st);
  return 0;
}

static ebb_ctl_job *
job_of_row (ebb_ctl *c, sqlite3_stmt *st, bool with_tasks)
{
  ebb_ctl_store_row r = { col_int, col_double, col_text, st, 0 };
  return ebb_ctl_store_job_of_row (c, &r, with_tasks);
}

static bool
task_of_row (ebb_ctl *c, ebb_ctl_job *j, sqlite3_stmt *st, bool keep_spec)
{
  ebb_ctl_store_row r = { col_int, col_double, col_text, st, 0 };
  return ebb_ctl_store_task_of_row (c, j, &r, keep_spec);
}

/* Reads the unfinished jobs with their tasks, then adds them to the model whole (which
 * counts them as they are). */
static int
load_jobs (ebb_ctl_sqlite *s, ebb_ctl *c)
{
  sqlite3_stmt *st
      = ebb_ctl_sqlite_prep (s, "SELECT " JOB_COLS " FROM jobs WHERE state < ?1 ORDER BY id");
  if (!st)
    return -EIO;
  ebb_ctl_job **v = NULL;
  size_t n = 0, cap = 0;
  sqlite3_bind_int (st, 1, JOB_DONE);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      ebb_ctl_job *j = job_of_row (c, st, true);
      if (!j)
        continue;
      if (n == cap)
        v = ebb_xrealloc (v, (cap = cap ? 2 * cap : 64) * sizeof *v);
      v[n++] = j;
    }
  sqlite3_finalize (st);
  st = ebb_ctl_sqlite_prep (s, "SELECT " TASK_COLS " FROM tasks t JOIN jobs j ON j.id = t.job"
                               " WHERE j.state < ?1");
  if (st)
    {
      sqlite3_bind_int (st, 1, JOB_DONE);
      while (sqlite3_step (st) == SQLITE_ROW)
        {
          ebb_ctl_job *j = ebb_ctl_job_search (v, n, (uint64_t)sqlite3_column_int64 (st, 0));
          if (j)
            task_of_row (c, j, st, true);
        }
      sqlite3_finalize (st);
    }
  for (size_t i = 0; i < n; i++)
    if (st)
      ebb_ctl_add_job (c, v[i]);
    else
      ebb_ctl_job_free (v[i]);
  free (v);
  return st ? 0 : -EIO;
}

/* The finished jobs left in the store: the next id, the count, their states for the
 * metrics. */
static int
count_finished (ebb_ctl_sqlite *s, ebb_ctl *c)
{
  static const char *const sql[]
      = { "SELECT MAX(id), COUNT(*) FROM jobs",
          "SELECT state, COUNT(*) FROM jobs WHERE state >= ?1 GROUP BY state",
          "SELECT t.state, COUNT(*) FROM tasks t JOIN jobs j ON j.id = t.job"
          " WHERE j.state >= ?1 GROUP BY t.state" };
  for (size_t q = 0; q < EBB_ARRAY_SIZE (sql); q++)
    {
      sqlite3_stmt *st = ebb_ctl_sqlite_prep (s, sql[q]);
      if (!st)
        return -EIO;
      if (q > 0)
        sqlite3_bind_int (st, 1, JOB_DONE);
      while (sqlite3_step (st) == SQLITE_ROW)
        ebb_ctl_store_count_row (c, (int)q, (uint64_t)sqlite3_column_int64 (st, 0),
                                 (uint64_t)sqlite3_column_int64 (st, 1));
      sqlite3_finalize (st);
    }
  return 0;
}

/* See store-sqlite.h. */
int
ebb_ctl_sqlite_load (ebb_ctl_store *base, ebb_ctl *c, uint64_t *last_seq, ebb_error **err)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  if (load_nodes (s, c) < 0 || load_jobs (s, c) < 0 || count_finished (s, c) < 0)
    return ebb_error_set (err, EIO, "load the store: %s", sqlite3_errmsg (s->db));
  sqlite3_stmt *st = ebb_ctl_sqlite_prep (s, "SELECT MAX(seq) FROM decisions");
  if (st && sqlite3_step (st) == SQLITE_ROW)
    *last_seq = (uint64_t)sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  if (c->next_job_id == 0)
    c->next_job_id = 1;
  return 0;
}

/* See store-sqlite.h. */
ebb_ctl_job *
ebb_ctl_sqlite_job_get (ebb_ctl_store *base, ebb_ctl *c, uint64_t id)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  /* Prepared once: GET /v1/jobs/{id} reads an evicted job this way. */
  sqlite3_stmt *st
      = ebb_ctl_sqlite_cached (s, &s->st_job_get, "SELECT " JOB_COLS " FROM jobs WHERE id = ?1");
  sqlite3_stmt *tt = ebb_ctl_sqlite_cached (s, &s->st_tasks_get,
                                            "SELECT " TASK_COLS " FROM tasks t WHERE t.job = ?1");
  if (!st || !tt)
    return NULL;
  sqlite3_bind_int64 (st, 1, (sqlite3_int64)id);
  ebb_ctl_job *j = sqlite3_step (st) == SQLITE_ROW ? job_of_row (c, st, true) : NULL;
  sqlite3_reset (st);
  sqlite3_bind_int64 (tt, 1, (sqlite3_int64)id);
  while (j && sqlite3_step (tt) == SQLITE_ROW)
    task_of_row (c, j, tt, false);
  sqlite3_reset (tt);
  return j;
}

/* See store-sqlite.h. */
int
ebb_ctl_sqlite_job_page (ebb_ctl_store *base, ebb_ctl *c, uint64_t after, bool desc, size_t limit,
                         ebb_ctl_job_summary **out, size_t *n)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  *out = NULL;
  *n = 0;
  if (desc && after == 0)
    return 0; /* no id below 0 */
  /* One statement for a page: the page's job rows first (the subquery, by the primary key,
   * walked either way), then one row per job and task state with its count, through the
   * tasks' primary key (job, idx). A job whose task rows are missing has a row of NULL
   * state and count 0. Descending, the bound is inclusive (id <= after - 1): ids reach
   * INT64_MAX at most, to which a larger after is cut. */
  static const char *const sql[2] = {
    "SELECT j.*, t.state, COUNT(t.job), SUM(t.suspensions), SUM(t.suspended_sec) FROM "
    "(SELECT " JOB_COLS " FROM jobs WHERE id > ?1"
    " ORDER BY id LIMIT ?2) j LEFT JOIN tasks t ON t.job = j.id AND t.idx < j.ntasks"
    " GROUP BY j.id, t.state ORDER BY j.id",
    "SELECT j.*, t.state, COUNT(t.job), SUM(t.suspensions), SUM(t.suspended_sec) FROM "
    "(SELECT " JOB_COLS " FROM jobs WHERE id <= ?1"
    " ORDER BY id DESC LIMIT ?2) j LEFT JOIN tasks t ON t.job = j.id AND t.idx < j.ntasks"
    " GROUP BY j.id, t.state ORDER BY j.id DESC",
  };
  sqlite3_stmt *st = ebb_ctl_sqlite_cached (s, &s->st_job_page[desc], sql[desc]);
  if (!st)
    return -EIO;
  uint64_t bound = desc ? after - 1 : after;
  sqlite3_bind_int64 (st, 1, (sqlite3_int64)(bound > INT64_MAX ? INT64_MAX : bound));
  sqlite3_bind_int64 (st, 2, (sqlite3_int64)limit);
  ebb_ctl_job_summary *v = limit ? ebb_xcalloc (limit, sizeof *v) : NULL;
  size_t k = 0;
  int rc;
  while ((rc = sqlite3_step (st)) == SQLITE_ROW)
    {
      uint64_t id = (uint64_t)sqlite3_column_int64 (st, 0);
      if (k == 0 || v[k - 1].id != id)
        {
          if (k == limit)
            break; /* cannot happen: the subquery gives at most limit jobs */
          v[k].id = id;
          v[k].job = job_of_row (c, st, false);
          k++;
        }
      ebb_ctl_job_summary *sum = &v[k - 1];
      const int col = EBB_CTL_JOB_N_COLS; /* after JOB_COLS */
      int64_t state = sqlite3_column_int64 (st, col);
      uint64_t count = (uint64_t)sqlite3_column_int64 (st, col + 1);
      if (sum->job && sqlite3_column_type (st, col) != SQLITE_NULL && state >= 0
          && state < TASK_N_STATES)
        sum->task_states[state] += (uint32_t)count;
      sum->suspensions += (uint64_t)sqlite3_column_int64 (st, col + 2);
      sum->suspended_sec += sqlite3_column_double (st, col + 3);
    }
  sqlite3_reset (st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    {
      ebb_ctl_job_summaries_free (v, k);
      return -EIO;
    }
  ebb_ctl_store_summaries_missing (v, k);
  *out = v;
  *n = k;
  return 0;
}

/* See store-sqlite.h. */
char *
ebb_ctl_sqlite_rid_answer (ebb_ctl_store *base, const char *request_id, char **digest)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  sqlite3_stmt *st = ebb_ctl_sqlite_cached (s, &s->st_rid,
                                            "SELECT answer, body_digest FROM jobs"
                                            " WHERE request_id = ?1 ORDER BY id DESC LIMIT 1");
  if (!st)
    return NULL;
  sqlite3_bind_text (st, 1, request_id, -1, SQLITE_STATIC);
  char *a = NULL;
  if (sqlite3_step (st) == SQLITE_ROW)
    {
      a = ebb_ctl_sqlite_col_str (st, 0);
      *digest = ebb_ctl_sqlite_col_str (st, 1);
    }
  sqlite3_reset (st);
  sqlite3_clear_bindings (st);
  return a;
}
