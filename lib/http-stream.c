/* Streamed responses: a body produced piece by piece by the application through
 * libmicrohttpd's content-reader callback, on the loop thread. When the application has
 * nothing yet, the connection is suspended (no polling, no thread) until it calls
 * ebb_http_stream_wake(); MHD documents suspending from the content reader as safe. */
#include "config.h"

#include "lib/http-internal.h"

struct ebb_http_stream
{
  ebb_http_stream_read_fn read;
  void (*done) (void *ud);
  void *ud;
  size_t block_bytes;
  ebb_http_request *req; /* set once queued; NULL when the request is gone */
  bool waiting;          /* the connection is suspended until a wake */
  bool ended;            /* the server is shutting down: end the body */
};

ebb_http_stream *
ebb_http_reply_stream (ebb_http_response *resp, unsigned status, const char *content_type,
                       size_t block_bytes, ebb_http_stream_read_fn read, void (*done) (void *ud),
                       void *ud)
{
  ebb_http_reply_text (resp, status, content_type, "");
  ebb_http_stream *st = ebb_xcalloc (1, sizeof *st);
  st->read = read;
  st->done = done;
  st->ud = ud;
  st->block_bytes = block_bytes ? block_bytes : 16 * 1024;
  resp->stream = st;
  return st;
}

void
ebb_http_stream_free (ebb_http_stream *st)
{
  if (!st)
    return;
  if (st->req)
    {
      ebb_http_request_unlink_suspended (st->req->listener->server, st->req);
      st->req->stream = NULL;
    }
  if (st->done)
    st->done (st->ud);
  free (st);
}

static void
free_cb (void *cls)
{
  ebb_http_stream_free (cls);
}

/* MHD asks for more of the body: the application's bytes, the end, or a suspension until
 * the application wakes the stream. */
static ssize_t
reader_cb (void *cls, uint64_t pos EBB_UNUSED, char *buf, size_t max)
{
  ebb_http_stream *st = cls;
  if (st->ended || !st->req)
    return MHD_CONTENT_READER_END_OF_STREAM;
  ssize_t n = st->read (st->ud, buf, max);
  if (n > 0)
    return n;
  if (n < 0)
    return MHD_CONTENT_READER_END_OF_STREAM;
  MHD_suspend_connection (st->req->con);
  st->waiting = true;
  /* On the server's suspended list, so that ebb_http_server_free() resumes it. */
  ebb_http_request_link_suspended (st->req->listener->server, st->req);
  return 0;
}

struct MHD_Response *
ebb_http_stream_build (ebb_http_response *resp)
{
  ebb_http_stream *st = ebb_steal_ptr (&resp->stream);
  struct MHD_Response *r = MHD_create_response_from_callback (MHD_SIZE_UNKNOWN, st->block_bytes,
                                                              reader_cb, st, free_cb);
  if (!r)
    ebb_http_stream_free (st);
  return r;
}

void
ebb_http_stream_attach (ebb_http_stream *st, ebb_http_request *req)
{
  st->req = req;
  if (req)
    req->stream = st;
}

void
ebb_http_stream_wake (ebb_http_stream *st)
{
  if (!st || !st->waiting || !st->req)
    return;
  ebb_http_request *req = st->req;
  st->waiting = false;
  ebb_http_request_unlink_suspended (req->listener->server, req);
  MHD_resume_connection (req->con);
  /* As for a deferred reply: MHD's epoll fd does not wake up for a resume in external-poll
   * mode, so MHD runs from the loop's next iteration. */
  sd_event_source_set_time (req->listener->timer, 0);
  sd_event_source_set_enabled (req->listener->timer, SD_EVENT_ONESHOT);
}

void
ebb_http_stream_release (ebb_http_stream *st)
{
  st->ended = true;
  if (st->waiting && st->req)
    {
      st->waiting = false;
      MHD_resume_connection (st->req->con);
    }
}
