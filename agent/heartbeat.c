/* Heartbeats to --controller: POST /v1/nodes/NAME/heartbeat with the node report and every
 * task's state, over curl multi in the loop; exponential backoff while the controller is
 * unreachable or answers an error. */
#include "config.h"

#include <stdlib.h>

#include "agent/daemon.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

#define BACKOFF_MIN_USEC 500000ULL
#define BACKOFF_MAX_USEC 60000000ULL

static void
on_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  ebb_agent *a = ud;
  a->heartbeat_in_flight = false;
  uint64_t now = ebb_now_usec ();
  if (!err && res->status >= 200 && res->status < 300)
    {
      if (a->heartbeat_backoff_usec)
        ebb_log_notice ("controller reachable again");
      a->heartbeat_backoff_usec = 0;
      a->m.heartbeats_ok++;
      a->next_heartbeat_usec = now + a->cfg->heartbeat_usec;
      return;
    }
  ebb_agent_count_error (a, EBB_AGENT_ERR_HEARTBEAT);
  uint64_t b = a->heartbeat_backoff_usec ? a->heartbeat_backoff_usec * 2 : BACKOFF_MIN_USEC;
  a->heartbeat_backoff_usec = b > BACKOFF_MAX_USEC ? BACKOFF_MAX_USEC : b;
  if (b == BACKOFF_MIN_USEC)
    ebb_log_warn ("heartbeat to %s failed: %s", a->cfg->controller,
                  err ? err->msg : "HTTP error status");
  a->next_heartbeat_usec = now + a->heartbeat_backoff_usec;
}

static json_object *
report (ebb_agent *a)
{
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "node", ebb_agent_node_json (a));
  json_object *arr = json_object_new_array ();
  for (size_t i = 0; i < a->n_tasks; i++)
    json_object_array_add (arr, ebb_agent_task_to_json (a->tasks[i]));
  json_object_object_add (o, "tasks", arr);
  return o;
}

/* Sends a heartbeat when one is due and none is in flight. */
void
ebb_agent_heartbeat_tick (ebb_agent *a, uint64_t now_usec)
{
  if (!a->cfg->controller || !a->client || a->heartbeat_in_flight
      || now_usec < a->next_heartbeat_usec)
    return;
  cleanup_free char *path = ebb_xasprintf ("/v1/nodes/%s/heartbeat", a->node_name);
  json_object *body = report (a);
  ebb_http_call_opts opts = { 0 };
  opts.timeout_ms = 5000;
  opts.bearer_token = a->token;
  cleanup_error ebb_error *err = NULL;
  if (ebb_http_client_start (a->client, "POST", a->cfg->controller, path, body, &opts, on_done, a,
                             &err)
      < 0)
    {
      ebb_error *e = err;
      err = NULL;
      on_done (NULL, e, a);
      ebb_error_free (&e);
    }
  else
    a->heartbeat_in_flight = true;
  json_object_put (body);
}
