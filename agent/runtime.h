/* Container runtimes: Docker and Podman through their Docker-compatible REST API (/v1.40)
 * over a unix socket (doc/design.md "Task, job, node").
 *
 * One ebb_rt per engine. It finds containers that carry ebb labels
 *
 *   ebb.job     job id, [A-Za-z0-9._-]{1,64}
 *   ebb.class   "short" | "long"
 *   ebb.cpu     CPU in millicores, integer in [1, 1048576]
 *   ebb.memory  memory in bytes, integer in [1, 2^50]
 *
 * resolves each one's cgroup from /proc/<State.Pid>/cgroup (the compat API reports no cgroup
 * path), and follows the engine's /events stream (type=container: start, die, oom, update,
 * destroy) with curl multi inside the caller's sd-event loop, so the loop never blocks on the
 * engine. When the engine goes away the stream is reopened with backoff; every time it is
 * (re)opened the containers are listed again and compared with what was known, so a
 * container that started, died or vanished while the stream was down is still reported.
 *
 * A container with at least one "ebb." label is *ours*. If its labels are incomplete or
 * malformed it is still reported (info.managed == false, info.reason says why), so the
 * agent can show it, but it must not be managed.
 *
 * This module never changes a container (no `docker update`, no pause): preemption is done
 * by the agent on the cgroup directly.
 *
 * All functions run on the loop thread. Errors follow lib/error.h; codes callers act on:
 *   ECONNREFUSED  the engine's socket is missing or nobody listens on it
 *   ENOENT        no such container (inspect: HTTP 404)
 *   EBB_EGONE     the container exists but is not running (no PID, or its /proc entry vanished)
 *   EBB_EPARSE    the engine answered something malformed
 *   EBB_ETIMEDOUT the engine did not answer in time
 */
#ifndef EBB_AGENT_RUNTIME_H
#define EBB_AGENT_RUNTIME_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "lib/error.h"

typedef enum
{
  EBB_RT_DOCKER = 0,
  EBB_RT_PODMAN,
} ebb_rt_kind;

typedef enum
{
  EBB_RT_CLASS_NONE = 0, /* label missing or invalid */
  EBB_RT_CLASS_SHORT,
  EBB_RT_CLASS_LONG,
} ebb_rt_class;

/* Bounds of the numeric labels. */
#define EBB_RT_CPU_MILLIS_MAX   1048576ULL
#define EBB_RT_MEMORY_BYTES_MAX (1ULL << 50)
#define EBB_RT_ID_MAX           64 /* ebb.job length */

/* One line of /proc/PID/cgroup: "hierarchy-id:controllers:path". */
typedef struct
{
  int hierarchy;     /* 0 for the cgroup2 line */
  char *controllers; /* "cpu", "cpu,cpuacct", "name=systemd", "" for cgroup2; owned */
  char *path;        /* "/docker/abc..." as the kernel prints it; owned */
} ebb_rt_cgroup_line;

/* A process's cgroups. Convenience pointers point into lines[] (never freed separately) and
 * are NULL when the host has no such hierarchy: on a v2 host only unified is set; on a
 * hybrid v1 host cpu/cpuacct/memory/... are set and unified is the (controller-less) 0:: line. */
typedef struct
{
  ebb_rt_cgroup_line *lines;
  size_t n_lines;
  const char *unified; /* the 0:: line */
  const char *cpu;
  const char *cpuacct;
  const char *memory;
  const char *freezer;
  const char *pids;
} ebb_rt_cgroups;

/* What is known about one container. Strings are owned by the struct. */
typedef struct
{
  ebb_rt_kind kind;
  char *id;   /* full id (64 hex digits) */
  char *name; /* without Docker's leading '/' */
  bool running;
  pid_t pid;        /* State.Pid; 0 when not running */
  int exit_code;    /* State.ExitCode (meaningful when !running) */
  char *started_at; /* State.StartedAt as the engine prints it, or NULL */
  /* Labels. */
  bool ours;    /* has at least one "ebb." label */
  bool managed; /* ours and every ebb label present and valid */
  char *reason; /* why not managed (NULL when managed or not ours) */
  char *job;    /* ebb.job, or NULL when missing/invalid */
  ebb_rt_class cls;
  uint64_t cpu_millis;   /* ebb.cpu, 0 when missing/invalid */
  uint64_t memory_bytes; /* ebb.memory, 0 when missing/invalid */
  /* From /proc/<pid>/cgroup when running (n_lines == 0 otherwise, or when it vanished). */
  ebb_rt_cgroups cgroups;
} ebb_rt_info;

/* Frees what info owns and zeroes it; safe on a zeroed struct and on NULL. */
void ebb_rt_info_clear (ebb_rt_info *info);

/* Frees what cg owns and zeroes it; safe on a zeroed struct and on NULL. */
void ebb_rt_cgroups_clear (ebb_rt_cgroups *cg);

