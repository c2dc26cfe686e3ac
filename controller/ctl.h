/* ebb-controller: the cluster daemon. One context (ebb_ctl) holds the configuration, the
 * sd-event loop, the HTTP servers, the async agent client, the store's handle, and the cluster
 * model: jobs with their tasks, nodes with their slots, and the libebb-policy instance that
 * decides where tasks go (the same policy code ebb-sim runs, driven here in real time). */
#ifndef EBB_CTL_H
#define EBB_CTL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "lib/conf.h"
#include "lib/error.h"
#include "lib/heap.h"
#include "lib/http-client.h"
#include "lib/http-server.h"
#include "lib/prom.h"
#include "policies/policy.h"

#include "controller/outbox-t.h"

#define EBB_CTL_MAX_TASKS_PER_JOB 10000
/* Dependency edges of one job (POST /v1/jobs "deps"): bounds the graph a DAG policy builds. */
#define EBB_CTL_MAX_EDGES_PER_JOB    100000
#define EBB_CTL_MAX_BODY_BYTES       (8 * 1024 * 1024)
#define EBB_AGENT_CPU_MILLIS_MAX_CTL (1024ULL * 1000)
/* A job's priority tier (POST /v1/jobs "priority"). */
#define EBB_CTL_PRIORITY_MIN     (-1000000)
#define EBB_CTL_PRIORITY_MAX     1000000
#define EBB_CTL_CPU_MILLIS_MIN   10
#define EBB_CTL_MEMORY_BYTES_MIN (4ULL << 20)
#define EBB_CTL_MEMORY_BYTES_MAX (16ULL << 40)
/* Agent calls under way at once (more wait in order): below an agent's 256 connections per
 * address. No cap per host: agents on unix sockets share one host name in curl, and idle
 * connections to one agent would hold back calls to another. */
#define EBB_CTL_CALLS_MAX 128
/* Settings: one table (controller/options.c) gives the command line, --help and the keys
 * of controller.conf. */
typedef struct ebb_ctl_config
{
  char **listen;
  char *state_dir;
  char *store; /* sqlite:PATH or postgresql://... (controller/store.h); NULL: in state_dir */
  char *policy;
  char **policy_opt;
  uint64_t node_timeout_usec;
  char *token_file;
  char *tls_cert; /* PEM certificate: the TCP listeners speak https (with tls_key) */
  char *tls_key;
  char *agent_ca; /* PEM CA bundle that verifies https agents; NULL: the system's */
  uint64_t tick_usec;
  uint64_t retry_max_usec;
  uint64_t keep_finished;    /* finished jobs kept in memory; older ones are read from the store */
  uint64_t max_queued_tasks; /* unfinished tasks of all jobs, beyond which submissions get 429 */
  uint64_t retain_usec;      /* finished jobs older than this leave the store (sched-evict.c) */
  uint64_t retain_jobs;      /* and the ones beyond the newest retain_jobs finished */
  uint64_t log_followers;    /* GET .../logs?follow=1 streams at once (api-logs.c) */
  int64_t verbose;
  /* High availability (doc/ha.md): etcd endpoints (NULL: one controller, no election) */
  char *etcd;
  char *etcd_prefix;
  uint64_t lease_ttl_usec;
  char *advertise_url;
  char *etcd_ca, *etcd_cert, *etcd_key; /* PEM files of etcd's TLS */
  char *etcd_user, *etcd_password_file;
  /* Not settings: how the program was started (for SIGHUP reload). */
  char *config_path;
  bool config_explicit;
  int argc;
  char **argv;
} ebb_ctl_config;

typedef enum
{
  TASK_PENDING,
  TASK_STARTING,
  TASK_RUNNING,
  TASK_SUSPENDED,
  TASK_EXITED,
  TASK_FAILED,
  TASK_KILLED,
  TASK_N_STATES,
} ebb_ctl_task_state;

typedef enum
{
  JOB_QUEUED,
  JOB_RUNNING,
  JOB_DONE,
  JOB_FAILED,
  JOB_KILLED,
} ebb_ctl_job_state;

typedef enum
{
  NODE_READY,
  NODE_LOST,
  NODE_DRAINING,
} ebb_ctl_node_state;

typedef enum
{
  CLS_SHORT,
  CLS_LONG,
  CLS_AUTO,
} ebb_ctl_class;

struct ebb_ctl_job;

