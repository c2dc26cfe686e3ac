/* The headline families of GET /metrics: the histograms (a short job's start delay, a
 * task's time suspended, a job's decision time), each node's capacity and allocation, the
 * pending tasks and queued jobs by reason, and the process_* families of Prometheus' client
 * libraries. */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "lib/prom.h"
#include "lib/util.h"

/* The per-node gauge families: a value of ebb_ctl_node at off, labelled by the node's name
 * (an id: letters, digits, '.', '_', '-', nothing to escape; api-nodes.c). */
static const struct
{
  const char *name, *help;
  size_t off;
} node_families[] = {
  { "ebb_controller_node_capacity_cpu_millis",
    "CPU a node offers, in millicores (its last heartbeat).",
    offsetof (ebb_ctl_node, cap_cpu_millis) },
  { "ebb_controller_node_capacity_memory_bytes", "Memory a node offers (its last heartbeat).",
    offsetof (ebb_ctl_node, cap_memory_bytes) },
  { "ebb_controller_node_allocated_cpu_millis",
    "CPU held by a node's starting and running tasks, in millicores.",
    offsetof (ebb_ctl_node, alloc_cpu_millis) },
  { "ebb_controller_node_allocated_memory_bytes",
    "Memory held by a node's starting and running tasks.",
    offsetof (ebb_ctl_node, alloc_memory_bytes) },
};

static void
node_gauges (ebb_ctl *c, FILE *f)
{
  for (size_t k = 0; k < EBB_ARRAY_SIZE (node_families); k++)
    {
      ebb_prom_head (f, node_families[k].name, node_families[k].help, "gauge");
      for (size_t i = 0; i < c->n_nodes; i++)
        {
          const char *n = (const char *)c->nodes[i];
          uint64_t v;
          memcpy (&v, n + node_families[k].off, sizeof v);
          fprintf (f, "%s{node=\"%s\"} %" PRIu64 "\n", node_families[k].name, c->nodes[i]->name, v);
        }
    }
  ebb_prom_head (f, "ebb_controller_node_tasks",
                 "A node's active tasks (starting, running, suspended).", "gauge");
  for (size_t i = 0; i < c->n_nodes; i++)
    fprintf (f, "ebb_controller_node_tasks{node=\"%s\"} %" PRIu32 "\n", c->nodes[i]->name,
             c->nodes[i]->ntasks);
}

/* A gauge family of counters by reason (model-reason.c keeps them as reasons change): every
 * code, 0 included, so that a series exists before its first waiting task. A task the
 * scheduler has not explained yet has no code and is in none of them. */
static void
reason_gauges (FILE *f, const char *name, const char *help, const uint64_t *by_code)
{
  ebb_prom_head (f, name, help, "gauge");
  for (int k = 0; k < EBB_CTL_REASON_N; k++)
    {
      const char *code = ebb_ctl_reason_name ((ebb_ctl_reason_code)k);
      if (code)
        fprintf (f, "%s{reason=\"%s\"} %" PRIu64 "\n", name, code, by_code[k]);
    }
}

/* See api.h. */
void
ebb_ctl_api_metrics_headline (ebb_ctl *c, FILE *f)
{
  ebb_prom_histogram (f, "ebb_controller_short_job_start_delay_seconds",
                      "A short job's task from its submission to running (first start).",
                      &c->hist.start_delay);
  ebb_prom_histogram (f, "ebb_controller_task_suspended_seconds",
                      "A task's time suspended, from its suspension to its resumption or end.",
                      &c->hist.suspended);
  ebb_prom_histogram (f, "ebb_controller_job_decision_seconds",
                      "A job's arrival to its launches sent.", &c->hist.decision);
  node_gauges (c, f);
  reason_gauges (f, "ebb_controller_tasks_pending",
                 "Pending tasks by why they wait (the API's reason codes).",
                 c->counts.pending_by_reason);
  reason_gauges (f, "ebb_controller_jobs_queued",
                 "Queued jobs by why they wait (their first waiting task's reason).",
                 c->counts.queued_by_reason);
  ebb_prom_process (f, "/proc");
}
