/* Graphene's offline step (policies/graphene-offline.c): the preferred schedule of one DAG,
 * built by placing its troublesome tasks first in a space of machines x resources x time
 * (paper section 4), and graphene's priScore. Exposed for policies/graphene.c and the tests. */
#ifndef EBB_POLICY_GRAPHENE_H
#define EBB_POLICY_GRAPHENE_H

#include <stdint.h>

#include "policies/dag-sched.h"
#include "policies/dag.h"

typedef struct ebb_gr_dag
{
  uint32_t n;
  const ebb_dag_graph *g;
  const double *dur;     /* per task */
  const double *dem;     /* per task: EBB_DAG_NRES shares of one machine, each in [0, 1] */
  const uint32_t *stage; /* per task (NULL: each task its own stage) */
  uint32_t machines;     /* machines of the virtual space */
} ebb_gr_dag;

/* The subset orders the paper allows after T (section 4.3). */
enum
{
  EBB_GR_ORDER_SPC = 0,
  EBB_GR_ORDER_SCP,
  EBB_GR_ORDER_CSP,
  EBB_GR_ORDER_PSC,
  EBB_GR_NORDERS,
};

/* Starts this close (seconds) are the same start when ranking. */
#define EBB_GR_SAME_START 1e-9

typedef struct ebb_gr_plan
{
  double makespan;     /* of the best schedule */
  uint32_t candidates; /* distinct troublesome sets tried */
  uint32_t schedules;  /* complete schedules built (every order of every set) */
  uint32_t ntrouble;   /* |T| of the best */
  uint32_t order;      /* EBB_GR_ORDER_* of the best */
  double *start;       /* per task (n, the caller's): start in the best schedule */
  uint32_t *rank;      /* per task (n, the caller's): tasks starting before it (ties share) */
} ebb_gr_plan;

/* Builds the preferred schedule of d. Returns 0, or -1 when no order placed every task
 * (cannot happen on an acyclic graph; kept as a check). */
int ebb_gr_build_schedule (const ebb_gr_dag *d, ebb_gr_plan *plan);

/* Machines of the virtual space for a DAG on a cluster of nnodes: as many as run all its
 * tasks at once by their dominant shares (more cannot shorten the schedule), at least 1. */
uint32_t ebb_gr_space_machines (const ebb_gr_dag *d, uint32_t nnodes);

/* Section 4.4's bypass: why d skips the offline step (EBB_GR_BYPASS_NONE: it does not). */
enum
{
  EBB_GR_BYPASS_NONE = 0,
  EBB_GR_BYPASS_SMALL, /* all its tasks fit on one machine at once */
  EBB_GR_BYPASS_CHAIN, /* its stages form a chain: no branch, no join */
};
int ebb_gr_bypass (const ebb_gr_dag *d);

/* priScore of job j's task t (not launched) under mode, an EBB_DAG_PRIO_*: the prio hook
 * of graphene (policies/graphene.c) on the online half. */
double ebb_graphene_prio (const ebb_dag_job *j, uint32_t t, int mode);

#endif