/* Why a task or job waits, or why its task could not start (model-reason.c): a code the
 * API gives by name and a message for a person. Set where the state is set or where the
 * scheduler finds a task left waiting (sched-reason.c), never computed by the API. */
typedef enum
{
  REASON_NONE,
  REASON_NO_ROOM,
  REASON_LONG_WORK_PROTECTED,
  REASON_NODE_DRAINING,
  REASON_WAITING_FOR_PARENTS,
  REASON_NODE_LOST,
  REASON_PREEMPTED,
  REASON_LAUNCH_FAILED,
  REASON_HELD, /* a job whose active tasks are all held (ebbctl suspend) */
} ebb_ctl_reason_code;
#define EBB_CTL_REASON_N (REASON_LAUNCH_FAILED + 1) /* the codes, REASON_NONE included */

typedef struct ebb_ctl_reason
{
  ebb_ctl_reason_code code;
  char *message; /* NULL with REASON_NONE */
} ebb_ctl_reason;

/* What an adopting task takes on its node (its spec's "adopt", parsed once: model-task.c):
 * a container (of runtime, NULL: the agent's default) or a cgroup. */
typedef struct ebb_ctl_adopt
{
  char *node;
  char *container, *runtime;
  char *cgroup;
} ebb_ctl_adopt;

typedef struct ebb_ctl_task
{
  struct ebb_ctl_job *job;
  uint32_t idx;
  ebb_ctl_task_state state; /* written by ebb_ctl_task_set_state only (model-index.c) */
  json_object *spec;        /* argv, env, cwd, cpu_millis, memory_bytes: validated at submit */
  ebb_ctl_adopt *adopt;     /* parsed from spec (ebb_ctl_task_set_spec); NULL: not adopting */
  uint64_t cpu_millis, memory_bytes;
  uint64_t generation; /* bumped at every (re)launch; fences the agent's older copies */
  int node;            /* index in ctl->nodes, -1 (ebb_ctl_task_set_node) */
  uint32_t slot;       /* policy slot it occupies, EBB_POL_NONE */
  uint32_t pjob;       /* policy job it was queued under, EBB_POL_NONE */
  int64_t exit_status;
  bool has_exit;
  bool kill_wanted;
  bool pkill;            /* a KILL of the policy is under way: its exit re-queues the task */
  bool owed_resume;      /* suspended when a new policy took it over: it owes a RESUME */
  double owed_resume_at; /* when that RESUME was last sent */
  uint32_t suspensions;
  double suspended_sec; /* its time suspended, as its agent last reported it */
  char end_reason[32];  /* why its agent ended it ("time limit"), "" when not */
  uint32_t attempts;    /* agent call attempts for the current command */
  double started_at, finished_at;
  double suspended_at; /* since when it is suspended (model-metrics.c); 0: not known */
  bool start_seen;     /* its first start was observed (model-metrics.c) */
  uint32_t pidx;       /* index of the task inside its policy job */
  bool accounted;      /* its job was added: the counters include it */
  bool stored;         /* its row exists: a store is an UPDATE without the spec */
  /* DAG policies: its network demand and stage (its index when not given); dag_held: kept
   * out of the policy while a parent outside its batch has not ended (sched-dag.c). */
  uint64_t net_mbps;
  uint32_t stage;
  bool dag_held;
  bool held;             /* suspended by the operator (sched-hold.c): the policy never resumes it */
  ebb_ctl_reason reason; /* cleared when it leaves pending, but launch_failed */
  /* Its node's full reports received without it since it was last in one or answered
   * (sched-reconcile.c: at three it is lost there), and the last report that had it. */
  uint8_t missing_reports;
  uint32_t report_stamp;
} ebb_ctl_task;

typedef struct ebb_ctl_job
{
  uint64_t id;
  char *name;
  char *request_id;
  char *answer;      /* the first answer to POST /v1/jobs (JSON text) */
  char *body_digest; /* of its POST's body (ebb_ctl_body_digest), NULL when not known */
  ebb_ctl_class cls;
  double est_task_sec;
  int32_t priority;        /* its tier: higher wins (EBB_CTL_PRIORITY_MIN..MAX) */
  char submitted_by[24];   /* "uid=N" (unix socket peer) or "token" (TCP); "" unknown */
  ebb_ctl_job_state state; /* written by ebb_ctl_job_set_state only */
  double submitted_at, started_at, finished_at;
  uint32_t ntasks;
  ebb_ctl_task *tasks;
  /* Counters of its tasks (model-index.c): final, failed, killed, not pending. */
  uint32_t n_terminal, n_failed, n_killed, n_started;
  bool accounted;  /* it was added: the counters include it */
  uint32_t ncalls; /* agent calls under way for its tasks: not evicted before they end */
  /* Dependency edges (parent, child): nedges pairs of task indices, acyclic (api-jobs.c). */
  uint32_t *edges;
  uint32_t nedges;
  uint32_t n_held;       /* its tasks with dag_held set */
  ebb_ctl_reason reason; /* its first waiting task's, or a launch's failure */
  /* When its last pending task left pending (0: one still waits): the end of its wait. */
  double placed_at;
} ebb_ctl_job;

