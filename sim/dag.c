/* DAG jobs in ebb-sim traces: parsing, writing, and the per-run view the engine gives a
 * DAG policy. */
#include "config.h"

#include "sim/dag.h"
#include "sim/report.h"
#include "lib/json.h"
#include "lib/util.h"
#include "sim/trace.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void
ebb_sim_dag_free (ebb_sim_dag *d)
{
  if (!d)
    return;
  free (d->is_dag);
  free (d->edge_first);
  free (d->nedges);
  free (d->edges);
  free (d->demand);
  free (d->stage);
  free (d);
}

/* Grows the per-job arrays to the trace's and the per-task arrays to need tasks. */
static ebb_sim_dag *
dag_reserve (ebb_sim_trace *t, uint64_t tasks_need, uint64_t edges_need)
{
  if (!t->dag)
    t->dag = ebb_xcalloc (1, sizeof *t->dag);
  ebb_sim_dag *d = t->dag;
  if (d->jobs_cap < t->jobs_cap)
    {
      uint32_t old = d->jobs_cap, cap = t->jobs_cap;
      d->is_dag = ebb_xrealloc (d->is_dag, cap);
      memset (d->is_dag + old, 0, cap - old);
      d->edge_first = ebb_xrealloc (d->edge_first, cap * sizeof *d->edge_first);
      d->nedges = ebb_xrealloc (d->nedges, cap * sizeof *d->nedges);
      d->jobs_cap = cap;
    }
  if (d->tasks_cap < tasks_need)
    {
      uint64_t cap = ebb_grow_cap (d->tasks_cap, 4096, tasks_need);
      d->demand = ebb_xrealloc (d->demand, cap * EBB_DAG_NRES * sizeof *d->demand);
      d->stage = ebb_xrealloc (d->stage, cap * sizeof *d->stage);
      d->tasks_cap = cap;
    }
  if (d->edges_cap < edges_need)
    {
      uint64_t cap = ebb_grow_cap (d->edges_cap, 4096, edges_need);
      d->edges = ebb_xrealloc (d->edges, cap * 2 * sizeof *d->edges);
      d->edges_cap = cap;
    }
  return d;
}

uint32_t
ebb_sim_dag_add (ebb_sim_trace *t, double submit_sec, uint8_t klass, uint32_t n,
                 const double *dur_sec, const int64_t *demand, const uint32_t *stage,
                 uint32_t nedges, const uint32_t *edges)
{
  double sum = 0;
  int64_t cpu = 1, mem = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      sum += dur_sec[i];
      if (demand[i * EBB_DAG_NRES + EBB_DAG_CPU] > cpu)
        cpu = demand[i * EBB_DAG_NRES + EBB_DAG_CPU];
      if (demand[i * EBB_DAG_NRES + EBB_DAG_MEM] > mem)
        mem = demand[i * EBB_DAG_NRES + EBB_DAG_MEM];
    }
  uint32_t j = ebb_sim_trace_add (t, submit_sec, n ? sum / n : 0, n, dur_sec);
  /* The job's vector is the largest task's in each resource: what the engine checks fits a
   * node and what the per-job reports show. */
  ebb_sim_trace_set_res (t, j, cpu, mem, klass);
  uint64_t first = t->first_task[j];
  ebb_sim_dag *d = dag_reserve (t, first + n, t->dag ? t->dag->nedges_total + nedges : nedges);
  d->is_dag[j] = 1;
  memcpy (d->demand + first * EBB_DAG_NRES, demand, (size_t)n * EBB_DAG_NRES * sizeof *demand);
  for (uint32_t i = 0; i < n; i++)
    d->stage[first + i] = stage ? stage[i] : i;
  d->edge_first[j] = d->nedges_total;
  d->nedges[j] = nedges;
  if (nedges)
    memcpy (d->edges + 2 * d->nedges_total, edges, (size_t)nedges * 2 * sizeof *edges);
  d->nedges_total += nedges;
  return j;
}

int
ebb_sim_dag_is_dag (const ebb_sim_trace *t, uint32_t j)
{
  return t->dag && j < t->dag->jobs_cap && t->dag->is_dag[j];
}

/* Reads an integer member in [min, max] of a task object; returns 1 found, 0 absent, -1. */
static int
task_int (struct json_object *o, const char *key, int64_t min, int64_t max, int64_t *out,
          ebb_error **e)
{
  return ebb_json_get_int64 (o, key, min, max, out, e);
}

