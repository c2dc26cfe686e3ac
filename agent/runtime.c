/* A Docker or Podman client: blocking inspect/list for adoption, and the followed /events
 * stream with re-list on every (re)connect, all over the engine's unix socket.
 *
 * The stream is one curl easy handle in a curl multi of its own, driven by sd-event through
 * lib/curl-event.c (lib's http client has no streaming mode). Inspects and lists
 * triggered by events go through lib's non-blocking ebb_http_client on the same loop.
 *
 * What is known about each container of ours lives in a small list (tracked), so that events
 * are reported once per change: STARTED when a container is first seen running or its PID
 * changed, DIED when a running one stops, REMOVED when it goes away. */
#include "config.h"

#include <curl/curl.h>
#include <string.h>

#include "agent/runtime.h"
#include "lib/curl-event.h"
#include "lib/http-client.h"
#include "lib/log.h"
#include "lib/time.h"

#define API "/v1.40"
#define EVENTS_PATH                                                                                \
  API "/events?filters=%7B%22type%22%3A%5B%22container%22%5D%7D" /* {"type":["container"]} */

typedef struct tracked
{
  ebb_rt_info info;
  uint64_t confirmed_usec; /* when the inspect that produced info was started */
  bool followed;           /* no ebb labels, but inspected by the agent (adopted by id) */
  struct tracked *next;
} tracked;

/* An inspect in flight for one container; further events for it set `again`. */
typedef struct pending
{
  char id[65];
  bool again, want_update;
  struct pending *next;
} pending;

struct ebb_rt
{
  sd_event *event;
  ebb_rt_kind kind;
  char *socket_path;
  char *base; /* "unix:PATH" for lib/http-client */
  ebb_rt_event_fn fn;
  void *userdata;
  ebb_rt_options opts;
  /* The event stream. */
  ebb_curl_event *multi;
  CURL *easy;
  sd_event_source *retry_timer;
  ebb_rt_stream *stream;
  char errbuf[CURL_ERROR_SIZE];
  bool connected;
  bool stream_failed; /* the splitter refused the stream: abort the transfer */
  uint64_t backoff_usec;
  /* Requests triggered by events. */
  ebb_http_client *http;
  pending *pending;
  bool freeing;
  tracked *tracked;
};

static void stream_schedule (ebb_rt *rt, uint64_t delay_usec);

/* ---------------------------------------------------------------------------------- */
/* Reporting                                                                            */

static void
emit (ebb_rt *rt, ebb_rt_event_type type, const ebb_rt_info *info, int exit_code,
      const char *detail)
{
  ebb_rt_event ev = {
    .type = type,
    .id = info ? info->id : NULL,
    .info = info,
    .exit_code = exit_code,
    .detail = detail,
  };
  if (rt->fn)
    rt->fn (rt, &ev, rt->userdata);
}

static tracked *
tracked_find (ebb_rt *rt, const char *id)
{
  for (tracked *t = rt->tracked; t; t = t->next)
    if (strcmp (t->info.id, id) == 0)
      return t;
  return NULL;
}

static void
tracked_drop (ebb_rt *rt, tracked *t)
{
  for (tracked **pp = &rt->tracked; *pp; pp = &(*pp)->next)
    if (*pp == t)
      {
        *pp = t->next;
        break;
      }
  ebb_rt_info_clear (&t->info);
  free (t);
}

/* The container is gone from the engine: DIED (if it was running) then REMOVED. */
static void
report_removed (ebb_rt *rt, tracked *t, int exit_code)
{
  if (t->info.running)
    {
      t->info.running = false;
      t->info.pid = 0;
      t->info.exit_code = exit_code;
      emit (rt, EBB_RT_CONTAINER_DIED, &t->info, exit_code, NULL);
    }
  emit (rt, EBB_RT_CONTAINER_REMOVED, &t->info, exit_code, NULL);
  tracked_drop (rt, t);
}

/* Resolves the cgroups of a running container; a process that just exited leaves them empty
 * (the die event follows). */
static void
resolve_cgroups (ebb_rt *rt, ebb_rt_info *info)
{
  cleanup_error ebb_error *err = NULL;
  ebb_rt_cgroups_clear (&info->cgroups);
  if (!info->running || info->pid <= 0)
    return;
  if (ebb_rt_read_proc_cgroup (rt->opts.proc_root, info->pid, &info->cgroups, &err) < 0
      && ebb_error_code (&err) != EBB_EGONE)
    ebb_log_warn ("%s container %.12s: %s", ebb_rt_kind_name (rt->kind), info->id,
                  ebb_error_msg (&err));
}

