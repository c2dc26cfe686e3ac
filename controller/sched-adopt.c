/* Adopted tasks in the scheduler: a task that takes an existing container or cgroup on its
 * node (controller/api-adopt.c validated it). It is placed on that node by the request, not
 * by the policy: the decision "adopt" is committed with the task (state starting,
 * generation 1) before POST /v1/tasks/adopt goes out (asynchronous, with a request id,
 * retried like a launch). When the agent answers, the task runs and joins the policy as
 * running there (ebb_pol_job_adopted): it holds its allocation on the node and the policy
 * may suspend and resume it like a task it launched. In slot mode the task holds one of the
 * node's slots instead, as tasks still running after a restart do. Its state and allocation
 * change through the store and ebb_ctl_task_set_alloc, so the counters follow them; a new
 * policy (a restart, a rebuild) takes it again the same way from its stored allocation
 * (ebb_ctl_adopt_rejoin). From then on heartbeats follow it like any task: when the
 * container exits, the task ends. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/sched.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"

/* The allocation of an adopted task that neither the request nor the agent gives (a
 * container without limits): one CPU and 64 MiB. */
#define DEFAULT_CPU_MILLIS   1000
#define DEFAULT_MEMORY_BYTES (64ULL << 20)

/* See ctl.h. */
void
ebb_ctl_adopt_prepare (ebb_ctl *c, ebb_ctl_job *j)
{
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      ebb_ctl_task *t = &j->tasks[i];
      if (!ebb_ctl_task_is_adopt (t) || t->state != TASK_PENDING)
        continue;
      int node = -1;
      ebb_ctl_node_find (c, t->adopt->node, &node);
      ebb_ctl_task_set_node (c, t, node);
      t->generation++;
      ebb_ctl_task_set_state (c, t, TASK_STARTING);
      t->attempts = 0;
      ebb_ctl_store_decision (c, "adopt", t, t->node, j->id, "POST /v1/jobs");
    }
}

/* See ctl.h. */
void
ebb_ctl_adopt_send (ebb_ctl *c, ebb_ctl_job *j)
{
  for (uint32_t i = 0; i < j->ntasks; i++)
    if (ebb_ctl_task_is_adopt (&j->tasks[i]) && j->tasks[i].state == TASK_STARTING)
      ebb_ctl_send_adopt (c, &j->tasks[i]);
}

/* Returns what the agent's task answer o says t holds: its "limits" (a container's ebb.cpu
 * and ebb.memory labels, or what the request gave), else the cgroup's limits it found
 * ("applied": cpu_max "QUOTA PERIOD", memory_max bytes; "max" for none), else 0. */
static uint64_t
answer_limit (json_object *o, bool cpu)
{
  json_object *lim, *v;
  if (o && json_object_object_get_ex (o, "limits", &lim)
      && json_object_object_get_ex (lim, cpu ? "cpu_millis" : "memory_bytes", &v)
      && json_object_is_type (v, json_type_int) && json_object_get_int64 (v) > 0)
    return (uint64_t)json_object_get_int64 (v);
  if (!o || !json_object_object_get_ex (o, "applied", &lim))
    return 0;
  if (!cpu)
    return json_object_object_get_ex (lim, "memory_max", &v)
                   && json_object_is_type (v, json_type_int) && json_object_get_int64 (v) > 0
               ? (uint64_t)json_object_get_int64 (v)
               : 0;
  unsigned long long q, p;
  if (json_object_object_get_ex (lim, "cpu_max", &v) && json_object_is_type (v, json_type_string)
      && sscanf (json_object_get_string (v), "%llu %llu", &q, &p) == 2 && p > 0)
    return q * 1000 / p;
  return 0;
}

/* Returns one amount of an adopted task's allocation (CPU or memory): what the agent
 * answered, else the default; at least the minimum a task may hold, at most the node's
 * capacity (0 when unknown: no bound). */
static uint64_t
allocation_amount (uint64_t answered, uint64_t dflt, uint64_t min, uint64_t node_cap)
{
  uint64_t v = answered ? answered : dflt;
  if (v < min)
    v = min;
  if (node_cap && v > node_cap)
    v = node_cap;
  return v;
}

/* The allocation of t: what the request gave, else what the agent reports, else the
 * defaults; clamped to what a task may hold and to its node's capacity. Written into the
 * spec so a restart reloads it. */
