/* libebb-policy's resource bookkeeping (resource mode): what each task holds, asks back
 * and is given, the nodes' free resources, and the LAUNCH, SUSPEND, RESUME and KILL
 * actions that carry amounts. */
#include "config.h"

#include "policies/policy-core.h"

#include <stdlib.h>

ebb_pol_action *
ebb_pol_emit_res (ebb_pol *p, uint32_t kind, uint32_t node, uint32_t job, uint32_t task,
                  double delay_sec)
{
  ebb_pol_emit (p, kind, node, job, task, delay_sec);
  ebb_pol_action *x = &p->acts[p->nacts - 1];
  x->mode = 0;
  x->amount = (ebb_pol_res){ 0, 0 };
  return x;
}

ebb_pol_task *
ebb_pol_task_of (ebb_pol *p, uint32_t job, uint32_t task)
{
  ebb_pol_job *j = &p->jobs[job];
  if (!j->tasks || task >= j->ntasks)
    abort ();
  return &j->tasks[task];
}

void
ebb_pol_node_capacity (ebb_pol *p, uint32_t node, ebb_pol_res cap)
{
  if (!p->node_cap || node >= p->params.nnodes)
    abort ();
  /* Keep what is in use: free moves by the change of capacity (it may go negative until
   * tasks end; a policy sees the node as full meanwhile). */
  p->node_free[node].cpu_millis += cap.cpu_millis - p->node_cap[node].cpu_millis;
  p->node_free[node].memory_bytes += cap.memory_bytes - p->node_cap[node].memory_bytes;
  p->node_cap[node] = cap;
  p->cap_changes++;
}

void
ebb_pol_task_reclaimed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task,
                        ebb_pol_res freed, int done)
{
  ebb_pol_task *t = ebb_pol_task_of (p, job, task);
  if (t->node != node)
    abort ();
  /* Never count more than the task holds as free. */
  if (freed.cpu_millis > t->alloc.cpu_millis)
    freed.cpu_millis = t->alloc.cpu_millis;
  if (freed.memory_bytes > t->alloc.memory_bytes)
    freed.memory_bytes = t->alloc.memory_bytes;
  ebb_pol_res_sub (&t->alloc, freed);
  ebb_pol_res_sub (&t->pending, freed);
  ebb_pol_res_add (&p->node_free[node], freed);
  if (done && t->inflight > 0 && --t->inflight == 0)
    {
      /* What the SUSPENDs asked and was not freed will not be: the task keeps it. */
      t->pending = (ebb_pol_res){ 0, 0 };
      if (t->state == EBB_POL_TASK_SUSPENDING)
        t->state = EBB_POL_TASK_SUSPENDED;
    }
  if (p->ops->task_reclaimed)
    p->ops->task_reclaimed (p, now_sec, node, job, task, freed, done);
}

void
ebb_pol_task_resumed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_pol_task *t = ebb_pol_task_of (p, job, task);
  if (t->state == EBB_POL_TASK_RESUMING)
    t->state = EBB_POL_TASK_RUNNING;
  if (p->ops->task_resumed)
    p->ops->task_resumed (p, now_sec, node, job, task);
}

void
ebb_pol_task_killed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_pol_job *j = &p->jobs[job];
  ebb_pol_task *t = ebb_pol_task_of (p, job, task);
  if (t->node != node)
    abort ();
  ebb_pol_res_add (&p->node_free[node], t->alloc);
  t->alloc = t->pending = (ebb_pol_res){ 0, 0 };
  t->inflight = 0;
  t->node = EBB_POL_NONE;
  t->frozen = 0;
  t->held = 0; /* queued again: a new launch is not held */
  t->tries = 0;
  t->kills++;
  t->state = EBB_POL_TASK_PENDING;
  if (j->launched > 0)
    j->launched--; /* to be launched again */
  if (t->kills >= p->params.kill_attempts && !j->failed)
    {
      j->failed = 1;
      p->stats.failed_jobs++;
      ebb_pol_emit_res (p, EBB_POL_ACT_FAIL, EBB_POL_NONE, job, task, 0);
    }
  if (j->failed)
    t->state = EBB_POL_TASK_FAILED;
  if (p->ops->task_killed)
    p->ops->task_killed (p, now_sec, node, job, task);
  if (p->nodes[node].busy || p->nodes[node].head != EBB_POL_NONE)
    ebb_pol_serve_next (p, now_sec, node);
}

