/* Reports of ebb-sim. */
#include "config.h"

#include "sim/report.h"
#include "sim/dag.h"
#include "lib/util.h"

#include <errno.h>
#include <math.h>
#include <string.h>

int
ebb_sim_cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double
ebb_sim_percentile (const double *sorted, uint64_t n, double p)
{
  if (n == 0)
    return 0;
  uint64_t rank = (uint64_t)ceil (p / 100.0 * n);
  return sorted[rank ? rank - 1 : 0];
}

static void
class_stats (double *v, uint64_t n, ebb_sim_class_stats *s)
{
  memset (s, 0, sizeof *s);
  s->count = n;
  if (n == 0)
    return;
  qsort (v, n, sizeof *v, ebb_sim_cmp_double);
  double sum = 0;
  for (uint64_t i = 0; i < n; i++)
    sum += v[i];
  s->mean_sec = sum / n;
  double sq = 0;
  for (uint64_t i = 0; i < n; i++)
    sq += (v[i] - s->mean_sec) * (v[i] - s->mean_sec);
  s->cov = s->mean_sec > 0 ? sqrt (sq / n) / s->mean_sec : 0;
  s->p95_sec = ebb_sim_percentile (v, n, 95);
  s->p50_sec = ebb_sim_percentile (v, n, 50);
  s->p90_sec = ebb_sim_percentile (v, n, 90);
  s->p99_sec = ebb_sim_percentile (v, n, 99);
}

/* The p90 of what short jobs would take with no waiting at all: the longest task plus the
 * probe's delay and the late-binding round trip (3 one-way delays). Overwrites scratch. */
static double
short_bound_p90 (const ebb_sim_report *r, double *scratch)
{
  const ebb_sim_trace *t = r->trace;
  uint64_t ns = 0;
  for (uint32_t j = 0; j < t->njobs; j++)
    {
      /* The same classes as the runtime figures: the trace's class when it has one. */
      int is_long = t->mean_sec[j] >= r->report_cutoff_sec;
      if (t->klass && t->klass[j])
        is_long = t->klass[j] == EBB_POL_CLASS_LONG;
      if (is_long || (r->res->failed && r->res->failed[j]))
        continue;
      double longest = 0;
      for (uint32_t k = 0; k < t->ntasks[j]; k++)
        if (t->dur_sec[t->first_task[j] + k] > longest)
          longest = t->dur_sec[t->first_task[j] + k];
      scratch[ns++] = longest + 3 * r->cfg->pol.net_delay_sec;
    }
  if (ns == 0)
    return 0;
  qsort (scratch, ns, sizeof *scratch, ebb_sim_cmp_double);
  return ebb_sim_percentile (scratch, ns, 90);
}

void
ebb_sim_class_stats_compute (const ebb_sim_report *r, ebb_sim_class_stats *shrt,
                             ebb_sim_class_stats *lng)
{
  uint32_t n = r->res->njobs;
  cleanup_free double *sv = ebb_xmalloc ((size_t)n * sizeof (double) + 1);
  cleanup_free double *lv = ebb_xmalloc ((size_t)n * sizeof (double) + 1);
  uint64_t ns = 0, nl = 0, fs = 0, fl = 0;
  for (uint32_t j = 0; j < n; j++)
    {
      int is_long = r->trace->mean_sec[j] >= r->report_cutoff_sec;
      if (r->trace->klass && r->trace->klass[j])
        is_long = r->trace->klass[j] == EBB_POL_CLASS_LONG;
      if (r->res->failed && r->res->failed[j])
        *(is_long ? &fl : &fs) += 1;
      else if (is_long)
        lv[nl++] = r->res->runtime_sec[j];
      else
        sv[ns++] = r->res->runtime_sec[j];
    }
  class_stats (sv, ns, shrt);
  class_stats (lv, nl, lng);
  shrt->failed = fs;
  lng->failed = fl;
  shrt->bound_p90_sec = short_bound_p90 (r, sv);
}

