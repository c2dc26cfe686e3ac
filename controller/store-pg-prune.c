/* Retention in the PostgreSQL store, as store-sqlite-prune.c does it in SQLite's: finished
 * jobs leave with their tasks once older than the retention age or beyond the newest `keep`
 * finished ones (a job with an agent call still recorded stays), the decision log keeps the
 * retention age's decisions and always the newest one; and the preemptions counted in the
 * decision log. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "controller/store-pg.h"
#include "lib/util.h"

/* See store-pg.h. In the open transaction (fenced; opened if none). */
int
ebb_ctl_pg_prune (ebb_ctl_store *base, double finished_before, uint64_t keep, unsigned max,
                  uint64_t *pruned)
{
  ebb_ctl_pg *s = ebb_ctl_pg_of (base);
  *pruned = 0;
  if (ebb_ctl_pg_begin (base) < 0)
    return -EIO;
  /* The jobs' and their tasks' rows in one statement. */
  cleanup_free char *ids = ebb_ctl_store_sql_prune_ids (finished_before, keep, max);
  cleanup_free char *jobs
      = ebb_xasprintf ("WITH p AS (%s), dt AS (DELETE FROM tasks WHERE job IN (SELECT id FROM p)),"
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
