/* The operator's hold and release of a task (issue 22: `ebbctl suspend|resume JOB[-TASK]`,
 * like `scontrol suspend`): the policy suspends the task at once and leaves it alone from
 * then on (ebb_pol_task_hold: never resumed, never a victim) until the release resumes it.
 * The decision log records it as the operator's ("hold", "release", who asked), and its
 * agent call leaves through the outbox with a kind of its own (CALL_HOLD, CALL_RELEASE).
 * The held flag is stored with the task: after a restart, a held task joins the new
 * policy held (ebb_ctl_hold_rejoin) instead of owing a RESUME. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/sched.h"
#include "controller/store.h"

/* See sched.h. */
int
ebb_ctl_task_hold_check (const ebb_ctl *c, const ebb_ctl_task *t, bool hold, ebb_error **err)
{
  const char *what = hold ? "suspended" : "resumed";
  if (!c->pol || !c->res_mode)
    return ebb_error_set (err, EBB_EREFUSED,
                          "policy %s suspends nothing (slot mode): a task can be %s by hand "
                          "under a resource policy (ebb, bigc)",
                          c->cfg->policy, what);
  if (t->state != TASK_RUNNING && t->state != TASK_SUSPENDED)
    return ebb_error_set (err, EBB_EREFUSED,
                          "task %" PRIu64 "-%u is %s: only a running or suspended task can be %s",
                          t->job->id, t->idx, ebb_ctl_task_state_name (t->state), what);
  if (t->held == hold)
    return 1;
  if (t->slot == EBB_POL_NONE || t->pjob >= c->n_pjobs)
    return ebb_error_set (err, EBB_EREFUSED,
                          "task %" PRIu64
                          "-%u runs outside the policy (on a node it does not hold)",
                          t->job->id, t->idx);
  if (!hold && t->state != TASK_SUSPENDED)
    return ebb_error_set (err, EBUSY, "task %" PRIu64 "-%u: its suspension is under way; try again",
                          t->job->id, t->idx);
  return 0;
}

/* See sched.h. */
void
ebb_ctl_hold_act (ebb_ctl *c, ebb_ctl_task *t, const ebb_pol_action *a)
{
  bool hold = a->kind == EBB_POL_ACT_SUSPEND;
  /* CPU is compressible: the room is the policy's at once, as for its own suspensions
   * (sched-preempt.c); memory once the agent brought the task down. */
  bool told = hold && a->amount.memory_bytes == 0;
  if (hold && (told || c->hold_op.rejoin))
    {
      /* A rejoining task is suspended already: the policy hears so, no call leaves. */
      ebb_pol_task_reclaimed (c->pol, ebb_ctl_pol_now (c), t->slot, t->pjob, t->pidx, a->amount, 1);
      if (c->hold_op.rejoin)
        return;
    }
  char reason[96];
  snprintf (reason, sizeof reason, "operator (%s)", c->hold_op.by ? c->hold_op.by : "unknown");
  uint64_t seq
      = ebb_ctl_store_decision (c, hold ? "hold" : "release", t, t->node, t->job->id, reason);
  c->hold_op.acted = true;
  ebb_ctl_send_hold (c, t, seq, hold, a->amount, told);
}

/* See sched.h. */
int
ebb_ctl_task_hold (ebb_ctl *c, ebb_ctl_task *t, bool hold, const char *by, ebb_error **err)
{
  int r = ebb_ctl_task_hold_check (c, t, hold, err);
  if (r != 0)
    return r < 0 ? r : 0;
  c->hold_op.task = t;
  c->hold_op.by = by;
  c->hold_op.acted = false;
  if (ebb_pol_task_hold (c->pol, ebb_ctl_pol_now (c), t->pjob, t->pidx, hold) < 0)
    {
      c->hold_op.task = NULL;
      return ebb_error_set (err, EBUSY,
                            "task %" PRIu64 "-%u: a suspension or resumption of the policy's is "
                            "under way; try again",
                            t->job->id, t->idx);
    }
  t->held = hold;
  if (hold)
    ebb_ctl_reason_set (&t->reason, REASON_HELD, "suspended by the operator (%s)", by);
  else if (t->reason.code == REASON_HELD)
    ebb_ctl_reason_clear (&t->reason);
  ebb_ctl_drain (c);
  if (!c->hold_op.acted)
    {
      /* Suspended by the policy already: nothing to send, the log still says who held it. */
      char reason[96];
      snprintf (reason, sizeof reason, "operator (%s): suspended already", by);
      ebb_ctl_store_decision (c, "hold", t, t->node, t->job->id, reason);
    }
  c->hold_op.task = NULL;
  ebb_ctl_task_write (c, t);
  ebb_ctl_explain_job (c, t->job);
  return 0;
}

/* See sched.h. */
bool
ebb_ctl_job_all_held (const ebb_ctl_job *j)
{
  uint32_t held = 0;
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      const ebb_ctl_task *t = &j->tasks[i];
      if (ebb_ctl_task_active (t) && !t->held)
        return false;
      held += t->held && ebb_ctl_task_active (t);
    }
  return held > 0;
}

/* See sched.h. */
void
ebb_ctl_hold_rejoin (ebb_ctl *c)
{
  if (!c->hold_op.rejoin_wanted || !c->pol || !c->res_mode)
    return;
  c->hold_op.rejoin_wanted = false;
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (!t->held || t->slot == EBB_POL_NONE || t->pjob >= c->n_pjobs
            || t->pidx >= c->pjobs_pol[t->pjob].ntasks || !c->pjobs_pol[t->pjob].tasks
            || c->pjobs_pol[t->pjob].tasks[t->pidx].held)
          continue;
        c->hold_op.task = t;
        c->hold_op.by = "restart";
        c->hold_op.rejoin = true;
        if (ebb_pol_task_hold (c->pol, ebb_ctl_pol_now (c), t->pjob, t->pidx, true) < 0)
          c->hold_op.rejoin_wanted = true; /* a step under way: at the next tick */
        ebb_ctl_drain (c);
        c->hold_op.task = NULL;
        c->hold_op.rejoin = false;
      }
}