static void
set_allocation (ebb_ctl *c, ebb_ctl_task *t, json_object *answer)
{
  const ebb_ctl_node *n = c->nodes[t->node];
  uint64_t cpu = t->cpu_millis, mem = t->memory_bytes;
  if (!cpu)
    {
      cpu = allocation_amount (answer_limit (answer, true), DEFAULT_CPU_MILLIS,
                               EBB_CTL_CPU_MILLIS_MIN, n->cap_cpu_millis);
      ebb_json_add_uint64 (t->spec, "cpu_millis", cpu);
    }
  if (!mem)
    {
      mem = allocation_amount (answer_limit (answer, false), DEFAULT_MEMORY_BYTES,
                               EBB_CTL_MEMORY_BYTES_MIN, n->cap_memory_bytes);
      ebb_json_add_uint64 (t->spec, "memory_bytes", mem);
    }
  /* Counted while starting with what the request gave: the counters move with it. */
  ebb_ctl_task_set_alloc (c, t, cpu, mem);
  /* The spec changed: the next store writes the row whole (an update leaves the spec). */
  t->stored = false;
}

/* Adds a policy job of the one task t (the environment's side of ebb_pol_job_adopted).
 * Returns its id. */
static uint32_t
pjob_of (ebb_ctl *c, ebb_ctl_task *t)
{
  if (c->n_pjobs == c->cap_pjobs)
    {
      c->cap_pjobs = c->cap_pjobs ? c->cap_pjobs * 2 : 256;
      c->pjobs = ebb_xrealloc (c->pjobs, c->cap_pjobs * sizeof *c->pjobs);
      c->pjobs_pol = ebb_xrealloc (c->pjobs_pol, c->cap_pjobs * sizeof *c->pjobs_pol);
      ebb_pol_set_jobs (c->pol, c->pjobs_pol);
    }
  uint32_t id = c->n_pjobs++;
  ebb_ctl_pjob *pj = &c->pjobs[id];
  pj->job = t->job->id;
  pj->n = 1;
  pj->idx = ebb_xmalloc (sizeof *pj->idx);
  pj->idx[0] = t->idx;
  ebb_pol_job *pol = &c->pjobs_pol[id];
  memset (pol, 0, sizeof *pol);
  pol->submit_sec = ebb_ctl_pol_now (c);
  pol->est_task_sec = t->job->est_task_sec > 0 ? t->job->est_task_sec : 1.0;
  pol->cancel_at_sec = INFINITY;
  pol->ntasks = 1;
  pol->demand = (ebb_pol_res){ (int64_t)t->cpu_millis, (int64_t)t->memory_bytes };
  pol->class_hint = t->job->cls == CLS_SHORT ? EBB_POL_CLASS_SHORT : EBB_POL_CLASS_LONG;
  ebb_pol_job_set_priority (c->pol, id, t->job->priority);
  return id;
}

/* Returns true when a slot holds t for the policy (slot mode, or a restart's rebuild). */
static bool
held (const ebb_ctl *c, const ebb_ctl_task *t)
{
  for (uint32_t s = 0; s < c->n_slots; s++)
    if (c->slots[s].task == t)
      return true;
  return false;
}

/* Returns the slot of the policy that may hold t on its node, or EBB_POL_NONE. */
static uint32_t
slot_for (const ebb_ctl *c, const ebb_ctl_task *t)
{
  for (uint32_t s = 0; c->pol && s < c->n_slots; s++)
    if (c->slots[s].node == t->node && !c->slots[s].ghost && (c->res_mode || !c->slots[s].task))
      return s;
  return EBB_POL_NONE;
}

/* Puts the running task t into the policy's view of its node. */
static void
place (ebb_ctl *c, ebb_ctl_task *t)
{
  uint32_t slot = slot_for (c, t);
  if (slot == EBB_POL_NONE)
    {
      /* Not in this policy instance (built without the node): the next one holds it. */
      c->rebuild_wanted = true;
      return;
    }
  if (c->res_mode)
    {
      uint32_t id = pjob_of (c, t);
      const uint32_t nodes[1] = { slot };
      if (ebb_pol_job_adopted (c->pol, ebb_ctl_pol_now (c), id, nodes) == 0)
        {
          t->slot = slot;
          t->pjob = id;
          t->pidx = 0;
          c->n_placed++;
          ebb_ctl_drain (c);
          return;
        }
      /* Refused (not for a slot of this policy in resource mode): its node has less room
       * instead, as for a task the policy does not know after a restart. */
      c->n_pjobs--;
      free (c->pjobs[id].idx);
      ebb_pol_res cap = ebb_pol_node_cap (c->pol, slot);
      cap.cpu_millis -= (int64_t)t->cpu_millis;
      cap.memory_bytes -= (int64_t)t->memory_bytes;
      ebb_pol_node_capacity (c->pol, slot, cap);
      return;
    }
  /* Slot mode: one of the node's slots is busy for the policy until a rebuild. */
  c->slots[slot].task = t;
  c->slots[slot].ghost = true;
}

