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
/* Returns where argv0 may be, in the order the task tries them as its own user (argv0
 * itself when it has a '/', else each directory of env's PATH joined with it). */
char **ebb_agent_exec_candidates (const char *argv0, char *const *env);

#endif
