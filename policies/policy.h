/* libebb-policy: pure scheduling policies behind one interface, driven by the simulator in
 * virtual time and by the controller in real time.
 *
 * The model. A cluster of `nnodes` nodes, each with a FIFO queue of probes (reservations for
 * "one task of job j"). Jobs live in an array owned by the environment (ebb_pol_job); the
 * policy reads their size, estimate and demand and keeps its own counters in them.
 *
 * Resources. A node has a capacity vector <cpu_millis, memory_bytes> (ebb_pol_res); every
 * task of a job has the job's demand vector; a node runs as many tasks as fit. The
 * single-slot model of fifo/sparrow/hawk is the special case "capacity 1 slot, demand 1
 * slot": params.node_cap left at {0, 0} (slot mode) means every node holds exactly one task
 * and demands are ignored; the core then keeps no resource state at all, so the slot
 * policies pay nothing for it. A policy that needs resources (ops->needs_resources, e.g.
 * bigc) refuses slot mode. The environment states capacities in params.node_cap (every
 * node) and may correct one node with ebb_pol_node_capacity (the controller: from the
 * agent's GET /v1/node); it states a job's per-task demand in ebb_pol_job.demand before
 * calling ebb_pol_job_arrived.
 *
 * The job array starts zeroed (calloc): the core keeps per-task state in it (tasks) and
 * frees that state in ebb_pol_free, so the array must outlive the policy.
 *
 * Naming. A task is named by (job, task, node): `job` is the index of the job in the
 * environment's job array, `task` the index of the task inside the job (0 .. ntasks-1),
 * `node` the index of the node (0 .. nnodes-1). Nothing else (no simulator event, no agent
 * task id) crosses the interface; the controller maps (job, task) to the agent's task id and
 * `node` to the agent.
 *
 * Events in (each takes `now_sec`, the environment's clock; a policy never reads a clock):
 *   ebb_pol_job_arrived     a job was submitted
 *   ebb_pol_probe_arrived   a probe sent earlier (EBB_POL_ACT_PROBE) reached its node
 *   ebb_pol_task_finished   a task launched earlier (EBB_POL_ACT_LAUNCH) ended on its own
 *   ebb_pol_node_wake       a node's round trip for a surplus probe ended (EBB_POL_ACT_WAKE)
 *   ebb_pol_tick            periodic call, every params.tick_sec when that is > 0
 *   ebb_pol_task_reclaimed  part or all of a SUSPEND's amount is free again (resources)
 *   ebb_pol_task_resumed    a RESUME completed: the task runs at its full demand again
 *   ebb_pol_task_killed     a task is gone before finishing (after KILL, or lost): its
 *                           progress is lost and its resources are free
 * Actions out: appended to an array the environment drains after every event
 * (ebb_pol_actions / ebb_pol_clear_actions). Each carries the delay after which the
 * environment must deliver its consequence; the simulator adds it to virtual time, the
 * controller sees real network latency instead. Resource actions:
 *   LAUNCH  (node, job, task=arg, amount)  start the task with `amount` (its demand)
 *   SUSPEND (node, job, task=arg, mode, amount)  take `amount` away from the running task:
 *           mode IMMEDIATE brings it down to the footprint (amount = everything above the
 *           booked footprint: ebb_pol_booked_footprint), GRACEFUL takes one step of `amount`. CPU
 * is free at once, memory after the reclaim cost: the environment reports what is free with
 *           ebb_pol_task_reclaimed (any number of calls per SUSPEND, the last one with
 *           done = 1: exactly one done = 1 per SUSPEND, in the order they were sent; the
 *           sum of `freed` may be less than asked when memory cannot be reclaimed, e.g. no
 *           swap: the policy must trust `freed`, not `amount`). Several SUSPENDs of one
 *           task may be in flight (graceful steps).
 *   RESUME  (node, job, task=arg)  give the task its full demand again; the policy counts
 *           the resources as taken from the moment it emits RESUME; the environment answers
 *           ebb_pol_task_resumed after the resume cost.
 *   KILL    (node, job, task=arg)  end the task; the environment answers
 *           ebb_pol_task_killed (resources free, progress lost). The policy re-queues the
 *           task, or after params.kill_attempts kills of one task fails the job (FAIL).
 *   FAIL    (job)  informational: the job will not complete; the environment reports it.
 *
 * The two environments.
 *   Simulator (virtual time): applies each action at now + delay_sec; a task advances at
 *   rate min(1, cpu given / cpu demanded), not at all while suspended below its demand's
 *   CPU footprint; reclaim and resume costs come from its own flags (seconds per GiB); it
 *   calls ebb_pol_tick every params.tick_sec of virtual time.
 *   Controller (real time): LAUNCH becomes POST /v1/tasks on the node's agent (cpu_millis,
 *   memory_bytes = amount), SUSPEND becomes POST /v1/tasks/{id}/suspend
 *   {"mode": "immediate"|"graceful", "cpu_millis": amount.cpu_millis, "memory_bytes":
 *   amount.memory_bytes}, RESUME becomes POST /v1/tasks/{id}/resume, KILL becomes DELETE
 *   /v1/tasks/{id}; the agent's reports come back as the events above (exited ->
 *   task_finished, suspended -> task_reclaimed with the bytes actually released, done = 1,
 *   resumed -> task_resumed, deleted or lost -> task_killed). It calls ebb_pol_tick from a
 *   real timer every params.tick_sec. delay_sec of resource actions is advisory there; a
 *   PROBE or WAKE is delivered at once, or after its delay_sec for a policy with
 *   ops->timed_probes (at its due time: `now` is then the due time, never behind a time
 *   the policy was given before).
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

/* A resource vector: a node's capacity, a task's demand or allocation, an amount to take. */
typedef struct ebb_pol_res
{
  int64_t cpu_millis; /* 1000 = one CPU */
  int64_t memory_bytes;
} ebb_pol_res;

