/* Speculation for libebb-policy (hopper, srpt): a task may run as several copies on
 * different nodes; the first copy to finish wins and the policy KILLs the others.
 *
 * This core keeps what both policies share: the copies of every task, LATE's straggler
 * check at every heartbeat (the slowest quarter by progress rate, longest estimated time
 * left first), the free nodes, the active jobs in ascending order of remaining tasks
 * and, in the decentralized mode, the reservations queued at every worker. The policies
 * only choose whom a free slot goes to (the pick hooks).
 *
 * The environment (ebb-sim's speculation engine, sim/speculate.c) delivers:
 *   ebb_pol_job_arrived, ebb_pol_probe_arrived (decentralized), ebb_pol_tick (every
 *   params.heartbeat_sec), ebb_pol_task_finished for the first copy of a task to finish
 *   only (a later copy's finish is not reported: its KILL is on the way),
 *   ebb_pol_copy_killed once a KILL took a copy off its node,
 * and answers params.progress for a live copy. */
#ifndef EBB_POLICIES_SPEC_H
#define EBB_POLICIES_SPEC_H

#include "policies/policy-impl.h"

/* Copies of one task alive at once: LATE runs at most one speculative copy of a task. */
#define EBB_SPEC_MAX_COPIES 2

typedef struct ebb_spec_task
{
  double start[EBB_SPEC_MAX_COPIES];  /* when each live copy starts (after its LAUNCH delay) */
  uint32_t node[EBB_SPEC_MAX_COPIES]; /* nodes of the live copies; EBB_POL_NONE: unused */
  uint8_t ncopies;                    /* live copies */
  uint8_t done;
  uint8_t probed; /* decentral srpt: reservations were sent for a copy of it (sent again
                     only once every reservation of its job is used or spent) */
} ebb_spec_task;

typedef struct ebb_spec_job
{
  ebb_spec_task *tasks;
  uint32_t *run; /* unfinished tasks with a live copy */
  uint32_t nrun, run_cap;
  uint32_t *cand; /* LATE's candidates at the last heartbeat, the most urgent last */
  uint32_t ncand, cand_cap;
  uint32_t remaining; /* T_rem: tasks not finished */
  uint32_t next;      /* next original task to launch */
  uint32_t occupied;  /* live copies: slots the job holds */
  uint32_t opos;      /* position in ebb_spec.order */
  uint32_t alloc;     /* hopper central: slots allotted (Pseudocode 1 with epsilon) */
  uint32_t resv_out;  /* decentral: reservations sent and not yet used or spent */
  double checked_at;  /* last LATE check */
  uint8_t active;
  uint8_t refused; /* hopper decentral: scratch mark while a worker asks around */
} ebb_spec_job;

typedef struct ebb_spec ebb_spec;

typedef struct ebb_spec_hooks
{
  /* Central: the job the free node's slot goes to, or EBB_POL_NONE to leave it free. */
  uint32_t (*pick_central) (ebb_pol *p, double now_sec, uint32_t node);
  /* Decentral: the job served (EBB_POL_NONE: none) and in *resv the index of the
   * reservation it used in the node's queue (EBB_POL_NONE: a job its scheduler named, with
   * no reservation here); *delay_sec is the time the exchange took (round trips). */
  uint32_t (*pick_worker) (ebb_pol *p, double now_sec, uint32_t node, double *delay_sec,
                           uint32_t *resv);
} ebb_spec_hooks;

struct ebb_spec
{
  ebb_spec_job *jobs;
  uint32_t jobs_cap;
  uint32_t *order; /* active jobs, ascending remaining tasks (ties: arrival order) */
  uint32_t norder, order_cap;
  uint32_t *idle;     /* free nodes */
  uint32_t *idle_pos; /* position in idle, EBB_POL_NONE when busy */
  uint32_t nidle;
  uint32_t **resv; /* decentral: per node, the jobs of its queued reservations */
  uint32_t *nresv, *resv_cap;
  uint64_t total_remaining;
  uint32_t central;
  uint32_t nnodes;
  uint32_t spec_cap;    /* LATE's SpeculativeCap on live speculative copies (0: none) */
  double copy_probes;   /* decentral: reservations sent for every straggler LATE names, as
                           for a new task (Sparrow-SRPT; 0: none, copies use those queued) */
  uint64_t live_copies; /* copies on nodes, winners' losers included until killed */
  uint64_t live_tasks;  /* unfinished tasks with a live copy */
  void *scratch;        /* LATE's candidates being sorted */
  uint32_t scratch_cap;
  uint8_t dirty; /* remaining counts changed since the policy last looked (hopper) */
  ebb_spec_hooks hooks;
};

/* Sets up s (the first member of the policy's private state) over p's nodes. */
void ebb_spec_init (ebb_pol *p, ebb_spec *s, const ebb_spec_hooks *hooks);
void ebb_spec_fini (ebb_spec *s);

/* The ops hooks both policies install. probe_ratio: reservations per task (decentral). */
void ebb_spec_job_arrived (ebb_pol *p, double now_sec, uint32_t job, double probe_ratio);
int ebb_spec_node_idle (ebb_pol *p, double now_sec, uint32_t node);
void ebb_spec_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job,
                             uint32_t task);
void ebb_spec_tick (ebb_pol *p, double now_sec);
void ebb_spec_probe_enqueue (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe);

/* Decentral: drops the reservation at index i of node's queue (used, or answered "no
 * task"); the order of the queue does not matter, workers pick by size. */
void ebb_spec_resv_drop (ebb_spec *s, uint32_t node, uint32_t i);

/* Returns 1 when job has work for a slot now: an original task not launched yet, or a
 * straggler LATE named at the last heartbeat that can still take a copy (within
 * spec_cap). */
int ebb_spec_runnable (ebb_pol *p, uint32_t job, double now_sec);
/* Returns 1 when job has launched every original and still runs some: a straggler may
 * appear that Hopper's budget keeps a slot for. */
int ebb_spec_may_speculate (const ebb_spec *s, const ebb_pol *p, uint32_t job);

/* Returns LATE's estimate of the time left of the task's best live copy, or a negative
 * value when a copy is too young to judge (it ran less than the minimum time). */
double ebb_spec_time_left (ebb_pol *p, uint32_t job, uint32_t task, double now_sec);

/* The environment's answer to a KILL: the copy of (job, task) on node is gone. */
void ebb_pol_copy_killed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task);

/* Hopper's virtual size (section 4.1): the threshold max(2 / beta, 1) times the remaining
 * tasks, V = (2 / beta) x T_rem for the paper's 1 < beta < 2. */
static inline double
ebb_spec_virtual_size (double beta, uint32_t remaining)
{
  return (beta < 2 ? 2.0 / beta : 1.0) * remaining;
}

#endif
