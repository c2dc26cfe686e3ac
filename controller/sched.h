/* The scheduler's inside: the real-time policy environment, split by job into
 * sched-model.c (its writes of the model: task rows, job states), sched-calls.c (the
 * handlers of the agent calls' answers), sched-place.c (the policy
 * instance and its placements), sched-pjobs.c (the batches queued into it),
 * sched-preempt.c (suspend, resume, kill by the policy), sched-recover.c (task ends, lost
 * nodes, restart), sched-nodes.c (heartbeats, drain, tick) and sched-evict.c (finished jobs
 * leaving memory). ctl.h has what the rest of the controller calls; this header what the
 * scheduler's files call of each other.
 *
 * It runs the same libebb-policy code ebb-sim drives in virtual time, driven here by job
 * arrivals, task ends, node changes and a tick. Each policy node is a slot (one CPU of one
 * agent). A LAUNCH becomes an asynchronous POST /v1/tasks through curl multi, committed to
 * the store (decision log) before it goes out, with a request id and the task's generation,
 * retried with backoff. Probes and wakes are messages inside this process, so they are
 * delivered right after the event that caused them (the simulator's net delay is real
 * latency here: the agent calls), except for a policy whose ops say timed_probes (peacock's
 * rotation rounds): its probes and wakes wait in a heap by due time for an sd-event timer
 * (sched-timed.c).
 *
 * The slot set is fixed for the life of one policy instance: a node that joins, is drained
 * or lost marks the policy for a rebuild, done when no slot is occupied (its queued tasks
 * are then queued again). Until then a lost or drained node's slots stay busy for the
 * policy ("ghosts") and the tasks bound to them are queued again elsewhere. */
#ifndef EBB_CTL_SCHED_H
#define EBB_CTL_SCHED_H

#include "controller/ctl.h"
#include "lib/time.h"

/* The policy's clock: CLOCK_MONOTONIC in seconds (a policy never reads a clock), never
 * behind the last time given to the policy (c->pol_last, which it records): a timed message
 * is delivered at its due time (ebb_ctl_pol_at), which may be behind the wall clock. */
static inline double
ebb_ctl_pol_now (ebb_ctl *c)
{
  double t = (double)ebb_now_usec () / 1e6;
  if (t < c->pol_last)
    t = c->pol_last;
  c->pol_last = t;
  return t;
}

/* The time a message due at `due` is delivered at: due itself, unless the policy was given a
 * later time already (time never goes back for it). Recorded as the last time given. */
static inline double
ebb_ctl_pol_at (ebb_ctl *c, double due)
{
  if (due < c->pol_last)
    due = c->pol_last;
  c->pol_last = due;
  return due;
}

/* sched-adopt.c */
/* The agent answered the adoption of t (active: starting, or running when a heartbeat came
 * first): it runs on its node and in the policy, or (still starting) it failed. */
void ebb_ctl_adopt_done (ebb_ctl *c, ebb_ctl_task *t, const ebb_http_result *res);
/* t's node is lost: t keeps its node and state, out of the policy until it comes back. */
void ebb_ctl_adopt_node_lost (ebb_ctl *c, ebb_ctl_task *t);
/* Returns true when t adopts and the agent's answer, which gives its allocation and places
 * it, has not come yet (t starting, or its allocation unknown). */
bool ebb_ctl_adopt_pending (const ebb_ctl_task *t);
/* Resource mode, a new policy (a restart, a rebuild): the adopted tasks still running on
 * its nodes join it exactly as at their adoption (one policy job each, long unless their
 * job is short, holding their stored allocation: ebb_pol_job_adopted), preemptible like
 * the tasks it launched; a suspended one owes a RESUME. Those awaiting their answer
 * (ebb_ctl_adopt_pending) join when it comes; one without it is asked again. */
void ebb_ctl_adopt_rejoin (ebb_ctl *c);