/* Parses "tasks" into the arrays; returns the task count, or 0 with *e set. */
static uint32_t
parse_tasks (struct json_object *arr, double **dur, int64_t **dem, uint32_t **stage, ebb_error **e)
{
  if (!json_object_is_type (arr, json_type_array) || json_object_array_length (arr) == 0
      || json_object_array_length (arr) > 10000000)
    {
      ebb_error_set (e, EBB_EPARSE, "tasks must be a non-empty array");
      return 0;
    }
  uint32_t n = (uint32_t)json_object_array_length (arr);
  *dur = ebb_xmalloc (n * sizeof **dur);
  *dem = ebb_xmalloc ((size_t)n * EBB_DAG_NRES * sizeof **dem);
  *stage = ebb_xmalloc (n * sizeof **stage);
  static const char *const known[]
      = { "duration", "cpu_millis", "memory_bytes", "net_mbps", "stage" };
  for (uint32_t i = 0; i < n; i++)
    {
      struct json_object *x = json_object_array_get_idx (arr, i);
      if (!json_object_is_type (x, json_type_object))
        {
          ebb_error_set (e, EBB_EPARSE, "task %u is not an object", i);
          return 0;
        }
      const char *unknown = ebb_sim_json_unknown_key (x, known, EBB_ARRAY_SIZE (known));
      if (unknown)
        {
          ebb_error_set (e, EBB_EPARSE, "task %u: unknown key '%.40s'", i, unknown);
          return 0;
        }
      int64_t *v = *dem + (size_t)i * EBB_DAG_NRES, st = i;
      int got[4];
      ebb_error *sub = NULL;
      if ((got[0] = ebb_json_get_double (x, "duration", 0, 1e12, &(*dur)[i], &sub)) < 0
          || (got[1] = task_int (x, "cpu_millis", 1, INT64_C (1) << 40, &v[EBB_DAG_CPU], &sub)) < 0
          || (got[2] = task_int (x, "memory_bytes", 0, INT64_C (1) << 56, &v[EBB_DAG_MEM], &sub))
                 < 0
          || (got[3] = task_int (x, "net_mbps", 0, INT64_C (1) << 40, &v[EBB_DAG_NET], &sub)) < 0
          || task_int (x, "stage", 0, UINT32_MAX - 1, &st, &sub) < 0)
        {
          ebb_error_set (e, EBB_EPARSE, "task %u: %s", i, ebb_error_msg (&sub));
          ebb_error_free (&sub);
          return 0;
        }
      static const char *const need[] = { "duration", "cpu_millis", "memory_bytes" };
      for (int k = 0; k < 3; k++)
        if (!got[k])
          {
            ebb_error_set (e, EBB_EPARSE, "task %u: %s is required", i, need[k]);
            return 0;
          }
      if (!got[3])
        v[EBB_DAG_NET] = 0;
      (*stage)[i] = (uint32_t)st;
    }
  return n;
}

