/* DAG jobs in the controller: the graph a DAG policy is given with each batch of a job's
 * tasks (ebb_pol_job.dag), the tasks kept out of the policy while a parent in another batch
 * has not ended, and the job's graph read back from its tasks' stored specs. The policy
 * itself starts a task only once its parents in the batch finished (policies/dag-sched.c),
 * as in ebb-sim; a batch is the job, or after a restart or a loss what is left of it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/sched.h"
#include "lib/util.h"
#include "policies/dag.h"

static bool
ended (const ebb_ctl_task *t)
{
  return t->state >= TASK_EXITED && t->state < TASK_N_STATES;
}

/* See sched.h. */
ebb_pol_dag *
ebb_ctl_dag_build (const ebb_ctl_job *j, ebb_ctl_task *const *ts, size_t n, double est_sec)
{
  ebb_pol_dag *d = ebb_xcalloc (1, sizeof *d);
  double *dur = ebb_xmalloc ((n ? n : 1) * sizeof *dur);
  int64_t *dem = ebb_xmalloc ((n ? n : 1) * EBB_DAG_NRES * sizeof *dem);
  uint32_t *stage = ebb_xmalloc ((n ? n : 1) * sizeof *stage);
  cleanup_free uint32_t *pos = ebb_xmalloc ((j->ntasks ? j->ntasks : 1) * sizeof *pos);
  for (uint32_t i = 0; i < j->ntasks; i++)
    pos[i] = EBB_POL_NONE;
  for (size_t k = 0; k < n; k++)
    {
      pos[ts[k]->idx] = (uint32_t)k;
      dur[k] = est_sec;
      dem[k * EBB_DAG_NRES + EBB_DAG_CPU] = (int64_t)ts[k]->cpu_millis;
      dem[k * EBB_DAG_NRES + EBB_DAG_MEM] = (int64_t)ts[k]->memory_bytes;
      dem[k * EBB_DAG_NRES + EBB_DAG_NET] = (int64_t)ts[k]->net_mbps;
      stage[k] = ts[k]->stage;
    }
  /* Only the edges inside the batch: a parent outside it has ended (ebb_ctl_dag_hold kept
   * back the children of the others). */
  uint32_t *edges = ebb_xmalloc ((j->nedges ? j->nedges : 1) * 2 * sizeof *edges), m = 0;
  for (uint32_t e = 0; e < j->nedges; e++)
    {
      uint32_t p = j->edges[2 * e], ch = j->edges[2 * e + 1];
      if (pos[p] != EBB_POL_NONE && pos[ch] != EBB_POL_NONE)
        {
          edges[2 * m] = pos[p];
          edges[2 * m + 1] = pos[ch];
          m++;
        }
    }
  *d = (ebb_pol_dag){ .ntasks = (uint32_t)n,
                      .nedges = m,
                      .dur_sec = dur,
                      .demand = dem,
                      .stage = stage,
                      .edges = edges };
  return d;
}

/* See sched.h. */
void
ebb_ctl_dag_free (ebb_pol_dag *d)
{
  if (!d)
    return;
  free ((void *)d->dur_sec);
  free ((void *)d->demand);
  free ((void *)d->stage);
  free ((void *)d->edges);
  free (d);
}

/* See sched.h. */
size_t
ebb_ctl_dag_hold (ebb_ctl_job *j, ebb_ctl_task **ts, size_t n)
{
  if (j->nedges == 0 || n == 0)
    return n;
  cleanup_free bool *in = ebb_xcalloc (j->ntasks, sizeof *in);
  for (size_t k = 0; k < n; k++)
    in[ts[k]->idx] = true;
  ebb_dag_graph g;
  uint32_t bad;
  if (ebb_dag_graph_build (&g, j->ntasks, j->edges, j->nedges, &bad) < 0)
    abort (); /* checked at submit (api-jobs.c), read back from those specs */
  /* A task whose parent is outside the batch and not ended waits, and so do its
   * descendants: parents first, a held parent is outside the batch too. */
  for (uint32_t i = 0; i < g.n; i++)
    {
      uint32_t t = g.topo[i];
      for (uint32_t k = g.par_off[t]; in[t] && k < g.par_off[t + 1]; k++)
        if (!in[g.par[k]] && !ended (&j->tasks[g.par[k]]))
          in[t] = false;
    }
  ebb_dag_graph_free (&g);
  size_t m = 0;
  for (size_t k = 0; k < n; k++)
    {
      bool held = !in[ts[k]->idx];
      j->n_held += held - ts[k]->dag_held;
      ts[k]->dag_held = held;
      if (!held)
        ts[m++] = ts[k];
    }
  return m;
}

/* See sched.h. */
void
ebb_ctl_dag_release (ebb_ctl *c, ebb_ctl_job *j)
{
  if (j->n_held == 0 || !j->tasks)
    return;
  cleanup_free ebb_ctl_task **ts = ebb_xmalloc (sizeof *ts * j->ntasks);
  size_t n = 0;
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      ebb_ctl_task *t = &j->tasks[i];
      if (t->dag_held && t->state == TASK_PENDING && !t->kill_wanted)
        ts[n++] = t;
      t->dag_held = false;
    }
  j->n_held = 0;
  ebb_ctl_queue_tasks (c, j, ts, n); /* holds again those still waiting */
}
