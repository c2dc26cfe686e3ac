/* The headline families of GET /metrics: the histograms (a short job's start delay, a
 * task's time suspended, a job's decision time), each node's capacity and allocation, and
 * the process_* families of Prometheus' client libraries. */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "lib/prom.h"

/* One gauge family of a value per node, labelled by the node's name (an id: letters,
 * digits, '.', '_', '-', nothing to escape; api-nodes.c). */
static void
node_gauge (ebb_ctl *c, FILE *f, const char *name, const char *help, size_t off)
{
  ebb_prom_head (f, name, help, "gauge");
  for (size_t i = 0; i < c->n_nodes; i++)
    {
      const ebb_ctl_node *n = c->nodes[i];
      uint64_t v = *(const uint64_t *)(const void *)((const char *)n + off);
      fprintf (f, "%s{node=\"%s\"} %" PRIu64 "\n", name, n->name, v);
    }
}

static void
node_gauges (ebb_ctl *c, FILE *f)
{
  node_gauge (c, f, "ebb_controller_node_capacity_cpu_millis",
              "CPU a node offers, in millicores (its last heartbeat).",
              offsetof (ebb_ctl_node, cap_cpu_millis));
  node_gauge (c, f, "ebb_controller_node_capacity_memory_bytes",
              "Memory a node offers (its last heartbeat).",
              offsetof (ebb_ctl_node, cap_memory_bytes));
  node_gauge (c, f, "ebb_controller_node_allocated_cpu_millis",
              "CPU held by a node's starting and running tasks, in millicores.",
              offsetof (ebb_ctl_node, alloc_cpu_millis));
  node_gauge (c, f, "ebb_controller_node_allocated_memory_bytes",
              "Memory held by a node's starting and running tasks.",
              offsetof (ebb_ctl_node, alloc_memory_bytes));
  ebb_prom_head (f, "ebb_controller_node_tasks",
                 "A node's active tasks (starting, running, suspended).", "gauge");
  for (size_t i = 0; i < c->n_nodes; i++)
    fprintf (f, "ebb_controller_node_tasks{node=\"%s\"} %" PRIu32 "\n", c->nodes[i]->name,
             c->nodes[i]->ntasks);
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
  /* Not yet: queued and pending tasks by reason, once tasks carry one (issue 22, item 1),
   * a gauge family here with a reason label of its machine-readable codes. */
  ebb_prom_process (f, "/proc");
}
