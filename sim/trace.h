/* Traces for ebb-sim: the Hawk/Eagle format, one job per line,
 *     submission_time number_of_tasks mean_task_duration d_1 ... d_n
 * (seconds), read into flat arrays, and the synthetic generators of `ebb-sim gen`. */
#ifndef EBB_SIM_TRACE_H
#define EBB_SIM_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/rng.h"

typedef struct ebb_sim_trace
{
  uint32_t njobs, jobs_cap;
  double *submit_sec;
  double *mean_sec; /* the trace's mean task duration (the job's estimate) */
  uint32_t *ntasks;
  uint64_t *first_task; /* index of the job's first duration in dur_sec */
  uint64_t ntasks_total, dur_cap;
  double *dur_sec;
  /* JSON-lines traces only (NULL for Hawk/Eagle traces): per job. */
  int64_t *cpu_millis;   /* per-task CPU demand */
  int64_t *memory_bytes; /* per-task memory demand */
  uint8_t *klass;        /* EBB_POL_CLASS_* (0: by cutoff) */
  int32_t *priority;     /* "priority": the job's tier; NULL while every job's is 0 */
  /* DAG jobs (sim/dag.h): NULL unless a job listed "tasks" or a DAG generator ran. */
  struct ebb_sim_dag *dag;
} ebb_sim_trace;

/* Returns 1 when the trace carries demand vectors (it was read from JSON lines). */
static inline int
ebb_sim_trace_has_res (const ebb_sim_trace *t)
{
  return t->cpu_millis != NULL;
}

/* Sets job j's demand and class (turns the trace into a resource trace). */
void ebb_sim_trace_set_res (ebb_sim_trace *t, uint32_t j, int64_t cpu_millis, int64_t memory_bytes,
                            uint8_t klass);

ebb_sim_trace *ebb_sim_trace_new (void);
void ebb_sim_trace_free (ebb_sim_trace *t);

/* Appends a job; durations are copied. Returns its index. */
uint32_t ebb_sim_trace_add (ebb_sim_trace *t, double submit_sec, double mean_sec, uint32_t ntasks,
                            const double *dur_sec);

/* Reads a trace from path ("-" for stdin): the Hawk/Eagle format or JSON lines (one object
 * a line, told apart by a first character '{'; one file holds one format). Returns 0, or a
 * negative code with *err "PATH:LINE: reason" for the first malformed line. Blank lines and
 * lines starting with '#' are skipped. */
int ebb_sim_trace_read (ebb_sim_trace *t, const char *path, ebb_error **err);
/* Same, from an open stream; name is used in messages. */
int ebb_sim_trace_read_stream (ebb_sim_trace *t, FILE *f, const char *name, ebb_error **err);

/* Writes the trace in the format it was read in (JSON lines when it has demands); returns
 * 0, or -errno with *err. */
int ebb_sim_trace_write (const ebb_sim_trace *t, FILE *f, ebb_error **err);

/* Returns 1 when jobs are in non-decreasing submission order. */
int ebb_sim_trace_is_sorted (const ebb_sim_trace *t);

struct json_object;
/* Returns the first key of o not in known[0..n) (borrowed from o), or NULL: JSON-lines
 * traces refuse keys they do not know rather than ignore a typo. */
const char *ebb_sim_json_unknown_key (struct json_object *o, const char *const *known, size_t n);

/* Truncates every duration and mean to whole seconds (what the Hawk/Eagle authors'
 * simulator does when it reads a trace). */
void ebb_sim_trace_truncate (ebb_sim_trace *t);

/* One class of the heterogeneous generator (Hawk §4): a share of the jobs whose task count
 * and mean task duration are exponential around the centroid; task durations are Gaussian
 * with sd = 2 x the job's mean, negative draws redrawn. */
typedef struct ebb_sim_gen_class
{
  double share;
  double mean_tasks;
  double mean_dur_sec;
} ebb_sim_gen_class;

/* Generates the Hawk §2 scenario: share_long of njobs are 1000 tasks x 20000 s, the rest
 * 100 tasks x 100 s, Poisson arrivals with the given mean interarrival. */
void ebb_sim_gen_hawk2 (ebb_sim_trace *t, uint32_t njobs, double interarrival_sec, ebb_rng *rng);
/* Generates njobs jobs drawn from the classes (shares need not sum to 1). */
void ebb_sim_gen_hetero (ebb_sim_trace *t, uint32_t njobs, double interarrival_sec,
                         const ebb_sim_gen_class *classes, size_t nclasses, ebb_rng *rng);
/* The same jobs with the arrivals scaled so that they offer `load` x the capacity of `nodes`
 * single-slot nodes, counting the task-seconds actually drawn: the mean gap is the mean work
 * of a job over load x nodes (gen pareto's definition), so over the trace's span the
 * task-seconds are about load x nodes x span. The jobs are those ebb_sim_gen_hetero draws
 * with the same rng, the arrivals its arrivals at that mean gap. */
void ebb_sim_gen_hetero_load (ebb_sim_trace *t, uint32_t njobs, uint32_t nodes, double load,
                              const ebb_sim_gen_class *classes, size_t nclasses, ebb_rng *rng);

/* BIG-C's workloads (sim/gen-bigc.c): the Google replay of section 5.5 and the patterns of
 * section 5.2 (kind low, high or multi; returns -1 for another kind). */
void ebb_sim_gen_bigc_google (ebb_sim_trace *t, ebb_rng *rng);
int ebb_sim_gen_bigc_pattern (ebb_sim_trace *t, const char *kind, ebb_rng *rng);

/* Hopper's workloads (sim/gen-pareto.c): Pareto task durations with shape beta (mean 1 s),
 * heavy-tailed job sizes, Poisson arrivals offering `load` x the work `nodes` slots do. */
void ebb_sim_gen_pareto (ebb_sim_trace *t, uint32_t njobs, uint32_t nodes, double load, double beta,
                         ebb_rng *rng);
/* Hopper's replay of a trace (sim/gen-pareto.c): appends src's jobs to t, each with its
 * number of tasks, in src's order, durations drawn as ebb_sim_gen_pareto draws them, the
 * first arrival at 0 and every gap of src scaled by one factor so that the offered work is
 * `load` x the capacity of `nodes` slots (the mean gap is the mean work of a job over
 * load x nodes, as the Poisson generator's). Returns 0, or -EINVAL with *err when src has
 * fewer than 2 jobs, is not in arrival order or has all its jobs at one time. */
int ebb_sim_gen_pareto_replay (ebb_sim_trace *t, const ebb_sim_trace *src, uint32_t nodes,
                               double load, double beta, ebb_rng *rng, ebb_error **err);
/* `ebb-sim gen pareto ...`: argv[0] is "pareto". Returns the exit status. */
int ebb_sim_gen_pareto_main (int argc, char **argv);

/* `ebb-sim gen ...` (sim/gen.c): argv[0] is "gen". Returns the exit status. */
int ebb_sim_gen_main (int argc, char **argv);

/* What the generators' command lines share (sim/gen.c). Writes t to path (NULL: stdout) and
 * frees t; returns the exit code: 0, or 1 after "PROG: reason" on stderr. */
int ebb_sim_gen_output (ebb_sim_trace *t, const char *path, const char *prog);
/* Parses a decimal integer in [lo, hi]: no sign, not empty, nothing after it. Returns 0
 * and *out, or -1 (the caller names the option). */
int ebb_sim_gen_parse_u64 (const char *arg, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
