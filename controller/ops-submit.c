/* A submission (POST /v1/jobs): the job made of the validated request, its adoptions
 * checked against the cluster, then added, stored, scheduled in one transaction whose
 * commit releases its launches and adoptions (ebb_ctl_flush). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ops.h"
#include "controller/outbox.h"
#include "controller/sched.h"
#include "controller/store.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

/* See ops.h. */
void
ebb_ctl_submit_req_clear (ebb_ctl_submit_req *jr)
{
  for (size_t i = 0; i < jr->n; i++)
    json_object_put (jr->specs[i]);
  free (jr->specs);
  free (jr->edges);
}

/* See ops.h. */
ebb_ctl_job *
ebb_ctl_job_from_req (ebb_ctl *c, ebb_ctl_submit_req *jr)
{
  ebb_ctl_job *j = ebb_xcalloc (1, sizeof *j);
  j->id = c->next_job_id++;
  j->name = jr->name ? ebb_xstrdup (jr->name) : ebb_xasprintf ("job-%" PRIu64, j->id);
  j->request_id = jr->request_id ? ebb_xstrdup (jr->request_id) : NULL;
  j->body_digest = jr->request_id && jr->digest ? ebb_xstrdup (jr->digest) : NULL;
  j->cls = jr->cls;
  j->est_task_sec = jr->est;
  j->priority = jr->priority;
  snprintf (j->submitted_by, sizeof j->submitted_by, "%s",
            jr->submitted_by ? jr->submitted_by : "");
  j->submitted_at = ebb_ctl_now ();
  j->ntasks = (uint32_t)jr->n;
  j->tasks = ebb_xcalloc (jr->n, sizeof *j->tasks);
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      ebb_ctl_task *t = &j->tasks[i];
      t->job = j;
      t->idx = i;
      ebb_ctl_task_set_spec (t, jr->specs[i]);
      jr->specs[i] = NULL;
      json_object *v;
      json_object_object_get_ex (t->spec, "cpu_millis", &v);
      t->cpu_millis = (uint64_t)json_object_get_int64 (v);
      json_object_object_get_ex (t->spec, "memory_bytes", &v);
      t->memory_bytes = (uint64_t)json_object_get_int64 (v);
      t->node = -1;
      t->slot = EBB_POL_NONE;
      t->pjob = EBB_POL_NONE;
    }
  /* Each task's parents go into its spec's "dag" member, stored with it. */
  for (uint32_t e = 0; e < jr->nedges; e++)
    {
      json_object *d, *par;
      ebb_ctl_task *ch = &j->tasks[jr->edges[2 * e + 1]];
      json_object_object_get_ex (ch->spec, "dag", &d);
      if (d && !json_object_object_get_ex (d, "parents", &par))
        json_object_object_add (d, "parents", par = json_object_new_array ());
      if (d)
        json_object_array_add (par, json_object_new_int64 (jr->edges[2 * e]));
    }
  for (uint32_t i = 0; i < j->ntasks; i++)
    if (j->tasks[i].spec)
      ebb_ctl_dag_load (j, &j->tasks[i], j->tasks[i].spec);
  return j;
}

static const char *
adopt_str (json_object *spec, const char *key)
{
  json_object *a, *v;
  if (!json_object_object_get_ex (spec, "adopt", &a) || !json_object_object_get_ex (a, key, &v))
    return NULL;
  return json_object_get_string (v);
}

/* Returns true when an active task of the cluster already adopts what spec names there. */
static bool
taken (ebb_ctl *c, int node, const char *key, const char *what)
{
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        const ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (t->node != node || t->state == TASK_EXITED || t->state == TASK_FAILED
            || t->state == TASK_KILLED || !ebb_ctl_task_is_adopt (t))
          continue;
        const char *v = strcmp (key, "container") == 0 ? t->adopt->container : t->adopt->cgroup;
        if (v && strcmp (v, what) == 0)
          return true;
      }
  return false;
}

/* See ops.h. */
unsigned
ebb_ctl_adopt_check (ebb_ctl *c, json_object *const *specs, size_t n, ebb_error **err)
{
  for (size_t i = 0; i < n; i++)
    {
      if (!json_object_object_get_ex (specs[i], "adopt", NULL))
        continue;
      const char *name = adopt_str (specs[i], "node");
      const char *key = adopt_str (specs[i], "container") ? "container" : "cgroup";
      const char *what = adopt_str (specs[i], key);
      int idx = -1;
      ebb_ctl_node *node = ebb_ctl_node_find (c, name, &idx);
      if (!node)
        return ebb_error_set (err, ENOENT, "tasks[%zu]: adopt: no node %s", i, name), 404;
      if (node->state != NODE_READY || !node->url)
        return ebb_error_set (err, EBB_EREFUSED, "tasks[%zu]: adopt: node %s is %s", i, name,
                              node->url ? ebb_ctl_node_state_name (node->state) : "not reachable"),
               409;
      bool dup = taken (c, idx, key, what);
      for (size_t k = 0; k < i && !dup; k++)
        {
          const char *other = adopt_str (specs[k], key);
          dup = other && strcmp (other, what) == 0
                && strcmp (adopt_str (specs[k], "node"), name) == 0;
        }
      if (dup)
        return ebb_error_set (err, EEXIST, "tasks[%zu]: adopt: %s %s on %s is a task already", i,
                              key, what, name),
               409;
    }
  return 0;
}