typedef struct ebb_ctl_node
{
  char *name;
  char *url;
  ebb_ctl_node_state state;
  uint64_t epoch;
  uint64_t cap_cpu_millis, cap_memory_bytes;
  uint64_t last_hb_usec; /* monotonic */
  double last_hb_at;     /* unix seconds */
  uint64_t last_seq;
  uint64_t fenced; /* our leader epoch once sent to it in a fence (outbox.c) */
  /* Our epoch once its fence was answered (outbox.c): until then its calls wait in held, in
   * order, and a failed fence is sent again after fence_retry. */
  uint64_t fence_ok;
  struct ebb_ctl_call **held;
  uint32_t n_held, cap_held;
  unsigned fence_attempt;
  sd_event_source *fence_retry;
  uint32_t nslots; /* slots this node offers the policy (capacity in whole CPUs, >= 1) */
  /* Its active tasks (starting, running, suspended) and what the unsuspended ones hold. */
  uint32_t ntasks;
  uint32_t nstarting; /* of them, the ones starting (no launch answer nor report yet) */
  uint64_t alloc_cpu_millis, alloc_memory_bytes;
} ebb_ctl_node;

/* Whether t adopts a container or cgroup instead of launching a command (while it has its
 * spec: a finished task gave it back). */
static inline bool
ebb_ctl_task_is_adopt (const ebb_ctl_task *t)
{
  return t->adopt != NULL;
}

/* Starting, running or suspended: on a node. */
static inline bool
ebb_ctl_task_active (const ebb_ctl_task *t)
{
  return t->state == TASK_STARTING || t->state == TASK_RUNNING || t->state == TASK_SUSPENDED;
}

/* Exited, failed or killed: over. */
static inline bool
ebb_ctl_task_terminal (const ebb_ctl_task *t)
{
  return t->state == TASK_EXITED || t->state == TASK_FAILED || t->state == TASK_KILLED;
}

/* A policy slot: one CPU of one node, the unit the single-slot policies schedule. */
typedef struct ebb_ctl_slot
{
  int node;
  ebb_ctl_task *task; /* occupant, or NULL */
  bool ghost;         /* busy for the policy but unusable (node lost or drained) */
} ebb_ctl_slot;

/* A policy job: a batch of tasks of one controller job queued into the policy together.
 * By job id, not pointer: the job may leave memory (sched-evict.c) before the policy
 * forgets the batch. */
typedef struct ebb_ctl_pjob
{
  uint64_t job;
  uint32_t *idx; /* the policy's task k is the job's task idx[k] */
  uint32_t n;
  /* DAG policies: the batch's graph (ebb_pol_job.dag points to it), freed with the batch. */
  struct ebb_pol_dag *dag;
} ebb_ctl_pjob;

/* An index by a string key (model-index.c): open addressing, entry i + 1 or 0 (empty). */
typedef struct ebb_ctl_strindex
{
  uint32_t *tab;
  size_t cap, n;
} ebb_ctl_strindex;

/* Cluster-wide counters, kept as tasks and jobs change so that no request scans them. */
typedef struct ebb_ctl_counts
{
  uint64_t running; /* starting or running */
  uint64_t suspended;
  uint64_t alloc_cpu_millis, alloc_memory_bytes; /* of the running ones */
  uint64_t queued_jobs[3];                       /* by class */
  uint64_t unfinished; /* tasks not in a final state: the cap of cfg->max_queued_tasks */
  /* Pending tasks and queued jobs by their reason's code (model-reason.c): /metrics. */
  uint64_t pending_by_reason[EBB_CTL_REASON_N], queued_by_reason[EBB_CTL_REASON_N];
} ebb_ctl_counts;

/* A policy event that the environment delivers after the current one (probes, wakes). */
typedef struct ebb_ctl_pevent
{
  uint32_t kind, node, job, arg;
} ebb_ctl_pevent;