/* What the job's class is, when the environment knows it (JSON-lines traces may say). */
enum
{
  EBB_POL_CLASS_BY_CUTOFF = 0, /* the policy classifies by params.cutoff_sec */
  EBB_POL_CLASS_SHORT = 1,
  EBB_POL_CLASS_LONG = 2,
};

/* Per-task state the core keeps in resource mode (ebb_pol_task_state). */
typedef enum
{
  EBB_POL_TASK_PENDING = 0, /* not launched, or killed and re-queued */
  EBB_POL_TASK_RUNNING,     /* launched; alloc may be below demand after graceful steps */
  EBB_POL_TASK_SUSPENDING,  /* SUSPEND sent, not all of it reported free yet */
  EBB_POL_TASK_SUSPENDED,   /* at the footprint (immediate or frozen) */
  EBB_POL_TASK_RESUMING,    /* RESUME sent */
  EBB_POL_TASK_DONE,        /* finished */
  EBB_POL_TASK_FAILED,      /* its job failed */
} ebb_pol_task_state;

typedef struct ebb_pol_task
{
  ebb_pol_res alloc;   /* what the task holds on its node now (the booked footprint when
                          suspended: ebb_pol_booked_footprint) */
  ebb_pol_res pending; /* asked by SUSPEND, not reported free yet */
  uint32_t node;       /* EBB_POL_NONE when not placed */
  uint16_t kills;      /* times killed (kill_attempts fails the job) */
  uint8_t state;       /* ebb_pol_task_state */
  uint8_t frozen;      /* excluded from further graceful steps (below its working set) */
  uint32_t tries;      /* delayed resumption: chances with room seen so far */
  uint32_t suspends;   /* SUSPENDs sent to this task */
  uint32_t inflight;   /* SUSPENDs not reported done yet */
  uint8_t held;        /* held by the environment's operator (ebb_pol_task_hold) */
} ebb_pol_task;

/* A job as the environment describes it, plus the policy's per-job counters. */
typedef struct ebb_pol_job
{
  double submit_sec;    /* set by the environment */
  double est_task_sec;  /* estimated task runtime (Hawk: mean of the job's tasks) */
  double cancel_at_sec; /* probes of this job still queued at this time are dropped */
  uint32_t ntasks;      /* set by the environment */
  uint32_t launched;    /* tasks handed to nodes so far */
  uint32_t finished;    /* tasks finished */
  uint8_t is_long;      /* classified at arrival: class_hint, else the policy's cutoff */
  uint8_t class_hint;   /* EBB_POL_CLASS_*, set by the environment (0: by cutoff) */
  uint8_t failed;       /* set by the policy when it emits FAIL for the job */
  uint8_t forgotten;    /* set by ebb_pol_job_forget; cleared when the id arrives again */
  uint8_t wait;         /* EBB_POL_WAIT_*: why the policy left a task of it waiting at its
                           last look, for the environment to tell (0: nothing said) */
  ebb_pol_res demand;   /* per task; set by the environment (ignored in slot mode) */
  ebb_pol_task *tasks;  /* resource mode: the core's per-task state, ntasks entries */
  /* DAG policies only (ops->dag): the job's tasks, demands and edges (policies/dag.h);
   * set by the environment before ebb_pol_job_arrived. demand is then the largest task's. */
  const struct ebb_pol_dag *dag;
} ebb_pol_job;

