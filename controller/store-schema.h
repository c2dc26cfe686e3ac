/* The columns of the jobs' and tasks' tables, listed once for every backend: the reads'
 * column lists and indexes, the writes' statements (store-schema.c) and the migrations
 * (SQLite's migrate, PostgreSQL's numbered ones) all come from these lists. A new column is
 * one line at the end of EBB_CTL_STORE_ADDED (then its field in ebb_ctl_store_job_values or
 * ebb_ctl_store_task_values and in the row's reader, store-rows.c). Only store*.c see it. */
#ifndef EBB_CTL_STORE_SCHEMA_H
#define EBB_CTL_STORE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first schema's columns after the key's first one (id; job), in their order. */
#define EBB_CTL_STORE_JOB_BASE(X)                                                                  \
  X (request_id)                                                                                   \
  X (name)                                                                                         \
  X (class)                                                                                        \
  X (est)                                                                                          \
  X (state)                                                                                        \
  X (submitted_at)                                                                                 \
  X (started_at)                                                                                   \
  X (finished_at)                                                                                  \
  X (answer)                                                                                       \
  X (ntasks)
#define EBB_CTL_STORE_TASK_BASE(X)                                                                 \
  X (idx)                                                                                          \
  X (spec)                                                                                         \
  X (state)                                                                                        \
  X (node)                                                                                         \
  X (generation)                                                                                   \
  X (exit_status)                                                                                  \
  X (has_exit)                                                                                     \
  X (suspensions)                                                                                  \
  X (started_at)                                                                                   \
  X (finished_at)                                                                                  \
  X (kill_wanted)

/* The columns added since, X (table, column, SQL type), in the order they were added: append
 * only (a store's columns are in this order; PostgreSQL's schema version counts them). The
 * types are both SQLite's and PostgreSQL's. */
#define EBB_CTL_STORE_ADDED(X)                                                                     \
  X (jobs, body_digest, "TEXT")                                                                    \
  X (jobs, placed_at, "DOUBLE PRECISION")                                                          \
  X (jobs, reason, "TEXT")                                                                         \
  X (jobs, reason_msg, "TEXT")                                                                     \
  X (jobs, priority, "INTEGER NOT NULL DEFAULT 0")                                                 \
  X (jobs, submitted_by, "TEXT")                                                                   \
  X (tasks, reason, "TEXT")                                                                        \
  X (tasks, reason_msg, "TEXT")                                                                    \
  X (tasks, suspended_sec, "DOUBLE PRECISION NOT NULL DEFAULT 0")                                  \
  X (tasks, end_reason, "TEXT")                                                                    \
  X (tasks, held, "INTEGER NOT NULL DEFAULT 0") /* ebbctl suspend (ops-hold.c) */

/* F (column) for the columns of table `want` among the added ones. */
#define EBB_CTL_STORE_ON_jobs_jobs(F, c) F (c)
#define EBB_CTL_STORE_ON_jobs_tasks(F, c)
#define EBB_CTL_STORE_ON_tasks_jobs(F, c)
#define EBB_CTL_STORE_ON_tasks_tasks(F, c) F (c)

/* The columns' indexes in a row of EBB_CTL_STORE_JOB_COLS (EBB_CTL_JCOL_name) and of
 * EBB_CTL_STORE_TASK_COLS (EBB_CTL_TCOL_name). */
#define EBB_CTL_STORE_JENUM(c)            EBB_CTL_JCOL_##c,
#define EBB_CTL_STORE_TENUM(c)            EBB_CTL_TCOL_##c,
#define EBB_CTL_STORE_JENUM_ADD(t, c, ty) EBB_CTL_STORE_ON_jobs_##t (EBB_CTL_STORE_JENUM, c)
#define EBB_CTL_STORE_TENUM_ADD(t, c, ty) EBB_CTL_STORE_ON_tasks_##t (EBB_CTL_STORE_TENUM, c)
enum
{
  EBB_CTL_JCOL_id,
  EBB_CTL_STORE_JOB_BASE (EBB_CTL_STORE_JENUM) EBB_CTL_STORE_ADDED (EBB_CTL_STORE_JENUM_ADD)
      EBB_CTL_JOB_N_COLS
};
enum
{
  EBB_CTL_TCOL_job,
  EBB_CTL_STORE_TASK_BASE (EBB_CTL_STORE_TENUM) EBB_CTL_STORE_ADDED (EBB_CTL_STORE_TENUM_ADD)
      EBB_CTL_TASK_N_COLS
};

/* The column lists of the reads, as SQL text ("id, request_id, ..."; the tasks' with the
 * alias t: "t.job, t.idx, ..."). */
#define EBB_CTL_STORE_JSTR(c)            ", " #c
#define EBB_CTL_STORE_TSTR(c)            ", t." #c
#define EBB_CTL_STORE_JSTR_ADD(t, c, ty) EBB_CTL_STORE_ON_jobs_##t (EBB_CTL_STORE_JSTR, c)
#define EBB_CTL_STORE_TSTR_ADD(t, c, ty) EBB_CTL_STORE_ON_tasks_##t (EBB_CTL_STORE_TSTR, c)
#define EBB_CTL_STORE_JOB_COLS                                                                     \
  "id" EBB_CTL_STORE_JOB_BASE (EBB_CTL_STORE_JSTR) EBB_CTL_STORE_ADDED (EBB_CTL_STORE_JSTR_ADD)
#define EBB_CTL_STORE_TASK_COLS                                                                    \
  "t.job" EBB_CTL_STORE_TASK_BASE (EBB_CTL_STORE_TSTR) EBB_CTL_STORE_ADDED (EBB_CTL_STORE_TSTR_ADD)

/* How many columns were added (PostgreSQL adds each in a migration of its own). */
#define EBB_CTL_STORE_ONE(t, c, ty) +1
#define EBB_CTL_STORE_N_ADDED       (0 EBB_CTL_STORE_ADDED (EBB_CTL_STORE_ONE))

/* The nodes' columns as the load reads them (ebb_ctl_store_node_of_row). */
#define EBB_CTL_STORE_NODE_COLS "name, url, state, epoch, cap_cpu, cap_mem, last_hb"

typedef struct ebb_ctl_store_column
{
  const char *table, *column, *type;
} ebb_ctl_store_column;
/* The added columns, in order (EBB_CTL_STORE_N_ADDED of them). */
extern const ebb_ctl_store_column ebb_ctl_store_added[];

/* The writes' statements, in the caller's memory, with parameters ?N (SQLite) or $N
 * (PostgreSQL) numbered as the columns' indexes + 1. insert: a whole row, replacing the row
 * of its key; update (tasks only): every column but the key's, the spec kept when its
 * parameter is NULL. */
char *ebb_ctl_store_sql_insert (bool pg, bool jobs);
char *ebb_ctl_store_sql_task_update (bool pg);
/* Retention (ebb_ctl_store_prune), the same SQL for both backends: the ids of the finished
 * jobs to remove (at most max, oldest first; a job with an agent call recorded stays), and
 * the statement that trims the decision log to the decisions since finished_before (always
 * keeping the newest one, whose sequence number the next start continues). Only numbers
 * go into the text. */
char *ebb_ctl_store_sql_prune_ids (double finished_before, uint64_t keep, unsigned max);
char *ebb_ctl_store_sql_prune_log (double finished_before);

#endif
