/* The writes' statements of the jobs' and tasks' tables, built from the column lists of
 * store-schema.h for each backend's SQL dialect (SQLite's INSERT OR REPLACE, PostgreSQL's
 * ON CONFLICT), so that a column added there is written by both; and the retention's SQL,
 * the same for both. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/store-schema.h"
#include "lib/util.h"

#define NAME(c)          #c,
#define NAME_J(t, c, ty) EBB_CTL_STORE_ON_jobs_##t (NAME, c)
#define NAME_T(t, c, ty) EBB_CTL_STORE_ON_tasks_##t (NAME, c)
static const char *const job_cols[EBB_CTL_JOB_N_COLS]
    = { "id", EBB_CTL_STORE_JOB_BASE (NAME) EBB_CTL_STORE_ADDED (NAME_J) };
static const char *const task_cols[EBB_CTL_TASK_N_COLS]
    = { "job", EBB_CTL_STORE_TASK_BASE (NAME) EBB_CTL_STORE_ADDED (NAME_T) };

#define ADDED(t, c, ty) { #t, #c, ty },
const ebb_ctl_store_column ebb_ctl_store_added[] = { EBB_CTL_STORE_ADDED (ADDED) };

/* " c = v, ..." for the columns from..n-1: v is EXCLUDED.c (excluded), else the parameter
 * numbered as the column, the spec kept when its parameter is NULL. */
static void
put_sets (FILE *f, const char *const *cols, int from, int n, char p, bool excluded)
{
  for (int i = from; i < n; i++)
    {
      fprintf (f, "%s %s = ", i > from ? "," : "", cols[i]);
      if (excluded)
        fprintf (f, "EXCLUDED.%s", cols[i]);
      else if (strcmp (cols[i], "spec") == 0)
        fprintf (f, "COALESCE(%c%d, spec)", p, i + 1);
      else
        fprintf (f, "%c%d", p, i + 1);
    }
}

/* The text written into f, closed. */
static char *
text_of (FILE *f, char **buf)
{
  if (fclose (f) != 0)
    abort (); /* out of memory, as ebb_xmalloc */
  return *buf;
}

/* See store-schema.h. */
char *
ebb_ctl_store_sql_insert (bool pg, bool jobs)
{
  const char *const *cols = jobs ? job_cols : task_cols;
  int n = jobs ? EBB_CTL_JOB_N_COLS : EBB_CTL_TASK_N_COLS;
  char p = pg ? '$' : '?', *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    abort (); /* out of memory, as ebb_xmalloc */
  fprintf (f, "INSERT%s INTO %s (", pg ? "" : " OR REPLACE", jobs ? "jobs" : "tasks");
  for (int i = 0; i < n; i++)
    fprintf (f, "%s%s", i ? ", " : "", cols[i]);
  fputs (") VALUES (", f);
  for (int i = 0; i < n; i++)
    fprintf (f, "%s%c%d", i ? ", " : "", p, i + 1);
  fputc (')', f);
  if (pg) /* the row of its key replaced: every other column from the values given */
    {
      fprintf (f, " ON CONFLICT (%s) DO UPDATE SET", jobs ? "id" : "job, idx");
      put_sets (f, cols, jobs ? 1 : 2, n, p, true);
    }
  return text_of (f, &buf);
}

/* See store-schema.h. */
char *
ebb_ctl_store_sql_task_update (bool pg)
{
  char p = pg ? '$' : '?', *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    abort (); /* out of memory, as ebb_xmalloc */
  fputs ("UPDATE tasks SET", f);
  put_sets (f, task_cols, 2, EBB_CTL_TASK_N_COLS, p, false);
  fprintf (f, " WHERE job = %c1 AND idx = %c2", p, p);
  return text_of (f, &buf);
}

/* See store-schema.h. */
char *
ebb_ctl_store_sql_prune_ids (double finished_before, uint64_t keep, unsigned max)
{
  return ebb_xasprintf (
      "SELECT id FROM jobs WHERE state >= %d AND id NOT IN (SELECT job FROM calls)"
      " AND (finished_at < %.17g OR id <= (SELECT id FROM jobs WHERE state >= %d"
      " ORDER BY id DESC LIMIT 1 OFFSET %" PRIu64 ")) ORDER BY id LIMIT %u",
      JOB_DONE, finished_before, JOB_DONE, keep > INT64_MAX ? (uint64_t)INT64_MAX : keep, max);
}

/* See store-schema.h. */
char *
ebb_ctl_store_sql_prune_log (double finished_before)
{
  return ebb_xasprintf (
      "DELETE FROM decisions WHERE seq < COALESCE((SELECT seq FROM decisions WHERE time >= %.17g"
      " ORDER BY seq LIMIT 1), (SELECT MAX(seq) FROM decisions))",
      finished_before);
}
