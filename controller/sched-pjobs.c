/* Policy jobs: the batches of tasks of one controller job queued into the policy together,
 * named by an id that indexes the policy's job array (ebb_pol_job) and the controller's
 * (ebb_ctl_pjob). A batch names its job by id, not pointer (the job may leave memory first);
 * the id of a batch the policy forgot (ebb_pol_job_forget) goes to the next one, so the
 * arrays hold the batches under way, not every batch queued since the policy was built. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/sched.h"
#include "lib/util.h"

/* See sched.h. */
ebb_ctl_task *
ebb_ctl_pjob_task (ebb_ctl *c, uint32_t pj, uint32_t k)
{
  if (pj >= c->n_pjobs || k >= c->pjobs[pj].n)
    return NULL;
  ebb_ctl_job *j = ebb_ctl_job_find (c, c->pjobs[pj].job);
  return j && c->pjobs[pj].idx[k] < j->ntasks ? &j->tasks[c->pjobs[pj].idx[k]] : NULL;
}

/* See sched.h. */
uint32_t
ebb_ctl_pjob_new (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_task **ts, size_t n)
{
  if (c->n_pjobs == c->cap_pjobs && c->n_pjob_free == 0)
    {
      c->cap_pjobs = c->cap_pjobs ? c->cap_pjobs * 2 : 256;
      c->pjobs = ebb_xrealloc (c->pjobs, c->cap_pjobs * sizeof *c->pjobs);
      c->pjobs_pol = ebb_xrealloc (c->pjobs_pol, c->cap_pjobs * sizeof *c->pjobs_pol);
      ebb_pol_set_jobs (c->pol, c->pjobs_pol);
    }
  /* A forgotten id first: the policy holds nothing of it (its tasks state was freed). */
  uint32_t id = c->n_pjob_free ? c->pjob_free[--c->n_pjob_free] : c->n_pjobs++;
  ebb_ctl_pjob *pj = &c->pjobs[id];
  pj->job = j->id;
  pj->n = (uint32_t)n;
  pj->idx = ebb_xmalloc (n * sizeof *pj->idx);
  ebb_pol_res demand = { 0, 0 };
  for (size_t i = 0; i < n; i++)
    {
      pj->idx[i] = ts[i]->idx;
      ts[i]->pjob = id;
      ts[i]->pidx = (uint32_t)i;
      /* One demand per policy job: the largest of its tasks. */
      if ((int64_t)ts[i]->cpu_millis > demand.cpu_millis)
        demand.cpu_millis = (int64_t)ts[i]->cpu_millis;
      if ((int64_t)ts[i]->memory_bytes > demand.memory_bytes)
        demand.memory_bytes = (int64_t)ts[i]->memory_bytes;
    }
  ebb_pol_job *pol = &c->pjobs_pol[id];
  memset (pol, 0, sizeof *pol);
  pj->dag = NULL;
  pol->submit_sec = ebb_ctl_pol_now (c);
  /* A job submitted without an estimate still needs one: Hawk's central placement sums the
   * estimates of the long work queued on a node, and with all of them 0 every node ties and
   * the first takes every task. One second each makes it spread by task count. */
  pol->est_task_sec = j->est_task_sec > 0 ? j->est_task_sec : 1.0;
  pol->cancel_at_sec = INFINITY;
  pol->ntasks = (uint32_t)n;
  pol->demand = demand;
  pol->class_hint = j->cls == CLS_SHORT  ? EBB_POL_CLASS_SHORT
                    : j->cls == CLS_LONG ? EBB_POL_CLASS_LONG
                                         : EBB_POL_CLASS_BY_CUTOFF;
  ebb_pol_job_set_priority (c->pol, id, j->priority);
  if (ebb_pol_ops_of (c->pol)->dag)
    pol->dag = pj->dag = ebb_ctl_dag_build (j, ts, n, pol->est_task_sec);
  return id;
}

/* See sched.h. */
void
ebb_ctl_pjobs_clear (ebb_ctl *c)
{
  for (uint32_t i = 0; i < c->n_pjobs; i++)
    {
      free (c->pjobs[i].idx);
      ebb_ctl_dag_free (c->pjobs[i].dag);
    }
  c->n_pjobs = 0;
  c->n_pjob_free = 0;
  c->n_pjob_later = 0;
}

/* Appends pj to the ids to ask again (list: the free ids or the later ones). */
static void
ids_push (uint32_t **list, uint32_t *n, uint32_t *cap, uint32_t pj)
{
  if (*n == *cap)
    {
      *cap = *cap ? *cap * 2 : 256;
      *list = ebb_xrealloc (*list, *cap * sizeof **list);
    }
  (*list)[(*n)++] = pj;
}

/* Returns true when the policy forgot pj; false when it refused, pj then queued to be asked
 * again if only its probes alive hold it back. */
static bool
forget (ebb_ctl *c, uint32_t pj, bool queue_refused)
{
  if (!ebb_pol_job_forget (c->pol, pj))
    {
      const ebb_pol_job *pol = &c->pjobs_pol[pj];
      if (queue_refused && ebb_pol_ops_of (c->pol)->forgets_jobs && !pol->forgotten
          && ebb_pol_job_probes (c->pol, pj) > 0 && pol->finished >= pol->ntasks)
        ids_push (&c->pjob_later, &c->n_pjob_later, &c->cap_pjob_later, pj);
      return false;
    }
  free (c->pjobs[pj].idx);
  ebb_ctl_dag_free (c->pjobs[pj].dag);
  c->pjobs[pj] = (ebb_ctl_pjob){ 0 }; /* no task: ebb_ctl_pjob_task answers NULL */
  ids_push (&c->pjob_free, &c->n_pjob_free, &c->cap_pjob_free, pj);
  return true;
}

/* See sched.h. */
void
ebb_ctl_pjob_forget (ebb_ctl *c, uint32_t pj)
{
  if (c->pol && pj < c->n_pjobs)
    forget (c, pj, true);
}

/* See sched.h. */
void
ebb_ctl_pjobs_forget_later (ebb_ctl *c)
{
  /* An id stays while its finished job's probes are alive; one forgotten leaves (so does
   * one whose job is not finished: only a new batch given the id after all, never here). */
  uint32_t kept = 0;
  for (uint32_t i = 0; c->pol && i < c->n_pjob_later; i++)
    {
      uint32_t pj = c->pjob_later[i];
      if (pj >= c->n_pjobs || forget (c, pj, false))
        continue;
      const ebb_pol_job *pol = &c->pjobs_pol[pj];
      if (!pol->forgotten && ebb_pol_job_probes (c->pol, pj) > 0 && pol->finished >= pol->ntasks)
        c->pjob_later[kept++] = pj;
    }
  c->n_pjob_later = kept;
}
