/* The REST API: a route table over lib/http-server.h. Mutations are validated
 * completely before anything changes, and are idempotent through request_id. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/adopt.h"
#include "agent/fence.h"
#include "agent/api.h"
#include "agent/heartbeat.h"
#include "agent/launch.h"
#include "agent/logs-kept.h"
#include "agent/logs.h"
#include "agent/ops.h"
#include "agent/request.h"
#include "agent/table.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

/* Maps an error code to an HTTP status and a short error code. */
static unsigned
status_of (int code, const char **name)
{
  switch (code)
    {
    case EBB_EPARSE:
    case EBB_ERANGE:
    case EINVAL:
      *name = "bad_request";
      return 400;
    case EBB_EREFUSED:
    case EACCES:
      *name = "forbidden";
      return 403;
    case ENOENT:
      *name = "not_found";
      return 404;
    case EEXIST:
    case EBUSY:
      *name = "conflict";
      return 409;
    case EBB_EGONE:
      *name = "gone";
      return 410;
    case ENOTSUP:
      *name = "unsupported";
      return 422;
    default:
      *name = "internal";
      return 500;
    }
}

static int
reply_err (ebb_agent *a, ebb_http_response *resp, int code, ebb_error **err)
{
  const char *name;
  unsigned st = status_of (code, &name);
  ebb_agent_count_error (a, st == 404   ? EBB_AGENT_ERR_NOT_FOUND
                            : st == 409 ? EBB_AGENT_ERR_CONFLICT
                            : st >= 500 ? EBB_AGENT_ERR_CGROUP
                                        : EBB_AGENT_ERR_BAD_REQUEST);
  ebb_http_error (resp, st, name, "%s", ebb_error_msg (err));
  return EBB_HTTP_REPLIED;
}

static ebb_agent_task *
find_or_404 (ebb_agent *a, ebb_http_request *req, ebb_http_response *resp)
{
  const char *id = ebb_http_request_capture (req, "id");
  ebb_agent_task *t = id && ebb_id_is_valid (id, EBB_AGENT_ID_MAX) ? ebb_agent_find (a, id) : NULL;
  if (!t)
    {
      ebb_agent_count_error (a, EBB_AGENT_ERR_NOT_FOUND);
      if (id && !ebb_id_is_valid (id, EBB_AGENT_ID_MAX))
        ebb_http_error (resp, 400, "bad_request", "task id must match [A-Za-z0-9._-]{1,64}");
      else
        ebb_http_error (resp, 404, "not_found", "no task %s", id ? id : "");
    }
  return t;
}

/* Answers a repeated request_id with its first answer. Returns true when it answered. */
static bool
replay (ebb_agent *a, ebb_http_request *req, ebb_http_response *resp, const char *rid,
        const char *key)
{
  if (!rid)
    return false;
  const ebb_agent_reply *r = ebb_agent_idem_find (a->idem, rid);
  if (!r)
    {
      for (size_t i = 0; i < a->n_tasks; i++)
        if (a->tasks[i]->pending && a->tasks[i]->pending->request_id
            && strcmp (a->tasks[i]->pending->request_id, rid) == 0)
          {
            ebb_http_error (resp, 409, "in_progress", "request %s is still in progress", rid);
            return true;
          }
      return false;
    }
  (void)req;
  if (strcmp (r->key, key) != 0)
    {
      ebb_http_error (resp, 409, "request_id_reused", "request_id %s was used for %s", rid, r->key);
      return true;
    }
  json_object *o = ebb_json_parse (r->body, strlen (r->body), 0, NULL);
  ebb_http_reply_json (resp, r->status, o);
  ebb_http_reply_header (resp, "Idempotent-Replayed", "true");
  return true;
}

static char *
req_key (ebb_http_request *req)
{
  return ebb_xasprintf ("%s %s", ebb_http_request_method (req), ebb_http_request_path (req));
}

static ebb_agent_pending *
pending_new (ebb_http_request *req, const char *rid, unsigned ok_status)
{
  ebb_agent_pending *p = ebb_xcalloc (1, sizeof *p);
  p->request_id = rid ? ebb_xstrdup (rid) : NULL;
  p->key = req_key (req);
  p->ok_status = ok_status;
  return p;
}

