/* Reading the PostgreSQL store back (as store-sqlite-jobs.c and store-sqlite-calls.c do
 * SQLite's): at the start the nodes, the unfinished jobs with their tasks, the figures of the
 * finished ones and the last decision; while running, an evicted job, a page of jobs, the
 * first answer to a request id, the decision log and the calls kept. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/store-pg.h"
#include "lib/json.h"
#include "lib/util.h"

#define get_int ebb_ctl_pg_get_int
#define get_str ebb_ctl_pg_get_str
#define get_dbl ebb_ctl_pg_get_double

/* Row i of a result as store-rows.c reads it. */
static int64_t
col_int (const ebb_ctl_store_row *r, int col)
{
  return get_int (r->res, r->row, col);
}

static double
col_double (const ebb_ctl_store_row *r, int col)
{
  return get_dbl (r->res, r->row, col);
}

static const char *
col_text (const ebb_ctl_store_row *r, int col)
{
  return PQgetisnull (r->res, r->row, col) ? NULL : PQgetvalue (r->res, r->row, col);
}

static int
load_nodes (ebb_ctl_pg *s, ebb_ctl *c)
{
  PGresult *r = ebb_ctl_pg_exec (s, "SELECT " EBB_CTL_STORE_NODE_COLS " FROM nodes ORDER BY name");
  if (!r)
    return -EIO;
  for (int i = 0; i < PQntuples (r); i++)
    ebb_ctl_store_node_of_row (c, &(ebb_ctl_store_row){ col_int, col_double, col_text, r, i });
  PQclear (r);
  return 0;
}

static ebb_ctl_job *
job_of_row (ebb_ctl *c, const PGresult *res, int i, bool with_tasks)
{
  ebb_ctl_store_row r = { col_int, col_double, col_text, res, i };
  return ebb_ctl_store_job_of_row (c, &r, with_tasks);
}

static bool
task_of_row (ebb_ctl *c, ebb_ctl_job *j, const PGresult *res, int i, bool keep_spec)
{
  ebb_ctl_store_row r = { col_int, col_double, col_text, res, i };
  return ebb_ctl_store_task_of_row (c, j, &r, keep_spec);
}

/* The unfinished jobs with their tasks, added to the model whole. */
static int
load_jobs (ebb_ctl_pg *s, ebb_ctl *c)
{
  cleanup_free char *jq = ebb_xasprintf ("SELECT " EBB_CTL_PG_JOB_COLS " FROM jobs WHERE state < %d"
                                         " ORDER BY id",
                                         (int)JOB_DONE);
  cleanup_free char *tq = ebb_xasprintf ("SELECT " EBB_CTL_PG_TASK_COLS " FROM tasks t JOIN jobs j"
                                         " ON j.id = t.job WHERE j.state < %d",
                                         (int)JOB_DONE);
  PGresult *r = ebb_ctl_pg_exec (s, jq);
  if (!r)
    return -EIO;
  size_t n = 0;
  ebb_ctl_job **v = ebb_xcalloc ((size_t)PQntuples (r) + 1, sizeof *v);
  for (int i = 0; i < PQntuples (r); i++)
    if ((v[n] = job_of_row (c, r, i, true)))
      n++;
  PQclear (r);
  PGresult *t = ebb_ctl_pg_exec (s, tq);
  for (int i = 0; t && i < PQntuples (t); i++)
    {
      ebb_ctl_job *j = ebb_ctl_job_search (v, n, (uint64_t)get_int (t, i, 0));
      if (j)
        task_of_row (c, j, t, i, true);
    }
  for (size_t i = 0; i < n; i++)
    if (t)
      ebb_ctl_add_job (c, v[i]);
    else
      ebb_ctl_job_free (v[i]);
  free (v);
  int ret = t ? 0 : -EIO;
  PQclear (t);
  return ret;
}