/* See sched.h. */
void
ebb_ctl_adopt_done (ebb_ctl *c, ebb_ctl_task *t, const ebb_http_result *res)
{
  bool ok = res->status == 201 || res->status == 200;
  if (!ok && t->state != TASK_STARTING)
    return; /* the agent reports it as its task: a late refusal of a retry changes nothing */
  if (!ok)
    {
      ebb_log_warn ("agent %s refused to adopt task %" PRIu64 "-%u: %ld %s",
                    c->nodes[t->node]->name, t->job->id, t->idx, res->status,
                    res->body ? res->body : "");
      /* Nothing was adopted: there is nothing to forget on the node either. */
      ebb_ctl_task_set_node (c, t, -1);
      ebb_ctl_finish_task (c, t, TASK_FAILED, "agent refused the adoption");
      return;
    }
  /* Placed already: answered before, or (slot mode) held by a restart's rebuild while its
   * answer was awaited, which still gives its allocation. */
  bool placed = t->slot != EBB_POL_NONE || held (c, t);
  if (placed && !ebb_ctl_adopt_pending (t))
    return;
  set_allocation (c, t, res->json);
  if (t->state == TASK_STARTING)
    ebb_ctl_task_set_state (c, t, TASK_RUNNING);
  if (t->started_at == 0)
    t->started_at = ebb_ctl_now ();
  ebb_ctl_task_write (c, t);
  ebb_log_info ("task %" PRIu64 "-%u: adopted on %s (%" PRIu64 " millicores, %" PRIu64 " bytes)",
                t->job->id, t->idx, c->nodes[t->node]->name, t->cpu_millis, t->memory_bytes);
  if (!placed)
    place (c, t);
  ebb_ctl_job_update (c, t->job);
}

/* See sched.h. */
bool
ebb_ctl_adopt_pending (const ebb_ctl_task *t)
{
  return ebb_ctl_task_is_adopt (t)
         && (t->state == TASK_STARTING || t->cpu_millis == 0 || t->memory_bytes == 0);
}

/* See sched.h. */
void
ebb_ctl_adopt_rejoin (ebb_ctl *c)
{
  for (size_t i = 0; c->res_mode && c->pol && i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (!ebb_ctl_task_is_adopt (t) || !ebb_ctl_task_active (t) || t->node < 0
            || t->slot != EBB_POL_NONE || slot_for (c, t) == EBB_POL_NONE)
          continue;
        if (ebb_ctl_adopt_pending (t))
          {
            /* Running by a heartbeat before a restart, its answer lost: asked again (the
             * agent answers a repeated request id with the task). A starting one's call is
             * under way or sent again at start (ebb_ctl_sched_resume_starting). */
            if (t->state != TASK_STARTING)
              ebb_ctl_send_adopt (c, t);
            continue;
          }
        t->owed_resume = t->state == TASK_SUSPENDED;
        place (c, t);
        ebb_log_info ("task %" PRIu64 "-%u: adopted on %s, %s, joins the policy", t->job->id,
                      t->idx, c->nodes[t->node]->name, ebb_ctl_task_state_name (t->state));
      }
}

/* See sched.h. */
void
ebb_ctl_adopt_node_lost (ebb_ctl *c, ebb_ctl_task *t)
{
  /* The container stays where it is: the task keeps its node and comes back with it (its
   * heartbeats follow it again); meanwhile the policy forgets it. */
  if (t->slot != EBB_POL_NONE && t->pjob < c->n_pjobs && c->pol && c->res_mode)
    {
      ebb_pol_task_finished (c->pol, ebb_ctl_pol_now (c), t->slot, t->pjob, t->pidx);
      ebb_ctl_pjob_forget (c, t->pjob); /* a later placement is a new policy job */
    }
  ebb_ctl_unplace (c, t);
  ebb_log_warn ("task %" PRIu64 "-%u: adopted on a lost node, kept", t->job->id, t->idx);
}
