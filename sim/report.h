/* Reports of ebb-sim: per-class job runtime statistics, the table, the JSON object and the
 * per-job CSV. */
#ifndef EBB_SIM_REPORT_H
#define EBB_SIM_REPORT_H

#include <stdio.h>

#include "sim/engine.h"

typedef struct ebb_sim_class_stats
{
  uint64_t count;
  double mean_sec, p50_sec, p90_sec, p99_sec;
  double p95_sec;
  double cov;           /* coefficient of variation of the runtime (sd / mean) */
  uint64_t failed;      /* jobs the policy failed (excluded from the figures above) */
  double bound_p90_sec; /* short only: p90 of the zero-wait runtime (ebb policy's yardstick) */
} ebb_sim_class_stats;

typedef struct ebb_sim_report
{
  const ebb_sim_config *cfg;
  const ebb_sim_trace *trace;
  const ebb_sim_result *res;
  double report_cutoff_sec; /* mean task duration >= this: long */
  const char *trace_name;
  int truncate;
  long peak_rss_bytes;
  double wall_seconds; /* whole run including trace loading; 0: the engine's time */
} ebb_sim_report;

/* Computes the statistics of the short and long classes (nearest-rank percentiles). A job's
 * class is the trace's when it names one (JSON lines), else by report_cutoff_sec. Failed
 * jobs are counted apart and left out of the runtime figures (as BIG-C reports them). */
void ebb_sim_class_stats_compute (const ebb_sim_report *r, ebb_sim_class_stats *shrt,
                                  ebb_sim_class_stats *lng);
/* Prints the JSON object (one line). volatile_fields = 0 leaves out wall_seconds,
 * peak_rss_bytes and events_per_second, the only values that differ between identical
 * runs. */
void ebb_sim_print_json (FILE *f, const ebb_sim_report *r, int volatile_fields);
void ebb_sim_print_table (FILE *f, const ebb_sim_report *r);
/* Writes one line per job; returns 0, or -errno with *err. */
int ebb_sim_write_jobs_csv (const char *path, const ebb_sim_report *r, ebb_error **err);

/* Writes the utilization snapshots (time,utilization); returns 0, or -errno with *err. */
int ebb_sim_write_util_csv (const char *path, const ebb_sim_report *r, ebb_error **err);

/* qsort comparator of doubles, ascending. */
int ebb_sim_cmp_double (const void *a, const void *b);
/* Nearest rank: the smallest value of sorted[0..n) with at least p% of the sample at or
 * below it; 0 for an empty sample. */
double ebb_sim_percentile (const double *sorted, uint64_t n, double p);

#endif
