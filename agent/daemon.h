/* The loop's own sources (agent/daemon.c): signals, the periodic tick (usage refresh, log
 * rotation, heartbeats, watchdog), the pool's eventfd, shutdown on SIGTERM. The top. */
#ifndef EBB_AGENT_DAEMON_H
#define EBB_AGENT_DAEMON_H

#include "agent/context.h"

/* The loop's own sources (agent/daemon.c). */
int ebb_agent_loop_sources (ebb_agent *a, ebb_error **err);
void ebb_agent_loop_sources_free (ebb_agent *a);

#endif
