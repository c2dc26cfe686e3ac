/* The model's jobs and nodes (found, added) and its indexes: nodes by name (a heartbeat
 * finds its node without a scan of all of them), jobs by request id (a submission checks its
 * id without a scan of all jobs), and counters of tasks by state and node, by job and for
 * the cluster, kept as tasks change so that no decision or request walks every task. The
 * setters here are the only writers of a task's state and node and of a job's state: each
 * moves the share it counts, whether or not the change is ever written to the store. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "lib/util.h"

static uint64_t
name_hash (const char *s)
{
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

/* See ctl.h. */
char *
ebb_ctl_body_digest (const char *text)
{
  return ebb_xasprintf ("%zu-%016" PRIx64, strlen (text), name_hash (text));
}

typedef const char *(*key_fn) (const ebb_ctl *c, uint32_t i);

static const char *
node_key (const ebb_ctl *c, uint32_t i)
{
  return c->nodes[i]->name;
}

static const char *
rid_key (const ebb_ctl *c, uint32_t i)
{
  return c->jobs[i]->request_id;
}

/* Puts entry i under its key; an entry of the same key is replaced (the newest wins). */
static void
index_put (const ebb_ctl *c, ebb_ctl_strindex *x, key_fn key, uint32_t i)
{
  const char *k = key (c, i);
  size_t s = name_hash (k) & (x->cap - 1);
  for (; x->tab[s]; s = (s + 1) & (x->cap - 1))
    if (strcmp (key (c, x->tab[s] - 1), k) == 0)
      {
        x->tab[s] = i + 1;
        return;
      }
  x->tab[s] = i + 1;
  x->n++;
}

/* Adds entry i, growing the table to stay at most half full (so that a probe ends soon). */
static void
index_add (const ebb_ctl *c, ebb_ctl_strindex *x, key_fn key, uint32_t i)
{
  if ((x->n + 1) * 2 > x->cap)
    {
      ebb_ctl_strindex y = { .cap = x->cap ? x->cap * 2 : 64 };
      y.tab = ebb_xcalloc (y.cap, sizeof *y.tab);
      for (size_t s = 0; s < x->cap; s++)
        if (x->tab[s])
          index_put (c, &y, key, x->tab[s] - 1);
      free (x->tab);
      *x = y;
    }
  index_put (c, x, key, i);
}

/* Returns the entry under key k, or -1. */
static int
index_find (const ebb_ctl *c, const ebb_ctl_strindex *x, key_fn key, const char *k)
{
  if (!x->cap)
    return -1;
  for (size_t s = name_hash (k) & (x->cap - 1); x->tab[s]; s = (s + 1) & (x->cap - 1))
    if (strcmp (key (c, x->tab[s] - 1), k) == 0)
      return (int)(x->tab[s] - 1);
  return -1;
}

/* Adds node idx to the index by name. */
static void
index_add_node (ebb_ctl *c, size_t idx)
{
  index_add (c, &c->node_index, node_key, (uint32_t)idx);
}

/* Returns the index of the node named name, or -1. */
static int
index_find_node (const ebb_ctl *c, const char *name)
{
  return index_find (c, &c->node_index, node_key, name);
}

/* Adds job idx to the index by request id (a job without one is not indexed). */
static void
index_add_job (ebb_ctl *c, size_t idx)
{
  if (c->jobs[idx]->request_id)
    index_add (c, &c->rid_index, rid_key, (uint32_t)idx);
}

/* See ctl.h. */
void
ebb_ctl_index_jobs_again (ebb_ctl *c)
{
  free (c->rid_index.tab);
  memset (&c->rid_index, 0, sizeof c->rid_index);
  for (size_t i = 0; i < c->n_jobs; i++)
    index_add_job (c, i);
}

/* See ctl.h. */
ebb_ctl_job *
ebb_ctl_index_find_rid (const ebb_ctl *c, const char *request_id)
{
  int i = request_id ? index_find (c, &c->rid_index, rid_key, request_id) : -1;
  return i < 0 ? NULL : c->jobs[i];
}

/* Adds (sign 1) or removes (-1) the share of a task in state s on node `node`. */
static void
share (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_task_state s, int node, uint64_t cpu, uint64_t mem,
       int sign)
{
  uint64_t d = (uint64_t)(int64_t)sign; /* wraps: adding it subtracts one */
  bool active = s == TASK_STARTING || s == TASK_RUNNING || s == TASK_SUSPENDED;
  bool holds = s == TASK_STARTING || s == TASK_RUNNING;
  if (holds)
    {
      c->counts.running += d;
      c->counts.alloc_cpu_millis += d * cpu;
      c->counts.alloc_memory_bytes += d * mem;
    }
  if (s == TASK_SUSPENDED)
    c->counts.suspended += d;
  if (active && node >= 0 && (size_t)node < c->n_nodes)
    {
      ebb_ctl_node *n = c->nodes[node];
      n->ntasks += (uint32_t)d;
      n->nstarting += s == TASK_STARTING ? (uint32_t)d : 0;
      if (holds)
        {
          n->alloc_cpu_millis += d * cpu;
          n->alloc_memory_bytes += d * mem;
        }
    }
  bool terminal = s == TASK_EXITED || s == TASK_FAILED || s == TASK_KILLED;
  j->n_terminal += terminal ? (uint32_t)d : 0;
  c->counts.unfinished += terminal ? 0 : d;
  j->n_failed += s == TASK_FAILED ? (uint32_t)d : 0;
  j->n_killed += s == TASK_KILLED ? (uint32_t)d : 0;
  j->n_started += s != TASK_PENDING ? (uint32_t)d : 0;
}

