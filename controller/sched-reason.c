/* Why the scheduler leaves a task waiting: each pending task's reason, refreshed after a
 * submission and at every policy tick, and its job's (its first waiting task's). A reason an
 * event set (node_lost, preempted, launch_failed) stays until the task leaves pending. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/sched.h"

#define MIB (1024.0 * 1024.0)

/* What the ready and draining nodes offer a demand: whether one could hold it at all, and
 * the most CPU free on a ready node that could. Kept for the last demand asked (a job's
 * tasks mostly share one): a tick explains every waiting task, and the nodes are scanned
 * once per demand, not once per task. */
typedef struct
{
  bool valid;
  uint64_t cpu_millis, memory_bytes; /* the demand it is for */
  uint32_t ready, draining;
  bool fits_ready, fits_draining;
  uint64_t best_cpu, best_mem; /* free on the ready node with the most CPU free */
  uint32_t free_slots;         /* slot mode: free slots of the policy, counted once */
  bool slots_counted;
} room;

static const room *
room_of (const ebb_ctl *c, const ebb_ctl_task *t, room *r)
{
  if (!r->slots_counted)
    {
      for (uint32_t s = 0; !c->res_mode && s < c->n_slots; s++)
        r->free_slots += !c->slots[s].task && !c->slots[s].ghost;
      r->slots_counted = true;
    }
  if (r->valid && r->cpu_millis == t->cpu_millis && r->memory_bytes == t->memory_bytes)
    return r;
  r->valid = true;
  r->cpu_millis = t->cpu_millis;
  r->memory_bytes = t->memory_bytes;
  r->ready = r->draining = 0;
  r->fits_ready = r->fits_draining = false;
  r->best_cpu = r->best_mem = 0;
  for (size_t i = 0; i < c->n_nodes; i++)
    {
      const ebb_ctl_node *n = c->nodes[i];
      bool big = n->cap_cpu_millis >= t->cpu_millis && n->cap_memory_bytes >= t->memory_bytes;
      if (n->state == NODE_DRAINING)
        r->draining++, r->fits_draining |= big;
      if (n->state != NODE_READY)
        continue;
      r->ready++;
      r->fits_ready |= big;
      uint64_t cpu
          = n->cap_cpu_millis > n->alloc_cpu_millis ? n->cap_cpu_millis - n->alloc_cpu_millis : 0;
      if (big && cpu >= r->best_cpu)
        {
          r->best_cpu = cpu;
          r->best_mem = n->cap_memory_bytes > n->alloc_memory_bytes
                            ? n->cap_memory_bytes - n->alloc_memory_bytes
                            : 0;
        }
    }
  return r;
}

/* Why pending task t waits, as the model and the policy tell it: its code, message in buf. */
static ebb_ctl_reason_code
explain (const ebb_ctl *c, const ebb_ctl_task *t, room *cache, char *buf, size_t size)
{
  if (t->dag_held)
    {
      snprintf (buf, size, "waits for its parent tasks to end");
      return REASON_WAITING_FOR_PARENTS;
    }
  if (c->pol && t->pjob < c->n_pjobs && c->pjobs_pol[t->pjob].wait == EBB_POL_WAIT_SHARE)
    {
      snprintf (buf, size, "the long work where it could run keeps its share (long-share %g)",
                ebb_pol_params_of (c->pol)->long_share);
      return REASON_LONG_WORK_PROTECTED;
    }
  const room r = *room_of (c, t, cache);
  if (!r.fits_ready && r.fits_draining)
    {
      snprintf (buf, size, "only draining nodes (%" PRIu32 ") are big enough", r.draining);
      return REASON_NODE_DRAINING;
    }
  if (r.ready == 0)
    snprintf (buf, size, "no node is ready");
  else if (!r.fits_ready)
    snprintf (buf, size, "needs %.2f CPU and %.0f MiB: no ready node is that big",
              t->cpu_millis / 1000.0, t->memory_bytes / MIB);
  else if (!c->res_mode)
    snprintf (buf, size, "no free slot (%" PRIu32 " free on ready nodes, queued ahead of it)",
              r.free_slots);
  else
    snprintf (buf, size,
              "needs %.2f CPU and %.0f MiB: the most free on a ready node is %.2f CPU and %.0f MiB",
              t->cpu_millis / 1000.0, t->memory_bytes / MIB, r.best_cpu / 1000.0, r.best_mem / MIB);
  return REASON_NO_ROOM;
}

/* Whether r holds something else than code and msg (a tick refreshes many, most unchanged). */
static bool
reason_differs (const ebb_ctl_reason *r, ebb_ctl_reason_code code, const char *msg)
{
  return r->code != code || !r->message || strcmp (r->message, msg) != 0;
}

static void
explain_job (ebb_ctl *c, ebb_ctl_job *j, room *cache)
{
  const ebb_ctl_task *first = NULL;
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      ebb_ctl_task *t = &j->tasks[i];
      if (t->state != TASK_PENDING)
        continue;
      if (ebb_ctl_reason_is_wait (t->reason.code))
        {
          char msg[256];
          ebb_ctl_reason_code code = explain (c, t, cache, msg, sizeof msg);
          if (reason_differs (&t->reason, code, msg))
            ebb_ctl_task_set_reason (c, t, code, "%s", msg);
        }
      if (!first)
        first = t;
    }
  if (j->reason.code == REASON_LAUNCH_FAILED)
    return;
  const char *msg = first && first->reason.message ? first->reason.message : "";
  static const char held_msg[] = "suspended by the operator (ebbctl resume resumes it)";
  if (first && first->reason.code != REASON_NONE
      && reason_differs (&j->reason, first->reason.code, msg))
    ebb_ctl_job_set_reason (c, j, first->reason.code, "%s", msg);
  else if (!first && ebb_ctl_job_all_held (j))
    {
      if (reason_differs (&j->reason, REASON_HELD, held_msg))
        ebb_ctl_job_set_reason (c, j, REASON_HELD, "%s", held_msg);
    }
  else if (!first)
    ebb_ctl_job_set_reason (c, j, REASON_NONE, "%s", "");
}

/* See sched.h. */
void
ebb_ctl_explain_job (ebb_ctl *c, ebb_ctl_job *j)
{
  room cache = { 0 };
  explain_job (c, j, &cache);
}

/* See sched.h. */
void
ebb_ctl_explain_all (ebb_ctl *c)
{
  room cache = { 0 };
  for (size_t i = 0; i < c->n_jobs; i++)
    if (c->jobs[i]->state == JOB_QUEUED || c->jobs[i]->state == JOB_RUNNING)
      explain_job (c, c->jobs[i], &cache);
}

/* See sched.h. */
void
ebb_ctl_launch_failed (ebb_ctl *c, ebb_ctl_task *t, const char *detail)
{
  ebb_ctl_task_set_reason (c, t, REASON_LAUNCH_FAILED, "%s", detail);
  ebb_ctl_job_set_reason (c, t->job, REASON_LAUNCH_FAILED, "task %u: %s", t->idx, detail);
}
