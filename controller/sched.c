/* The real-time policy environment: the same libebb-policy code ebb-sim drives in virtual
 * time, driven here by job arrivals, task ends, node changes and a tick. Each policy node is
 * a slot (one CPU of one agent). A LAUNCH becomes an asynchronous POST /v1/tasks through curl
 * multi, committed to the store (decision log) before it goes out, with a request id and the
 * task's generation, retried with backoff. Probes and wakes are messages inside this process,
 * so they are delivered right after the event that caused them (the simulator's net delay is
 * real latency here: the agent calls).
 *
 * The slot set is fixed for the life of one policy instance: a node that joins, is drained
 * or lost marks the policy for a rebuild, done when no slot is occupied (its queued tasks
 * are then queued again). Until then a lost or drained node's slots stay busy for the
 * policy ("ghosts") and the tasks bound to them are queued again elsewhere. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

#define RETRY_MIN_USEC 100000ULL
#define MAX_ATTEMPTS   50
#define PEV_FINISH     100 /* environment event: release a slot that got nothing to run */
#define PEV_KILLED     101 /* environment event: hand a task back to the policy */

static const char *const task_names[]
    = { "pending", "starting", "running", "suspended", "exited", "failed", "killed" };
static const char *const job_names[] = { "queued", "running", "done", "failed", "killed" };
static const char *const node_names[] = { "ready", "lost", "draining" };
static const char *const class_names[] = { "short", "long", "auto" };

const char *
ebb_ctl_task_state_name (ebb_ctl_task_state s)
{
  return (unsigned)s < EBB_ARRAY_SIZE (task_names) ? task_names[s] : "?";
}
const char *
ebb_ctl_job_state_name (ebb_ctl_job_state s)
{
  return (unsigned)s < EBB_ARRAY_SIZE (job_names) ? job_names[s] : "?";
}
const char *
ebb_ctl_node_state_name (ebb_ctl_node_state s)
{
  return (unsigned)s < EBB_ARRAY_SIZE (node_names) ? node_names[s] : "?";
}
const char *
ebb_ctl_class_name (ebb_ctl_class c)
{
  return (unsigned)c < EBB_ARRAY_SIZE (class_names) ? class_names[c] : "?";
}

/* Returns the wall clock in unix seconds (the API's times). */
double
ebb_ctl_now (void)
{
  return (double)ebb_realtime_usec () / 1e6;
}

/* The policy's clock: monotonic seconds since the start (a policy never reads a clock). */
static double
pol_now (void)
{
  return (double)ebb_now_usec () / 1e6;
}

static bool
task_active (const ebb_ctl_task *t)
{
  return t->state == TASK_STARTING || t->state == TASK_RUNNING || t->state == TASK_SUSPENDED;
}

static bool
task_terminal (const ebb_ctl_task *t)
{
  return t->state == TASK_EXITED || t->state == TASK_FAILED || t->state == TASK_KILLED;
}

