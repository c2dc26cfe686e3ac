/* The request lifecycle: one ebb_http_request per request in MHD's *con_cls, from the
 * headers (auth, routing, declared size) through the body and the handler to the reply, a
 * suspension for a deferred reply, and the completion callback that frees it. */
#include "config.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>

#include "lib/http-internal.h"
#include "lib/log.h"
#include "lib/time.h"

static void
request_free (ebb_http_request *req)
{
  free (req->method);
  free (req->path);
  ebb_http_captures_clear (&req->caps);
  free (req->body);
  json_object_put (req->json);
  ebb_http_response_clear (&req->resp);
  free (req);
}

void
ebb_http_request_unlink_suspended (ebb_http_server *s, ebb_http_request *req)
{
  if (req->susp_prev)
    req->susp_prev->susp_next = req->susp_next;
  else if (s->suspended == req)
    s->suspended = req->susp_next;
  if (req->susp_next)
    req->susp_next->susp_prev = req->susp_prev;
  req->susp_prev = req->susp_next = NULL;
}

void
ebb_http_request_link_suspended (ebb_http_server *s, ebb_http_request *req)
{
  req->susp_prev = NULL;
  req->susp_next = s->suspended;
  if (s->suspended)
    s->suspended->susp_prev = req;
  s->suspended = req;
}

/* Queues req->resp (or the 500 fallback); returns MHD's verdict. */
static enum MHD_Result
queue (ebb_http_request *req)
{
  ebb_http_stream *st = req->resp.stream;
  struct MHD_Response *r = ebb_http_response_build (&req->resp);
  if (!r)
    return MHD_NO;
  if (st)
    ebb_http_stream_attach (st, req); /* freed with r if MHD refuses it */
  unsigned status = req->resp.set ? req->resp.status : MHD_HTTP_INTERNAL_SERVER_ERROR;
  enum MHD_Result ret = MHD_queue_response (req->con, status, r);
  MHD_destroy_response (r);
  if (ret == MHD_YES)
    {
      req->sent_status = status;
      req->phase = REQ_QUEUED;
    }
  return ret;
}

static bool
token_equal (const char *got, const char *want)
{
  /* Constant time in the token's content: every byte of want is compared. */
  size_t got_len = strlen (got), want_len = strlen (want);
  volatile unsigned char diff = got_len != want_len;
  for (size_t i = 0; i < want_len; i++)
    diff |= (unsigned char)(want[i] ^ (i < got_len ? got[i] : 0));
  return diff == 0;
}

/* One rule for every daemon: a unix socket is guarded by its file mode and group (as
 * dockerd's), TCP always by the token. */
static bool
authorized (const ebb_http_server *s, const ebb_http_request *req)
{
  if (!s->bearer_token || req->listener->sock.is_unix)
    return true;
  const char *h = ebb_http_request_header (req, MHD_HTTP_HEADER_AUTHORIZATION);
  if (!h || strncasecmp (h, "Bearer ", 7) != 0)
    return false;
  h += 7;
  while (*h == ' ')
    h++;
  return token_equal (h, s->bearer_token);
}

/* Finds the route for method + path; on failure fills req->resp with 404 or 405. */
static bool
route_request (ebb_http_server *s, ebb_http_request *req)
{
  char allow[256] = "";
  bool path_known = false;
  for (size_t i = 0; i < s->n_routes; i++)
    {
      const ebb_http_route *r = &s->routes[i];
      if (!ebb_http_route_match (r->pattern, req->path, &req->caps))
        continue;
      if (strcmp (r->method, req->method) == 0)
        {
          req->route = r;
          return true;
        }
      ebb_http_captures_clear (&req->caps);
      size_t used = strlen (allow);
      if (!strstr (allow, r->method))
        snprintf (allow + used, sizeof allow - used, "%s%s", path_known ? ", " : "", r->method);
      path_known = true;
    }
  if (!path_known)
    {
      ebb_http_error (&req->resp, MHD_HTTP_NOT_FOUND, "not_found", "no route for %s", req->path);
      return false;
    }
  ebb_http_error (&req->resp, MHD_HTTP_METHOD_NOT_ALLOWED, "method_not_allowed",
                  "%s is not allowed on %s (allowed: %s)", req->method, req->path, allow);
  ebb_http_reply_header (&req->resp, MHD_HTTP_HEADER_ALLOW, allow);
  return false;
}

