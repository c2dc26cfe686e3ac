/* Heartbeats to --controller: POST /v1/nodes/NAME/heartbeat with the node report, the URL the
 * controller should call this agent on, and every task's state, over curl multi in the loop;
 * exponential backoff while the controller is unreachable or answers an error. A task's state
 * change (exit, suspended, resumed, a failed operation) sends one at once instead of waiting
 * for the period: changes within one loop iteration, or while one is in flight, share one
 * heartbeat (coalesced). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/heartbeat.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

#define BACKOFF_MIN_USEC 500000ULL
#define BACKOFF_MAX_USEC 60000000ULL

static void arm_push (ebb_agent *a);

/* The controller heartbeats go to now: the leader a standby named, else item controller_idx
 * of --controller URL[,URL...] (a new string). */
static char *
target (const ebb_agent *a)
{
  if (a->controller_leader)
    return ebb_xstrdup (a->controller_leader);
  const char *p = a->cfg->controller;
  for (size_t i = 0; i < a->controller_idx && strchr (p, ','); i++)
    p = strchr (p, ',') + 1;
  return strndup (p, strcspn (p, ","));
}

/* A failed heartbeat: a standby's 503 not_leader names the leader, followed unless its URL
 * is plain http (the token would go in clear); otherwise the next replica of the list.
 * Returns true when a new leader was named (tried after the shortest backoff: two standbys
 * naming each other during a handover cannot make it spin). */
static bool
follow (ebb_agent *a, const ebb_http_result *res)
{
  json_object *v = NULL;
  const char *leader = NULL;
  if (res && res->status == 503 && res->json && json_object_object_get_ex (res->json, "error", &v)
      && strcmp (json_object_get_string (v), "not_leader") == 0
      && json_object_object_get_ex (res->json, "leader", &v)
      && json_object_is_type (v, json_type_string))
    leader = json_object_get_string (v);
  bool again = leader && !ebb_agent_url_exposes_token (leader)
               && (!a->controller_leader || strcmp (leader, a->controller_leader) != 0);
  free (a->controller_leader);
  a->controller_leader = again ? ebb_xstrdup (leader) : NULL;
  if (again)
    ebb_log_notice ("heartbeats follow the leader %s", leader);
  else
    {
      size_t n = 1;
      for (const char *p = a->cfg->controller; (p = strchr (p, ',')); p++)
        n++;
      a->controller_idx = (a->controller_idx + 1) % n;
    }
  return again;
}

/* No controller (no leader) answers: the tasks keep running and the suspended ones stay
 * suspended, since their room may have been given to tasks that run here now and only a
 * leader knows (kube's pods outlive a lost node lease the same way; doc/ha.md
 * "Partitions"). The log says so after three heartbeat intervals, then each time the outage
 * has doubled, not at every retry. */
static void
note_outage (ebb_agent *a, uint64_t now)
{
  if (!a->ctl_down_since_usec)
    {
      a->ctl_down_since_usec = now;
      a->ctl_down_logged_usec = 0;
    }
  uint64_t down = now - a->ctl_down_since_usec;
  uint64_t due = a->ctl_down_logged_usec ? 2 * a->ctl_down_logged_usec : 3 * a->cfg->heartbeat_usec;
  if (down < due)
    return;
  a->ctl_down_logged_usec = down;
  size_t suspended = 0;
  for (size_t i = 0; i < a->n_tasks; i++)
    suspended += a->tasks[i]->state == EBB_AGENT_SUSPENDED;
  ebb_log_warn ("no controller has answered for %.1f s: the %zu tasks keep running (%zu "
                "suspended stay suspended until a leader says); heartbeats retried every %.1f "
                "s at most",
                (double)down / 1e6, a->n_tasks, suspended, (double)a->heartbeat_backoff_usec / 1e6);
}

