/* The API of a replica (doc/ha.md "Controllers"): a standby sends clients to the leader, and
 * GET /v1/cluster says which instance answers and who leads. */
#include "config.h"

#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "lib/json.h"
#include "lib/util.h"

/* See api.h. */
bool
ebb_ctl_api_not_leader (ebb_ctl *c, ebb_http_response *resp)
{
  if (ebb_ctl_leading (c))
    return false;
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "error", "not_leader");
  ebb_json_add_string (o, "detail",
                       c->leader_url ? "this instance stands by: ask the leader"
                                     : "this instance stands by; no leader known");
  json_object_object_add (o, "leader",
                          c->leader_url ? json_object_new_string (c->leader_url) : NULL);
  ebb_http_reply_json (resp, 503, o);
  return true;
}

/* See api.h. The open routes are listed here, not flagged in each file's table, so that a
 * route added later is gated unless it is added here. */
bool
ebb_ctl_api_gate (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  static const char *const open[] = { "/", "/v1/health", "/metrics", "/v1/cluster" };
  ebb_ctl *c = ud;
  if (ebb_ctl_leading (c))
    return false;
  if (strcmp (ebb_http_request_method (req), "GET") == 0)
    for (size_t i = 0; i < EBB_ARRAY_SIZE (open); i++)
      if (strcmp (ebb_http_request_path (req), open[i]) == 0)
        return false;
  return ebb_ctl_api_not_leader (c, resp);
}

/* See api.h. */
void
ebb_ctl_api_add_role (ebb_ctl *c, json_object *o)
{
  ebb_json_add_string (o, "role", ebb_ctl_leading (c) ? "leader" : "standby");
  if (!c->leader_epoch)
    {
      json_object_object_add (o, "leader", NULL);
      return;
    }
  json_object *l = json_object_new_object ();
  json_object_object_add (l, "id", c->leader_id ? json_object_new_string (c->leader_id) : NULL);
  json_object_object_add (l, "url", c->leader_url ? json_object_new_string (c->leader_url) : NULL);
  ebb_json_add_uint64 (l, "epoch", c->leader_epoch);
  json_object_object_add (o, "leader", l);
}
