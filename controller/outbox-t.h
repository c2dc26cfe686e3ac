/* The outbox's types (controller/outbox.h has its functions): what an agent call is for,
 * one call, and the handler the scheduler registers for the answers of a kind. Apart so
 * that ctl.h can hold the handler table without the outbox's functions. */
#ifndef EBB_CTL_OUTBOX_T_H
#define EBB_CTL_OUTBOX_T_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "lib/http-client.h"
#include "policies/policy.h"

struct ebb_ctl;

typedef enum
{
  CALL_LAUNCH,
  CALL_KILL,   /* DELETE of a live task */
  CALL_FORGET, /* DELETE of an exited task, or of a stale copy on a node */
  CALL_SUSPEND,
  CALL_RESUME,
  CALL_PKILL,   /* DELETE decided by the policy: the task goes back to its queue */
  CALL_ADOPT,   /* POST /v1/tasks/adopt (sched-adopt.c) */
  CALL_HOLD,    /* POST /v1/tasks/ID/suspend by the operator (sched-hold.c) */
  CALL_RELEASE, /* POST /v1/tasks/ID/resume by the operator */
  CALL_N_KINDS,
} ebb_ctl_call_kind;

/* One agent call, from its decision to its answer (retries reuse it). */
typedef struct ebb_ctl_call
{
  struct ebb_ctl *c;
  ebb_ctl_call_kind kind;
  uint64_t job;
  uint32_t idx;
  uint64_t generation;
  int node;
  unsigned attempt;
  ebb_pol_res amount; /* SUSPEND: what the policy asked for */
  bool told;          /* SUSPEND: the policy was told the room is free when it went out */
  uint64_t seq;       /* its row in the store's calls table (0: none) */
  bool replay;        /* sent again after a restart: a policy of an earlier run decided it */
  json_object *body;
  char *path;
  sd_event_source *retry;
  struct ebb_ctl_call *retry_prev, *retry_next; /* in ebb_ctl.retrying while retry is armed */
} ebb_ctl_call;

/* The answer res (HTTP status below 500 and not 429: the outbox retries those itself) to
 * call k. Returns true to have the call tried again later (the agent is busy with the
 * task), false when it is over. */
typedef bool (*ebb_ctl_call_handler) (ebb_ctl_call *k, ebb_http_result *res);

/* How the outbox treats a kind: its handler (NULL: the answer is dropped) and whether an
 * answer 409 "busy" or "in_progress" for a task still there is tried again before the
 * handler sees it. */
typedef struct
{
  ebb_ctl_call_handler on_answer;
  bool retry_busy;
} ebb_ctl_call_route;

/* The task list of node's agent in the answer to a fence (the "tasks" array of
 * GET /v1/tasks), to reconcile as a heartbeat's. */
typedef void (*ebb_ctl_fence_handler) (struct ebb_ctl *c, int node, json_object *tasks);

#endif
