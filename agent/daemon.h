/* The daemon context and the functions the agent's files share (loop thread only). */
#ifndef EBB_AGENT_DAEMON_H
#define EBB_AGENT_DAEMON_H

#include "agent/agent.h"
#include "agent/proc.h"
#include "agent/release.h"
#include "agent/table.h"

struct ebb_rt;

/* A request waiting for an operation in flight. */
typedef struct ebb_agent_pending
{
  ebb_http_deferred *d;
  char *request_id; /* or NULL */
  char *key;
  unsigned ok_status;
} ebb_agent_pending;

struct ebb_agent
{
  ebb_agent_config *cfg;
  sd_event *event;
  ebb_cg_ctx *cg_ctx;
  ebb_cg *parent; /* --cgroup-parent */
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
  char *node_name;
  uint64_t cpu_capacity_millis, memory_capacity_bytes;
  uint64_t last_stats_usec, next_heartbeat_usec, heartbeat_backoff_usec;
  bool heartbeat_in_flight;
  bool push_wanted; /* a state changed since the last heartbeat was sent */
  sd_event_source *push_src;
  uint64_t heartbeat_seq;
  uint64_t watchdog_usec;
  bool stopping;
  int exit_code;
  const char *crash_at; /* EBB_AGENT_CRASH_AT: a named point where the agent kills itself */
  struct ebb_rt *rt[2];
};

/* Kills the agent with SIGKILL when EBB_AGENT_CRASH_AT names point (crash-safety tests). */
void ebb_agent_crash_point (ebb_agent *a, const char *point);

/* Re-reads the applied limits and the usage of t (quietly; a vanished cgroup is noted). */
void ebb_agent_refresh_task (ebb_agent *a, ebb_agent_task *t);

/* Operations (agent/ops.c). Each returns 0 when started or done; on failure negative with
 * *err, and nothing changed. pending (may be NULL) is answered when the operation ends. */
int ebb_agent_op_suspend (ebb_agent *a, ebb_agent_task *t, bool graceful, uint64_t cpu_millis,
                          uint64_t memory_bytes, ebb_agent_pending *pending, ebb_error **err);
int ebb_agent_op_resume (ebb_agent *a, ebb_agent_task *t, ebb_agent_pending *pending,
                         ebb_error **err);
int ebb_agent_op_delete (ebb_agent *a, ebb_agent_task *t, uint64_t grace_usec,
                         ebb_agent_pending *pending, ebb_error **err);
/* Marks t exited with a wait status (-1: unknown), journals, answers its pending request. */
void ebb_agent_task_exited (ebb_agent *a, ebb_agent_task *t, int code, int status);
/* Starts watching a live process that is not our child (pidfd). Returns 0 or negative. */
int ebb_agent_watch_pid (ebb_agent *a, ebb_agent_task *t, ebb_error **err);
/* Answers a pending request with t's JSON (status ok_status) or with an error, records the
 * answer under its request id, frees p. */
void ebb_agent_pending_finish (ebb_agent *a, ebb_agent_task *t, ebb_agent_pending *p,
                               unsigned status, const char *code, const char *detail);

/* During shutdown: resumes every suspended task; exits the loop when none is left busy. */
void ebb_agent_check_stop (ebb_agent *a);

/* Launch (agent/launch.c): creates the cgroup, sets limits, spawns, watches the exit.
 * Returns 0 and the new task (not yet in the table), or negative with *err (nothing left
 * behind: cgroup removed). */
int ebb_agent_launch (ebb_agent *a, const ebb_agent_launch_req *req, ebb_agent_task **out,
                      ebb_error **err);
/* Moves a launched task's log to ID.log.1 when it outgrew --task-log-max. */
void ebb_agent_rotate_log (ebb_agent *a, ebb_agent_task *t);
/* Returns the resolved executable for argv0 under env's PATH, or NULL with *err. */
char *ebb_agent_find_exec (const char *argv0, char *const *env, ebb_error **err);

/* Adoption (agent/adopt.c). */
int ebb_agent_adopt_cgroup (ebb_agent *a, const ebb_agent_adopt_req *req, ebb_agent_task **out,
                            ebb_error **err);
/* Starts adopting a container (the engines are asked without blocking); p is answered from
 * the loop. Returns 0, or negative with *err (no engine configured; p untouched). */
int ebb_agent_adopt_container_start (ebb_agent *a, const ebb_agent_adopt_req *req,
                                     ebb_agent_pending *p, ebb_error **err);
/* Starts the Docker/Podman clients named in the config. Returns 0 or negative with *err. */
int ebb_agent_runtimes_start (ebb_agent *a, ebb_error **err);
void ebb_agent_runtimes_stop (ebb_agent *a);

/* Reconcile after a restart (agent/reconcile.c): t comes from the journal. */
void ebb_agent_reconcile_task (ebb_agent *a, ebb_agent_task *t);

/* The loop's own sources (agent/daemon.c). */
int ebb_agent_loop_sources (ebb_agent *a, ebb_error **err);
void ebb_agent_loop_sources_free (ebb_agent *a);

/* HTTP (agent/api.c). */
int ebb_agent_http_start (ebb_agent *a, ebb_error **err);

/* Metrics and node (agent/metrics.c). */
char *ebb_agent_metrics_text (ebb_agent *a);
json_object *ebb_agent_node_json (ebb_agent *a);
void ebb_agent_count_error (ebb_agent *a, ebb_agent_err_kind kind);
void ebb_agent_detect_capacity (ebb_agent *a);

/* Heartbeats (agent/heartbeat.c): called from the periodic timer. */
void ebb_agent_heartbeat_tick (ebb_agent *a, uint64_t now_usec);
/* A task's state changed (exit, suspended, resumed, failed): a heartbeat goes out at once,
 * one for all changes of a loop iteration or made while one is in flight. */
void ebb_agent_heartbeat_push (ebb_agent *a);
/* The node report with the capacity override and the advertised URL (GET /v1/node). */
json_object *ebb_agent_node_report (ebb_agent *a);
/* The URL the controller should call this agent on (--advertise-url or the first listener). */
const char *ebb_agent_advertise_url (ebb_agent *a);

#endif