int
ebb_sim_dag_parse_json (ebb_sim_trace *t, struct json_object *o, const char *name, size_t lineno,
                        ebb_error **err)
{
  static const char *const known[] = { "id", "submit", "est", "class", "tasks", "deps" };
  ebb_error *e = NULL;
  cleanup_free double *dur = NULL;
  cleanup_free int64_t *dem = NULL;
  cleanup_free uint32_t *stage = NULL, *edges = NULL;
  const char *unknown = ebb_sim_json_unknown_key (o, known, EBB_ARRAY_SIZE (known));
  if (unknown)
    {
      ebb_error_set (&e, EBB_EPARSE, "unknown key '%.40s' in a job with tasks", unknown);
      goto fail;
    }
  const char *id = NULL, *klass = NULL;
  double submit = 0, est = 0;
  int got, got_est;
  if (ebb_json_get_string (o, "id", 256, NULL, &id, &e) < 0
      || (got = ebb_json_get_double (o, "submit", 0, 1e12, &submit, &e)) < 0
      || (got == 0 && (ebb_error_set (&e, EBB_EPARSE, "submit is required"), 1))
      || (got_est = ebb_json_get_double (o, "est", 0, 1e12, &est, &e)) < 0
      || ebb_json_get_string (o, "class", 16, NULL, &klass, &e) < 0)
    goto fail;
  uint8_t cls = EBB_POL_CLASS_BY_CUTOFF;
  if (klass && strcmp (klass, "short") == 0)
    cls = EBB_POL_CLASS_SHORT;
  else if (klass && strcmp (klass, "long") == 0)
    cls = EBB_POL_CLASS_LONG;
  else if (klass)
    {
      ebb_error_set (&e, EBB_EPARSE, "class must be \"short\" or \"long\"");
      goto fail;
    }
  struct json_object *tasks, *deps = NULL;
  json_object_object_get_ex (o, "tasks", &tasks);
  json_object_object_get_ex (o, "deps", &deps);
  uint32_t n = parse_tasks (tasks, &dur, &dem, &stage, &e), nedges;
  if (n == 0 || ebb_json_parse_edges (deps, n, 100000000, &edges, &nedges, &e) < 0)
    goto fail;
  ebb_dag_graph g;
  uint32_t bad;
  if (ebb_dag_graph_build (&g, n, edges, nedges, &bad) < 0)
    {
      ebb_error_set (&e, EBB_EPARSE, "deps form a cycle through task %u", bad);
      goto fail;
    }
  ebb_dag_graph_free (&g);
  uint32_t j = ebb_sim_dag_add (t, submit, cls, n, dur, dem, stage, nedges, edges);
  if (got_est)
    t->mean_sec[j] = est;
  return 0;
fail:
  ebb_error_set (err, EBB_EPARSE, "%s:%zu: %s", name, lineno, ebb_error_msg (&e));
  ebb_error_free (&e);
  return -EBB_EPARSE;
}

void
ebb_sim_dag_write_job (const ebb_sim_trace *t, uint32_t j, FILE *f)
{
  static const char *const cls[] = { "", ",\"class\":\"short\"", ",\"class\":\"long\"" };
  const ebb_sim_dag *d = t->dag;
  fprintf (f, "{\"id\":\"j%u\",\"submit\":%.3f,\"est\":%.3f%s,\"tasks\":[", j + 1, t->submit_sec[j],
           t->mean_sec[j], cls[t->klass[j] <= 2 ? t->klass[j] : 0]);
  uint64_t first = t->first_task[j];
  for (uint32_t i = 0; i < t->ntasks[j]; i++)
    {
      const int64_t *v = d->demand + (first + i) * EBB_DAG_NRES;
      fprintf (f,
               "%s{\"duration\":%.3f,\"cpu_millis\":%" PRId64 ",\"memory_bytes\":%" PRId64
               ",\"net_mbps\":%" PRId64 ",\"stage\":%u}",
               i ? "," : "", t->dur_sec[first + i], v[EBB_DAG_CPU], v[EBB_DAG_MEM], v[EBB_DAG_NET],
               d->stage[first + i]);
    }
  fputs ("],\"deps\":[", f);
  const uint32_t *e = d->edges + 2 * d->edge_first[j];
  for (uint32_t k = 0; k < d->nedges[j]; k++)
    fprintf (f, "%s[%u,%u]", k ? "," : "", e[2 * k], e[2 * k + 1]);
  fputs ("]}\n", f);
}