ebb_ctl_job *
ebb_ctl_job_find (ebb_ctl *c, uint64_t id)
{
  /* Jobs are appended in id order: binary search. */
  size_t lo = 0, hi = c->n_jobs;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      if (c->jobs[mid]->id == id)
        return c->jobs[mid];
      if (c->jobs[mid]->id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

ebb_ctl_node *
ebb_ctl_node_find (ebb_ctl *c, const char *name, int *idx)
{
  for (size_t i = 0; i < c->n_nodes; i++)
    if (strcmp (c->nodes[i]->name, name) == 0)
      {
        if (idx)
          *idx = (int)i;
        return c->nodes[i];
      }
  return NULL;
}

void
ebb_ctl_add_job (ebb_ctl *c, ebb_ctl_job *j)
{
  if (c->n_jobs == c->cap_jobs)
    {
      c->cap_jobs = c->cap_jobs ? c->cap_jobs * 2 : 64;
      c->jobs = ebb_xrealloc (c->jobs, c->cap_jobs * sizeof *c->jobs);
    }
  c->jobs[c->n_jobs++] = j;
}

int
ebb_ctl_add_node (ebb_ctl *c, ebb_ctl_node *n)
{
  if (c->n_nodes >= 1000000)
    return -ENOSPC;
  if (c->n_nodes == c->cap_nodes)
    {
      c->cap_nodes = c->cap_nodes ? c->cap_nodes * 2 : 16;
      c->nodes = ebb_xrealloc (c->nodes, c->cap_nodes * sizeof *c->nodes);
    }
  c->nodes[c->n_nodes++] = n;
  return 0;
}

void
ebb_ctl_job_free (ebb_ctl_job *j)
{
  if (!j)
    return;
  for (uint32_t i = 0; i < j->ntasks; i++)
    json_object_put (j->tasks[i].spec);
  free (j->tasks);
  free (j->name);
  free (j->request_id);
  free (j->answer);
  free (j);
}

/* See ctl.h. */
void
ebb_ctl_job_update (ebb_ctl *c, ebb_ctl_job *j)
{
  uint32_t done = 0, failed = 0, killed = 0, started = 0;
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      const ebb_ctl_task *t = &j->tasks[i];
      done += task_terminal (t);
      failed += t->state == TASK_FAILED;
      killed += t->state == TASK_KILLED;
      started += t->state != TASK_PENDING;
    }
  ebb_ctl_job_state s = j->state;
  if (done == j->ntasks)
    s = killed ? JOB_KILLED : failed ? JOB_FAILED : JOB_DONE;
  else if (started)
    s = JOB_RUNNING;
  if (s == j->state)
    return;
  if (s == JOB_RUNNING && j->started_at == 0)
    j->started_at = ebb_ctl_now ();
  if (s >= JOB_DONE)
    j->finished_at = ebb_ctl_now ();
  j->state = s;
  ebb_ctl_store_job (c, j);
}

/* --- Agent calls */

typedef enum
{
  CALL_LAUNCH,
  CALL_KILL,   /* DELETE of a live task */
  CALL_FORGET, /* DELETE of an exited task, or of a stale copy on a node */
  CALL_SUSPEND,
  CALL_RESUME,
  CALL_PKILL, /* DELETE decided by the policy: the task goes back to its queue */
} call_kind;

typedef struct call
{
  ebb_ctl *c;
  call_kind kind;
  uint64_t job;
  uint32_t idx;
  uint64_t generation;
  int node;
  unsigned attempt;
  ebb_pol_res amount; /* SUSPEND: what the policy asked for */
  json_object *body;
  char *path;
  sd_event_source *retry;
} call;

static void call_start (call *k);

static void
call_free (call *k)
{
  sd_event_source_disable_unref (k->retry);
  json_object_put (k->body);
  free (k->path);
  free (k);
}

static ebb_ctl_task *
call_task (call *k)
{
  ebb_ctl_job *j = ebb_ctl_job_find (k->c, k->job);
  if (!j || k->idx >= j->ntasks)
    return NULL;
  ebb_ctl_task *t = &j->tasks[k->idx];
  return t->generation == k->generation ? t : NULL;
}

static char *
task_agent_id (uint64_t job, uint32_t idx, uint64_t gen)
{
  return ebb_xasprintf ("j%" PRIu64 "-t%u-g%" PRIu64, job, idx, gen);
}

static void finish_task (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state s, const char *why);
static void requeue (ebb_ctl *c, ebb_ctl_task **ts, size_t n, const char *why);
static void pol_killed (ebb_ctl *c, ebb_ctl_task *t, const char *why);
static void pol_reclaimed (ebb_ctl *c, ebb_ctl_task *t, ebb_pol_res freed);
static void pol_resumed (ebb_ctl *c, ebb_ctl_task *t);

static int
on_retry (sd_event_source *s, uint64_t usec, void *ud)
{
  call *k = ud;
  (void)s, (void)usec;
  k->retry = sd_event_source_disable_unref (k->retry);
  call_start (k);
  return 0;
}

/* Retries with exponential backoff while the node is ready and the task still wants it. */
static void
call_retry (call *k, const char *why)
{
  ebb_ctl *c = k->c;
  c->m.agent_errors++;
  ebb_ctl_node *n = c->nodes[k->node];
  if (k->attempt >= MAX_ATTEMPTS || n->state == NODE_LOST || c->stopping)
    {
      ebb_log_warn ("agent %s: %s %s: giving up after %u attempts: %s", n->name,
                    k->body ? "POST" : "DELETE", k->path, k->attempt, why);
      call_free (k);
      return;
    }
  uint64_t d = RETRY_MIN_USEC << (k->attempt < 16 ? k->attempt : 16);
  if (d > c->cfg->retry_max_usec)
    d = c->cfg->retry_max_usec;
  if (k->attempt == 1)
    ebb_log_info ("agent %s: %s: %s; retrying", n->name, k->path, why);
  c->m.agent_retries++;
  if (sd_event_add_time_relative (c->event, &k->retry, CLOCK_MONOTONIC, d, 1000, on_retry, k) < 0)
    call_free (k);
}

static void
on_launch_done (call *k, ebb_http_result *res)
{
  ebb_ctl *c = k->c;
  ebb_ctl_task *t = call_task (k);
  if (!t || t->state != TASK_STARTING)
    return;
  const char *code = NULL;
  json_object *v;
  if (res->json && json_object_object_get_ex (res->json, "error", &v))
    code = json_object_get_string (v);
  if (res->status == 201 || res->status == 200
      || (res->status == 409 && code && strcmp (code, "conflict") == 0))
    {
      /* 409 conflict: the task exists there already (our earlier attempt got through). */
      t->state = TASK_RUNNING;
      if (t->started_at == 0)
        t->started_at = ebb_ctl_now ();
      ebb_ctl_store_task (c, t);
      ebb_ctl_job_update (c, t->job);
      return;
    }
  ebb_log_warn ("agent %s refused task %" PRIu64 "-%u: %ld %s", c->nodes[k->node]->name, t->job->id,
                t->idx, res->status, res->body ? res->body : "");
  finish_task (c, t, TASK_FAILED, "agent refused the launch");
}

static void
on_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  call *k = ud;
  ebb_ctl *c = k->c;
  if (err || res->status >= 500 || res->status == 429)
    {
      if (err && err->code == ECANCELED)
        {
          call_free (k);
          return;
        }
      cleanup_free char *why
          = err ? ebb_xstrdup (err->msg) : ebb_xasprintf ("HTTP %ld", res->status);
      call_retry (k, why);
      return;
    }
  if (k->kind == CALL_LAUNCH)
    on_launch_done (k, res);
  else if (k->kind == CALL_SUSPEND || k->kind == CALL_RESUME || k->kind == CALL_PKILL)
    {
      ebb_ctl_task *t = call_task (k);
      if (t && res->status == 409 && k->kind != CALL_PKILL)
        {
          json_object *v;
          const char *code = res->json && json_object_object_get_ex (res->json, "error", &v)
                                 ? json_object_get_string (v)
                                 : "";
          if (strcmp (code, "busy") == 0 || strcmp (code, "in_progress") == 0)
            {
              call_retry (k, "agent busy");
              return;
            }
        }
      if (t && task_active (t) && res->status < 300)
        {
          if (k->kind == CALL_SUSPEND)
            pol_reclaimed (c, t, k->amount);
          else if (k->kind == CALL_RESUME)
            pol_resumed (c, t);
          else
            pol_killed (c, t, "policy");
        }
      else if (t && task_active (t) && k->kind == CALL_PKILL && res->status == 404)
        pol_killed (c, t, "policy");
      else if (t && res->status >= 400)
        ebb_log_warn ("agent %s: %s: %ld %s", c->nodes[k->node]->name, k->path, res->status,
                      res->body ? res->body : "");
    }
  else if (k->kind == CALL_KILL)
    {
      ebb_ctl_task *t = call_task (k);
      if (t && task_active (t) && (res->status < 300 || res->status == 404))
        finish_task (c, t, TASK_KILLED, "killed");
      else if (t && task_active (t) && res->status == 409)
        {
          call_retry (k, "agent busy");
          return;
        }
    }
  call_free (k);
}

static void
call_start (call *k)
{
  ebb_ctl *c = k->c;
  ebb_ctl_node *n = c->nodes[k->node];
  k->attempt++;
  c->m.agent_calls++;
  ebb_http_call_opts opts = { 0 };
  opts.bearer_token = c->token;
  opts.ca_file = c->cfg->agent_ca;
  opts.timeout_ms = 10000;
  cleanup_error ebb_error *err = NULL;
  if (!n->url)
    {
      call_retry (k, "the node has not sent its URL");
      return;
    }
  if (ebb_http_client_start (c->client, k->body ? "POST" : "DELETE", n->url, k->path, k->body,
                             &opts, on_done, k, &err)
      < 0)
    call_retry (k, ebb_error_msg (&err));
}

