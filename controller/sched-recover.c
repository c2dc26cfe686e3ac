/* Task ends and recovery: a task reaching a final state, tasks that lost their node going
 * back to the queue, killing a job, losing a node, and re-sending after a restart what the
 * store says was under way. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/log.h"
#include "lib/util.h"

/* A task reached a final state: free its slot for the policy. */
void
ebb_ctl_finish_task (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state s, const char *why)
{
  int node = t->node;
  ebb_ctl_task_set_state (c, t, s);
  t->finished_at = ebb_ctl_now ();
  uint32_t slot = t->slot;
  bool ghost = slot != EBB_POL_NONE && slot < c->n_slots && c->slots[slot].ghost;
  bool placed = slot != EBB_POL_NONE && t->pjob < c->n_pjobs;
  if (slot == EBB_POL_NONE && node >= 0)
    c->rebuild_wanted = true; /* it held capacity the policy was not told about */
  ebb_ctl_unplace (c, t);
  ebb_ctl_task_write (c, t);
  ebb_log_info ("task %" PRIu64 "-%u: %s (%s)", t->job->id, t->idx, ebb_ctl_task_state_name (s),
                why);
  if (s == TASK_EXITED || s == TASK_FAILED)
    if (node >= 0 && c->nodes[node]->state != NODE_LOST)
      ebb_ctl_send_delete (c, t, t->generation, node, CALL_FORGET);
  if (placed && c->pol && (c->res_mode || !ghost))
    {
      /* Killed on request (DELETE): nothing of its policy job is to run again. Without
       * this the policy queued the task again, and with tiers a queued task of a higher
       * tier preempted lower ones for a job already gone (issue 23). */
      if (s == TASK_KILLED && t->kill_wanted)
        ebb_pol_job_cancel (c->pol, ebb_ctl_pol_now (c), t->pjob);
      if (s == TASK_KILLED && c->res_mode)
        ebb_pol_task_killed (c->pol, ebb_ctl_pol_now (c), slot, t->pjob, t->pidx);
      else
        ebb_pol_task_finished (c->pol, ebb_ctl_pol_now (c), slot, t->pjob, t->pidx);
      ebb_ctl_drain (c);
      /* Its policy job's last task: the policy's state of it goes (policies that allow). */
      ebb_ctl_pjob_forget (c, t->pjob);
    }
  ebb_ctl_job_update (c, t->job);
  if (c->pol && ebb_pol_ops_of (c->pol)->dag)
    ebb_ctl_dag_release (c, t->job);
  if (c->rebuild_wanted)
    ebb_ctl_rebuild (c);
}

/* Slot mode: tasks that lost their node go back to the queue (counted as killed) as a new
 * policy job. */
void
ebb_ctl_requeue (ebb_ctl *c, ebb_ctl_task **ts, size_t n, const char *why)
{
  for (size_t i = 0; i < n; i++)
    {
      ebb_ctl_task *t = ts[i];
      if (ebb_ctl_task_active (t))
        {
          ebb_ctl_store_decision (c, "kill", t, t->node, t->job->id, why);
          c->m.tasks_lost++;
        }
      if (t->slot != EBB_POL_NONE && t->slot < c->n_slots)
        c->slots[t->slot].ghost = true;
      if (ebb_ctl_task_active (t))
        ebb_ctl_task_set_reason (c, t, REASON_NODE_LOST, "queued again: %s", why);
      ebb_ctl_unplace (c, t);
      ebb_ctl_task_set_state (c, t, TASK_PENDING);
      ebb_ctl_task_set_node (c, t, -1);
      ebb_ctl_task_write (c, t);
    }
  if (n && !ts[0]->kill_wanted)
    ebb_ctl_queue_tasks (c, ts[0]->job, ts, n);
}

/* Resource mode: a task that is gone (node lost, killed by the policy) goes back to the
 * policy, which queues it again (counted as a kill). */
