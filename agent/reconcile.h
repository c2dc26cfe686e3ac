/* Reconcile (agent/reconcile.c): a task from the journal meets the machine after a restart.
 * Calls ops, the task table, release and proc. */
#ifndef EBB_AGENT_RECONCILE_H
#define EBB_AGENT_RECONCILE_H

#include "agent/context.h"

/* Reconcile after a restart (agent/reconcile.c): t comes from the journal. */
void ebb_agent_reconcile_task (ebb_agent *a, ebb_agent_task *t);

#endif