void
ebb_sim_dag_prepare (const ebb_sim_trace *t, ebb_sim_dag_run *run)
{
  memset (run, 0, sizeof *run);
  uint64_t nt = t->ntasks_total ? t->ntasks_total : 1;
  run->dags = ebb_xcalloc (t->njobs, sizeof *run->dags);
  run->demand = ebb_xmalloc (nt * EBB_DAG_NRES * sizeof *run->demand);
  run->stage = ebb_xmalloc (nt * sizeof *run->stage);
  run->par_off = ebb_xcalloc (nt + 1, sizeof *run->par_off);
  run->done = ebb_xcalloc (nt, 1);
  const ebb_sim_dag *d = t->dag;
  uint64_t total_edges = d ? d->nedges_total : 0;
  run->par = ebb_xmalloc ((total_edges ? total_edges : 1) * sizeof *run->par);
  for (uint32_t j = 0; j < t->njobs; j++)
    {
      uint64_t first = t->first_task[j];
      int is_dag = ebb_sim_dag_is_dag (t, j);
      for (uint32_t i = 0; i < t->ntasks[j]; i++)
        {
          int64_t *v = run->demand + (first + i) * EBB_DAG_NRES;
          if (is_dag)
            {
              memcpy (v, d->demand + (first + i) * EBB_DAG_NRES, EBB_DAG_NRES * sizeof *v);
              run->stage[first + i] = d->stage[first + i];
            }
          else
            {
              /* A job without "tasks": every task has the job's vector (one CPU in a
               * Hawk-format trace), no network, all in one stage. */
              int has = ebb_sim_trace_has_res (t);
              v[EBB_DAG_CPU] = has ? t->cpu_millis[j] : 1000;
              v[EBB_DAG_MEM] = has ? t->memory_bytes[j] : 0;
              v[EBB_DAG_NET] = 0;
              run->stage[first + i] = 0;
            }
        }
      ebb_pol_dag *g = &run->dags[j];
      g->ntasks = t->ntasks[j];
      g->dur_sec = t->dur_sec + first;
      g->demand = run->demand + first * EBB_DAG_NRES;
      g->stage = run->stage + first;
      if (is_dag)
        {
          g->nedges = d->nedges[j];
          g->edges = d->edges + 2 * d->edge_first[j];
          for (uint32_t k = 0; k < g->nedges; k++)
            run->par_off[first + g->edges[2 * k + 1] + 1]++;
        }
    }
  for (uint64_t i = 0; i < t->ntasks_total; i++)
    run->par_off[i + 1] += run->par_off[i];
  uint64_t *pos = ebb_xmalloc (nt * sizeof *pos);
  memcpy (pos, run->par_off, nt * sizeof *pos);
  for (uint32_t j = 0; j < t->njobs; j++)
    for (uint32_t k = 0; k < run->dags[j].nedges; k++)
      {
        const uint32_t *e = run->dags[j].edges + 2 * k;
        run->par[pos[t->first_task[j] + e[1]]++] = e[0];
      }
  free (pos);
}

void
ebb_sim_dag_run_free (ebb_sim_dag_run *run)
{
  free (run->dags);
  free (run->demand);
  free (run->stage);
  free (run->par_off);
  free (run->par);
  free (run->done);
  memset (run, 0, sizeof *run);
}

void
ebb_sim_dag_started (ebb_sim_dag_run *run, const ebb_sim_trace *t, uint32_t job, uint32_t task)
{
  uint64_t first = t->first_task[job], g = first + task;
  for (uint64_t k = run->par_off[g]; k < run->par_off[g + 1]; k++)
    if (!run->done[first + run->par[k]])
      {
        run->violations++;
        return;
      }
}

void
ebb_sim_dag_print_json (FILE *f, const ebb_sim_report *r)
{
  const ebb_sim_result *res = r->res;
  double *v = ebb_xmalloc ((res->njobs ? res->njobs : 1) * sizeof *v), sum = 0;
  size_t n = 0;
  for (uint32_t j = 0; j < res->njobs; j++)
    if (!res->failed || !res->failed[j])
      sum += v[n++] = res->runtime_sec[j];
  qsort (v, n, sizeof *v, ebb_sim_cmp_double);
  const ebb_pol_stats *s = &res->pol;
  fprintf (f,
           ",\"dag\":{\"jobs\":%zu,\"jct_mean\":%.3f,\"jct_p50\":%.3f,\"jct_p75\":%.3f,"
           "\"jct_p90\":%.3f,\"makespan\":%.3f,\"dep_violations\":%llu,\"node_net_mbps\":%lld,"
           "\"kappa\":%.4f,\"max_deficit\":%.4f,\"unfair_picks\":%llu,\"offline_jobs\":%llu,"
           "\"offline_schedules\":%llu,\"bypass_jobs\":%llu,\"fair_holds\":%llu}",
           n, n ? sum / n : 0.0, ebb_sim_percentile (v, n, 50), ebb_sim_percentile (v, n, 75),
           ebb_sim_percentile (v, n, 90), res->end_sec - res->start_sec,
           (unsigned long long)res->dep_violations, (long long)r->cfg->pol.node_net_mbps,
           r->cfg->pol.dag_kappa, s->dag_max_deficit, (unsigned long long)s->dag_unfair_picks,
           (unsigned long long)s->dag_offline_jobs, (unsigned long long)s->dag_offline_schedules,
           (unsigned long long)s->dag_bypass_jobs, (unsigned long long)s->dag_fair_holds);
  free (v);
}