/* A policy message kept until its due time (sched-timed.c): heap entries ordered by (due,
 * seq), seq counting emissions so that messages due at the same time keep their order. */
typedef struct ebb_ctl_timed
{
  double due; /* the policy's clock (ebb_ctl_pol_now) */
  uint64_t seq;
  ebb_ctl_pevent ev;
} ebb_ctl_timed;
EBB_HEAP_TYPE (ebb_ctl_timed_heap, ebb_ctl_timed) /* functions in sched-timed.c */

typedef struct ebb_ctl
{
  ebb_ctl_config *cfg;
  sd_event *event;
  ebb_http_server *http_unix, *http_tcp;
  ebb_http_client *client;
  ebb_http_client *log_client; /* log streams from agents (api-logs.c); NULL until one */
  unsigned log_followers;      /* of them, with follow */
  struct ebb_ctl_store *store; /* controller/store.h: an opaque handle, NULL: none */
  char *token;
  sd_event_source *sig_src[3];
  sd_event_source *timer_src;
  sd_event_source *post_src; /* the end of each loop iteration: ebb_ctl_flush */
  uint64_t watchdog_usec;
  bool stopping;
  bool store_lost; /* a commit failed: nothing more leaves (ebb_ctl_flush) */
  double start_at;
  uint32_t report_stamp; /* of the full node report being read (sched-reconcile.c) */
  /* Leadership (controller/leader.c, model-leader.c; doc/ha.md): the epoch every mutating
   * agent call carries, whether this instance acts, and the leader as last known. */
  struct ebb_etcd *etcd;         /* NULL: one controller, leading from its start */
  struct ebb_election *election; /* on etcd */
  uint64_t epoch;                /* ours: the election key's create_revision, or +1 per start */
  char *epoch_header;            /* "Ebb-Leader-Epoch: E" */
  bool leading;                  /* won, store loaded, agents being fenced */
  bool deposed;                  /* lost the lead, or an agent saw a higher epoch: exit 3 */
  char *advertise_url;           /* ours, as clients reach us */
  char *self_id;                 /* ours: HOST:PID */
  char *leader_id, *leader_url;  /* the leader's as last read (ours when leading) */
  uint64_t leader_epoch;

  ebb_ctl_job **jobs; /* in memory, by id: the unfinished ones and the newest finished */
  size_t n_jobs, cap_jobs;
  uint64_t next_job_id;
  uint64_t n_jobs_stored; /* every job of the store, evicted ones included */
  /* Evicted jobs and their tasks by state (the metrics count them with the ones in memory). */
  uint64_t evicted_jobs[JOB_KILLED + 1], evicted_tasks[TASK_N_STATES];
  uint64_t jobs_evicted;                /* evictions since the start */
  uint64_t pruned_at_usec, jobs_pruned; /* retention (sched-evict.c): last run, jobs since start */
  ebb_ctl_node **nodes;
  size_t n_nodes, cap_nodes;
  ebb_ctl_strindex node_index; /* nodes by name */
  ebb_ctl_strindex rid_index;  /* jobs by request id */
  ebb_ctl_counts counts;

  /* The policy over the slots of the ready nodes at its last (re)build. */
  ebb_pol *pol;
  ebb_pol_params params;
  ebb_ctl_slot *slots;
  uint32_t n_slots;
  ebb_pol_job *pjobs_pol;
  ebb_ctl_pjob *pjobs;
  uint32_t n_pjobs, cap_pjobs;
  /* Policy job ids the policy forgot (ebb_pol_job_forget), given to the next batches: the
   * arrays by policy job id stay as long as the batches under way, not all ever queued. */
  uint32_t *pjob_free;
  uint32_t n_pjob_free, cap_pjob_free;
  /* Policy job ids whose last task ended while probes of theirs were still alive (surplus
   * probes queued or rotating): the policy refused to forget them then; asked again at
   * every policy tick (ebb_ctl_pjobs_forget_later). */
  uint32_t *pjob_later;
  uint32_t n_pjob_later, cap_pjob_later;
  ebb_ctl_pevent *pev;
  size_t n_pev, cap_pev;
  /* ops->timed_probes: the PROBEs and WAKEs waiting for their due time, a binary heap by
   * (due, seq), and the CLOCK_MONOTONIC timer armed for the earliest (sched-timed.c). */
  ebb_ctl_timed_heap timed;
  uint64_t timed_seq;
  sd_event_source *timed_src;
  uint64_t timed_armed_usec; /* what timed_src is set to; 0: off */
  uint64_t timed_delivered;  /* messages delivered by it since the start */
  double pol_last;           /* the latest time given to the policy (ebb_ctl_pol_now) */
  bool in_drain;
  bool rebuild_wanted;
  bool res_mode;   /* the policy schedules resource vectors: one policy node per agent */
  size_t n_placed; /* tasks placed through the current policy instance */
  double last_pol_tick;
  uint64_t last_short_job; /* the job a preemption is done for (decision log) */
  /* The task an operator's hold or release is for while the policy answers it, and who
   * asked (sched-hold.c): its SUSPEND or RESUME is the operator's, not the policy's. */
  struct
  {
    ebb_ctl_task *task;
    const char *by;
    bool rejoin;        /* a held task joining a new policy: suspended already, no call */
    bool rejoin_wanted; /* held tasks joined a new policy as running (sched-place.c) */
    bool acted;         /* the policy's answer was a call (ebb_ctl_hold_act) */
  } hold_op;

  struct
  {
    uint64_t jobs_submitted, launches, kills, suspends, resumes, tasks_lost, heartbeats,
        heartbeats_refused, agent_calls, agent_retries, agent_errors, bad_requests;
    uint64_t preempt_kills; /* the policy's kills (preemptions), a part of kills */
    uint64_t decision_usec_sum, decisions_timed;
  } m;
  /* The histograms of GET /metrics (model-metrics.c): a short job's tasks from submission
   * to running, a task's time suspended, a job's arrival to its launches sent. */
  struct
  {
    ebb_prom_hist start_delay, suspended, decision;
  } hist;
  /* Job arrival -> its launches handed to curl multi, the last 1024 jobs (usec). */
  uint64_t arrival_usec[1024];
  size_t n_arrival;
  /* Agent calls decided in this loop iteration, started by ebb_ctl_flush once the store
   * committed them; and the arrival times of the jobs they are for. */
  ebb_ctl_call **outbox;
  size_t n_outbox, cap_outbox;
  ebb_ctl_call *retrying; /* the calls waiting for a retry: freed with the outbox at the end */
  ebb_ctl_call_route call_routes[CALL_N_KINDS]; /* by kind (ebb_ctl_outbox_route) */
  ebb_ctl_fence_handler on_fence;               /* a fence's task list (ebb_ctl_outbox_route) */
  struct
  {
    uint64_t job, usec;
  } * arrivals;
  size_t n_arrivals, cap_arrivals;
} ebb_ctl;

