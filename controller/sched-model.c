/* The scheduler's writes of the model: a task's row (and its spec given back when it is
 * over), a job's state from its tasks; and freeing the scheduler's part at exit. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/time.h"
#include "lib/util.h"

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
  /* Its wait ends when no task of it is pending any more (the first time). */
  if (started == j->ntasks && j->placed_at == 0)
    j->placed_at = ebb_ctl_now ();
  if (started == j->ntasks && j->reason.code != REASON_LAUNCH_FAILED)
    ebb_ctl_job_set_reason (c, j, REASON_NONE, "%s", "");
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
