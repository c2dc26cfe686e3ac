/* The outbox (controller/outbox.c): the agent calls from their decision to their answer.
 * A call is built here from the task (its request id, its generation, the decision's
 * sequence number), waits until ebb_ctl_flush has committed the transaction that decided
 * it, goes out through curl multi, is retried while its node is ready, and its answer goes
 * to the handler routed for its kind. */
#ifndef EBB_CTL_OUTBOX_H
#define EBB_CTL_OUTBOX_H

#include "controller/ctl.h"
#include "controller/outbox-t.h"

/* Answers of kind go to on_answer (see ebb_ctl_call_route). */
void ebb_ctl_outbox_route (ebb_ctl *c, ebb_ctl_call_kind kind, ebb_ctl_call_handler on_answer,
                           bool retry_busy);
/* The task call k is for, in the generation it was sent to; NULL when the task moved on or
 * its job left memory. */
ebb_ctl_task *ebb_ctl_call_task (ebb_ctl_call *k);

/* DELETE /v1/tasks/ID of generation on node (kind: CALL_KILL or CALL_FORGET). */
void ebb_ctl_send_delete (ebb_ctl *c, const ebb_ctl_task *t, uint64_t generation, int node,
                          ebb_ctl_call_kind kind);
/* The calls a decision carries take its sequence number seq (ebb_ctl_store_decision's; 0:
 * not written): the request id of a suspension or resumption, and the key of the call's
 * row that a restart sends again. */
/* DELETE /v1/tasks/ID of t's generation on its node decided by the policy (CALL_PKILL). */
void ebb_ctl_send_pkill (ebb_ctl *c, const ebb_ctl_task *t, uint64_t seq);
/* POST /v1/tasks/ID/suspend: graceful (booked non-NULL: one step of amount from what the
 * policy counts the task as holding before it, sent as "booked" so the agent steps from
 * the books, not from its own idea of the task) or immediate (booked NULL). told: the
 * policy was told the room is free already (the answer then only updates the task). */
void ebb_ctl_send_suspend (ebb_ctl *c, ebb_ctl_task *t, uint64_t seq, const ebb_pol_res *booked,
                           ebb_pol_res amount, bool told);
/* POST /v1/tasks/ID/resume. */
void ebb_ctl_send_resume (ebb_ctl *c, ebb_ctl_task *t, uint64_t seq);
/* The operator's (sched-hold.c): POST /v1/tasks/ID/suspend, immediate, of amount (hold), or
 * /resume (release), with calls of their own kinds (CALL_HOLD, CALL_RELEASE). */
void ebb_ctl_send_hold (ebb_ctl *c, ebb_ctl_task *t, uint64_t seq, bool hold, ebb_pol_res amount,
                        bool told);
/* POST /v1/tasks of the task's current generation on its node with these limits. */
void ebb_ctl_send_launch (ebb_ctl *c, ebb_ctl_task *t, bool is_long, uint64_t cpu_millis,
                          uint64_t memory_bytes);

/* POST /v1/tasks/adopt of the adopted task t (its current generation, on its node). */
void ebb_ctl_send_adopt (ebb_ctl *c, ebb_ctl_task *t);
/* After a restart: sends again, with their request ids, the SUSPEND, RESUME and policy
 * KILL calls the store kept as decided but not answered (their answers set their tasks'
 * states: a task suspended so owes its RESUME). */
void ebb_ctl_replay_calls (ebb_ctl *c);
/* POST /v1/fence {"epoch"} to node (which has its URL), at once: the agent raises its
 * epoch, so a deposed leader's late calls are refused from then on, and answers its task
 * list, which goes to the handler of ebb_ctl_outbox_on_fence (fence and reconcile in one
 * round trip). ebb_ctl_flush sends it to every node not fenced at our epoch yet; the node's
 * calls wait until it is answered (a failure: sent again with backoff). Not a decision:
 * nothing is stored. */
void ebb_ctl_send_fence (ebb_ctl *c, int node);
/* A fence's task list goes to fn. */
void ebb_ctl_outbox_on_fence (ebb_ctl *c, ebb_ctl_fence_handler fn);
/* node is lost, or back from lost: the calls still waiting for its fence are dropped (ended,
 * as a call given up on a lost node) and the next flush fences it again (a lost node's fence
 * answer is not read: the one after its return is). */
void ebb_ctl_outbox_node_reset (ebb_ctl *c, int node);
/* Frees the calls not started yet (at exit). */
void ebb_ctl_calls_free (ebb_ctl *c);

/* The exit status of a controller whose commit failed (EX_TEMPFAIL). */
#define EBB_CTL_EXIT_STORE 75
/* The end of a loop iteration: commits the store, then starts the agent calls decided
 * since the last flush (a decision is committed before its call goes out). When the commit
 * fails, no call leaves, the store is closed and the loop ends with EBB_CTL_EXIT_STORE. */
void ebb_ctl_flush (ebb_ctl *c);
/* Records that job `job` arrived at arrival_usec (monotonic): the next flush starts its
 * launches first and takes its decision latency once they are handed to curl multi. */
void ebb_ctl_arrival (ebb_ctl *c, uint64_t job, uint64_t arrival_usec);

/* Has node's agent remove a kept log (DELETE path: /v1/tasks/ID/logs of a task whose job left
 * the store), on the client of ebb_ctl_outbox_read: nothing waits for the answer, a failure
 * is logged at -v (the agent's own bounds remove the log in the end). Returns 0, or negative
 * with *err. */
int ebb_ctl_outbox_drop_log (ebb_ctl *c, int node, const char *path, ebb_error **err);

/* Starts a call that reads from task t's agent and decides nothing (a log stream:
 * api-logs.c), so it is not held for a commit: at once, on a client of its own that never
 * waits behind (or holds up) the decisions' calls; no_timeout for a stream that lasts as
 * long as the task. opts' sink and done as ebb_http_client_start. Returns 0, or negative
 * with *err (done is then not called). */
int ebb_ctl_outbox_read (ebb_ctl *c, const ebb_ctl_task *t, const char *path, bool no_timeout,
                         bool (*sink) (const char *data, size_t len, void *ud),
                         ebb_http_done_fn done, void *ud, ebb_error **err);

#endif