/* ebb_pol_job.wait: what a policy may say of a job whose task it leaves waiting. */
enum
{
  EBB_POL_WAIT_NONE = 0,
  EBB_POL_WAIT_SHARE = 1, /* room could be made by preemption, but the long work's share
                             (ebb's long-share) protects it */
};

typedef enum
{
  EBB_POL_ACT_PROBE,   /* deliver probe `arg` of job `job` to `node` after delay_sec */
  EBB_POL_ACT_LAUNCH,  /* task `arg` of job `job` starts on `node` after delay_sec */
  EBB_POL_ACT_WAKE,    /* `node` is free again after delay_sec (surplus probe round trip) */
  EBB_POL_ACT_STEAL,   /* informational: `node` stole `arg` probes from node `job` */
  EBB_POL_ACT_CANCEL,  /* informational: job `job` is fully launched; cancel its probes */
  EBB_POL_ACT_SUSPEND, /* take `amount` from task `arg` of `job` on `node` (mode) */
  EBB_POL_ACT_RESUME,  /* restore task `arg` of `job` on `node` to its demand */
  EBB_POL_ACT_KILL,    /* end task `arg` of `job` on `node`; answer with task_killed */
  EBB_POL_ACT_FAIL,    /* informational: job `job` failed (kill attempts exhausted) */
} ebb_pol_action_kind;

typedef enum
{
  EBB_POL_SUSPEND_IMMEDIATE = 0, /* down to the footprint in one pass */
  EBB_POL_SUSPEND_GRACEFUL = 1,  /* one step of `amount` */
} ebb_pol_suspend_mode;

typedef struct ebb_pol_action
{
  double delay_sec;
  uint32_t kind;
  uint32_t node;
  uint32_t job;
  uint32_t arg;
  /* mode and amount are set for the resource actions only (LAUNCH in resource mode,
   * SUSPEND, RESUME, KILL, FAIL); for the others (and every action in slot mode) they are
   * unspecified: the slot policies' hot paths skip the stores. */
  uint32_t mode; /* SUSPEND: ebb_pol_suspend_mode */
  uint32_t pad;
  ebb_pol_res amount; /* LAUNCH: allocation given; SUSPEND: amount to take; RESUME: amount
                         given back */
} ebb_pol_action;

