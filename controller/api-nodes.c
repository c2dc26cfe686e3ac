/* The nodes API: GET /v1/nodes and /v1/nodes/{name}, drain and undrain, and the agents'
 * heartbeats. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "controller/ops.h"
#include "lib/json.h"
#include "lib/util.h"

static bool
active (const ebb_ctl_task *t)
{
  return t->state == TASK_STARTING || t->state == TASK_RUNNING || t->state == TASK_SUSPENDED;
}

static json_object *
task_id_json (const ebb_ctl_task *t)
{
  cleanup_free char *id = ebb_xasprintf ("%" PRIu64 "-%u", t->job->id, t->idx);
  return json_object_new_string (id);
}

/* Node idx with `tasks`, the ids of its active tasks (taken). Its allocation and task count
 * are its counters (model-index.c). */
static json_object *
node_json_with (ebb_ctl *c, int idx, json_object *tasks)
{
  ebb_ctl_node *n = c->nodes[idx];
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "name", n->name);
  ebb_json_add_string (o, "state", ebb_ctl_node_state_name (n->state));
  ebb_json_add_string (o, "url", n->url);
  ebb_json_add_uint64 (o, "epoch", n->epoch);
  ebb_json_add_uint64 (o, "slots", n->nslots);
  json_object *cap = json_object_new_object ();
  ebb_json_add_uint64 (cap, "cpu_millis", n->cap_cpu_millis);
  ebb_json_add_uint64 (cap, "memory_bytes", n->cap_memory_bytes);
  json_object_object_add (o, "capacity", cap);
  json_object *al = json_object_new_object ();
  ebb_json_add_uint64 (al, "cpu_millis", n->alloc_cpu_millis);
  ebb_json_add_uint64 (al, "memory_bytes", n->alloc_memory_bytes);
  json_object_object_add (o, "allocated", al);
  json_object_object_add (o, "tasks", tasks);
  ebb_json_add_uint64 (o, "ntasks", n->ntasks);
  ebb_ctl_api_add_time (o, "last_heartbeat", n->last_hb_at);
  return o;
}

/* Node idx as GET /v1/nodes/NAME answers it. */
static json_object *
node_json (ebb_ctl *c, int idx)
{
  json_object *tasks = json_object_new_array ();
  if (c->nodes[idx]->ntasks > 0)
    for (size_t i = 0; i < c->n_jobs; i++)
      for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
        {
          const ebb_ctl_task *t = &c->jobs[i]->tasks[k];
          if (t->node == idx && active (t))
            json_object_array_add (tasks, task_id_json (t));
        }
  return node_json_with (c, idx, tasks);
}

/* GET /v1/nodes. The task lists of all nodes come from one pass over the tasks (one pass per
 * node took seconds at 10,000 nodes). */
static int
h_nodes (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  (void)req;
  cleanup_free json_object **lists = ebb_xcalloc (c->n_nodes + 1, sizeof *lists);
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        const ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (t->node < 0 || (size_t)t->node >= c->n_nodes || !active (t))
          continue;
        if (!lists[t->node])
          lists[t->node] = json_object_new_array ();
        json_object_array_add (lists[t->node], task_id_json (t));
      }
  json_object *arr = json_object_new_array ();
  for (size_t i = 0; i < c->n_nodes; i++)
    json_object_array_add (
        arr, node_json_with (c, (int)i, lists[i] ? lists[i] : json_object_new_array ()));
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "nodes", arr);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static int
node_or_404 (ebb_ctl *c, ebb_http_request *req, ebb_http_response *resp)
{
  const char *name = ebb_http_request_capture (req, "name");
  int idx = -1;
  if (!name || !ebb_id_is_valid (name, 64))
    {
      c->m.bad_requests++;
      ebb_http_error (resp, 400, "bad_request", "node name must match [A-Za-z0-9._-]{1,64}");
      return -1;
    }
  if (!ebb_ctl_node_find (c, name, &idx))
    ebb_http_error (resp, 404, "not_found", "no node %s", name);
  return idx;
}

/* GET /v1/nodes/{name}. */
static int
h_node (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  int idx = node_or_404 (ud, req, resp);
  if (idx >= 0)
    ebb_http_reply_json (resp, 200, node_json (ud, idx));
  return EBB_HTTP_REPLIED;
}

static int
drain_op (ebb_http_request *req, ebb_http_response *resp, ebb_ctl *c, bool drain)
{
  int idx = node_or_404 (c, req, resp);
  if (idx < 0)
    return EBB_HTTP_REPLIED;
  cleanup_error ebb_error *err = NULL;
  const char *what = drain ? "drain" : "undrain";
  if (ebb_ctl_op_drain (c, idx, drain, &err) < 0)
    {
      ebb_ctl_api_audit (req, "%s: node %s refused: %s", what, c->nodes[idx]->name,
                         ebb_error_msg (&err));
      ebb_http_error (resp, 409, "conflict", "%s", ebb_error_msg (&err));
      return EBB_HTTP_REPLIED;
    }
  ebb_ctl_api_audit (req, "%s: node %s", what, c->nodes[idx]->name);
  ebb_http_reply_json (resp, 200, node_json (c, idx));
  return EBB_HTTP_REPLIED;
}

/* POST /v1/nodes/{name}/drain. */
static int
h_drain (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return drain_op (req, resp, ud, true);
}

/* POST /v1/nodes/{name}/undrain. */
static int
h_undrain (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return drain_op (req, resp, ud, false);
}

/* POST /v1/nodes/{name}/heartbeat. */
static int
h_heartbeat (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  cleanup_error ebb_error *err = NULL;
  const char *name = ebb_http_request_capture (req, "name");
  if (!name || !ebb_id_is_valid (name, 64))
    {
      c->m.heartbeats_refused++;
      c->m.bad_requests++;
      ebb_http_error (resp, 400, "bad_request", "node name must match [A-Za-z0-9._-]{1,64}");
      return EBB_HTTP_REPLIED;
    }
  json_object *b = NULL;
  if (ebb_http_request_body_json (req, 16, &b, &err) < 0
      || ebb_ctl_op_heartbeat (c, name, b, &err) < 0)
    {
      json_object_put (b);
      c->m.heartbeats_refused++;
      return ebb_ctl_api_bad (c, resp, 400, "bad_request", &err);
    }
  json_object_put (b);
  ebb_ctl_node *n = ebb_ctl_node_find (c, name, NULL);
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "state", ebb_ctl_node_state_name (n->state));
  ebb_json_add_uint64 (o, "epoch", n->epoch);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

/* See api.h. */
const ebb_http_route ebb_ctl_api_nodes_routes[] = {
  { "GET", "/v1/nodes", h_nodes, 0 },
  { "GET", "/v1/nodes/{name}", h_node, 0 },
  { "POST", "/v1/nodes/{name}/drain", h_drain, 0 },
  { "POST", "/v1/nodes/{name}/undrain", h_undrain, 0 },
  { "POST", "/v1/nodes/{name}/heartbeat", h_heartbeat, 0 },
};
const size_t ebb_ctl_api_nodes_n_routes = EBB_ARRAY_SIZE (ebb_ctl_api_nodes_routes);
