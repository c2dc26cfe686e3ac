/* ebb-agent internals: the daemon context (the one global-like thing), tasks, the journal,
 * the idempotency table, request validation, metrics. Only the sd-event loop thread touches
 * any of this; reclaiming cgroup writes run on the cgroup engine's worker pool and come back
 * through its eventfd (doc/design.md "Daemons"). */
#ifndef EBB_AGENT_H
#define EBB_AGENT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "cgroup/cgroup.h"
#include "lib/error.h"
#include "lib/http-client.h"
#include "lib/http-server.h"

#define EBB_AGENT_ID_MAX        64
#define EBB_AGENT_MAX_ARGV      1024
#define EBB_AGENT_MAX_ARG_BYTES 4096
#define EBB_AGENT_MAX_ENV       1024
#define EBB_AGENT_MAX_PATH      4096
#define EBB_AGENT_MAX_BODY      (256 * 1024)
/* Request ids remembered per task record (journaled) and overall (in memory). */
#define EBB_AGENT_TASK_REQUESTS 8
#define EBB_AGENT_IDEM_MAX      4096
/* Upper bounds of requested limits: 1024 CPUs, 16 TiB. */
#define EBB_AGENT_CPU_MILLIS_MAX   (1024ULL * 1000)
#define EBB_AGENT_MEMORY_BYTES_MAX (16ULL << 40)
/* cpu.max quota floor of 1000 µs per 100 ms period is 10 millicores. */
#define EBB_AGENT_CPU_MILLIS_MIN   10
#define EBB_AGENT_MEMORY_BYTES_MIN (4ULL << 20)
#define EBB_AGENT_CPU_PERIOD_USEC  100000ULL

/* ---------------------------------------------------------------------------------- */
/* Tasks and their state machine                                                        */

typedef enum
{
  EBB_AGENT_RUNNING = 0,
  EBB_AGENT_SUSPENDING,
  EBB_AGENT_SUSPENDED,
  EBB_AGENT_RESUMING,
  EBB_AGENT_EXITED,
  EBB_AGENT_N_STATES,
} ebb_agent_state;

typedef enum
{
  EBB_AGENT_SRC_LAUNCHED = 0,
  EBB_AGENT_SRC_DOCKER,
  EBB_AGENT_SRC_PODMAN,
  EBB_AGENT_SRC_CGROUP,
} ebb_agent_source;

typedef enum
{
  EBB_AGENT_EV_SUSPEND = 0, /* a suspend was journaled */
  EBB_AGENT_EV_SUSPENDED,   /* the engine finished suspending */
  EBB_AGENT_EV_RESUME,      /* a resume was journaled */
  EBB_AGENT_EV_RESUMED,     /* the engine finished resuming */
  EBB_AGENT_EV_FAILED,      /* the engine failed: back to the state before the transition */
  EBB_AGENT_EV_EXIT,        /* the process exited / the cgroup vanished */
} ebb_agent_event;

/* A remembered answer to a mutation carrying a request_id. */
typedef struct ebb_agent_reply
{
  char *request_id;
  char *key; /* "METHOD PATH": a request id reused for another request is refused */
  unsigned status;
  char *body; /* serialized JSON */
} ebb_agent_reply;

