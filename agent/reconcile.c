/* Reconcile after a restart: every journaled task is re-adopted in the state it is in.
 *   - cgroup gone or re-created (other inode), or a launched task's process gone: exited;
 *   - suspended: stays suspended, its journaled originals handed back to the engine;
 *   - suspending (immediate): the suspension is completed (suspending twice to the
 *     footprint is the same as once); suspending (graceful step): marked suspended with
 *     whatever the step applied, originals kept;
 *   - resuming: the resume is completed (restoring originals is idempotent).
 * So an interrupted transition always ends in the state it was heading to, and no task is
 * left starved without an agent that knows its original limits. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "agent/ops.h"
#include "agent/proc.h"
#include "agent/reconcile.h"
#include "agent/release.h"
#include "agent/table.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

static void
mark_gone (ebb_agent *a, ebb_agent_task *t, const char *why)
{
  ebb_log_notice ("reconcile: task %s %s: exited", t->id, why);
  ebb_agent_release_cgroup (a, t, false);
  t->state = EBB_AGENT_EXITED;
  t->exited = true;
  ebb_agent_task_account (t, ebb_realtime_usec ());
  ebb_agent_journal (a, t, NULL);
}

static bool
process_alive (ebb_agent *a, ebb_agent_task *t)
{
  if (t->pid == 0)
    {
      /* Crashed between journaling the launch and recording the PID. */
      t->pid = ebb_agent_cgroup_first_pid (a, t->cgroup);
      t->pid_starttime = t->pid ? ebb_agent_pid_starttime (t->pid) : 0;
      return t->pid != 0;
    }
  uint64_t st = ebb_agent_pid_starttime (t->pid);
  return st != 0 && (t->pid_starttime == 0 || st == t->pid_starttime);
}

static int
reopen (ebb_agent *a, ebb_agent_task *t)
{
  cleanup_error ebb_error *e = NULL;
  if (!t->cgroup || ebb_cg_open_path (a->cg_ctx, t->cgroup, 0, &t->cg, &e) < 0)
    {
      mark_gone (a, t, ebb_error_msg (&e));
      return -1;
    }
  if (t->cgroup_inode && ebb_cg_inode (t->cg) != t->cgroup_inode)
    {
      mark_gone (a, t, "cgroup was re-created");
      return -1;
    }
  if (t->source == EBB_AGENT_SRC_LAUNCHED && !process_alive (a, t))
    {
      mark_gone (a, t, "process is gone");
      return -1;
    }
  if (t->pid > 0 && t->source == EBB_AGENT_SRC_LAUNCHED && ebb_agent_watch_pid (a, t, &e) < 0)
    ebb_log_warn ("reconcile: %s: %s", t->id, ebb_error_msg (&e));
  return 0;
}

static void
finish_transition (ebb_agent *a, ebb_agent_task *t)
{
  cleanup_error ebb_error *e = NULL;
  ebb_agent_state s = t->state;
  if (s == EBB_AGENT_SUSPENDING && !t->graceful)
    {
      t->state = t->prev_state == EBB_AGENT_SUSPENDED ? EBB_AGENT_SUSPENDED : EBB_AGENT_RUNNING;
      ebb_log_notice ("reconcile: %s: completing the interrupted suspend", t->id);
      if (ebb_agent_op_suspend (a, t, NULL, NULL, &e) < 0)
        ebb_log_err ("reconcile: %s: %s", t->id, ebb_error_msg (&e));
    }
  else if (s == EBB_AGENT_SUSPENDING)
    {
      ebb_log_notice ("reconcile: %s: interrupted graceful step counts as done", t->id);
      t->state = EBB_AGENT_SUSPENDED;
      ebb_agent_journal (a, t, NULL);
    }
  else if (s == EBB_AGENT_RESUMING)
    {
      t->state = EBB_AGENT_SUSPENDED;
      ebb_log_notice ("reconcile: %s: completing the interrupted resume", t->id);
      if (ebb_agent_op_resume (a, t, NULL, &e) < 0)
        ebb_log_err ("reconcile: %s: %s", t->id, ebb_error_msg (&e));
    }
}

/* Takes ownership of t (from the journal) and puts it in the table in a known state. */
void
ebb_agent_reconcile_task (ebb_agent *a, ebb_agent_task *t)
{
  t->owner = a;
  for (unsigned i = 0; i < t->n_replies; i++)
    ebb_agent_idem_add (a->idem, t->replies[i].request_id, t->replies[i].key, t->replies[i].status,
                        t->replies[i].body);
  ebb_agent_add_task (a, t);
  if (t->state == EBB_AGENT_EXITED)
    return;
  if (reopen (a, t) < 0)
    return;
  if (t->orig.recorded)
    ebb_cg_set_original (t->cg, &t->orig);
  ebb_agent_refresh_task (a, t);
  finish_transition (a, t);
  ebb_log_info ("reconcile: task %s is %s", t->id, ebb_agent_state_name (t->state));
}
