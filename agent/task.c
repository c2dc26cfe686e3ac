/* Tasks: names, the state machine, the REST representation. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "agent/task.h"
#include "lib/json.h"
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
ebb_agent_task_apply (ebb_agent_task *t, ebb_agent_event ev, ebb_error **err)
{
  int next = ebb_agent_transition (t->state, t->prev_state, ev);
  if (next < 0)
    return ebb_error_set (err, EINVAL, "task %s: event %d not allowed while %s", t->id, (int)ev,
                          ebb_agent_state_name (t->state));
  if (next == EBB_AGENT_SUSPENDING || next == EBB_AGENT_RESUMING)
    t->prev_state = t->state;
  t->state = (ebb_agent_state)next;
  ebb_agent_task_touch (t);
  return 0;
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
  return o;
}

/* Returns the cached JSON text of t, building it when needed. */
const char *
ebb_agent_task_json_text (ebb_agent_task *t, size_t *len)
{
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