typedef struct ebb_agent_task
{
  char id[EBB_AGENT_ID_MAX + 1];
  char *job;
  uint64_t generation; /* the controller's generation of this task (0: none given) */
  bool long_class;     /* "long" (else "short") */
  ebb_agent_source source;
  ebb_agent_state state;
  ebb_agent_state prev_state; /* before a suspending/resuming transition */
  pid_t pid;
  uint64_t pid_starttime; /* /proc/PID/stat field 22: guards against PID reuse */
  char *cgroup;           /* cgroup path ("/ebb/t1") */
  uint64_t cgroup_inode;
  char *container;                   /* docker/podman container id, or NULL */
  uint64_t cpu_millis, memory_bytes; /* requested (launched) or label limits; 0: none */
  ebb_cg_original orig;              /* journaled before the first limit change */
  char *error;      /* the last failure that left the task short of its limits, or NULL */
  int64_t uid, gid; /* a launched task's user and group; -1: not ours to say (adopted) */
  int graceful;     /* the current/last suspension is graceful */
  uint64_t step_cpu_millis, step_memory_bytes;
  uint64_t reclaimed_bytes, held_bytes;
  bool exited;
  int exit_status; /* exit code, or 128+signal; -1 unknown */
  int exit_signal; /* 0 when it exited normally */
  ebb_agent_reply replies[EBB_AGENT_TASK_REQUESTS];
  unsigned n_replies;

  /* Runtime only (not journaled). */
  ebb_cg *cg;
  ebb_cg_limits applied;
  ebb_cg_stats stats;
  sd_event_source *exit_src; /* child or pidfd source */
  int pidfd;
  sd_event_source *kill_timer;
  bool is_child;
  bool deleting;
  bool forget_on_exit; /* adopted task deleted: drop it once resumed */
  uint64_t op_start_usec;
  struct ebb_agent_pending *pending; /* requests waiting for the current operation */
  struct ebb_agent *owner;
  char *json_cache; /* ebb_agent_task_json_text(), dropped by ebb_agent_task_touch() */
  size_t json_len;
} ebb_agent_task;

/* Returns the static name of a state/source ("running", "launched"), or NULL. */
const char *ebb_agent_state_name (ebb_agent_state s);
const char *ebb_agent_source_name (ebb_agent_source s);
/* Returns 0 and *out for a known name, -1 otherwise. */
int ebb_agent_state_from_name (const char *name, ebb_agent_state *out);
int ebb_agent_source_from_name (const char *name, ebb_agent_source *out);

/* The state machine: returns the state after event ev in state s, or -1 when the event is
 * not allowed there (e.g. a suspend while resuming). */
int ebb_agent_transition (ebb_agent_state s, ebb_agent_state prev, ebb_agent_event ev);

/* Applies ev to t (state and prev_state). Returns 0, or -EINVAL (with *err) when the
 * transition is not allowed; t is then unchanged. */
int ebb_agent_task_apply (ebb_agent_task *t, ebb_agent_event ev, ebb_error **err);

/* Hands the error in *local over to err (when err wants one and holds none; else frees it)
 * and returns its negative code, -EIO when *local is empty: a failure is never returned as
 * 0, whether or not the caller asked for details. */
int ebb_agent_pass_error (ebb_error **err, ebb_error **local);

/* Returns a new zeroed task with id set (exit_status -1, pidfd -1). */
ebb_agent_task *ebb_agent_task_new (const char *id);
/* Frees the task's journaled fields and the task (not its runtime sources: see daemon). */
void ebb_agent_task_free (ebb_agent_task *t);

/* Remembers an answer in the task (the oldest is dropped beyond EBB_AGENT_TASK_REQUESTS). */
void ebb_agent_task_add_reply (ebb_agent_task *t, const char *request_id, const char *key,
                               unsigned status, const char *body);

/* Returns the task as the REST API shows it (a new object). */
json_object *ebb_agent_task_to_json (const ebb_agent_task *t);

/* Returns the task's JSON text (cached until ebb_agent_task_touch(); owned by t) and its
 * length in *len. GET /v1/tasks concatenates these. */
const char *ebb_agent_task_json_text (ebb_agent_task *t, size_t *len);

/* Drops the cached JSON text: call after any change to t. */
void ebb_agent_task_touch (ebb_agent_task *t);

/* ---------------------------------------------------------------------------------- */
/* Journal: one record per task in STATE_DIR/tasks/ID.json                              */

/* Returns the recorded original limits as the journal (and GET /v1/tasks/ID) show them. */
json_object *ebb_agent_original_json (const ebb_cg_original *g);

/* Returns the journal record of t (a new object). */
json_object *ebb_agent_journal_encode (const ebb_agent_task *t);

/* Decodes a record. Returns 0 and *out (a new task), or negative (EBB_EPARSE) with *err. */
int ebb_agent_journal_decode (json_object *rec, ebb_agent_task **out, ebb_error **err);

/* Writes text to dirfd/name atomically: name.tmp, fsync, rename, fsync the directory.
 * Returns 0, or negative with *err (the old file stays intact). */
