/* Heartbeats to --controller (agent/heartbeat.c), periodic and on a task's change. */
#ifndef EBB_AGENT_HEARTBEAT_H
#define EBB_AGENT_HEARTBEAT_H

#include <stdint.h>

#include "agent/context.h"

/* Heartbeats (agent/heartbeat.c): called from the periodic timer. */
void ebb_agent_heartbeat_tick (ebb_agent *a, uint64_t now_usec);
/* A task's state changed (exit, suspended, resumed, failed): a heartbeat goes out at once,
 * one for all changes of a loop iteration or made while one is in flight. */
void ebb_agent_heartbeat_push (ebb_agent *a);
/* A leader fenced this agent and said where it is (POST /v1/fence {"leader"}): heartbeats
 * go there from now on, the next one at once, so that a new leader learns the node's
 * capacity and tasks in milliseconds, not after this agent's backoff. */
void ebb_agent_heartbeat_follow (ebb_agent *a, const char *leader);
/* GET /v1/health's "controller": {"reachable", "unreachable_sec", "last_heartbeat_at"}, or
 * NULL without --controller. */
json_object *ebb_agent_heartbeat_health (const ebb_agent *a);
/* The node report with the capacity override and the advertised URL (GET /v1/node). */
json_object *ebb_agent_node_report (ebb_agent *a);
/* The URL the controller should call this agent on (--advertise-url or the first listener). */
const char *ebb_agent_advertise_url (ebb_agent *a);

#endif