void
ebb_ctl_pol_killed (ebb_ctl *c, ebb_ctl_task *t, const char *why)
{
  uint32_t slot = t->slot, pj = t->pjob, k = t->pidx;
  bool placed = slot != EBB_POL_NONE && pj < c->n_pjobs;
  t->pkill = false;
  if (ebb_ctl_task_is_adopt (t))
    {
      /* What was adopted cannot be launched again: killed is its end. */
      ebb_ctl_finish_task (c, t, TASK_KILLED, why);
      return;
    }
  if (ebb_ctl_task_active (t) && strcmp (why, "policy") != 0)
    {
      ebb_ctl_store_decision (c, "kill", t, t->node, t->job->id, why);
      c->m.tasks_lost++;
    }
  if (strcmp (why, "policy") == 0)
    ebb_ctl_task_set_reason (c, t, REASON_PREEMPTED, "killed by the policy (%s), queued again",
                             c->cfg->policy);
  else
    ebb_ctl_task_set_reason (c, t, REASON_NODE_LOST, "queued again: %s", why);
  ebb_ctl_unplace (c, t);
  ebb_ctl_task_set_state (c, t, TASK_PENDING);
  ebb_ctl_task_set_node (c, t, -1);
  ebb_ctl_task_write (c, t);
  if (placed && c->pol)
    {
      ebb_pol_task_killed (c->pol, ebb_ctl_pol_now (c), slot, pj, k);
      ebb_ctl_drain (c);
      /* Its job failed (kill attempts spent), now or before: the policy will not place it
       * again, so it must not stay pending for ever. */
      if (t->state == TASK_PENDING && pj < c->n_pjobs && c->pjobs_pol[pj].failed)
        {
          ebb_ctl_task_set_state (c, t, TASK_FAILED);
          t->finished_at = ebb_ctl_now ();
          ebb_ctl_task_write (c, t);
        }
      /* A failed batch's last placed task: the policy's state of it goes (policies that
       * allow: ops.forgets_failed_jobs), as after a batch's last task ended. */
      ebb_ctl_pjob_forget (c, pj);
    }
  else if (!placed)
    {
      ebb_ctl_task *one[] = { t };
      ebb_ctl_queue_tasks (c, t->job, one, 1);
    }
  ebb_ctl_job_update (c, t->job);
}

/* A queued task of batch pj was killed: the whole batch (of one job, killed whole) leaves
 * the policy's queues now, so no work queued behind it waits for it (ebb_pol_job_cancel),
 * and the policy forgets it unless a task of it is still placed (reported as it ends). */
static void
cancel_pjob (ebb_ctl *c, const ebb_ctl_job *j, uint32_t pj)
{
  if (!c->pol || pj >= c->n_pjobs || c->pjobs[pj].job != j->id || c->pjobs_pol[pj].forgotten)
    return;
  if (ebb_pol_job_cancel (c->pol, ebb_ctl_pol_now (c), pj))
    ebb_ctl_pjob_forget (c, pj);
}

/* See ctl.h. */
void
ebb_ctl_kill_job (ebb_ctl *c, ebb_ctl_job *j)
{
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      ebb_ctl_task *t = &j->tasks[i];
      if (ebb_ctl_task_terminal (t))
        continue;
      t->kill_wanted = true;
      if (t->state == TASK_PENDING)
        {
          ebb_ctl_task_set_state (c, t, TASK_KILLED);
          t->finished_at = ebb_ctl_now ();
          ebb_ctl_task_write (c, t);
          cancel_pjob (c, j, t->pjob);
          continue;
        }
      ebb_ctl_task_write (c, t);
      ebb_ctl_store_decision (c, "kill", t, t->node, j->id, "DELETE /v1/jobs");
      c->m.kills++;
      ebb_ctl_send_delete (c, t, t->generation, t->node, CALL_KILL);
    }
  ebb_ctl_job_update (c, j);
  ebb_ctl_drain (c); /* what the cancellations freed starts now */
}

/* See sched.h. */
bool
ebb_ctl_task_lost (ebb_ctl *c, ebb_ctl_task *t, const char *why)
{
  if (t->kill_wanted)
    ebb_ctl_finish_task (c, t, TASK_KILLED, why);
  else if (ebb_ctl_task_is_adopt (t))
    ebb_ctl_adopt_node_lost (c, t);
  else if (c->res_mode)
    ebb_ctl_pol_killed (c, t, why);
  else
    return false;
  return true;
}