int ebb_agent_write_atomic (int dirfd, const char *name, const char *text, ebb_error **err);

/* Journals t into dirfd (the tasks directory). Returns 0, or negative with *err. */
int ebb_agent_journal_write (int dirfd, const ebb_agent_task *t, ebb_error **err);

/* Group commit: a thread that fsyncs journal records (and, once per batch, their directory)
 * so the loop never waits on the disk. The loop still writes and renames each record before
 * it acts (a crashed agent finds it: the page cache survives a process); only a power loss
 * could lose the latest records, and it ends the tasks they describe as well. */
typedef struct ebb_agent_syncer ebb_agent_syncer;
ebb_agent_syncer *ebb_agent_syncer_new (int dirfd);
void ebb_agent_syncer_flush (ebb_agent_syncer *s);
void ebb_agent_syncer_stats (ebb_agent_syncer *s, uint64_t *batches, uint64_t *files);
void ebb_agent_syncer_free (ebb_agent_syncer *s);
/* As ebb_agent_write_atomic() / ebb_agent_journal_write(), the fsyncs on syncer's thread
 * (NULL: in the call). */
int ebb_agent_write_atomic_sync (int dirfd, const char *name, const char *text,
                                 ebb_agent_syncer *syncer, ebb_error **err);
int ebb_agent_journal_write_sync (int dirfd, const ebb_agent_task *t, ebb_agent_syncer *syncer,
                                  ebb_error **err);

/* Removes t's record. Returns 0 (also when absent), or negative with *err. */
int ebb_agent_journal_remove (int dirfd, const char *id, ebb_error **err);

/* Reads every record in dirfd; calls fn for each decoded task (fn takes ownership).
 * Undecodable records are renamed NAME.bad and logged. Returns the number loaded, or
 * negative with *err when the directory cannot be read. */
int ebb_agent_journal_load (int dirfd, void (*fn) (ebb_agent_task *t, void *ud), void *ud,
                            ebb_error **err);

/* ---------------------------------------------------------------------------------- */
/* Idempotency: request_id → the first answer (bounded, FIFO eviction)                 */

typedef struct ebb_agent_idem ebb_agent_idem;

/* Returns a new table holding at most max entries. */
ebb_agent_idem *ebb_agent_idem_new (size_t max);
void ebb_agent_idem_free (ebb_agent_idem *t);
/* Returns the remembered reply for request_id, or NULL. */
const ebb_agent_reply *ebb_agent_idem_find (const ebb_agent_idem *t, const char *request_id);
/* Remembers a reply (copies; an existing entry for request_id is kept, not replaced).
 * Returns 1 when added, 0 when already present. */
int ebb_agent_idem_add (ebb_agent_idem *t, const char *request_id, const char *key, unsigned status,
                        const char *body);
/* Returns the number of entries. */
size_t ebb_agent_idem_count (const ebb_agent_idem *t);

/* ---------------------------------------------------------------------------------- */
/* Requests (validated, pure)                                                           */

typedef struct ebb_agent_launch_req
{
  char *id, *job, *cls, *cwd, *request_id;
  char *user, *group; /* names or numeric ids; NULL: --task-user and its primary group */
  char **argv, **env;
  uint64_t cpu_millis, memory_bytes;
  uint64_t generation; /* 0: none */
} ebb_agent_launch_req;

typedef struct ebb_agent_suspend_req
{
  char *mode, *request_id;
  uint64_t cpu_millis, memory_bytes;
  uint64_t generation; /* 0: not checked */
  bool graceful;
} ebb_agent_suspend_req;

typedef struct ebb_agent_adopt_req
{
  char *container, *cgroup, *id, *job, *cls, *request_id;
  uint64_t cpu_millis, memory_bytes;
  uint64_t generation; /* 0: none */
} ebb_agent_adopt_req;

typedef struct ebb_agent_simple_req
{
  char *request_id;
  uint64_t grace_millis;
  uint64_t generation; /* 0: not checked */
} ebb_agent_simple_req;

/* Each parses and validates a JSON request body (obj may be NULL only where a body is
 * optional: resume, delete). Returns 0 and fills *out (free with the matching _clear), or
 * negative (EBB_EPARSE, EBB_ERANGE) with *err naming the field. */
