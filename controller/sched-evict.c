/* Finished jobs leave memory: a controller under a steady stream of jobs would otherwise
 * grow with every job it has run. A job goes once it is done, failed or killed, every
 * task final, its rows committed (the tick calls this after its commit), no agent call
 * under way for it (an answer finds its task by id and must find it) and, beyond the newest
 * cfg->keep_finished finished jobs (the ones a client most likely still polls). The store
 * keeps everything the API shows of it: GET /v1/jobs reads it back, a replayed request id
 * finds its first answer there (store-sqlite-jobs.c). */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

/* What a slot that held an evicted task holds: still busy for the policy (a ghost until the
 * next rebuild), and never equal to a task allocated later at the same address. */
static ebb_ctl_task evicted_task;

static bool
evictable (const ebb_ctl_job *j)
{
  if (j->state < JOB_DONE || j->n_terminal != j->ntasks || j->ncalls > 0 || !j->accounted)
    return false;
  for (uint32_t i = 0; i < j->ntasks; i++)
    if (!ebb_ctl_task_terminal (&j->tasks[i]) || !j->tasks[i].stored
        || j->tasks[i].slot != EBB_POL_NONE)
      return false;
  return true;
}

static int
cmp_job_id (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = (*(ebb_ctl_job *const *)b)->id;
  return x < y ? -1 : x > y;
}

/* See ctl.h. */
size_t
ebb_ctl_evict (ebb_ctl *c)
{
  if (!c->store || ebb_ctl_store_in_transaction (c) || c->n_jobs <= c->cfg->keep_finished)
    return 0;
  size_t m = 0;
  for (size_t i = 0; i < c->n_jobs; i++)
    m += evictable (c->jobs[i]);
  if (m <= c->cfg->keep_finished)
    return 0;
  /* The oldest first: the array is in id order. */
  size_t want = m - c->cfg->keep_finished, n = 0;
  cleanup_free ebb_ctl_job **out = ebb_xmalloc (want * sizeof *out);
  size_t kept = 0;
  for (size_t i = 0; i < c->n_jobs; i++)
    {
      ebb_ctl_job *j = c->jobs[i];
      if (n < want && evictable (j))
        out[n++] = j;
      else
        c->jobs[kept++] = j;
    }
  c->n_jobs = kept;
  for (uint32_t s = 0; s < c->n_slots; s++)
    {
      ebb_ctl_task *t = c->slots[s].task;
      if (t && t != &evicted_task && bsearch (&t->job->id, out, n, sizeof *out, cmp_job_id) != NULL)
        c->slots[s].task = &evicted_task;
    }
  for (size_t i = 0; i < n; i++)
    {
      ebb_ctl_count_evict_job (c, out[i]);
      ebb_ctl_job_free (out[i]);
    }
  ebb_ctl_index_jobs_again (c);
  c->jobs_evicted += n;
  ebb_log_debug ("%zu finished jobs left memory (%zu in memory)", n, c->n_jobs);
  return n;
}

/* Jobs removed from the store in one transaction at most: a tick stays short. */
#define PRUNE_BATCH 10000
/* Kept logs removed per retention run, at most: the agents' own bounds (--keep-logs) take
 * the rest, so a first run over a large store does not send thousands of calls at once. */
#define PRUNE_LOGS_MAX 256

/* The logs the agents keep of the pruned jobs' tasks go with the jobs. */
static void
drop_pruned_logs (ebb_ctl *c)
{
  ebb_ctl_pruned_task *v = NULL;
  size_t n = ebb_ctl_store_pruned_tasks (c, PRUNE_LOGS_MAX, &v);
  for (size_t i = 0; i < n; i++)
    {
      int node = -1;
      if (!ebb_ctl_node_find (c, v[i].node, &node) || c->nodes[node]->state == NODE_LOST
          || !c->nodes[node]->url)
        continue;
      cleanup_error ebb_error *err = NULL;
      cleanup_free char *aid = ebb_ctl_task_agent_id (v[i].job, v[i].idx, v[i].generation);
      cleanup_free char *path = ebb_xasprintf ("/v1/tasks/%s/logs", aid);
      if (ebb_ctl_outbox_drop_log (c, node, path, &err) < 0)
        ebb_log_info ("DELETE %s: %s", path, ebb_error_msg (&err));
    }
  ebb_ctl_pruned_tasks_free (v, n);
}

/* See sched.h. */
uint64_t
ebb_ctl_prune (ebb_ctl *c)
{
  uint64_t now = ebb_now_usec (),
           every = c->cfg->retain_usec < 60000000 ? c->cfg->retain_usec : 60000000;
  if (!c->store || ebb_ctl_store_in_transaction (c) || now - c->pruned_at_usec < every)
    return 0;
  c->pruned_at_usec = now;
  uint64_t n = 0;
  double before = ebb_ctl_now () - (double)c->cfg->retain_usec / 1e6;
  if (ebb_ctl_store_prune (c, before, c->cfg->retain_jobs, PRUNE_BATCH, &n) < 0)
    return 0;
  c->n_jobs_stored = c->n_jobs_stored > n ? c->n_jobs_stored - n : 0;
  c->jobs_pruned += n;
  if (n)
    {
      ebb_log_info ("retention: %" PRIu64 " finished jobs removed from the store", n);
      drop_pruned_logs (c);
    }
  if (n == PRUNE_BATCH)
    c->pruned_at_usec = 0; /* more at the next tick */
  return n;
}