/* See sched.h. */
void
ebb_ctl_lose_node (ebb_ctl *c, int idx, const char *why)
{
  ebb_ctl_node *n = c->nodes[idx];
  ebb_log_warn ("node %s lost: %s", n->name, why);
  n->state = NODE_LOST;
  n->epoch++;
  ebb_ctl_outbox_node_reset (c, idx);
  ebb_ctl_store_node (c, n);
  for (uint32_t s = 0; s < c->n_slots; s++)
    if (c->slots[s].node == idx)
      c->slots[s].ghost = true;
  ebb_ctl_set_res_capacity (c, idx, true);
  c->rebuild_wanted = true;
  for (size_t i = 0; i < c->n_jobs; i++)
    {
      ebb_ctl_job *j = c->jobs[i];
      cleanup_free ebb_ctl_task **ts = NULL;
      size_t k = 0;
      for (uint32_t t = 0; t < j->ntasks; t++)
        if (j->tasks[t].node == idx && ebb_ctl_task_active (&j->tasks[t]))
          {
            if (!ts)
              ts = ebb_xmalloc (sizeof *ts * j->ntasks);
            if (!ebb_ctl_task_lost (c, &j->tasks[t], "node lost"))
              ts[k++] = &j->tasks[t];
          }
      ebb_ctl_requeue (c, ts, k, "node lost");
      ebb_ctl_job_update (c, j);
    }
  if (c->rebuild_wanted)
    ebb_ctl_rebuild (c);
}

/* Relaunches what the store says was starting when the controller stopped: the agent
 * answers a repeated request id (or an existing task id) without launching twice. The
 * suspensions, resumptions and policy kills decided but not answered go first (the
 * launches they made room for come after them). */
void
ebb_ctl_sched_resume_starting (ebb_ctl *c)
{
  ebb_ctl_replay_calls (c);
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (t->state == TASK_STARTING && t->node >= 0 && ebb_ctl_task_is_adopt (t))
          ebb_ctl_send_adopt (c, t);
        else if (t->state == TASK_STARTING && t->node >= 0)
          ebb_ctl_send_launch (c, t, c->jobs[i]->cls == CLS_LONG, t->cpu_millis, t->memory_bytes);
        else if (t->kill_wanted && ebb_ctl_task_active (t) && t->node >= 0)
          ebb_ctl_send_delete (c, t, t->generation, t->node, CALL_KILL);
      }
}

/* Whether j is short work (what preempts long tasks). */
static bool
short_job (const ebb_ctl *c, const ebb_ctl_job *j)
{
  return j->cls == CLS_SHORT || (j->cls == CLS_AUTO && j->est_task_sec < c->params.cutoff_sec);
}

/* See ctl.h. */
void
ebb_ctl_resume_owed (ebb_ctl *c)
{
  size_t owed = 0;
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        const ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        owed += t->state == TASK_SUSPENDED && t->owed_resume && t->node >= 0;
      }
  if (owed == 0)
    return;
  cleanup_free bool *busy = ebb_xcalloc (c->n_nodes + 1, sizeof *busy);
  for (size_t i = 0; i < c->n_jobs; i++)
    if (short_job (c, c->jobs[i]))
      for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
        {
          const ebb_ctl_task *t = &c->jobs[i]->tasks[k];
          if (ebb_ctl_task_active (t) && t->node >= 0)
            busy[t->node] = true;
        }
  double now = ebb_ctl_now ();
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (t->state != TASK_SUSPENDED || !t->owed_resume || t->node < 0 || busy[t->node]
            || c->nodes[t->node]->state == NODE_LOST || !c->nodes[t->node]->url
            || now - t->owed_resume_at < 2.0)
          continue;
        t->owed_resume_at = now;
        uint64_t seq
            = ebb_ctl_store_decision (c, "resume", t, t->node, t->job->id,
                                      "owed: suspended before a restart, its short work is gone");
        c->m.resumes++;
        ebb_ctl_send_resume (c, t, seq);
      }
}
