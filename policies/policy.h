/* libebb-policy: pure scheduling policies behind one interface, driven by the simulator in
 * virtual time and by the controller in real time.
 *
 * The model. A cluster of `nnodes` single-slot nodes, each with a FIFO queue of probes
 * (reservations for "one task of job j"). Jobs live in an array owned by the environment
 * (ebb_pol_job); the policy reads their size and estimate and keeps its own counters in them.
 *
 * Events in (each takes `now_sec`, the environment's clock; a policy never reads a clock):
 *   ebb_pol_job_arrived     a job was submitted
 *   ebb_pol_probe_arrived   a probe sent earlier (EBB_POL_ACT_PROBE) reached its node
 *   ebb_pol_task_finished   a task launched earlier (EBB_POL_ACT_LAUNCH) ended
 *   ebb_pol_node_wake       a node's round trip for a surplus probe ended (EBB_POL_ACT_WAKE)
 *   ebb_pol_tick            periodic call (policies that need timers)
 * Actions out: appended to an array the environment drains after every event
 * (ebb_pol_actions / ebb_pol_clear_actions). Each carries the delay after which the
 * environment must deliver its consequence; the simulator adds it to virtual time, the
 * controller sees real network latency instead.
 *
 * Late binding: when a probe reaches the head of an idle node's queue the node asks the job
 * for a task; the policy answers at once and the environment charges the round trip
 * (2 x net delay) before the task starts. A job with no task left answers "none": the node
 * is free again after the round trip (EBB_POL_ACT_WAKE), unless the probe was cancelled
 * (cancel_probes), in which case it leaves the queue at no cost.
 *
 * Performance: one indirect call per event into the policy's ops; probes come from a pool
 * with a free list and actions from a reused array, so steady state does not allocate. */
#ifndef EBB_POLICY_H
#define EBB_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"
#include "lib/rng.h"

#define EBB_POL_NONE UINT32_MAX

/* A job as the environment describes it, plus the policy's per-job counters. */
typedef struct ebb_pol_job
{
  double submit_sec;    /* set by the environment */
  double est_task_sec;  /* estimated task runtime (Hawk: mean of the job's tasks) */
  double cancel_at_sec; /* probes of this job still queued at this time are dropped */
  uint32_t ntasks;      /* set by the environment */
  uint32_t launched;    /* tasks handed to nodes so far */
  uint32_t finished;    /* tasks finished */
  uint8_t is_long;      /* classified by the policy's cutoff at arrival */
  uint8_t pad[3];
} ebb_pol_job;

typedef enum
{
  EBB_POL_ACT_PROBE,  /* deliver probe `arg` of job `job` to `node` after delay_sec */
  EBB_POL_ACT_LAUNCH, /* task `arg` of job `job` starts on `node` after delay_sec */
  EBB_POL_ACT_WAKE,   /* `node` is free again after delay_sec (surplus probe round trip) */
  EBB_POL_ACT_STEAL,  /* informational: `node` stole `arg` probes from node `job` */
  EBB_POL_ACT_CANCEL, /* informational: job `job` is fully launched; cancel its probes */
} ebb_pol_action_kind;

typedef struct ebb_pol_action
{
  double delay_sec;
  uint32_t kind;
  uint32_t node;
  uint32_t job;
  uint32_t arg;
} ebb_pol_action;

/* Parameters common to the policies; a policy ignores what it does not use. */
typedef struct ebb_pol_params
{
  uint32_t nnodes;
  uint64_t seed;
  double net_delay_sec;         /* one-way message delay (Hawk: 0.5 ms) */
  double cutoff_sec;            /* est_task_sec >= cutoff: long job */
  double probe_ratio;           /* probes per task (Sparrow's d) */
  double short_part_pct;        /* Hawk: share of nodes reserved for short jobs */
  uint32_t steal_cap;           /* Hawk: nodes an idle node contacts */
  uint32_t steal_limit;         /* Hawk: max probes taken from one victim (EBB_POL_NONE: all) */
  int cancel_probes;            /* cancel surplus probes once a job is fully launched */
  int sample_replacement;       /* probes drawn with replacement (else distinct nodes) */
  int no_steal;                 /* Hawk ablation: no work stealing */
  int no_partition;             /* Hawk ablation: no reserved short partition */
  int no_central;               /* Hawk ablation: long jobs probed like short ones */
  double rotation_interval_sec; /* Peacock: period of the ring's rotation rounds */
  double threshold_scale;       /* Peacock: threshold = arrival + scale x average load */
} ebb_pol_params;

/* Fills p with the defaults: 0.5 ms, probe ratio 2, 2% short partition, steal cap 10,
 * unlimited steal size, no cancellation, sampling with replacement. */
void ebb_pol_params_default (ebb_pol_params *p);

typedef struct ebb_pol ebb_pol;

