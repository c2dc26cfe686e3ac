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

#define JOB_COLS                                                                                   \
  "id, request_id, name, class, est, state, submitted_at, started_at, finished_at, answer,"        \
  " ntasks, body_digest, placed_at, reason, reason_msg, priority, submitted_by"
#define TASK_COLS                                                                                  \
  "t.job, t.idx, t.spec, t.state, t.node, t.generation, t.exit_status, t.has_exit,"                \
  " t.suspensions, t.started_at, t.finished_at, t.kill_wanted, t.reason, t.reason_msg,"            \
  " t.suspended_sec, t.end_reason, t.held"

static int
load_nodes (ebb_ctl_sqlite *s, ebb_ctl *c)
{
  sqlite3_stmt *st = ebb_ctl_sqlite_prep (s, "SELECT name, url, state, epoch, cap_cpu, cap_mem,"
                                             " last_hb FROM nodes ORDER BY name");
  if (!st)
    return -EIO;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      ebb_ctl_node *n = ebb_xcalloc (1, sizeof *n);
      n->name = ebb_ctl_sqlite_col_str (st, 0);
      n->url = ebb_ctl_sqlite_col_str (st, 1);
      n->state = (ebb_ctl_node_state)sqlite3_column_int (st, 2);
      n->epoch = (uint64_t)sqlite3_column_int64 (st, 3);
      n->cap_cpu_millis = (uint64_t)sqlite3_column_int64 (st, 4);
      n->cap_memory_bytes = (uint64_t)sqlite3_column_int64 (st, 5);
      n->last_hb_at = sqlite3_column_double (st, 6);
      if (!n->name || ebb_ctl_add_node (c, n) < 0)
        {
          free (n->name);
          free (n->url);
          free (n);
        }
    }
  sqlite3_finalize (st);
  return 0;
}

/* The reason in columns col (its code's name) and col + 1 (its message) of a row. */
static void
reason_of_row (ebb_ctl_reason *r, sqlite3_stmt *st, int col)
{
  ebb_ctl_reason_code code = ebb_ctl_reason_code_of ((const char *)sqlite3_column_text (st, col));
  const char *msg = (const char *)sqlite3_column_text (st, col + 1);
  ebb_ctl_reason_set (r, code, "%s", msg ? msg : "");
}

/* A job of a JOB_COLS row, its tasks failed until their rows are read (with_tasks; else
 * none allocated: a listing counts them); NULL for a row with no task or too many. */
static ebb_ctl_job *
job_of_row (ebb_ctl *c, sqlite3_stmt *st, bool with_tasks)
{
  uint64_t ntasks = (uint64_t)sqlite3_column_int64 (st, 10);
  if (ntasks == 0 || ntasks > EBB_CTL_MAX_TASKS_PER_JOB)
    return NULL;
  ebb_ctl_job *j = ebb_xcalloc (1, sizeof *j);
  j->id = (uint64_t)sqlite3_column_int64 (st, 0);
  j->request_id = ebb_ctl_sqlite_col_str (st, 1);
  j->name = ebb_ctl_sqlite_col_str (st, 2);
  j->cls = (ebb_ctl_class)sqlite3_column_int (st, 3);
  j->est_task_sec = sqlite3_column_double (st, 4);
  ebb_ctl_job_set_state (c, j, (ebb_ctl_job_state)sqlite3_column_int (st, 5));
  j->submitted_at = sqlite3_column_double (st, 6);
  j->started_at = sqlite3_column_double (st, 7);
  j->finished_at = sqlite3_column_double (st, 8);
  j->answer = ebb_ctl_sqlite_col_str (st, 9);
  j->body_digest = ebb_ctl_sqlite_col_str (st, 11);
  j->priority = sqlite3_column_int (st, 15);
  const char *who = (const char *)sqlite3_column_text (st, 16);
  snprintf (j->submitted_by, sizeof j->submitted_by, "%s", who ? who : "");
  j->ntasks = (uint32_t)ntasks;
  j->placed_at = sqlite3_column_double (st, 12);
  reason_of_row (&j->reason, st, 13);
  if (!with_tasks)
    return j;
  j->tasks = ebb_xcalloc (ntasks, sizeof *j->tasks);
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      j->tasks[i].job = j;
      j->tasks[i].idx = i;
      j->tasks[i].node = -1;
      j->tasks[i].slot = EBB_POL_NONE;
      j->tasks[i].pjob = EBB_POL_NONE;
      ebb_ctl_task_set_state (c, &j->tasks[i], TASK_FAILED); /* until its row is read */
    }
  return j;
}