/* Parameters common to the policies; a policy ignores what it does not use. */
typedef struct ebb_pol_params
{
  uint32_t nnodes;
  uint64_t seed;
  double net_delay_sec;   /* one-way message delay (Hawk: 0.5 ms) */
  double cutoff_sec;      /* est_task_sec >= cutoff: long job */
  double probe_ratio;     /* probes per task (Sparrow's d) */
  double short_part_pct;  /* Hawk: share of nodes reserved for short jobs */
  uint32_t steal_cap;     /* Hawk: nodes an idle node contacts */
  uint32_t steal_limit;   /* Hawk: max probes taken from one victim (EBB_POL_NONE: all) */
  int cancel_probes;      /* cancel surplus probes once a job is fully launched */
  int sample_replacement; /* probes drawn with replacement (else distinct nodes) */
  int no_steal;           /* Hawk ablation: no work stealing */
  int no_partition;       /* Hawk ablation: no reserved short partition */
  int no_central;         /* Hawk ablation: long jobs probed like short ones */
  /* Resources (all zero: slot mode, see the top of this file). */
  ebb_pol_res node_cap;    /* capacity of every node; {0, 0}: one slot per node */
  ebb_pol_res footprint;   /* what a suspended task keeps (BIG-C: 10 millicores, 64 MiB) */
  uint32_t book_footprint; /* EBB_POL_BOOK_*: the part of it the books count as held */
  double tick_sec;         /* the environment calls ebb_pol_tick this often; 0: never */
  uint32_t kill_attempts;  /* kills of one task that fail its job (default 4) */
  /* BIG-C (policies/bigc.c). */
  uint32_t bigc_mode;     /* EBB_POL_BIGC_* */
  double short_share;     /* short queue's DRF share (0.95) */
  double reserve_share;   /* reserve mode: share kept for short jobs (0.60) */
  ebb_pol_res gp_step;    /* graceful step r_GP (2 CPU, 4 GiB) */
  uint32_t resume_tries;  /* delayed resumption D (3) */
  double working_set;     /* share of a container's memory it needs to run (0.5) */
  double natural_term;    /* authors' damper: natural termination factor; 0: off */
  double max_round_share; /* authors' damper: preempt at most this share per round; 0: off */
  int arrival_preempt;    /* bigc: a short job without room at its arrival preempts at once
                             instead of at the next round, not counted as one (1); ebb always
                             does */
  /* Peacock (policies/peacock.c). */
  double rotation_interval_sec; /* period of the ring's rotation rounds */
  double threshold_scale;       /* threshold = arrival + scale x average load */
  int no_rotation;              /* ablation (Peacock Fig. 6): probes stay where they land */
  /* ebb (policies/ebb.c): the least share of its demand-time a long task keeps over any
   * window of share_window_sec (ebb.h; ebb_pol_params_default: 0.5; window 0: 600 s). */
  double long_share;
  double share_window_sec;
  /* Speculation (hopper, srpt; policies/spec.h). */
  uint32_t spec_mode;   /* EBB_POL_SPEC_DECENTRAL (default) or EBB_POL_SPEC_CENTRAL */
  double spec_beta;     /* Pareto shape of task durations (Hopper's beta; 1.5) */
  double epsilon;       /* hopper: epsilon-fairness, share of the fair share given up (0.1) */
  double hopper_probes; /* hopper decentral: reservations per task, the paper's d (4) */
  uint32_t refusals;    /* hopper decentral: refusals before Guideline 3 (2) */
  double heartbeat_sec; /* progress reports and LATE's straggler check (0.1) */
  /* The environment's latest progress report of the copy of (job, task) on node, in [0, 1]
   * (0: not started); set by the environment before ebb_pol_new. */
  double (*progress) (void *ctx, uint32_t node, uint32_t job, uint32_t task, double now_sec);
  void *progress_ctx;
  /* DAG policies (graphene, cp, tetris, random). */
  int64_t node_net_mbps; /* network capacity of every node; 0: the network is not modeled */
  double dag_kappa;      /* graphene: unfairness threshold kappa x cluster capacity (0.25) */
  uint32_t dag_queues;   /* graphene: queues sharing the cluster evenly; job j in j mod Q (1) */
  int dag_prio;          /* graphene: EBB_DAG_PRIO_* (default REMAINING; DAG and ORDER ablations) */
  int dag_bypass;        /* graphene: EBB_DAG_BYPASS_* (default TEXT: section 4.4's bypass) */
} ebb_pol_params;

/* What of params.footprint (what the agent leaves a suspended task) a policy's books count
 * as held by a suspended task: the rest is outside the books, like the CPU a throttled task
 * competes for under the kernel's shares. params.footprint itself is left as the
 * environment set it: what a suspended task keeps on its node, and the line under which a
 * take leaves a task nothing useful (ebb_pol_take_suspends), whatever the books count. */
enum
{
  EBB_POL_BOOK_DEFAULT = 0, /* the policy's choice: ebb memory (none on nodes without
                               memory), bigc none, the others all */
  EBB_POL_BOOK_ALL,         /* CPU and memory */
  EBB_POL_BOOK_MEMORY,      /* memory only */
  EBB_POL_BOOK_NONE,        /* nothing: a suspended task frees its whole allocation */
};

/* graphene's priScore (section 5): the task's rank among the job's tasks not launched yet,
 * over their number (REMAINING, the default); its rank among all the DAG's tasks over their
 * number (DAG, the formula's letter, an ablation); or REMAINING with the preferred order
 * kept inside each job: only a job's runnable tasks that fit with its highest priScore
 * compete (ORDER, an ablation). The text's formula and its example disagree once jobs compete: with
 * DAG, the next task of a job near its end scores near 0 and loses to every new job's first
 * task, though the example says a task that "is next in the preferred schedule" (and of the
 * shortest job, and most packable) has the highest perfScore; REMAINING keeps the example.
 * Alone, at a job's start, the two coincide (doc/graphene-fidelity.md). */
enum
{
  EBB_DAG_PRIO_REMAINING = 0,
  EBB_DAG_PRIO_DAG,
  EBB_DAG_PRIO_ORDER,
};