/* The finished jobs left in the store: the next id, the count, their states. */
static int
count_finished (ebb_ctl_pg *s, ebb_ctl *c)
{
  cleanup_free char *q1 = ebb_xasprintf ("SELECT state, COUNT(*) FROM jobs WHERE state >= %d"
                                         " GROUP BY state",
                                         (int)JOB_DONE);
  cleanup_free char *q2 = ebb_xasprintf ("SELECT t.state, COUNT(*) FROM tasks t JOIN jobs j"
                                         " ON j.id = t.job WHERE j.state >= %d GROUP BY t.state",
                                         (int)JOB_DONE);
  const char *sql[] = { "SELECT COALESCE(MAX(id), 0), COUNT(*) FROM jobs", q1, q2 };
  for (size_t q = 0; q < EBB_ARRAY_SIZE (sql); q++)
    {
      PGresult *r = ebb_ctl_pg_exec (s, sql[q]);
      if (!r)
        return -EIO;
      for (int i = 0; i < PQntuples (r); i++)
        ebb_ctl_store_count_row (c, (int)q, (uint64_t)get_int (r, i, 0),
                                 (uint64_t)get_int (r, i, 1));
      PQclear (r);
    }
  return 0;
}

/* See store-pg.h. */
int
ebb_ctl_pg_load (ebb_ctl_store *base, ebb_ctl *c, uint64_t *last_seq, ebb_error **err)
{
  ebb_ctl_pg *s = ebb_ctl_pg_of (base);
  if (load_nodes (s, c) < 0 || load_jobs (s, c) < 0 || count_finished (s, c) < 0)
    return ebb_error_set (err, EIO, "load the store: %s", PQerrorMessage (s->conn));
  PGresult *r = ebb_ctl_pg_exec (s, "SELECT COALESCE(MAX(seq), 0) FROM decisions");
  if (r && PQntuples (r) == 1)
    *last_seq = (uint64_t)get_int (r, 0, 0);
  PQclear (r);
  if (c->next_job_id == 0)
    c->next_job_id = 1;
  return 0;
}

/* See store-pg.h. */
ebb_ctl_job *
ebb_ctl_pg_job_get (ebb_ctl_store *base, ebb_ctl *c, uint64_t id)
{
  ebb_ctl_pg *s = ebb_ctl_pg_of (base);
  ebb_ctl_pg_params p = { 0 };
  ebb_ctl_pg_int (&p, (int64_t)id);
  PGresult *r = ebb_ctl_pg_run (s, PG_JOB_GET, &p);
  ebb_ctl_job *j = r && PQntuples (r) == 1 ? job_of_row (c, r, 0, true) : NULL;
  PQclear (r);
  if (!j)
    return NULL;
  r = ebb_ctl_pg_run (s, PG_TASKS_GET, &p);
  for (int i = 0; r && i < PQntuples (r); i++)
    task_of_row (c, j, r, i, false);
  PQclear (r);
  return j;
}

/* See store-pg.h. */
int
ebb_ctl_pg_job_page (ebb_ctl_store *base, ebb_ctl *c, uint64_t after, bool desc, size_t limit,
                     ebb_ctl_job_summary **out, size_t *n)
{
  *out = NULL;
  *n = 0;
  if (desc && after == 0)
    return 0; /* no id below 0 */
  uint64_t bound = desc ? after - 1 : after;
  ebb_ctl_pg_params p = { 0 };
  ebb_ctl_pg_int (&p, (int64_t)(bound > INT64_MAX ? INT64_MAX : bound));
  ebb_ctl_pg_int (&p, (int64_t)limit);
  PGresult *r
      = ebb_ctl_pg_run (ebb_ctl_pg_of (base), desc ? PG_JOB_PAGE_DESC : PG_JOB_PAGE_ASC, &p);
  if (!r)
    return -EIO;
  ebb_ctl_job_summary *v = limit ? ebb_xcalloc (limit, sizeof *v) : NULL;
  size_t k = 0;
  for (int i = 0; i < PQntuples (r); i++)
    {
      uint64_t id = (uint64_t)get_int (r, i, 0);
      if (k == 0 || v[k - 1].id != id)
        {
          if (k == limit)
            break;
          v[k].id = id;
          v[k].job = job_of_row (c, r, i, false);
          k++;
        }
      ebb_ctl_job_summary *sum = &v[k - 1];
      const int col = EBB_CTL_JOB_N_COLS; /* after the job's columns */
      int64_t state = get_int (r, i, col);
      if (sum->job && !PQgetisnull (r, i, col) && state >= 0 && state < TASK_N_STATES)
        sum->task_states[state] += (uint32_t)get_int (r, i, col + 1);
      sum->suspensions += (uint64_t)get_int (r, i, col + 2);
      sum->suspended_sec += get_dbl (r, i, col + 3);
    }
  PQclear (r);
  ebb_ctl_store_summaries_missing (v, k);
  *out = v;
  *n = k;
  return 0;
}

