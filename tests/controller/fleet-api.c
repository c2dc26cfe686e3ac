/* The fleet's node API: the agent's routes under /nK (launch, suspend, resume, delete, fence),
 * each mutating call checked by its Ebb-Leader-Epoch as agent/api.c does: a lower epoch than
 * the node's highest is answered 409 stale_leader, a higher one raises it, none (an
 * operator's call) is accepted. POST /nK/v1/fence raises the epoch and answers the node's
 * tasks, and its "leader" moves the node's heartbeats there at once. The epoch lives in
 * memory only: the fleet does not restart. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "agent/fence.h"
#include "lib/json.h"
#include "lib/time.h"
#include "lib/util.h"
#include "tests/controller/fleet.h"

static long
node_of (ebb_http_request *req)
{
  const char *s = ebb_http_request_capture (req, "node");
  char *end;
  long k = s && s[0] == 'n' ? strtol (s + 1, &end, 10) : -1;
  return k >= 0 && k < (long)F.n && *end == '\0' ? k : -1;
}

static vtask *
find (vnode *n, const char *id)
{
  for (vtask *t = n->tasks; t; t = t->next)
    if (strcmp (t->id, id) == 0)
      return t;
  return NULL;
}

/* The audit of an accepted call that acts on node k: independent of admit() below, it
 * counts a call acting below the highest epoch the node was ever sent. */
static void
audit_acted (long k, uint64_t epoch)
{
  if (epoch && epoch < F.nodes[k].audit_seen)
    F.k.accepted_below_highest++;
}

/* The fence of agent/api.c admit_epoch(): returns true to go on, false when answered (409
 * stale_leader). epoch 0 is an unfenced call. */
static bool
admit (long k, uint64_t epoch, bool is_fence, ebb_http_response *resp)
{
  vnode *n = &F.nodes[k];
  if (epoch > n->audit_seen)
    n->audit_seen = epoch;
  if (epoch && epoch < n->epoch)
    {
      fleet_count_refused (epoch);
      if (is_fence)
        F.k.fences_refused++;
      else
        F.k.calls_refused_stale++;
      ebb_http_error (resp, 409, "stale_leader", "leader epoch %llu is below epoch %llu",
                      (unsigned long long)epoch, (unsigned long long)n->epoch);
      return false;
    }
  if (epoch > n->epoch)
    n->epoch = epoch;
  if (is_fence)
    F.k.fences++;
  else if (epoch)
    F.k.calls_accepted++;
  else
    F.k.calls_unfenced++;
  return true;
}

/* The node and epoch of a mutating call, admitted. Returns the node, or -1 when answered. */
static long
begin (ebb_http_request *req, ebb_http_response *resp, uint64_t *epoch)
{
  cleanup_error ebb_error *err = NULL;
  long k = node_of (req);
  const char *h = ebb_http_request_header (req, EBB_AGENT_EPOCH_HEADER);
  *epoch = 0;
  if (k < 0 || (h && ebb_agent_fence_parse (h, epoch, &err) < 0))
    {
      ebb_http_error (resp, 400, "bad_request", "%s", err ? ebb_error_msg (&err) : "no node");
      return -1;
    }
  return admit (k, *epoch, false, resp) ? k : -1;
}

static json_object *
task_json (const vtask *t)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "id", t->id);
  ebb_json_add_string (o, "state",
                       t->state == 0   ? "running"
                       : t->state == 1 ? "suspended"
                                       : "exited");
  if (t->state == 2)
    ebb_json_add_int64 (o, "exit_status", 0);
  ebb_json_add_uint64 (o, "generation", t->generation);
  return o;
}

/* Node k's tasks as a JSON array, the exited ones marked so first. */
json_object *
fleet_tasks_json (uint32_t k)
{
  uint64_t now = ebb_now_usec ();
  json_object *arr = json_object_new_array ();
  for (vtask *t = F.nodes[k].tasks; t; t = t->next)
    {
      fleet_task_live (t, now);
      json_object_array_add (arr, task_json (t));
    }
  return arr;
}

static int
h_launch (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  uint64_t epoch;
  long k = begin (req, resp, &epoch);
  json_object *b = ebb_http_request_json (req), *v, *argv;
  if (k < 0)
    return EBB_HTTP_REPLIED;
  if (!b || !json_object_object_get_ex (b, "id", &v))
    {
      ebb_http_error (resp, 400, "bad_request", "bad launch");
      return EBB_HTTP_REPLIED;
    }
  if (find (&F.nodes[k], json_object_get_string (v)))
    {
      ebb_http_error (resp, 409, "conflict", "exists");
      return EBB_HTTP_REPLIED;
    }
  audit_acted (k, epoch);
  vtask *t = ebb_xcalloc (1, sizeof *t);
  t->id = ebb_xstrdup (json_object_get_string (v));
  t->node = (uint32_t)k;
  if (json_object_object_get_ex (b, "generation", &v))
    t->generation = (uint64_t)json_object_get_int64 (v);
  if (json_object_object_get_ex (b, "argv", &argv) && json_object_array_length (argv) == 2
      && strcmp (json_object_get_string (json_object_array_get_idx (argv, 0)), "sleep") == 0)
    t->end_usec
        = ebb_now_usec ()
          + (uint64_t)(atof (json_object_get_string (json_object_array_get_idx (argv, 1))) * 1e6);
  t->next = F.nodes[k].tasks;
  F.nodes[k].tasks = t;
  F.k.launches++;
  fleet_kin_launch (t);
  ebb_http_reply_json (resp, 201, task_json (t));
  return EBB_HTTP_REPLIED;
}