/* Merges a fresh inspect result (owned; consumed) into what is known and reports changes. */
static void
apply_inspect (ebb_rt *rt, ebb_rt_info *info, uint64_t started_usec, bool want_update)
{
  tracked *t = tracked_find (rt, info->id);
  if (!info->ours && !(t && t->followed))
    {
      if (t)
        tracked_drop (rt, t);
      ebb_rt_info_clear (info);
      return;
    }
  bool was_running = t && t->info.running;
  pid_t old_pid = t ? t->info.pid : 0;
  if (!t && !info->running)
    {
      ebb_rt_info_clear (info); /* never seen running: nothing to report */
      return;
    }
  if (!t)
    {
      t = ebb_xcalloc (1, sizeof *t);
      t->next = rt->tracked;
      rt->tracked = t;
    }
  ebb_rt_info_clear (&t->info);
  t->info = *info;
  memset (info, 0, sizeof *info);
  t->confirmed_usec = started_usec;
  if (t->info.running && (!was_running || old_pid != t->info.pid))
    emit (rt, EBB_RT_CONTAINER_STARTED, &t->info, -1, NULL);
  else if (t->info.running && want_update)
    emit (rt, EBB_RT_CONTAINER_UPDATED, &t->info, -1, NULL);
  else if (!t->info.running && was_running)
    emit (rt, EBB_RT_CONTAINER_DIED, &t->info, t->info.exit_code, NULL);
}

/* ---------------------------------------------------------------------------------- */
/* Non-blocking inspect and list                                                        */

typedef struct
{
  ebb_rt *rt;
  char id[65]; /* empty for a list */
  uint64_t started_usec;
} request;

static const ebb_http_call_opts *
call_opts (ebb_rt *rt, ebb_http_call_opts *o)
{
  memset (o, 0, sizeof *o);
  o->timeout_ms = rt->opts.request_timeout_ms;
  return o;
}

static pending *
pending_find (ebb_rt *rt, const char *id, pending ***prevp)
{
  for (pending **pp = &rt->pending; *pp; pp = &(*pp)->next)
    if (strcmp ((*pp)->id, id) == 0)
      {
        if (prevp)
          *prevp = pp;
        return *pp;
      }
  return NULL;
}

static void on_inspect_done (ebb_http_result *res, const ebb_error *err, void *userdata);

static void
start_inspect_request (ebb_rt *rt, const char *id)
{
  ebb_http_call_opts o;
  cleanup_error ebb_error *err = NULL;
  request *req = ebb_xcalloc (1, sizeof *req);
  req->rt = rt;
  snprintf (req->id, sizeof req->id, "%s", id);
  req->started_usec = ebb_now_usec ();
  cleanup_free char *path = ebb_xasprintf (API "/containers/%s/json", id);
  if (ebb_http_client_start (rt->http, "GET", rt->base, path, NULL, call_opts (rt, &o),
                             on_inspect_done, req, &err)
      < 0)
    {
      ebb_log_warn ("%s: inspect %.12s: %s", ebb_rt_kind_name (rt->kind), id, ebb_error_msg (&err));
      pending **pp = NULL;
      pending *p = pending_find (rt, id, &pp);
      if (p)
        {
          *pp = p->next;
          free (p);
        }
      free (req);
    }
}

/* Asks for an inspect of id unless one is in flight, in which case that one is repeated
 * when it returns (its answer may predate the event). */
static void
request_inspect (ebb_rt *rt, const char *id, bool want_update)
{
  pending *p = pending_find (rt, id, NULL);
  if (p)
    {
      p->again = true;
      p->want_update |= want_update;
      return;
    }
  p = ebb_xcalloc (1, sizeof *p);
  snprintf (p->id, sizeof p->id, "%s", id);
  p->want_update = want_update;
  p->next = rt->pending;
  rt->pending = p;
  start_inspect_request (rt, id);
}

