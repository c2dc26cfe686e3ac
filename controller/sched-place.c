/* Placement: the policy instance over the slots of the ready nodes, its actions (LAUNCH
 * committed to the store before the call goes out), the events it causes, queueing tasks
 * into it, and rebuilding it when the node set changed and nothing is placed. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/log.h"
#include "lib/util.h"

#define PEV_FINISH 100 /* environment event: release a slot that got nothing to run */
#define PEV_KILLED 101 /* environment event: hand a task back to the policy */

static void
pev_push (ebb_ctl *c, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg)
{
  if (c->n_pev == c->cap_pev)
    {
      c->cap_pev = c->cap_pev ? c->cap_pev * 2 : 64;
      c->pev = ebb_xrealloc (c->pev, c->cap_pev * sizeof *c->pev);
    }
  c->pev[c->n_pev++] = (ebb_ctl_pevent){ kind, node, job, arg };
}

/* The task left the policy's view (ended, killed, or queued again elsewhere). */
void
ebb_ctl_unplace (ebb_ctl *c, ebb_ctl_task *t)
{
  if (t->slot == EBB_POL_NONE)
    return;
  if (!c->res_mode && t->slot < c->n_slots && c->slots[t->slot].task == t)
    c->slots[t->slot].task = NULL;
  t->slot = EBB_POL_NONE;
  if (c->n_placed)
    c->n_placed--;
}

/* LAUNCH of task k of policy job pj on policy node `slot` with `amount` (resource mode). */
static void
act_launch (ebb_ctl *c, uint32_t slot, uint32_t pj, uint32_t k, ebb_pol_res amount)
{
  ebb_ctl_slot *s = &c->slots[slot];
  ebb_ctl_task *t = ebb_ctl_pjob_task (c, pj, k);
  if (!t || t->state != TASK_PENDING || t->kill_wanted)
    {
      /* Killed meanwhile: the slot is free again, as if the task had ended at once. */
      if (!s->ghost)
        pev_push (c, PEV_FINISH, slot, pj, k);
      return;
    }
  if (s->ghost || c->nodes[s->node]->state != NODE_READY)
    {
      if (c->res_mode)
        {
          pev_push (c, PEV_KILLED, slot, pj, k); /* back to the policy's queue */
          return;
        }
      s->ghost = true; /* stays busy for this policy instance */
      ebb_ctl_task *one[] = { t };
      ebb_ctl_requeue (c, one, 1, "slot's node not ready");
      return;
    }
  uint64_t t0 = ebb_now_usec ();
  t->generation++;
  ebb_ctl_task_set_state (c, t, TASK_STARTING);
  ebb_ctl_task_set_node (c, t, s->node);
  t->slot = slot;
  t->pjob = pj;
  t->pidx = k;
  t->attempts = 0;
  c->n_placed++;
  if (!c->res_mode)
    s->task = t;
  /* Written into the loop iteration's transaction; the call waits in the outbox until
   * ebb_ctl_flush has committed it. */
  ebb_ctl_task_write (c, t);
  ebb_ctl_store_decision (c, "launch", t, t->node, t->job->id, c->cfg->policy);
  ebb_ctl_job_update (c, t->job);
  c->m.launches++;
  /* The job a preemption is for: a short one, or one of a tier above 0 (tiers). */
  if (t->job->cls == CLS_SHORT || !c->pjobs_pol[pj].is_long || t->job->priority > 0)
    c->last_short_job = t->job->id;
  uint64_t cpu = c->res_mode && amount.cpu_millis > 0 ? (uint64_t)amount.cpu_millis : t->cpu_millis;
  uint64_t mem
      = c->res_mode && amount.memory_bytes > 0 ? (uint64_t)amount.memory_bytes : t->memory_bytes;
  ebb_ctl_send_launch (c, t, c->pjobs_pol[pj].is_long, cpu, mem);
  c->m.decision_usec_sum += ebb_now_usec () - t0;
  c->m.decisions_timed++;
}

