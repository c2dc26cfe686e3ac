/* A task held by the environment's operator (issue 22: `ebbctl suspend JOB-TASK`): the
 * core suspends it and from then on keeps the policy's hands off it (ebb_pol_suspend and
 * ebb_pol_resume emit nothing for a held task) until the operator releases it. */
#include "config.h"

#include "policies/policy-core.h"

/* Suspends running task t of job (immediate: down to the booked footprint). */
static void
hold_running (ebb_pol *p, uint32_t job, uint32_t task)
{
  ebb_pol_suspend (p, job, task, EBB_POL_SUSPEND_IMMEDIATE, (ebb_pol_res){ 0, 0 });
}

/* See policy.h. */
int
ebb_pol_task_hold (ebb_pol *p, double now_sec, uint32_t job, uint32_t task, int held)
{
  if (!p->node_cap || job >= p->jobs_seen || !p->jobs[job].tasks || task >= p->jobs[job].ntasks)
    return -1;
  ebb_pol_task *t = &p->jobs[job].tasks[task];
  /* A step in flight would answer a task whose state the hold changed under it. */
  if (t->node == EBB_POL_NONE || t->inflight || !t->held != !!held)
    return -1;
  if (held && t->state == EBB_POL_TASK_RUNNING)
    hold_running (p, job, task);
  else if (t->state != EBB_POL_TASK_SUSPENDED)
    return -1;
  t->held = 0; /* ebb_pol_resume refuses a held task */
  if (!held)
    ebb_pol_resume (p, job, task);
  t->held = held ? 1 : 0;
  if (p->ops->task_held)
    p->ops->task_held (p, now_sec, t->node, job, task, held ? 1 : 0);
  return 0;
}
