/* Why a task or job waits, or why a task could not start: the reason's codes by name, and
 * its setters (the message is the model's own copy); a task's and a job's setters keep the
 * counters by reason (pending tasks, queued jobs) that /metrics shows without a scan. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "lib/util.h"

static const char *const reason_names[] = {
  [REASON_NONE] = NULL,
  [REASON_NO_ROOM] = "no_room",
  [REASON_LONG_WORK_PROTECTED] = "long_work_protected",
  [REASON_NODE_DRAINING] = "node_draining",
  [REASON_WAITING_FOR_PARENTS] = "waiting_for_parents",
  [REASON_NODE_LOST] = "node_lost",
  [REASON_PREEMPTED] = "preempted",
  [REASON_LAUNCH_FAILED] = "launch_failed",
  [REASON_HELD] = "held",
};

/* See ctl.h. */
const char *
ebb_ctl_reason_name (ebb_ctl_reason_code code)
{
  return (unsigned)code < EBB_ARRAY_SIZE (reason_names) ? reason_names[code] : NULL;
}

/* See ctl.h. */
ebb_ctl_reason_code
ebb_ctl_reason_code_of (const char *name)
{
  for (size_t i = 1; name && i < EBB_ARRAY_SIZE (reason_names); i++)
    if (strcmp (reason_names[i], name) == 0)
      return (ebb_ctl_reason_code)i;
  return REASON_NONE;
}

/* See ctl.h. */
void
ebb_ctl_reason_clear (ebb_ctl_reason *r)
{
  free (r->message);
  r->message = NULL;
  r->code = REASON_NONE;
}

static void
reason_vset (ebb_ctl_reason *r, ebb_ctl_reason_code code, const char *fmt, va_list ap)
{
  ebb_ctl_reason_clear (r);
  if (code == REASON_NONE)
    return;
  if (vasprintf (&r->message, fmt, ap) < 0)
    r->message = NULL;
  r->code = code;
}

/* See ctl.h. */
void
ebb_ctl_reason_set (ebb_ctl_reason *r, ebb_ctl_reason_code code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  reason_vset (r, code, fmt, ap);
  va_end (ap);
}

/* Moves counter v[code] by sign (wrapping: adding -1 subtracts one). */
static void
count_code (uint64_t *v, ebb_ctl_reason_code code, int sign)
{
  if ((unsigned)code < EBB_CTL_REASON_N)
    v[code] += (uint64_t)(int64_t)sign;
}

/* See ctl.h. */
void
ebb_ctl_count_task_reason (ebb_ctl *c, const ebb_ctl_task *t, int sign)
{
  if (t->state == TASK_PENDING)
    count_code (c->counts.pending_by_reason, t->reason.code, sign);
}

/* See ctl.h. */
void
ebb_ctl_count_job_reason (ebb_ctl *c, const ebb_ctl_job *j, int sign)
{
  if (j->state == JOB_QUEUED)
    count_code (c->counts.queued_by_reason, j->reason.code, sign);
}

/* See ctl.h. */
void
ebb_ctl_task_set_reason (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_reason_code code, const char *fmt,
                         ...)
{
  va_list ap;
  va_start (ap, fmt);
  if (t->accounted)
    ebb_ctl_count_task_reason (c, t, -1);
  reason_vset (&t->reason, code, fmt, ap);
  if (t->accounted)
    ebb_ctl_count_task_reason (c, t, 1);
  va_end (ap);
}

/* See ctl.h. */
void
ebb_ctl_job_set_reason (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_reason_code code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  if (j->accounted)
    ebb_ctl_count_job_reason (c, j, -1);
  reason_vset (&j->reason, code, fmt, ap);
  if (j->accounted)
    ebb_ctl_count_job_reason (c, j, 1);
  va_end (ap);
}

/* See ctl.h. */
bool
ebb_ctl_reason_is_wait (ebb_ctl_reason_code code)
{
  return code == REASON_NONE || code == REASON_NO_ROOM || code == REASON_LONG_WORK_PROTECTED
         || code == REASON_NODE_DRAINING || code == REASON_WAITING_FOR_PARENTS;
}
