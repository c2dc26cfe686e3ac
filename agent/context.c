/* The daemon context's two calls every layer may make: a crash point, a task changed. */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "agent/context.h"
#include "lib/log.h"

/* Kills the agent (SIGKILL, like kill -9) at a named point when EBB_AGENT_CRASH_AT says so. */
void
ebb_agent_crash_point (ebb_agent *a, const char *point)
{
  if (a->crash_at && strcmp (a->crash_at, point) == 0)
    {
      ebb_log_notice ("EBB_AGENT_CRASH_AT=%s: killing myself", point);
      raise (SIGKILL);
    }
}

/* A task's state changed: whoever listens (the heartbeat) hears of it. */
void
ebb_agent_task_changed (ebb_agent *a)
{
  if (a->on_task_change)
    a->on_task_change (a);
}
