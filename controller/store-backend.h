/* What a store backend provides (controller/store.c dispatches to it): the ops table, and
 * the handle every backend's own struct begins with. A second backend (PostgreSQL, etcd) is
 * one new file filling this table and one line in ebb_ctl_store_open. Only store*.c see it. */
#ifndef EBB_CTL_STORE_BACKEND_H
#define EBB_CTL_STORE_BACKEND_H

#include "controller/store-schema.h"
#include "controller/store.h"

typedef struct ebb_ctl_store_ops
{
  const char *name;
  void (*close) (ebb_ctl_store *s); /* commits what is open, frees s */
  int (*begin) (ebb_ctl_store *s);  /* 0 when one is open already */
  int (*commit) (ebb_ctl_store *s); /* 0 when none is open */
  bool (*in_transaction) (ebb_ctl_store *s);
  void (*checkpoint) (ebb_ctl_store *s);
  /* Raises the fence to epoch (0: the stored one + 1) and gives the epoch held in *claimed;
   * -ESTALE when the stored one is not below. NULL: a backend of one process (SQLite). */
  int (*claim) (ebb_ctl_store *s, uint64_t epoch, uint64_t *claimed);
  /* The writes (each inside the open transaction, opening one when none is). node: the
   * name of the task's or decision's node, or NULL. */
  int (*put_job) (ebb_ctl_store *s, const ebb_ctl_job *j);
  int (*put_task) (ebb_ctl_store *s, const ebb_ctl_task *t, const char *node);
  int (*put_node) (ebb_ctl_store *s, const ebb_ctl_node *n);
  int (*put_decision) (ebb_ctl_store *s, uint64_t seq, double at, const char *kind,
                       const ebb_ctl_task *t, const char *node, uint64_t for_job,
                       const char *reason);
  int (*put_call) (ebb_ctl_store *s, const ebb_ctl_task *t, uint64_t seq, const char *kind,
                   const char *path, json_object *body);
  int (*call_done) (ebb_ctl_store *s, uint64_t job, uint32_t idx, uint64_t seq);
  /* The reads (as the functions of store.h of the same names). load also returns the last
   * decision's sequence number in *last_seq. */
  size_t (*calls) (ebb_ctl_store *s, ebb_ctl_stored_call **out);
  json_object *(*decisions) (ebb_ctl_store *s, uint64_t since, unsigned limit);
  int (*load) (ebb_ctl_store *s, ebb_ctl *c, uint64_t *last_seq, ebb_error **err);
  ebb_ctl_job *(*job_get) (ebb_ctl_store *s, ebb_ctl *c, uint64_t id);
  int (*job_page) (ebb_ctl_store *s, ebb_ctl *c, uint64_t after, bool desc, size_t limit,
                   ebb_ctl_job_summary **out, size_t *n);
  char *(*rid_answer) (ebb_ctl_store *s, const char *request_id, char **digest);
  void (*stats) (ebb_ctl_store *s, ebb_ctl_store_stats *st);
  /* As ebb_ctl_store_prune, in the open transaction (opened if none). */
  int (*prune) (ebb_ctl_store *s, double finished_before, uint64_t keep, unsigned max,
                uint64_t *pruned);
  int (*preemptions) (ebb_ctl_store *s, ebb_ctl_store_preemptions *p);
  /* As ebb_ctl_store_pruned_tasks; NULL: a backend that does not tell. */
  size_t (*pruned_tasks) (ebb_ctl_store *s, unsigned max, ebb_ctl_pruned_task **out);
} ebb_ctl_store_ops;

/* The handle: a backend's struct starts with it. */
struct ebb_ctl_store
{
  const ebb_ctl_store_ops *ops;
  uint64_t seq;      /* the last decision's sequence number (store.c hands out the next) */
  bool write_failed; /* a write of the open transaction failed: its commit must fail */
};

/* A row of a backend's result, read column by column: store-rows.c builds jobs and tasks
 * from it, the same way for every backend. */
typedef struct ebb_ctl_store_row
{
  int64_t (*i) (const struct ebb_ctl_store_row *r, int col);
  double (*d) (const struct ebb_ctl_store_row *r, int col);
  const char *(*s) (const struct ebb_ctl_store_row *r, int col); /* NULL: SQL NULL */
  const void *res;                                               /* the backend's */
  int row;
} ebb_ctl_store_row;
/* A job of a row of EBB_CTL_STORE_JOB_COLS; its tasks failed until their rows are read
 * (with_tasks; else none allocated: a listing counts them); NULL for a row with no task or
 * too many. */
ebb_ctl_job *ebb_ctl_store_job_of_row (ebb_ctl *c, const ebb_ctl_store_row *r, bool with_tasks);
/* Fills its task of j from a row of EBB_CTL_STORE_TASK_COLS; keep_spec: the spec stays (a
 * task of the model), else it is read for the allocation only. Returns false for a bad row. */
bool ebb_ctl_store_task_of_row (ebb_ctl *c, ebb_ctl_job *j, const ebb_ctl_store_row *r,
                                bool keep_spec);

/* Adds the node of a row of EBB_CTL_STORE_NODE_COLS to the model (a row without a name, or
 * of a name known already, is left). */
void ebb_ctl_store_node_of_row (ebb_ctl *c, const ebb_ctl_store_row *r);

/* A value of a row to write: the columns of the statements of store-schema.c, in order. */
typedef struct ebb_ctl_store_value
{
  enum
  {
    EBB_CTL_VAL_NULL,
    EBB_CTL_VAL_INT,
    EBB_CTL_VAL_DOUBLE,
    EBB_CTL_VAL_TEXT
  } kind;
  int64_t i;
  double d;
  const char *s; /* j's, t's or their spec's: valid until they change */
} ebb_ctl_store_value;
/* The values of j's row, of t's row (node: its node's name or NULL; the spec NULL once the
 * row is stored: it never changes). */
void ebb_ctl_store_job_values (const ebb_ctl_job *j, ebb_ctl_store_value v[EBB_CTL_JOB_N_COLS]);
void ebb_ctl_store_task_values (const ebb_ctl_task *t, const char *node,
                                ebb_ctl_store_value v[EBB_CTL_TASK_N_COLS]);
/* The figures of the finished jobs at the load, a row (a, n) of query q: 0, the largest
 * job id and the jobs' count; 1, a job state and its count; 2, a task state and its count. */
void ebb_ctl_store_count_row (ebb_ctl *c, int q, uint64_t a, uint64_t n);
/* A page's tasks without their rows read as failed, as ebb_ctl_store_job_get gives them. */
void ebb_ctl_store_summaries_missing (ebb_ctl_job_summary *v, size_t k);

/* store-sqlite.c: the SQLite backend (WAL), database file path. */
int ebb_ctl_store_sqlite_open (const char *path, ebb_ctl_store **out, ebb_error **err);
/* store-pg.c: the PostgreSQL backend, a libpq connection string (postgresql://...). */
int ebb_ctl_store_pg_open (const char *conninfo, ebb_ctl_store **out, ebb_error **err);

#endif
