/* Launch (agent/launch.c): a new task in its own cgroup, as its user, its output in the
 * state directory. Calls ops (exit), the task table, release and proc. */
#ifndef EBB_AGENT_LAUNCH_H
#define EBB_AGENT_LAUNCH_H

#include "agent/context.h"
#include "agent/request.h"

/* Creates the cgroup, sets limits, spawns, watches the exit.
 * Returns 0 and the new task (not yet in the table), or negative with *err (nothing left
 * behind: cgroup removed). */
int ebb_agent_launch (ebb_agent *a, const ebb_agent_launch_req *req, ebb_agent_task **out,
                      ebb_error **err);
/* Moves a launched task's log to ID.log.1 when it outgrew --task-log-max. */
void ebb_agent_rotate_log (ebb_agent *a, ebb_agent_task *t);
/* Returns the resolved executable for argv0 under env's PATH, or NULL with *err. */
char *ebb_agent_find_exec (const char *argv0, char *const *env, ebb_error **err);

#endif