static void
act_fail (ebb_ctl *c, uint32_t pj)
{
  ebb_ctl_job *j = pj < c->n_pjobs ? ebb_ctl_job_find (c, c->pjobs[pj].job) : NULL;
  if (!j)
    return; /* a job that left memory is over */
  for (uint32_t k = 0; k < c->pjobs[pj].n; k++)
    {
      ebb_ctl_task *t = ebb_ctl_pjob_task (c, pj, k);
      if (t && t->state == TASK_PENDING)
        {
          ebb_ctl_task_set_state (c, t, TASK_FAILED);
          t->finished_at = ebb_ctl_now ();
          ebb_ctl_task_write (c, t);
        }
    }
  ebb_ctl_job_update (c, j);
}

static void
run_action (ebb_ctl *c, const ebb_pol_action *a)
{
  switch (a->kind)
    {
    case EBB_POL_ACT_LAUNCH:
      act_launch (c, a->node, a->job, a->arg, a->amount);
      break;
    case EBB_POL_ACT_PROBE:
    case EBB_POL_ACT_WAKE:
      /* Only a policy that depends on the delays (peacock: a round's carrier must reach
       * its node after the round's boundary, before any later probe) waits for them. The
       * others (sparrow, hawk, eagle: 0.5 ms of modelled network) get their messages at
       * once, as the controller always did: the delay they model is the agent calls'
       * real latency here, a timer per probe would add a wake-up and a loop turn to every
       * placement, and their controller tests and the ebb-sim comparisons
       * (doc/real-vs-sim.md) were made that way. Due: the emitting event's time plus the
       * delay; that time is the policy's last (actions are drained right after their
       * event; a re-entrant arrival in between moves it by microseconds, not a round). */
      if (ebb_pol_ops_of (c->pol)->timed_probes)
        ebb_ctl_timed_push (c, c->pol_last + a->delay_sec,
                            &(ebb_ctl_pevent){ a->kind, a->node, a->job, a->arg });
      else
        pev_push (c, a->kind, a->node, a->job, a->arg);
      break;
    case EBB_POL_ACT_SUSPEND:
    case EBB_POL_ACT_RESUME:
    case EBB_POL_ACT_KILL:
      ebb_ctl_act_preempt (c, a);
      break;
    case EBB_POL_ACT_FAIL:
      act_fail (c, a->job);
      break;
    default:
      break; /* informational */
    }
}

/* See sched.h. */
void
ebb_ctl_deliver (ebb_ctl *c, const ebb_ctl_pevent *e, double now)
{
  if (e->kind == EBB_POL_ACT_PROBE)
    ebb_pol_probe_arrived (c->pol, now, e->node, e->arg);
  else if (e->kind == EBB_POL_ACT_WAKE)
    ebb_pol_node_wake (c->pol, now, e->node);
}

static void
run_event (ebb_ctl *c, const ebb_ctl_pevent *e)
{
  double now = ebb_ctl_pol_now (c);
  if (e->kind == EBB_POL_ACT_PROBE || e->kind == EBB_POL_ACT_WAKE)
    ebb_ctl_deliver (c, e, now);
  else if (e->kind == PEV_FINISH)
    {
      ebb_pol_task_finished (c->pol, now, e->node, e->job, e->arg);
      ebb_ctl_pjob_forget (c, e->job); /* a killed task was its batch's last */
    }
  else if (e->kind == PEV_KILLED)
    {
      ebb_pol_task_killed (c->pol, now, e->node, e->job, e->arg);
      ebb_ctl_pjob_forget (c, e->job); /* the last placed task of a failed batch */
    }
}

/* Runs the policy's actions and the events they cause until nothing is left. Re-entrant
 * calls (an action that queues tasks again) only append; the outermost call drains. */
void
ebb_ctl_drain (ebb_ctl *c)
{
  if (!c->pol || c->in_drain)
    return;
  c->in_drain = true;
  ebb_pol_action buf[64];
  for (;;)
    {
      /* What does not fit stays pending for the next round. */
      size_t m = ebb_pol_take_actions (c->pol, buf, EBB_ARRAY_SIZE (buf));
      if (m > 0)
        {
          for (size_t i = 0; i < m; i++)
            run_action (c, &buf[i]);
          continue;
        }
      if (c->n_pev == 0)
        break;
      ebb_ctl_pevent e = c->pev[0];
      memmove (c->pev, c->pev + 1, (c->n_pev - 1) * sizeof *c->pev);
      c->n_pev--;
      run_event (c, &e);
    }
  c->in_drain = false;
}

