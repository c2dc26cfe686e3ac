/* Retention in the PostgreSQL store, as store-sqlite-prune.c does it in SQLite's: finished
 * jobs leave with their tasks once older than the retention age or beyond the newest `keep`
 * finished ones (a job with an agent call still recorded stays), the decision log keeps the
 * retention age's decisions and always the newest one; the pruned tasks that went to a node
 * (whose agents may keep their logs) kept for ebb_ctl_pg_pruned_tasks; and the preemptions
 * counted in the decision log. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "controller/store-pg.h"
#include "lib/util.h"

/* The pruned tasks of the last prune, as SQLite's temp.pruned_tasks: a temporary table, of
 * this session only, whose rows outlive the prune's commit (read after it) and go at the
 * next prune. Created where it is used: a new session (a reconnect) has none. */
#define PRUNED_TABLE                                                                               \
  "CREATE TEMP TABLE IF NOT EXISTS pruned_tasks AS"                                                \
  " SELECT job, idx, generation, node FROM tasks WITH NO DATA;"

/* See store-pg.h. In the open transaction (fenced; opened if none). */
int
ebb_ctl_pg_prune (ebb_ctl_store *base, double finished_before, uint64_t keep, unsigned max,
                  uint64_t *pruned)
{
  ebb_ctl_pg *s = ebb_ctl_pg_of (base);
  *pruned = 0;
  if (ebb_ctl_pg_begin (base) < 0)
    return -EIO;
  /* The jobs' and their tasks' rows in one statement, which keeps the tasks that went to a
   * node (RETURNING of their DELETE). */
  cleanup_free char *ids = ebb_ctl_store_sql_prune_ids (finished_before, keep, max);
  cleanup_free char *jobs = ebb_xasprintf (
      PRUNED_TABLE "TRUNCATE pruned_tasks;"
                   "WITH p AS (%s),"
                   " dt AS (DELETE FROM tasks WHERE job IN (SELECT id FROM p)"
                   " RETURNING job, idx, generation, node),"
                   " kt AS (INSERT INTO pruned_tasks SELECT * FROM dt WHERE node IS NOT NULL),"
                   " dj AS (DELETE FROM jobs WHERE id IN (SELECT id FROM p) RETURNING id)"
                   " SELECT COUNT(*) FROM dj",
      ids);
  cleanup_free char *log = ebb_ctl_store_sql_prune_log (finished_before);
  PGresult *r = ebb_ctl_pg_exec (s, jobs);
  if (!r)
    return -EIO;
  *pruned = (uint64_t)ebb_ctl_pg_get_int (r, 0, 0);
  PQclear (r);
  r = ebb_ctl_pg_exec (s, log);
  PQclear (r);
  return r ? 0 : -EIO;
}

/* See store-pg.h. */
size_t
ebb_ctl_pg_pruned_tasks (ebb_ctl_store *base, unsigned max, ebb_ctl_pruned_task **out)
{
  *out = NULL;
  cleanup_free char *sql = ebb_xasprintf (
      PRUNED_TABLE "SELECT job, idx, generation, node FROM pruned_tasks ORDER BY job, idx LIMIT %u",
      max);
  PGresult *r = ebb_ctl_pg_exec (ebb_ctl_pg_of (base), sql);
  size_t n = r ? (size_t)PQntuples (r) : 0;
  ebb_ctl_pruned_task *v = n ? ebb_xcalloc (n, sizeof *v) : NULL;
  for (size_t i = 0; i < n; i++)
    v[i] = (ebb_ctl_pruned_task){ .job = (uint64_t)ebb_ctl_pg_get_int (r, (int)i, 0),
                                  .idx = (uint32_t)ebb_ctl_pg_get_int (r, (int)i, 1),
                                  .generation = (uint64_t)ebb_ctl_pg_get_int (r, (int)i, 2),
                                  .node = ebb_ctl_pg_get_str (r, (int)i, 3) };
  PQclear (r);
  *out = v;
  return n;
}

/* See store-pg.h. */
int
ebb_ctl_pg_preemptions (ebb_ctl_store *base, ebb_ctl_store_preemptions *p)
{
  PGresult *r = ebb_ctl_pg_run (ebb_ctl_pg_of (base), PG_PREEMPTIONS, NULL);
  if (!r || PQntuples (r) != 1)
    {
      PQclear (r);
      return -EIO;
    }
  p->suspends = (uint64_t)ebb_ctl_pg_get_int (r, 0, 0);
  p->resumes = (uint64_t)ebb_ctl_pg_get_int (r, 0, 1);
  p->preempt_kills = (uint64_t)ebb_ctl_pg_get_int (r, 0, 2);
  PQclear (r);
  return 0;
}