static call *
call_new (ebb_ctl *c, call_kind kind, const ebb_ctl_task *t, uint64_t generation, int node)
{
  call *k = ebb_xcalloc (1, sizeof *k);
  k->c = c;
  k->kind = kind;
  k->job = t->job->id;
  k->idx = t->idx;
  k->generation = generation;
  k->node = node;
  return k;
}

/* DELETE /v1/tasks/ID on node: kill (a live task) or forget (an exited one, a stale copy). */
static void
send_delete (ebb_ctl *c, const ebb_ctl_task *t, uint64_t generation, int node, call_kind kind)
{
  call *k = call_new (c, kind, t, generation, node);
  cleanup_free char *id = task_agent_id (t->job->id, t->idx, generation);
  /* The request id names the generation and the attempt's purpose: a retry repeats it. */
  k->path = ebb_xasprintf ("/v1/tasks/%s?request_id=%s-%s%u", id, id,
                           kind == CALL_FORGET ? "F" : "K", t->suspensions);
  call_start (k);
}

/* POST /v1/tasks/ID/suspend (graceful: one step of amount) or /resume. */
static void
send_op (ebb_ctl *c, ebb_ctl_task *t, call_kind kind, bool graceful, ebb_pol_res amount)
{
  call *k = call_new (c, kind, t, t->generation, t->node);
  cleanup_free char *id = task_agent_id (t->job->id, t->idx, t->generation);
  json_object *b = json_object_new_object ();
  if (kind == CALL_SUSPEND)
    {
      ebb_json_add_string (b, "mode", graceful ? "graceful" : "immediate");
      if (graceful && amount.cpu_millis > 0)
        ebb_json_add_uint64 (b, "cpu_millis", (uint64_t)amount.cpu_millis);
      if (graceful && amount.memory_bytes > 0)
        ebb_json_add_uint64 (b, "memory_bytes", (uint64_t)amount.memory_bytes);
    }
  /* One request id per operation of this generation: the n-th suspend, the n-th resume. */
  t->attempts++;
  cleanup_free char *rid
      = ebb_xasprintf ("%s-%s%u", id, kind == CALL_SUSPEND ? "S" : "R", t->attempts);
  ebb_json_add_string (b, "request_id", rid);
  ebb_json_add_uint64 (b, "generation", t->generation);
  k->amount = amount;
  k->body = b;
  k->path = ebb_xasprintf ("/v1/tasks/%s/%s", id, kind == CALL_SUSPEND ? "suspend" : "resume");
  call_start (k);
}

static void
send_suspend (ebb_ctl *c, ebb_ctl_task *t, bool graceful, ebb_pol_res amount)
{
  send_op (c, t, CALL_SUSPEND, graceful, amount);
}

static void
send_resume (ebb_ctl *c, ebb_ctl_task *t)
{
  send_op (c, t, CALL_RESUME, false, (ebb_pol_res){ 0, 0 });
}

static void
send_launch (ebb_ctl *c, ebb_ctl_task *t, bool is_long, uint64_t cpu_millis, uint64_t memory_bytes)
{
  call *k = call_new (c, CALL_LAUNCH, t, t->generation, t->node);
  cleanup_free char *id = task_agent_id (t->job->id, t->idx, t->generation);
  json_object *b = json_object_new_object ();
  ebb_json_add_string (b, "id", id);
  json_object_object_foreach (t->spec, key, val)
  {
    json_object_object_add (b, key, json_object_get (val));
  }
  ebb_json_add_uint64 (b, "cpu_millis", cpu_millis);
  ebb_json_add_uint64 (b, "memory_bytes", memory_bytes);
  cleanup_free char *job = ebb_xasprintf ("j%" PRIu64, t->job->id);
  ebb_json_add_string (b, "job", job);
  ebb_json_add_string (b, "class", is_long ? "long" : "short");
  cleanup_free char *rid = ebb_xasprintf ("%s-L", id);
  ebb_json_add_string (b, "request_id", rid);
  ebb_json_add_uint64 (b, "generation", t->generation);
  k->body = b;
  k->path = ebb_xstrdup ("/v1/tasks");
  call_start (k);
}

/* --- The policy */

static void
pev_push (ebb_ctl *c, uint32_t kind, uint32_t node, uint32_t job, uint32_t arg)
{
  if (c->n_pev == c->cap_pev)
    {
      c->cap_pev = c->cap_pev ? c->cap_pev * 2 : 64;
      c->pev = ebb_xrealloc (c->pev, c->cap_pev * sizeof *c->pev);
    }
  c->pev[c->n_pev++] = (ebb_ctl_pevent){ kind, node, job, arg };
}

static ebb_ctl_task *
pjob_task (ebb_ctl *c, uint32_t pj, uint32_t k)
{
  if (pj >= c->n_pjobs || k >= c->pjobs[pj].n)
    return NULL;
  return c->pjobs[pj].tasks[k];
}

/* The task left the policy's view (ended, killed, or queued again elsewhere). */
static void
unplace (ebb_ctl *c, ebb_ctl_task *t)
{
  if (t->slot == EBB_POL_NONE)
    return;
  if (!c->res_mode && t->slot < c->n_slots && c->slots[t->slot].task == t)
    c->slots[t->slot].task = NULL;
  t->slot = EBB_POL_NONE;
  if (c->n_placed)
    c->n_placed--;
}

