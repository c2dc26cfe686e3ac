/* Prometheus text exposition (format 0.0.4): the HELP/TYPE lines and single samples both
 * daemons' /metrics write, so every family is written one way. */
#ifndef EBB_PROM_H
#define EBB_PROM_H

#include <stdint.h>
#include <stdio.h>

/* "# HELP name help" and "# TYPE name type" (counter, gauge, histogram, summary); the
 * caller writes the samples. */
void ebb_prom_head (FILE *f, const char *name, const char *help, const char *type);
/* A family of one unlabelled sample. */
void ebb_prom_counter (FILE *f, const char *name, const char *help, uint64_t v);
void ebb_prom_gauge (FILE *f, const char *name, const char *help, uint64_t v);
/* ebb_build_info: a constant 1 whose labels say which build answers (Prometheus'
 * convention for version information, so dashboards can join on it). */
void ebb_prom_build_info (FILE *f, const char *program);

/* A histogram with fixed buckets: cumulative _bucket{le=...} series, _sum and _count, which
 * (unlike a summary) Prometheus can aggregate across instances and time. */
#define EBB_PROM_HIST_MAX_BUCKETS 24

typedef struct ebb_prom_hist
{
  const double *bounds; /* ascending upper bounds; NULL means ebb_prom_latency_bounds_sec */
  unsigned n_bounds;
  uint64_t counts[EBB_PROM_HIST_MAX_BUCKETS + 1]; /* counts[n_bounds] is +Inf */
  uint64_t n;
  double sum;
} ebb_prom_hist;

/* 100 us to 10 s: the default buckets of a zeroed ebb_prom_hist. */
#define EBB_PROM_LATENCY_BUCKETS 16
extern const double ebb_prom_latency_bounds_sec[EBB_PROM_LATENCY_BUCKETS];

/* Sets h to empty with bounds (n of them, at most EBB_PROM_HIST_MAX_BUCKETS; more are
 * ignored); bounds must outlive h. */
void ebb_prom_hist_init (ebb_prom_hist *h, const double *bounds, unsigned n);
/* Adds one observation of v (in the family's unit). */
void ebb_prom_hist_observe (ebb_prom_hist *h, double v);
/* Returns the upper bound of the bucket holding the q-quantile (0..1), +Inf as 1e9, 0 when
 * empty. */
double ebb_prom_hist_quantile (const ebb_prom_hist *h, double q);
/* The family: HELP/TYPE histogram, cumulative buckets, +Inf, _sum, _count. */
void ebb_prom_histogram (FILE *f, const char *name, const char *help, const ebb_prom_hist *h);

/* The process_* families of Prometheus' client libraries for the calling process:
 * process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_open_fds, process_max_fds, process_start_time_seconds. proc_dir is where procfs
 * is mounted ("/proc"; tests pass a fake tree). A family whose file cannot be read is left
 * out, so a scrape never carries a made-up value. Returns how many families it wrote. */
int ebb_prom_process (FILE *f, const char *proc_dir);

#endif