/* See heartbeat.h. */
json_object *
ebb_agent_heartbeat_health (const ebb_agent *a)
{
  if (!a->cfg->controller)
    return NULL;
  json_object *o = json_object_new_object ();
  uint64_t down = a->ctl_down_since_usec ? ebb_now_usec () - a->ctl_down_since_usec : 0;
  ebb_json_add_bool (o, "reachable", !a->ctl_down_since_usec);
  ebb_json_add_double (o, "unreachable_sec", (double)down / 1e6);
  if (a->ctl_last_ok_at > 0)
    ebb_json_add_double (o, "last_heartbeat_at", a->ctl_last_ok_at);
  else
    json_object_object_add (o, "last_heartbeat_at", NULL);
  return o;
}

/* One heartbeat in flight: a fence naming a new leader sends the next one at once, and the
 * answer of the one it supersedes (to a paused leader, up to its 5 s timeout) is ignored. */
typedef struct
{
  ebb_agent *a;
  uint64_t seq;
} hb_call;

static void
on_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  hb_call *call = ud;
  ebb_agent *a = call->a;
  bool superseded = call->seq != a->heartbeat_seq;
  free (call);
  if (superseded)
    return;
  a->heartbeat_in_flight = false;
  uint64_t now = ebb_now_usec ();
  if (!err && res->status >= 200 && res->status < 300)
    {
      if (a->ctl_down_since_usec)
        ebb_log_notice ("controller reachable again after %.1f s",
                        (double)(now - a->ctl_down_since_usec) / 1e6);
      a->ctl_down_since_usec = 0;
      a->ctl_last_ok_at = (double)ebb_realtime_usec () / 1e6;
      a->heartbeat_backoff_usec = 0;
      a->m.heartbeats_ok++;
      a->next_heartbeat_usec = now + a->cfg->heartbeat_usec;
      if (a->push_wanted)
        arm_push (a); /* a state changed while this one was in flight */
      return;
    }
  ebb_agent_count_error (a, EBB_AGENT_ERR_HEARTBEAT);
  bool named = follow (a, err ? NULL : res);
  /* Replicas: a failover takes seconds, so the agent keeps asking every 2 s at most. */
  uint64_t max = strchr (a->cfg->controller, ',') ? 4 * BACKOFF_MIN_USEC : BACKOFF_MAX_USEC;
  uint64_t b
      = a->heartbeat_backoff_usec && !named ? a->heartbeat_backoff_usec * 2 : BACKOFF_MIN_USEC;
  a->heartbeat_backoff_usec = b > max ? max : b;
  if (b == BACKOFF_MIN_USEC)
    ebb_log_warn ("heartbeat to the controller failed: %s", err ? err->msg : "HTTP error status");
  a->next_heartbeat_usec = now + a->heartbeat_backoff_usec;
  note_outage (a, now);
}

/* Returns the URL the controller should call this agent on. */
const char *
ebb_agent_advertise_url (ebb_agent *a)
{
  if (a->cfg->advertise_url)
    return a->cfg->advertise_url;
  return a->http ? ebb_http_server_base_url (a->http, 0) : NULL;
}

/* The node report of GET /v1/node and heartbeats: what metrics.c measures, with the
 * capacity --capacity-cpu-millis/--capacity-memory set (several agents on one machine each
 * offer their share), and the advertised URL. */
json_object *
ebb_agent_node_report (ebb_agent *a)
{
  json_object *o = ebb_agent_node_json (a), *cap = NULL;
  if (json_object_object_get_ex (o, "capacity", &cap))
    {
      if (a->cfg->capacity_cpu_millis)
        ebb_json_add_uint64 (cap, "cpu_millis", a->cfg->capacity_cpu_millis);
      if (a->cfg->capacity_memory_bytes)
        ebb_json_add_uint64 (cap, "memory_bytes", a->cfg->capacity_memory_bytes);
    }
  ebb_json_add_string (o, "url", ebb_agent_advertise_url (a));
  return o;
}

