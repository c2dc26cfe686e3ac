/* Leadership (controller/leader.c): the election on etcd, or the epoch of one controller. */
#ifndef EBB_CTL_LEADER_H
#define EBB_CTL_LEADER_H

#include "controller/ctl.h"

/* After the listeners: without --etcd, raises the epoch in STATE_DIR/epoch and leads; with
 * it, campaigns (the winner loads the store, fences the agents, then acts; a loser or a
 * deposed leader ends the loop with EBB_CTL_EXIT_DEPOSED). Returns 0, or negative with *err. */
int ebb_ctl_leader_start (ebb_ctl *c, ebb_error **err);
/* At a stop (SIGTERM): with --etcd, stops acting and deletes our key so that a standby
 * leads at once; the loop ends when etcd answered. Returns false without --etcd (the caller
 * ends the loop). */
bool ebb_ctl_leader_resign (ebb_ctl *c);
/* Stops the election without resigning (the lease expires). */
void ebb_ctl_leader_free (ebb_ctl *c);

#endif
