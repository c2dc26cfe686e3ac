/* GET /v1/jobs/{id}/tasks/{k}/logs?tail=N&follow=1: a task's output, streamed from its
 * node's agent (GET /v1/tasks/AGENT-ID/logs) through the controller, so an operator needs
 * neither the node nor its socket. The agent's body goes to the client as it comes, through
 * a buffer of at most EBB_CTL_LOG_BUFFER_BYTES: a client that reads slower than the task
 * writes is cut off rather than let the controller's memory grow. At most
 * --log-followers streams with follow at once (each holds a connection to an
 * agent for as long as its task runs); the calls go through a client of their own, so they
 * never wait behind (or hold up) the scheduler's agent calls. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "controller/outbox.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "lib/util.h"

typedef struct log_proxy
{
  ebb_ctl *c;
  ebb_http_deferred *d; /* until the answer's head is given */
  ebb_http_stream *st;  /* the body under way; NULL before it and once the client left */
  char *buf;
  size_t len, off;
  bool follow;
  bool upstream_done, client_gone, cut, cut_told;
} log_proxy;

static const char cut_note[] = "\n[ebb-controller: log stream cut: read slower than the task "
                               "wrote (more than 1 MiB behind)]\n";

static void
proxy_free (log_proxy *p)
{
  if (p->follow)
    p->c->log_followers--;
  free (p->buf);
  free (p);
}

static ssize_t
proxy_read (void *ud, char *buf, size_t max_bytes)
{
  log_proxy *p = ud;
  size_t n = p->len - p->off < max_bytes ? p->len - p->off : max_bytes;
  if (n == 0 && p->upstream_done && p->cut && !p->cut_told)
    {
      /* The reader learns that its copy is incomplete, in the only place it looks. */
      p->cut_told = true;
      int w = snprintf (buf, max_bytes, "%s", cut_note);
      return w < 0 ? EBB_HTTP_STREAM_END
                   : (ssize_t)((size_t)w < max_bytes ? (size_t)w : max_bytes - 1);
    }
  if (n == 0)
    return p->upstream_done ? EBB_HTTP_STREAM_END : 0;
  memcpy (buf, p->buf + p->off, n);
  p->off += n;
  if (p->off == p->len)
    p->off = p->len = 0;
  return (ssize_t)n;
}

/* The client's answer is over (body sent or client gone). */
static void
proxy_stream_done (void *ud)
{
  log_proxy *p = ud;
  p->st = NULL;
  p->client_gone = true;
  if (p->upstream_done)
    proxy_free (p);
}

/* The first bytes of a 2xx answer of the agent: the client's answer starts. */
static void
proxy_start (log_proxy *p)
{
  ebb_http_response *resp = ebb_http_deferred_response (p->d);
  p->st = ebb_http_reply_stream (resp, 200, "text/plain; charset=utf-8", 0, proxy_read,
                                 proxy_stream_done, p);
  ebb_http_deferred_complete (p->d);
  p->d = NULL;
}

/* The agent's body as it arrives (2xx only: lib/http-client.c). */
static bool
proxy_sink (const char *data, size_t len, void *ud)
{
  log_proxy *p = ud;
  if (p->client_gone)
    return false; /* ends the agent's stream */
  if (p->d)
    proxy_start (p);
  if (p->client_gone)
    return false;
  if (len > EBB_CTL_LOG_BUFFER_BYTES - (p->len - p->off))
    {
      p->cut = true;
      return false;
    }
  if (p->off > 0)
    {
      memmove (p->buf, p->buf + p->off, p->len - p->off);
      p->len -= p->off;
      p->off = 0;
    }
  p->buf = ebb_xrealloc (p->buf, p->len + len);
  memcpy (p->buf + p->len, data, len);
  p->len += len;
  if (p->st)
    ebb_http_stream_wake (p->st);
  return true;
}

/* The agent's answer ended: its error, an empty log, or the end of the stream. */
static void
proxy_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  log_proxy *p = ud;
  p->upstream_done = true;
  if (p->cut)
    ebb_log_warn ("a log stream was cut: its client reads slower than the task writes");
  if (p->d)
    {
      ebb_http_response *resp = ebb_http_deferred_response (p->d);
      if (err)
        ebb_http_error (resp, 502, "bad_gateway", "the task's agent: %s", err->msg);
      else if (res->status >= 200 && res->status <= 299)
        ebb_http_reply_text (resp, 200, "text/plain; charset=utf-8", "");
      else
        ebb_http_reply_text (resp, (unsigned)res->status,
                             res->content_type ? res->content_type : "application/json",
                             res->body ? res->body : "");
      ebb_http_deferred_complete (p->d);
      p->d = NULL;
    }
  if (p->st)
    ebb_http_stream_wake (p->st); /* proxy_read ends the body */
  else
    proxy_free (p);
}