/* LAUNCH of task k of policy job pj on policy node `slot` with `amount` (resource mode). */
static void
act_launch (ebb_ctl *c, uint32_t slot, uint32_t pj, uint32_t k, ebb_pol_res amount)
{
  ebb_ctl_slot *s = &c->slots[slot];
  ebb_ctl_task *t = pjob_task (c, pj, k);
  if (!t || t->state != TASK_PENDING || t->kill_wanted)
    {
      /* Killed meanwhile: the slot is free again, as if the task had ended at once. */
      if (!s->ghost)
        pev_push (c, PEV_FINISH, slot, pj, k);
      return;
    }
  if (s->ghost || c->nodes[s->node]->state != NODE_READY)
    {
      if (c->res_mode)
        {
          pev_push (c, PEV_KILLED, slot, pj, k); /* back to the policy's queue */
          return;
        }
      s->ghost = true; /* stays busy for this policy instance */
      ebb_ctl_task *one[] = { t };
      requeue (c, one, 1, "slot's node not ready");
      return;
    }
  uint64_t t0 = ebb_now_usec ();
  t->generation++;
  t->state = TASK_STARTING;
  t->node = s->node;
  t->slot = slot;
  t->pjob = pj;
  t->pidx = k;
  t->attempts = 0;
  c->n_placed++;
  if (!c->res_mode)
    s->task = t;
  ebb_ctl_store_begin (c);
  ebb_ctl_store_task (c, t);
  ebb_ctl_store_decision (c, "launch", t, t->node, t->job->id, c->cfg->policy);
  ebb_ctl_store_commit (c);
  ebb_ctl_job_update (c, t->job);
  c->m.launches++;
  if (t->job->cls == CLS_SHORT || !c->pjobs_pol[pj].is_long)
    c->last_short_job = t->job->id;
  uint64_t cpu = c->res_mode && amount.cpu_millis > 0 ? (uint64_t)amount.cpu_millis : t->cpu_millis;
  uint64_t mem
      = c->res_mode && amount.memory_bytes > 0 ? (uint64_t)amount.memory_bytes : t->memory_bytes;
  send_launch (c, t, c->pjobs_pol[pj].is_long, cpu, mem);
  c->m.decision_usec_sum += ebb_now_usec () - t0;
  c->m.decisions_timed++;
}

/* SUSPEND, RESUME and KILL (resource mode): committed, then sent. */
static void
act_preempt (ebb_ctl *c, const ebb_pol_action *a)
{
  ebb_ctl_task *t = pjob_task (c, a->job, a->arg);
  if (!t || !task_active (t) || t->slot != a->node)
    return;
  const char *kind = a->kind == EBB_POL_ACT_SUSPEND  ? "suspend"
                     : a->kind == EBB_POL_ACT_RESUME ? "resume"
                                                     : "kill";
  char reason[96];
  snprintf (reason, sizeof reason, "%s: %s", c->cfg->policy,
            a->kind != EBB_POL_ACT_SUSPEND        ? "room again"
            : a->mode == EBB_POL_SUSPEND_GRACEFUL ? "graceful step for a short job"
                                                  : "immediate for a short job");
  ebb_ctl_store_begin (c);
  ebb_ctl_store_decision (c, kind, t, t->node,
                          a->kind == EBB_POL_ACT_RESUME ? t->job->id : c->last_short_job, reason);
  ebb_ctl_store_commit (c);
  if (a->kind == EBB_POL_ACT_SUSPEND)
    {
      c->m.suspends++;
      send_suspend (c, t, a->mode == EBB_POL_SUSPEND_GRACEFUL, a->amount);
    }
  else if (a->kind == EBB_POL_ACT_RESUME)
    {
      c->m.resumes++;
      send_resume (c, t);
    }
  else
    {
      c->m.kills++;
      t->pkill = true;
      send_delete (c, t, t->generation, t->node, CALL_PKILL);
    }
}

static void
act_fail (ebb_ctl *c, uint32_t pj)
{
  if (pj >= c->n_pjobs)
    return;
  for (uint32_t k = 0; k < c->pjobs[pj].n; k++)
    {
      ebb_ctl_task *t = c->pjobs[pj].tasks[k];
      if (t->state == TASK_PENDING)
        {
          t->state = TASK_FAILED;
          t->finished_at = ebb_ctl_now ();
          ebb_ctl_store_task (c, t);
        }
    }
  ebb_ctl_job_update (c, c->pjobs[pj].job);
}

static void
run_action (ebb_ctl *c, const ebb_pol_action *a)
{
  switch (a->kind)
    {
    case EBB_POL_ACT_LAUNCH:
      act_launch (c, a->node, a->job, a->arg, a->amount);
      break;
    case EBB_POL_ACT_PROBE:
    case EBB_POL_ACT_WAKE:
      pev_push (c, a->kind, a->node, a->job, a->arg);
      break;
    case EBB_POL_ACT_SUSPEND:
    case EBB_POL_ACT_RESUME:
    case EBB_POL_ACT_KILL:
      act_preempt (c, a);
      break;
    case EBB_POL_ACT_FAIL:
      act_fail (c, a->job);
      break;
    default:
      break; /* informational */
    }
}

static void
run_event (ebb_ctl *c, const ebb_ctl_pevent *e)
{
  double now = pol_now ();
  if (e->kind == EBB_POL_ACT_PROBE)
    ebb_pol_probe_arrived (c->pol, now, e->node, e->arg);
  else if (e->kind == EBB_POL_ACT_WAKE)
    ebb_pol_node_wake (c->pol, now, e->node);
  else if (e->kind == PEV_FINISH)
    ebb_pol_task_finished (c->pol, now, e->node, e->job, e->arg);
  else if (e->kind == PEV_KILLED)
    ebb_pol_task_killed (c->pol, now, e->node, e->job, e->arg);
}

/* Runs the policy's actions and the events they cause until nothing is left. Re-entrant
 * calls (an action that queues tasks again) only append; the outermost call drains. */
static void
drain (ebb_ctl *c)
{
  if (!c->pol || c->in_drain)
    return;
  c->in_drain = true;
  ebb_pol_action buf[64];
  for (;;)
    {
      size_t n;
      const ebb_pol_action *a = ebb_pol_actions (c->pol, &n);
      if (n > 0)
        {
          size_t m = n < EBB_ARRAY_SIZE (buf) ? n : EBB_ARRAY_SIZE (buf);
          memcpy (buf, a, m * sizeof *buf);
          /* Keep what did not fit at the front of the array for the next round. */
          memmove (c->pol->acts, c->pol->acts + m, (n - m) * sizeof *buf);
          c->pol->nacts = n - m;
          for (size_t i = 0; i < m; i++)
            run_action (c, &buf[i]);
          continue;
        }
      if (c->n_pev == 0)
        break;
      ebb_ctl_pevent e = c->pev[0];
      memmove (c->pev, c->pev + 1, (c->n_pev - 1) * sizeof *c->pev);
      c->n_pev--;
      run_event (c, &e);
    }
  c->in_drain = false;
}

