/* DAG jobs in ebb-sim traces (Graphene's workloads): a JSON-lines job may list its tasks as
 * objects with their own demand vectors (CPU, memory, network) and stage, and the
 * dependency edges between them:
 *   {"submit":0,"tasks":[{"duration":5,"cpu_millis":1000,"memory_bytes":1073741824,
 *     "net_mbps":100,"stage":0},...],"deps":[[0,2],[1,2]]}
 * A cycle is refused with its line. The engine hands every job to a DAG policy as an
 * ebb_pol_dag (sim_dag_prepare) and checks, at every task start, that its parents ended. */
#ifndef EBB_SIM_DAG_H
#define EBB_SIM_DAG_H

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"
#include "policies/dag.h"
#include "policies/policy.h"

struct ebb_sim_trace;

/* What a trace holds beyond the Hawk/JSON job: per-task vectors and edges of DAG jobs. */
typedef struct ebb_sim_dag
{
  uint32_t jobs_cap;
  uint8_t *is_dag;      /* per job: listed with "tasks" */
  uint64_t *edge_first; /* per job: index of its first edge (pair) in edges */
  uint32_t *nedges;     /* per job */
  uint32_t *edges;      /* pairs (parent, child) of task indices inside the job */
  uint64_t nedges_total, edges_cap;
  int64_t *demand; /* per task (trace's global task index): EBB_DAG_NRES values */
  uint32_t *stage; /* per task */
  uint64_t tasks_cap;
} ebb_sim_dag;

void ebb_sim_dag_free (ebb_sim_dag *d);

/* Parses a JSON-lines job that has a "tasks" array (keys id, submit, est, class, tasks,
 * deps) and appends it to t. Returns 0, or -EBB_EPARSE with *err "NAME:LINE: reason". */
int ebb_sim_dag_parse_json (struct ebb_sim_trace *t, struct json_object *o, const char *name,
                            size_t lineno, ebb_error **err);

/* Appends a DAG job built by a generator: n tasks with durations, demand (n x
 * EBB_DAG_NRES), stages and nedges edges. The caller guarantees it is acyclic. */
uint32_t ebb_sim_dag_add (struct ebb_sim_trace *t, double submit_sec, uint8_t klass, uint32_t n,
                          const double *dur_sec, const int64_t *demand, const uint32_t *stage,
                          uint32_t nedges, const uint32_t *edges);

/* Returns 1 when job j of t is a DAG job. */
int ebb_sim_dag_is_dag (const struct ebb_sim_trace *t, uint32_t j);

/* Writes DAG job j as one JSON line. */
void ebb_sim_dag_write_job (const struct ebb_sim_trace *t, uint32_t j, FILE *f);

/* Per-run view for a DAG policy: one ebb_pol_dag per job (jobs without "tasks" become
 * edge-less DAGs of their job's demand, one stage) and every task's parents. */
typedef struct ebb_sim_dag_run
{
  ebb_pol_dag *dags;
  int64_t *demand;   /* per task, all jobs */
  uint32_t *stage;   /* per task */
  uint64_t *par_off; /* per task + 1, into par */
  uint32_t *par;     /* parents (task index inside the job) */
  uint8_t *done;     /* per task: finished */
  uint64_t violations;
} ebb_sim_dag_run;

void ebb_sim_dag_prepare (const struct ebb_sim_trace *t, ebb_sim_dag_run *run);
void ebb_sim_dag_run_free (ebb_sim_dag_run *run);
/* A task starts: counts a violation when one of its parents has not finished. */
void ebb_sim_dag_started (ebb_sim_dag_run *run, const struct ebb_sim_trace *t, uint32_t job,
                          uint32_t task);
static inline void
ebb_sim_dag_finished (ebb_sim_dag_run *run, uint64_t global_task)
{
  run->done[global_task] = 1;
}

/* The widest input stage `ebb-sim gen dag` draws by default (--max-width): set by the speed
 * budget of the 10,000-job run, not by the paper (whose median DAG has hundreds to
 * thousands of tasks). */
#define EBB_SIM_DAG_MAX_WIDTH 48
/* Graphene-style synthetic DAG jobs (sim/gen-dag.c): njobs jobs, Poisson arrivals offering
 * `load` x nodes of dominant-share work; cap is a node's capacity (EBB_DAG_NRES values);
 * input stages have 1 to max_width tasks (log-uniform). */
void ebb_sim_gen_dag (struct ebb_sim_trace *t, uint32_t njobs, uint32_t nodes, double load,
                      const int64_t *cap, uint32_t max_width, ebb_rng *rng);
/* `ebb-sim gen dag ...`: argv[0] is "dag". Returns the exit status. */
int ebb_sim_gen_dag_main (int argc, char **argv);

/* Appends the "dag" member of ebb-sim's JSON object: job completion time over all jobs
 * (mean, p50, p75, p90), makespan, precedence violations and the policy's unfairness
 * bound (kappa) against the largest deficit counter seen, both in units of the cluster. */
struct ebb_sim_report;
void ebb_sim_dag_print_json (FILE *f, const struct ebb_sim_report *r);

#endif
