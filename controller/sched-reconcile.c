/* Reconciliation (resource mode): what an agent's heartbeat reports of a task against what
 * this controller decided for it, each difference logged with its fix. An agent restarted
 * without --handover resumed the tasks it held suspended: reported running, they would hold
 * their whole allocation again while the policy counts their room as given to other work,
 * and the node would run over its capacity. A task the agent no longer
 * has at all is lost on that node (ebb_ctl_reconcile_missing). */
#include "config.h"

#include <inttypes.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/sched.h"
#include "controller/store.h"
#include "lib/log.h"
#include "lib/util.h"

/* The policy's view of t when t is its own and no call about it is under way (a RESUME
 * sent, a SUSPEND not answered): else NULL, the report being then the call's race. */
static const ebb_pol_task *
settled (ebb_ctl *c, const ebb_ctl_task *t)
{
  if (!c->pol || !c->res_mode || t->slot == EBB_POL_NONE || t->pjob >= c->n_pjobs
      || c->pjobs[t->pjob].job != t->job->id || !c->pjobs_pol[t->pjob].tasks)
    return NULL;
  const ebb_pol_task *pt = &c->pjobs_pol[t->pjob].tasks[t->pidx];
  return pt->inflight == 0 && pt->pending.cpu_millis == 0 && pt->pending.memory_bytes == 0 ? pt
                                                                                           : NULL;
}

/* See sched.h. */
bool
ebb_ctl_reconcile_task (ebb_ctl *c, ebb_ctl_task *t, int node, ebb_ctl_task_state reported)
{
  const ebb_pol_task *pt = settled (c, t);
  if (pt && t->state == TASK_RUNNING && reported == TASK_SUSPENDED
      && pt->state == EBB_POL_TASK_RUNNING)
    {
      /* It holds less than booked, so no node runs over its capacity: taken as reported
       * and logged (a RESUME here would reach a policy that suspended nothing; the task
       * runs again when it is next resumed, or it is killed or ends). */
      ebb_log_warn (
          "node %s reports task j%" PRIu64 "-t%u-g%" PRIu64
          " suspended, which the policy holds running: taken as reported (below its booking)",
          c->nodes[node]->name, t->job->id, t->idx, t->generation);
      return false;
    }
  if (t->state != TASK_SUSPENDED || reported != TASK_RUNNING || t->owed_resume || !pt
      || pt->state != EBB_POL_TASK_SUSPENDED)
    return false;
  /* Held suspended, reported running: suspended again to what the policy counts it as
   * holding, one step down from its allocation (what the agent gave it back). */
  ebb_pol_res booked = c->pjobs_pol[t->pjob].demand, amount = booked;
  ebb_pol_res_sub (&amount, pt->alloc);
  if (amount.cpu_millis < 0)
    amount.cpu_millis = 0;
  if (amount.memory_bytes < 0)
    amount.memory_bytes = 0;
  ebb_log_warn ("node %s reports task j%" PRIu64 "-t%u-g%" PRIu64
                " running, which the policy holds suspended at %" PRId64
                " millicores: suspending it again",
                c->nodes[node]->name, t->job->id, t->idx, t->generation, pt->alloc.cpu_millis);
  uint64_t seq = ebb_ctl_store_decision (c, "suspend", t, node, t->job->id,
                                         "reconcile: reported running, held suspended");
  c->m.suspends++;
  ebb_ctl_send_suspend (c, t, seq, &booked, amount, true);
  return true;
}

/* How many full reports in a row, arrived after a task's launch's answer, must lack it
 * before it is lost on its node (ebb_ctl_reconcile_missing says why three). */
#define MISSING_REPORTS 3

/* Task t, not in the last MISSING_REPORTS full reports of its node: lost there, re-decided
 * as a task of a lost node is (a "kill" decision naming the node, committed before any call
 * it causes). */
static void
missing (ebb_ctl *c, ebb_ctl_task *t, int node)
{
  cleanup_free char *why
      = ebb_xasprintf ("task_missing: node %s no longer reports it", c->nodes[node]->name);
  ebb_log_warn ("node %s: task j%" PRIu64 "-t%u-g%" PRIu64
                " (%s here) is missing from its last %d reports: lost there",
                c->nodes[node]->name, t->job->id, t->idx, t->generation,
                ebb_ctl_task_state_name (t->state), MISSING_REPORTS);
  t->missing_reports = 0;
  if (!ebb_ctl_task_lost (c, t, why))
    {
      ebb_ctl_task *one[] = { t };
      ebb_ctl_requeue (c, one, 1, why);
      c->rebuild_wanted = true; /* its slot is a ghost until the rebuild */
    }
  ebb_ctl_job_update (c, t->job);
}

/* See sched.h. Its agent holds a task from the launch's answer (201: in its table, journaled)
 * until this controller forgets it; a wiped state directory, a reboot without --handover or
 * a lost table leave the task running here for ever unless its absence is noticed.
 * Only a report built after the agent took the task may count, and the controller cannot
 * see when a report was built (a heartbeat built just before a launch often arrives after
 * its answer: counting one report declared 29 of 40 quick launches missing), so a task goes
 * only when MISSING_REPORTS reports in a row that arrived after the launch's answer lack it
 * (missing_reports counts them; the answer, and every report that has it, starts it
 * again). An agent keeps one heartbeat in flight and builds the next one after the previous
 * one's answer (or its 5 s timeout), so the second report to arrive after the launch's
 * answer was built after the agent had the answer to the first, which the controller
 * received after the launch's answer, which the agent sent after taking the task. The one
 * exception is the heartbeat a fence sends while another is in flight: those two may both
 * predate a launch that follows the fence and arrive after its answer; the third report
 * was built after the second's answer. A fence's answer is built after the fence, after any
 * launch the agent answered a previous leader. Tasks starting (no answer yet), being killed
 * by the policy (its answer re-decides them) or adopted (the container stays where it is)
 * are left out. */
void
ebb_ctl_reconcile_missing (ebb_ctl *c, int node, uint32_t present)
{
  const ebb_ctl_node *n = c->nodes[node];
  if (present >= n->ntasks - n->nstarting)
    return; /* the report had every task of the node it must have: the usual case, no scan */
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (t->node != node || !ebb_ctl_task_active (t) || t->report_stamp == c->report_stamp)
          continue;
        if (t->state == TASK_STARTING || t->pkill || ebb_ctl_task_is_adopt (t))
          t->missing_reports = 0;
        else if (++t->missing_reports >= MISSING_REPORTS)
          missing (c, t, node);
      }
}
