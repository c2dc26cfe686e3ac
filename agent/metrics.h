/* Metrics (agent/metrics.c): latency histograms, error counters, /metrics text and the node
 * report (capacity, usage). Reads the task table; calls nothing above it. */
#ifndef EBB_AGENT_METRICS_H
#define EBB_AGENT_METRICS_H

#include <json-c/json.h>
#include <stdint.h>

#include "lib/prom.h"

/* Latency histograms in seconds (a zeroed one has lib/prom's latency buckets). */
typedef ebb_prom_hist ebb_agent_hist;

/* Adds one observation of usec. */
void ebb_agent_hist_observe (ebb_agent_hist *h, uint64_t usec);

typedef enum
{
  EBB_AGENT_ERR_BAD_REQUEST = 0,
  EBB_AGENT_ERR_CONFLICT,
  EBB_AGENT_ERR_NOT_FOUND,
  EBB_AGENT_ERR_CGROUP,
  EBB_AGENT_ERR_JOURNAL,
  EBB_AGENT_ERR_LAUNCH,
  EBB_AGENT_ERR_HEARTBEAT,
  EBB_AGENT_ERR_GONE,
  EBB_AGENT_N_ERRS,
} ebb_agent_err_kind;

typedef struct ebb_agent_metrics
{
  ebb_agent_hist suspend, resume;
  uint64_t suspends, resumes, launches, adoptions, exits;
  uint64_t errors[EBB_AGENT_N_ERRS];
  uint64_t heartbeats_ok;
} ebb_agent_metrics;

struct ebb_agent;

/* The Prometheus text of /metrics (a new string). */
char *ebb_agent_metrics_text (struct ebb_agent *a);
/* The node as measured: capacity, allocation, usage (a new object). */
json_object *ebb_agent_node_json (struct ebb_agent *a);
/* Counts one error of kind. */
void ebb_agent_count_error (struct ebb_agent *a, ebb_agent_err_kind kind);
/* Detects the node's CPU and memory capacity. */
void ebb_agent_detect_capacity (struct ebb_agent *a);

#endif
