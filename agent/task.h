/* Tasks (agent/task.c): the record of one task, its state machine, its JSON. Pure: the
 * bottom of the agent with the journal, the idempotency table, requests and options. */
#ifndef EBB_AGENT_TASK_H
#define EBB_AGENT_TASK_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "cgroup/cgroup.h"
#include "lib/error.h"

#define EBB_AGENT_ID_MAX   64
#define EBB_AGENT_MAX_PATH 4096
/* Request ids remembered per task record (journaled). */
#define EBB_AGENT_TASK_REQUESTS 8
/* Upper bounds of requested limits: 1024 CPUs, 16 TiB. */
#define EBB_AGENT_CPU_MILLIS_MAX   (1024ULL * 1000)
#define EBB_AGENT_MEMORY_BYTES_MAX (16ULL << 40)
/* cpu.max quota floor of 1000 µs per 100 ms period is 10 millicores. */
#define EBB_AGENT_CPU_MILLIS_MIN   10
#define EBB_AGENT_MEMORY_BYTES_MIN (4ULL << 20)
#define EBB_AGENT_CPU_PERIOD_USEC  100000ULL

/* The end_reason of a task the agent ended for its time limit. */
#define EBB_AGENT_END_TIME_LIMIT "time limit"

struct ebb_agent;
struct ebb_agent_pending;

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
  uint64_t time_limit_sec; /* of running time; 0: none */
  int notify_signal;       /* sent when suspended and when resumed; 0: none */
  char *end_reason;        /* why the agent ended it (EBB_AGENT_END_TIME_LIMIT), or NULL */
  /* Accounting, CLOCK_REALTIME µs (journaled: a restarted agent goes on counting). */
  uint64_t started_usec;         /* launched or adopted */
  uint64_t ended_usec;           /* exited; 0: alive */
  uint64_t suspended_usec;       /* in suspensions that ended */
  uint64_t suspended_since_usec; /* when the one under way began; 0: none */
  uint64_t suspensions;

  /* Runtime only (not journaled). */
  /* The current step's "booked" (see ebb_agent_step): an interrupted step is not replayed
   * after a crash (agent/reconcile.c), so nothing needs it then. */
  uint64_t step_booked_cpu_millis, step_booked_memory_bytes;
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
/* As ebb_agent_task_apply(), the accounting done at now_usec (CLOCK_REALTIME). */
int ebb_agent_task_apply_at (ebb_agent_task *t, ebb_agent_event ev, uint64_t now_usec,
                             ebb_error **err);

/* Brings t's accounting up to its state at now_usec (idempotent; call after setting the
 * state by hand): a suspension begins when the task leaves running for suspending and
 * ends when it runs again or exits. */
void ebb_agent_task_account (ebb_agent_task *t, uint64_t now_usec);
/* Returns the time t spent suspended, the suspension under way counted up to now_usec. */
uint64_t ebb_agent_task_suspended_usec (const ebb_agent_task *t, uint64_t now_usec);
/* Returns the time t ran up to now_usec (or its exit): its life less its suspended time. */
uint64_t ebb_agent_task_running_usec (const ebb_agent_task *t, uint64_t now_usec);
/* Whether t ran for longer than its time limit at now_usec. */
bool ebb_agent_task_over_limit (const ebb_agent_task *t, uint64_t now_usec);

/* Adds what the journal keeps of a launch's options and of the accounting to o, and reads
 * it back from a record (absent members leave t as it is). */
void ebb_agent_task_add_accounting (json_object *o, const ebb_agent_task *t);
int ebb_agent_task_get_accounting (json_object *o, ebb_agent_task *t, ebb_error **err);

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
/* Adds what names t to o, the same in the API and the journal: id, job, class and
 * generation (when set). */
void ebb_agent_task_add_identity (json_object *o, const ebb_agent_task *t);

/* Returns the task's JSON text (cached until ebb_agent_task_touch(); owned by t) and its
 * length in *len. GET /v1/tasks concatenates these. */
const char *ebb_agent_task_json_text (ebb_agent_task *t, size_t *len);

/* Drops the cached JSON text: call after any change to t. */
void ebb_agent_task_touch (ebb_agent_task *t);

/* Returns the recorded original limits as the journal (and GET /v1/tasks/ID) show them. */
json_object *ebb_agent_original_json (const ebb_cg_original *g);

#endif
