/* The cluster's view: GET /v1/cluster, /v1/health, /v1/decisions and the Prometheus
 * /metrics. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "lib/json.h"
#include "lib/prom.h"
#include "lib/time.h"
#include "lib/util.h"

/* GET /v1/decisions. */
static int
h_decisions (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  const char *s = ebb_http_request_query (req, "since");
  uint64_t since = 0;
  if (s)
    {
      char *end = NULL;
      errno = 0;
      unsigned long long v = *s >= '0' && *s <= '9' ? strtoull (s, &end, 10) : 0;
      if (!end || *end || errno)
        {
          c->m.bad_requests++;
          ebb_http_error (resp, 400, "bad_request", "since must be a decimal sequence number");
          return EBB_HTTP_REPLIED;
        }
      since = v;
    }
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "decisions", ebb_ctl_op_decisions (c, since, 10000));
  ebb_json_add_uint64 (o, "last_seq", ebb_ctl_op_last_seq (c));
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static json_object *
cluster_json (ebb_ctl *c)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "policy", c->cfg->policy);
  uint64_t ready = 0, lost = 0, draining = 0, cap = 0, capmem = 0, alloc = 0, allocmem = 0;
  for (size_t i = 0; i < c->n_nodes; i++)
    {
      ebb_ctl_node *n = c->nodes[i];
      ready += n->state == NODE_READY;
      lost += n->state == NODE_LOST;
      draining += n->state == NODE_DRAINING;
      if (n->state != NODE_LOST)
        {
          cap += n->cap_cpu_millis;
          capmem += n->cap_memory_bytes;
        }
    }
  /* Tasks and jobs: the counters kept as they change (model-index.c), not a scan. */
  const uint64_t *queued = c->counts.queued_jobs;
  uint64_t running = c->counts.running, suspended = c->counts.suspended;
  alloc = c->counts.alloc_cpu_millis;
  allocmem = c->counts.alloc_memory_bytes;
  json_object *nodes = json_object_new_object ();
  ebb_json_add_uint64 (nodes, "total", c->n_nodes);
  ebb_json_add_uint64 (nodes, "ready", ready);
  ebb_json_add_uint64 (nodes, "draining", draining);
  ebb_json_add_uint64 (nodes, "lost", lost);
  json_object_object_add (o, "nodes", nodes);
  json_object *cp = json_object_new_object ();
  ebb_json_add_uint64 (cp, "cpu_millis", cap);
  ebb_json_add_uint64 (cp, "memory_bytes", capmem);
  json_object_object_add (o, "capacity", cp);
  json_object *al = json_object_new_object ();
  ebb_json_add_uint64 (al, "cpu_millis", alloc);
  ebb_json_add_uint64 (al, "memory_bytes", allocmem);
  json_object_object_add (o, "allocated", al);
  json_object *q = json_object_new_object ();
  ebb_json_add_uint64 (q, "short", queued[CLS_SHORT]);
  ebb_json_add_uint64 (q, "long", queued[CLS_LONG]);
  ebb_json_add_uint64 (q, "auto", queued[CLS_AUTO]);
  json_object_object_add (o, "queued_jobs", q);
  ebb_json_add_uint64 (o, "jobs", c->n_jobs_stored > c->n_jobs ? c->n_jobs_stored : c->n_jobs);
  ebb_json_add_uint64 (o, "jobs_in_memory", c->n_jobs);
  ebb_json_add_uint64 (o, "running_tasks", running);
  ebb_json_add_uint64 (o, "suspended_tasks", suspended);
  ebb_json_add_uint64 (o, "preemptions", c->m.suspends + c->m.preempt_kills);
  ebb_json_add_uint64 (o, "slots", c->n_slots);
  ebb_json_add_uint64 (o, "decisions", ebb_ctl_op_last_seq (c));
  return o;
}

/* GET /v1/cluster. */
static int
h_cluster (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)req;
  json_object *o = cluster_json (ud);
  ebb_ctl_api_add_role (ud, o);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

/* GET /v1/health. */
static int
h_health (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  (void)req;
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "status", c->stopping ? "stopping" : "ok");
  ebb_json_add_string (o, "policy", c->cfg->policy);
  ebb_json_add_uint64 (o, "nodes", c->n_nodes);
  ebb_json_add_uint64 (o, "jobs", c->n_jobs_stored > c->n_jobs ? c->n_jobs_stored : c->n_jobs);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Job arrival -> launches sent, over the last jobs: a Prometheus summary (the benchmark's
 * figure; ebb_controller_job_decision_seconds is its histogram, which aggregates). */