/* Queues tasks (pending, of one job) into the policy as one policy job. */
static void
queue_tasks (ebb_ctl *c, ebb_ctl_job *j, ebb_ctl_task **ts, size_t n)
{
  if (!c->pol || n == 0)
    return;
  if (c->n_pjobs == c->cap_pjobs)
    {
      c->cap_pjobs = c->cap_pjobs ? c->cap_pjobs * 2 : 256;
      c->pjobs = ebb_xrealloc (c->pjobs, c->cap_pjobs * sizeof *c->pjobs);
      c->pjobs_pol = ebb_xrealloc (c->pjobs_pol, c->cap_pjobs * sizeof *c->pjobs_pol);
      ebb_pol_set_jobs (c->pol, c->pjobs_pol);
    }
  uint32_t id = c->n_pjobs++;
  ebb_ctl_pjob *pj = &c->pjobs[id];
  pj->job = j;
  pj->n = (uint32_t)n;
  pj->tasks = ebb_xmalloc (n * sizeof *pj->tasks);
  ebb_pol_res demand = { 0, 0 };
  for (size_t i = 0; i < n; i++)
    {
      pj->tasks[i] = ts[i];
      ts[i]->pjob = id;
      ts[i]->pidx = (uint32_t)i;
      /* One demand per policy job: the largest of its tasks. */
      if ((int64_t)ts[i]->cpu_millis > demand.cpu_millis)
        demand.cpu_millis = (int64_t)ts[i]->cpu_millis;
      if ((int64_t)ts[i]->memory_bytes > demand.memory_bytes)
        demand.memory_bytes = (int64_t)ts[i]->memory_bytes;
    }
  ebb_pol_job *pol = &c->pjobs_pol[id];
  memset (pol, 0, sizeof *pol);
  pol->submit_sec = pol_now ();
  /* A job submitted without an estimate still needs one: Hawk's central placement sums the
   * estimates of the long work queued on a node, and with all of them 0 every node ties and
   * the first takes every task. One second each makes it spread by task count. */
  pol->est_task_sec = j->est_task_sec > 0 ? j->est_task_sec : 1.0;
  pol->cancel_at_sec = INFINITY;
  pol->ntasks = (uint32_t)n;
  pol->demand = demand;
  pol->class_hint = j->cls == CLS_SHORT  ? EBB_POL_CLASS_SHORT
                    : j->cls == CLS_LONG ? EBB_POL_CLASS_LONG
                                         : EBB_POL_CLASS_BY_CUTOFF;
  if (j->cls == CLS_SHORT)
    c->last_short_job = j->id;
  ebb_pol_job_arrived (c->pol, pol_now (), id);
  drain (c);
}

static void
queue_pending_of (ebb_ctl *c, ebb_ctl_job *j)
{
  cleanup_free ebb_ctl_task **ts = ebb_xmalloc (sizeof *ts * (j->ntasks + 1));
  size_t n = 0;
  for (uint32_t i = 0; i < j->ntasks; i++)
    if (j->tasks[i].state == TASK_PENDING && !j->tasks[i].kill_wanted)
      ts[n++] = &j->tasks[i];
  queue_tasks (c, j, ts, n);
}

static void
pjobs_clear (ebb_ctl *c)
{
  for (uint32_t i = 0; i < c->n_pjobs; i++)
    free (c->pjobs[i].tasks);
  c->n_pjobs = 0;
}

static bool
usable (const ebb_ctl_node *n)
{
  return n->state == NODE_READY && n->url;
}

/* Tasks still running from before (a restart, a rebuild at a new node) hold capacity the
 * new policy does not know about. Slot mode: a slot of their node, as a ghost. Resource
 * mode: their node's capacity is lowered by what they hold. */
static void
hold_unplaced (ebb_ctl *c)
{
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (!task_active (t) || t->node < 0)
          continue;
        for (uint32_t s = 0; s < c->n_slots; s++)
          {
            if (c->slots[s].node != t->node)
              continue;
            if (c->res_mode)
              {
                ebb_pol_res cap = c->pol->node_cap[s];
                cap.cpu_millis -= (int64_t)t->cpu_millis;
                cap.memory_bytes -= (int64_t)t->memory_bytes;
                ebb_pol_node_capacity (c->pol, s, cap);
                break;
              }
            if (!c->slots[s].task)
              {
                c->slots[s].task = t;
                c->slots[s].ghost = true;
                break;
              }
          }
      }
}

/* Builds a new policy over the ready nodes; only while no task is placed by the old one. */
static void
rebuild (ebb_ctl *c)
{
  if (c->n_placed > 0)
    return;
  uint32_t n = 0;
  for (size_t i = 0; i < c->n_nodes; i++)
    if (usable (c->nodes[i]))
      n += c->res_mode ? 1 : c->nodes[i]->nslots;
  c->rebuild_wanted = false;
  ebb_pol_free (c->pol);
  c->pol = NULL;
  free (c->slots);
  c->slots = NULL;
  c->n_slots = 0;
  pjobs_clear (c);
  c->n_pev = 0;
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      c->jobs[i]->tasks[k].slot = EBB_POL_NONE;
  if (n == 0)
    return;
  c->slots = ebb_xcalloc (n, sizeof *c->slots);
  ebb_pol_params p = c->params;
  p.nnodes = n;
  for (size_t i = 0; i < c->n_nodes; i++)
    if (usable (c->nodes[i]))
      for (uint32_t k = 0; k < (c->res_mode ? 1 : c->nodes[i]->nslots); k++)
        c->slots[c->n_slots++].node = (int)i;
  if (c->res_mode)
    p.node_cap = (ebb_pol_res){ (int64_t)c->nodes[c->slots[0].node]->cap_cpu_millis,
                                (int64_t)c->nodes[c->slots[0].node]->cap_memory_bytes };
  if (!c->pjobs_pol)
    {
      c->cap_pjobs = 256;
      c->pjobs = ebb_xcalloc (c->cap_pjobs, sizeof *c->pjobs);
      c->pjobs_pol = ebb_xcalloc (c->cap_pjobs, sizeof *c->pjobs_pol);
    }
  cleanup_error ebb_error *err = NULL;
  c->pol = ebb_pol_new (c->cfg->policy, &p, c->pjobs_pol, &err);
  if (!c->pol)
    {
      ebb_log_err ("policy %s over %u nodes: %s", c->cfg->policy, n, ebb_error_msg (&err));
      return;
    }
  for (uint32_t s = 0; c->res_mode && s < c->n_slots; s++)
    ebb_pol_node_capacity (c->pol, s,
                           (ebb_pol_res){ (int64_t)c->nodes[c->slots[s].node]->cap_cpu_millis,
                                          (int64_t)c->nodes[c->slots[s].node]->cap_memory_bytes });
  hold_unplaced (c);
  c->last_pol_tick = pol_now ();
  ebb_log_notice ("policy %s over %u %s of %zu nodes", c->cfg->policy, n,
                  c->res_mode ? "nodes (resources)" : "slots", c->n_nodes);
  for (size_t i = 0; i < c->n_jobs; i++)
    queue_pending_of (c, c->jobs[i]);
}