/* ?tail=N (0..EBB_CTL_LOG_MAX_TAIL) and ?follow=1|0 into the agent's query. Returns 0, or
 * -1 after answering 400. */
static int
log_query (ebb_ctl *c, ebb_http_request *req, ebb_http_response *resp, char *q, size_t qsize,
           bool *follow)
{
  static const char *const args[] = { "tail", "follow", NULL };
  cleanup_error ebb_error *err = NULL;
  uint64_t tail = 0;
  const char *f = ebb_http_request_query (req, "follow");
  *follow = false;
  if (ebb_http_request_query_check (req, args, &err) < 0
      || ebb_http_request_query_u64 (req, "tail", 0, EBB_CTL_LOG_MAX_TAIL, &tail, &err) < 0
      || (f && ebb_conf_parse_bool (f, follow) < 0
          && ebb_error_set (&err, EBB_EPARSE, "follow must be 1 or 0 (true or false)") < 0))
    {
      c->m.bad_requests++;
      ebb_http_error (resp, 400, "bad_request", "%s", ebb_error_msg (&err));
      return -1;
    }
  if (ebb_http_request_query (req, "tail"))
    snprintf (q, qsize, "?tail=%" PRIu64 "%s", tail, *follow ? "&follow=1" : "");
  else
    snprintf (q, qsize, "%s", *follow ? "?follow=1" : "");
  return 0;
}

/* Task {k} of job j, on a node, or NULL after answering 404 or 409. */
static ebb_ctl_task *
task_or_answer (ebb_ctl *c, ebb_ctl_job *j, ebb_http_request *req, ebb_http_response *resp)
{
  const char *s = ebb_http_request_capture (req, "k");
  char *end = NULL;
  unsigned long k = s && *s >= '0' && *s <= '9' && strlen (s) <= 10 ? strtoul (s, &end, 10) : 0;
  if (!end || *end || k >= j->ntasks)
    {
      ebb_http_error (resp, 404, "not_found", "job %" PRIu64 " has no task %s", j->id, s ? s : "");
      return NULL;
    }
  ebb_ctl_task *t = &j->tasks[k];
  if (t->node < 0 || (size_t)t->node >= c->n_nodes || !c->nodes[t->node]->url)
    {
      ebb_http_error (resp, 409, "conflict", "task %" PRIu64 "-%lu has not started on a node (%s)",
                      j->id, k, ebb_ctl_task_state_name (t->state));
      return NULL;
    }
  return t;
}

/* Starts the agent's call for t; the answer follows from proxy_done and proxy_sink. */
static int
proxy_begin (ebb_ctl *c, ebb_ctl_task *t, const char *query, bool follow, ebb_http_request *req,
             ebb_http_response *resp)
{
  cleanup_error ebb_error *err = NULL;
  cleanup_free char *aid = ebb_ctl_task_agent_id (t->job->id, t->idx, t->generation);
  cleanup_free char *path = ebb_xasprintf ("/v1/tasks/%s/logs%s", aid, query);
  log_proxy *p = ebb_xcalloc (1, sizeof *p);
  *p = (log_proxy){ .c = c, .follow = follow };
  c->log_followers += follow;
  if (ebb_ctl_outbox_read (c, t, path, follow, proxy_sink, proxy_done, p, &err) < 0)
    {
      proxy_free (p);
      ebb_http_error (resp, 502, "bad_gateway", "the task's agent: %s", ebb_error_msg (&err));
      return EBB_HTTP_REPLIED;
    }
  p->d = ebb_http_defer (req);
  return EBB_HTTP_DEFERRED;
}

/* See api.h. */
int
ebb_ctl_api_task_logs (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  ebb_ctl_job *loaded = NULL;
  ebb_ctl_job *j = ebb_ctl_api_job_or_404 (c, req, resp, &loaded);
  ebb_ctl_task *t = j ? task_or_answer (c, j, req, resp) : NULL;
  char query[64];
  bool follow = false;
  int r = EBB_HTTP_REPLIED;
  if (t && log_query (c, req, resp, query, sizeof query, &follow) == 0)
    {
      if (follow && c->log_followers >= c->cfg->log_followers)
        {
          ebb_http_reply_header (resp, "Retry-After", "5");
          ebb_http_error (resp, 429, "too_many_requests",
                          "%u logs are followed already (--log-followers)", c->log_followers);
        }
      else
        r = proxy_begin (c, t, query, follow, req, resp);
    }
  ebb_ctl_job_free (loaded);
  return r;
}
