/* curl multi driven by sd-event. curl tells us which sockets to watch
 * (CURLMOPT_SOCKETFUNCTION) and when to call it back (CURLMOPT_TIMERFUNCTION); we map those
 * to sd-event io and timer sources and hand finished transfers to the owner's callback. */
#include "config.h"

#include <string.h>

#include "lib/curl-event.h"
#include "lib/http-xfer.h"
#include "lib/log.h"
#include "lib/util.h"

struct ebb_curl_event
{
  sd_event *event;
  CURLM *multi;
  sd_event_source *timer;
  char *name;
  size_t n_watched; /* io sources held in curl's per-socket pointers */
  ebb_curl_event_done_fn done;
  void *userdata;
};

/* Hands every finished transfer to the completion callback. */
static void
drain_done (ebb_curl_event *ce)
{
  CURLMsg *msg;
  int left;
  while ((msg = curl_multi_info_read (ce->multi, &left)))
    {
      if (msg->msg != CURLMSG_DONE)
        continue;
      CURL *easy = msg->easy_handle;
      CURLcode code = msg->data.result;
      curl_multi_remove_handle (ce->multi, easy);
      ce->done (easy, code, ce->userdata);
    }
}

static void
socket_action (ebb_curl_event *ce, curl_socket_t fd, int ev_bitmask)
{
  int running = 0;
  CURLMcode mc = curl_multi_socket_action (ce->multi, fd, ev_bitmask, &running);
  if (mc != CURLM_OK)
    ebb_log_warn ("%s: curl_multi_socket_action: %s", ce->name, curl_multi_strerror (mc));
  drain_done (ce);
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
  ebb_curl_event *ce = userp;
  sd_event_source *src = socketp;
  if (what == CURL_POLL_REMOVE)
    {
      if (src)
        ce->n_watched--;
      sd_event_source_disable_unref (src);
      curl_multi_assign (ce->multi, fd, NULL);
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
      r = sd_event_add_io (ce->event, &src, fd, events, on_io, ce);
      if (r >= 0)
        {
          curl_multi_assign (ce->multi, fd, src);
          ce->n_watched++;
        }
    }
  if (r < 0 && r != -ESTALE)
    {
      ebb_log_warn ("%s: watching socket %d: %s", ce->name, fd, strerror (-r));
      return -1;
    }
  return 0;
}

/* CURLMOPT_TIMERFUNCTION: -1 stops the timer, 0 means "as soon as possible" (the next loop
 * iteration: curl must not be re-entered from here). */
static int
on_curl_timer (CURLM *multi EBB_UNUSED, long timeout_ms, void *userp)
{
  ebb_curl_event *ce = userp;
  int r;
  if (timeout_ms < 0)
    r = sd_event_source_set_enabled (ce->timer, SD_EVENT_OFF);
  else
    {
      uint64_t now = 0;
      sd_event_now (ce->event, CLOCK_MONOTONIC, &now);
      r = sd_event_source_set_time (ce->timer, now + (uint64_t)timeout_ms * 1000);
      if (r >= 0)
        r = sd_event_source_set_enabled (ce->timer, SD_EVENT_ONESHOT);
    }
  /* -ESTALE: the loop has finished; transfers then wait until it runs again or their owner
   * removes them, which is no reason to fail curl. */
  if (r < 0 && r != -ESTALE)
    {
      ebb_log_warn ("%s: arming the curl timer: %s", ce->name, strerror (-r));
      return -1;
    }
  return 0;
}

ebb_curl_event *
ebb_curl_event_new (sd_event *event, const char *name, ebb_curl_event_done_fn done, void *userdata,
                    ebb_error **err)
{
  if (!event || !done)
    return ebb_error_set (err, EINVAL, "curl event: no event loop or callback"), NULL;
  ebb_http_curl_init_once ();
  ebb_curl_event *ce = ebb_xcalloc (1, sizeof *ce);
  ce->event = sd_event_ref (event);
  ce->name = ebb_xstrdup (name ? name : "curl");
  ce->done = done;
  ce->userdata = userdata;
  int r = sd_event_add_time (event, &ce->timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_timer, ce);
  ce->multi = curl_multi_init ();
  if (r < 0 || !ce->multi)
    {
      ebb_error_set (err, r < 0 ? -r : EIO, "%s: cannot set up curl multi", ce->name);
      ebb_curl_event_free (ce);
      return NULL;
    }
  sd_event_source_set_enabled (ce->timer, SD_EVENT_OFF);
  curl_multi_setopt (ce->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
  curl_multi_setopt (ce->multi, CURLMOPT_SOCKETDATA, ce);
  curl_multi_setopt (ce->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
  curl_multi_setopt (ce->multi, CURLMOPT_TIMERDATA, ce);
  return ce;
}

/* See curl-event.h. */
void
ebb_curl_event_limit (ebb_curl_event *ce, long per_host, long total)
{
  curl_multi_setopt (ce->multi, CURLMOPT_MAX_HOST_CONNECTIONS, per_host);
  curl_multi_setopt (ce->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, total);
}

int
ebb_curl_event_add (ebb_curl_event *ce, CURL *easy, ebb_error **err)
{
  if (!ce || !easy)
    return ebb_error_set (err, EINVAL, "curl event: no multi or handle");
  CURLMcode mc = curl_multi_add_handle (ce->multi, easy);
  if (mc != CURLM_OK)
    return ebb_error_set (err, EIO, "%s: %s", ce->name, curl_multi_strerror (mc));
  return 0;
}

void
ebb_curl_event_remove (ebb_curl_event *ce, CURL *easy)
{
  if (ce && easy)
    curl_multi_remove_handle (ce->multi, easy);
}

size_t
ebb_curl_event_n_watched (const ebb_curl_event *ce)
{
  return ce ? ce->n_watched : 0;
}

void
ebb_curl_event_free (ebb_curl_event *ce)
{
  if (!ce)
    return;
  if (ce->multi)
    curl_multi_cleanup (ce->multi);
  sd_event_source_disable_unref (ce->timer);
  sd_event_unref (ce->event);
  free (ce->name);
  free (ce);
}