/* Median and maximum of the utilization snapshots (0 when there are none). */
static void
util_stats (const ebb_sim_result *res, double *p50, double *max)
{
  *p50 = *max = 0;
  if (res->nutil == 0)
    return;
  cleanup_free double *v = ebb_xmalloc (res->nutil * sizeof *v);
  memcpy (v, res->util_samples, res->nutil * sizeof *v);
  qsort (v, res->nutil, sizeof *v, ebb_sim_cmp_double);
  *p50 = ebb_sim_percentile (v, res->nutil, 50);
  *max = v[res->nutil - 1];
}

static void
json_class (FILE *f, const char *name, const ebb_sim_class_stats *s)
{
  fprintf (f,
           "\"%s\":{\"count\":%llu,\"mean\":%.3f,\"p50\":%.3f,\"p90\":%.3f,\"p95\":%.3f,"
           "\"p99\":%.3f,\"cov\":%.4f,\"failed\":%llu",
           name, (unsigned long long)s->count, s->mean_sec, s->p50_sec, s->p90_sec, s->p95_sec,
           s->p99_sec, s->cov, (unsigned long long)s->failed);
  if (strcmp (name, "short") == 0)
    fprintf (f, ",\"bound_p90\":%.3f", s->bound_p90_sec);
  fputc ('}', f);
}

/* Prints a finite double as JSON (infinity becomes null). */
static void
json_num (FILE *f, const char *key, double v)
{
  if (isfinite (v))
    fprintf (f, ",\"%s\":%.6g", key, v);
  else
    fprintf (f, ",\"%s\":null", key);
}

static void json_preemption (FILE *f, const ebb_sim_report *r);

/* The figures over every job, whatever its class (failed jobs left out). */
static void
json_all (FILE *f, const ebb_sim_report *r)
{
  uint32_t n = r->res->njobs;
  cleanup_free double *v = ebb_xmalloc ((size_t)n * sizeof (double) + 1);
  uint64_t k = 0, failed = 0;
  for (uint32_t j = 0; j < n; j++)
    if (r->res->failed && r->res->failed[j])
      failed++;
    else
      v[k++] = r->res->runtime_sec[j];
  ebb_sim_class_stats a;
  class_stats (v, k, &a);
  a.failed = failed;
  fputc (',', f);
  json_class (f, "all", &a);
}

void
ebb_sim_print_json (FILE *f, const ebb_sim_report *r, int volatile_fields)
{
  ebb_sim_class_stats s, l;
  const ebb_sim_result *res = r->res;
  const ebb_pol_params *p = &r->cfg->pol;
  ebb_sim_class_stats_compute (r, &s, &l);
  fputc ('{', f);
  json_class (f, "short", &s);
  fputc (',', f);
  json_class (f, "long", &l);
  json_all (f, r);
  if (res->speculation)
    fprintf (f, ",\"speculative_copies\":%llu", (unsigned long long)res->speculative_copies);
  double up50, umax;
  util_stats (res, &up50, &umax);
  fprintf (f,
           ",\"utilization\":%.6f,\"utilization_p50\":%.4f,\"utilization_max\":%.4f,"
           "\"events\":%llu",
           res->utilization, up50, umax, (unsigned long long)res->events);
  if (volatile_fields)
    fprintf (f,
             ",\"wall_seconds\":%.3f,\"engine_seconds\":%.3f,\"peak_rss_bytes\":%ld,"
             "\"events_per_second\":%.0f",
             r->wall_seconds > 0 ? r->wall_seconds : res->wall_seconds, res->wall_seconds,
             r->peak_rss_bytes, res->wall_seconds > 0 ? res->events / res->wall_seconds : 0.0);
  fprintf (f, ",\"policy\":\"%s\",\"nodes\":%u,\"jobs\":%u,\"tasks\":%llu", r->cfg->policy,
           p->nnodes, res->njobs, (unsigned long long)res->tasks);
  json_num (f, "cutoff", p->cutoff_sec);
  json_num (f, "report_cutoff", r->report_cutoff_sec);
  json_num (f, "net_delay", p->net_delay_sec);
  json_num (f, "probe_ratio", p->probe_ratio);
  json_num (f, "short_partition_pct", p->short_part_pct);
  fprintf (f,
           ",\"steal_cap\":%u,\"seed\":%llu,\"cancel_probes\":%s,\"sample\":\"%s\","
           "\"truncate\":%s,\"no_steal\":%s,\"no_partition\":%s,\"no_central\":%s",
           p->steal_cap, (unsigned long long)p->seed, p->cancel_probes ? "true" : "false",
           p->sample_replacement ? "with-replacement" : "without-replacement",
           r->truncate ? "true" : "false", p->no_steal ? "true" : "false",
           p->no_partition ? "true" : "false", p->no_central ? "true" : "false");
  fprintf (f, ",\"makespan\":%.3f,\"probes_sent\":%llu,\"probes_surplus\":%llu",
           res->end_sec - res->start_sec, (unsigned long long)res->pol.probes_sent,
           (unsigned long long)res->pol.probes_surplus);
  fprintf (f,
           ",\"probes_cancelled\":%llu,\"steal_attempts\":%llu,\"steals\":%llu,"
           "\"probes_stolen\":%llu,\"rotations\":%llu",
           (unsigned long long)res->pol.probes_cancelled,
           (unsigned long long)res->pol.steal_attempts, (unsigned long long)res->pol.steals,
           (unsigned long long)res->pol.probes_stolen, (unsigned long long)res->pol.rotations);
  if (res->resources)
    json_preemption (f, r);
  if (res->dag)
    ebb_sim_dag_print_json (f, r);
  fputs ("}\n", f);
}

