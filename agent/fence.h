/* Leader fencing (agent/fence.c): the highest controller epoch this agent has seen, kept in
 * STATE_DIR/epoch and raised durably before a call of a higher epoch acts. A call of a lower
 * epoch is refused (doc/ha.md "Fencing the agents"). Pure: a directory fd and a struct, nothing
 * of the daemon, so the unit suite drives it on a temporary directory. */
#ifndef EBB_AGENT_FENCE_H
#define EBB_AGENT_FENCE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/error.h"

/* The header every mutating call of a controller carries. */
#define EBB_AGENT_EPOCH_HEADER "Ebb-Leader-Epoch"

typedef enum
{
  EBB_AGENT_FENCE_ACCEPTED = 0, /* the call's epoch equals the highest seen */
  EBB_AGENT_FENCE_RAISED,       /* a higher epoch: journaled, then accepted */
  EBB_AGENT_FENCE_REFUSED,      /* a lower epoch: 409 stale_leader */
  EBB_AGENT_FENCE_UNFENCED,     /* no header: an operator's call, accepted, epoch unchanged */
  EBB_AGENT_FENCE_N,
} ebb_agent_fence_result;

typedef struct ebb_agent_fence
{
  uint64_t epoch;                     /* the highest seen; 0: none yet */
  uint64_t counts[EBB_AGENT_FENCE_N]; /* calls by result, for /metrics */
} ebb_agent_fence;

/* The name of a result as /metrics labels it ("accepted", "raised", ...). */
const char *ebb_agent_fence_result_name (ebb_agent_fence_result r);

/* Parses an epoch (a decimal from 1 to 2^63-1, as etcd's revisions). Returns 0 and *out, or
 * negative (EBB_EPARSE) with *err. */
int ebb_agent_fence_parse (const char *text, uint64_t *out, ebb_error **err);

/* Reads dirfd/epoch into f->epoch (0 when the file is absent: a fresh agent). Returns 0, or
 * negative with *err when the file exists but cannot be read or parsed: the agent must not
 * start then, since forgetting the epoch would let a deposed leader act again. */
int ebb_agent_fence_load (int dirfd, ebb_agent_fence *f, ebb_error **err);

/* Admits a call of epoch (0: the call carried none). A higher epoch is written to dirfd/epoch
 * (atomically, fsynced) before f->epoch changes. Returns the result (counted in f->counts),
 * or negative with *err when the journal write failed (the call must then be refused; the
 * epoch in memory is unchanged). */
int ebb_agent_fence_admit (int dirfd, ebb_agent_fence *f, uint64_t epoch, ebb_error **err);

/* Writes ebb_agent_leader_epoch and ebb_agent_fence_calls_total (Prometheus text) to f. */
void ebb_agent_fence_metrics (FILE *f, const ebb_agent_fence *fence);

#endif
