/* The PostgreSQL backend of the store (store-pg*.c): its handle and what its files share.
 * Seen by store-pg*.c and by the tests of the backend only. */
#ifndef EBB_CTL_STORE_PG_H
#define EBB_CTL_STORE_PG_H

#include <libpq-fe.h>

#include "controller/store-backend.h"

/* The schema's migrations, 1..EBB_CTL_PG_SCHEMA_VERSION (store-pg-schema.c): the first
 * tables, the fence, then one per column added (store-schema.h). */
#define EBB_CTL_PG_SCHEMA_VERSION (2 + EBB_CTL_STORE_N_ADDED)
/* A session idle inside a transaction longer than this is ended by the server: a leader
 * paused (SIGSTOP) in the middle of a transaction does not hold the fence's row. */
#define EBB_CTL_PG_IDLE_TX_MSEC 5000

#define EBB_CTL_PG_JOB_COLS  EBB_CTL_STORE_JOB_COLS
#define EBB_CTL_PG_TASK_COLS EBB_CTL_STORE_TASK_COLS

/* The statements of the write and read paths, prepared once per connection. */
typedef enum
{
  PG_JOB,
  PG_TASK_INSERT,
  PG_TASK_UPDATE,
  PG_NODE,
  PG_DECISION,
  PG_CALL,
  PG_CALL_DONE,
  PG_RID,
  PG_JOB_GET,
  PG_TASKS_GET,
  PG_JOB_PAGE_ASC,
  PG_JOB_PAGE_DESC,
  PG_PREEMPTIONS,
  PG_N_STMTS
} ebb_ctl_pg_stmt;

typedef struct ebb_ctl_pg
{
  ebb_ctl_store base;
  PGconn *conn;
  bool prepared[PG_N_STMTS];
  char *built[PG_N_STMTS]; /* the SQL built from the column lists (store-schema.c) */
  unsigned pending;        /* writes sent in pipeline mode whose results are not read yet */
  bool in_tx;              /* a transaction is open */
  bool failed;             /* a statement of the open transaction failed: the commit rolls back */
  uint64_t epoch;          /* the leader epoch claimed (the fence's row must not be above it) */
  uint64_t commits;
} ebb_ctl_pg;

/* A statement's parameters as text (libpq's form), NULL for SQL NULL. */
#define EBB_CTL_PG_MAX_PARAMS 32
typedef struct
{
  int n;
  const char *v[EBB_CTL_PG_MAX_PARAMS];
  char buf[EBB_CTL_PG_MAX_PARAMS][32];
} ebb_ctl_pg_params;

static inline ebb_ctl_pg *
ebb_ctl_pg_of (ebb_ctl_store *s)
{
  return (ebb_ctl_pg *)s;
}

void ebb_ctl_pg_int (ebb_ctl_pg_params *p, int64_t v);
void ebb_ctl_pg_double (ebb_ctl_pg_params *p, double v);
void ebb_ctl_pg_str (ebb_ctl_pg_params *p, const char *v); /* kept by the caller */
/* Runs statement id with p (prepared at its first use on this connection); the result when
 * it succeeded (PQclear it), else NULL (logged; inside a transaction, it fails). */
PGresult *ebb_ctl_pg_run (ebb_ctl_pg *s, ebb_ctl_pg_stmt id, const ebb_ctl_pg_params *p);
/* Runs sql (no parameters); the result when it succeeded, else NULL (logged). */
PGresult *ebb_ctl_pg_exec (ebb_ctl_pg *s, const char *sql);
/* Field (row, col) of r: a string of the caller's or NULL; an integer; a double. */
char *ebb_ctl_pg_get_str (const PGresult *r, int row, int col);
int64_t ebb_ctl_pg_get_int (const PGresult *r, int row, int col);
double ebb_ctl_pg_get_double (const PGresult *r, int row, int col);
int ebb_ctl_pg_begin (ebb_ctl_store *s);

/* store-pg-schema.c: brings the schema of conn up to version target (each migration one
 * transaction, serialized between controllers by an advisory lock). Returns 0, or negative
 * with *err. */
int ebb_ctl_pg_migrate (PGconn *conn, int target, ebb_error **err);
/* The schema's version (0: none), or negative. */
int ebb_ctl_pg_schema_version (PGconn *conn);

/* store-pg-read.c */
int ebb_ctl_pg_load (ebb_ctl_store *s, ebb_ctl *c, uint64_t *last_seq, ebb_error **err);
ebb_ctl_job *ebb_ctl_pg_job_get (ebb_ctl_store *s, ebb_ctl *c, uint64_t id);
int ebb_ctl_pg_job_page (ebb_ctl_store *s, ebb_ctl *c, uint64_t after, bool desc, size_t limit,
                         ebb_ctl_job_summary **out, size_t *n);
char *ebb_ctl_pg_rid_answer (ebb_ctl_store *s, const char *request_id, char **digest);
size_t ebb_ctl_pg_calls (ebb_ctl_store *s, ebb_ctl_stored_call **out);
json_object *ebb_ctl_pg_decisions (ebb_ctl_store *s, uint64_t since, unsigned limit);
/* store-pg-prune.c */
int ebb_ctl_pg_prune (ebb_ctl_store *s, double finished_before, uint64_t keep, unsigned max,
                      uint64_t *pruned);
int ebb_ctl_pg_preemptions (ebb_ctl_store *s, ebb_ctl_store_preemptions *p);
/* The tasks of the last prune (of this session) that went to a node: ebb_ctl_store_pruned_tasks. */
size_t ebb_ctl_pg_pruned_tasks (ebb_ctl_store *s, unsigned max, ebb_ctl_pruned_task **out);

#endif