/* Which jobs skip graphene's offline step (section 4.4), their tasks all given priScore 1:
 * those that fit on one node at once or whose stages form a chain (TEXT); only jobs of one
 * task (SINGLE, the first version's rule, an ablation). */
enum
{
  EBB_DAG_BYPASS_TEXT = 0,
  EBB_DAG_BYPASS_SINGLE,
};

enum
{
  EBB_POL_SPEC_DECENTRAL = 0,
  EBB_POL_SPEC_CENTRAL = 1,
};

enum
{
  EBB_POL_BIGC_FIFO = 0,
  EBB_POL_BIGC_RESERVE,
  EBB_POL_BIGC_KILL,
  EBB_POL_BIGC_IP,
  EBB_POL_BIGC_GP,
};

/* Fills p with the defaults: 0.5 ms, probe ratio 2, 2% short partition, steal cap 10,
 * unlimited steal size, no cancellation, sampling with replacement; slot mode; footprint
 * <10, 64 MiB>, 4 kill attempts; BIG-C: gp mode, short share 0.95, reserve 0.60, round 3 s
 * (tick_sec stays 0 until a policy needs it: bigc sets it in init), step <2000, 4 GiB>,
 * D = 3, working set 0.5, dampers off, arrival preemption on. */
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
  void (*task_finished) (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task);
  void (*tick) (ebb_pol *p, double now_sec);
  /* Resource mode (NULL: the core's bookkeeping only). After the core updated the task. */
  int needs_resources; /* 1: runs in resource mode only; 0: slot mode only */
  void (*task_reclaimed) (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task,
                          ebb_pol_res freed, int done);
  void (*task_resumed) (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task);
  void (*task_killed) (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task);
  /* Optional, resource mode: the task was held (held 1) or released (0) by
   * ebb_pol_task_hold, after the core updated it and emitted its SUSPEND or RESUME; a
   * policy with a model of its own leaves a held task alone (no victim, no resumption). */
  void (*task_held) (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task,
                     int held);
  /* Optional: place an arriving probe in node's queue (anywhere, or send it on); without
   * it the probe is appended. The core serves the node afterwards if it is free. */
  void (*probe_enqueue) (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe);
  /* Optional: unlink and return the probe node serves next (EBB_POL_NONE: none); without
   * it the head of the queue. */
  uint32_t (*probe_pick) (ebb_pol *p, double now_sec, uint32_t node);
  /* 1: the policy launches copies of running tasks (LAUNCH of a task already running
   * elsewhere) and KILLs the losers; the environment answers a KILL with
   * ebb_pol_copy_killed (policies/spec.h) and reports progress (params.progress). */
  int speculative;
  /* 1: schedules DAG jobs (job.dag set, a task starts only after its parents finished). */
  int dag;
  /* 1: the policy's PROBE actions must reach their nodes after their delays, in the order
   * of those delays (peacock's rotation rounds: a round's carrier arrives before any later
   * probe); an environment that delivers probes at once cannot run it. ebb-sim applies
   * every action at its delay; the controller keeps the PROBEs and WAKEs of such a policy
   * in a heap by due time for a timer (controller/sched-timed.c) and delivers the other
   * policies' at once. */
  int timed_probes;
  /* Optional, resource mode: the job's placed tasks already run on their nodes (see
   * ebb_pol_job_adopted); the core recorded them, the policy adds them to its own state
   * (a policy without it still counts their demand on their nodes). */
  void (*job_adopted) (ebb_pol *p, double now_sec, uint32_t job);
  /* Optional: the environment killed the job (see ebb_pol_job_cancel): its tasks not placed
   * leave the policy's queues now; placed ones are reported as they end. */
  void (*job_cancelled) (ebb_pol *p, double now_sec, uint32_t job);
  /* 1: the policy reads nothing of a job whose tasks all finished and whose probes are all
   * gone (nothing of it in its queues or lists; arrays by job id are set again at arrival),
   * so ebb_pol_job_forget may free that state and the environment may reuse the id. */
  int forgets_jobs;
  /* 1: the policy orders jobs by priority tier (ebb_pol_job_set_priority): a higher tier
   * may suspend a lower tier's tasks, never the reverse; within a tier its own rules
   * apply. 0: it ignores priorities (an environment refuses a non-zero one, or says so). */
  int tiers;
  /* 1 (with forgets_jobs): the same for a failed job none of whose tasks is placed any more
   * (ebb_pol_job_placed is 0: each finished, failed, or killed and never launched again): the
   * policy drops such a job from its queues and lists at once (its other tasks never finish,
   * so it never reaches forgets_jobs' "all finished"). */
  int forgets_failed_jobs;
  /* Optional, a hint: an event on node comes next (ebb_pol_prefetch_node). */
  void (*prefetch_node) (const ebb_pol *p, uint32_t node);
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
  uint64_t rotations; /* Peacock: probe moves along the ring */
  /* Preemption (resource mode). */
  uint64_t suspends; /* SUSPEND actions */
  uint64_t resumes;  /* RESUME actions */
  uint64_t kills;    /* KILL actions */
  uint64_t gp_steps; /* graceful SUSPEND steps */
  uint64_t frozen;   /* tasks frozen below their working set */
  uint64_t failed_jobs;
  uint64_t speculative_copies; /* LAUNCHes of a task already running elsewhere */
  /* DAG policies. */
  uint64_t dag_offline_jobs;      /* graphene: jobs given an offline schedule */
  uint64_t dag_bypass_jobs;       /* graphene: jobs that skipped it (section 4.4) */
  uint64_t dag_offline_schedules; /* graphene: candidate schedules built for them */
  uint64_t dag_unfair_picks;      /* graphene: picks restricted to the most deprived queue */
  double dag_max_deficit;         /* graphene: largest deficit counter seen / capacity */
  uint64_t dag_fair_holds;        /* graphene: nodes left waiting for a deprived queue */
} ebb_pol_stats;

