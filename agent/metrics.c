/* Metrics (Prometheus text, ebb_agent_ names, base units) and the node report. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/context.h"
#include "agent/metrics.h"
#include "agent/table.h"
#include "lib/json.h"
#include "lib/prom.h"
#include "lib/util.h"

/* Adds one observation of usec. */
void
ebb_agent_hist_observe (ebb_agent_hist *h, uint64_t usec)
{
  ebb_prom_hist_observe (h, (double)usec / 1e6);
}

static const char *const err_names[EBB_AGENT_N_ERRS] = {
  "bad_request", "conflict", "not_found", "cgroup", "journal", "launch", "heartbeat", "gone",
};

/* Counts an error of kind. */
void
ebb_agent_count_error (ebb_agent *a, ebb_agent_err_kind kind)
{
  if ((unsigned)kind < EBB_AGENT_N_ERRS)
    a->m.errors[kind]++;
}

static void
put_tasks (FILE *f, ebb_agent *a)
{
  ebb_prom_head (f, "ebb_agent_tasks", "Tasks known to the agent, by state.", "gauge");
  for (unsigned s = 0; s < EBB_AGENT_N_STATES; s++)
    fprintf (f, "ebb_agent_tasks{state=\"%s\"} %zu\n", ebb_agent_state_name (s),
             ebb_agent_count_state (a, s));
  uint64_t rec = 0, held = 0;
  for (size_t i = 0; i < a->n_tasks; i++)
    {
      rec += a->tasks[i]->reclaimed_bytes;
      held += a->tasks[i]->held_bytes;
    }
  ebb_prom_gauge (f, "ebb_agent_reclaimed_bytes", "Memory reclaimed from suspended tasks.", rec);
  ebb_prom_gauge (f, "ebb_agent_held_bytes", "Memory suspended tasks still hold (not free).", held);
}

/* The REST server's own counters: requests answered by status class, connections. */
static void
put_http (FILE *f, ebb_agent *a)
{
  ebb_http_server_stats st = { 0 };
  if (a->http)
    ebb_http_server_get_stats (a->http, &st);
  ebb_prom_head (f, "ebb_agent_http_requests_total", "REST requests answered, by status class.",
                 "counter");
  static const char *const classes[] = { NULL, "1xx", "2xx", "3xx", "4xx", "5xx" };
  for (unsigned c = 1; c < EBB_ARRAY_SIZE (classes); c++)
    fprintf (f, "ebb_agent_http_requests_total{code=\"%s\"} %llu\n", classes[c],
             (unsigned long long)st.by_class[c]);
  ebb_prom_counter (f, "ebb_agent_http_connections_total", "REST connections accepted.",
                    st.connections);
  ebb_prom_counter (f, "ebb_agent_http_connections_refused_total",
                    "REST connections refused or evicted at the connection limits.",
                    st.rejected_total + st.rejected_per_ip + st.evicted);
  ebb_prom_gauge (f, "ebb_agent_http_open_connections", "REST connections open now.",
                  st.open_connections);
}

/* Returns the /metrics text (free it). */
char *
ebb_agent_metrics_text (ebb_agent *a)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    return ebb_xstrdup ("");
  ebb_prom_build_info (f, "ebb-agent");
  ebb_prom_process (f, "/proc");
  ebb_prom_histogram (f, "ebb_agent_suspend_duration_seconds",
                      "Time from a suspend request to its limits applied.", &a->m.suspend);
  ebb_prom_histogram (f, "ebb_agent_resume_duration_seconds",
                      "Time from a resume request to the original limits restored.", &a->m.resume);
  put_tasks (f, a);
  ebb_prom_counter (f, "ebb_agent_suspends_total", "Suspensions completed.", a->m.suspends);
  ebb_prom_counter (f, "ebb_agent_resumes_total", "Resumes completed.", a->m.resumes);
  ebb_prom_counter (f, "ebb_agent_launches_total", "Tasks launched.", a->m.launches);
  ebb_prom_counter (f, "ebb_agent_adoptions_total", "Tasks adopted.", a->m.adoptions);
  ebb_prom_counter (f, "ebb_agent_exits_total", "Task exits seen.", a->m.exits);
  ebb_prom_head (f, "ebb_agent_heartbeats_total", "Heartbeats sent to the controller, by outcome.",
                 "counter");
  fprintf (f,
           "ebb_agent_heartbeats_total{result=\"ok\"} %llu\n"
           "ebb_agent_heartbeats_total{result=\"error\"} %llu\n",
           (unsigned long long)a->m.heartbeats_ok,
           (unsigned long long)a->m.errors[EBB_AGENT_ERR_HEARTBEAT]);
  put_http (f, a);
  ebb_prom_gauge (f, "ebb_agent_log_followers", "Task logs followed now (GET .../logs?follow=1).",
                  a->log_followers);
  ebb_agent_fence_metrics (f, &a->fence);
  ebb_prom_head (f, "ebb_agent_errors_total", "Errors by kind.", "counter");
  for (unsigned i = 0; i < EBB_AGENT_N_ERRS; i++)
    fprintf (f, "ebb_agent_errors_total{kind=\"%s\"} %llu\n", err_names[i],
             (unsigned long long)a->m.errors[i]);
  fclose (f);
  return buf;
}