/* sched-place.c */
/* Runs the policy's actions and the events they cause until nothing is left. */
void ebb_ctl_drain (ebb_ctl *c);
/* Builds a new policy over the ready nodes; does nothing while a task is placed. */
void ebb_ctl_rebuild (ebb_ctl *c);
/* Queues n pending tasks of job j into the policy as one policy job. */
void ebb_ctl_queue_tasks (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_task **ts, size_t n);
/* The task left the policy's view (ended, killed, or queued again elsewhere). */
void ebb_ctl_unplace (ebb_ctl *c, ebb_ctl_task *t);

/* sched-timed.c: the policy's messages kept until their due time (ops->timed_probes). */
/* Keeps event e (a PROBE or a WAKE) until due (the policy's clock) and arms the timer. */
void ebb_ctl_timed_push (ebb_ctl *c, double due, const ebb_ctl_pevent *e);
/* Takes the earliest message (by due, then emission) into *out when it is due at now;
 * returns false, nothing taken, when none is (the timer is not re-armed: ebb_ctl_timed_run
 * does). */
bool ebb_ctl_timed_pop (ebb_ctl *c, double now, ebb_ctl_timed *out);
/* Delivers, in (due, emission) order, every message due at `now` (the policy's clock),
 * those the deliveries add included, each at its due time (ebb_ctl_pol_at) and drained
 * before the next; then arms the timer for the earliest one left. Returns how many. */
size_t ebb_ctl_timed_run (ebb_ctl *c, double now);
/* Drops every message kept (a new policy instance: the old one's probes mean nothing to it,
 * their tasks are pending and queued into the new one) and stops the timer. */
void ebb_ctl_timed_clear (ebb_ctl *c);
/* Frees the heap and the timer (at exit: the tasks of the probes in flight are pending in
 * the store, and a restart queues them again). */
void ebb_ctl_timed_free (ebb_ctl *c);

/* sched-place.c, for sched-timed.c */
/* Delivers a policy message (PROBE or WAKE) to the policy at now_sec. */
void ebb_ctl_deliver (ebb_ctl *c, const ebb_ctl_pevent *e, double now_sec);

/* sched-reconcile.c */
/* A heartbeat reports t (on node) in state `reported`, not the one decided: returns true
 * when the difference was this controller's to fix (logged and fixed: a task the policy
 * holds suspended reported running is suspended again), false to take the report (logged
 * when it is no call's race: a task held running reported suspended). */
bool ebb_ctl_reconcile_task (ebb_ctl *c, ebb_ctl_task *t, int node, ebb_ctl_task_state reported);
/* After node's full report (c->report_stamp; `present` of its active tasks were in it):
 * a task its agent should hold and that three such reports in a row lacked is lost there
 * (ebb_ctl_task_lost, reason "task_missing"). */
void ebb_ctl_reconcile_missing (ebb_ctl *c, int node, uint32_t present);

/* sched-dag.c */
struct ebb_pol_dag;
/* The graph of the n tasks ts of job j as one batch, each of est_sec: its edges are those
 * of j between two of them. Freed by ebb_ctl_dag_free. */
struct ebb_pol_dag *ebb_ctl_dag_build (const ebb_ctl_job *j, ebb_ctl_task *const *ts, size_t n,
                                       double est_sec);
void ebb_ctl_dag_free (struct ebb_pol_dag *d);
/* Keeps out of a batch (marks dag_held) the tasks of ts with an ancestor outside it that has
 * not ended; returns how many are left, first in ts. */
size_t ebb_ctl_dag_hold (ebb_ctl_job *j, ebb_ctl_task **ts, size_t n);
/* A task of j ended: queues its held tasks whose parents all ended or go with them. */
void ebb_ctl_dag_release (ebb_ctl *c, ebb_ctl_job *j);

/* sched-pjobs.c */
/* Returns task k of policy job pj, or NULL. */
ebb_ctl_task *ebb_ctl_pjob_task (ebb_ctl *c, uint32_t pj, uint32_t k);
/* A new policy job of the n tasks ts (of job j), described to the policy and not yet
 * announced to it. Returns its id. */
uint32_t ebb_ctl_pjob_new (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_task **ts, size_t n);
/* Frees the policy jobs (the policy's queue is rebuilt from the tasks). */
void ebb_ctl_pjobs_clear (ebb_ctl *c);
/* Policy job pj's last task ended: the policy forgets it when it can (ebb_pol_job_forget),
 * and then its id goes to the next batch queued. When only its probes still alive hold it
 * back, it is asked again at the next ticks (ebb_ctl_pjobs_forget_later). */