/* model.c, model-index.c: states' names, the clock, jobs and nodes found and added. */
ebb_ctl_job *ebb_ctl_job_find (ebb_ctl *c, uint64_t id);
ebb_ctl_node *ebb_ctl_node_find (ebb_ctl *c, const char *name, int *idx);
void ebb_ctl_add_job (ebb_ctl *c, ebb_ctl_job *j);
int ebb_ctl_add_node (ebb_ctl *c, ebb_ctl_node *n);
void ebb_ctl_job_free (ebb_ctl_job *j);
const char *ebb_ctl_task_state_name (ebb_ctl_task_state s);
const char *ebb_ctl_job_state_name (ebb_ctl_job_state s);
const char *ebb_ctl_node_state_name (ebb_ctl_node_state s);
const char *ebb_ctl_class_name (ebb_ctl_class c);
double ebb_ctl_now (void);
/* The id the agent knows task idx of job by in its generation gen: "j<job>-t<idx>-g<gen>"
 * (a task started again gets a new generation, so a new agent task). Owned by the caller. */
char *ebb_ctl_task_agent_id (uint64_t job, uint32_t idx, uint64_t gen);
/* A node's policy slots: one per whole CPU of its capacity, at least one. */
uint32_t ebb_ctl_node_slots (uint64_t cap_cpu_millis);

/* model-leader.c */
/* True while this instance may act: it leads (single mode: from its start) and, on etcd, has
 * renewed its lease within the renew deadline, read from the clock now (so false from the
 * first instruction after a SIGSTOP that outlasted it). */
bool ebb_ctl_leading (const ebb_ctl *c);
/* This instance must never act again (why: for the log): the loop ends and the program
 * exits non-zero (EBB_CTL_EXIT_DEPOSED) for systemd to start it again as a standby. */
void ebb_ctl_depose (ebb_ctl *c, const char *why);
#define EBB_CTL_EXIT_DEPOSED 3

