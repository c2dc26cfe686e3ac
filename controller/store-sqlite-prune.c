/* Retention: finished jobs leave the store, with their tasks, once older than the retention
 * age or beyond the newest `keep` finished ones, so that the database stops growing with
 * every job ever run; the decision log keeps the decisions of the retention age (always
 * the newest one, whose sequence number the next start continues). A job with an agent
 * call still recorded stays until the call ends. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "controller/store-sqlite.h"
#include "lib/log.h"
#include "lib/util.h"

/* See store-sqlite.h. */
int
ebb_ctl_sqlite_prune (ebb_ctl_store *base, double finished_before, uint64_t keep, unsigned max,
                      uint64_t *pruned)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  *pruned = 0;
  if (ebb_ctl_sqlite_begin (base) < 0)
    return -EIO;
  /* The jobs' rows before their tasks': a failure half way (committed with the rest of the
   * transaction) leaves no job without its tasks. The ids first into a temporary table: the
   * tasks' rows go through their primary key (job, idx). Where the pruned tasks' logs may be
   * kept goes into another, for ebb_ctl_sqlite_pruned_tasks. */
  cleanup_free char *ids = ebb_ctl_store_sql_prune_ids (finished_before, keep, max);
  cleanup_free char *log = ebb_ctl_store_sql_prune_log (finished_before);
  cleanup_free char *sql
      = ebb_xasprintf ("CREATE TEMP TABLE IF NOT EXISTS pruned (id INTEGER PRIMARY KEY);"
                       "DELETE FROM temp.pruned;"
                       "INSERT INTO temp.pruned %s;"
                       "DELETE FROM jobs WHERE id IN temp.pruned;"
                       "CREATE TEMP TABLE IF NOT EXISTS pruned_tasks (job INTEGER, idx INTEGER,"
                       " generation INTEGER, node TEXT);"
                       "DELETE FROM temp.pruned_tasks;"
                       "INSERT INTO temp.pruned_tasks SELECT job, idx, generation, node FROM tasks"
                       " WHERE job IN temp.pruned AND node IS NOT NULL;"
                       "DELETE FROM tasks WHERE job IN temp.pruned;"
                       "%s;",
                       ids, log);
  char *msg = NULL;
  if (sqlite3_exec (s->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    {
      ebb_log_err ("store: prune: %s", msg ? msg : "?");
      sqlite3_free (msg);
      return -EIO;
    }
  sqlite3_stmt *st = ebb_ctl_sqlite_prep (s, "SELECT COUNT(*) FROM temp.pruned");
  if (st && sqlite3_step (st) == SQLITE_ROW)
    *pruned = (uint64_t)sqlite3_column_int64 (st, 0);
  sqlite3_finalize (st);
  return 0;
}

/* See store-sqlite.h. */
size_t
ebb_ctl_sqlite_pruned_tasks (ebb_ctl_store *base, unsigned max, ebb_ctl_pruned_task **out)
{
  ebb_ctl_sqlite *s = ebb_ctl_sqlite_of (base);
  *out = NULL;
  sqlite3_stmt *st = ebb_ctl_sqlite_prep (
      s, "SELECT job, idx, generation, node FROM temp.pruned_tasks ORDER BY job, idx LIMIT ?");
  if (!st)
    return 0; /* no prune yet: no such table */
  sqlite3_bind_int64 (st, 1, max);
  size_t n = 0;
  ebb_ctl_pruned_task *v = NULL;
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      const unsigned char *node = sqlite3_column_text (st, 3);
      if (!node)
        continue;
      v = ebb_xrealloc (v, (n + 1) * sizeof *v);
      v[n++] = (ebb_ctl_pruned_task){ .job = (uint64_t)sqlite3_column_int64 (st, 0),
                                      .idx = (uint32_t)sqlite3_column_int64 (st, 1),
                                      .generation = (uint64_t)sqlite3_column_int64 (st, 2),
                                      .node = ebb_xstrdup ((const char *)node) };
    }
  sqlite3_finalize (st);
  *out = v;
  return n;
}