void ebb_ctl_pjob_forget (ebb_ctl *c, uint32_t pj);
/* Asks the policy again to forget the policy jobs it refused for their probes alive. */
void ebb_ctl_pjobs_forget_later (ebb_ctl *c);

/* sched-preempt.c */
/* Commits and sends the policy's SUSPEND, RESUME or KILL action a. */
void ebb_ctl_act_preempt (ebb_ctl *c, const ebb_pol_action *a);
/* A SUSPEND went through (freed: what the agent released; told: the policy knows already). */
void ebb_ctl_pol_reclaimed (ebb_ctl *c, ebb_ctl_task *t, ebb_pol_res freed, bool told);
/* A RESUME went through. */
void ebb_ctl_pol_resumed (ebb_ctl *c, ebb_ctl_task *t);

/* sched-recover.c */
/* A task reached a final state s (why: for the log): free its slot for the policy. */
void ebb_ctl_finish_task (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state s, const char *why);
/* Slot mode: n tasks of one job that lost their node go back to the queue. */
void ebb_ctl_requeue (ebb_ctl *c, ebb_ctl_task **ts, size_t n, const char *why);
/* Resource mode: a task that is gone goes back to the policy's queue. */
void ebb_ctl_pol_killed (ebb_ctl *c, ebb_ctl_task *t, const char *why);
/* The node idx stopped answering: its tasks go back to the queue. */
void ebb_ctl_lose_node (ebb_ctl *c, int idx, const char *why);
/* Active task t is gone from its node (the node lost, or its agent no longer has it): a
 * task being killed is killed, an adopted one kept (it comes back with its node), another
 * goes back to the policy (resource mode) with a "kill" decision giving why. Returns false
 * in slot mode, where the caller requeues it (ebb_ctl_requeue; a job's tasks together). */
bool ebb_ctl_task_lost (ebb_ctl *c, ebb_ctl_task *t, const char *why);

/* sched-nodes.c */
/* Resource mode: tells the policy node idx's capacity (zero: none, it is gone). */
void ebb_ctl_set_res_capacity (ebb_ctl *c, int idx, bool zero);

/* What the daemon and the use cases call of the scheduler. */
/* A new job entered the cluster: queue its pending tasks into the policy. */
void ebb_ctl_sched_job (ebb_ctl *c, ebb_ctl_job *j);
/* Kills a job: pending tasks become killed, running ones get DELETE. */
void ebb_ctl_kill_job (ebb_ctl *c, ebb_ctl_job *j);
/* Applies a node's heartbeat (capacity, URL, task states). Returns 0, or negative with
 * *err for a malformed report (nothing changed). */
int ebb_ctl_heartbeat (ebb_ctl *c, const char *name, json_object *body, ebb_error **err);
/* The task list node's agent reported (a heartbeat's, or its answer to this leader's fence:
 * tasks NULL for none) against what this controller decided: states taken, stale copies
 * fenced off by DELETE, held-suspended tasks suspended again (ebb_ctl_reconcile_task). */
void ebb_ctl_reconcile_tasks (ebb_ctl *c, int node, json_object *tasks);
/* Routes (sched-calls.c) the answers of the agent calls of every kind to the scheduler's
 * handlers (ebb_ctl_outbox_route); called once when the controller is set up. */
void ebb_ctl_sched_calls_route (ebb_ctl *c);

/* Periodic work: node timeouts, policy tick, retries, rebuild at idle. */
void ebb_ctl_sched_tick (ebb_ctl *c);
/* Marks a node drained (no new tasks) or ready again. */
void ebb_ctl_node_drain (ebb_ctl *c, int idx, bool drain);
void ebb_ctl_sched_free (ebb_ctl *c);
/* After a restart: re-sends what the store says was under way: the suspensions, resumptions
 * and policy kills decided but not answered (ebb_ctl_replay_calls), the launches, the kills. */
