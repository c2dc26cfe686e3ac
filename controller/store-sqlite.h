/* The SQLite backend of the store (store-sqlite*.c): its handle and what its files share.
 * Seen by store-sqlite*.c and by the tests of the backend only. */
#ifndef EBB_CTL_STORE_SQLITE_H
#define EBB_CTL_STORE_SQLITE_H

#include <sqlite3.h>

#include "controller/store-backend.h"

#define EBB_CTL_WAL_CHECKPOINT_PAGES 1000 /* SQLite's own default threshold */
/* SQLite's page cache: 512 pages of 4 KiB, 2 MiB, about SQLite's default (2,000 KiB), held in
 * memory reserved at start (store-sqlite.c). */
#define EBB_CTL_STORE_PAGE_SIZE   4096
#define EBB_CTL_STORE_CACHE_PAGES 512

typedef struct ebb_ctl_sqlite
{
  ebb_ctl_store base;
  sqlite3 *db;
  /* Prepared once. */
  sqlite3_stmt *st_job, *st_task_insert, *st_task_update, *st_node, *st_decision, *st_begin,
      *st_commit;
  sqlite3_stmt *st_call, *st_call_done; /* the calls table (store-sqlite-calls.c) */
  sqlite3_stmt *st_rid, *st_job_get, *st_tasks_get, *st_job_page[2]; /* store-sqlite-jobs.c */
  uint64_t commits;
  int wal_pages; /* in the WAL after the last commit */
} ebb_ctl_sqlite;

/* The backend of handle s (a test's view of it). */
static inline ebb_ctl_sqlite *
ebb_ctl_sqlite_of (ebb_ctl_store *s)
{
  return (ebb_ctl_sqlite *)s;
}

/* Prepares sql (logged on failure). */
sqlite3_stmt *ebb_ctl_sqlite_prep (ebb_ctl_sqlite *s, const char *sql);
/* The statement in *slot, prepared at its first use. */
sqlite3_stmt *ebb_ctl_sqlite_cached (ebb_ctl_sqlite *s, sqlite3_stmt **slot, const char *sql);
/* Runs a cached statement to its end and resets it for the next use. Returns 0, or -EIO
 * (logged with what). */
int ebb_ctl_sqlite_step_done (ebb_ctl_sqlite *s, sqlite3_stmt *st, const char *what);
/* Column i as a string of the caller's, or NULL. */
char *ebb_ctl_sqlite_col_str (sqlite3_stmt *st, int i);
int ebb_ctl_sqlite_begin (ebb_ctl_store *s);

/* store-sqlite-calls.c */
int ebb_ctl_sqlite_put_call (ebb_ctl_store *s, const ebb_ctl_task *t, uint64_t seq,
                             const char *kind, const char *path, json_object *body);
int ebb_ctl_sqlite_call_done (ebb_ctl_store *s, uint64_t job, uint32_t idx, uint64_t seq);
size_t ebb_ctl_sqlite_calls (ebb_ctl_store *s, ebb_ctl_stored_call **out);

/* store-sqlite-jobs.c */
int ebb_ctl_sqlite_load (ebb_ctl_store *s, ebb_ctl *c, uint64_t *last_seq, ebb_error **err);
ebb_ctl_job *ebb_ctl_sqlite_job_get (ebb_ctl_store *s, ebb_ctl *c, uint64_t id);
int ebb_ctl_sqlite_job_page (ebb_ctl_store *s, ebb_ctl *c, uint64_t after, bool desc, size_t limit,
                             ebb_ctl_job_summary **out, size_t *n);
/* store-sqlite-prune.c */
int ebb_ctl_sqlite_prune (ebb_ctl_store *s, double finished_before, uint64_t keep, unsigned max,
                          uint64_t *pruned);
size_t ebb_ctl_sqlite_pruned_tasks (ebb_ctl_store *s, unsigned max, ebb_ctl_pruned_task **out);
char *ebb_ctl_sqlite_rid_answer (ebb_ctl_store *s, const char *request_id, char **digest);

#endif
