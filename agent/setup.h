/* The agent as a whole (agent/setup.c): what agent/main.c runs. The top of the agent. */
#ifndef EBB_AGENT_SETUP_H
#define EBB_AGENT_SETUP_H

#include "agent/options.h"

typedef struct ebb_agent ebb_agent;

/* Sets everything up (state dir, cgroups, journal reconcile, HTTP, notify). Returns 0 and
 * *out, or negative with *err. */
int ebb_agent_new (ebb_agent_config *cfg, ebb_agent **out, ebb_error **err);
/* Runs the loop until SIGTERM/SIGINT. Returns the exit code. */
int ebb_agent_run (ebb_agent *a);
void ebb_agent_free (ebb_agent *a);
/* At a clean exit: removes the directories of --cgroup-parent that the agent created at its
 * start, when they are empty (rmdir only; one still in use stays). */
void ebb_agent_remove_created_cgroups (ebb_agent *a);

#endif