void ebb_ctl_sched_resume_starting (ebb_ctl *c);
/* Tasks that were suspended when a new policy took them over (after a restart or a
 * rebuild: that policy counts them at their demand and will never resume them) get their
 * RESUME once no short task runs on their node any more. Called every tick; resent every
 * 2 s until the task runs. */
void ebb_ctl_resume_owed (ebb_ctl *c);
/* Writes t to the store (ebb_ctl_store_task) and notes its row exists; a finished task
 * gives back its spec (it is never sent again and its row keeps it). Returns 0, or
 * negative (logged). */
int ebb_ctl_task_write (ebb_ctl *c, ebb_ctl_task *t);
/* Recomputes a job's state from its tasks (and stores it when it changed). */
void ebb_ctl_job_update (ebb_ctl *c, ebb_ctl_job *j);

/* sched-reason.c */
/* Sets why each pending task of j waits (no_room, long_work_protected, node_draining,
 * waiting_for_parents; an event's reason stays) and j's reason: its first waiting task's,
 * none once none waits (a failed launch's stays). */
void ebb_ctl_explain_job (ebb_ctl *c, ebb_ctl_job *j);

/* sched-hold.c: the operator's hold and release of a task (ebbctl suspend|resume). */
/* Holds t (hold: suspended at once, never resumed by the policy) or releases it (resumed
 * at once, the policy's again), in the caller's transaction. Returns 0 (also when it is so
 * already), or negative with *err, nothing changed: -EBB_EREFUSED when t is not running
 * nor suspended or the policy has no resources, -EBUSY while a suspension or resumption is
 * under way. by: who asked, for the decision log. */
int ebb_ctl_task_hold (ebb_ctl *c, ebb_ctl_task *t, bool hold, const char *by, ebb_error **err);
/* The checks of ebb_ctl_task_hold alone: 0 it would change t, 1 t is so already, or the
 * same negative with *err. */
int ebb_ctl_task_hold_check (const ebb_ctl *c, const ebb_ctl_task *t, bool hold, ebb_error **err);
/* The policy's SUSPEND or RESUME of the task an operator's hold is for (c->hold_op.task):
 * recorded as "hold" or "release" and sent as CALL_HOLD or CALL_RELEASE. */
void ebb_ctl_hold_act (ebb_ctl *c, ebb_ctl_task *t, const ebb_pol_action *a);
/* Returns true when j has active tasks and every one is held. */
bool ebb_ctl_job_all_held (const ebb_ctl_job *j);
/* After a new policy adopted running work: its held tasks (suspended on their agents) are
 * held in it too (no call leaves). Called by the rebuild and at every tick (for one whose
 * step was under way then); does nothing unless wanted. */
void ebb_ctl_hold_rejoin (ebb_ctl *c);
/* The same for every job in memory not finished: at every policy tick. */
void ebb_ctl_explain_all (ebb_ctl *c);
/* Task t could not start: its reason and its job's say so with the agent's detail. */
void ebb_ctl_launch_failed (ebb_ctl *c, ebb_ctl_task *t, const char *detail);

/* sched-evict.c */
/* Frees the finished jobs beyond the newest cfg->keep_finished whose rows are committed and
 * that nothing refers to any more (no agent call under way, no slot); they are answered
 * from the store. Called after the tick's commit. Returns how many left. */
size_t ebb_ctl_evict (ebb_ctl *c);
/* Retention: at most once a minute (or once per cfg->retain_usec when shorter), outside a
 * transaction, removes from the store the finished jobs older than cfg->retain_usec or
 * beyond the newest cfg->retain_jobs, and the decisions older than cfg->retain_usec (in
 * batches). Returns the number of jobs removed. */
uint64_t ebb_ctl_prune (ebb_ctl *c);

/* sched-adopt.c */
/* Inside the submit's transaction: j's adopting tasks start on their nodes (decision
 * "adopt" logged). */
void ebb_ctl_adopt_prepare (ebb_ctl *c, ebb_ctl_job *j);
/* After the commit: sends POST /v1/tasks/adopt for j's adopting tasks. */
void ebb_ctl_adopt_send (ebb_ctl *c, ebb_ctl_job *j);

#endif
