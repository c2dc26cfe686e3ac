/* The store's handle (controller/store.h): each call goes to the backend's ops table
 * (controller/store-backend.h). Here, what every backend shares: the controller without a
 * store, a task's and a decision's node by name, and the decisions' sequence numbers, handed
 * out one after the other and returned to the caller, which passes the number on to the
 * call it decides. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "controller/store-backend.h"
#include "lib/util.h"

/* See store.h. */
const char *
ebb_ctl_store_kind (const char *store)
{
  if (strncmp (store, "postgresql://", 13) == 0 || strncmp (store, "postgres://", 11) == 0)
    return "postgresql";
  return strncmp (store, "sqlite:", 7) == 0 ? "sqlite" : NULL;
}

/* See store.h. */
int
ebb_ctl_store_open (ebb_ctl *c, ebb_error **err)
{
  const char *store = c->cfg->store;
  const char *kind = store && *store ? ebb_ctl_store_kind (store) : "";
  if (!kind)
    return ebb_error_set (err, EINVAL, "store %s: neither sqlite:PATH nor postgresql://...", store);
  if (strcmp (kind, "postgresql") == 0)
    return ebb_ctl_store_pg_open (store, &c->store, err);
  if (strcmp (kind, "sqlite") == 0)
    return ebb_ctl_store_sqlite_open (store + strlen ("sqlite:"), &c->store, err);
  if (mkdir (c->cfg->state_dir, 0700) < 0 && errno != EEXIST)
    return ebb_error_set_errno (err, errno, "create %s", c->cfg->state_dir);
  cleanup_free char *path = ebb_xasprintf ("%s/controller.db", c->cfg->state_dir);
  return ebb_ctl_store_sqlite_open (path, &c->store, err);
}

/* See store.h. */
void
ebb_ctl_store_close (ebb_ctl *c)
{
  if (!c->store)
    return;
  c->store->ops->close (c->store);
  c->store = NULL;
}

/* See store.h. */
int
ebb_ctl_store_begin (ebb_ctl *c)
{
  return c->store ? c->store->ops->begin (c->store) : -EIO;
}

/* See store.h. */
int
ebb_ctl_store_commit (ebb_ctl *c)
{
  if (!c->store)
    return 0;
  int r = c->store->ops->commit (c->store);
  if (c->store->write_failed)
    r = -EIO; /* SQLite commits what did succeed: the calls it decided still must not leave */
  c->store->write_failed = false;
  return r;
}

/* See store.h. */
int
ebb_ctl_store_claim (ebb_ctl *c, uint64_t epoch, uint64_t *claimed)
{
  *claimed = 0;
  if (!c->store)
    return -EIO;
  return c->store->ops->claim ? c->store->ops->claim (c->store, epoch, claimed) : 0;
}

/* A write's result, remembered for the commit. */
static int
wrote (ebb_ctl *c, int r)
{
  if (r < 0)
    c->store->write_failed = true;
  return r;
}

/* See store.h. */
bool
ebb_ctl_store_in_transaction (ebb_ctl *c)
{
  return c->store && c->store->ops->in_transaction (c->store);
}

/* See store.h. */
void
ebb_ctl_store_checkpoint (ebb_ctl *c)
{
  if (c->store)
    c->store->ops->checkpoint (c->store);
}

static const char *
node_name (const ebb_ctl *c, int node)
{
  return node >= 0 && (size_t)node < c->n_nodes ? c->nodes[node]->name : NULL;
}

/* See store.h. */
int
ebb_ctl_store_job (ebb_ctl *c, const ebb_ctl_job *j)
{
  return c->store ? wrote (c, c->store->ops->put_job (c->store, j)) : -EIO;
}

/* See store.h. */
int
ebb_ctl_store_task (ebb_ctl *c, const ebb_ctl_task *t)
{
  return c->store ? wrote (c, c->store->ops->put_task (c->store, t, node_name (c, t->node))) : -EIO;
}

/* See store.h. */
int
ebb_ctl_store_node (ebb_ctl *c, const ebb_ctl_node *n)
{
  return c->store ? wrote (c, c->store->ops->put_node (c->store, n)) : -EIO;
}

/* See store.h. */
uint64_t
ebb_ctl_store_decision (ebb_ctl *c, const char *kind, const ebb_ctl_task *t, int node,
                        uint64_t for_job, const char *reason)
{
  if (!c->store)
    return 0;
  uint64_t seq = c->store->seq + 1;
  if (c->store->ops->put_decision (c->store, seq, ebb_ctl_now (), kind, t, node_name (c, node),
                                   for_job, reason)
      < 0)
    return wrote (c, -EIO), 0;
  c->store->seq = seq;
  return seq;
}