/* What every policy implements. Hooks that are NULL are skipped. */
typedef struct ebb_pol_ops
{
  const char *name;
  const char *summary;
  size_t priv_size; /* bytes of private state allocated (zeroed) before init */
  int (*init) (ebb_pol *p, ebb_error **err);
  void (*fini) (ebb_pol *p);
  /* Place a job: send probes or launch tasks. */
  void (*job_arrived) (ebb_pol *p, double now_sec, uint32_t job);
  /* The node is free and its queue is empty; return 1 if work was added to its queue. */
  int (*node_idle) (ebb_pol *p, double now_sec, uint32_t node);
  /* A task of `job` was bound to `node` (its probe left the queue). */
  void (*task_bound) (ebb_pol *p, double now_sec, uint32_t node, uint32_t job);
  void (*task_finished) (ebb_pol *p, double now_sec, uint32_t node, uint32_t job);
  void (*tick) (ebb_pol *p, double now_sec);
  /* Optional: place an arriving probe in node's queue (anywhere, or send it on); without
   * it the probe is appended. The core serves the node afterwards if it is free. */
  void (*probe_enqueue) (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe);
  /* Optional: unlink and return the probe node serves next (EBB_POL_NONE: none); without
   * it the head of the queue. */
  uint32_t (*probe_pick) (ebb_pol *p, double now_sec, uint32_t node);
} ebb_pol_ops;

/* Per-node state shared by the queue-based policies. */
typedef struct ebb_pol_node
{
  uint32_t head, tail; /* probe queue (EBB_POL_NONE when empty) */
  uint32_t qlen;
  uint32_t qlong;       /* probes of long jobs in the queue */
  uint8_t busy;         /* slot taken: a task runs or a round trip is pending */
  uint8_t running_long; /* the task in the slot belongs to a long job */
  uint8_t pad[2];
} ebb_pol_node;

typedef struct ebb_pol_probe
{
  uint32_t job;
  uint32_t next;
} ebb_pol_probe;

/* Counters a policy keeps for reports. */
typedef struct ebb_pol_stats
{
  uint64_t probes_sent;
  uint64_t probes_surplus;   /* reached a queue head after the job was fully launched */
  uint64_t probes_cancelled; /* dropped at no cost by a cancellation */
  uint64_t steal_attempts;   /* victims contacted */
  uint64_t steals;           /* successful steals */
  uint64_t probes_stolen;
} ebb_pol_stats;

struct ebb_pol
{
  const ebb_pol_ops *ops;
  ebb_pol_params params;
  ebb_rng rng;
  ebb_pol_job *jobs; /* environment's array; may be replaced with ebb_pol_set_jobs */
  ebb_pol_node *nodes;
  ebb_pol_probe *probes;
  uint32_t probes_cap, probes_free;
  ebb_pol_action *acts;
  size_t nacts, acts_cap;
  uint32_t *scratch; /* a permutation of node ids for sampling without replacement */
  ebb_pol_stats stats;
  void *priv;
};

/* Returns the ops of the policy called name, or NULL. */
const ebb_pol_ops *ebb_pol_lookup (const char *name);
/* Returns the registered policies, NULL-terminated. */
const ebb_pol_ops *const *ebb_pol_list (void);

/* Returns a new policy instance over params->nnodes nodes and the environment's job array,
 * or NULL with *err set (unknown name, bad parameter). */
ebb_pol *ebb_pol_new (const char *name, const ebb_pol_params *params, ebb_pol_job *jobs,
                      ebb_error **err);
void ebb_pol_free (ebb_pol *p);
/* Points the policy at a new job array (after the environment grew it). */
void ebb_pol_set_jobs (ebb_pol *p, ebb_pol_job *jobs);

/* Events. They never fail: bad ids are programming errors and abort. */
void ebb_pol_job_arrived (ebb_pol *p, double now_sec, uint32_t job);
void ebb_pol_probe_arrived (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe);
void ebb_pol_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job);
void ebb_pol_node_wake (ebb_pol *p, double now_sec, uint32_t node);
void ebb_pol_tick (ebb_pol *p, double now_sec);

static inline const ebb_pol_action *
ebb_pol_actions (const ebb_pol *p, size_t *n)
{
  *n = p->nacts;
  return p->acts;
}

static inline void
ebb_pol_clear_actions (ebb_pol *p)
{
  p->nacts = 0;
}

/* Helpers for policy implementations (the files under policies/), not for environments. */
void ebb_pol_emit (ebb_pol *p, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg,
                   double delay_sec);
/* Sends one probe of job to node (arrives after one network delay). */
void ebb_pol_send_probe (ebb_pol *p, uint32_t node, uint32_t job);
/* Sends `count` probes of job to nodes drawn from [first, first + n), with or without
 * replacement according to params. */
void ebb_pol_send_probes_random (ebb_pol *p, uint32_t job, uint32_t count, uint32_t first,
                                 uint32_t n);
/* Returns the number of probes the probe ratio gives for job (at least its task count). */
uint32_t ebb_pol_probe_count (const ebb_pol *p, uint32_t job);
/* Binds the next task of job to node now: marks the node busy and emits LAUNCH after one
 * round trip. Returns 0, or -1 when the job has no task left. */
int ebb_pol_bind_task (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, double delay_sec);
/* Appends probe (an index from the pool) to node's queue. */
void ebb_pol_queue_append (ebb_pol *p, uint32_t node, uint32_t probe);
/* Returns 1 when a queued probe of job must be dropped at now (cancelled). */
int ebb_pol_probe_dead (const ebb_pol *p, double now_sec, uint32_t job);
void ebb_pol_probe_release (ebb_pol *p, uint32_t probe);
/* Returns a new probe of job from the pool, not queued and not sent. */
uint32_t ebb_pol_probe_new (ebb_pol *p, uint32_t job);

extern const ebb_pol_ops ebb_pol_fifo_ops;
extern const ebb_pol_ops ebb_pol_sparrow_ops;
extern const ebb_pol_ops ebb_pol_hawk_ops;
extern const ebb_pol_ops ebb_pol_eagle_ops;
extern const ebb_pol_ops ebb_pol_peacock_ops;

#endif
