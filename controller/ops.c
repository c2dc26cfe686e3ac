/* The use cases other than a submission (ops-submit.c): kill, drain, undrain, heartbeat,
 * and reading a job (from memory or the store).
 * See ops.h for the transaction each is. */
#include "config.h"

#include "controller/ops.h"
#include "controller/outbox.h"
#include "controller/sched.h"
#include "controller/store.h"

/* See ops.h. */
void
ebb_ctl_op_kill (ebb_ctl *c, ebb_ctl_job *j)
{
  ebb_ctl_store_begin (c);
  ebb_ctl_kill_job (c, j);
  ebb_ctl_flush (c); /* the kills are committed before the answer, then sent */
}

/* See ops.h. */
int
ebb_ctl_op_drain (ebb_ctl *c, int idx, bool drain, ebb_error **err)
{
  if (c->nodes[idx]->state == NODE_LOST)
    return ebb_error_set (err, EBB_EREFUSED, "node %s is lost", c->nodes[idx]->name);
  ebb_ctl_store_begin (c);
  ebb_ctl_node_drain (c, idx, drain);
  ebb_ctl_flush (c); /* committed before the answer */
  return 0;
}

/* See ops.h. */
int
ebb_ctl_op_heartbeat (ebb_ctl *c, const char *name, json_object *body, ebb_error **err)
{
  /* Its writes open the loop iteration's transaction; the flush at the iteration's end
   * commits it with the other heartbeats of the iteration, then sends what they decided. */
  return ebb_ctl_heartbeat (c, name, body, err);
}

/* See ops.h. */
ebb_ctl_job *
ebb_ctl_job_get (ebb_ctl *c, uint64_t id, ebb_ctl_job **loaded)
{
  *loaded = NULL;
  ebb_ctl_job *j = ebb_ctl_job_find (c, id);
  if (j || !c->store || id >= c->next_job_id)
    return j;
  *loaded = ebb_ctl_store_job_get (c, id);
  return *loaded;
}