/* Returns the ops of the policy called name, or NULL. */
const ebb_pol_ops *ebb_pol_lookup (const char *name);
/* Returns the registered policies, NULL-terminated. */
const ebb_pol_ops *const *ebb_pol_list (void);

/* Returns a new policy instance over params->nnodes nodes and the environment's job array,
 * or NULL with *err set (unknown name, bad parameter). */
ebb_pol *ebb_pol_new (const char *name, const ebb_pol_params *params, ebb_pol_job *jobs,
                      ebb_error **err);
/* Same with a policy's ops given directly (a policy outside the registry, e.g. in a test). */
ebb_pol *ebb_pol_new_ops (const ebb_pol_ops *ops, const ebb_pol_params *params, ebb_pol_job *jobs,
                          ebb_error **err);
void ebb_pol_free (ebb_pol *p);
/* Points the policy at a new job array (after the environment grew it). */
void ebb_pol_set_jobs (ebb_pol *p, ebb_pol_job *jobs);

/* Events. They never fail: bad ids are programming errors and abort. */
void ebb_pol_job_arrived (ebb_pol *p, double now_sec, uint32_t job);
/* Resource mode: a job whose task t already runs on nodes[t] (EBB_POL_NONE: not placed, it
 * stays out of the policy), at its demand: work the environment found running (after a
 * restart) or adopted (a container it did not launch). It joins the policy as if launched
 * there: classified like an arrival, each placed task running and holding the job's demand
 * on its node, preemptible like the policy's own; no LAUNCH is emitted. Its end is reported
 * with ebb_pol_task_finished as usual. Returns 0, or -1 with nothing changed (the job not
 * even initialized): in slot mode (the environment holds their slots) or for a node out of
 * range. */
int ebb_pol_job_adopted (ebb_pol *p, double now_sec, uint32_t job, const uint32_t *nodes);
void ebb_pol_probe_arrived (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe);
void ebb_pol_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task);
/* A hint from an environment that knows its next event (the simulator's queue): the policy
 * may start fetching node's state into the cache while the current event is handled.
 * Changes nothing the policy decides. */
void ebb_pol_prefetch_node (const ebb_pol *p, uint32_t node);
/* Resource mode. */
void ebb_pol_node_capacity (ebb_pol *p, uint32_t node, ebb_pol_res cap);
void ebb_pol_task_reclaimed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task,
                             ebb_pol_res freed, int done);
void ebb_pol_task_resumed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task);
/* job finished every task (or, a policy that sets ops->forgets_failed_jobs, failed with no
 * task placed any more) and the environment will report nothing more of it: the policy
 * lets its id go (the id comes back only with a new ebb_pol_job_arrived, which may then name
 * another job) and frees what it kept of it (resource mode: its per-task state), so that a
 * long-lived environment (the controller) keeps no state for every job it ran. Returns 1
 * when forgotten. Returns 0 and changes nothing when the policy does not set
 * ops->forgets_jobs, for a job that never arrived or is forgotten already, for a job with a
 * task not finished (still pending, running or suspended: refused, never freed under it),
 * and for a finished job whose probes are still alive (surplus probes still queued, in
 * flight or rotating: they would bind the tasks of the next job given the id): then ask
 * again later (the controller does at every policy tick); the probes die without the
 * environment's help (at a queue's head, by cancellation or, eagle, by a node's scan). */