/* Answers synchronously through the pending machinery (records the request id). */
static int
answer_now (ebb_agent *a, ebb_agent_task *t, ebb_http_request *req, ebb_http_response *resp,
            const char *rid, unsigned status)
{
  ebb_agent_pending *p = ebb_xcalloc (1, sizeof *p);
  p->request_id = rid ? ebb_xstrdup (rid) : NULL;
  p->key = req_key (req);
  ebb_agent_pending_finish (a, t, p, status, NULL, NULL);
  ebb_http_reply_json (resp, status, ebb_agent_task_to_json (t));
  return EBB_HTTP_REPLIED;
}

static bool
refuse_stopping (ebb_agent *a, ebb_http_response *resp)
{
  if (!a->stopping)
    return false;
  ebb_http_error (resp, 503, "unavailable", "the agent is shutting down");
  return true;
}

/* Admits a call of leader epoch (0: none; doc/ha.md "Fencing the agents"): a lower epoch than
 * the highest seen is answered 409 stale_leader, a higher one is journaled before the call
 * acts. Returns true to go on, false when the request is answered already. */
static bool
admit_epoch (ebb_agent *a, ebb_http_response *resp, uint64_t epoch)
{
  cleanup_error ebb_error *err = NULL;
  int r = ebb_agent_fence_admit (a->state_fd, &a->fence, epoch, &err);
  if (r < 0)
    {
      /* Not journaled: acting now would forget the epoch at the next restart. */
      ebb_agent_count_error (a, EBB_AGENT_ERR_JOURNAL);
      ebb_http_error (resp, 500, "internal", "%s", ebb_error_msg (&err));
      return false;
    }
  if (r == EBB_AGENT_FENCE_REFUSED)
    {
      ebb_agent_count_error (a, EBB_AGENT_ERR_CONFLICT);
      ebb_http_error (resp, 409, "stale_leader", "leader epoch %llu is below epoch %llu",
                      (unsigned long long)epoch, (unsigned long long)a->fence.epoch);
      return false;
    }
  if (r == EBB_AGENT_FENCE_RAISED)
    ebb_log_notice ("leader epoch raised to %llu", (unsigned long long)epoch);
  return true;
}

/* The Ebb-Leader-Epoch header of a mutating call. A call without it is an operator's (over
 * the unix socket, or a controller without HA): accepted and counted as unfenced, the epoch
 * unchanged. Returns true to go on. */
static bool
fence_call (ebb_agent *a, ebb_http_request *req, ebb_http_response *resp)
{
  cleanup_error ebb_error *err = NULL;
  const char *h = ebb_http_request_header (req, EBB_AGENT_EPOCH_HEADER);
  uint64_t epoch = 0;
  if (h && ebb_agent_fence_parse (h, &epoch, &err) < 0)
    {
      reply_err (a, resp, EBB_EPARSE, &err);
      return false;
    }
  return admit_epoch (a, resp, epoch);
}

/* Parses the body (once) into *body (NULL for an empty body; the caller puts it). Returns
 * true to go on, false when the request is answered already. */
static bool
parse_body (ebb_agent *a, ebb_http_request *req, ebb_http_response *resp, json_object **body)
{
  cleanup_error ebb_error *err = NULL;
  *body = NULL;
  if (ebb_http_request_body_json (req, 0, body, &err) < 0)
    {
      reply_err (a, resp, EBB_EPARSE, &err);
      return false;
    }
  return true;
}

/* What every mutating handler does first: refuse while stopping, fence the call by its leader
 * epoch, parse the body (once). Returns true to go on with *body (NULL for an empty body; the
 * caller puts it), false when the request is answered already. */
static bool
begin (ebb_agent *a, ebb_http_request *req, ebb_http_response *resp, json_object **body)
{
  *body = NULL;
  if (refuse_stopping (a, resp) || !fence_call (a, req, resp))
    return false;
  return parse_body (a, req, resp, body);
}

