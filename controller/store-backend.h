/* What a store backend provides (controller/store.c dispatches to it): the ops table, and
 * the handle every backend's own struct begins with. A second backend (PostgreSQL, etcd) is
 * one new file filling this table and one line in ebb_ctl_store_open. Only store*.c see it. */
#ifndef EBB_CTL_STORE_BACKEND_H
#define EBB_CTL_STORE_BACKEND_H

#include "controller/store.h"

typedef struct ebb_ctl_store_ops
{
  const char *name;
  void (*close) (ebb_ctl_store *s); /* commits what is open, frees s */
  int (*begin) (ebb_ctl_store *s);  /* 0 when one is open already */
  int (*commit) (ebb_ctl_store *s); /* 0 when none is open */
  bool (*in_transaction) (ebb_ctl_store *s);
  void (*checkpoint) (ebb_ctl_store *s);
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
  uint64_t seq; /* the last decision's sequence number (store.c hands out the next) */
};

/* store-sqlite.c: the SQLite backend (WAL), database file path. */
int ebb_ctl_store_sqlite_open (const char *path, ebb_ctl_store **out, ebb_error **err);

#endif