/* See ctl.h. */
void
ebb_ctl_sched_job (ebb_ctl *c, ebb_ctl_job *j)
{
  if (!c->pol)
    rebuild (c);
  else
    queue_pending_of (c, j);
}

/* A task reached a final state: free its slot for the policy. */
static void
finish_task (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state s, const char *why)
{
  int node = t->node;
  t->state = s;
  t->finished_at = ebb_ctl_now ();
  uint32_t slot = t->slot;
  bool ghost = slot != EBB_POL_NONE && slot < c->n_slots && c->slots[slot].ghost;
  bool placed = slot != EBB_POL_NONE && t->pjob < c->n_pjobs;
  if (slot == EBB_POL_NONE && node >= 0)
    c->rebuild_wanted = true; /* it held capacity the policy was not told about */
  unplace (c, t);
  ebb_ctl_store_task (c, t);
  ebb_log_info ("task %" PRIu64 "-%u: %s (%s)", t->job->id, t->idx, ebb_ctl_task_state_name (s),
                why);
  if (s == TASK_EXITED || s == TASK_FAILED)
    if (node >= 0 && c->nodes[node]->state != NODE_LOST)
      send_delete (c, t, t->generation, node, CALL_FORGET);
  if (placed && c->pol && (c->res_mode || !ghost))
    {
      if (s == TASK_KILLED && c->res_mode)
        ebb_pol_task_killed (c->pol, pol_now (), slot, t->pjob, t->pidx);
      else
        ebb_pol_task_finished (c->pol, pol_now (), slot, t->pjob, t->pidx);
      drain (c);
    }
  ebb_ctl_job_update (c, t->job);
  if (c->rebuild_wanted)
    rebuild (c);
}

/* Slot mode: tasks that lost their node go back to the queue (counted as killed) as a new
 * policy job. */
static void
requeue (ebb_ctl *c, ebb_ctl_task **ts, size_t n, const char *why)
{
  for (size_t i = 0; i < n; i++)
    {
      ebb_ctl_task *t = ts[i];
      if (task_active (t))
        {
          ebb_ctl_store_decision (c, "kill", t, t->node, t->job->id, why);
          c->m.tasks_lost++;
        }
      if (t->slot != EBB_POL_NONE && t->slot < c->n_slots)
        c->slots[t->slot].ghost = true;
      unplace (c, t);
      t->state = TASK_PENDING;
      t->node = -1;
      ebb_ctl_store_task (c, t);
    }
  if (n && !ts[0]->kill_wanted)
    queue_tasks (c, ts[0]->job, ts, n);
}

/* Resource mode: a task that is gone (node lost, killed by the policy) goes back to the
 * policy, which queues it again (counted as a kill). */
static void
pol_killed (ebb_ctl *c, ebb_ctl_task *t, const char *why)
{
  uint32_t slot = t->slot, pj = t->pjob, k = t->pidx;
  bool placed = slot != EBB_POL_NONE && pj < c->n_pjobs;
  t->pkill = false;
  if (task_active (t) && strcmp (why, "policy") != 0)
    {
      ebb_ctl_store_decision (c, "kill", t, t->node, t->job->id, why);
      c->m.tasks_lost++;
    }
  unplace (c, t);
  t->state = TASK_PENDING;
  t->node = -1;
  ebb_ctl_store_task (c, t);
  if (placed && c->pol)
    {
      ebb_pol_task_killed (c->pol, pol_now (), slot, pj, k);
      drain (c);
    }
  else if (!placed)
    {
      ebb_ctl_task *one[] = { t };
      queue_tasks (c, t->job, one, 1);
    }
  ebb_ctl_job_update (c, t->job);
}

/* A SUSPEND went through: the policy learns what is free (the limits the agent applied;
 * memory above the limit is the kernel's to reclaim, the policy trusts the new limit). */
static void
pol_reclaimed (ebb_ctl *c, ebb_ctl_task *t, ebb_pol_res freed)
{
  if (t->state != TASK_SUSPENDED)
    t->suspensions++;
  t->state = TASK_SUSPENDED;
  ebb_ctl_store_task (c, t);
  if (c->pol && c->res_mode && t->slot != EBB_POL_NONE && t->pjob < c->n_pjobs)
    {
      ebb_pol_task *pt = &c->pjobs_pol[t->pjob].tasks[t->pidx];
      if (freed.cpu_millis == 0 && freed.memory_bytes == 0)
        freed = pt->pending; /* immediate: everything above the footprint */
      ebb_pol_task_reclaimed (c->pol, pol_now (), t->slot, t->pjob, t->pidx, freed, 1);
      drain (c);
    }
  ebb_ctl_job_update (c, t->job);
}

static void
pol_resumed (ebb_ctl *c, ebb_ctl_task *t)
{
  t->state = TASK_RUNNING;
  ebb_ctl_store_task (c, t);
  if (c->pol && c->res_mode && t->slot != EBB_POL_NONE && t->pjob < c->n_pjobs)
    {
      ebb_pol_task_resumed (c->pol, pol_now (), t->slot, t->pjob, t->pidx);
      drain (c);
    }
  ebb_ctl_job_update (c, t->job);
}

/* See ctl.h. */
void
ebb_ctl_kill_job (ebb_ctl *c, ebb_ctl_job *j)
{
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      ebb_ctl_task *t = &j->tasks[i];
      if (task_terminal (t))
        continue;
      t->kill_wanted = true;
      if (t->state == TASK_PENDING)
        {
          t->state = TASK_KILLED;
          t->finished_at = ebb_ctl_now ();
          ebb_ctl_store_task (c, t);
          continue;
        }
      ebb_ctl_store_task (c, t);
      ebb_ctl_store_decision (c, "kill", t, t->node, j->id, "DELETE /v1/jobs");
      c->m.kills++;
      send_delete (c, t, t->generation, t->node, CALL_KILL);
    }
  ebb_ctl_job_update (c, j);
}

/* --- Nodes */