static json_object *
report (ebb_agent *a)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "seq", ++a->heartbeat_seq);
  ebb_json_add_string (o, "url", ebb_agent_advertise_url (a));
  ebb_json_add_string (o, "reason", a->push_wanted ? "state" : "periodic");
  json_object_object_add (o, "node", ebb_agent_node_report (a));
  json_object *arr = json_object_new_array ();
  for (size_t i = 0; i < a->n_tasks; i++)
    json_object_array_add (arr, ebb_agent_task_to_json (a->tasks[i]));
  json_object_object_add (o, "tasks", arr);
  return o;
}

static void
send_now (ebb_agent *a)
{
  cleanup_free char *path = ebb_xasprintf ("/v1/nodes/%s/heartbeat", a->node_name);
  json_object *body = report (a);
  ebb_http_call_opts opts = { 0 };
  opts.timeout_ms = 5000;
  opts.bearer_token = a->token;
  opts.ca_file = a->cfg->controller_ca;
  a->push_wanted = false;
  cleanup_error ebb_error *err = NULL;
  cleanup_free char *to = target (a);
  hb_call *call = ebb_xcalloc (1, sizeof *call);
  *call = (hb_call){ .a = a, .seq = a->heartbeat_seq };
  a->heartbeat_in_flight = true;
  if (ebb_http_client_start (a->client, "POST", to, path, body, &opts, on_done, call, &err) < 0)
    {
      ebb_error *e = err;
      err = NULL;
      on_done (NULL, e, call);
      ebb_error_free (&e);
    }
  json_object_put (body);
}

/* Sends a heartbeat when one is due and none is in flight. */
void
ebb_agent_heartbeat_tick (ebb_agent *a, uint64_t now_usec)
{
  if (!a->cfg->controller || !a->client || a->heartbeat_in_flight
      || now_usec < a->next_heartbeat_usec)
    return;
  send_now (a);
}

static int
on_push (sd_event_source *s, void *ud)
{
  ebb_agent *a = ud;
  (void)s;
  /* In flight: on_done() re-arms; backing off: the periodic tick sends it when due. */
  if (a->push_wanted && a->client && !a->heartbeat_in_flight && !a->heartbeat_backoff_usec)
    send_now (a);
  return 0;
}

static void
arm_push (ebb_agent *a)
{
  if (!a->push_src && sd_event_add_defer (a->event, &a->push_src, on_push, a) < 0)
    return; /* the next periodic heartbeat carries the change */
  sd_event_source_set_enabled (a->push_src, SD_EVENT_ONESHOT);
}

/* See heartbeat.h. A URL that would carry the token in clear is not followed (as a
 * standby's answer is not); the list of --controller then finds the leader. */
void
ebb_agent_heartbeat_follow (ebb_agent *a, const char *leader)
{
  if (!a->cfg->controller || !leader || ebb_agent_url_exposes_token (leader))
    return;
  if (!a->controller_leader || strcmp (a->controller_leader, leader) != 0)
    {
      free (a->controller_leader);
      a->controller_leader = ebb_xstrdup (leader);
      ebb_log_notice ("heartbeats follow the leader %s (it fenced this agent)", leader);
    }
  a->heartbeat_backoff_usec = 0;
  a->next_heartbeat_usec = 0;
  if (a->heartbeat_in_flight && a->client && !a->stopping)
    {
      /* The one in flight may wait on the deposed leader: this one supersedes it. */
      a->push_wanted = true;
      send_now (a);
      return;
    }
  ebb_agent_heartbeat_push (a);
}

/* A task's state changed: tell the controller now (coalesced; see the top). */
void
ebb_agent_heartbeat_push (ebb_agent *a)
{
  if (!a->cfg->controller || !a->client || a->stopping)
    return;
  a->push_wanted = true;
  if (!a->heartbeat_in_flight)
    arm_push (a);
}