static void
task_in (ebb_ctl *c, ebb_ctl_task *t)
{
  share (c, t->job, t->state, t->node, t->cpu_millis, t->memory_bytes, 1);
  ebb_ctl_count_task_reason (c, t, 1);
  t->accounted = true;
}

/* Removes (sign -1) or adds back (1) the share of t as it stands, when it is counted. */
static void
task_share (ebb_ctl *c, ebb_ctl_task *t, int sign)
{
  if (!t->accounted)
    return;
  share (c, t->job, t->state, t->node, t->cpu_millis, t->memory_bytes, sign);
  ebb_ctl_count_task_reason (c, t, sign);
}

/* Moves t's share from its state and node to s and node (a task not counted yet only
 * changes). */
static void
task_move (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state s, int node)
{
  if (t->state == s && t->node == node)
    return;
  task_share (c, t, -1);
  ebb_ctl_task_state from = t->state;
  t->state = s;
  t->node = node;
  task_share (c, t, 1);
  ebb_ctl_metrics_task_moved (c, t, from);
}

/* See ctl.h. */
void
ebb_ctl_task_set_state (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state s)
{
  /* A task that leaves pending no longer waits: its reason goes (a failed launch sets its
   * own while starting, which its end keeps), once the move took it out of the counters
   * by reason under the code it had. */
  bool left_pending = t->state == TASK_PENDING && s != TASK_PENDING;
  task_move (c, t, s, t->node);
  if (left_pending)
    ebb_ctl_reason_clear (&t->reason);
}

/* See ctl.h. */
void
ebb_ctl_task_set_node (ebb_ctl *c, ebb_ctl_task *t, int node)
{
  task_move (c, t, t->state, node);
}

/* See ctl.h. */
void
ebb_ctl_task_set_alloc (ebb_ctl *c, ebb_ctl_task *t, uint64_t cpu_millis, uint64_t memory_bytes)
{
  task_share (c, t, -1);
  t->cpu_millis = cpu_millis;
  t->memory_bytes = memory_bytes;
  task_share (c, t, 1);
}

/* Adds (sign 1) or removes (-1) job j's share of the queued counters. */
static void
job_share (ebb_ctl *c, const ebb_ctl_job *j, int sign)
{
  if (j->state == JOB_QUEUED && (unsigned)j->cls < EBB_ARRAY_SIZE (c->counts.queued_jobs))
    c->counts.queued_jobs[j->cls] += (uint64_t)(int64_t)sign;
  ebb_ctl_count_job_reason (c, j, sign);
}

static void
job_in (ebb_ctl *c, ebb_ctl_job *j)
{
  job_share (c, j, 1);
  j->accounted = true;
}

/* See ctl.h. */
void
ebb_ctl_job_set_state (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_job_state s)
{
  if (j->state == s)
    return;
  if (j->accounted)
    job_share (c, j, -1);
  j->state = s;
  if (j->accounted)
    job_share (c, j, 1);
}

/* A job entered the model: counts it and its tasks. */
static void
count_add_job (ebb_ctl *c, ebb_ctl_job *j)
{
  job_in (c, j);
  for (uint32_t i = 0; i < j->ntasks; i++)
    task_in (c, &j->tasks[i]);
}

/* See ctl.h. */
void
ebb_ctl_count_evict_job (ebb_ctl *c, const ebb_ctl_job *j)
{
  if ((unsigned)j->state < EBB_ARRAY_SIZE (c->evicted_jobs))
    c->evicted_jobs[j->state]++;
  for (uint32_t i = 0; i < j->ntasks; i++)
    if ((unsigned)j->tasks[i].state < EBB_ARRAY_SIZE (c->evicted_tasks))
      c->evicted_tasks[j->tasks[i].state]++;
}

/* See ctl.h. */
ebb_ctl_job *
ebb_ctl_job_search (ebb_ctl_job *const *v, size_t n, uint64_t id)
{
  size_t lo = 0, hi = n;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (v[mid]->id == id)
        return v[mid];
      if (v[mid]->id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

/* See ctl.h. */
void
ebb_ctl_index_free (ebb_ctl *c)
{
  free (c->node_index.tab);
  free (c->rid_index.tab);
  memset (&c->node_index, 0, sizeof c->node_index);
  memset (&c->rid_index, 0, sizeof c->rid_index);
}

ebb_ctl_job *
ebb_ctl_job_find (ebb_ctl *c, uint64_t id)
{
  return ebb_ctl_job_search (c->jobs, c->n_jobs, id); /* appended in id order */
}

ebb_ctl_node *
ebb_ctl_node_find (ebb_ctl *c, const char *name, int *idx)
{
  int i = index_find_node (c, name);
  if (i < 0)
    return NULL;
  if (idx)
    *idx = i;
  return c->nodes[i];
}

void
ebb_ctl_add_job (ebb_ctl *c, ebb_ctl_job *j)
{
  if (c->n_jobs == c->cap_jobs)
    {
      c->cap_jobs = c->cap_jobs ? c->cap_jobs * 2 : 64;
      c->jobs = ebb_xrealloc (c->jobs, c->cap_jobs * sizeof *c->jobs);
    }
  c->jobs[c->n_jobs] = j;
  index_add_job (c, c->n_jobs);
  c->n_jobs++;
  count_add_job (c, j);
}

int
ebb_ctl_add_node (ebb_ctl *c, ebb_ctl_node *n)
{
  if (c->n_nodes >= 1000000)
    return -ENOSPC;
  if (c->n_nodes == c->cap_nodes)
    {
      c->cap_nodes = c->cap_nodes ? c->cap_nodes * 2 : 16;
      c->nodes = ebb_xrealloc (c->nodes, c->cap_nodes * sizeof *c->nodes);
    }
  c->nodes[c->n_nodes] = n;
  index_add_node (c, c->n_nodes);
  c->n_nodes++;
  return 0;
}