static void
handle_inspect_result (ebb_rt *rt, request *req, ebb_http_result *res, const ebb_error *err,
                       bool want_update)
{
  const char *kind = ebb_rt_kind_name (rt->kind);
  if (err)
    {
      ebb_log_info ("%s: inspect %.12s: %s", kind, req->id, err->msg);
      return;
    }
  tracked *t = tracked_find (rt, req->id);
  if (res->status == 404)
    {
      if (t)
        report_removed (rt, t, -1);
      return;
    }
  cleanup_error ebb_error *perr = NULL;
  ebb_rt_info info;
  if (res->status != 200 || ebb_rt_parse_inspect (rt->kind, res->json, &info, &perr) < 0)
    {
      ebb_log_warn ("%s: inspect %.12s: HTTP %ld %s", kind, req->id, res->status,
                    perr ? ebb_error_msg (&perr) : "");
      return;
    }
  resolve_cgroups (rt, &info);
  apply_inspect (rt, &info, req->started_usec, want_update);
}

static void
on_inspect_done (ebb_http_result *res, const ebb_error *err, void *userdata)
{
  request *req = userdata;
  ebb_rt *rt = req->rt;
  if (rt->freeing)
    {
      free (req);
      return;
    }
  pending **pp = NULL;
  pending *p = pending_find (rt, req->id, &pp);
  if (p && p->again)
    {
      /* An event arrived meanwhile: this answer may be stale, ask again. */
      p->again = false;
      start_inspect_request (rt, req->id);
      free (req);
      return;
    }
  bool want_update = p && p->want_update;
  if (p)
    {
      *pp = p->next;
      free (p);
    }
  handle_inspect_result (rt, req, res, err, want_update);
  free (req);
}

/* The answer to GET /containers/json?all=1 after a (re)connect: inspect every container of
 * ours, and report those known before that are no longer listed. */
static void
handle_list (ebb_rt *rt, json_object *list, uint64_t started_usec)
{
  size_t n = json_object_array_length (list);
  for (size_t i = 0; i < n; i++)
    {
      ebb_rt_info info;
      if (ebb_rt_parse_list_entry (rt->kind, json_object_array_get_idx (list, i), &info, NULL) < 0)
        continue;
      tracked *t = tracked_find (rt, info.id);
      if (t)
        t->confirmed_usec = started_usec;
      if ((info.ours && info.running) || t)
        request_inspect (rt, info.id, false);
      ebb_rt_info_clear (&info);
    }
  /* Known, confirmed before the list was asked for, and not in it: removed while we were away. */
  tracked *next;
  for (tracked *t = rt->tracked; t; t = next)
    {
      next = t->next;
      if (t->confirmed_usec < started_usec)
        report_removed (rt, t, -1);
    }
}

static void
on_list_done (ebb_http_result *res, const ebb_error *err, void *userdata)
{
  request *req = userdata;
  ebb_rt *rt = req->rt;
  if (!rt->freeing)
    {
      if (err)
        ebb_log_info ("%s: list: %s", ebb_rt_kind_name (rt->kind), err->msg);
      else if (res->status != 200 || !json_object_is_type (res->json, json_type_array))
        ebb_log_warn ("%s: list: HTTP %ld, not a list", ebb_rt_kind_name (rt->kind), res->status);
      else
        handle_list (rt, res->json, req->started_usec);
    }
  free (req);
}

static void
request_list (ebb_rt *rt)
{
  ebb_http_call_opts o;
  cleanup_error ebb_error *err = NULL;
  request *req = ebb_xcalloc (1, sizeof *req);
  req->rt = rt;
  req->started_usec = ebb_now_usec ();
  if (ebb_http_client_start (rt->http, "GET", rt->base, API "/containers/json?all=1", NULL,
                             call_opts (rt, &o), on_list_done, req, &err)
      < 0)
    {
      ebb_log_warn ("%s: list: %s", ebb_rt_kind_name (rt->kind), ebb_error_msg (&err));
      free (req);
    }
}

/* ---------------------------------------------------------------------------------- */
/* Events                                                                               */

