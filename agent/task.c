/* Tasks: names, the state machine, the REST representation. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "agent/task.h"
#include "lib/json.h"
#include "lib/time.h"
#include "lib/util.h"

static const char *const state_names[EBB_AGENT_N_STATES] = {
  [EBB_AGENT_RUNNING] = "running",     [EBB_AGENT_SUSPENDING] = "suspending",
  [EBB_AGENT_SUSPENDED] = "suspended", [EBB_AGENT_RESUMING] = "resuming",
  [EBB_AGENT_EXITED] = "exited",
};

static const char *const source_names[] = {
  [EBB_AGENT_SRC_LAUNCHED] = "launched",
  [EBB_AGENT_SRC_DOCKER] = "docker",
  [EBB_AGENT_SRC_PODMAN] = "podman",
  [EBB_AGENT_SRC_CGROUP] = "cgroup",
};

/* Returns the state's name, or NULL when out of range. */
const char *
ebb_agent_state_name (ebb_agent_state s)
{
  return (unsigned)s < EBB_AGENT_N_STATES ? state_names[s] : NULL;
}

/* Returns the source's name, or NULL when out of range. */
const char *
ebb_agent_source_name (ebb_agent_source s)
{
  return (unsigned)s < EBB_ARRAY_SIZE (source_names) ? source_names[s] : NULL;
}

/* Returns 0 and *out for a known state name, -1 otherwise. */
int
ebb_agent_state_from_name (const char *name, ebb_agent_state *out)
{
  for (unsigned i = 0; name && i < EBB_AGENT_N_STATES; i++)
    if (strcmp (name, state_names[i]) == 0)
      {
        *out = (ebb_agent_state)i;
        return 0;
      }
  return -1;
}

/* Returns 0 and *out for a known source name, -1 otherwise. */
int
ebb_agent_source_from_name (const char *name, ebb_agent_source *out)
{
  for (unsigned i = 0; name && i < EBB_ARRAY_SIZE (source_names); i++)
    if (strcmp (name, source_names[i]) == 0)
      {
        *out = (ebb_agent_source)i;
        return 0;
      }
  return -1;
}

/* Returns the next state, or -1 when ev is not allowed in s. A failed transition goes back
 * to the state it started from (prev), so a half-done suspend never looks finished. */
int
ebb_agent_transition (ebb_agent_state s, ebb_agent_state prev, ebb_agent_event ev)
{
  if (s == EBB_AGENT_EXITED)
    return -1;
  switch (ev)
    {
    case EBB_AGENT_EV_EXIT:
      return EBB_AGENT_EXITED;
    case EBB_AGENT_EV_SUSPEND:
      /* A graceful step may follow an earlier one: suspended → suspending is allowed. */
      return s == EBB_AGENT_RUNNING || s == EBB_AGENT_SUSPENDED ? EBB_AGENT_SUSPENDING : -1;
    case EBB_AGENT_EV_SUSPENDED:
      return s == EBB_AGENT_SUSPENDING ? EBB_AGENT_SUSPENDED : -1;
    case EBB_AGENT_EV_RESUME:
      return s == EBB_AGENT_SUSPENDED ? EBB_AGENT_RESUMING : -1;
    case EBB_AGENT_EV_RESUMED:
      return s == EBB_AGENT_RESUMING ? EBB_AGENT_RUNNING : -1;
    case EBB_AGENT_EV_FAILED:
      if (s != EBB_AGENT_SUSPENDING && s != EBB_AGENT_RESUMING)
        return -1;
      if (prev != EBB_AGENT_RUNNING && prev != EBB_AGENT_SUSPENDED)
        return -1;
      return prev;
    }
  return -1;
}