/* Returns "docker" or "podman" (the agent's task `source`). */
const char *ebb_rt_kind_name (ebb_rt_kind kind);

/* Returns "short", "long" or NULL for EBB_RT_CLASS_NONE. */
const char *ebb_rt_class_name (ebb_rt_class cls);

/* ------------------------------------------------------------------------------------ */
/* Parsers (pure; exposed for the unit tests and for the agent's reconcile)               */

/* Fills info from a container inspect document (GET /containers/{id}/json) or from one
 * element of a list (GET /containers/json: Id, Names, State, Labels; no PID there, so
 * pid stays 0 and running follows State == "running"). Validates labels (sets ours,
 * managed, reason, job, cls, cpu_millis, memory_bytes). Does not read /proc.
 * Returns 0, or negative with *err (EBB_EPARSE: missing/mistyped Id, Name, State...) and
 * info zeroed. */
int ebb_rt_parse_inspect (ebb_rt_kind kind, json_object *doc, ebb_rt_info *info, ebb_error **err);
int ebb_rt_parse_list_entry (ebb_rt_kind kind, json_object *entry, ebb_rt_info *info,
                             ebb_error **err);

/* Validates the ebb labels of a Labels object (NULL or JSON null: no labels) into info's
 * label fields. Returns 1 when the container is ours, 0 when it has no ebb label; never
 * fails (an invalid label is reported through managed/reason). */
int ebb_rt_parse_labels (json_object *labels, ebb_rt_info *info);

/* Parses the text of /proc/PID/cgroup. Returns 0, or negative with *err (EBB_EPARSE, naming
 * the line) and *out zeroed. */
int ebb_rt_parse_proc_cgroup (const char *text, ebb_rt_cgroups *out, ebb_error **err);

/* Reads <proc_root>/<pid>/cgroup (proc_root NULL: "/proc") into *out. Returns 0, or negative
 * with *err: EBB_EGONE when the process no longer exists, EBB_EPARSE, or errno. */
int ebb_rt_read_proc_cgroup (const char *proc_root, pid_t pid, ebb_rt_cgroups *out,
                             ebb_error **err);

/* Event from the /events stream. */
typedef enum
{
  EBB_RT_EV_OTHER = 0, /* an event this module does not act on (create, exec_start, ...) */
  EBB_RT_EV_START,
  EBB_RT_EV_DIE,
  EBB_RT_EV_OOM,
  EBB_RT_EV_UPDATE,
  EBB_RT_EV_DESTROY,
} ebb_rt_ev_type;

typedef struct
{
  ebb_rt_ev_type type;
  char id[65];       /* the container's id as the event gives it */
  int exit_code;     /* DIE: exit code from the attributes, -1 when absent */
  int64_t time_nsec; /* event time (timeNano, else time * 1e9), 0 when absent */
} ebb_rt_raw_event;

/* Decodes one /events object (Docker's or Podman's flavour). Returns 1 with *out filled for
 * a container event, 0 for an event of another type (image, network...; *out zeroed), or
 * negative with *err (EBB_EPARSE) for a malformed one. */
int ebb_rt_parse_event (json_object *obj, ebb_rt_raw_event *out, ebb_error **err);

/* Incremental splitter of a stream of concatenated JSON values (whitespace between them),
 * fed with arbitrary chunks. */
typedef struct ebb_rt_stream ebb_rt_stream;

/* Returns a new splitter that refuses values over max_value_bytes (0: 1 MiB) or nested
 * deeper than max_depth (0: EBB_JSON_MAX_DEPTH). Never fails (aborts on OOM). */
ebb_rt_stream *ebb_rt_stream_new (size_t max_value_bytes, int max_depth);
void ebb_rt_stream_free (ebb_rt_stream *s);

/* Called for each complete value; the callee owns obj (json_object_put it). Return negative
 * to stop feeding (ebb_rt_stream_feed then returns that value). */
typedef int (*ebb_rt_stream_fn) (json_object *obj, void *userdata);

/* Feeds len bytes. Returns 0 when all were consumed (a value may be pending), the callback's
 * negative value when it stopped, or negative with *err (EBB_EPARSE: invalid JSON, too deep;
 * EBB_ERANGE: value too big). After an error the stream is unusable: drop it (the caller
 * reconnects). */
int ebb_rt_stream_feed (ebb_rt_stream *s, const char *buf, size_t len, ebb_rt_stream_fn fn,
                        void *userdata, ebb_error **err);

/* ------------------------------------------------------------------------------------ */
/* A runtime client                                                                       */

typedef struct ebb_rt ebb_rt;