/* Queues tasks (pending, of one job) into the policy as one policy job. */
void
ebb_ctl_queue_tasks (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_task **ts, size_t n)
{
  if (!c->pol || n == 0)
    return;
  if (ebb_pol_ops_of (c->pol)->dag && (n = ebb_ctl_dag_hold (j, ts, n)) == 0)
    return;
  uint32_t id = ebb_ctl_pjob_new (c, j, ts, n);
  if (j->cls == CLS_SHORT || j->priority > 0)
    c->last_short_job = j->id;
  /* A short job that finds no room preempts at its arrival in the policy itself (bigc's
   * arrival_preempt, ebb always), as in ebb-sim: no extra round here. */
  ebb_pol_job_arrived (c->pol, ebb_ctl_pol_now (c), id);
  ebb_ctl_drain (c);
}

static void
queue_pending_of (ebb_ctl *c, ebb_ctl_job *j)
{
  cleanup_free ebb_ctl_task **ts = ebb_xmalloc (sizeof *ts * (j->ntasks + 1));
  size_t n = 0;
  for (uint32_t i = 0; i < j->ntasks; i++)
    if (j->tasks[i].state == TASK_PENDING && !j->tasks[i].kill_wanted)
      ts[n++] = &j->tasks[i];
  ebb_ctl_queue_tasks (c, j, ts, n);
}

static bool
usable (const ebb_ctl_node *n)
{
  return n->state == NODE_READY && n->url;
}

/* Resource mode: the active tasks of each job on the new policy's nodes (from before a
 * restart, or a rebuild at a new node) become one policy job the policy adopts where they
 * run, so it can preempt them for short work like its own. A task suspended then owes a
 * RESUME (the policy counts it at its demand): see ebb_ctl_resume_owed(). Adopted tasks
 * join as at their adoption instead (ebb_ctl_adopt_rejoin). */
static void
adopt_running (ebb_ctl *c)
{
  for (size_t i = 0; i < c->n_jobs; i++)
    {
      ebb_ctl_job *j = c->jobs[i];
      cleanup_free ebb_ctl_task **ts = ebb_xmalloc (sizeof *ts * (j->ntasks + 1));
      cleanup_free uint32_t *nodes = ebb_xmalloc (sizeof *nodes * (j->ntasks + 1));
      size_t n = 0;
      for (uint32_t k = 0; k < j->ntasks; k++)
        {
          ebb_ctl_task *t = &j->tasks[k];
          if (!ebb_ctl_task_active (t) || t->node < 0 || ebb_ctl_task_is_adopt (t))
            continue;
          for (uint32_t s = 0; s < c->n_slots; s++)
            if (c->slots[s].node == t->node)
              {
                nodes[n] = s;
                ts[n++] = t;
                break;
              }
        }
      if (n == 0)
        continue;
      uint32_t id = ebb_ctl_pjob_new (c, j, ts, n);
      for (size_t k = 0; k < n; k++)
        {
          ts[k]->slot = nodes[k];
          /* A held one is held in the new policy too (ebb_ctl_hold_rejoin), owing nothing. */
          ts[k]->owed_resume = ts[k]->state == TASK_SUSPENDED && !ts[k]->held;
          c->hold_op.rejoin_wanted |= ts[k]->held;
          c->n_placed++;
        }
      ebb_pol_job_adopted (c->pol, ebb_ctl_pol_now (c), id, nodes);
      ebb_log_info ("job %" PRIu64 ": %zu running tasks adopted by the policy", j->id, n);
    }
}

/* Tasks still running from before (a restart, a rebuild at a new node) hold capacity the
 * new policy does not know about. Slot mode: a slot of their node, as a ghost. Resource
 * mode: their node's capacity is lowered by what they hold (tasks on nodes the policy
 * adopted none for), except adopted tasks awaiting their agent's answer, which places
 * them. */