/* See store-pg.h. */
char *
ebb_ctl_pg_rid_answer (ebb_ctl_store *base, const char *request_id, char **digest)
{
  ebb_ctl_pg_params p = { 0 };
  ebb_ctl_pg_str (&p, request_id);
  PGresult *r = ebb_ctl_pg_run (ebb_ctl_pg_of (base), PG_RID, &p);
  char *a = r && PQntuples (r) == 1 ? get_str (r, 0, 0) : NULL;
  if (a)
    *digest = get_str (r, 0, 1);
  PQclear (r);
  return a;
}

/* See store-pg.h. */
size_t
ebb_ctl_pg_calls (ebb_ctl_store *base, ebb_ctl_stored_call **out)
{
  *out = NULL;
  PGresult *r = ebb_ctl_pg_exec (ebb_ctl_pg_of (base), "SELECT job, idx, generation, seq, kind,"
                                                       " path, body FROM calls ORDER BY seq");
  size_t n = r ? (size_t)PQntuples (r) : 0;
  ebb_ctl_stored_call *v = n ? ebb_xcalloc (n, sizeof *v) : NULL;
  for (size_t i = 0; i < n; i++)
    {
      v[i].job = (uint64_t)get_int (r, (int)i, 0);
      v[i].idx = (uint32_t)get_int (r, (int)i, 1);
      v[i].generation = (uint64_t)get_int (r, (int)i, 2);
      v[i].seq = (uint64_t)get_int (r, (int)i, 3);
      v[i].kind = get_str (r, (int)i, 4);
      v[i].path = get_str (r, (int)i, 5);
      v[i].body = get_str (r, (int)i, 6);
    }
  PQclear (r);
  *out = v;
  return n;
}

/* See store-pg.h. */
json_object *
ebb_ctl_pg_decisions (ebb_ctl_store *base, uint64_t since, unsigned limit)
{
  json_object *arr = json_object_new_array ();
  cleanup_free char *q = ebb_xasprintf ("SELECT seq, time, kind, job, task, generation, node,"
                                        " for_job, reason FROM decisions WHERE seq > %llu"
                                        " ORDER BY seq LIMIT %u",
                                        (unsigned long long)since, limit);
  PGresult *r = ebb_ctl_pg_exec (ebb_ctl_pg_of (base), q);
  for (int i = 0; r && i < PQntuples (r); i++)
    {
      json_object *o = json_object_new_object ();
      ebb_json_add_uint64 (o, "seq", (uint64_t)get_int (r, i, 0));
      ebb_json_add_double (o, "time", get_dbl (r, i, 1));
      ebb_json_add_string (o, "action", PQgetisnull (r, i, 2) ? NULL : PQgetvalue (r, i, 2));
      cleanup_free char *task = ebb_xasprintf ("%s-%s", PQgetvalue (r, i, 3), PQgetvalue (r, i, 4));
      ebb_json_add_uint64 (o, "job", (uint64_t)get_int (r, i, 3));
      ebb_json_add_string (o, "task", task);
      ebb_json_add_uint64 (o, "generation", (uint64_t)get_int (r, i, 5));
      ebb_json_add_string (o, "node", PQgetisnull (r, i, 6) ? NULL : PQgetvalue (r, i, 6));
      ebb_json_add_uint64 (o, "for_job", (uint64_t)get_int (r, i, 7));
      ebb_json_add_string (o, "reason", PQgetisnull (r, i, 8) ? NULL : PQgetvalue (r, i, 8));
      json_object_array_add (arr, o);
    }
  PQclear (r);
  return arr;
}