/* The p50, mean and max length of the preemptions ended by a RESUME (0 when none). */
static void
preempt_stats (const ebb_sim_result *res, double *p50, double *mean, double *max)
{
  *p50 = *mean = *max = 0;
  if (res->npreempt == 0)
    return;
  cleanup_free double *v = ebb_xmalloc (res->npreempt * sizeof *v);
  memcpy (v, res->preempt_sec, res->npreempt * sizeof *v);
  qsort (v, res->npreempt, sizeof *v, ebb_sim_cmp_double);
  double sum = 0;
  for (uint32_t i = 0; i < res->npreempt; i++)
    sum += v[i];
  *p50 = ebb_sim_percentile (v, res->npreempt, 50);
  *mean = sum / res->npreempt;
  *max = v[res->npreempt - 1];
}

/* The preemption counters (resource mode): appended before the closing brace. */
static void
json_preemption (FILE *f, const ebb_sim_report *r)
{
  const ebb_sim_result *res = r->res;
  double span = res->end_sec - res->start_sec;
  double p50, mean, max;
  preempt_stats (res, &p50, &mean, &max);
  fprintf (f,
           ",\"preemptions_resumed\":%u,\"preempted_p50_sec\":%.3f,\"preempted_mean_sec\":%.3f,"
           "\"preempted_max_sec\":%.3f",
           res->npreempt, p50, mean, max);
  fprintf (f,
           ",\"suspends\":%llu,\"resumes\":%llu,\"kills\":%llu,\"gp_steps\":%llu,"
           "\"frozen\":%llu,\"failed_jobs\":%llu,\"util_above_80_share\":%.4f",
           (unsigned long long)res->pol.suspends, (unsigned long long)res->pol.resumes,
           (unsigned long long)res->pol.kills, (unsigned long long)res->pol.gp_steps,
           (unsigned long long)res->pol.frozen, (unsigned long long)res->pol.failed_jobs,
           span > 0 ? res->util_above_80_sec / span : 0.0);
}

