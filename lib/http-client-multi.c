/* The non-blocking client: curl multi driven by sd-event. curl tells us which sockets to
 * watch (CURLMOPT_SOCKETFUNCTION) and when to call it back (CURLMOPT_TIMERFUNCTION); we map
 * those to sd-event io and timer sources and hand finished transfers to their callbacks. */
#include "config.h"

#include <string.h>

#include "lib/http-xfer.h"
#include "lib/log.h"

struct ebb_http_client
{
  sd_event *event;
  CURLM *multi;
  sd_event_source *timer;
  ebb_http_xfer *xfers; /* in flight */
  size_t n_pending;
};

static void
xfer_unlink (ebb_http_client *c, ebb_http_xfer *x)
{
  if (x->prev)
    x->prev->next = x->next;
  else
    c->xfers = x->next;
  if (x->next)
    x->next->prev = x->prev;
  x->prev = x->next = NULL;
  c->n_pending--;
}

/* Hands every finished transfer to its callback. */
static void
drain_done (ebb_http_client *c)
{
  CURLMsg *msg;
  int left;
  while ((msg = curl_multi_info_read (c->multi, &left)))
    {
      if (msg->msg != CURLMSG_DONE)
        continue;
      ebb_http_xfer *x = NULL;
      CURLcode code = msg->data.result;
      curl_easy_getinfo (msg->easy_handle, CURLINFO_PRIVATE, (char **)&x);
      curl_multi_remove_handle (c->multi, x->easy);
      xfer_unlink (c, x);
      ebb_error *err = NULL;
      ebb_http_result res;
      ebb_http_xfer_finish (x, code, &res, &err);
      x->done (&res, err, x->userdata);
      ebb_http_result_clear (&res);
      ebb_error_free (&err);
      ebb_http_xfer_free (x);
    }
}

static void
socket_action (ebb_http_client *c, curl_socket_t fd, int ev_bitmask)
{
  int running = 0;
  CURLMcode mc = curl_multi_socket_action (c->multi, fd, ev_bitmask, &running);
  if (mc != CURLM_OK)
    ebb_log_warn ("http client: curl_multi_socket_action: %s", curl_multi_strerror (mc));
  drain_done (c);
}

static int
on_io (sd_event_source *src EBB_UNUSED, int fd, uint32_t revents, void *userdata)
{
  int action = 0;
  if (revents & (EPOLLIN | EPOLLHUP))
    action |= CURL_CSELECT_IN;
  if (revents & EPOLLOUT)
    action |= CURL_CSELECT_OUT;
  if (revents & EPOLLERR)
    action |= CURL_CSELECT_ERR;
  socket_action (userdata, fd, action);
  return 0;
}

static int
on_timer (sd_event_source *src EBB_UNUSED, uint64_t usec EBB_UNUSED, void *userdata)
{
  socket_action (userdata, CURL_SOCKET_TIMEOUT, 0);
  return 0;
}

/* CURLMOPT_SOCKETFUNCTION: the io source lives in curl's per-socket pointer. */
static int
on_curl_socket (CURL *easy EBB_UNUSED, curl_socket_t fd, int what, void *userp, void *socketp)
{
  ebb_http_client *c = userp;
  sd_event_source *src = socketp;
  if (what == CURL_POLL_REMOVE)
    {
      sd_event_source_disable_unref (src);
      curl_multi_assign (c->multi, fd, NULL);
      return 0;
    }
  uint32_t events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
  int r;
  if (src)
    {
      r = sd_event_source_set_io_events (src, events);
      if (r >= 0)
        r = sd_event_source_set_enabled (src, SD_EVENT_ON);
    }
  else
    {
      r = sd_event_add_io (c->event, &src, fd, events, on_io, c);
      if (r >= 0)
        curl_multi_assign (c->multi, fd, src);
    }
  if (r < 0 && r != -ESTALE)
    {
      ebb_log_warn ("http client: watching socket %d: %s", fd, strerror (-r));
      return -1;
    }
  return 0;
}

