/* Why a task or job waits, or why a task could not start: the reason's codes by name, and
 * its setters (the message is the model's own copy). */
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

/* See ctl.h. */
void
ebb_ctl_reason_set (ebb_ctl_reason *r, ebb_ctl_reason_code code, const char *fmt, ...)
{
  ebb_ctl_reason_clear (r);
  if (code == REASON_NONE)
    return;
  va_list ap;
  va_start (ap, fmt);
  if (vasprintf (&r->message, fmt, ap) < 0)
    r->message = NULL;
  va_end (ap);
  r->code = code;
}

/* See ctl.h. */
bool
ebb_ctl_reason_is_wait (ebb_ctl_reason_code code)
{
  return code == REASON_NONE || code == REASON_NO_ROOM || code == REASON_LONG_WORK_PROTECTED
         || code == REASON_NODE_DRAINING || code == REASON_WAITING_FOR_PARENTS;
}