static void
set_res_capacity (ebb_ctl *c, int idx, bool zero)
{
  for (uint32_t s = 0; c->res_mode && c->pol && s < c->n_slots; s++)
    if (c->slots[s].node == idx)
      ebb_pol_node_capacity (c->pol, s,
                             zero ? (ebb_pol_res){ 0, 0 }
                                  : (ebb_pol_res){ (int64_t)c->nodes[idx]->cap_cpu_millis,
                                                   (int64_t)c->nodes[idx]->cap_memory_bytes });
}

static void
lose_node (ebb_ctl *c, int idx, const char *why)
{
  ebb_ctl_node *n = c->nodes[idx];
  ebb_log_warn ("node %s lost: %s", n->name, why);
  n->state = NODE_LOST;
  n->epoch++;
  ebb_ctl_store_node (c, n);
  for (uint32_t s = 0; s < c->n_slots; s++)
    if (c->slots[s].node == idx)
      c->slots[s].ghost = true;
  set_res_capacity (c, idx, true);
  c->rebuild_wanted = true;
  for (size_t i = 0; i < c->n_jobs; i++)
    {
      ebb_ctl_job *j = c->jobs[i];
      cleanup_free ebb_ctl_task **ts = NULL;
      size_t k = 0;
      for (uint32_t t = 0; t < j->ntasks; t++)
        if (j->tasks[t].node == idx && task_active (&j->tasks[t]))
          {
            if (!ts)
              ts = ebb_xmalloc (sizeof *ts * j->ntasks);
            if (j->tasks[t].kill_wanted)
              finish_task (c, &j->tasks[t], TASK_KILLED, "node lost");
            else if (c->res_mode)
              pol_killed (c, &j->tasks[t], "node lost");
            else
              ts[k++] = &j->tasks[t];
          }
      requeue (c, ts, k, "node lost");
      ebb_ctl_job_update (c, j);
    }
  if (c->rebuild_wanted)
    rebuild (c);
}

/* See ctl.h. */
void
ebb_ctl_node_drain (ebb_ctl *c, int idx, bool drain_it)
{
  ebb_ctl_node *n = c->nodes[idx];
  if (n->state == NODE_LOST)
    return;
  n->state = drain_it ? NODE_DRAINING : NODE_READY;
  ebb_ctl_store_node (c, n);
  if (drain_it && !c->res_mode)
    for (uint32_t s = 0; s < c->n_slots; s++)
      if (c->slots[s].node == idx)
        c->slots[s].ghost = true;
  set_res_capacity (c, idx, drain_it);
  c->rebuild_wanted = true;
  rebuild (c);
}

static ebb_ctl_task_state
agent_state (const char *s, json_object *o, int64_t *exit_status, bool *has_exit)
{
  json_object *v;
  *has_exit = false;
  if (strcmp (s, "exited") == 0)
    {
      if (json_object_object_get_ex (o, "exit_status", &v)
          && json_object_is_type (v, json_type_int))
        {
          *exit_status = json_object_get_int64 (v);
          *has_exit = true;
        }
      /* No status: the agent restarted while the task ran and could no longer wait for it
       * (it is not its child any more). The task ended on its own; count it as exited,
       * with exit_status null in the API. */
      return !*has_exit || *exit_status == 0 ? TASK_EXITED : TASK_FAILED;
    }
  if (strcmp (s, "suspended") == 0 || strcmp (s, "suspending") == 0)
    return TASK_SUSPENDED;
  return TASK_RUNNING;
}

/* One task entry of a heartbeat. */
static void
hb_task (ebb_ctl *c, int node, json_object *o, uint64_t *seen_job, uint32_t *seen_idx)
{
  json_object *v;
  if (!json_object_object_get_ex (o, "id", &v) || !json_object_is_type (v, json_type_string))
    return;
  const char *id = json_object_get_string (v);
  uint64_t job, gen;
  unsigned idx;
  int end = 0;
  if (sscanf (id, "j%" SCNu64 "-t%u-g%" SCNu64 "%n", &job, &idx, &gen, &end) != 3
      || id[end] != '\0')
    return; /* not ours (adopted by an operator): leave it alone */
  *seen_job = job;
  *seen_idx = idx;
  ebb_ctl_job *j = ebb_ctl_job_find (c, job);
  const char *st
      = json_object_object_get_ex (o, "state", &v) && json_object_is_type (v, json_type_string)
            ? json_object_get_string (v)
            : "running";
  ebb_ctl_task *t = j && idx < j->ntasks ? &j->tasks[idx] : NULL;
  if (!t || t->generation != gen || t->node != node || !task_active (t))
    {
      /* A copy this controller no longer wants (an older generation, a task launched again
       * elsewhere, a job forgotten): fence it off. */
      if (t && (t->generation != gen || t->node != node || task_terminal (t)))
        {
          ebb_ctl_task tmp = *t;
          send_delete (c, &tmp, gen, node, strcmp (st, "exited") ? CALL_KILL : CALL_FORGET);
        }
      return;
    }
  int64_t status = 0;
  bool has_exit;
  ebb_ctl_task_state s = agent_state (st, o, &status, &has_exit);
  if ((s == TASK_EXITED || s == TASK_FAILED) && t->pkill)
    {
      /* The policy's KILL: the task runs again from its queue (its progress is lost). */
      send_delete (c, t, t->generation, node, CALL_FORGET);
      pol_killed (c, t, "policy");
      return;
    }
  if (s == TASK_EXITED || s == TASK_FAILED)
    {
      t->exit_status = status;
      t->has_exit = has_exit;
      finish_task (c, t, t->kill_wanted ? TASK_KILLED : s, "exited");
      return;
    }
  if (t->state == TASK_STARTING && t->started_at == 0)
    t->started_at = ebb_ctl_now ();
  if (s == TASK_SUSPENDED && t->state != TASK_SUSPENDED)
    t->suspensions++;
  if (s != t->state)
    {
      t->state = s;
      ebb_ctl_store_task (c, t);
      ebb_ctl_job_update (c, t->job);
    }
}

