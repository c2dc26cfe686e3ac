/* Adoption (agent/adopt.c): a running container (Docker/Podman) or a cgroup path becomes a
 * task the agent manages without owning its processes. Calls ops, the task table, release. */
#ifndef EBB_AGENT_ADOPT_H
#define EBB_AGENT_ADOPT_H

#include "agent/context.h"
#include "agent/request.h"

/* Refuses (EBB_EREFUSED, naming the setting) an adopt_root that covers the agent's own
 * cgroup: the agent could then adopt and throttle itself. */
int ebb_agent_check_adopt_roots (ebb_agent *a, ebb_error **err);
/* Adopts a cgroup path. Returns 0 and *out, or negative with *err. */
int ebb_agent_adopt_cgroup (ebb_agent *a, const ebb_agent_adopt_req *req, ebb_agent_task **out,
                            ebb_error **err);
/* Starts adopting a container (the engines are asked without blocking); p is answered from
 * the loop. Returns 0, or negative with *err (no engine configured; p untouched). */
int ebb_agent_adopt_container_start (ebb_agent *a, const ebb_agent_adopt_req *req,
                                     ebb_agent_pending *p, ebb_error **err);
/* Starts the Docker/Podman clients named in the config. Returns 0 or negative with *err. */
int ebb_agent_runtimes_start (ebb_agent *a, ebb_error **err);
void ebb_agent_runtimes_stop (ebb_agent *a);

#endif
