/* The daemon context (agent/context.c): the one global-like thing, its data only, and the
 * two calls every layer may make on it (crash points, a task changed). Only the sd-event loop
 * thread touches it; reclaiming cgroup writes run on the cgroup engine's worker pool and come
 * back through its eventfd (doc/design.md "Daemons"). */
#ifndef EBB_AGENT_CONTEXT_H
#define EBB_AGENT_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "agent/fence.h"
#include "agent/idem.h"
#include "agent/journal.h"
#include "agent/metrics.h"
#include "agent/options.h"
#include "agent/task.h"
#include "cgroup/cgroup.h"
#include "lib/http-client.h"
#include "lib/http-server.h"

struct ebb_rt;

/* A request waiting for an operation in flight. */
typedef struct ebb_agent_pending
{
  ebb_http_deferred *d;
  char *request_id; /* or NULL */
  char *key;
  unsigned ok_status;
} ebb_agent_pending;

typedef struct ebb_agent ebb_agent;

struct ebb_agent
{
  ebb_agent_config *cfg;
  sd_event *event;
  ebb_cg_ctx *cg_ctx;
  ebb_cg *parent; /* --cgroup-parent */
  /* The directories of --cgroup-parent the agent created (each hierarchy's, shallowest
   * first; NULL-terminated): removed at a clean exit when empty (agent/setup.c). */
  char **created_cgroups;
  size_t n_created_cgroups;
  ebb_cg_pool *pool;
  ebb_cg_engine_config engine;
  sd_event_source *pool_src, *timer_src, *sig_src[4], *stop_timer, *refresh_src;
  size_t refresh_cursor;
  ebb_http_server *http;
  ebb_http_client *client;
  char *token;
  int state_fd, tasks_fd, logs_fd;
  ebb_agent_syncer *syncer; /* journal fsyncs, off the loop */
  ebb_agent_task **tasks;
  size_t n_tasks, cap_tasks;
  ebb_agent_idem *idem;
  ebb_agent_metrics m;
  ebb_agent_fence fence; /* the highest leader epoch seen (STATE_DIR/epoch) */
  char *node_name;
  uint64_t cpu_capacity_millis, memory_capacity_bytes;
  uint64_t last_stats_usec, next_heartbeat_usec, heartbeat_backoff_usec;
  bool heartbeat_in_flight;
  /* Heartbeats go to the leader a standby named (503 not_leader), else to item
   * controller_idx of --controller URL[,URL...], the next one after a failure. */
  char *controller_leader;
  size_t controller_idx;
  /* No controller answering (heartbeat.c): since when (monotonic, 0: one answers), how long
   * it had lasted when last logged, and when one last answered (unix seconds, 0: never). */
  uint64_t ctl_down_since_usec, ctl_down_logged_usec;
  double ctl_last_ok_at;
  bool push_wanted; /* a state changed since the last heartbeat was sent */
  sd_event_source *push_src;
  uint64_t heartbeat_seq;
  uint64_t watchdog_usec;
  bool stopping;
  int exit_code;
  unsigned log_followers;                /* GET .../logs?follow=1 responses open (agent/logs.c) */
  struct ebb_agent_kept_logs *kept_logs; /* finished tasks' logs (agent/logs-kept.c) */
  const char *crash_at; /* EBB_AGENT_CRASH_AT: a named point where the agent kills itself */
  struct ebb_rt *rt[2];
  /* Called when a task's state changed (exit, suspended, resumed, failed): set by setup to
   * the heartbeat's push, so the layers below never call up. NULL: nobody listens. */
  void (*on_task_change) (struct ebb_agent *a);
};

/* Kills the agent with SIGKILL when EBB_AGENT_CRASH_AT names point (crash-safety tests). */
void ebb_agent_crash_point (ebb_agent *a, const char *point);

/* A task's state changed: calls a->on_task_change (the heartbeat's push). */
void ebb_agent_task_changed (ebb_agent *a);

#endif