int ebb_agent_parse_launch (json_object *obj, ebb_agent_launch_req *out, ebb_error **err);
void ebb_agent_launch_req_clear (ebb_agent_launch_req *r);
int ebb_agent_parse_suspend (json_object *obj, ebb_agent_suspend_req *out, ebb_error **err);
void ebb_agent_suspend_req_clear (ebb_agent_suspend_req *r);
int ebb_agent_parse_adopt (json_object *obj, ebb_agent_adopt_req *out, ebb_error **err);
void ebb_agent_adopt_req_clear (ebb_agent_adopt_req *r);
int ebb_agent_parse_simple (json_object *obj, ebb_agent_simple_req *out, ebb_error **err);
void ebb_agent_simple_req_clear (ebb_agent_simple_req *r);

/* Canonicalizes a cgroup path: absolute, "//" collapsed, trailing "/" dropped, no "." or
 * ".." components, only printable non-space characters. Returns a new string, or NULL with
 * *err (EBB_EREFUSED for "..", EBB_EPARSE otherwise). */
char *ebb_agent_cgroup_canon (const char *path, ebb_error **err);

/* Returns true when canon (a canonical path) is root or below it, component-wise. */
bool ebb_agent_path_under (const char *canon, const char *root);

/* ---------------------------------------------------------------------------------- */
/* Metrics                                                                              */

#define EBB_AGENT_HIST_BUCKETS 16

typedef struct ebb_agent_hist
{
  uint64_t counts[EBB_AGENT_HIST_BUCKETS + 1]; /* the last one is +Inf */
  uint64_t n;
  double sum_sec;
} ebb_agent_hist;

/* Bucket upper bounds in seconds. */
extern const double ebb_agent_hist_bounds[EBB_AGENT_HIST_BUCKETS];

/* Adds one observation. */
void ebb_agent_hist_observe (ebb_agent_hist *h, uint64_t usec);
/* Returns the q-quantile (0..1) in seconds estimated from the buckets (upper bound). */
double ebb_agent_hist_quantile (const ebb_agent_hist *h, double q);

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

/* ---------------------------------------------------------------------------------- */
/* The daemon                                                                           */

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
  char *socket_group;             /* group of the unix sockets (mode 0660), or NULL */
  char *tls_cert;                 /* PEM certificate of the TCP listeners (with tls_key) */
  char *tls_key;                  /* PEM private key of the TCP listeners */
  char *controller_ca;            /* PEM CA bundle that verifies an https controller */
  uint64_t task_log_max_bytes;    /* a task's log beyond this moves to ID.log.1 */
  bool allow_root_tasks;
  int verbose;
  int argc; /* kept for SIGHUP */
  char **argv;
} ebb_agent_config;

typedef struct ebb_agent ebb_agent;

/* Parses the command line (and the config file it names). Returns 0 to run, 1 when
 * --help/--version/--print-config was handled (exit 0), or negative with *err (exit 2). */
int ebb_agent_parse_args (int argc, char **argv, ebb_agent_config *cfg, ebb_error **err);
void ebb_agent_config_free (ebb_agent_config *cfg);

/* SIGHUP: parses cfg->argv and the config file again and takes over controller, handover,
 * heartbeat_interval, stats_interval, stop_grace, footprint_memory, the capacity override,
 * advertise_url, task_user, allow_root_tasks and task_log_max (others need a
 * restart; a warning says so). Returns 0, or negative with *err (cfg unchanged). */
int ebb_agent_reload_config (ebb_agent_config *cfg, ebb_error **err);

/* True when url is plain http:// to a host that is not a numeric loopback address (a token
 * sent there crosses the network in clear). */
bool ebb_agent_url_exposes_token (const char *url);

/* Sets everything up (state dir, cgroups, journal reconcile, HTTP, notify). Returns 0 and
 * *out, or negative with *err. */
int ebb_agent_new (ebb_agent_config *cfg, ebb_agent **out, ebb_error **err);
/* Runs the loop until SIGTERM/SIGINT. Returns the exit code. */
int ebb_agent_run (ebb_agent *a);
void ebb_agent_free (ebb_agent *a);

#endif