static int
hb_node (ebb_ctl *c, const char *name, json_object *body, int *idx, ebb_error **err)
{
  json_object *node = NULL, *cap = NULL, *v;
  uint64_t cpu = 0, mem = 0, seq = 0;
  const char *url = NULL;
  if (!json_object_object_get_ex (body, "node", &node)
      || !json_object_is_type (node, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "field \"node\": an object is required");
  if (!json_object_object_get_ex (node, "capacity", &cap)
      || ebb_json_get_uint64 (cap, "cpu_millis", 1, EBB_AGENT_CPU_MILLIS_MAX_CTL, &cpu, err) <= 0
      || ebb_json_get_uint64 (cap, "memory_bytes", 0, UINT64_MAX / 2, &mem, err) <= 0)
    return ebb_error_set (err, EBB_EPARSE,
                          "field \"node.capacity\": cpu_millis and memory_bytes required");
  if (json_object_object_get_ex (body, "url", &v) || json_object_object_get_ex (node, "url", &v))
    {
      if (!json_object_is_type (v, json_type_string))
        return ebb_error_set (err, EBB_EPARSE, "field \"url\": must be a string");
      url = json_object_get_string (v);
      if (strlen (url) > 4096
          || (strncmp (url, "http://", 7) != 0 && strncmp (url, "https://", 8) != 0
              && strncmp (url, "unix:/", 6) != 0))
        return ebb_error_set (err, EBB_EPARSE,
                              "field \"url\": http://, https:// or unix:/ expected");
    }
  if (json_object_object_get_ex (body, "seq", &v)
      && ebb_json_get_uint64 (body, "seq", 0, UINT64_MAX, &seq, err) < 0)
    return -EBB_EPARSE;
  json_object *tasks;
  if (json_object_object_get_ex (body, "tasks", &tasks)
      && !json_object_is_type (tasks, json_type_array))
    return ebb_error_set (err, EBB_EPARSE, "field \"tasks\": must be an array");

  ebb_ctl_node *n = ebb_ctl_node_find (c, name, idx);
  bool changed = false;
  if (!n)
    {
      n = ebb_xcalloc (1, sizeof *n);
      n->name = ebb_xstrdup (name);
      n->state = NODE_LOST; /* becomes ready below */
      if (ebb_ctl_add_node (c, n) < 0)
        {
          free (n->name);
          free (n);
          return ebb_error_set (err, ENOSPC, "too many nodes");
        }
      *idx = (int)c->n_nodes - 1;
    }
  uint32_t slots = (uint32_t)(cpu / 1000 ? cpu / 1000 : 1);
  if (n->state == NODE_LOST || (seq && seq < n->last_seq))
    {
      /* A new incarnation (first contact, back from lost, or the agent restarted): a new
       * epoch, so that commands and reports of the old one are told apart. */
      n->epoch++;
      if (n->state == NODE_LOST)
        n->state = NODE_READY;
      changed = true;
      ebb_log_notice ("node %s: ready (epoch %" PRIu64 ", %u slots)", name, n->epoch, slots);
    }
  if (slots != n->nslots || n->cap_memory_bytes != mem
      || (url && (!n->url || strcmp (url, n->url))))
    changed = true;
  n->nslots = slots;
  n->cap_cpu_millis = cpu;
  n->cap_memory_bytes = mem;
  if (url && (!n->url || strcmp (url, n->url)))
    {
      free (n->url);
      n->url = ebb_xstrdup (url);
    }
  n->last_seq = seq;
  n->last_hb_usec = ebb_now_usec ();
  n->last_hb_at = ebb_ctl_now ();
  if (changed)
    {
      ebb_ctl_store_node (c, n);
      c->rebuild_wanted = true;
    }
  return 0;
}

/* See ctl.h. */
int
ebb_ctl_heartbeat (ebb_ctl *c, const char *name, json_object *body, ebb_error **err)
{
  int idx = -1;
  if (!body || !json_object_is_type (body, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "a JSON object is required");
  if (hb_node (c, name, body, &idx, err) < 0)
    return -EBB_EPARSE;
  c->m.heartbeats++;
  json_object *tasks = NULL;
  ebb_ctl_store_begin (c);
  if (json_object_object_get_ex (body, "tasks", &tasks))
    {
      size_t n = json_object_array_length (tasks);
      for (size_t i = 0; i < n; i++)
        {
          uint64_t job = 0;
          uint32_t tidx = 0;
          json_object *o = json_object_array_get_idx (tasks, i);
          if (json_object_is_type (o, json_type_object))
            hb_task (c, idx, o, &job, &tidx);
        }
    }
  ebb_ctl_store_commit (c);
  if (c->rebuild_wanted || !c->pol)
    rebuild (c);
  return 0;
}

/* See ctl.h. */
void
ebb_ctl_sched_tick (ebb_ctl *c)
{
  uint64_t now = ebb_now_usec ();
  for (size_t i = 0; i < c->n_nodes; i++)
    {
      ebb_ctl_node *n = c->nodes[i];
      if (n->state == NODE_LOST)
        continue;
      if (n->last_hb_usec == 0)
        n->last_hb_usec = now; /* loaded from the store: give it one timeout to report */
      else if (now - n->last_hb_usec > c->cfg->node_timeout_usec)
        lose_node (c, (int)i, "no heartbeat within --node-timeout");
    }
  if (c->rebuild_wanted || !c->pol)
    rebuild (c);
  double tick = c->pol ? c->pol->params.tick_sec : 0;
  if (c->pol && (tick <= 0 || pol_now () - c->last_pol_tick >= tick))
    {
      c->last_pol_tick = pol_now ();
      ebb_pol_tick (c->pol, c->last_pol_tick);
      drain (c);
    }
}

/* Relaunches what the store says was starting when the controller stopped: the agent
 * answers a repeated request id (or an existing task id) without launching twice. */
void
ebb_ctl_sched_resume_starting (ebb_ctl *c)
{
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (t->state == TASK_STARTING && t->node >= 0)
          send_launch (c, t, c->jobs[i]->cls == CLS_LONG, t->cpu_millis, t->memory_bytes);
        else if (t->kill_wanted && task_active (t) && t->node >= 0)
          send_delete (c, t, t->generation, t->node, CALL_KILL);
      }
}

/* See ctl.h. */
void
ebb_ctl_sched_free (ebb_ctl *c)
{
  ebb_pol_free (c->pol);
  free (c->slots);
  pjobs_clear (c);
  free (c->pjobs);
  free (c->pjobs_pol);
  free (c->pev);
  for (size_t i = 0; i < c->n_jobs; i++)
    ebb_ctl_job_free (c->jobs[i]);
  free (c->jobs);
  for (size_t i = 0; i < c->n_nodes; i++)
    {
      free (c->nodes[i]->name);
      free (c->nodes[i]->url);
      free (c->nodes[i]);
    }
  free (c->nodes);
}
