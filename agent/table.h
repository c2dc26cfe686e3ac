/* The task table (agent/table.c): find, add, drop, count, journal, and the one teardown.
 * Loop thread only. */
#ifndef EBB_AGENT_TABLE_H
#define EBB_AGENT_TABLE_H

#include <stddef.h>

#include "agent/context.h"

struct ebb_agent;
struct ebb_agent_pending;

/* Returns the task named id, or NULL. */
ebb_agent_task *ebb_agent_find (struct ebb_agent *a, const char *id);
/* Adds t (the agent owns it from now on). */
void ebb_agent_add_task (struct ebb_agent *a, ebb_agent_task *t);
/* Removes t from the table and destroys it. */
void ebb_agent_drop_task (struct ebb_agent *a, ebb_agent_task *t);
/* Returns how many tasks are in state s. */
size_t ebb_agent_count_state (struct ebb_agent *a, ebb_agent_state s);
/* Journals t (the fsync through the group commit); counts and logs a failure. Returns 0 or
 * negative with *err. */
int ebb_agent_journal (struct ebb_agent *a, ebb_agent_task *t, ebb_error **err);
/* Stops watching t's process (exit source, kill timer, pidfd): the first part of the teardown,
 * also what an exit does. */
void ebb_agent_task_close_runtime (ebb_agent_task *t);
/* The one teardown: t's event sources, pidfd, cgroup handle, unanswered request, then t. */
void ebb_agent_task_destroy (ebb_agent_task *t);
/* Frees a request that was never answered. */
void ebb_agent_pending_free (struct ebb_agent_pending *p);

#endif