/* Returns 0 after moving t to its next state, or -EINVAL with *err when not allowed. */
int
ebb_agent_task_apply_at (ebb_agent_task *t, ebb_agent_event ev, uint64_t now_usec, ebb_error **err)
{
  int next = ebb_agent_transition (t->state, t->prev_state, ev);
  if (next < 0)
    return ebb_error_set (err, EINVAL, "task %s: event %d not allowed while %s", t->id, (int)ev,
                          ebb_agent_state_name (t->state));
  if (next == EBB_AGENT_SUSPENDING || next == EBB_AGENT_RESUMING)
    t->prev_state = t->state;
  t->state = (ebb_agent_state)next;
  ebb_agent_task_account (t, now_usec);
  ebb_agent_task_touch (t);
  return 0;
}

int
ebb_agent_task_apply (ebb_agent_task *t, ebb_agent_event ev, ebb_error **err)
{
  return ebb_agent_task_apply_at (t, ev, ebb_realtime_usec (), err);
}

/* Whether s is part of a suspension: from the suspend's start to the resume's end. */
static bool
in_suspension (ebb_agent_state s)
{
  return s == EBB_AGENT_SUSPENDING || s == EBB_AGENT_SUSPENDED || s == EBB_AGENT_RESUMING;
}

/* Brings the accounting up to t's state. */
void
ebb_agent_task_account (ebb_agent_task *t, uint64_t now_usec)
{
  now_usec = now_usec ? now_usec : 1; /* 0 means "none" */
  if (in_suspension (t->state) && !t->suspended_since_usec)
    {
      t->suspended_since_usec = now_usec;
      t->suspensions++;
    }
  else if (!in_suspension (t->state) && t->suspended_since_usec)
    {
      t->suspended_usec = ebb_agent_task_suspended_usec (t, now_usec);
      t->suspended_since_usec = 0;
    }
  if (t->state == EBB_AGENT_EXITED && !t->ended_usec)
    t->ended_usec = now_usec;
}

/* The suspended time, the suspension under way up to now (a clock set back counts 0). */
uint64_t
ebb_agent_task_suspended_usec (const ebb_agent_task *t, uint64_t now_usec)
{
  uint64_t since = t->suspended_since_usec;
  return t->suspended_usec + (since && now_usec > since ? now_usec - since : 0);
}

/* The running time: from start to now (or the exit), less the suspended time. */
uint64_t
ebb_agent_task_running_usec (const ebb_agent_task *t, uint64_t now_usec)
{
  uint64_t end = t->ended_usec ? t->ended_usec : now_usec;
  uint64_t life = end > t->started_usec ? end - t->started_usec : 0;
  uint64_t suspended = ebb_agent_task_suspended_usec (t, end);
  return life > suspended ? life - suspended : 0;
}

/* Whether t ran past its time limit. */
bool
ebb_agent_task_over_limit (const ebb_agent_task *t, uint64_t now_usec)
{
  return t->time_limit_sec && t->state != EBB_AGENT_EXITED
         && ebb_agent_task_running_usec (t, now_usec) > t->time_limit_sec * 1000000ULL;
}

/* Returns a new zeroed task named id. */
ebb_agent_task *
ebb_agent_task_new (const char *id)
{
  ebb_agent_task *t = ebb_xcalloc (1, sizeof *t);
  snprintf (t->id, sizeof t->id, "%s", id);
  t->exit_status = -1;
  t->pidfd = -1;
  t->uid = t->gid = -1;
  t->started_usec = ebb_realtime_usec ();
  return t;
}

static void
reply_clear (ebb_agent_reply *r)
{
  free (r->request_id);
  free (r->key);
  free (r->body);
  memset (r, 0, sizeof *r);
}

/* Frees the task's own fields and the task. */
void
ebb_agent_task_free (ebb_agent_task *t)
{
  if (!t)
    return;
  free (t->job);
  free (t->cgroup);
  free (t->container);
  free (t->error);
  free (t->end_reason);
  free (t->json_cache);
  for (unsigned i = 0; i < t->n_replies; i++)
    reply_clear (&t->replies[i]);
  free (t);
}

