/* The cluster model of the scheduler: names of states, the clocks, finding and adding
 * jobs and nodes, a job's state from its tasks. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/time.h"
#include "lib/util.h"

static const char *const task_names[]
    = { "pending", "starting", "running", "suspended", "exited", "failed", "killed" };
static const char *const job_names[] = { "queued", "running", "done", "failed", "killed" };
static const char *const node_names[] = { "ready", "lost", "draining" };
static const char *const class_names[] = { "short", "long", "auto" };

/* The name of value i in a table of n names; "?" outside it (a corrupt or newer value). */
static const char *
name_of (const char *const *names, size_t n, unsigned i)
{
  return i < n ? names[i] : "?";
}

const char *
ebb_ctl_task_state_name (ebb_ctl_task_state s)
{
  return name_of (task_names, EBB_ARRAY_SIZE (task_names), (unsigned)s);
}
const char *
ebb_ctl_job_state_name (ebb_ctl_job_state s)
{
  return name_of (job_names, EBB_ARRAY_SIZE (job_names), (unsigned)s);
}
const char *
ebb_ctl_node_state_name (ebb_ctl_node_state s)
{
  return name_of (node_names, EBB_ARRAY_SIZE (node_names), (unsigned)s);
}
const char *
ebb_ctl_class_name (ebb_ctl_class c)
{
  return name_of (class_names, EBB_ARRAY_SIZE (class_names), (unsigned)c);
}

/* Returns the wall clock in unix seconds (the API's times). */
double
ebb_ctl_now (void)
{
  return (double)ebb_realtime_usec () / 1e6;
}

ebb_ctl_job *
ebb_ctl_job_find (ebb_ctl *c, uint64_t id)
{
  return ebb_ctl_job_search (c->jobs, c->n_jobs, id); /* appended in id order */
}

ebb_ctl_node *
ebb_ctl_node_find (ebb_ctl *c, const char *name, int *idx)
{
  int i = ebb_ctl_index_find_node (c, name);
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
  ebb_ctl_index_add_job (c, c->n_jobs);
  c->n_jobs++;
  ebb_ctl_count_add_job (c, j);
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
  ebb_ctl_index_add_node (c, c->n_nodes);
  c->n_nodes++;
  return 0;
}

void
ebb_ctl_job_free (ebb_ctl_job *j)
{
  if (!j)
    return;
  for (uint32_t i = 0; j->tasks && i < j->ntasks; i++) /* a listed job has none */
    ebb_ctl_task_drop_spec (&j->tasks[i]);
  free (j->tasks);
  free (j->edges);
  free (j->name);
  free (j->request_id);
  free (j->answer);
  free (j);
}

/* See ctl.h. */
int
ebb_ctl_task_write (ebb_ctl *c, ebb_ctl_task *t)
{
  int r = ebb_ctl_store_task (c, t);
  if (r < 0)
    return r;
  t->stored = true;
  /* A finished task is never sent again and its row keeps the spec: memory that would grow
   * with every task ever run is given back. */
  if (ebb_ctl_task_terminal (t))
    ebb_ctl_task_drop_spec (t);
  return 0;
}

/* See ctl.h. */
void
ebb_ctl_job_update (ebb_ctl *c, ebb_ctl_job *j)
{
  /* The counters of a job in the model (model-index.c); a job not added yet is scanned. */
  uint32_t done = j->n_terminal, failed = j->n_failed, killed = j->n_killed, started = j->n_started;
  for (uint32_t i = 0; !j->accounted && i < j->ntasks; i++)
    {
      const ebb_ctl_task *t = &j->tasks[i];
      done += ebb_ctl_task_terminal (t);
      failed += t->state == TASK_FAILED;
      killed += t->state == TASK_KILLED;
      started += t->state != TASK_PENDING;
    }
  ebb_ctl_job_state s = j->state;
  if (done == j->ntasks)
    s = killed ? JOB_KILLED : failed ? JOB_FAILED : JOB_DONE;
  else if (started)
    s = JOB_RUNNING;
  if (s == j->state)
    return;
  if (s == JOB_RUNNING && j->started_at == 0)
    j->started_at = ebb_ctl_now ();
  if (s >= JOB_DONE)
    j->finished_at = ebb_ctl_now ();
  ebb_ctl_job_set_state (c, j, s);
  ebb_ctl_store_job (c, j);
}

/* See ctl.h. */
void
ebb_ctl_sched_free (ebb_ctl *c)
{
  ebb_ctl_calls_free (c); /* first: a call's end finds its job */
  ebb_pol_free (c->pol);
  free (c->slots);
  ebb_ctl_pjobs_clear (c);
  free (c->pjobs);
  free (c->pjobs_pol);
  free (c->pjob_free);
  free (c->pjob_later);
  free (c->pev);
  ebb_ctl_timed_free (c);
  for (size_t i = 0; i < c->n_jobs; i++)
    ebb_ctl_job_free (c->jobs[i]);
  free (c->jobs);
  for (size_t i = 0; i < c->n_nodes; i++)
    {
      free (c->nodes[i]->name);
      free (c->nodes[i]->url);
      free (c->nodes[i]);
    }
  free (c->nodes);
  ebb_ctl_index_free (c);
}