void
ebb_sim_print_table (FILE *f, const ebb_sim_report *r)
{
  ebb_sim_class_stats s, l;
  const ebb_sim_result *res = r->res;
  ebb_sim_class_stats_compute (r, &s, &l);
  fprintf (f, "policy %s, %u nodes, %u jobs, %llu tasks, trace %s\n", r->cfg->policy,
           r->cfg->pol.nnodes, res->njobs, (unsigned long long)res->tasks,
           r->trace_name ? r->trace_name : "-");
  fprintf (f, "%-6s %8s %12s %12s %12s %12s\n", "class", "count", "mean", "p50", "p90", "p99");
  const ebb_sim_class_stats *c[2] = { &s, &l };
  const char *name[2] = { "short", "long" };
  for (int i = 0; i < 2; i++)
    fprintf (f, "%-6s %8llu %12.3f %12.3f %12.3f %12.3f\n", name[i],
             (unsigned long long)c[i]->count, c[i]->mean_sec, c[i]->p50_sec, c[i]->p90_sec,
             c[i]->p99_sec);
  fprintf (f, "job runtime in seconds (last task finish - submission)\n");
  double up50, umax;
  util_stats (res, &up50, &umax);
  if (res->nutil)
    fprintf (f, "utilization snapshots: %u, median %.4f, max %.4f\n", res->nutil, up50, umax);
  fprintf (
      f,
      "utilization %.4f, makespan %.1f s, %llu events in %.3f s of engine time (%.0f events/s)\n",
      res->utilization, res->end_sec - res->start_sec, (unsigned long long)res->events,
      res->wall_seconds, res->wall_seconds > 0 ? res->events / res->wall_seconds : 0.0);
  fprintf (f,
           "probes %llu sent, %llu surplus, %llu cancelled; steals %llu of %llu attempts "
           "(%llu probes)\n",
           (unsigned long long)res->pol.probes_sent, (unsigned long long)res->pol.probes_surplus,
           (unsigned long long)res->pol.probes_cancelled, (unsigned long long)res->pol.steals,
           (unsigned long long)res->pol.steal_attempts, (unsigned long long)res->pol.probes_stolen);
  if (res->resources)
    fprintf (f,
             "preemption: %llu suspends, %llu resumes, %llu kills, %llu gp steps, %llu frozen; "
             "failed jobs %llu short, %llu long; utilization above 80%% for %.1f%% of the time\n",
             (unsigned long long)res->pol.suspends, (unsigned long long)res->pol.resumes,
             (unsigned long long)res->pol.kills, (unsigned long long)res->pol.gp_steps,
             (unsigned long long)res->pol.frozen, (unsigned long long)s.failed,
             (unsigned long long)l.failed,
             res->end_sec > res->start_sec
                 ? 100.0 * res->util_above_80_sec / (res->end_sec - res->start_sec)
                 : 0.0);
  if (res->resources && res->npreempt)
    {
      double p50, mean, max;
      preempt_stats (res, &p50, &mean, &max);
      fprintf (f,
               "preempted (first SUSPEND to RESUME decision): %u resumed, p50 %.3f s, mean %.3f "
               "s, max %.3f s\n",
               res->npreempt, p50, mean, max);
    }
}

int
ebb_sim_write_util_csv (const char *path, const ebb_sim_report *r, ebb_error **err)
{
  cleanup_fclose FILE *f = fopen (path, "we");
  if (!f)
    return ebb_error_set_errno (err, errno, "open %s", path);
  fprintf (f, "time,utilization\n");
  for (uint32_t i = 0; i < r->res->nutil; i++)
    fprintf (f, "%.3f,%.6f\n", r->res->start_sec + i * r->cfg->util_interval_sec,
             r->res->util_samples[i]);
  if (fflush (f) != 0 || ferror (f))
    return ebb_error_set_errno (err, errno ? errno : EIO, "write %s", path);
  return 0;
}

int
ebb_sim_write_jobs_csv (const char *path, const ebb_sim_report *r, ebb_error **err)
{
  cleanup_fclose FILE *f = fopen (path, "we");
  if (!f)
    return ebb_error_set_errno (err, errno, "open %s", path);
  const ebb_sim_trace *t = r->trace;
  fprintf (f, "job,submit,ntasks,mean_task,class,finish,runtime\n");
  for (uint32_t j = 0; j < t->njobs; j++)
    fprintf (f, "%u,%.4f,%u,%.4f,%s,%.4f,%.4f\n", j, t->submit_sec[j], t->ntasks[j], t->mean_sec[j],
             (t->klass && t->klass[j] ? t->klass[j] == EBB_POL_CLASS_LONG
                                      : t->mean_sec[j] >= r->report_cutoff_sec)
                 ? "long"
                 : "short",
             r->res->finish_sec[j], r->res->runtime_sec[j]);
  if (fflush (f) != 0 || ferror (f))
    return ebb_error_set_errno (err, errno ? errno : EIO, "write %s", path);
  return 0;
}
