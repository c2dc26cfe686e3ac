/* DAG jobs (Graphene, OSDI 2016): what an environment tells a DAG policy about a job (task
 * durations, per-task demand vectors over three resources, stages and dependency edges) and
 * the graph helpers every DAG policy shares (CSR adjacency, topological order, cycle check,
 * critical-path lengths). */
#ifndef EBB_POLICY_DAG_H
#define EBB_POLICY_DAG_H

#include <stdint.h>

/* The resources of a DAG task's demand vector, in this order. */
enum
{
  EBB_DAG_CPU = 0, /* millicores */
  EBB_DAG_MEM,     /* bytes */
  EBB_DAG_NET,     /* Mbit/s of network bandwidth */
  EBB_DAG_NRES,
};

/* One job as a DAG; the arrays belong to the environment and outlive the policy. */
typedef struct ebb_pol_dag
{
  uint32_t ntasks;
  uint32_t nedges;
  const double *dur_sec; /* per task: duration estimate */
  const int64_t *demand; /* per task: EBB_DAG_NRES values */
  const uint32_t *stage; /* per task: stage number (NULL: each task is its own stage) */
  const uint32_t *edges; /* nedges pairs (parent, child) of task indices */
} ebb_pol_dag;

/* Adjacency in both directions (CSR) and a topological order. */
typedef struct ebb_dag_graph
{
  uint32_t n;
  uint32_t *par_off, *par; /* parents of t: par[par_off[t] .. par_off[t + 1]) */
  uint32_t *chi_off, *chi; /* children, likewise */
  uint32_t *topo;          /* every parent before its children */
} ebb_dag_graph;

/* Builds g over n tasks from nedges (parent, child) pairs. Returns 0; -1 when an edge names
 * a task >= n (*bad = the edge's index); -2 when the edges form a cycle (*bad = a task on
 * one, the lowest index among them). g is left empty on error. */
int ebb_dag_graph_build (ebb_dag_graph *g, uint32_t n, const uint32_t *edges, uint32_t nedges,
                         uint32_t *bad);
void ebb_dag_graph_free (ebb_dag_graph *g);

/* Critical-path length of every task: its duration plus the longest chain of durations
 * below it (the time from its start to the job's output with infinite parallelism). */
void ebb_dag_cp_length (const ebb_dag_graph *g, const double *dur_sec, double *cp);

#endif
