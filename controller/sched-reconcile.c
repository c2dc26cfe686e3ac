/* Reconciliation (resource mode): what an agent's heartbeat reports of a task against what
 * this controller decided for it, each difference logged with its fix. An agent restarted
 * without --handover resumed the tasks it held suspended: reported running, they would hold
 * their whole allocation again while the policy counts their room as given to other work,
 * and the node would run over its capacity. */
#include "config.h"

#include <inttypes.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/sched.h"
#include "controller/store.h"
#include "lib/log.h"

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
