/* The Docker/Podman client's event stream (agent/runtime-internal.h): GET /events followed
 * as one curl easy handle in a curl multi of its own, driven by sd-event through
 * lib/curl-event.c (lib's http client has no streaming mode); a list on every (re)connect,
 * reconnects with doubling backoff. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/runtime-internal.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

static void stream_schedule (ebb_rt *rt, uint64_t delay_usec);

/* ---------------------------------------------------------------------------------- */
/* Events                                                                               */

static void
handle_event (ebb_rt *rt, const ebb_rt_raw_event *ev)
{
  tracked *t = ebb_rt_tracked_find (rt, ev->id);
  pending *p = ebb_rt_pending_find (rt, ev->id, NULL);
  switch (ev->type)
    {
    case EBB_RT_EV_START:
      ebb_rt_request_inspect (rt, ev->id, false);
      break;
    case EBB_RT_EV_UPDATE:
      if (t || p)
        ebb_rt_request_inspect (rt, ev->id, true);
      break;
    case EBB_RT_EV_DIE:
      if (p)
        p->again = true;
      if (t && t->info.running)
        {
          t->info.running = false;
          t->info.pid = 0;
          t->info.exit_code = ev->exit_code;
          ebb_rt_emit (rt, EBB_RT_CONTAINER_DIED, &t->info, ev->exit_code, NULL);
        }
      break;
    case EBB_RT_EV_OOM:
      if (t)
        ebb_rt_emit (rt, EBB_RT_CONTAINER_OOM, &t->info, -1, NULL);
      break;
    case EBB_RT_EV_DESTROY:
      if (p)
        p->again = true;
      if (t)
        ebb_rt_report_removed (rt, t, -1);
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
  ebb_rt_emit (rt, EBB_RT_ENGINE_CONNECTED, NULL, -1, NULL);
  ebb_rt_request_list (rt);
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
  ebb_rt_emit (rt, EBB_RT_ENGINE_DISCONNECTED, NULL, -1, detail);
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

/* Sets up the stream's curl multi and its retry timer (the first connect from the loop).
 * Returns 0, or negative with *err. */
int
ebb_rt_stream_start (ebb_rt *rt, ebb_error **err)
{
  rt->multi = ebb_curl_event_new (rt->event, ebb_rt_kind_name (rt->kind), on_stream_done, rt, err);
  if (!rt->multi)
    return -EIO;
  int r = sd_event_add_time (rt->event, &rt->retry_timer, CLOCK_MONOTONIC, 0, 1000, on_retry, rt);
  if (r < 0)
    return ebb_error_set (err, EIO, "runtime: cannot set up timers");
  sd_event_source_set_enabled (rt->retry_timer, SD_EVENT_ONESHOT); /* connect from the loop */
  return 0;
}

/* Closes the stream, its multi and its timer. */
void
ebb_rt_stream_stop (ebb_rt *rt)
{
  stream_close (rt);
  ebb_curl_event_free (rt->multi);
  rt->multi = NULL;
  rt->retry_timer = sd_event_source_disable_unref (rt->retry_timer);
}