int ebb_pol_job_forget (ebb_pol *p, uint32_t job);
/* Returns how many probes of job are alive (0 for a job that never sent one): a finished job
 * refused by ebb_pol_job_forget for them is worth asking again once they are gone. */
uint32_t ebb_pol_job_probes (const ebb_pol *p, uint32_t job);
/* The job's priority tier (an integer, higher wins, 0 by default), set by the environment
 * before ebb_pol_job_arrived or ebb_pol_job_adopted; ebb_pol_job_forget sets it back to 0.
 * Read by the policies with ops->tiers only. */
void ebb_pol_job_set_priority (ebb_pol *p, uint32_t job, int32_t priority);
int32_t ebb_pol_job_priority (const ebb_pol *p, uint32_t job);
/* Returns how many of job's tasks are placed on a node and not finished nor failed (running,
 * suspending, suspended or resuming; a kill not reported yet included). Resource mode; in
 * slot mode the core keeps no per-task state and this returns the tasks not finished. */
uint32_t ebb_pol_job_placed (const ebb_pol *p, uint32_t job);
void ebb_pol_task_killed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task);
/* The environment killed job (a user's kill): the policy launches none of its tasks from now
 * on and drops those still queued at once, so none blocks the work queued behind it; the
 * placed ones the environment ends and reports (task_killed: not queued again). Returns 1
 * when the policy does so (ops->job_cancelled), 0 when it keeps no queue of its own. */
int ebb_pol_job_cancel (ebb_pol *p, double now_sec, uint32_t job);

/* Resource mode: the environment's operator holds a placed task (held 1: a suspension by
 * hand) or releases it (0). Holding a running task emits SUSPEND (immediate, answered with
 * ebb_pol_task_reclaimed as the policy's own); a task the policy suspended stays so. While
 * held, the policy never resumes it (ebb_pol_resume emits nothing for it) nor takes from it
 * (ebb_pol_suspend neither), and the books count what the suspension leaves it. Releasing
 * a held suspended task emits RESUME at once (its demand taken from node_free, which may go
 * negative until work ends: the operator's call) and it is the policy's again. Returns 0,
 * or -1 with nothing changed: slot mode, the task not placed, a suspension or resumption
 * under way, holding a held task or releasing one not held. */
int ebb_pol_task_hold (ebb_pol *p, double now_sec, uint32_t job, uint32_t task, int held);
/* Returns 1 in resource mode (params.node_cap set), 0 in slot mode. */
int ebb_pol_has_resources (const ebb_pol *p);
void ebb_pol_node_wake (ebb_pol *p, double now_sec, uint32_t node);
void ebb_pol_tick (ebb_pol *p, double now_sec);

/* Returns the pending actions, oldest first, and their number in *n (valid until the next
 * event or ebb_pol_clear_actions / ebb_pol_take_actions). */
const ebb_pol_action *ebb_pol_actions (const ebb_pol *p, size_t *n);
/* Drops every pending action (the environment ran them). */
void ebb_pol_clear_actions (ebb_pol *p);
/* Moves the oldest pending actions, up to max, into buf and returns how many; the others
 * stay pending, in order (an environment that runs actions in batches while running them
 * may add more). */
size_t ebb_pol_take_actions (ebb_pol *p, ebb_pol_action *buf, size_t max);

/* What the environments read of an instance. */
const ebb_pol_ops *ebb_pol_ops_of (const ebb_pol *p);
const ebb_pol_params *ebb_pol_params_of (const ebb_pol *p);
const ebb_pol_stats *ebb_pol_stats_of (const ebb_pol *p);
/* Returns node's capacity as the policy holds it (resource mode; {0, 0} in slot mode). */
ebb_pol_res ebb_pol_node_cap (const ebb_pol *p, uint32_t node);
/* Job job as the policy knows it (announced: job < the jobs seen), or NULL. */
const ebb_pol_job *ebb_pol_job_of (const ebb_pol *p, uint32_t job);

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
 * round trip. Returns 0, or -1 when the job has no task left. In resource mode the task is
 * the first pending one (killed tasks come back) and it is placed as ebb_pol_launch_res
 * does; the node's `busy` flag then means "its probe queue waits for this task", and the
 * core serves the queue again when a task bound this way ends. */