static void
quantiles (ebb_ctl *c, FILE *f)
{
  size_t n = c->n_arrival < EBB_ARRAY_SIZE (c->arrival_usec) ? c->n_arrival
                                                             : EBB_ARRAY_SIZE (c->arrival_usec);
  uint64_t v[EBB_ARRAY_SIZE (c->arrival_usec)];
  memcpy (v, c->arrival_usec, n * sizeof *v);
  qsort (v, n, sizeof *v, cmp_u64);
  fprintf (f,
           "# HELP ebb_controller_job_decision_recent_seconds Job arrival to its launches sent "
           "(last %zu jobs).\n# TYPE ebb_controller_job_decision_recent_seconds summary\n",
           n);
  static const double qs[] = { 0.5, 0.9, 0.99 };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (qs); i++)
    fprintf (f, "ebb_controller_job_decision_recent_seconds{quantile=\"%g\"} %.6f\n", qs[i],
             n ? (double)v[(size_t)((double)(n - 1) * qs[i] + 0.5)] / 1e6 : 0.0);
  fprintf (f, "ebb_controller_job_decision_recent_seconds_count %zu\n", c->n_arrival);
}

#define COUNTER(n, h, v) ebb_prom_counter (f, n, h, (uint64_t)(v))

/* The counters of the decisions, the heartbeats and the agent calls. */
static void
metrics_counters (ebb_ctl *c, FILE *f)
{
  COUNTER ("ebb_controller_jobs_submitted_total", "Jobs accepted by POST /v1/jobs.",
           c->m.jobs_submitted);
  COUNTER ("ebb_controller_task_launches_total", "LAUNCH decisions sent to agents.", c->m.launches);
  COUNTER ("ebb_controller_task_kills_total",
           "KILL decisions sent: DELETE /v1/jobs and the policy's preemptive kills.", c->m.kills);
  COUNTER ("ebb_controller_task_suspends_total", "SUSPEND decisions (preemptions).", c->m.suspends);
  COUNTER ("ebb_controller_task_preempt_kills_total",
           "KILL decisions of the policy to make room (preemptions; also in task_kills_total).",
           c->m.preempt_kills);
  COUNTER ("ebb_controller_task_resumes_total", "RESUME decisions.", c->m.resumes);
  COUNTER ("ebb_controller_tasks_lost_total", "Tasks re-queued because their node was lost.",
           c->m.tasks_lost);
  COUNTER ("ebb_controller_heartbeats_total", "Heartbeats accepted.", c->m.heartbeats);
  COUNTER ("ebb_controller_heartbeats_refused_total", "Heartbeats refused as malformed.",
           c->m.heartbeats_refused);
  COUNTER ("ebb_controller_agent_calls_total", "Calls made to agents, retries included.",
           c->m.agent_calls);
  COUNTER ("ebb_controller_agent_call_retries_total", "Agent calls retried.", c->m.agent_retries);
  COUNTER ("ebb_controller_bad_requests_total", "Requests refused with a 4xx.", c->m.bad_requests);
  COUNTER ("ebb_controller_decisions_total", "Entries in the decision log.",
           ebb_ctl_op_last_seq (c));
  COUNTER ("ebb_controller_policy_messages_timed_total",
           "Probes and wakes delivered by the timer at their due time (timed-probe policies: "
           "peacock).",
           c->timed_delivered);
  fprintf (f,
           "# HELP ebb_controller_decision_seconds_total Time spent deciding and sending "
           "launches.\n# TYPE ebb_controller_decision_seconds_total counter\n"
           "ebb_controller_decision_seconds_total %.6f\n",
           (double)c->m.decision_usec_sum / 1e6);
}

/* Nodes, tasks and jobs by state (the jobs that left memory count too: sched-evict.c). */
static void
metrics_states (ebb_ctl *c, FILE *f)
{
  uint64_t nstate[3] = { 0 }, tstate[TASK_N_STATES], jstate[5];
  /* The jobs that left memory count too (sched-evict.c). */
  memcpy (tstate, c->evicted_tasks, sizeof tstate);
  memcpy (jstate, c->evicted_jobs, sizeof jstate);
  for (size_t i = 0; i < c->n_nodes; i++)
    nstate[c->nodes[i]->state]++;
  for (size_t i = 0; i < c->n_jobs; i++)
    {
      jstate[c->jobs[i]->state]++;
      for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
        tstate[c->jobs[i]->tasks[k].state]++;
    }
  fprintf (f, "# HELP ebb_controller_nodes Nodes by state.\n# TYPE ebb_controller_nodes gauge\n");
  for (int s = 0; s < 3; s++)
    fprintf (f, "ebb_controller_nodes{state=\"%s\"} %" PRIu64 "\n",
             ebb_ctl_node_state_name ((ebb_ctl_node_state)s), nstate[s]);
  fprintf (f, "# HELP ebb_controller_tasks Tasks by state.\n# TYPE ebb_controller_tasks gauge\n");
  for (int s = 0; s < TASK_N_STATES; s++)
    fprintf (f, "ebb_controller_tasks{state=\"%s\"} %" PRIu64 "\n",
             ebb_ctl_task_state_name ((ebb_ctl_task_state)s), tstate[s]);
  fprintf (f, "# HELP ebb_controller_jobs Jobs by state.\n# TYPE ebb_controller_jobs gauge\n");
  for (int s = 0; s < 5; s++)
    fprintf (f, "ebb_controller_jobs{state=\"%s\"} %" PRIu64 "\n",
             ebb_ctl_job_state_name ((ebb_ctl_job_state)s), jstate[s]);
  fprintf (f,
           "# HELP ebb_controller_jobs_in_memory Jobs held in memory (unfinished, and the newest "
           "finished up to --keep-finished).\n# TYPE ebb_controller_jobs_in_memory gauge\n"
           "ebb_controller_jobs_in_memory %zu\n",
           c->n_jobs);
}

