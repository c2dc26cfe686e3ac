/* The scheduler's side of the agent calls: the handlers of their answers, routed per kind
 * to the outbox (controller/outbox.c) by ebb_ctl_sched_calls_route. The answers feed the
 * model and the policy (sched-preempt.c, sched-recover.c, sched-adopt.c). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/outbox.h"
#include "controller/sched.h"
#include "lib/json.h"
#include "lib/log.h"

static bool
on_launch (ebb_ctl_call *k, ebb_http_result *res)
{
  ebb_ctl *c = k->c;
  ebb_ctl_task *t = ebb_ctl_call_task (k);
  if (!t || t->state != TASK_STARTING)
    return false;
  const char *code = NULL;
  json_object *v;
  if (res->json && json_object_object_get_ex (res->json, "error", &v))
    code = json_object_get_string (v);
  if (res->status == 201 || res->status == 200
      || (res->status == 409 && code && strcmp (code, "conflict") == 0))
    {
      /* 409 conflict: the task exists there already (our earlier attempt got through). */
      ebb_ctl_task_set_state (c, t, TASK_RUNNING);
      t->missing_reports = 0; /* only reports that arrive after this answer count */
      if (t->started_at == 0)
        t->started_at = ebb_ctl_now ();
      ebb_ctl_task_write (c, t);
      ebb_ctl_job_update (c, t->job);
      return false;
    }
  ebb_log_warn ("agent %s refused task %" PRIu64 "-%u: %ld %s", c->nodes[k->node]->name, t->job->id,
                t->idx, res->status, res->body ? res->body : "");
  /* The agent's detail (why it could not start the task) is what the operator needs. */
  const char *msg = NULL;
  if (res->json
      && (json_object_object_get_ex (res->json, "detail", &v)
          || json_object_object_get_ex (res->json, "message", &v)))
    msg = json_object_get_string (v);
  char detail[512];
  snprintf (detail, sizeof detail, "agent %s: %s", c->nodes[k->node]->name,
            msg         ? msg
            : res->body ? res->body
                        : "no answer");
  /* Set before its end, so that the rows its end writes carry it. */
  ebb_ctl_launch_failed (c, t, detail);
  ebb_ctl_finish_task (c, t, TASK_FAILED, "agent refused the launch");
  return false;
}

/* The answer to a call sent again after a restart. The store held the task's state of
 * before the call, and the policy of this run adopted it so: a task now suspended owes its
 * RESUME (ebb_ctl_resume_owed), one resumed runs. A heartbeat may have told the new state
 * first (and counted the suspension). */
static void
on_replay_done (ebb_ctl_call *k, ebb_http_result *res)
{
  ebb_ctl *c = k->c;
  ebb_ctl_task *t = ebb_ctl_call_task (k);
  if (!t || !ebb_ctl_task_active (t) || res->status >= 300)
    {
      if (t && res->status >= 300)
        ebb_log_warn ("agent %s: %s (sent again): %ld %s", c->nodes[k->node]->name, k->path,
                      res->status, res->body ? res->body : "");
      return;
    }
  if (k->kind == CALL_SUSPEND || k->kind == CALL_HOLD)
    {
      if (t->state != TASK_SUSPENDED)
        t->suspensions++;
      ebb_ctl_task_set_state (c, t, TASK_SUSPENDED);
      t->owed_resume = !t->held; /* a held one joins the policy held (sched-hold.c) */
    }
  else
    {
      ebb_ctl_task_set_state (c, t, TASK_RUNNING);
      t->owed_resume = false;
    }
  ebb_ctl_task_write (c, t);
  ebb_ctl_job_update (c, t->job);
}

/* SUSPEND, RESUME and the policy's KILL, and the operator's hold and release (the ones a
 * restart sent again: on_replay_done). */
static bool
on_policy_call (ebb_ctl_call *k, ebb_http_result *res)
{
  ebb_ctl *c = k->c;
  if (k->replay)
    {
      on_replay_done (k, res);
      return false;
    }
  ebb_ctl_task *t = ebb_ctl_call_task (k);
  if (t && ebb_ctl_task_active (t) && res->status < 300)
    {
      if (k->kind == CALL_SUSPEND || k->kind == CALL_HOLD)
        ebb_ctl_pol_reclaimed (c, t, k->amount, k->told);
      else if (k->kind == CALL_RESUME || k->kind == CALL_RELEASE)
        ebb_ctl_pol_resumed (c, t);
      else
        ebb_ctl_pol_killed (c, t, "policy");
    }
  else if (t && ebb_ctl_task_active (t) && k->kind == CALL_PKILL && res->status == 404)
    ebb_ctl_pol_killed (c, t, "policy");
  else if (t && res->status >= 400)
    ebb_log_warn ("agent %s: %s: %ld %s", c->nodes[k->node]->name, k->path, res->status,
                  res->body ? res->body : "");
  return false;
}

/* DELETE of a live task (a job killed): gone (or unknown there) is killed; 409, the agent
 * is still acting on it: again later. */
static bool
on_kill (ebb_ctl_call *k, ebb_http_result *res)
{
  ebb_ctl_task *t = ebb_ctl_call_task (k);
  if (t && ebb_ctl_task_active (t) && (res->status < 300 || res->status == 404))
    ebb_ctl_finish_task (k->c, t, TASK_KILLED, "killed");
  else if (t && ebb_ctl_task_active (t) && res->status == 409)
    return true;
  return false;
}

/* A heartbeat may have shown an adopted task running first: the answer still places it. */
static bool
on_adopt (ebb_ctl_call *k, ebb_http_result *res)
{
  ebb_ctl_task *t = ebb_ctl_call_task (k);
  if (t && ebb_ctl_task_active (t))
    ebb_ctl_adopt_done (k->c, t, res);
  return false;
}

/* See sched.h. */
void
ebb_ctl_sched_calls_route (ebb_ctl *c)
{
  ebb_ctl_outbox_route (c, CALL_LAUNCH, on_launch, false);
  ebb_ctl_outbox_route (c, CALL_KILL, on_kill, false);
  ebb_ctl_outbox_route (c, CALL_FORGET, NULL, false); /* nothing to learn from the answer */
  ebb_ctl_outbox_route (c, CALL_SUSPEND, on_policy_call, true);
  ebb_ctl_outbox_route (c, CALL_RESUME, on_policy_call, true);
  ebb_ctl_outbox_route (c, CALL_PKILL, on_policy_call, false);
  ebb_ctl_outbox_route (c, CALL_ADOPT, on_adopt, false);
  ebb_ctl_outbox_route (c, CALL_HOLD, on_policy_call, true);
  ebb_ctl_outbox_route (c, CALL_RELEASE, on_policy_call, true);
  /* A new leader learns a node's tasks in its fence's answer, not a heartbeat later. */
  ebb_ctl_outbox_on_fence (c, ebb_ctl_reconcile_tasks);
}
