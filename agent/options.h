/* Options (agent/options.c): the command line and the config file into ebb_agent_config,
 * reloaded on SIGHUP. Pure: knows nothing of the daemon. */
#ifndef EBB_AGENT_OPTIONS_H
#define EBB_AGENT_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/error.h"

typedef struct ebb_agent_config
{
  char *config_path;
  char **listen;
  char *state_dir;
  char *cgroup_parent;
  char **adopt_root;
  char *controller;
  char *token_file;
  char *docker_socket;
  char *podman_socket;
  char *node_name;
  bool handover;
  uint64_t heartbeat_usec;
  uint64_t stats_usec;
  uint64_t stop_grace_usec;
  uint64_t footprint_memory_bytes;
  char *cgroup_root;
  uint64_t capacity_cpu_millis;   /* 0: detect */
  uint64_t capacity_memory_bytes; /* 0: detect */
  char *advertise_url;            /* NULL: the first listener's URL */
  char *task_user;                /* who tasks run as when a launch names no user */
  char **task_users;              /* users (names, ids, ranges) a launch may name */
  char **task_groups;             /* groups (names, ids, ranges) a launch may name */
  char *task_uid_range;           /* "LO-HI": a user per job from it; "none": task_user */
  char *socket_group;             /* group of the unix sockets (mode 0660), or NULL */
  char *tls_cert;                 /* PEM certificate of the TCP listeners (with tls_key) */
  char *tls_key;                  /* PEM private key of the TCP listeners */
  char *controller_ca;            /* PEM CA bundle that verifies an https controller */
  uint64_t task_log_max_bytes;    /* a task's log beyond this moves to ID.log.1 */
  uint64_t keep_logs;             /* finished tasks whose logs are kept (agent/logs-kept.c) */
  uint64_t keep_logs_max_bytes;   /* and their bytes in all */
  uint64_t task_pids_max;         /* pids.max of a launched task; 0: no limit */
  bool allow_root_tasks;
  int verbose;
  int argc; /* kept for SIGHUP */
  char **argv;
} ebb_agent_config;

/* Parses the command line (and the config file it names). Returns 0 to run, 1 when
 * --help/--version/--print-config was handled (exit 0), or negative with *err (exit 2). */
int ebb_agent_parse_args (int argc, char **argv, ebb_agent_config *cfg, ebb_error **err);
void ebb_agent_config_free (ebb_agent_config *cfg);

/* SIGHUP: parses cfg->argv and the config file again and takes over controller, handover,
 * heartbeat_interval, stats_interval, stop_grace, footprint_memory, the capacity override,
 * advertise_url, task_user, task_users, task_groups, task_uid_range, allow_root_tasks,
 * task_log_max, keep_logs, keep_logs_max and task_pids_max (others need a
 * restart; a warning says so). Returns 0, or negative with *err (cfg unchanged). */
int ebb_agent_reload_config (ebb_agent_config *cfg, ebb_error **err);

/* True when url is plain http://, loopback included: a token sent there goes to whoever
 * holds the port. */
bool ebb_agent_url_exposes_token (const char *url);

#endif