static void
hold_unplaced (ebb_ctl *c)
{
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (!ebb_ctl_task_active (t) || t->node < 0 || t->slot != EBB_POL_NONE
            || (c->res_mode && ebb_ctl_adopt_pending (t)))
          continue;
        t->owed_resume = t->state == TASK_SUSPENDED;
        for (uint32_t s = 0; s < c->n_slots; s++)
          {
            if (c->slots[s].node != t->node)
              continue;
            if (c->res_mode)
              {
                ebb_pol_res cap = ebb_pol_node_cap (c->pol, s);
                cap.cpu_millis -= (int64_t)t->cpu_millis;
                cap.memory_bytes -= (int64_t)t->memory_bytes;
                ebb_pol_node_capacity (c->pol, s, cap);
                break;
              }
            if (!c->slots[s].task)
              {
                c->slots[s].task = t;
                c->slots[s].ghost = true;
                break;
              }
          }
      }
}

/* Builds a new policy over the ready nodes; only while no task is placed by the old one. */
void
ebb_ctl_rebuild (ebb_ctl *c)
{
  if (c->n_placed > 0)
    return;
  uint32_t n = 0;
  for (size_t i = 0; i < c->n_nodes; i++)
    if (usable (c->nodes[i]))
      n += c->res_mode ? 1 : c->nodes[i]->nslots;
  c->rebuild_wanted = false;
  ebb_pol_free (c->pol);
  c->pol = NULL;
  free (c->slots);
  c->slots = NULL;
  c->n_slots = 0;
  ebb_ctl_pjobs_clear (c);
  c->n_pev = 0;
  ebb_ctl_timed_clear (c); /* their tasks are pending: queued again below */
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      c->jobs[i]->tasks[k].slot = EBB_POL_NONE;
  if (n == 0)
    return;
  c->slots = ebb_xcalloc (n, sizeof *c->slots);
  ebb_pol_params p = c->params;
  p.nnodes = n;
  for (size_t i = 0; i < c->n_nodes; i++)
    if (usable (c->nodes[i]))
      for (uint32_t k = 0; k < (c->res_mode ? 1 : c->nodes[i]->nslots); k++)
        c->slots[c->n_slots++].node = (int)i;
  if (c->res_mode)
    p.node_cap = (ebb_pol_res){ (int64_t)c->nodes[c->slots[0].node]->cap_cpu_millis,
                                (int64_t)c->nodes[c->slots[0].node]->cap_memory_bytes };
  if (!c->pjobs_pol)
    {
      c->cap_pjobs = 256;
      c->pjobs = ebb_xcalloc (c->cap_pjobs, sizeof *c->pjobs);
      c->pjobs_pol = ebb_xcalloc (c->cap_pjobs, sizeof *c->pjobs_pol);
    }
  cleanup_error ebb_error *err = NULL;
  c->pol = ebb_pol_new (c->cfg->policy, &p, c->pjobs_pol, &err);
  if (!c->pol)
    {
      ebb_log_err ("policy %s over %u nodes: %s", c->cfg->policy, n, ebb_error_msg (&err));
      return;
    }
  for (uint32_t s = 0; c->res_mode && s < c->n_slots; s++)
    ebb_pol_node_capacity (c->pol, s,
                           (ebb_pol_res){ (int64_t)c->nodes[c->slots[s].node]->cap_cpu_millis,
                                          (int64_t)c->nodes[c->slots[s].node]->cap_memory_bytes });
  if (c->res_mode)
    {
      adopt_running (c);
      ebb_ctl_adopt_rejoin (c);
    }
  hold_unplaced (c);
  ebb_ctl_hold_rejoin (c); /* before any pending work could take a held task for running */
  c->last_pol_tick = ebb_ctl_pol_now (c);
  ebb_log_notice ("policy %s over %u %s of %zu nodes", c->cfg->policy, n,
                  c->res_mode ? "nodes (resources)" : "slots", c->n_nodes);
  for (size_t i = 0; i < c->n_jobs; i++)
    queue_pending_of (c, c->jobs[i]);
}

/* See ctl.h. */
void
ebb_ctl_sched_job (ebb_ctl *c, ebb_ctl_job *j)
{
  if (!c->pol)
    ebb_ctl_rebuild (c);
  else
    queue_pending_of (c, j);
}