/* Remembers a reply; the oldest falls out when full. */
void
ebb_agent_task_add_reply (ebb_agent_task *t, const char *request_id, const char *key,
                          unsigned status, const char *body)
{
  if (t->n_replies == EBB_AGENT_TASK_REQUESTS)
    {
      reply_clear (&t->replies[0]);
      memmove (&t->replies[0], &t->replies[1],
               (EBB_AGENT_TASK_REQUESTS - 1) * sizeof t->replies[0]);
      memset (&t->replies[EBB_AGENT_TASK_REQUESTS - 1], 0, sizeof t->replies[0]);
      t->n_replies--;
    }
  ebb_agent_reply *r = &t->replies[t->n_replies++];
  r->request_id = ebb_xstrdup (request_id);
  r->key = ebb_xstrdup (key);
  r->status = status;
  r->body = ebb_xstrdup (body);
}

/* A limit as JSON: "max" for none, else the number. */
static void
add_limit (json_object *o, const char *key, bool valid, uint64_t v)
{
  if (!valid)
    json_object_object_add (o, key, NULL);
  else if (v == EBB_CG_MAX)
    ebb_json_add_string (o, key, "max");
  else
    ebb_json_add_uint64 (o, key, v);
}

static json_object *
applied_to_json (const ebb_cg_limits *l)
{
  json_object *o = json_object_new_object ();
  if (l->valid & EBB_CG_LIM_CPU)
    {
      char buf[64];
      if (l->cpu_quota_usec == EBB_CG_MAX)
        snprintf (buf, sizeof buf, "max %llu", (unsigned long long)l->cpu_period_usec);
      else
        snprintf (buf, sizeof buf, "%llu %llu", (unsigned long long)l->cpu_quota_usec,
                  (unsigned long long)l->cpu_period_usec);
      ebb_json_add_string (o, "cpu_max", buf);
    }
  else
    json_object_object_add (o, "cpu_max", NULL);
  add_limit (o, "memory_high", l->valid & EBB_CG_LIM_MEMORY_HIGH, l->memory_high_bytes);
  add_limit (o, "memory_max", l->valid & EBB_CG_LIM_MEMORY_MAX, l->memory_max_bytes);
  return o;
}

static json_object *
usage_to_json (const ebb_cg_stats *s)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "cpu_usec", s->cpu_usage_usec);
  ebb_json_add_uint64 (o, "memory_bytes", s->memory_current_bytes);
  ebb_json_add_uint64 (o, "swap_bytes", s->swap_current_bytes);
  return o;
}

/* Returns the REST representation of t. */
/* uint64 values with EBB_CG_MAX as "max": json-c's int64 cannot carry UINT64_MAX. */
static void
put_u64 (json_object *o, const char *key, uint64_t v)
{
  if (v == EBB_CG_MAX)
    ebb_json_add_string (o, key, "max");
  else
    ebb_json_add_uint64 (o, key, v);
}

/* The recorded original limits as the journal and GET /v1/tasks/ID show them. */
json_object *
ebb_agent_original_json (const ebb_cg_original *g)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_bool (o, "recorded", g->recorded);
  ebb_json_add_uint64 (o, "valid", g->limits.valid);
  put_u64 (o, "cpu_quota_usec", g->limits.cpu_quota_usec);
  put_u64 (o, "cpu_period_usec", g->limits.cpu_period_usec);
  put_u64 (o, "cpu_burst_usec", g->limits.cpu_burst_usec);
  put_u64 (o, "memory_high_bytes", g->limits.memory_high_bytes);
  put_u64 (o, "memory_max_bytes", g->limits.memory_max_bytes);
  put_u64 (o, "swap_max_bytes", g->limits.swap_max_bytes);
  ebb_json_add_bool (o, "swap_raised", g->swap_raised);
  ebb_json_add_bool (o, "oom_kill_disabled", g->oom_kill_disabled);
  ebb_json_add_int64 (o, "engine_state", g->state);
  ebb_json_add_uint64 (o, "changed", g->changed);
  return o;
}