/* The store's memory, the policy's batches and slots, the calls under way. */
static void
metrics_resources (ebb_ctl *c, FILE *f)
{
  /* SQLite's heap (statements, schema; pages only past the reserved cache) and the pages of
   * the page cache reserved at start (controller/store-sqlite.c) in use: what of the RSS is
   * the store's and not the model's, and how far the cache has filled its reserved memory. */
  ebb_ctl_store_stats ss;
  ebb_ctl_op_store_stats (c, &ss);
  fprintf (f,
           "# HELP ebb_controller_sqlite_memory_bytes Heap in use by SQLite (statements, "
           "schema, pages past the reserved cache).\n"
           "# TYPE ebb_controller_sqlite_memory_bytes gauge\n"
           "ebb_controller_sqlite_memory_bytes %lld\n"
           "# HELP ebb_controller_sqlite_cache_pages Pages of SQLite's page cache in use, of "
           "the memory reserved for them at start.\n"
           "# TYPE ebb_controller_sqlite_cache_pages gauge\n"
           "ebb_controller_sqlite_cache_pages %d\n",
           (long long)ss.heap_bytes, ss.cache_pages);
  /* The batches the policy holds: the ones under way (or finished with probes still
   * alive), and (a policy that cannot forget a finished one) every one queued since the
   * policy was built (sched-place.c). */
  fprintf (f,
           "# HELP ebb_controller_policy_jobs Policy jobs (batches of tasks queued) of the "
           "current policy instance.\n# TYPE ebb_controller_policy_jobs gauge\n"
           "ebb_controller_policy_jobs %u\n",
           c->n_pjobs - c->n_pjob_free);
  COUNTER ("ebb_controller_jobs_evicted_total",
           "Finished jobs that left memory (answered from the store since).", c->jobs_evicted);
  COUNTER ("ebb_controller_jobs_pruned_total",
           "Finished jobs removed from the store by retention (--retain, --retain-jobs).",
           c->jobs_pruned);
  fprintf (f,
           "# HELP ebb_controller_slots Policy slots (one CPU of a ready node).\n"
           "# TYPE ebb_controller_slots gauge\nebb_controller_slots %u\n",
           c->n_slots);
  fprintf (f,
           "# HELP ebb_controller_agent_calls_in_flight Agent calls under way.\n"
           "# TYPE ebb_controller_agent_calls_in_flight gauge\n"
           "ebb_controller_agent_calls_in_flight %zu\n",
           c->client ? ebb_http_client_pending (c->client) : 0);
}
#undef COUNTER

/* The text of GET /metrics (Prometheus). */
static char *
metrics_text (ebb_ctl *c)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    return ebb_xstrdup ("");
  ebb_prom_build_info (f, "ebb-controller");
  metrics_counters (c, f);
  metrics_states (c, f);
  metrics_resources (c, f);
  quantiles (c, f);
  ebb_ctl_api_metrics_headline (c, f);
  fclose (f);
  return buf;
}

/* GET /metrics. */
static int
h_metrics (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)req;
  cleanup_free char *text = metrics_text (ud);
  ebb_http_reply_text (resp, 200, "text/plain; version=0.0.4; charset=utf-8", text);
  return EBB_HTTP_REPLIED;
}

/* See api.h. */
const ebb_http_route ebb_ctl_api_cluster_routes[] = {
  { "GET", "/v1/health", h_health, 0 },
  { "GET", "/metrics", h_metrics, 0 },
  { "GET", "/v1/cluster", h_cluster, 0 },
  { "GET", "/v1/decisions", h_decisions, 0 },
};
const size_t ebb_ctl_api_cluster_n_routes = EBB_ARRAY_SIZE (ebb_ctl_api_cluster_routes);