/* See store.h. */
uint64_t
ebb_ctl_store_last_seq (ebb_ctl *c)
{
  return c->store ? c->store->seq : 0;
}

/* See store.h. */
json_object *
ebb_ctl_store_decisions (ebb_ctl *c, uint64_t since, unsigned limit)
{
  return c->store ? c->store->ops->decisions (c->store, since, limit) : json_object_new_array ();
}

/* See store.h. */
int
ebb_ctl_store_call (ebb_ctl *c, const ebb_ctl_task *t, uint64_t seq, const char *kind,
                    const char *path, json_object *body)
{
  return c->store ? wrote (c, c->store->ops->put_call (c->store, t, seq, kind, path, body)) : 0;
}

/* See store.h. */
int
ebb_ctl_store_call_done (ebb_ctl *c, uint64_t job, uint32_t idx, uint64_t seq)
{
  return c->store ? wrote (c, c->store->ops->call_done (c->store, job, idx, seq)) : 0;
}

/* See store.h. */
size_t
ebb_ctl_store_calls (ebb_ctl *c, ebb_ctl_stored_call **out)
{
  *out = NULL;
  return c->store ? c->store->ops->calls (c->store, out) : 0;
}

/* See store.h. */
void
ebb_ctl_stored_calls_free (ebb_ctl_stored_call *v, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      free (v[i].kind);
      free (v[i].path);
      free (v[i].body);
    }
  free (v);
}

/* See store.h. */
int
ebb_ctl_store_load (ebb_ctl *c, ebb_error **err)
{
  if (!c->store)
    return ebb_error_set (err, EIO, "load the store: no store open");
  uint64_t seq = 0;
  int r = c->store->ops->load (c->store, c, &seq, err);
  if (r == 0)
    c->store->seq = seq;
  return r;
}

/* See store.h. */
ebb_ctl_job *
ebb_ctl_store_job_get (ebb_ctl *c, uint64_t id)
{
  return c->store ? c->store->ops->job_get (c->store, c, id) : NULL;
}

/* See store.h. */
int
ebb_ctl_store_job_page (ebb_ctl *c, uint64_t after, bool desc, size_t limit,
                        ebb_ctl_job_summary **out, size_t *n)
{
  *out = NULL;
  *n = 0;
  return c->store ? c->store->ops->job_page (c->store, c, after, desc, limit, out, n) : 0;
}

/* See store.h. */
void
ebb_ctl_job_summaries_free (ebb_ctl_job_summary *v, size_t n)
{
  for (size_t i = 0; v && i < n; i++)
    ebb_ctl_job_free (v[i].job);
  free (v);
}

/* See store.h. */
int
ebb_ctl_store_prune (ebb_ctl *c, double finished_before, uint64_t keep, unsigned max,
                     uint64_t *pruned)
{
  *pruned = 0;
  if (!c->store)
    return 0;
  int r = c->store->ops->prune (c->store, finished_before, keep, max, pruned);
  int rc = ebb_ctl_store_commit (c);
  return r < 0 ? r : rc;
}

/* See store.h. */
size_t
ebb_ctl_store_pruned_tasks (ebb_ctl *c, unsigned max, ebb_ctl_pruned_task **out)
{
  *out = NULL;
  if (!c->store || !c->store->ops->pruned_tasks)
    return 0;
  return c->store->ops->pruned_tasks (c->store, max, out);
}

/* See store.h. */
void
ebb_ctl_pruned_tasks_free (ebb_ctl_pruned_task *v, size_t n)
{
  for (size_t i = 0; v && i < n; i++)
    free (v[i].node);
  free (v);
}

/* See store.h. */
char *
ebb_ctl_store_rid_answer (ebb_ctl *c, const char *request_id, char **digest)
{
  *digest = NULL;
  return c->store && request_id ? c->store->ops->rid_answer (c->store, request_id, digest) : NULL;
}

/* See store.h. */
void
ebb_ctl_store_get_stats (ebb_ctl *c, ebb_ctl_store_stats *st)
{
  st->heap_bytes = 0;
  st->cache_pages = 0;
  if (c->store)
    c->store->ops->stats (c->store, st);
}

/* See store.h. */
int
ebb_ctl_store_preemptions_get (ebb_ctl *c, ebb_ctl_store_preemptions *p)
{
  memset (p, 0, sizeof *p);
  return c->store ? c->store->ops->preemptions (c->store, p) : 0;
}
