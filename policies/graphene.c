/* graphene: Grandl et al., "GRAPHENE: Packing and Dependency-aware Scheduling for
 * Data-Parallel Clusters", OSDI 2016. Offline, each arriving DAG gets a preferred schedule
 * (policies/graphene-offline.c) distilled into its tasks' ranks by start, stored as
 * 1 - rank / n (1 for the task that starts first); DAGs that are small or simple bypass it
 * (section 4.4, policies/graphene-bypass.c), all their tasks at 1. Online
 * (policies/dag-sched.c), a node is given the task with the best perfScore = pScore x
 * priScore - eta x srpt (pScore: dot product of the task's demand and the node's free
 * vector; srpt: the job's remaining work), unless the most deprived queue's deficit counter
 * passed kappa x C: then that queue's best task. priScore is by default the rank among the
 * job's tasks not launched yet over their number, so the task next in a job's schedule
 * scores 1 (EBB_DAG_PRIO_REMAINING; the stored value itself, the rank among all the DAG's
 * tasks, is the EBB_DAG_PRIO_DAG ablation). That rank is exact: a Fenwick tree per job
 * over the offline ranks counts the unlaunched tasks ranked before a task in O(log n), so
 * a task launched ahead of its rank (packing decides online) leaves the others their order. */
#include "config.h"

#include "policies/dag-sched.h"
#include "policies/graphene.h"
#include "lib/util.h"

#include <stdlib.h>

/* The offline step for one job (the prepare hook): fills j->prio, and j->rank and
 * j->unlaunched unless the job bypasses it. */
static void
prepare (ebb_pol *p, uint32_t job, ebb_dag_job *j)
{
  const ebb_pol_dag *d = p->jobs[job].dag;
  uint32_t n = d->ntasks;
  ebb_gr_dag gd = { .n = n, .g = &j->g, .dur = d->dur_sec, .dem = j->dem, .stage = d->stage };
  if (n <= 1 || (p->params.dag_bypass == EBB_DAG_BYPASS_TEXT && ebb_gr_bypass (&gd)))
    {
      /* Section 4.4's bypass: no preferred schedule, so no order to enforce. Every task gets
       * the multiplier's identity, 1: the job is scored by pScore - eta x srpt alone. */
      for (uint32_t t = 0; t < n; t++)
        j->prio[t] = 1;
      p->stats.dag_bypass_jobs++;
      return;
    }
  /* The space is the DAG's share of the cluster (BuildSchedule's m): an even split among
   * the jobs present at its arrival, and never more than it can use at once. */
  const ebb_dag_sched *s = p->priv;
  uint32_t share = (p->params.nnodes + s->live_jobs - 1) / (s->live_jobs ? s->live_jobs : 1);
  gd.machines = ebb_gr_space_machines (&gd, share ? share : 1);
  double *start = ebb_xmalloc (n * sizeof *start);
  uint32_t *rank = ebb_xmalloc (n * sizeof *rank);
  ebb_gr_plan plan = { .start = start, .rank = rank };
  if (ebb_gr_build_schedule (&gd, &plan) < 0)
    abort (); /* an acyclic DAG always has a schedule */
  /* Every task unlaunched: rank r is held by as many tasks as tie at it. */
  uint32_t *count = ebb_xcalloc (n, sizeof *count);
  for (uint32_t t = 0; t < n; t++)
    {
      j->prio[t] = 1.0 - (double)rank[t] / n;
      count[rank[t]]++;
    }
  ebb_pol_fenwick_init (&j->unlaunched, n, count);
  j->rank = rank;
  p->stats.dag_offline_jobs++;
  p->stats.dag_offline_schedules += plan.schedules;
  free (start);
  free (count);
}

/* See graphene.h. */
double
ebb_graphene_prio (const ebb_dag_job *j, uint32_t t, int mode)
{
  if (mode == EBB_DAG_PRIO_DAG)
    return j->prio[t]; /* the formula's letter: rank among all the DAG's tasks / n */
  /* REMAINING, and ORDER: the plan's order kept inside each job, the default's scores
   * across jobs, so the ablation changes one thing only. */
  if (!j->rank)
    return 1; /* bypassed: no preferred schedule, no order */
  /* The default: the rank among the tasks not launched yet (those of them that start
   * before t in the preferred schedule) over their number, so the task next in the job's
   * schedule scores 1 however far the job has gone, as the text's example of perfScore has
   * it ("is next in the preferred schedule"). t itself is not launched: the count is >= 1. */
  uint32_t before = ebb_pol_fenwick_prefix (&j->unlaunched, j->rank[t]);
  return 1 - (double)before / (j->g.n - j->launched);
}

static int
graphene_init (ebb_pol *p, ebb_error **err)
{
  static const ebb_dag_hooks hooks
      = { .pick = EBB_DAG_PICK_FAIR, .prepare = prepare, .prio = ebb_graphene_prio };
  return ebb_dag_sched_init (p, &hooks, err);
}

const ebb_pol_ops ebb_pol_graphene_ops = {
  .name = "graphene",
  .summary = "Graphene: offline troublesome-first DAG schedules, online packing + SRPT, "
             "bounded unfairness",
  .priv_size = sizeof (ebb_dag_sched),
  .init = graphene_init,
  .fini = ebb_dag_sched_fini,
  .job_adopted = ebb_dag_sched_job_adopted,
  .job_arrived = ebb_dag_sched_job_arrived,
  .task_finished = ebb_dag_sched_task_finished,
  .needs_resources = 1,
  .dag = 1,
};
