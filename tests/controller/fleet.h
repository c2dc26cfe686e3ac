/* The fleet emulator's shared state (tests/controller/fleet.c): its virtual nodes and tasks,
 * the node API with the agent's epoch checks (fleet-api.c) and the counters and stats file
 * (fleet-stats.c). One process, one loop thread: no locking. */
#ifndef EBB_FLEET_H
#define EBB_FLEET_H

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "lib/http-client.h"
#include "lib/http-server.h"

typedef struct fleet_kin fleet_kin;

typedef struct vtask
{
  char *id; /* the controller's agent task id, jJ-tI-gG */
  uint64_t generation;
  uint64_t end_usec; /* 0: forever */
  int state;         /* 0 running, 1 suspended, 2 exited */
  uint32_t node;
  fleet_kin *kin;         /* the copies of this job-task (any generation) */
  struct vtask *kin_next; /* the next live copy of kin */
  struct vtask *next;     /* the node's next task */
} vtask;

typedef struct
{
  vtask *tasks;
  uint64_t seq;
  /* The agent's fence (agent/fence.c): the highest epoch seen, refusing lower ones. */
  uint64_t epoch;
  /* The audit's own highest epoch, raised on every call that carries one before it is
   * decided: a call accepted below it is counted (accepted_below_highest), whatever the
   * refusal path above decided. */
  uint64_t audit_seen;
  /* Where heartbeats go: leader (a fence's or a standby's 503 named it) if set, else item
   * ctl_idx of the CONTROLLER-URL list. route_gen changes with either, so an answer to a
   * heartbeat sent before does not move them again. */
  char *leader;
  uint32_t ctl_idx, route_gen;
  uint64_t backoff_usec, retry_at_usec; /* a failed heartbeat's retry (0: none) */
  bool queued_now;                      /* in the queue of heartbeats sent at the next tick */
  bool hb_in_flight;                    /* a heartbeat on the current route is under way */
} vnode;

typedef struct
{
  uint64_t calls_accepted, calls_refused_stale, calls_unfenced;
  uint64_t fences, fences_refused, accepted_below_highest;
  uint64_t launches, duplicate_live;
  uint64_t hb_ok, hb_err, hb_followed, hb_next;
  /* Refused calls and fences by their epoch: a deposed leader's are counted by its epoch. */
  uint64_t *refused_epoch, *refused_count;
  size_t n_refused;
} fleet_counts;

typedef struct
{
  sd_event *ev;
  ebb_http_server *srv;
  char **ctls; /* CONTROLLER-URL's list */
  uint32_t n_ctls;
  char *submit_to; /* the URL a heartbeat last succeeded on (flood submissions) */
  char *token;
  char *base;
  uint32_t n, next_hb;
  uint64_t hb_usec, cpu;
  uint64_t hb_t0, hb_sent; /* the periodic heartbeats: since, and how many sent */
  vnode *nodes;
  fleet_counts k;
  const char *stats_file;    /* EBB_FLEET_STATS */
  const char *controller_ca; /* EBB_FLEET_CONTROLLER_CA: verifies an https controller */
  /* Heartbeats due at the next tick (a fence named the leader): node indexes, a ring. */
  uint32_t *now_q, now_head, now_len;
} fleet;

extern fleet F;

/* fleet-api.c: the node API routes (the agent's, under /nK). */
extern const ebb_http_route fleet_routes[];
extern const size_t fleet_n_routes;
/* Node k's tasks in the shape of a heartbeat's (a new array). */
json_object *fleet_tasks_json (uint32_t k);

/* fleet.c: sends node k's heartbeat at the next tick (a fence moved it). */
void fleet_heartbeat_soon (uint32_t k);

/* fleet-stats.c */
/* A launch of t on its node: t joins its job-task's live copies; a live copy on another node
 * counts one duplicate (once per job-task). */
void fleet_kin_launch (vtask *t);
/* t is no longer live (exited or deleted). */
void fleet_kin_gone (vtask *t);
/* Whether t is live now (running or suspended; a task past its end has exited). */
bool fleet_task_live (vtask *t, uint64_t now_usec);
/* Counts a call or fence refused at epoch. */
void fleet_count_refused (uint64_t epoch);
/* Writes the stats JSON to EBB_FLEET_STATS (temp file + rename); no-op without it. */
void fleet_write_stats (void);

#endif
