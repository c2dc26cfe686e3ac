/* Preemption (resource mode): the policy's SUSPEND, RESUME and KILL, committed then sent,
 * and what the policy learns when an agent carried them out. */
#include "config.h"

#include <stdio.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/sched.h"

/* The policy learns that a SUSPEND of t freed `freed` (zero: an immediate one, everything
 * above the footprint). */
static void
tell_reclaimed (ebb_ctl *c, ebb_ctl_task *t, ebb_pol_res freed)
{
  if (!c->pol || !c->res_mode || t->slot == EBB_POL_NONE || t->pjob >= c->n_pjobs)
    return;
  ebb_pol_task *pt = &c->pjobs_pol[t->pjob].tasks[t->pidx];
  /* The policy counts what it asked for, never more: an agent's report of more (a bug, or
   * an agent not to be trusted) would make the books hand out room that is not free. */
  if (freed.cpu_millis <= 0 && freed.memory_bytes <= 0)
    freed = pt->pending;
  if (freed.cpu_millis > pt->pending.cpu_millis || freed.cpu_millis < 0)
    freed.cpu_millis = pt->pending.cpu_millis;
  if (freed.memory_bytes > pt->pending.memory_bytes || freed.memory_bytes < 0)
    freed.memory_bytes = pt->pending.memory_bytes;
  ebb_pol_task_reclaimed (c->pol, ebb_ctl_pol_now (c), t->slot, t->pjob, t->pidx, freed, 1);
  ebb_ctl_drain (c);
}

/* SUSPEND, RESUME and KILL (resource mode): committed, then sent. */
void
ebb_ctl_act_preempt (ebb_ctl *c, const ebb_pol_action *a)
{
  ebb_ctl_task *t = ebb_ctl_pjob_task (c, a->job, a->arg);
  if (!t || !ebb_ctl_task_active (t) || t->slot != a->node)
    return;
  if (t == c->hold_op.task && a->kind != EBB_POL_ACT_KILL)
    {
      ebb_ctl_hold_act (c, t, a); /* the operator's (sched-hold.c) */
      return;
    }
  const char *kind = a->kind == EBB_POL_ACT_SUSPEND  ? "suspend"
                     : a->kind == EBB_POL_ACT_RESUME ? "resume"
                                                     : "kill";
  char reason[96];
  snprintf (reason, sizeof reason, "%s: %s", c->cfg->policy,
            a->kind == EBB_POL_ACT_RESUME         ? "room again"
            : a->kind != EBB_POL_ACT_SUSPEND      ? "preemptive kill for a short job"
            : a->mode == EBB_POL_SUSPEND_GRACEFUL ? "graceful step for a short job"
                                                  : "immediate for a short job");
  /* Tiers: a suspension for a job of a higher tier names both (issue 23). */
  const ebb_ctl_job *by
      = a->kind == EBB_POL_ACT_SUSPEND ? ebb_ctl_job_find (c, c->last_short_job) : NULL;
  if (by && by->priority > t->job->priority)
    snprintf (reason, sizeof reason, "%s: %s for tier %d over tier %d", c->cfg->policy,
              a->mode == EBB_POL_SUSPEND_GRACEFUL ? "graceful step" : "immediate", by->priority,
              t->job->priority);
  /* The decision and its call's row (store-sqlite-calls.c) are in the loop iteration's
   * transaction: a restart finds both or neither, and the call leaves once ebb_ctl_flush
   * committed them. */
  uint64_t seq = ebb_ctl_store_decision (
      c, kind, t, t->node, a->kind == EBB_POL_ACT_RESUME ? t->job->id : c->last_short_job, reason);
  if (a->kind == EBB_POL_ACT_SUSPEND)
    {
      c->m.suspends++;
      /* CPU is compressible: when a suspension frees CPU only, the short task it makes room
       * for may start before the agent has throttled the victim (they share the CPU for the
       * few ms the agent takes), so the policy hears at once that the room is free and the
       * launch does not wait for the agent's answer (a round trip of 5-60 ms, up to 0.7 s
       * on a loaded host). Memory is not: a suspension that frees memory is reported when
       * the agent has brought the task down. */
      bool told = c->res_mode && a->amount.memory_bytes == 0;
      /* A graceful step carries what the policy counts the task as holding before it (its
       * allocation less the steps asked before this one): the agent steps from that, so an
       * adopted container without a CPU limit is not stepped from all the host's CPUs. */
      const ebb_pol_task *pt = &c->pjobs_pol[a->job].tasks[a->arg];
      ebb_pol_res booked = pt->alloc;
      ebb_pol_res_sub (&booked, pt->pending);
      ebb_pol_res_add (&booked, a->amount);
      bool graceful = a->mode == EBB_POL_SUSPEND_GRACEFUL;
      ebb_ctl_send_suspend (c, t, seq, graceful ? &booked : NULL, a->amount, told);
      if (told)
        tell_reclaimed (c, t, a->amount);
    }
  else if (a->kind == EBB_POL_ACT_RESUME)
    {
      c->m.resumes++;
      ebb_ctl_send_resume (c, t, seq);
    }
  else
    {
      c->m.kills++;
      c->m.preempt_kills++;
      t->pkill = true;
      ebb_ctl_send_pkill (c, t, seq);
    }
}

/* A SUSPEND went through: the policy learns what is free (the limits the agent applied;
 * memory above the limit is the kernel's to reclaim, the policy trusts the new limit). */
void
ebb_ctl_pol_reclaimed (ebb_ctl *c, ebb_ctl_task *t, ebb_pol_res freed, bool told)
{
  if (t->state != TASK_SUSPENDED)
    t->suspensions++;
  ebb_ctl_task_set_state (c, t, TASK_SUSPENDED);
  t->owed_resume = false; /* suspended by this policy: it resumes it */
  ebb_ctl_task_write (c, t);
  if (!told)
    tell_reclaimed (c, t, freed);
  ebb_ctl_job_update (c, t->job);
}

/* See sched.h. */
void
ebb_ctl_pol_resumed (ebb_ctl *c, ebb_ctl_task *t)
{
  ebb_ctl_task_set_state (c, t, TASK_RUNNING);
  t->owed_resume = false;
  ebb_ctl_task_write (c, t);
  if (c->pol && c->res_mode && t->slot != EBB_POL_NONE && t->pjob < c->n_pjobs)
    {
      ebb_pol_task_resumed (c->pol, ebb_ctl_pol_now (c), t->slot, t->pjob, t->pidx);
      ebb_ctl_drain (c);
    }
  ebb_ctl_job_update (c, t->job);
}
