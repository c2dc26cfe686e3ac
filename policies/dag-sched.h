/* The online half shared by the DAG policies (graphene, cp, tetris, random): per-job
 * runnable sets (a task is runnable once its parents finished), per-node free vectors over
 * CPU, memory and network, and the matching loop that fills a node with the task its
 * policy scores best. The policies differ only in the priority they give tasks at arrival
 * and in how they score a (task, node) pair: each gives its hooks (ebb_dag_hooks) to
 * ebb_dag_sched_init, and this half calls no policy by name. */
#ifndef EBB_POLICY_DAG_SCHED_H
#define EBB_POLICY_DAG_SCHED_H

#include "policies/dag.h"
#include "policies/fenwick.h"
#include "policies/policy-impl.h"

/* How a node is filled: the matchings of dag-sched.c a policy chooses from. */
typedef enum
{
  EBB_DAG_PICK_FAIR,         /* best perfScore (pScore x hooks->prio - eta x srpt); once the
                                most deprived queue's deficit passed kappa x C, that queue's
                                best only (graphene) */
  EBB_DAG_PICK_LEAST_SERVED, /* in the job holding the least, the highest prio (cp) */
  EBB_DAG_PICK_SCORED,       /* best pScore - eta x srpt (tetris) */
  EBB_DAG_PICK_RANDOM,       /* a uniformly random task that fits (random) */
} ebb_dag_pick;

typedef struct ebb_dag_job
{
  ebb_dag_graph g;
  uint32_t *waiting;  /* per task: parents not finished */
  uint32_t *runnable; /* runnable tasks not launched yet */
  uint32_t nrunnable;
  double *prio;      /* per task: graphene 1 - rank / n (1 first .. 0), cp critical path */
  double *dem;       /* per task: EBB_DAG_NRES shares of one node */
  double srpt;       /* work of the tasks not launched: sum of duration x shares */
  double alloc;      /* dominant shares of its running tasks (cp's fair choice) */
  uint32_t left;     /* tasks not finished */
  uint32_t launched; /* tasks launched */
  uint32_t pos;      /* index in the active list, EBB_POL_NONE when not there */
  uint32_t group;    /* its queue (job index mod params.dag_queues) */
  uint8_t live;
  /* graphene, per task: its offline rank (the tasks starting before it in the preferred
   * schedule); NULL when the job bypassed the offline step. */
  uint32_t *rank;
  /* graphene: the offline ranks of the job's tasks not launched yet, so that a task's rank
   * among them is a prefix count. */
  ebb_pol_fenwick unlaunched;
} ebb_dag_job;

/* What a DAG policy plugs into the online half. */
typedef struct ebb_dag_hooks
{
  ebb_dag_pick pick;
  /* At a job's arrival or adoption, its graph and demands set up: fills j->prio (and the
   * policy's per-job state, j->rank ...); NULL: the prios stay 0. */
  void (*prepare) (ebb_pol *p, uint32_t job, ebb_dag_job *j);
  /* EBB_DAG_PICK_FAIR: the multiplier of task t's pScore (graphene's priScore), mode an
   * EBB_DAG_PRIO_*; NULL: 1. */
  double (*prio) (const ebb_dag_job *j, uint32_t t, int mode);
} ebb_dag_hooks;

/* A queue of jobs: the unit of fairness (the paper's groups). */
typedef struct ebb_dag_group
{
  uint32_t active_jobs; /* its jobs with runnable tasks; the group competes when > 0 */
  double base;          /* deficit: value of the global credit when it began competing */
  double consumed;      /* deficit: what it was given since */
} ebb_dag_group;

typedef struct ebb_dag_sched
{
  const ebb_dag_hooks *hooks;
  ebb_dag_job *jobs;
  uint32_t jobs_cap;
  uint32_t *active; /* jobs with runnable tasks */
  uint32_t nactive;
  double *free;             /* per node: EBB_DAG_NRES shares free */
  double cap[EBB_DAG_NRES]; /* one node's capacity; 0: the resource is not modeled */
  uint32_t *fresh;          /* (job, task) pairs that became runnable since the last pass */
  uint32_t nfresh, fresh_cap;
  uint8_t *open; /* per node: fill it in the next pass */
  ebb_dag_group *groups;
  uint32_t ngroups, active_groups;
  uint32_t live_jobs; /* arrived and not finished */
  double credit;      /* deficit counters: sum over picks of factor / competing groups */
  double eta;         /* weight of srpt against the packing score */
  double kappa_cap;   /* unfairness threshold kappa x C (C: nodes, in dominant shares) */
} ebb_dag_sched;

/* The ops bodies every DAG policy uses; the policy's hooks (static, they are not copied)
 * are read from the ebb_dag_sched at the start of its private state. */
int ebb_dag_sched_init (ebb_pol *p, const ebb_dag_hooks *hooks, ebb_error **err);
void ebb_dag_sched_fini (ebb_pol *p);
void ebb_dag_sched_job_arrived (ebb_pol *p, double now_sec, uint32_t job);
/* A job whose running tasks the environment hands over (the controller after a restart or
 * a rebuild): they hold their nodes' shares; the others wait for their parents as usual. */
void ebb_dag_sched_job_adopted (ebb_pol *p, double now_sec, uint32_t job);
void ebb_dag_sched_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job,
                                  uint32_t task);

/* Deficit counter of a competing group (graphene's unfairness measure). */
static inline double
ebb_dag_deficit (const ebb_dag_sched *s, const ebb_dag_group *g)
{
  return s->credit - g->base - g->consumed;
}

#endif
