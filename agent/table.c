/* The task table: the agent's tasks by id, each journaled through here, and the one teardown
 * of a task's runtime resources. Below ops, launch and adopt; it calls none of them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/table.h"
#include "lib/log.h"
#include "lib/util.h"

/* Frees a pending request that was not answered (the server answers 503 on shutdown). */
void
ebb_agent_pending_free (ebb_agent_pending *p)
{
  if (!p)
    return;
  free (p->request_id);
  free (p->key);
  free (p);
}

/* Stops watching t's process: its exit source, kill timer and pidfd. */
void
ebb_agent_task_close_runtime (ebb_agent_task *t)
{
  t->exit_src = sd_event_source_disable_unref (t->exit_src);
  t->kill_timer = sd_event_source_disable_unref (t->kill_timer);
  if (t->pidfd >= 0)
    close (t->pidfd);
  t->pidfd = -1;
}

/* Frees t and what it holds at run time (sources, pidfd, cgroup handle, a waiting request
 * left unanswered: the server answers 503 on shutdown). A task not (yet) in the table, whose
 * journal write failed, goes the same way. */
void
ebb_agent_task_destroy (ebb_agent_task *t)
{
  ebb_agent_task_close_runtime (t);
  ebb_cg_close (t->cg);
  ebb_agent_pending_free (t->pending);
  ebb_agent_task_free (t);
}

/* Returns the task named id, or NULL. */
ebb_agent_task *
ebb_agent_find (ebb_agent *a, const char *id)
{
  for (size_t i = 0; i < a->n_tasks; i++)
    if (strcmp (a->tasks[i]->id, id) == 0)
      return a->tasks[i];
  return NULL;
}

/* Adds t to the table (the agent owns it from now on). */
void
ebb_agent_add_task (ebb_agent *a, ebb_agent_task *t)
{
  if (a->n_tasks == a->cap_tasks)
    {
      a->cap_tasks = a->cap_tasks ? a->cap_tasks * 2 : 64;
      a->tasks = ebb_xrealloc (a->tasks, a->cap_tasks * sizeof *a->tasks);
    }
  t->owner = a;
  a->tasks[a->n_tasks++] = t;
}

/* Removes t from the table and frees it. */
void
ebb_agent_drop_task (ebb_agent *a, ebb_agent_task *t)
{
  for (size_t i = 0; i < a->n_tasks; i++)
    if (a->tasks[i] == t)
      {
        memmove (&a->tasks[i], &a->tasks[i + 1], (a->n_tasks - i - 1) * sizeof *a->tasks);
        a->n_tasks--;
        break;
      }
  ebb_agent_task_destroy (t);
}

/* Returns how many tasks are in state s. */
size_t
ebb_agent_count_state (ebb_agent *a, ebb_agent_state s)
{
  size_t n = 0;
  for (size_t i = 0; i < a->n_tasks; i++)
    n += a->tasks[i]->state == s;
  return n;
}

/* Journals t. */
int
ebb_agent_journal (ebb_agent *a, ebb_agent_task *t, ebb_error **err)
{
  cleanup_error ebb_error *e = NULL;
  ebb_agent_task_touch (t);
  int r = ebb_agent_journal_write_sync (a->tasks_fd, t, a->syncer, &e);
  if (r < 0)
    {
      a->m.errors[EBB_AGENT_ERR_JOURNAL]++;
      ebb_log_err ("journal %s: %s", t->id, ebb_error_msg (&e));
      ebb_error_set (err, -r, "journal: %s", ebb_error_msg (&e));
      return r;
    }
  return 0;
}