void
ebb_agent_task_add_identity (json_object *o, const ebb_agent_task *t)
{
  ebb_json_add_string (o, "id", t->id);
  ebb_json_add_string (o, "job", t->job);
  ebb_json_add_string (o, "class", t->long_class ? "long" : "short");
  if (t->generation)
    ebb_json_add_uint64 (o, "generation", t->generation);
}

/* Seconds with millisecond digits ("2.345", not json-c's 17 digits). */
static void
add_seconds (json_object *o, const char *key, uint64_t usec)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%llu.%03llu", (unsigned long long)(usec / 1000000),
            (unsigned long long)(usec / 1000 % 1000));
  json_object_object_add (o, key, json_object_new_double_s ((double)usec / 1e6, buf));
}

/* "SIGUSR1" for a signal that has a name, else its number. */
static void
add_signal (json_object *o, const char *key, int sig)
{
  const char *abbrev = sigabbrev_np (sig);
  char buf[32];
  if (!abbrev)
    ebb_json_add_int64 (o, key, sig);
  else
    {
      snprintf (buf, sizeof buf, "SIG%s", abbrev);
      ebb_json_add_string (o, key, buf);
    }
}

/* The launch's options and the accounting, as the API shows them. */
static void
add_time (json_object *o, const ebb_agent_task *t)
{
  if (t->time_limit_sec)
    ebb_json_add_uint64 (o, "time_limit_sec", t->time_limit_sec);
  if (t->notify_signal)
    add_signal (o, "notify_signal", t->notify_signal);
  add_seconds (o, "suspended_seconds", ebb_agent_task_suspended_usec (t, ebb_realtime_usec ()));
  ebb_json_add_uint64 (o, "suspensions", t->suspensions);
  if (t->end_reason)
    ebb_json_add_string (o, "end_reason", t->end_reason);
}

/* Journaled: the launch's options, the accounting, the end reason. */
void
ebb_agent_task_add_accounting (json_object *o, const ebb_agent_task *t)
{
  ebb_json_add_uint64 (o, "time_limit_sec", t->time_limit_sec);
  ebb_json_add_int64 (o, "notify_signal", t->notify_signal);
  ebb_json_add_string (o, "end_reason", t->end_reason);
  ebb_json_add_uint64 (o, "started_usec", t->started_usec);
  ebb_json_add_uint64 (o, "ended_usec", t->ended_usec);
  ebb_json_add_uint64 (o, "suspended_usec", t->suspended_usec);
  ebb_json_add_uint64 (o, "suspended_since_usec", t->suspended_since_usec);
  ebb_json_add_uint64 (o, "suspensions", t->suspensions);
}

/* Reads back what ebb_agent_task_add_accounting() wrote. */
int
ebb_agent_task_get_accounting (json_object *o, ebb_agent_task *t, ebb_error **err)
{
  int64_t sig = t->notify_signal;
  const char *reason = NULL;
  if (ebb_json_get_uint64 (o, "time_limit_sec", 0, UINT64_MAX / 1000000, &t->time_limit_sec, err)
          < 0
      || ebb_json_get_int64 (o, "notify_signal", 0, SIGRTMAX, &sig, err) < 0
      || ebb_json_get_string (o, "end_reason", 64, NULL, &reason, err) < 0
      || ebb_json_get_uint64 (o, "started_usec", 0, UINT64_MAX, &t->started_usec, err) < 0
      || ebb_json_get_uint64 (o, "ended_usec", 0, UINT64_MAX, &t->ended_usec, err) < 0
      || ebb_json_get_uint64 (o, "suspended_usec", 0, UINT64_MAX, &t->suspended_usec, err) < 0
      || ebb_json_get_uint64 (o, "suspended_since_usec", 0, UINT64_MAX, &t->suspended_since_usec,
                              err)
             < 0
      || ebb_json_get_uint64 (o, "suspensions", 0, UINT64_MAX, &t->suspensions, err) < 0)
    return -EBB_EPARSE;
  t->notify_signal = (int)sig;
  free (t->end_reason);
  t->end_reason = reason ? ebb_xstrdup (reason) : NULL;
  return 0;
}