/* Resource mode: returns 422 (err set) when a task asks more than the largest node known
 * offers, in CPU or memory, so that no node could ever hold it; 0 when every task fits one.
 * Every node known counts, drained or lost too (it may come back), and a cluster with no
 * node yet refuses nothing (its nodes have not joined). An adoption runs already: not
 * checked. */
static unsigned
fits_check (ebb_ctl *c, json_object *const *specs, size_t n, ebb_error **err)
{
  const ebb_ctl_node *big = NULL;
  for (size_t i = 0; i < c->n_nodes; i++)
    if (!big || c->nodes[i]->cap_cpu_millis > big->cap_cpu_millis)
      big = c->nodes[i];
  for (size_t i = 0; c->res_mode && big && i < n; i++)
    {
      if (json_object_object_get_ex (specs[i], "adopt", NULL))
        continue;
      json_object *v;
      json_object_object_get_ex (specs[i], "cpu_millis", &v);
      uint64_t cpu = (uint64_t)json_object_get_int64 (v);
      json_object_object_get_ex (specs[i], "memory_bytes", &v);
      uint64_t mem = (uint64_t)json_object_get_int64 (v);
      bool fits = false;
      for (size_t k = 0; k < c->n_nodes && !fits; k++)
        fits = cpu <= c->nodes[k]->cap_cpu_millis && mem <= c->nodes[k]->cap_memory_bytes;
      if (!fits)
        return ebb_error_set (
                   err, EBB_ERANGE,
                   "tasks[%zu] asks %" PRIu64 " millicores and %" PRIu64
                   " bytes: no node can ever hold it (the largest by CPU, %s, has %" PRIu64
                   " millicores and %" PRIu64 " bytes)",
                   i, cpu, mem, big->name, big->cap_cpu_millis, big->cap_memory_bytes),
               422;
    }
  return 0;
}

/* See ops.h. */
unsigned
ebb_ctl_op_submit (ebb_ctl *c, ebb_ctl_submit_req *r, ebb_ctl_job **job, char **replay,
                   ebb_error **err)
{
  *job = NULL;
  *replay = NULL;
  /* A replay answers as the first time (a job that left memory, sched-evict.c, from the
   * store); a new job's adoptions must fit the cluster. */
  ebb_ctl_job *old = ebb_ctl_index_find_rid (c, r->request_id);
  cleanup_free char *digest = NULL;
  if (old)
    {
      *replay = old->answer ? ebb_xstrdup (old->answer) : NULL;
      digest = old->body_digest ? ebb_xstrdup (old->body_digest) : NULL;
    }
  else
    *replay = ebb_ctl_store_rid_answer (c, r->request_id, &digest);
  /* Another body under the same id is not a retry: answering it with the first job would
   * tell its client that a job it never submitted runs (a job of before the digest: not
   * known, replayed). */
  if (*replay && digest && r->digest && strcmp (digest, r->digest) != 0)
    {
      free (*replay);
      *replay = NULL;
      return ebb_error_set (err, EALREADY,
                            "request_id %s was used by another request (job %s); a retry must "
                            "send the same body",
                            r->request_id, old ? old->name : "finished"),
             409;
    }
  if (*replay)
    return 0;
  /* Each task costs memory until it ends (and its job is evicted): a bound, so that a
   * client cannot grow the controller without one (issue 24: 200,000 tasks took 588 MB). */
  if (c->counts.unfinished + r->n > c->cfg->max_queued_tasks)
    return ebb_error_set (err, EAGAIN,
                          "%" PRIu64 " tasks are not finished; %zu more would pass "
                          "--max-queued-tasks %" PRIu64 ": retry when some have ended",
                          c->counts.unfinished, r->n, c->cfg->max_queued_tasks),
           429;
  unsigned st = ebb_ctl_adopt_check (c, r->specs, r->n, err);
  if (!st)
    st = fits_check (c, r->specs, r->n, err);
  if (st)
    return st;
  /* The transaction first: with the store unreachable (an outage) or this controller
   * fenced, nothing changes and the client is told to retry. */
  if (ebb_ctl_store_begin (c) < 0)
    return ebb_error_set (err, EIO, "the store is unavailable; retry"), 503;
  ebb_ctl_job *j = ebb_ctl_job_from_req (c, r);
  json_object *a = json_object_new_object ();
  ebb_json_add_uint64 (a, "id", j->id);
  ebb_json_add_string (a, "name", j->name);
  ebb_json_add_string (a, "state", "queued");
  j->answer = ebb_xstrdup (json_object_to_json_string_ext (a, EBB_JSON_TO_STRING_FLAGS));
  json_object_put (a);
  ebb_ctl_adopt_prepare (c, j);
  ebb_ctl_store_job (c, j);
  for (uint32_t i = 0; i < j->ntasks; i++)
    ebb_ctl_task_write (c, &j->tasks[i]);
  ebb_ctl_add_job (c, j);
  c->n_jobs_stored++;
  c->m.jobs_submitted++;
  ebb_log_info ("job %" PRIu64 " (%s): %u tasks, class %s", j->id, j->name, j->ntasks,
                ebb_ctl_class_name (j->cls));
  /* Its launch and adopt decisions commit with the job, then their calls go out (with any
   * other the commit covers), where its latency is taken. */
  ebb_ctl_arrival (c, j->id, ebb_now_usec ());
  ebb_ctl_adopt_send (c, j);
  ebb_ctl_sched_job (c, j);
  ebb_ctl_explain_job (c, j);
  ebb_ctl_flush (c);
  if (c->store_lost) /* not committed: not accepted (the controller is ending) */
    return ebb_error_set (err, EIO, "the store is unavailable; retry"), 503;
  *job = j;
  return 0;
}