typedef enum
{
  /* A container of ours is running: found by the (re)list after the stream (re)opened, by
   * a start event, or its PID changed (restart). info is resolved (pid, cgroups). May be
   * called again for the same id (after each reconnect, on a restart): the agent must treat
   * it as "here is the current state", idempotently. */
  EBB_RT_CONTAINER_STARTED,
  /* A container of ours stopped (die event, or found not running / gone at a re-list).
   * exit_code is -1 when unknown. info holds what was last known. */
  EBB_RT_CONTAINER_DIED,
  /* An update event (resources changed by someone through the engine); info re-inspected. */
  EBB_RT_CONTAINER_UPDATED,
  /* The kernel OOM-killed something in the container. */
  EBB_RT_CONTAINER_OOM,
  /* The container was removed (destroy event, or missing at a re-list). */
  EBB_RT_CONTAINER_REMOVED,
  /* The event stream is open (and a re-list is under way). */
  EBB_RT_ENGINE_CONNECTED,
  /* The event stream broke or could not be opened; the client retries with backoff. */
  EBB_RT_ENGINE_DISCONNECTED,
} ebb_rt_event_type;

typedef struct
{
  ebb_rt_event_type type;
  const char *id;          /* container id; NULL for ENGINE_* */
  const ebb_rt_info *info; /* borrowed for the callback's duration; NULL for ENGINE_* */
  int exit_code;           /* DIED: the exit code, -1 when unknown */
  const char *detail;      /* DISCONNECTED: why ("connection refused", ...), else NULL */
} ebb_rt_event;

/* Called from the loop. The callback may call ebb_rt_inspect/ebb_rt_list but must not free
 * the ebb_rt. */
typedef void (*ebb_rt_event_fn) (ebb_rt *rt, const ebb_rt_event *ev, void *userdata);

typedef struct
{
  const char *proc_root;     /* NULL: "/proc" */
  uint64_t backoff_min_usec; /* 0: 100 ms; first reconnect delay */
  uint64_t backoff_max_usec; /* 0: 2 s; doubling stops here */
  long request_timeout_ms;   /* 0: 10 s; inspect and list calls */
} ebb_rt_options;

/* Creates a client for the engine at socket_path and starts following its events on event
 * (the first connection attempt happens from the loop, not inside this call). opts may be
 * NULL. Returns the client, or NULL with *err (EINVAL: bad arguments). A missing or dead
 * engine is not an error here: the client reports ENGINE_DISCONNECTED and retries. */
ebb_rt *ebb_rt_new (sd_event *event, ebb_rt_kind kind, const char *socket_path,
                    const ebb_rt_options *opts, ebb_rt_event_fn fn, void *userdata,
                    ebb_error **err);

/* Stops following, cancels requests in flight and frees; no callback is called from here.
 * Safe on NULL. Must not be called from inside the client's own callback. */
void ebb_rt_free (ebb_rt *rt);

ebb_rt_kind ebb_rt_get_kind (const ebb_rt *rt);

/* Returns true while the event stream is open. */
bool ebb_rt_connected (const ebb_rt *rt);

/* Blocking (bounded by request_timeout_ms): inspects the container whose id, id prefix or
 * name is ref, or else the one container whose name starts with ref (EINVAL when several
 * do), and resolves its cgroups when it runs. Meant for adoption
 * (POST /v1/tasks/adopt {"container":...}). Returns 0 with *info filled (labels validated:
 * check info->managed), or negative with *err: ENOENT (no such container), EINVAL (ref not
 * of [A-Za-z0-9._-]), ECONNREFUSED, EBB_EPARSE, EBB_ETIMEDOUT; the cgroups of a container
 * whose process just exited are left empty (not an error: check info->running).
 * A running container without ebb labels inspected here is followed from then on (its
 * DIED/REMOVED, and STARTED on a restart, are reported like those of labeled ones), so a
 * container adopted by id is not lost when it exits. */
int ebb_rt_inspect (ebb_rt *rt, const char *ref, ebb_rt_info *info, ebb_error **err);

/* The same lookup without blocking, through the engine's asynchronous client (curl multi in
 * the loop): done(info, err, userdata) is called once from the loop, info filled on
 * success (the callback owns it: ebb_rt_info_clear), err set otherwise (ECANCELED when the
 * runtime is freed first). Returns 0 when started, or negative with *err (done is then not
 * called). The agent's API uses this one: an engine slow to answer never holds the loop. */
typedef void (*ebb_rt_inspect_fn) (ebb_rt_info *info, const ebb_error *err, void *userdata);
int ebb_rt_inspect_async (ebb_rt *rt, const char *ref, ebb_rt_inspect_fn done, void *userdata,
                          ebb_error **err);

/* Blocking: lists the engine's containers that carry ebb labels (running ones and, with
 * all, stopped ones too), each inspected and resolved. Returns the count with *out an array
 * (free with ebb_rt_info_array_free), or negative with *err as for ebb_rt_inspect. */
int ebb_rt_list (ebb_rt *rt, bool all, ebb_rt_info **out, ebb_error **err);

/* Frees an array returned by ebb_rt_list. */
void ebb_rt_info_array_free (ebb_rt_info *infos, size_t n);

#endif
