/* The operator's hold and release (issue 22: `ebbctl suspend|resume JOB[-TASK]`): every
 * task it names checked first (a refusal changes nothing), then one transaction in which
 * each is held or released (sched-hold.c) and the flush that commits it and sends the
 * agent calls decided. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>

#include "controller/ops.h"
#include "controller/outbox.h"
#include "controller/sched.h"
#include "controller/store.h"

/* Whether task t of a job-wide call is one it acts on: running or suspended. */
static bool
named (const ebb_ctl_task *t)
{
  return t->state == TASK_RUNNING || t->state == TASK_SUSPENDED;
}

/* Checks the tasks the call names. Returns 0, or the HTTP status of a refusal with *err. */
static unsigned
check_all (ebb_ctl *c, ebb_ctl_job *j, int64_t task, bool hold, ebb_error **err)
{
  if (task >= (int64_t)j->ntasks)
    return ebb_error_set (err, ENOENT, "job %" PRIu64 " has no task %" PRId64, j->id, task), 404;
  if (task >= 0)
    return ebb_ctl_task_hold_check (c, &j->tasks[task], hold, err) < 0 ? 409 : 0;
  uint32_t n = 0;
  for (uint32_t i = 0; i < j->ntasks; i++)
    if (named (&j->tasks[i]))
      {
        if (ebb_ctl_task_hold_check (c, &j->tasks[i], hold, err) < 0)
          return 409;
        n++;
      }
  if (n == 0)
    return ebb_error_set (err, EBB_EREFUSED,
                          "job %" PRIu64 " is %s: no task of it runs or is suspended", j->id,
                          ebb_ctl_job_state_name (j->state)),
           409;
  return 0;
}

/* See ops.h. */
unsigned
ebb_ctl_op_hold (ebb_ctl *c, ebb_ctl_job *j, int64_t task, bool hold, const char *by,
                 ebb_error **err)
{
  unsigned st = check_all (c, j, task, hold, err);
  if (st)
    return st;
  ebb_ctl_store_begin (c);
  for (uint32_t i = 0; i < j->ntasks; i++)
    if ((task < 0 && named (&j->tasks[i])) || (int64_t)i == task)
      ebb_ctl_task_hold (c, &j->tasks[i], hold, by, NULL); /* checked: no refusal */
  ebb_ctl_flush (c); /* committed before the answer, then sent */
  return 0;
}