/* Suspend (op 1) or resume (op 0). */
static int
h_op (ebb_http_request *req, ebb_http_response *resp, int op)
{
  uint64_t epoch;
  long k = begin (req, resp, &epoch);
  if (k < 0)
    return EBB_HTTP_REPLIED;
  const char *id = ebb_http_request_capture (req, "id");
  vtask *t = id ? find (&F.nodes[k], id) : NULL;
  if (!t)
    {
      ebb_http_error (resp, 404, "not_found", "no task");
      return EBB_HTTP_REPLIED;
    }
  audit_acted (k, epoch);
  if (fleet_task_live (t, ebb_now_usec ()))
    t->state = op;
  ebb_http_reply_json (resp, 200, task_json (t));
  return EBB_HTTP_REPLIED;
}

static int
h_suspend (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  return h_op (req, resp, 1);
}

static int
h_resume (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  return h_op (req, resp, 0);
}

static int
h_delete (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  uint64_t epoch;
  long k = begin (req, resp, &epoch);
  const char *id = ebb_http_request_capture (req, "id");
  if (k < 0)
    return EBB_HTTP_REPLIED;
  for (vtask **pp = id ? &F.nodes[k].tasks : NULL; pp && *pp; pp = &(*pp)->next)
    if (strcmp ((*pp)->id, id) == 0)
      {
        vtask *t = *pp;
        *pp = t->next;
        audit_acted (k, epoch);
        if (fleet_task_live (t, ebb_now_usec ()))
          fleet_kin_gone (t);
        ebb_http_reply_json (resp, 200, task_json (t));
        free (t->id);
        free (t);
        return EBB_HTTP_REPLIED;
      }
  ebb_http_error (resp, 404, "not_found", "no task");
  return EBB_HTTP_REPLIED;
}

/* POST /nK/v1/fence {"epoch":E,"leader":URL}: agent/api.c h_fence(). */
static int
h_fence (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  cleanup_error ebb_error *err = NULL;
  json_object *b = ebb_http_request_json (req);
  long k = node_of (req);
  uint64_t epoch = 0;
  const char *leader = NULL;
  int r = k < 0 ? 0 : ebb_json_get_uint64 (b, "epoch", 1, INT64_MAX, &epoch, &err);
  if (r <= 0 || ebb_json_get_string (b, "leader", 4096, NULL, &leader, &err) < 0)
    {
      ebb_http_error (resp, 400, "bad_request", "%s", err ? ebb_error_msg (&err) : "no epoch");
      return EBB_HTTP_REPLIED;
    }
  if (!admit (k, epoch, true, resp))
    return EBB_HTTP_REPLIED;
  audit_acted (k, epoch);
  vnode *n = &F.nodes[k];
  /* As the agent: a plain http:// leader would get the token in clear, and is not followed. */
  if (leader && strncmp (leader, "http://", 7) != 0)
    {
      if (!n->leader || strcmp (n->leader, leader) != 0)
        {
          free (n->leader);
          n->leader = ebb_xstrdup (leader);
          n->route_gen++;
          n->hb_in_flight = false; /* one still under way went elsewhere */
        }
      fleet_heartbeat_soon ((uint32_t)k);
    }
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "epoch", n->epoch);
  cleanup_free char *name = ebb_xasprintf ("n%ld", k);
  ebb_json_add_string (o, "node", name);
  json_object_object_add (o, "tasks", fleet_tasks_json ((uint32_t)k));
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

const ebb_http_route fleet_routes[] = {
  { "POST", "/{node}/v1/tasks", h_launch, EBB_HTTP_ROUTE_JSON },
  { "POST", "/{node}/v1/tasks/{id}/suspend", h_suspend, EBB_HTTP_ROUTE_JSON },
  { "POST", "/{node}/v1/tasks/{id}/resume", h_resume, EBB_HTTP_ROUTE_JSON },
  { "DELETE", "/{node}/v1/tasks/{id}", h_delete, 0 },
  { "POST", "/{node}/v1/fence", h_fence, EBB_HTTP_ROUTE_JSON },
};
const size_t fleet_n_routes = EBB_ARRAY_SIZE (fleet_routes);