/* CURLMOPT_TIMERFUNCTION: -1 stops the timer, 0 means "as soon as possible" (the next loop
 * iteration: curl must not be re-entered from here). */
static int
on_curl_timer (CURLM *multi EBB_UNUSED, long timeout_ms, void *userp)
{
  ebb_http_client *c = userp;
  int r;
  if (timeout_ms < 0)
    r = sd_event_source_set_enabled (c->timer, SD_EVENT_OFF);
  else
    {
      uint64_t now = 0;
      sd_event_now (c->event, CLOCK_MONOTONIC, &now);
      r = sd_event_source_set_time (c->timer, now + (uint64_t)timeout_ms * 1000);
      if (r >= 0)
        r = sd_event_source_set_enabled (c->timer, SD_EVENT_ONESHOT);
    }
  /* -ESTALE: the loop has finished; requests then wait until it runs again or the client
   * is freed, which is no reason to fail curl. */
  if (r < 0 && r != -ESTALE)
    {
      ebb_log_warn ("http client: arming the curl timer: %s", strerror (-r));
      return -1;
    }
  return 0;
}

ebb_http_client *
ebb_http_client_new (sd_event *event, ebb_error **err)
{
  if (!event)
    return ebb_error_set (err, EINVAL, "http client: no event loop"), NULL;
  ebb_http_curl_init_once ();
  ebb_http_client *c = ebb_xcalloc (1, sizeof *c);
  c->event = sd_event_ref (event);
  int r = sd_event_add_time (event, &c->timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_timer, c);
  c->multi = curl_multi_init ();
  if (r < 0 || !c->multi)
    {
      ebb_error_set (err, r < 0 ? -r : EIO, "http client: cannot set up curl multi");
      ebb_http_client_free (c);
      return NULL;
    }
  sd_event_source_set_enabled (c->timer, SD_EVENT_OFF);
  curl_multi_setopt (c->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
  curl_multi_setopt (c->multi, CURLMOPT_SOCKETDATA, c);
  curl_multi_setopt (c->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
  curl_multi_setopt (c->multi, CURLMOPT_TIMERDATA, c);
  return c;
}

int
ebb_http_client_start (ebb_http_client *c, const char *method, const char *base, const char *path,
                       json_object *body, const ebb_http_call_opts *opts, ebb_http_done_fn done,
                       void *userdata, ebb_error **err)
{
  if (!c || !done)
    return ebb_error_set (err, EINVAL, "http client: no client or callback");
  ebb_http_xfer *x = ebb_http_xfer_new (method, base, path, body, opts, err);
  if (!x)
    return -EINVAL;
  x->done = done;
  x->userdata = userdata;
  CURLMcode mc = curl_multi_add_handle (c->multi, x->easy);
  if (mc != CURLM_OK)
    {
      ebb_http_xfer_free (x);
      return ebb_error_set (err, EIO, "http client: %s", curl_multi_strerror (mc));
    }
  x->next = c->xfers;
  if (c->xfers)
    c->xfers->prev = x;
  c->xfers = x;
  c->n_pending++;
  return 0;
}

size_t
ebb_http_client_pending (const ebb_http_client *c)
{
  return c ? c->n_pending : 0;
}

void
ebb_http_client_free (ebb_http_client *c)
{
  if (!c)
    return;
  while (c->xfers)
    {
      ebb_http_xfer *x = c->xfers;
      curl_multi_remove_handle (c->multi, x->easy);
      xfer_unlink (c, x);
      ebb_error *err = NULL;
      ebb_http_result res = { 0 };
      ebb_error_set (&err, ECANCELED, "%s: cancelled (client freed)", x->url);
      x->done (&res, err, x->userdata);
      ebb_error_free (&err);
      ebb_http_xfer_free (x);
    }
  if (c->multi)
    curl_multi_cleanup (c->multi);
  sd_event_source_disable_unref (c->timer);
  sd_event_unref (c->event);
  free (c);
}
