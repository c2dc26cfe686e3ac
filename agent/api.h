/* The REST API (agent/api.c): routes to launch, adopt and ops; each body parsed once. */
#ifndef EBB_AGENT_API_H
#define EBB_AGENT_API_H

#include "agent/context.h"

/* Starts the listeners and the REST routes. Returns 0 or negative with *err. */
int ebb_agent_http_start (ebb_agent *a, ebb_error **err);

#endif