/* model-task.c */
/* Sets t's spec (taken) and what is parsed of it (t->adopt); NULL: none. */
void ebb_ctl_task_set_spec (ebb_ctl_task *t, json_object *spec);
/* Gives back t's spec and what was parsed of it (a finished task, a freed job). */
void ebb_ctl_task_drop_spec (ebb_ctl_task *t);
/* Reads t's network demand, stage and parents (edges appended to j) from its spec's "dag"
 * member (api-jobs.c writes it). Returns 0, -1 for a bad parent list. */
int ebb_ctl_dag_load (ebb_ctl_job *j, ebb_ctl_task *t, json_object *spec);

/* model-reason.c */
/* The code's name in the API ("no_room", ...); NULL for REASON_NONE. */
const char *ebb_ctl_reason_name (ebb_ctl_reason_code code);
/* The code of name (as ebb_ctl_reason_name gives it); REASON_NONE for NULL or unknown. */
ebb_ctl_reason_code ebb_ctl_reason_code_of (const char *name);
/* Sets *r to code with a printf-style message (code REASON_NONE clears it). */
void ebb_ctl_reason_set (ebb_ctl_reason *r, ebb_ctl_reason_code code, const char *fmt, ...)
    EBB_PRINTF (3, 4);
void ebb_ctl_reason_clear (ebb_ctl_reason *r);
/* Whether code says why a task waits (the scheduler's to refresh), not an event's record
 * (node_lost, preempted: kept until the task leaves pending; launch_failed: kept). */
bool ebb_ctl_reason_is_wait (ebb_ctl_reason_code code);
/* Set t's (j's) reason as ebb_ctl_reason_set does, keeping the counters by reason. */
void ebb_ctl_task_set_reason (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_reason_code code,
                              const char *fmt, ...) EBB_PRINTF (4, 5);
void ebb_ctl_job_set_reason (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_reason_code code, const char *fmt,
                             ...) EBB_PRINTF (4, 5);
/* Adds (sign 1) or removes (-1) a counted task's (job's) place in the counters by reason:
 * a pending task's, a queued job's (model-index.c, as its state changes). */
void ebb_ctl_count_task_reason (ebb_ctl *c, const ebb_ctl_task *t, int sign);
void ebb_ctl_count_job_reason (ebb_ctl *c, const ebb_ctl_job *j, int sign);

/* model-index.c: the node index by name, the counters, the writers of states. */
/* Builds the index by request id again (the jobs moved in the array). */
void ebb_ctl_index_jobs_again (ebb_ctl *c);
/* Returns the digest of a request's body text (the caller's to free): its length and a
 * 64-bit FNV-1a hash. It tells a retry of a request id from a different request; not a
 * defence against collisions crafted by the client, which gains nothing from one. */
char *ebb_ctl_body_digest (const char *text);
/* Returns the job submitted with request_id (the newest), or NULL (also for NULL). */
ebb_ctl_job *ebb_ctl_index_find_rid (const ebb_ctl *c, const char *request_id);
/* The only writers of a task's state and node: each moves the task's share of the
 * counters from what it had to what it gets (a task of a job not added yet only changes). */
void ebb_ctl_task_set_state (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state s);
void ebb_ctl_task_set_node (ebb_ctl *c, ebb_ctl_task *t, int node);
/* Sets t's allocation, moving its share of the counters from the old one (a task's
 * allocation is changed only through it). */
void ebb_ctl_task_set_alloc (ebb_ctl *c, ebb_ctl_task *t, uint64_t cpu_millis,
                             uint64_t memory_bytes);
/* The only writer of a job's state: its share of the queued counters follows it. */
void ebb_ctl_job_set_state (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_job_state s);
/* The counters of job j, which leaves memory, go to the evicted ones (the metrics). */
void ebb_ctl_count_evict_job (ebb_ctl *c, const ebb_ctl_job *j);
/* Returns the job of id among v[0..n), which are in id order, or NULL. */
ebb_ctl_job *ebb_ctl_job_search (ebb_ctl_job *const *v, size_t n, uint64_t id);
void ebb_ctl_index_free (ebb_ctl *c);

/* model-metrics.c */
/* Sets the buckets of c's histograms (a zeroed ebb_ctl has latency buckets for all). */
void ebb_ctl_metrics_init (ebb_ctl *c);
/* Observes t's move from state `from` to its state: its first start (a short job's start
 * delay), the end of a suspension. Called by the writer of a task's state only. */
void ebb_ctl_metrics_task_moved (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state from);

#endif
