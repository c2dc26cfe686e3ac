/* The preemption core of the `ebb` policy: per-node decisions of whom to preempt for a short
 * task, by how much, and when a preempted long task gets its resources back. Pure functions
 * over plain structs (no clock, no I/O, no simulator state), so the simulator and the
 * controller drive the same decisions and the tests can hand-build any node.
 *
 * Rules (doc/ebb-policy.md says why):
 *  - A short task that does not fit on its node takes what it lacks from the node's running
 *    long tasks instead of waiting behind them: CPU at once, memory only as much as the short
 *    task lacks, at the reclaim cost. Short tasks are never victims.
 *  - The share: a long task keeps at least S = long_share of the demand-time it would have had
 *    over any window of W = share_window_sec (it loses at most (1 - S) W demand-seconds in
 *    any W). A take is made only when the victim, holding what the take leaves it for the
 *    short task's estimated length, would stay within that; a task that outran it (its short
 *    task ran longer than estimated) takes its room back at the next chance even if short
 *    work is waiting. No count runs out: under a steady stream that leaves long work its
 *    share, every short task finds a victim. Accounting in EBB_PRE_BUCKETS - 1 parts of the
 *    window, so a window's loss is over-counted by at most one part.
 *  - Victims: the long task that lost least in its window first (preemptions spread over
 *    the long tasks so they progress evenly), then the latest estimated end, then the lower
 *    slot; a task keeps at least the footprint.
 *  - Thrash: every preemption is made for one short task and, CPU only, ends when it ends
 *    (one cpu.max write each way), so a long task sees at most one suspension per short task
 *    that takes from it, and loses at most (1 - S) W of any W to all of them.
 *  - Delayed resumption D, only where memory was taken (paging it back costs ~3 s/GiB; CPU
 *    costs nothing to give back): a preempted task resumes on its own node once its room there has
 *    been free, with no short work waiting for the node, for D rounds in all (D x round_sec
 *    summed since it was preempted; skipped when the cluster has spare room), so a short
 *    burst still arriving does not make it bounce. Time, not a count of chances: what serves
 *    a node (ticks, reports, other tasks' events) differs between the simulator and the
 *    controller, and a count made the same policy resume sooner where events were denser.
 *    The time is exact whatever the event rate: what a node holds and queues changes only at
 *    events that serve it, each a chance, so room seen at one chance lasts to the next. */
#ifndef EBB_POLICY_EBB_H
#define EBB_POLICY_EBB_H

#include <stdint.h>

#include "policies/policy-impl.h"

/* The share's window is accounted in EBB_PRE_BUCKETS - 1 parts plus the part under way. */
#define EBB_PRE_BUCKETS 9

typedef struct ebb_pre_params
{
  double long_share;          /* S: least share of its demand-time a long task keeps, [0, 1] */
  double share_window_sec;    /* W: the window S is measured over, > 0 */
  uint32_t resume_tries;      /* D */
  double round_sec;           /* D's unit: the policy's round (tick), > 0 */
  double reclaim_sec_per_gib; /* memory taken from a victim */
  double resume_sec_per_gib;  /* memory given back on resume */
  ebb_pol_res footprint;      /* what a preempted task keeps */
} ebb_pre_params;

/* Defaults: a share of 0.5 over 600 s, D = 3 rounds of 3 s, BIG-C's 3 s/GiB both ways,
 * footprint 10 millicores and 64 MiB. */
void ebb_pre_params_default (ebb_pre_params *p);
/* Returns NULL when params are usable, else a static message naming the bad one. */
const char *ebb_pre_params_check (const ebb_pre_params *p);

/* Three cache lines, aligned: the first holds what every start, end and plan reads (a
 * task's names, class, demand and holding), the others (from last_chance_sec) what only
 * preempted tasks and victims' accounting read. Those start at zero, written at their
 * first use (acct_ready), not at ebb_pre_add: most tasks never need them, and writing two
 * more cache lines at every start was a third of what starting a task cost at scale. */
typedef struct ebb_pre_task
{
  uint32_t job, task; /* the environment's names for it */
  uint8_t is_long;    /* only long tasks are ever preempted */
  uint8_t inflight;   /* a suspension or resumption is under way: leave it alone */
  /* Bits, so that the first cache line still ends with preempted_sec. */
  uint8_t has_room : 1;         /* D: its last chance saw room (and no short work) */
  uint8_t held : 1;             /* held by the operator (ebb_pol_task_hold): neither victim nor
                                   preempted, whatever it holds */
  uint8_t acct_ready : 1;       /* the fields from last_chance_sec on are set (ebb_pre_add: 0) */
  int32_t tier;                 /* its job's priority (ebb_pol_job.priority) */
  ebb_pol_res demand;           /* what it asked for */
  ebb_pol_res given;            /* what it holds now (demand unless preempted) */
  double est_end_sec;           /* start + estimate, pushed back by time spent preempted */
  double preempted_sec;         /* when it was last preempted (valid while given < demand) */
  double last_chance_sec;       /* D: that chance's time */
  double room_sec;              /* D: time with room since it was preempted */
  double acct_sec;              /* the share: lost[] is up to date until then */
  int64_t bucket;               /* the part under way (time / (W / (B - 1))) */
  double lost[EBB_PRE_BUCKETS]; /* demand-seconds lost per part, a ring */
} __attribute__ ((aligned (64))) ebb_pre_task;
_Static_assert(offsetof (ebb_pre_task, last_chance_sec) == 64,
               "what every start, end and plan reads is one cache line");