static bool
content_length_too_big (const ebb_http_server *s, const ebb_http_request *req)
{
  const char *cl = ebb_http_request_header (req, MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (!cl)
    return false;
  char *end = NULL;
  errno = 0;
  unsigned long long n = strtoull (cl, &end, 10);
  return errno == ERANGE || (end != cl && n > s->max_body_bytes);
}

static void
too_large (ebb_http_request *req)
{
  ebb_http_error (&req->resp, MHD_HTTP_CONTENT_TOO_LARGE, "payload_too_large",
                  "request body larger than %zu bytes", req->listener->server->max_body_bytes);
  /* A client that sent too much is not worth keeping the connection for. */
  ebb_http_reply_header (&req->resp, MHD_HTTP_HEADER_CONNECTION, "close");
}

/* Returns whether method + path names a route marked EBB_HTTP_ROUTE_PUBLIC. */
static bool
public_route (const ebb_http_server *s, const ebb_http_request *req)
{
  for (size_t i = 0; i < s->n_routes; i++)
    {
      const ebb_http_route *r = &s->routes[i];
      if ((r->flags & EBB_HTTP_ROUTE_PUBLIC) && strcmp (r->method, req->method) == 0
          && ebb_http_route_match (r->pattern, req->path, NULL))
        return true;
    }
  return false;
}

/* Whether the headers announce a body: any Transfer-Encoding, or a Content-Length that is
 * not zero. */
static bool
announces_body (const ebb_http_request *req)
{
  if (ebb_http_request_header (req, MHD_HTTP_HEADER_TRANSFER_ENCODING))
    return true;
  const char *cl = ebb_http_request_header (req, MHD_HTTP_HEADER_CONTENT_LENGTH);
  return cl && cl[strspn (cl, "0 \t")] != '\0';
}

/* A 400 after which the connection is closed: what follows on it cannot be trusted to be
 * where a next request starts. */
static enum MHD_Result
refuse_and_close (ebb_http_request *req, const char *detail)
{
  ebb_http_error (&req->resp, MHD_HTTP_BAD_REQUEST, "bad_request", "%s", detail);
  ebb_http_reply_header (&req->resp, MHD_HTTP_HEADER_CONNECTION, "close");
  return queue (req);
}

/* Framing checks before anything else. Content-Length with Transfer-Encoding is how a
 * request is smuggled (RFC 9112 6.3: answer 400 and close). A body on GET or HEAD (no route
 * reads one; DELETE may carry one, the agent's grace_millis) is refused at once, so a slow
 * body can never hold a connection on such a route, a public one included. */
static bool
framing_refused (ebb_http_request *req, enum MHD_Result *ret)
{
  bool te = ebb_http_request_header (req, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
  if (te && ebb_http_request_header (req, MHD_HTTP_HEADER_CONTENT_LENGTH))
    *ret = refuse_and_close (req, "Content-Length together with Transfer-Encoding");
  else if ((strcmp (req->method, "GET") == 0 || strcmp (req->method, "HEAD") == 0)
           && announces_body (req))
    *ret = refuse_and_close (req, "this method takes no body");
  else
    return false;
  return true;
}

/* First call for a request: headers only. Framing, auth, routing and the declared size are
 * checked before any body is read. */
static enum MHD_Result
on_headers (ebb_http_request *req)
{
  ebb_http_server *s = req->listener->server;
  enum MHD_Result ret;
  if (framing_refused (req, &ret))
    return ret;
  bool authed = authorized (s, req);
  ebb_http_conn *c = ebb_http_conn_of (req->con);
  if (c && authed && s->bearer_token)
    c->authed = true;
  if (!authed && !public_route (s, req))
    {
      ebb_http_error (&req->resp, MHD_HTTP_UNAUTHORIZED, "unauthorized",
                      "missing or wrong bearer token");
      ebb_http_reply_header (&req->resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
      return queue (req);
    }
  if (!route_request (s, req))
    return queue (req);
  if (content_length_too_big (s, req))
    {
      too_large (req);
      return queue (req);
    }
  req->phase = REQ_BODY;
  if (c)
    {
      c->in_body = true;
      c->body_since_usec = ebb_now_usec ();
      c->body_bytes = 0;
    }
  return MHD_YES;
}

/* A chunk of body: appended up to the cap; past it, dropped and answered with 413 at once
 * (or, if MHD will not take a reply mid-upload, when the upload ends). */
static enum MHD_Result
on_body_chunk (ebb_http_request *req, const char *data, size_t size)
{
  size_t cap = req->listener->server->max_body_bytes;
  if (req->phase == REQ_DISCARD)
    {
      req->discarded_bytes += size;
      if (req->discarded_bytes <= EBB_HTTP_DISCARD_LIMIT_BYTES)
        return MHD_YES;
      ebb_log_debug ("http: %s %s: over %d bytes past the body cap, disconnecting", req->method,
                     req->path, EBB_HTTP_DISCARD_LIMIT_BYTES);
      return MHD_NO;
    }
  if (size > cap - req->body_len)
    {
      free (req->body);
      req->body = NULL;
      req->body_len = req->body_alloc = 0;
      req->phase = REQ_DISCARD;
      too_large (req);
      if (queue (req) != MHD_YES)
        {
          ebb_log_debug ("http: %s %s: body over the cap, answering after the upload", req->method,
                         req->path);
          req->phase = REQ_DISCARD;
        }
      return MHD_YES;
    }
  if (req->body_len + size + 1 > req->body_alloc)
    {
      size_t want = req->body_alloc ? req->body_alloc * 2 : 4096;
      while (want < req->body_len + size + 1)
        want *= 2;
      if (want > cap + 1)
        want = cap + 1;
      req->body = ebb_xrealloc (req->body, want);
      req->body_alloc = want;
    }
  memcpy (req->body + req->body_len, data, size);
  req->body_len += size;
  req->body[req->body_len] = '\0';
  return MHD_YES;
}

static bool
wants_json (const ebb_http_request *req)
{
  if (req->body_len == 0)
    return false;
  if (req->route->flags & EBB_HTTP_ROUTE_JSON)
    return true;
  const char *ct = ebb_http_request_header (req, MHD_HTTP_HEADER_CONTENT_TYPE);
  return ct && strncasecmp (ct, "application/json", 16) == 0
         && (ct[16] == '\0' || ct[16] == ';' || ct[16] == ' ');
}

/* Parses the body as JSON when it should be; on failure fills a 400. */
static bool
parse_body (ebb_http_request *req)
{
  if (!wants_json (req))
    return true;
  json_tokener *tok = json_tokener_new ();
  req->json = json_tokener_parse_ex (tok, req->body, (int)req->body_len);
  enum json_tokener_error jerr = json_tokener_get_error (tok);
  size_t end = json_tokener_get_parse_end (tok);
  bool trailing = jerr == json_tokener_success
                  && req->body[end + strspn (req->body + end, " \t\r\n")] != '\0';
  bool ok = jerr == json_tokener_success && !trailing;
  if (!ok)
    {
      json_object_put (req->json);
      req->json = NULL;
      ebb_http_error (&req->resp, MHD_HTTP_BAD_REQUEST, "bad_request", "invalid JSON: %s",
                      trailing                        ? "trailing data after the value"
                      : jerr == json_tokener_continue ? "unexpected end of input"
                                                      : json_tokener_error_desc (jerr));
    }
  json_tokener_free (tok);
  return ok;
}

/* The whole request is in: run the handler, then reply or suspend. */
static enum MHD_Result
on_complete (ebb_http_request *req)
{
  ebb_http_server *s = req->listener->server;
  if (req->phase == REQ_DISCARD)
    {
      too_large (req);
      return queue (req);
    }
  if (!parse_body (req))
    return queue (req);
  int r = s->gate && s->gate (req, &req->resp, s->userdata)
              ? EBB_HTTP_REPLIED
              : req->route->handler (req, &req->resp, s->userdata);
  if (r == EBB_HTTP_DEFERRED && req->deferred)
    {
      MHD_suspend_connection (req->con);
      req->phase = REQ_SUSPENDED;
      ebb_http_request_link_suspended (s, req);
      return MHD_YES;
    }
  /* DEFERRED without a live handle: the handle was completed inside the handler (its
   * response is in req->resp), or the handler never deferred (then it is a 500 unless it
   * set a response). */
  return queue (req);
}

/* The request line and headers are in: from now on the connection gets the idle timeout. */
static void
headers_in (ebb_http_server *s, struct MHD_Connection *con)
{
  ebb_http_conn *c = ebb_http_conn_of (con);
  if (c && !c->headers_done)
    {
      c->headers_done = true;
      MHD_set_connection_option (con, MHD_CONNECTION_OPTION_TIMEOUT, s->conn_timeout_sec);
    }
}

enum MHD_Result
ebb_http_request_on_access (void *cls, struct MHD_Connection *con, const char *url,
                            const char *method, const char *version EBB_UNUSED,
                            const char *upload_data, size_t *upload_data_size, void **con_cls)
{
  ebb_http_request *req = *con_cls;
  if (!req)
    {
      req = ebb_xcalloc (1, sizeof *req);
      req->listener = cls;
      req->con = con;
      req->method = ebb_xstrdup (method);
      req->path = ebb_xstrdup (url);
      req->start_usec = ebb_now_usec ();
      *con_cls = req;
      headers_in (req->listener->server, con);
      return on_headers (req);
    }
  switch (req->phase)
    {
    case REQ_BODY:
    case REQ_DISCARD:
      if (*upload_data_size == 0)
        {
          ebb_http_conn *done = ebb_http_conn_of (con);
          if (done)
            done->in_body = false;
          return on_complete (req);
        }
      ebb_http_conn *c = ebb_http_conn_of (con);
      if (c)
        c->body_bytes += *upload_data_size;
      enum MHD_Result ret = on_body_chunk (req, upload_data, *upload_data_size);
      *upload_data_size = 0;
      return ret;
    case REQ_RESUMED:
      return queue (req);
    default:
      *upload_data_size = 0;
      return MHD_YES;
    }
}

void
ebb_http_request_on_completed (void *cls EBB_UNUSED, struct MHD_Connection *con, void **con_cls,
                               enum MHD_RequestTerminationCode toe)
{
  ebb_http_request *req = *con_cls;
  if (!req)
    return;
  *con_cls = NULL;
  ebb_http_server *s = req->listener->server;
  if (req->sent_status)
    {
      s->stats.requests++;
      unsigned cls_idx = req->sent_status / 100;
      if (cls_idx < EBB_ARRAY_SIZE (s->stats.by_class))
        s->stats.by_class[cls_idx]++;
    }
  /* Kept alive, the connection waits for the next request's headers: back to the header
   * timeout, and a slowloris suspect again until they are in. */
  ebb_http_conn *c = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? ebb_http_conn_of (con) : NULL;
  if (c && c->headers_done)
    {
      c->headers_done = false;
      c->in_body = false;
      c->since_usec = ebb_now_usec ();
      MHD_set_connection_option (con, MHD_CONNECTION_OPTION_TIMEOUT, s->header_timeout_sec);
    }
  ebb_log_debug ("http: %s %s -> %u (%" PRIu64 " us, %s%s)", req->method, req->path,
                 req->sent_status, ebb_now_usec () - req->start_usec,
                 req->listener->sock.is_unix ? "unix" : "tcp",
                 toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : ", aborted");
  if (req->deferred)
    req->deferred->req = NULL; /* its owner will complete it into the void */
  if (req->stream)
    {
      ebb_http_stream_attach (req->stream, NULL); /* MHD frees it with its response */
      req->stream = NULL;
    }
  ebb_http_request_unlink_suspended (req->listener->server, req);
  request_free (req);
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* MHD_OPTION_UNESCAPE_CALLBACK for the path and query arguments: percent-decoding in place,
 * except that "%00" and "%2F" stay as they are. Decoded, "%00" would cut the string short
 * ("DELETE /v1/tasks/x%00/anything" routed as "DELETE /v1/tasks/x"), and "%2F" would add a
 * segment ("POST /v1/tasks/keep%2fsuspend" routed as the suspension of task keep). */
size_t
ebb_http_request_unescape (void *cls EBB_UNUSED, struct MHD_Connection *con EBB_UNUSED, char *s)
{
  char *w = s;
  for (const char *r = s; *r;)
    {
      int hi = r[0] == '%' ? hex_value (r[1]) : -1;
      int lo = hi >= 0 ? hex_value (r[2]) : -1;
      if (lo >= 0 && (hi | lo) != 0 && !(hi == 2 && lo == 0xf))
        {
          *w++ = (char)(hi * 16 + lo);
          r += 3;
        }
      else
        *w++ = *r++;
    }
  *w = '\0';
  return (size_t)(w - s);
}

ebb_http_deferred *
ebb_http_defer (ebb_http_request *req)
{
  if (!req->deferred)
    {
      req->deferred = ebb_xcalloc (1, sizeof *req->deferred);
      req->deferred->req = req;
    }
  return req->deferred;
}

ebb_http_response *
ebb_http_deferred_response (ebb_http_deferred *d)
{
  return &d->resp;
}

ebb_http_request *
ebb_http_deferred_request (ebb_http_deferred *d)
{
  return d->req;
}

void
ebb_http_deferred_complete (ebb_http_deferred *d)
{
  if (!d)
    return;
  ebb_http_request *req = d->req;
  if (req)
    {
      req->deferred = NULL;
      if (req->phase == REQ_BODY)
        ebb_http_response_move (&req->resp, &d->resp); /* completed inside the handler */
      else if (req->phase == REQ_SUSPENDED)
        {
          ebb_http_response_move (&req->resp, &d->resp);
          ebb_http_request_unlink_suspended (req->listener->server, req);
          req->phase = REQ_RESUMED;
          MHD_resume_connection (req->con);
          /* MHD's epoll fd does not wake up for a resume in external-poll mode: run MHD
           * from the loop's next iteration. */
          ebb_http_listener *l = req->listener;
          sd_event_source_set_time (l->timer, 0);
          sd_event_source_set_enabled (l->timer, SD_EVENT_ONESHOT);
        }
    }
  ebb_http_response_clear (&d->resp);
  free (d);
}
