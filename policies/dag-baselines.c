/* The baselines Graphene is compared with (OSDI 2016, section 7): cp, critical-path order
 * inside the job the Capacity Scheduler serves next (the one holding the least); tetris,
 * Tetris' packing score (dot product of demand and free resources) with its SRPT term and
 * no DAG awareness; random, a uniformly random runnable task that fits. All work
 * conserving, all on the online matching of policies/dag-sched.c. */
#include "config.h"

#include "policies/dag-sched.h"

/* cp's prio: each task's critical path (the longest chain of durations from it). */
static void
cp_prepare (ebb_pol *p, uint32_t job, ebb_dag_job *j)
{
  ebb_dag_cp_length (&j->g, p->jobs[job].dag->dur_sec, j->prio);
}

static int
cp_init (ebb_pol *p, ebb_error **err)
{
  static const ebb_dag_hooks hooks = { .pick = EBB_DAG_PICK_LEAST_SERVED, .prepare = cp_prepare };
  return ebb_dag_sched_init (p, &hooks, err);
}

static int
tetris_init (ebb_pol *p, ebb_error **err)
{
  static const ebb_dag_hooks hooks = { .pick = EBB_DAG_PICK_SCORED };
  return ebb_dag_sched_init (p, &hooks, err);
}

static int
random_init (ebb_pol *p, ebb_error **err)
{
  static const ebb_dag_hooks hooks = { .pick = EBB_DAG_PICK_RANDOM };
  return ebb_dag_sched_init (p, &hooks, err);
}

#define DAG_OPS(sym, nm, sum, ini)                                                                 \
  const ebb_pol_ops sym = {                                                                        \
    .name = nm,                                                                                    \
    .summary = sum,                                                                                \
    .priv_size = sizeof (ebb_dag_sched),                                                           \
    .init = ini,                                                                                   \
    .fini = ebb_dag_sched_fini,                                                                    \
    .job_arrived = ebb_dag_sched_job_arrived,                                                      \
    .job_adopted = ebb_dag_sched_job_adopted,                                                      \
    .task_finished = ebb_dag_sched_task_finished,                                                  \
    .needs_resources = 1,                                                                          \
    .dag = 1,                                                                                      \
  }

DAG_OPS (ebb_pol_cp_ops, "cp", "DAG baseline: critical-path order in the least-served job",
         cp_init);
DAG_OPS (ebb_pol_tetris_ops, "tetris", "DAG baseline: Tetris packing score + SRPT, DAG-blind",
         tetris_init);
DAG_OPS (ebb_pol_random_ops, "random", "DAG baseline: a random runnable task that fits",
         random_init);