/* A node's running and preempted tasks. The environment owns the array (cache-line aligned;
 * ebb_pre_node_reserve allocates it). */
typedef struct ebb_pre_node
{
  /* In the order they are read at a node's event: the policy keeps tasks to ntasks in the
   * cache line its queues start (policies/ebb.c, ebb_node). */
  ebb_pre_task *tasks;
  uint32_t npreempted; /* tasks holding less than their demand */
  uint32_t ntasks;
  ebb_pol_res used; /* sum of given */
  ebb_pol_res cap;
  uint32_t tasks_cap;
  uint8_t tasks_lent; /* tasks is the environment's (ebb_pre_node_lend): never freed here */
} ebb_pre_node;

/* One decision: take `amount` from (or give it back to) the task in `slot`; the memory part
 * costs delay_sec (reclaim or reload). */
typedef struct ebb_pre_take
{
  uint32_t slot;
  ebb_pol_res amount;
  double delay_sec;
} ebb_pre_take;

/* Returns 1 when v fits in the node's free capacity. */
int ebb_pre_fits (const ebb_pre_node *n, ebb_pol_res v);
/* The share of its demand t does not hold now, in [0, 1] (the larger of CPU and memory). */
double ebb_pre_taken_frac (const ebb_pre_task *t);
/* Brings t's accounting up to now: call before its holding changes. */
void ebb_pre_account (ebb_pre_task *t, const ebb_pre_params *p, double now_sec);
/* The demand-seconds t lost in the window ending at now (its B latest parts). */
double ebb_pre_lost_sec (const ebb_pre_task *t, const ebb_pre_params *p, double now_sec);
/* Returns 1 when the task holds less than its demand and is not held (a held task's room
 * is the operator's: it waits for no chance). */
int ebb_pre_is_preempted (const ebb_pre_task *t);

/* Plans room for a short task needing `need` for an estimated hold_sec on node n at now.
 * Returns the number of takes written to out (0: it fits as is), or -1 when the node's
 * preemptible long work cannot make room within its share (the short task waits; nothing
 * may be preempted for nothing). *delay_sec is the time
 * before the room is free: reclaims on one node share its memory bandwidth, so they add. */
int ebb_pre_plan (const ebb_pre_node *n, const ebb_pre_params *p, ebb_pol_res need, double hold_sec,
                  double now_sec, ebb_pre_take *out, uint32_t max, double *delay_sec);

/* Who asks for room in ebb_pre_plan_for: the tier and class of the task that needs it. */
typedef struct ebb_pre_asker
{
  int32_t tier;
  uint8_t is_long;
} ebb_pre_asker;

/* ebb_pre_plan for a task of tier a->tier. Tiers: a task of a lower tier is a victim for
 * any task of a higher one (short or long), and its share does not protect it against it
 * (production work preempts best-effort work outright); a task of a higher tier is never a
 * victim; within a tier, a short task takes from long tasks within their share, as above.
 * ebb_pre_plan is this for a short task of tier 0. */
int ebb_pre_plan_for (const ebb_pre_node *n, const ebb_pre_params *p, const ebb_pre_asker *a,
                      ebb_pol_res need, double hold_sec, double now_sec, ebb_pre_take *out,
                      uint32_t max, double *delay_sec);
/* Applies takes planned by ebb_pre_plan at now: lowers the victims' holdings (their share
 * accounted until now). */
void ebb_pre_apply (ebb_pre_node *n, const ebb_pre_params *p, const ebb_pre_take *takes,
                    uint32_t ntakes, double now_sec);

/* One scheduling chance on node n at now. short_pending: short work is still waiting for this
 * node; spare: the cluster has idle capacity (D is skipped). Writes the resumptions decided
 * (amount to give back, reload delay) to out, applies them, and returns their count. A
 * preempted task resumes when it fits back and short work is not pending (unless it has lost
 * its whole budget), and, when memory was taken from it, once it has had that room for D
 * rounds in all since it was preempted (or spare). */
uint32_t ebb_pre_chance (ebb_pre_node *n, const ebb_pre_params *p, double now_sec,
                         int short_pending, int spare, ebb_pre_take *out, uint32_t max);

/* The room for tasks a node starts with, and the first step of growth. */
#define EBB_PRE_NODE_TASKS0 4

/* Makes room for at least cap tasks on n. An environment reserves EBB_PRE_NODE_TASKS0 for every
 * node when it starts, so that the node's state is a fixed cost paid up front, not heap that
 * grows with the nodes a job stream has touched so far (the controller's RSS would creep for
 * as long as the stream takes to reach every node). */
void ebb_pre_node_reserve (ebb_pre_node *n, uint32_t cap);
/* Gives n (with no tasks yet) room for cap tasks that the environment owns and keeps until
 * ebb_pre_node_fini: one block for all its nodes, say, where each node's room is at an
 * address known without reading the node. n moves to room of its own when it outgrows it. */
void ebb_pre_node_lend (ebb_pre_node *n, ebb_pre_task *room, uint32_t cap);
/* Adds a task to the node holding its whole demand; returns its slot. Of *t, the fields
 * before last_chance_sec are read; the others start at zero. */
uint32_t ebb_pre_add (ebb_pre_node *n, const ebb_pre_task *t);
/* Removes the task in slot (it finished or was killed); the last slot moves into it. */
void ebb_pre_remove (ebb_pre_node *n, uint32_t slot);
/* Returns the slot of (job, task) on n, or UINT32_MAX. */
uint32_t ebb_pre_find (const ebb_pre_node *n, uint32_t job, uint32_t task);
void ebb_pre_node_fini (ebb_pre_node *n);

#endif