void
ebb_pol_launch_res (ebb_pol *p, uint32_t node, uint32_t job, uint32_t task, double delay_sec)
{
  ebb_pol_job *j = &p->jobs[job];
  ebb_pol_task *t = ebb_pol_task_of (p, job, task);
  t->node = node;
  t->alloc = j->demand;
  t->pending = (ebb_pol_res){ 0, 0 };
  t->inflight = 0;
  t->state = EBB_POL_TASK_RUNNING;
  t->frozen = 0;
  t->tries = 0;
  ebb_pol_res_sub (&p->node_free[node], j->demand);
  j->launched++;
  ebb_pol_emit_res (p, EBB_POL_ACT_LAUNCH, node, job, task, delay_sec)->amount = j->demand;
}

void
ebb_pol_launch_task (ebb_pol *p, uint32_t node, uint32_t job, uint32_t task, ebb_pol_res demand,
                     double delay_sec)
{
  ebb_pol_task *t = ebb_pol_task_of (p, job, task);
  t->node = node;
  t->alloc = demand;
  t->pending = (ebb_pol_res){ 0, 0 };
  t->inflight = 0;
  t->state = EBB_POL_TASK_RUNNING;
  t->frozen = 0;
  t->tries = 0;
  ebb_pol_res_sub (&p->node_free[node], demand);
  p->jobs[job].launched++;
  ebb_pol_emit_res (p, EBB_POL_ACT_LAUNCH, node, job, task, delay_sec)->amount = demand;
}

ebb_pol_res
ebb_pol_booked_footprint (const ebb_pol *p)
{
  ebb_pol_res fp = p->params.footprint;
  if (p->params.book_footprint == EBB_POL_BOOK_NONE)
    return (ebb_pol_res){ 0, 0 };
  if (p->params.book_footprint == EBB_POL_BOOK_MEMORY)
    fp.cpu_millis = 0;
  return fp;
}

int
ebb_pol_take_suspends (const ebb_pol *p, ebb_pol_res left)
{
  return left.cpu_millis <= p->params.footprint.cpu_millis
         && left.memory_bytes <= p->params.footprint.memory_bytes;
}

ebb_pol_res
ebb_pol_suspend (ebb_pol *p, uint32_t job, uint32_t task, uint32_t mode, ebb_pol_res amount)
{
  ebb_pol_task *t = ebb_pol_task_of (p, job, task);
  if (t->held)
    return (ebb_pol_res){ 0, 0 }; /* the operator's (policy-hold.c): never a victim */
  const ebb_pol_res fp = ebb_pol_booked_footprint (p);
  /* What the task could still give: what it holds, minus what is already asked, minus
   * the footprint the books keep for it. */
  ebb_pol_res room = t->alloc;
  ebb_pol_res_sub (&room, t->pending);
  ebb_pol_res_sub (&room, fp);
  if (room.cpu_millis < 0)
    room.cpu_millis = 0;
  if (room.memory_bytes < 0)
    room.memory_bytes = 0;
  if (mode == EBB_POL_SUSPEND_IMMEDIATE)
    amount = room;
  else
    {
      if (amount.cpu_millis > room.cpu_millis)
        amount.cpu_millis = room.cpu_millis;
      if (amount.memory_bytes > room.memory_bytes)
        amount.memory_bytes = room.memory_bytes;
      p->stats.gp_steps++;
    }
  ebb_pol_res_add (&t->pending, amount);
  t->suspends++;
  t->inflight++;
  if (mode == EBB_POL_SUSPEND_IMMEDIATE)
    t->state = EBB_POL_TASK_SUSPENDING;
  p->stats.suspends++;
  ebb_pol_action *a
      = ebb_pol_emit_res (p, EBB_POL_ACT_SUSPEND, t->node, job, task, p->params.net_delay_sec);
  a->mode = mode;
  a->amount = amount;
  return amount;
}

void
ebb_pol_resume (ebb_pol *p, uint32_t job, uint32_t task)
{
  ebb_pol_job *j = &p->jobs[job];
  ebb_pol_task *t = ebb_pol_task_of (p, job, task);
  if (t->held)
    return; /* held by the operator (policy-hold.c): only the release resumes it */
  ebb_pol_res lack = j->demand;
  ebb_pol_res_sub (&lack, t->alloc);
  ebb_pol_res_sub (&p->node_free[t->node], lack);
  t->alloc = j->demand;
  t->pending = (ebb_pol_res){ 0, 0 };
  t->state = EBB_POL_TASK_RESUMING;
  t->frozen = 0;
  t->tries = 0;
  p->stats.resumes++;
  ebb_pol_emit_res (p, EBB_POL_ACT_RESUME, t->node, job, task, p->params.net_delay_sec)->amount
      = lack;
}

void
ebb_pol_kill (ebb_pol *p, uint32_t job, uint32_t task)
{
  ebb_pol_task *t = ebb_pol_task_of (p, job, task);
  p->stats.kills++;
  ebb_pol_emit_res (p, EBB_POL_ACT_KILL, t->node, job, task, p->params.net_delay_sec);
}