static int
h_health (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_agent *a = ud;
  (void)req;
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "status", a->stopping ? "stopping" : "ok");
  ebb_json_add_uint64 (o, "tasks", a->n_tasks);
  json_object_object_add (o, "controller", ebb_agent_heartbeat_health (a));
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static int
h_node (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)req;
  ebb_http_reply_json (resp, 200, ebb_agent_node_report (ud));
  return EBB_HTTP_REPLIED;
}

static int
h_metrics (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)req;
  cleanup_free char *text = ebb_agent_metrics_text (ud);
  ebb_http_reply_text (resp, 200, "text/plain; version=0.0.4; charset=utf-8", text);
  return EBB_HTTP_REPLIED;
}

/* Answers 200 with head (an object's opening members, ending in a comma or "{") followed by
 * "tasks": every task. Concatenated cached texts: no JSON tree per request for hundreds of
 * tasks. */
static int
reply_tasks (ebb_agent *a, ebb_http_response *resp, const char *head)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    {
      ebb_http_error (resp, 500, "internal", "out of memory");
      return EBB_HTTP_REPLIED;
    }
  fprintf (f, "%s\"tasks\":[", head);
  for (size_t i = 0; i < a->n_tasks; i++)
    {
      size_t n;
      const char *text = ebb_agent_task_json_text (a->tasks[i], &n);
      if (i)
        fputc (',', f);
      fwrite (text, 1, n, f);
    }
  fputs ("]}", f);
  fclose (f);
  ebb_http_reply_text (resp, 200, "application/json", buf);
  free (buf);
  return EBB_HTTP_REPLIED;
}

static int
h_list (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)req;
  return reply_tasks (ud, resp, "{");
}

/* POST /v1/fence {"epoch":E,"leader":URL}: a new leader raises this agent's epoch (journaled
 * first) and reads its tasks in the same round trip, so fence and reconcile are one call; its
 * URL (optional) is where the heartbeats go from now on. E below the
 * agent's epoch: 409 stale_leader; E equal: a retried fence, answered again. */
