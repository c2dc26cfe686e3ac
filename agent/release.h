/* A task's cgroup as a whole (agent/release.c): its first PID, a signal to all its processes,
 * and the one release path. Below ops, launch, adopt and reconcile; calls none of them. */
#ifndef EBB_AGENT_RELEASE_H
#define EBB_AGENT_RELEASE_H

#include <stdbool.h>
#include <sys/types.h>

#include "agent/task.h"

struct ebb_agent;

/* Returns the first PID in a cgroup's cgroup.procs, 0 when empty or unreadable. */
pid_t ebb_agent_cgroup_first_pid (struct ebb_agent *a, const char *cgroup);
/* Sends sig to every process in cgroup (SIGKILL: cgroup.kill on v2, else freeze, kill, thaw). */
void ebb_agent_signal_cgroup (struct ebb_agent *a, const char *cgroup, int sig);
/* Releases t's cgroup: removed for a launched task (kill_rest: SIGKILL to what is left in it
 * first; a busy cgroup is retried from a timer that kills again before each try), closed for
 * an adopted one. t->cg is NULL afterwards (unless the engine still works on it: untouched). */
void ebb_agent_release_cgroup (struct ebb_agent *a, ebb_agent_task *t, bool kill_rest);

#endif