static void
handle_event (ebb_rt *rt, const ebb_rt_raw_event *ev)
{
  tracked *t = tracked_find (rt, ev->id);
  pending *p = pending_find (rt, ev->id, NULL);
  switch (ev->type)
    {
    case EBB_RT_EV_START:
      request_inspect (rt, ev->id, false);
      break;
    case EBB_RT_EV_UPDATE:
      if (t || p)
        request_inspect (rt, ev->id, true);
      break;
    case EBB_RT_EV_DIE:
      if (p)
        p->again = true;
      if (t && t->info.running)
        {
          t->info.running = false;
          t->info.pid = 0;
          t->info.exit_code = ev->exit_code;
          emit (rt, EBB_RT_CONTAINER_DIED, &t->info, ev->exit_code, NULL);
        }
      break;
    case EBB_RT_EV_OOM:
      if (t)
        emit (rt, EBB_RT_CONTAINER_OOM, &t->info, -1, NULL);
      break;
    case EBB_RT_EV_DESTROY:
      if (p)
        p->again = true;
      if (t)
        report_removed (rt, t, -1);
      break;
    default:
      break;
    }
}

static int
on_stream_value (json_object *obj, void *userdata)
{
  ebb_rt *rt = userdata;
  cleanup_error ebb_error *err = NULL;
  ebb_rt_raw_event ev;
  int r = ebb_rt_parse_event (obj, &ev, &err);
  json_object_put (obj);
  if (r < 0)
    ebb_log_warn ("%s: ignoring an event: %s", ebb_rt_kind_name (rt->kind), ebb_error_msg (&err));
  else if (r > 0)
    handle_event (rt, &ev);
  return 0;
}

/* The stream is open once the engine answered 200: report it and re-list. */
static void
mark_connected (ebb_rt *rt)
{
  if (rt->connected)
    return;
  rt->connected = true;
  rt->backoff_usec = 0;
  ebb_log_info ("%s: following events on %s", ebb_rt_kind_name (rt->kind), rt->socket_path);
  emit (rt, EBB_RT_ENGINE_CONNECTED, NULL, -1, NULL);
  request_list (rt);
}

static size_t
on_stream_header (char *buf, size_t size, size_t n, void *userdata)
{
  ebb_rt *rt = userdata;
  long status = 0;
  /* The blank line ends the headers of the final response. */
  if (size * n <= 2 && (buf[0] == '\r' || buf[0] == '\n'))
    {
      curl_easy_getinfo (rt->easy, CURLINFO_RESPONSE_CODE, &status);
      if (status == 200)
        mark_connected (rt);
    }
  return size * n;
}

static size_t
on_stream_data (char *buf, size_t size, size_t n, void *userdata)
{
  ebb_rt *rt = userdata;
  long status = 0;
  curl_easy_getinfo (rt->easy, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200)
    return 0; /* an error page, not a stream: abort, retry later */
  mark_connected (rt);
  cleanup_error ebb_error *err = NULL;
  if (ebb_rt_stream_feed (rt->stream, buf, size * n, on_stream_value, rt, &err) < 0)
    {
      ebb_log_warn ("%s: %s; reconnecting", ebb_rt_kind_name (rt->kind), ebb_error_msg (&err));
      rt->stream_failed = true;
      return 0;
    }
  return size * n;
}

/* ---------------------------------------------------------------------------------- */
/* The stream's transfer                                                                */

static void
stream_close (ebb_rt *rt)
{
  if (rt->easy)
    {
      ebb_curl_event_remove (rt->multi, rt->easy);
      curl_easy_cleanup (rt->easy);
      rt->easy = NULL;
    }
  ebb_rt_stream_free (rt->stream);
  rt->stream = NULL;
}

/* The transfer ended (the engine went away, refused, or the stream was bad): report once
 * and retry with doubling backoff. */
static void
stream_finished (ebb_rt *rt, CURLcode code)
{
  long status = 0;
  curl_easy_getinfo (rt->easy, CURLINFO_RESPONSE_CODE, &status);
  cleanup_free char *detail
      = rt->stream_failed         ? ebb_xstrdup ("malformed event stream")
        : status && status != 200 ? ebb_xasprintf ("HTTP %ld from /events", status)
        : code != CURLE_OK
            ? ebb_xasprintf ("%s", rt->errbuf[0] ? rt->errbuf : curl_easy_strerror (code))
            : ebb_xstrdup ("event stream closed by the engine");
  bool was_connected = rt->connected;
  stream_close (rt);
  rt->connected = false;
  rt->stream_failed = false;
  uint64_t min = rt->opts.backoff_min_usec, max = rt->opts.backoff_max_usec;
  rt->backoff_usec = rt->backoff_usec ? rt->backoff_usec * 2 : min;
  if (rt->backoff_usec > max)
    rt->backoff_usec = max;
  if (was_connected)
    ebb_log_warn ("%s: lost %s: %s", ebb_rt_kind_name (rt->kind), rt->socket_path, detail);
  else
    ebb_log_debug ("%s: cannot follow %s: %s", ebb_rt_kind_name (rt->kind), rt->socket_path,
                   detail);
  stream_schedule (rt, rt->backoff_usec);
  emit (rt, EBB_RT_ENGINE_DISCONNECTED, NULL, -1, detail);
}