json_object *
ebb_agent_task_to_json (const ebb_agent_task *t)
{
  json_object *o = json_object_new_object ();
  ebb_agent_task_add_identity (o, t);
  ebb_json_add_string (o, "state", ebb_agent_state_name (t->state));
  ebb_json_add_int64 (o, "pid", t->pid);
  ebb_json_add_string (o, "cgroup", t->cgroup);
  ebb_json_add_string (o, "backend", t->cg ? ebb_cg_backend_name (ebb_cg_backend (t->cg)) : NULL);
  json_object *lim = json_object_new_object ();
  ebb_json_add_uint64 (lim, "cpu_millis", t->cpu_millis);
  ebb_json_add_uint64 (lim, "memory_bytes", t->memory_bytes);
  json_object_object_add (o, "limits", lim);
  json_object_object_add (o, "applied", applied_to_json (&t->applied));
  json_object_object_add (o, "usage", usage_to_json (&t->stats));
  ebb_json_add_uint64 (o, "reclaimed_bytes", t->reclaimed_bytes);
  ebb_json_add_uint64 (o, "held_bytes", t->held_bytes);
  if (t->state == EBB_AGENT_EXITED && t->exit_status >= 0)
    ebb_json_add_int64 (o, "exit_status", t->exit_status);
  else
    json_object_object_add (o, "exit_status", NULL);
  if (t->exit_signal)
    ebb_json_add_int64 (o, "exit_signal", t->exit_signal);
  ebb_json_add_string (o, "source", ebb_agent_source_name (t->source));
  if (t->container)
    ebb_json_add_string (o, "container", t->container);
  if (t->state == EBB_AGENT_SUSPENDED || t->state == EBB_AGENT_SUSPENDING)
    ebb_json_add_string (o, "mode", t->graceful ? "graceful" : "immediate");
  /* What a resume will restore, and why the task is not where it was asked to be. */
  if (t->orig.recorded)
    json_object_object_add (o, "original", ebb_agent_original_json (&t->orig));
  if (t->error)
    ebb_json_add_string (o, "error", t->error);
  if (t->uid >= 0)
    ebb_json_add_int64 (o, "uid", t->uid);
  if (t->gid >= 0)
    ebb_json_add_int64 (o, "gid", t->gid);
  add_time (o, t);
  return o;
}

/* Returns the cached JSON text of t, building it when needed. */
const char *
ebb_agent_task_json_text (ebb_agent_task *t, size_t *len)
{
  /* A suspension under way counts up to now: its text is not kept. */
  if (t->suspended_since_usec)
    ebb_agent_task_touch (t);
  if (!t->json_cache)
    {
      json_object *o = ebb_agent_task_to_json (t);
      t->json_cache = ebb_json_to_string (o);
      t->json_len = strlen (t->json_cache);
      json_object_put (o);
    }
  *len = t->json_len;
  return t->json_cache;
}

/* Drops the cached JSON text. */
void
ebb_agent_task_touch (ebb_agent_task *t)
{
  free (t->json_cache);
  t->json_cache = NULL;
}

/* Moves *local into err; returns the failure's code. */
int
ebb_agent_pass_error (ebb_error **err, ebb_error **local)
{
  int code = *local && (*local)->code ? (*local)->code : EIO;
  if (err && !*err)
    {
      *err = *local;
      *local = NULL;
    }
  else
    ebb_error_free (local);
  return -code;
}
