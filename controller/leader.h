/* Leadership (controller/leader.c): the election on etcd, or the epoch of one controller. */
#ifndef EBB_CTL_LEADER_H
#define EBB_CTL_LEADER_H

#include "controller/ctl.h"

/* Without --etcd, before the store's load: the epoch of this start, one above the last
 * start's (STATE_DIR/epoch) and the store's (PostgreSQL's fence row), claimed in the store
 * and written to the file. Returns 0, or negative with *err. */
int ebb_ctl_leader_single (ebb_ctl *c, ebb_error **err);
/* After the listeners: without --etcd, leads at the epoch ebb_ctl_leader_single claimed; with
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