/* The completion callback of the stream's curl multi (the stream is its only transfer). */
static void
on_stream_done (CURL *easy, CURLcode code, void *userdata)
{
  ebb_rt *rt = userdata;
  if (easy == rt->easy)
    stream_finished (rt, code);
}

/* Opens GET /events. Returns 0, or negative with *err (then the caller retries later). */
static int
stream_open (ebb_rt *rt, ebb_error **err)
{
  rt->easy = curl_easy_init ();
  if (!rt->easy)
    return ebb_error_set (err, ENOMEM, "curl_easy_init failed");
  rt->stream = ebb_rt_stream_new (0, 0);
  rt->errbuf[0] = '\0';
  CURL *e = rt->easy;
  curl_easy_setopt (e, CURLOPT_URL, "http://localhost" EVENTS_PATH);
  curl_easy_setopt (e, CURLOPT_UNIX_SOCKET_PATH, rt->socket_path);
  curl_easy_setopt (e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (e, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
  curl_easy_setopt (e, CURLOPT_ERRORBUFFER, rt->errbuf);
  curl_easy_setopt (e, CURLOPT_HEADERFUNCTION, on_stream_header);
  curl_easy_setopt (e, CURLOPT_HEADERDATA, rt);
  curl_easy_setopt (e, CURLOPT_WRITEFUNCTION, on_stream_data);
  curl_easy_setopt (e, CURLOPT_WRITEDATA, rt);
  if (ebb_curl_event_add (rt->multi, e, err) < 0)
    {
      stream_close (rt);
      return -EIO;
    }
  return 0;
}

static int
on_retry (sd_event_source *src EBB_UNUSED, uint64_t usec EBB_UNUSED, void *userdata)
{
  ebb_rt *rt = userdata;
  cleanup_error ebb_error *err = NULL;
  if (rt->easy)
    return 0;
  if (stream_open (rt, &err) < 0)
    {
      ebb_log_warn ("%s: %s", ebb_rt_kind_name (rt->kind), ebb_error_msg (&err));
      stream_schedule (rt, rt->opts.backoff_max_usec);
    }
  return 0;
}

static void
stream_schedule (ebb_rt *rt, uint64_t delay_usec)
{
  uint64_t now = 0;
  sd_event_now (rt->event, CLOCK_MONOTONIC, &now);
  sd_event_source_set_time (rt->retry_timer, now + delay_usec);
  sd_event_source_set_enabled (rt->retry_timer, SD_EVENT_ONESHOT);
}

/* ---------------------------------------------------------------------------------- */
/* Public                                                                               */

static void
options_init (ebb_rt_options *o, const ebb_rt_options *given)
{
  if (given)
    *o = *given;
  else
    memset (o, 0, sizeof *o);
  if (!o->backoff_min_usec)
    o->backoff_min_usec = 100 * 1000;
  if (!o->backoff_max_usec)
    o->backoff_max_usec = 2 * 1000 * 1000;
  if (o->backoff_max_usec < o->backoff_min_usec)
    o->backoff_max_usec = o->backoff_min_usec;
  if (!o->request_timeout_ms)
    o->request_timeout_ms = 10000;
}

ebb_rt *
ebb_rt_new (sd_event *event, ebb_rt_kind kind, const char *socket_path, const ebb_rt_options *opts,
            ebb_rt_event_fn fn, void *userdata, ebb_error **err)
{
  if (!event || !socket_path || socket_path[0] != '/' || strlen (socket_path) >= 108
      || (kind != EBB_RT_DOCKER && kind != EBB_RT_PODMAN))
    return ebb_error_set (err, EINVAL,
                          "runtime: need an event loop, an engine kind and an "
                          "absolute socket path (< 108 bytes)"),
           NULL;
  ebb_rt *rt = ebb_xcalloc (1, sizeof *rt);
  rt->event = sd_event_ref (event);
  rt->kind = kind;
  rt->socket_path = ebb_xstrdup (socket_path);
  rt->base = ebb_xasprintf ("unix:%s", socket_path);
  rt->fn = fn;
  rt->userdata = userdata;
  options_init (&rt->opts, opts);
  rt->http = ebb_http_client_new (event, err);
  if (rt->http)
    rt->multi = ebb_curl_event_new (event, ebb_rt_kind_name (kind), on_stream_done, rt, err);
  int r = sd_event_add_time (event, &rt->retry_timer, CLOCK_MONOTONIC, 0, 1000, on_retry, rt);
  if (!rt->http || !rt->multi || r < 0)
    {
      if (rt->multi)
        ebb_error_set (err, EIO, "runtime: cannot set up timers");
      ebb_rt_free (rt);
      return NULL;
    }
  sd_event_source_set_enabled (rt->retry_timer, SD_EVENT_ONESHOT); /* connect from the loop */
  return rt;
}

void
ebb_rt_free (ebb_rt *rt)
{
  if (!rt)
    return;
  rt->freeing = true;
  ebb_http_client_free (rt->http); /* its callbacks see rt->freeing and only free */
  stream_close (rt);
  ebb_curl_event_free (rt->multi);
  sd_event_source_disable_unref (rt->retry_timer);
  while (rt->pending)
    {
      pending *p = rt->pending;
      rt->pending = p->next;
      free (p);
    }
  while (rt->tracked)
    tracked_drop (rt, rt->tracked);
  sd_event_unref (rt->event);
  free (rt->socket_path);
  free (rt->base);
  free (rt);
}

ebb_rt_kind
ebb_rt_get_kind (const ebb_rt *rt)
{
  return rt->kind;
}

bool
ebb_rt_connected (const ebb_rt *rt)
{
  return rt && rt->connected;
}

/* Blocking GET of path; returns 0 with *res (status 200 or 404 only), or negative. */
static int
blocking_get (ebb_rt *rt, const char *path, ebb_http_result *res, ebb_error **err)
{
  ebb_http_call_opts o;
  if (ebb_http_call ("GET", rt->base, path, NULL, call_opts (rt, &o), res, err) < 0)
    return ebb_error_wrap (err, "%s %s", ebb_rt_kind_name (rt->kind), rt->socket_path);
  if (res->status == 200 || res->status == 404)
    return 0;
  int r = ebb_error_set (err, EIO, "%s: GET %s: HTTP %ld: %.200s", ebb_rt_kind_name (rt->kind),
                         path, res->status, res->body ? res->body : "");
  ebb_http_result_clear (res);
  return r;
}

/* A running container without ebb labels that the agent looked up (to adopt it by id) is
 * followed from now on like a labeled one, so its death is reported too. Labeled ones are
 * left to the events and re-lists, which report them as STARTED. */
static void
follow (ebb_rt *rt, const ebb_rt_info *info)
{
  if (info->ours || !info->running || tracked_find (rt, info->id))
    return;
  tracked *t = ebb_xcalloc (1, sizeof *t);
  t->followed = true;
  t->confirmed_usec = ebb_now_usec ();
  t->info.kind = info->kind;
  t->info.id = ebb_xstrdup (info->id);
  t->info.name = ebb_xstrdup (info->name);
  t->info.running = true;
  t->info.pid = info->pid;
  t->next = rt->tracked;
  rt->tracked = t;
}

/* Inspects what the engine itself resolves: a full id, an id prefix, an exact name. */
static int
inspect_exact (ebb_rt *rt, const char *ref, ebb_rt_info *info, ebb_error **err)
{
  cleanup_free char *path = ebb_xasprintf (API "/containers/%s/json", ref);
  ebb_http_result res = { 0 };
  int r = blocking_get (rt, path, &res, err);
  if (r < 0)
    return r;
  if (res.status == 404)
    r = ebb_error_set (err, ENOENT, "%s: no container %s", ebb_rt_kind_name (rt->kind), ref);
  else if (ebb_rt_parse_inspect (rt->kind, res.json, info, err) < 0)
    r = ebb_error_wrap (err, "%s: inspect %s", ebb_rt_kind_name (rt->kind), ref);
  ebb_http_result_clear (&res);
  return r;
}

/* Finds the one container whose name starts with prefix. Returns 1 with id_out, 0 when none,
 * or negative with *err (EINVAL when several match). */
static int
find_name_prefix (ebb_rt *rt, const char *prefix, char id_out[65], ebb_error **err)
{
  ebb_http_result res = { 0 };
  int r = blocking_get (rt, API "/containers/json?all=1", &res, err);
  if (r < 0)
    return r;
  size_t n
      = json_object_is_type (res.json, json_type_array) ? json_object_array_length (res.json) : 0;
  int found = 0;
  for (size_t i = 0; i < n; i++)
    {
      ebb_rt_info entry;
      if (ebb_rt_parse_list_entry (rt->kind, json_object_array_get_idx (res.json, i), &entry, NULL)
          < 0)
        continue;
      if (strncmp (entry.name, prefix, strlen (prefix)) == 0 && found++ == 0)
        snprintf (id_out, 65, "%s", entry.id);
      ebb_rt_info_clear (&entry);
    }
  ebb_http_result_clear (&res);
  if (found > 1)
    return ebb_error_set (err, EINVAL, "%s: %d containers have names starting with %s",
                          ebb_rt_kind_name (rt->kind), found, prefix);
  return found;
}

int
ebb_rt_inspect (ebb_rt *rt, const char *ref, ebb_rt_info *info, ebb_error **err)
{
  memset (info, 0, sizeof *info);
  if (!rt || !ref || !ebb_id_is_valid (ref, 128))
    return ebb_error_set (err, EINVAL,
                          "container reference must be an id or name of "
                          "[A-Za-z0-9._-]{1,128}");
  cleanup_error ebb_error *first = NULL;
  int r = inspect_exact (rt, ref, info, &first);
  if (r == -ENOENT)
    {
      /* Not an id, id prefix or name the engine knows: maybe the start of a name. */
      char id[65];
      int found = find_name_prefix (rt, ref, id, err);
      if (found <= 0)
        return found < 0 ? found : ebb_error_set (err, ENOENT, "%s", ebb_error_msg (&first));
      r = inspect_exact (rt, id, info, err);
    }
  else if (r < 0)
    {
      ebb_error_set (err, ebb_error_code (&first), "%s", ebb_error_msg (&first));
      return r;
    }
  if (r < 0)
    return r;
  resolve_cgroups (rt, info);
  follow (rt, info);
  return 0;
}

/* ---- Asynchronous lookup: exact inspect, else a name prefix from the list, then inspect */

typedef struct lookup
{
  ebb_rt *rt;
  char *ref;
  int step; /* 0 exact inspect, 1 list, 2 inspect of the prefix match */
  ebb_rt_inspect_fn done;
  void *userdata;
} lookup;

static void on_lookup (ebb_http_result *res, const ebb_error *err, void *ud);

static int
lookup_get (lookup *l, const char *path, ebb_error **err)
{
  ebb_http_call_opts o;
  return ebb_http_client_start (l->rt->http, "GET", l->rt->base, path, NULL, call_opts (l->rt, &o),
                                on_lookup, l, err);
}

static void
lookup_finish (lookup *l, ebb_rt_info *info, ebb_error *e)
{
  l->done (info, e, l->userdata);
  ebb_error_free (&e);
  free (l->ref);
  free (l);
}

static void
on_lookup (ebb_http_result *res, const ebb_error *err, void *ud)
{
  lookup *l = ud;
  ebb_rt *rt = l->rt;
  const char *kind = ebb_rt_kind_name (rt->kind);
  ebb_error *e = NULL;
  if (err)
    {
      ebb_error_set (&e, err->code, "%s %s: %s", kind, rt->socket_path, err->msg);
      lookup_finish (l, NULL, e);
      return;
    }
  if (res->status != 200 && res->status != 404)
    {
      ebb_error_set (&e, EIO, "%s: HTTP %ld: %.200s", kind, res->status,
                     res->body ? res->body : "");
      lookup_finish (l, NULL, e);
      return;
    }
  if (l->step == 1)
    {
      size_t n = json_object_is_type (res->json, json_type_array)
                     ? json_object_array_length (res->json)
                     : 0;
      int found = 0;
      char id[65] = "";
      for (size_t i = 0; i < n; i++)
        {
          ebb_rt_info entry;
          if (ebb_rt_parse_list_entry (rt->kind, json_object_array_get_idx (res->json, i), &entry,
                                       NULL)
              < 0)
            continue;
          if (strncmp (entry.name, l->ref, strlen (l->ref)) == 0 && found++ == 0)
            snprintf (id, sizeof id, "%s", entry.id);
          ebb_rt_info_clear (&entry);
        }
      if (found != 1)
        {
          if (found > 1)
            ebb_error_set (&e, EINVAL, "%s: %d containers have names starting with %s", kind, found,
                           l->ref);
          else
            ebb_error_set (&e, ENOENT, "%s: no container %s", kind, l->ref);
          lookup_finish (l, NULL, e);
          return;
        }
      l->step = 2;
      cleanup_free char *path = ebb_xasprintf (API "/containers/%s/json", id);
      if (lookup_get (l, path, &e) < 0)
        lookup_finish (l, NULL, e);
      return;
    }
  if (res->status == 404)
    {
      if (l->step == 0)
        {
          /* Not an id, id prefix or name the engine knows: maybe the start of a name. */
          l->step = 1;
          if (lookup_get (l, API "/containers/json?all=1", &e) < 0)
            lookup_finish (l, NULL, e);
          return;
        }
      ebb_error_set (&e, ENOENT, "%s: no container %s", kind, l->ref);
      lookup_finish (l, NULL, e);
      return;
    }
  ebb_rt_info *info = ebb_xcalloc (1, sizeof *info);
  if (ebb_rt_parse_inspect (rt->kind, res->json, info, &e) < 0)
    {
      ebb_error_wrap (&e, "%s: inspect %s", kind, l->ref);
      free (info);
      lookup_finish (l, NULL, e);
      return;
    }
  resolve_cgroups (rt, info);
  follow (rt, info);
  l->done (info, NULL, l->userdata);
  ebb_rt_info_clear (info);
  free (info);
  free (l->ref);
  free (l);
}

int
ebb_rt_inspect_async (ebb_rt *rt, const char *ref, ebb_rt_inspect_fn done, void *userdata,
                      ebb_error **err)
{
  if (!rt || !ref || !ebb_id_is_valid (ref, 128))
    return ebb_error_set (err, EINVAL,
                          "container reference must be an id or name of "
                          "[A-Za-z0-9._-]{1,128}");
  lookup *l = ebb_xcalloc (1, sizeof *l);
  l->rt = rt;
  l->ref = ebb_xstrdup (ref);
  l->done = done;
  l->userdata = userdata;
  cleanup_free char *path = ebb_xasprintf (API "/containers/%s/json", ref);
  int r = lookup_get (l, path, err);
  if (r < 0)
    {
      free (l->ref);
      free (l);
    }
  return r;
}

void
ebb_rt_info_array_free (ebb_rt_info *infos, size_t n)
{
  for (size_t i = 0; infos && i < n; i++)
    ebb_rt_info_clear (&infos[i]);
  free (infos);
}

int
ebb_rt_list (ebb_rt *rt, bool all, ebb_rt_info **out, ebb_error **err)
{
  *out = NULL;
  ebb_http_result res = { 0 };
  int r = blocking_get (rt, all ? API "/containers/json?all=1" : API "/containers/json", &res, err);
  if (r < 0)
    return r;
  if (res.status != 200 || !json_object_is_type (res.json, json_type_array))
    {
      ebb_http_result_clear (&res);
      return ebb_error_set (err, EBB_EPARSE, "%s: container list is not a list",
                            ebb_rt_kind_name (rt->kind));
    }
  size_t n = json_object_array_length (res.json), count = 0;
  ebb_rt_info *infos = ebb_xcalloc (n ? n : 1, sizeof *infos);
  for (size_t i = 0; i < n; i++)
    {
      ebb_rt_info entry;
      if (ebb_rt_parse_list_entry (rt->kind, json_object_array_get_idx (res.json, i), &entry, NULL)
          < 0)
        continue;
      /* A container removed between list and inspect is skipped, not an error. */
      if (entry.ours && ebb_rt_inspect (rt, entry.id, &infos[count], NULL) == 0
          && infos[count].ours)
        count++;
      else
        ebb_rt_info_clear (&infos[count]);
      ebb_rt_info_clear (&entry);
    }
  ebb_http_result_clear (&res);
  *out = infos;
  return (int)count;
}