/* Fills task idx of j from a TASK_COLS row; keep_spec: the spec stays (a task of the
 * model), else it is read for the allocation only. Returns false for a bad row. */
static bool
task_of_row (ebb_ctl *c, ebb_ctl_job *j, sqlite3_stmt *st, bool keep_spec)
{
  uint64_t idx = (uint64_t)sqlite3_column_int64 (st, 1);
  if (idx >= j->ntasks)
    return false;
  ebb_ctl_task *t = &j->tasks[idx];
  const char *spec = (const char *)sqlite3_column_text (st, 2);
  json_object *o = spec ? json_tokener_parse (spec) : NULL, *v;
  if (!o)
    return false;
  if (json_object_object_get_ex (o, "cpu_millis", &v))
    t->cpu_millis = (uint64_t)json_object_get_int64 (v);
  if (json_object_object_get_ex (o, "memory_bytes", &v))
    t->memory_bytes = (uint64_t)json_object_get_int64 (v);
  if (ebb_ctl_dag_load (j, t, o) < 0)
    {
      json_object_put (o);
      return false;
    }
  if (keep_spec)
    ebb_ctl_task_set_spec (t, o);
  else
    json_object_put (o);
  ebb_ctl_task_set_state (c, t, (ebb_ctl_task_state)sqlite3_column_int (st, 3));
  const char *node = (const char *)sqlite3_column_text (st, 4);
  int ni = -1;
  if (node && ebb_ctl_node_find (c, node, &ni))
    ebb_ctl_task_set_node (c, t, ni);
  t->generation = (uint64_t)sqlite3_column_int64 (st, 5);
  t->exit_status = sqlite3_column_int64 (st, 6);
  t->has_exit = sqlite3_column_int (st, 7);
  t->suspensions = (uint32_t)sqlite3_column_int64 (st, 8);
  t->started_at = sqlite3_column_double (st, 9);
  t->finished_at = sqlite3_column_double (st, 10);
  t->kill_wanted = sqlite3_column_int (st, 11);
  reason_of_row (&t->reason, st, 12);
  t->suspended_sec = sqlite3_column_double (st, 14);
  const char *why = (const char *)sqlite3_column_text (st, 15);
  snprintf (t->end_reason, sizeof t->end_reason, "%s", why ? why : "");
  t->held = sqlite3_column_int (st, 16) != 0;
  t->stored = true;
  return true;
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
        {
          uint64_t a = (uint64_t)sqlite3_column_int64 (st, 0);
          uint64_t n = (uint64_t)sqlite3_column_int64 (st, 1);
          if (q == 0)
            {
              if (a >= c->next_job_id)
                c->next_job_id = a + 1;
              c->n_jobs_stored = n;
            }
          else if (q == 1 && a < EBB_ARRAY_SIZE (c->evicted_jobs))
            c->evicted_jobs[a] += n;
          else if (q == 2 && a < EBB_ARRAY_SIZE (c->evicted_tasks))
            c->evicted_tasks[a] += n;
        }
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
      int64_t state = sqlite3_column_int64 (st, 17); /* after JOB_COLS */
      uint64_t count = (uint64_t)sqlite3_column_int64 (st, 18);
      if (sum->job && sqlite3_column_type (st, 17) != SQLITE_NULL && state >= 0
          && state < TASK_N_STATES)
        sum->task_states[state] += (uint32_t)count;
      sum->suspensions += (uint64_t)sqlite3_column_int64 (st, 19);
      sum->suspended_sec += sqlite3_column_double (st, 20);
    }
  sqlite3_reset (st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    {
      ebb_ctl_job_summaries_free (v, k);
      return -EIO;
    }
  /* A task without its row reads as failed, as ebb_ctl_store_job_get gives it. */
  for (size_t i = 0; i < k; i++)
    {
      uint64_t sum = 0;
      for (int ts = 0; v[i].job && ts < TASK_N_STATES; ts++)
        sum += v[i].task_states[ts];
      if (v[i].job && sum < v[i].job->ntasks)
        v[i].task_states[TASK_FAILED] += (uint32_t)(v[i].job->ntasks - sum);
    }
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