static int
h_fence (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_agent *a = ud;
  cleanup_error ebb_error *err = NULL;
  json_object *body;
  /* Not begin(): the epoch is the body's, admitted once below. */
  if (refuse_stopping (a, resp) || !parse_body (a, req, resp, &body))
    return EBB_HTTP_REPLIED;
  uint64_t epoch = 0;
  const char *leader = NULL;
  int r = ebb_json_get_uint64 (body, "epoch", 1, INT64_MAX, &epoch, &err);
  if (r == 0)
    ebb_error_set (&err, EBB_EPARSE, "epoch is required");
  if (r <= 0 || ebb_json_get_string (body, "leader", 4096, NULL, &leader, &err) < 0)
    {
      json_object_put (body);
      return reply_err (a, resp, EBB_EPARSE, &err);
    }
  cleanup_free char *leader_url = leader ? ebb_xstrdup (leader) : NULL;
  json_object_put (body);
  if (!admit_epoch (a, resp, epoch))
    return EBB_HTTP_REPLIED;
  if (epoch == a->fence.epoch) /* the leader at our epoch says where it is */
    ebb_agent_heartbeat_follow (a, leader_url);
  json_object *node = json_object_new_string (a->node_name ? a->node_name : "");
  cleanup_free char *head
      = ebb_xasprintf ("{\"epoch\":%llu,\"node\":%s,", (unsigned long long)a->fence.epoch,
                       json_object_to_json_string_ext (node, JSON_C_TO_STRING_PLAIN
                                                                 | JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put (node);
  return reply_tasks (a, resp, head);
}

static int
h_get (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_agent_task *t = find_or_404 (ud, req, resp);
  ebb_agent_refresh_task (ud, t);
  if (t)
    ebb_http_reply_json (resp, 200, ebb_agent_task_to_json (t));
  return EBB_HTTP_REPLIED;
}

static int
do_launch (ebb_agent *a, ebb_http_request *req, ebb_http_response *resp,
           const ebb_agent_launch_req *lr, ebb_error **err)
{
  cleanup_free char *key = req_key (req);
  if (replay (a, req, resp, lr->request_id, key))
    return EBB_HTTP_REPLIED;
  if (ebb_agent_find (a, lr->id))
    {
      ebb_error_set (err, EEXIST, "task %s exists", lr->id);
      return reply_err (a, resp, EEXIST, err);
    }
  ebb_agent_task *t = NULL;
  int r = ebb_agent_launch (a, lr, &t, err);
  if (r < 0)
    {
      ebb_agent_count_error (a, EBB_AGENT_ERR_LAUNCH);
      int code = -r;
      if (code == ENOENT || code == EACCES || code == ENOEXEC || code == ENOTDIR)
        {
          ebb_http_error (resp, 422, "launch_failed", "%s", ebb_error_msg (err));
          return EBB_HTTP_REPLIED;
        }
      return reply_err (a, resp, code, err);
    }
  ebb_agent_add_task (a, t);
  a->m.launches++;
  ebb_log_info ("launched task %s (pid %d) in %s", t->id, (int)t->pid, t->cgroup);
  return answer_now (a, t, req, resp, lr->request_id, 201);
}

static int
do_adopt (ebb_agent *a, ebb_http_request *req, ebb_http_response *resp,
          const ebb_agent_adopt_req *ar, ebb_error **err)
{
  cleanup_free char *key = req_key (req);
  if (replay (a, req, resp, ar->request_id, key))
    return EBB_HTTP_REPLIED;
  ebb_agent_task *t = NULL;
  int r;
  if (ar->container)
    {
      /* The engine answers later (never inside this call): defer first. */
      ebb_agent_pending *p = pending_new (req, ar->request_id, 201);
      p->d = ebb_http_defer (req);
      if ((r = ebb_agent_adopt_container_start (a, ar, p, err)) < 0)
        {
          ebb_agent_pending_finish (a, NULL, p, 422, "unsupported", ebb_error_msg (err));
          return EBB_HTTP_DEFERRED;
        }
      return EBB_HTTP_DEFERRED;
    }
  r = ebb_agent_adopt_cgroup (a, ar, &t, err);
  if (r < 0)
    return reply_err (a, resp, -r, err);
  if ((r = ebb_agent_journal (a, t, err)) < 0)
    {
      ebb_agent_task_destroy (t);
      return reply_err (a, resp, -r, err);
    }
  ebb_agent_add_task (a, t);
  a->m.adoptions++;
  ebb_log_info ("adopted %s as task %s", t->cgroup, t->id);
  return answer_now (a, t, req, resp, ar->request_id, 201);
}

/* Launch and adopt: parse the body (a launch or an adopt request), then hand over. */
static int
new_task (ebb_http_request *req, ebb_http_response *resp, ebb_agent *a, bool adopt)
{
  cleanup_error ebb_error *err = NULL;
  json_object *body;
  if (!begin (a, req, resp, &body))
    return EBB_HTTP_REPLIED;
  ebb_agent_launch_req lr;
  ebb_agent_adopt_req ar;
  int r
      = adopt ? ebb_agent_parse_adopt (body, &ar, &err) : ebb_agent_parse_launch (body, &lr, &err);
  json_object_put (body);
  if (r < 0)
    r = reply_err (a, resp, EBB_EPARSE, &err);
  else
    r = adopt ? do_adopt (a, req, resp, &ar, &err) : do_launch (a, req, resp, &lr, &err);
  if (adopt)
    ebb_agent_adopt_req_clear (&ar);
  else
    ebb_agent_launch_req_clear (&lr);
  return r;
}

static int
h_launch (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return new_task (req, resp, ud, false);
}

static int
h_adopt (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return new_task (req, resp, ud, true);
}

static bool
busy (ebb_agent *a, ebb_agent_task *t, ebb_http_response *resp)
{
  if (t->state == EBB_AGENT_SUSPENDING || t->state == EBB_AGENT_RESUMING || t->deleting
      || (t->cg && ebb_cg_pool_busy (a->pool, t->cg)))
    {
      ebb_agent_count_error (a, EBB_AGENT_ERR_CONFLICT);
      ebb_http_error (resp, 409, "busy", "task %s is %s", t->id,
                      t->deleting ? "being deleted" : ebb_agent_state_name (t->state));
      return true;
    }
  if (t->state == EBB_AGENT_EXITED)
    {
      ebb_agent_count_error (a, EBB_AGENT_ERR_CONFLICT);
      ebb_http_error (resp, 409, "exited", "task %s has exited", t->id);
      return true;
    }
  return false;
}

/* A command for an older (or another) generation of the task than the one running here is
 * refused: the controller relaunched it meanwhile, or its view is stale. */
static bool
stale (ebb_agent *a, ebb_agent_task *t, uint64_t generation, ebb_http_response *resp)
{
  if (generation == 0 || generation == t->generation)
    return false;
  ebb_agent_count_error (a, EBB_AGENT_ERR_CONFLICT);
  ebb_http_error (resp, 409, "stale_generation",
                  "task %s is generation %llu, the request names generation %llu", t->id,
                  (unsigned long long)t->generation, (unsigned long long)generation);
  return true;
}

/* After a suspend or resume was handed to the pool (r its result): on failure frees p and
 * answers the error; else defers the request (the pool answers from the loop later, never
 * inside the call) and notes when the operation started. */
static int
op_started (ebb_agent *a, ebb_agent_task *t, ebb_http_request *req, ebb_http_response *resp,
            ebb_agent_pending *p, int r, uint64_t t0, ebb_error **err)
{
  if (r < 0)
    {
      ebb_agent_pending_free (p);
      return reply_err (a, resp, -r, err);
    }
  p->d = ebb_http_defer (req);
  t->op_start_usec = t0;
  return EBB_HTTP_DEFERRED;
}

static int
do_suspend (ebb_agent *a, ebb_agent_task *t, ebb_http_request *req, ebb_http_response *resp,
            const ebb_agent_suspend_req *sr, ebb_error **err)
{
  cleanup_free char *key = req_key (req);
  if (replay (a, req, resp, sr->request_id, key) || stale (a, t, sr->generation, resp)
      || busy (a, t, resp))
    return EBB_HTTP_REPLIED;
  if (t->state == EBB_AGENT_SUSPENDED && !sr->graceful)
    return answer_now (a, t, req, resp, sr->request_id, 200); /* already there */
  uint64_t t0 = ebb_now_usec ();
  ebb_agent_pending *p = pending_new (req, sr->request_id, 200);
  ebb_agent_step step
      = { sr->cpu_millis, sr->memory_bytes, sr->booked.cpu_millis, sr->booked.memory_bytes };
  int r = ebb_agent_op_suspend (a, t, sr->graceful ? &step : NULL, p, err);
  return op_started (a, t, req, resp, p, r, t0, err);
}

static int
h_suspend (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_agent *a = ud;
  cleanup_error ebb_error *err = NULL;
  json_object *body;
  ebb_agent_task *t = find_or_404 (a, req, resp);
  if (!t || !begin (a, req, resp, &body))
    return EBB_HTTP_REPLIED;
  ebb_agent_suspend_req sr;
  int r = ebb_agent_parse_suspend (body, &sr, &err);
  json_object_put (body);
  r = r < 0 ? reply_err (a, resp, EBB_EPARSE, &err) : do_suspend (a, t, req, resp, &sr, &err);
  ebb_agent_suspend_req_clear (&sr);
  return r;
}

/* The body of resume and delete is optional; request_id may also come as ?request_id=. */
static int
parse_simple (ebb_http_request *req, json_object *body, ebb_agent_simple_req *sr, ebb_error **err)
{
  int r = ebb_agent_parse_simple (body, sr, err);
  const char *q = ebb_http_request_query (req, "request_id");
  if (r >= 0 && q && !sr->request_id)
    {
      if (!ebb_id_is_valid (q, 128))
        return ebb_error_set (err, EBB_EPARSE, "request_id must match [A-Za-z0-9._-]{1,128}");
      sr->request_id = ebb_xstrdup (q);
    }
  return r;
}

static int
do_resume (ebb_agent *a, ebb_agent_task *t, ebb_http_request *req, ebb_http_response *resp,
           const ebb_agent_simple_req *sr, ebb_error **err)
{
  cleanup_free char *key = req_key (req);
  if (replay (a, req, resp, sr->request_id, key) || stale (a, t, sr->generation, resp)
      || busy (a, t, resp))
    return EBB_HTTP_REPLIED;
  if (t->state == EBB_AGENT_RUNNING)
    return answer_now (a, t, req, resp, sr->request_id, 200); /* nothing to resume */
  uint64_t t0 = ebb_now_usec ();
  ebb_agent_pending *p = pending_new (req, sr->request_id, 200);
  return op_started (a, t, req, resp, p, ebb_agent_op_resume (a, t, p, err), t0, err);
}

typedef int (*simple_op_fn) (ebb_agent *a, ebb_agent_task *t, ebb_http_request *req,
                             ebb_http_response *resp, const ebb_agent_simple_req *sr,
                             ebb_error **err);

/* Resume and delete take the same request body (request_id and little else): find the task,
 * parse the body, then hand over to the operation. */
static int
simple_task_op (ebb_http_request *req, ebb_http_response *resp, ebb_agent *a, simple_op_fn op)
{
  cleanup_error ebb_error *err = NULL;
  json_object *body;
  ebb_agent_task *t = find_or_404 (a, req, resp);
  if (!t || !begin (a, req, resp, &body))
    return EBB_HTTP_REPLIED;
  ebb_agent_simple_req sr;
  int r = parse_simple (req, body, &sr, &err);
  json_object_put (body);
  r = r < 0 ? reply_err (a, resp, EBB_EPARSE, &err) : op (a, t, req, resp, &sr, &err);
  ebb_agent_simple_req_clear (&sr);
  return r;
}

static int
h_resume (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return simple_task_op (req, resp, ud, do_resume);
}

static int
do_delete (ebb_agent *a, ebb_agent_task *t, ebb_http_request *req, ebb_http_response *resp,
           const ebb_agent_simple_req *sr, ebb_error **err)
{
  cleanup_free char *key = req_key (req);
  if (replay (a, req, resp, sr->request_id, key) || stale (a, t, sr->generation, resp))
    return EBB_HTTP_REPLIED;
  if (t->state == EBB_AGENT_EXITED)
    {
      /* Deleting an exited task forgets it (its id may be used again); its output is kept
       * for a while (agent/logs-kept.c). */
      ebb_http_reply_json (resp, 200, ebb_agent_task_to_json (t));
      ebb_agent_journal_remove (a->tasks_fd, t->id, NULL);
      if (t->source == EBB_AGENT_SRC_LAUNCHED)
        ebb_agent_logs_keep (a, t->id);
      ebb_agent_drop_task (a, t);
      return EBB_HTTP_REPLIED;
    }
  if (t->state == EBB_AGENT_SUSPENDING || t->state == EBB_AGENT_RESUMING || t->deleting)
    return busy (a, t, resp), EBB_HTTP_REPLIED;
  uint64_t grace = sr->grace_millis ? sr->grace_millis * 1000 : a->cfg->stop_grace_usec;
  ebb_agent_pending *p = pending_new (req, sr->request_id, 200);
  bool adopted_now = t->source != EBB_AGENT_SRC_LAUNCHED && t->state != EBB_AGENT_SUSPENDED;
  if (adopted_now)
    p->d = ebb_http_defer (req); /* answered inside ebb_agent_op_delete() */
  int r = ebb_agent_op_delete (a, t, grace, p, err);
  if (r < 0)
    {
      if (adopted_now)
        return EBB_HTTP_DEFERRED;
      ebb_agent_pending_free (p);
      return reply_err (a, resp, -r, err);
    }
  if (!adopted_now)
    p->d = ebb_http_defer (req);
  return EBB_HTTP_DEFERRED;
}

static int
h_delete (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return simple_task_op (req, resp, ud, do_delete);
}

static int
h_logs (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_agent *a = ud;
  const char *id = ebb_http_request_capture (req, "id");
  if (id && !ebb_agent_find (a, id) && ebb_agent_logs_kept (a, id))
    return ebb_agent_logs_reply_kept (a, id, req, resp); /* a finished task, forgotten */
  ebb_agent_task *t = find_or_404 (a, req, resp);
  return t ? ebb_agent_logs_reply (a, t, req, resp) : EBB_HTTP_REPLIED;
}

/* DELETE /v1/tasks/ID/logs: a finished task's kept log goes (the controller removed its job
 * from its store); 404 when none is kept, 409 while the task is in the table (its log is
 * still its own). */
static int
h_logs_delete (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_agent *a = ud;
  const char *id = ebb_http_request_capture (req, "id");
  if (!id || !ebb_id_is_valid (id, EBB_AGENT_ID_MAX))
    ebb_http_error (resp, 400, "bad_request", "task id must match [A-Za-z0-9._-]{1,64}");
  else if (ebb_agent_find (a, id))
    ebb_http_error (resp, 409, "conflict", "task %s is not forgotten: its log is in use", id);
  else if (!ebb_agent_logs_drop (a, id))
    ebb_http_error (resp, 404, "not_found", "no kept log of task %s", id);
  else
    {
      json_object *o = json_object_new_object ();
      json_object_object_add (o, "id", json_object_new_string (id));
      json_object_object_add (o, "removed", json_object_new_boolean (1));
      ebb_http_reply_json (resp, 200, o);
    }
  return EBB_HTTP_REPLIED;
}

static const ebb_http_route routes[] = {
  { "GET", "/v1/health", h_health, 0 },
  { "GET", "/v1/node", h_node, 0 },
  { "GET", "/metrics", h_metrics, 0 },
  { "GET", "/v1/tasks", h_list, 0 },
  { "POST", "/v1/tasks", h_launch, 0 },
  { "POST", "/v1/tasks/adopt", h_adopt, 0 },
  { "GET", "/v1/tasks/{id}", h_get, 0 },
  { "DELETE", "/v1/tasks/{id}", h_delete, 0 },
  { "GET", "/v1/tasks/{id}/logs", h_logs, 0 },
  { "DELETE", "/v1/tasks/{id}/logs", h_logs_delete, 0 },
  { "POST", "/v1/tasks/{id}/suspend", h_suspend, 0 },
  { "POST", "/v1/tasks/{id}/resume", h_resume, 0 },
  { "POST", "/v1/fence", h_fence, 0 },
};

/* Starts the HTTP server on every --listen address. */
int
ebb_agent_http_start (ebb_agent *a, ebb_error **err)
{
  /* The epoch first: no call is admitted before the agent knows which leaders are deposed. */
  int r = ebb_agent_fence_load (a->state_fd, &a->fence, err);
  if (r < 0)
    return ebb_error_wrap (err, "leader epoch");
  if (a->fence.epoch)
    ebb_log_notice ("leader epoch %llu", (unsigned long long)a->fence.epoch);
  ebb_http_server_config hc = { 0 };
  hc.listen = (const char *const *)a->cfg->listen;
  hc.routes = routes;
  hc.n_routes = EBB_ARRAY_SIZE (routes);
  hc.userdata = a;
  hc.bearer_token = a->token;
  hc.unix_group = a->cfg->socket_group; /* sockets are 0660: root and this group */
  hc.tls_cert_file = a->cfg->tls_cert;  /* https on TCP listeners; unix sockets stay plain */
  hc.tls_key_file = a->cfg->tls_key;
  hc.max_body_bytes = EBB_AGENT_MAX_BODY;
  a->http = ebb_http_server_new (a->event, &hc, err);
  if (!a->http)
    return ebb_error_wrap (err, "listen");
  for (size_t i = 0; i < ebb_http_server_n_listeners (a->http); i++)
    ebb_log_notice ("listening on %s", ebb_http_server_base_url (a->http, i));
  return 0;
}