int ebb_pol_bind_task (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, double delay_sec);
/* Appends probe (an index from the pool) to node's queue. */
void ebb_pol_queue_append (ebb_pol *p, uint32_t node, uint32_t probe);
/* Returns 1 when a queued probe of job must be dropped at now (cancelled). */
int ebb_pol_probe_dead (const ebb_pol *p, double now_sec, uint32_t job);
void ebb_pol_probe_release (ebb_pol *p, uint32_t probe);
/* Returns a new probe of job from the pool, not queued and not sent. */
uint32_t ebb_pol_probe_new (ebb_pol *p, uint32_t job);

/* Resource-mode helpers (policies only). */
static inline int
ebb_pol_res_fits (ebb_pol_res need, ebb_pol_res avail)
{
  return need.cpu_millis <= avail.cpu_millis && need.memory_bytes <= avail.memory_bytes;
}
static inline void
ebb_pol_res_add (ebb_pol_res *a, ebb_pol_res b)
{
  a->cpu_millis += b.cpu_millis;
  a->memory_bytes += b.memory_bytes;
}
static inline void
ebb_pol_res_sub (ebb_pol_res *a, ebb_pol_res b)
{
  a->cpu_millis -= b.cpu_millis;
  a->memory_bytes -= b.memory_bytes;
}
/* Launches task `task` of job on node with its demand: takes the demand from node_free,
 * marks the task running and emits LAUNCH after delay_sec. The caller checked it fits. */
void ebb_pol_launch_res (ebb_pol *p, uint32_t node, uint32_t job, uint32_t task, double delay_sec);
/* Same for a task with its own demand (DAG jobs: tasks of one job differ). */
void ebb_pol_launch_task (ebb_pol *p, uint32_t node, uint32_t job, uint32_t task,
                          ebb_pol_res demand, double delay_sec);
/* Returns the part of params.footprint the books count as held by a suspended task
 * (params.book_footprint; EBB_POL_BOOK_DEFAULT counts as ALL). */
ebb_pol_res ebb_pol_booked_footprint (const ebb_pol *p);
/* Returns 1 when a task left holding `left` keeps nothing useful: at or below the
 * footprint (params.footprint, booked or not) in CPU and memory. A take that leaves a task
 * there is a suspension (IMMEDIATE), not a graceful step; the one place that says so. */
int ebb_pol_take_suspends (const ebb_pol *p, ebb_pol_res left);
/* Emits SUSPEND for a running task: immediate takes everything above the booked footprint,
 * graceful takes `amount` (clamped so the task keeps at least the booked footprint).
 * Returns the amount asked; nothing for a held task (ebb_pol_task_hold), nothing emitted. */
ebb_pol_res ebb_pol_suspend (ebb_pol *p, uint32_t job, uint32_t task, uint32_t mode,
                             ebb_pol_res amount);
/* Emits RESUME for a suspended (or shrunk) task and takes what it lacks from node_free.
 * Only for a task whose SUSPENDs are all reported done (pending zero). A held task
 * (ebb_pol_task_hold) is left as it is: nothing emitted. */
void ebb_pol_resume (ebb_pol *p, uint32_t job, uint32_t task);
/* Emits KILL for a placed task. */
void ebb_pol_kill (ebb_pol *p, uint32_t job, uint32_t task);

extern const ebb_pol_ops ebb_pol_fifo_ops;
extern const ebb_pol_ops ebb_pol_sparrow_ops;
extern const ebb_pol_ops ebb_pol_hawk_ops;
extern const ebb_pol_ops ebb_pol_bigc_ops;
extern const ebb_pol_ops ebb_pol_eagle_ops;
extern const ebb_pol_ops ebb_pol_peacock_ops;
extern const ebb_pol_ops ebb_pol_ebb_ops;
extern const ebb_pol_ops ebb_pol_hopper_ops;
extern const ebb_pol_ops ebb_pol_srpt_ops;
extern const ebb_pol_ops ebb_pol_graphene_ops;
extern const ebb_pol_ops ebb_pol_cp_ops;
extern const ebb_pol_ops ebb_pol_tetris_ops;
extern const ebb_pol_ops ebb_pol_random_ops;

#endif