static uint64_t
meminfo_bytes (const char *key)
{
  cleanup_fclose FILE *f = fopen ("/proc/meminfo", "re");
  char line[256];
  size_t kl = strlen (key);
  while (f && fgets (line, sizeof line, f))
    if (strncmp (line, key, kl) == 0 && line[kl] == ':')
      return strtoull (line + kl + 1, NULL, 10) * 1024;
  return 0;
}

/* Detects the node's capacity: online CPUs and MemTotal. */
void
ebb_agent_detect_capacity (ebb_agent *a)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  a->cpu_capacity_millis = (uint64_t)(n > 0 ? n : 1) * 1000;
  a->memory_capacity_bytes = meminfo_bytes ("MemTotal");
}

static json_object *
psi_json (const char *res)
{
  char path[64];
  snprintf (path, sizeof path, "/proc/pressure/%s", res);
  cleanup_fclose FILE *f = fopen (path, "re");
  char buf[512];
  size_t n = f ? fread (buf, 1, sizeof buf - 1, f) : 0;
  if (n == 0)
    return NULL;
  buf[n] = '\0';
  ebb_cg_psi psi;
  if (ebb_cg_parse_psi (buf, &psi, NULL) < 0)
    return NULL;
  json_object *o = json_object_new_object ();
  ebb_json_add_double (o, "some_avg10", psi.some_avg10);
  ebb_json_add_double (o, "full_avg10", psi.full_avg10);
  ebb_json_add_uint64 (o, "some_total_usec", psi.some_total_usec);
  ebb_json_add_uint64 (o, "full_total_usec", psi.full_total_usec);
  return o;
}

static json_object *
pair (uint64_t cpu_millis, uint64_t memory_bytes)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "cpu_millis", cpu_millis);
  ebb_json_add_uint64 (o, "memory_bytes", memory_bytes);
  return o;
}

/* Returns the node report (GET /v1/node, heartbeats). */
json_object *
ebb_agent_node_json (ebb_agent *a)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "name", a->node_name);
  json_object_object_add (o, "capacity", pair (a->cpu_capacity_millis, a->memory_capacity_bytes));
  uint64_t cpu = 0, mem = 0, used_cpu = 0, used_mem = 0;
  for (size_t i = 0; i < a->n_tasks; i++)
    {
      const ebb_agent_task *t = a->tasks[i];
      if (t->state == EBB_AGENT_RUNNING || t->state == EBB_AGENT_RESUMING)
        cpu += t->cpu_millis, mem += t->memory_bytes;
      if (t->state != EBB_AGENT_EXITED)
        used_mem += t->stats.memory_current_bytes;
    }
  json_object_object_add (o, "allocated", pair (cpu, mem));
  used_cpu = a->cpu_capacity_millis; /* placeholder replaced below from /proc/loadavg */
  double load = 0;
  cleanup_fclose FILE *f = fopen ("/proc/loadavg", "re");
  if (f && fscanf (f, "%lf", &load) == 1)
    used_cpu = (uint64_t)(load * 1000);
  json_object *usage = pair (used_cpu, a->memory_capacity_bytes - meminfo_bytes ("MemAvailable"));
  ebb_json_add_uint64 (usage, "tasks_memory_bytes", used_mem);
  json_object_object_add (o, "usage", usage);
  json_object *psi = json_object_new_object ();
  const char *res[] = { "cpu", "memory", "io" };
  for (unsigned i = 0; i < 3; i++)
    json_object_object_add (psi, res[i], psi_json (res[i]));
  json_object_object_add (o, "psi", psi);
  ebb_json_add_string (o, "backend",
                       ebb_cg_ctx_layout (a->cg_ctx) == EBB_CG_LAYOUT_V2 ? "v2" : "v1");
  ebb_json_add_uint64 (o, "tasks", a->n_tasks);
  return o;
}
