/* The server's event-loop glue and request lifecycle: one MHD daemon per listener, in
 * external-poll mode, driven by an sd-event io source on its epoll fd plus a timer from
 * MHD_get_timeout(). Per-request state lives in *con_cls and is freed in the completion
 * callback. */
#include "config.h"

#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>

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

static void
suspended_unlink (ebb_http_server *s, ebb_http_request *req)
{
  if (req->susp_prev)
    req->susp_prev->susp_next = req->susp_next;
  else if (s->suspended == req)
    s->suspended = req->susp_next;
  if (req->susp_next)
    req->susp_next->susp_prev = req->susp_prev;
  req->susp_prev = req->susp_next = NULL;
}

/* Queues req->resp (or the 500 fallback); returns MHD's verdict. */
static enum MHD_Result
queue (ebb_http_request *req)
{
  struct MHD_Response *r = ebb_http_response_build (&req->resp);
  if (!r)
    return MHD_NO;
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

static bool
authorized (const ebb_http_server *s, const ebb_http_request *req)
{
  if (!s->bearer_token)
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

/* First call for a request: headers only. Auth, routing and the declared size are checked
 * before any body is read. */
static enum MHD_Result
on_headers (ebb_http_request *req)
{
  ebb_http_server *s = req->listener->server;
  if (!authorized (s, req) && !public_route (s, req))
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
  int r = req->route->handler (req, &req->resp, s->userdata);
  if (r == EBB_HTTP_DEFERRED && req->deferred)
    {
      MHD_suspend_connection (req->con);
      req->phase = REQ_SUSPENDED;
      req->susp_next = s->suspended;
      if (s->suspended)
        s->suspended->susp_prev = req;
      s->suspended = req;
      return MHD_YES;
    }
  /* DEFERRED without a live handle: the handle was completed inside the handler (its
   * response is in req->resp), or the handler never deferred (then it is a 500 unless it
   * set a response). */
  return queue (req);
}

static ebb_http_conn *
conn_of (struct MHD_Connection *con)
{
  const union MHD_ConnectionInfo *ci
      = MHD_get_connection_info (con, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return ci ? ci->socket_context : NULL;
}

/* The request line and headers are in: from now on the connection gets the idle timeout. */
static void
headers_in (ebb_http_server *s, struct MHD_Connection *con)
{
  ebb_http_conn *c = conn_of (con);
  if (c && !c->headers_done)
    {
      c->headers_done = true;
      MHD_set_connection_option (con, MHD_CONNECTION_OPTION_TIMEOUT, s->conn_timeout_sec);
    }
}

static enum MHD_Result
on_access (void *cls, struct MHD_Connection *con, const char *url, const char *method,
           const char *version EBB_UNUSED, const char *upload_data, size_t *upload_data_size,
           void **con_cls)
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
        return on_complete (req);
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

static void
on_completed (void *cls EBB_UNUSED, struct MHD_Connection *con, void **con_cls,
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
  ebb_http_conn *c = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? conn_of (con) : NULL;
  if (c && c->headers_done)
    {
      c->headers_done = false;
      c->since_usec = ebb_now_usec ();
      MHD_set_connection_option (con, MHD_CONNECTION_OPTION_TIMEOUT, s->header_timeout_sec);
    }
  ebb_log_debug ("http: %s %s -> %u (%" PRIu64 " us, %s%s)", req->method, req->path,
                 req->sent_status, ebb_now_usec () - req->start_usec,
                 req->listener->sock.is_unix ? "unix" : "tcp",
                 toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "" : ", aborted");
  if (req->deferred)
    req->deferred->req = NULL; /* its owner will complete it into the void */
  suspended_unlink (req->listener->server, req);
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
 * except that "%00" stays as it is. Decoded, it would cut the string short, and
 * "DELETE /v1/tasks/x%00/anything" would be routed as "DELETE /v1/tasks/x". */
static size_t
unescape (void *cls EBB_UNUSED, struct MHD_Connection *con EBB_UNUSED, char *s)
{
  char *w = s;
  for (const char *r = s; *r;)
    {
      int hi = r[0] == '%' ? hex_value (r[1]) : -1;
      int lo = hi >= 0 ? hex_value (r[2]) : -1;
      if (lo >= 0 && (hi | lo) != 0)
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

static void mhd_log (void *cls, const char *fmt, va_list ap) EBB_PRINTF (2, 0);

static void
mhd_log (void *cls EBB_UNUSED, const char *fmt, va_list ap)
{
  /* MHD's messages are about single connections (a client that went away): not errors of
   * the daemon, so they stay below the default level. */
  ebb_logv (LOG_INFO, fmt, ap);
}

static void
rearm_timer (ebb_http_listener *l)
{
  MHD_UNSIGNED_LONG_LONG timeout_ms = 0;
  if (MHD_get_timeout (l->mhd, &timeout_ms) != MHD_YES)
    {
      sd_event_source_set_enabled (l->timer, SD_EVENT_OFF);
      return;
    }
  uint64_t now = 0;
  sd_event_now (l->server->event, CLOCK_MONOTONIC, &now);
  sd_event_source_set_time (l->timer, now + (uint64_t)timeout_ms * 1000);
  sd_event_source_set_enabled (l->timer, SD_EVENT_ONESHOT);
}

void
ebb_http_server_run_mhd (ebb_http_listener *l)
{
  if (MHD_run (l->mhd) != MHD_YES)
    ebb_log_debug ("http: MHD_run failed");
  rearm_timer (l);
}

static int
on_epoll_ready (sd_event_source *src EBB_UNUSED, int fd EBB_UNUSED, uint32_t revents EBB_UNUSED,
                void *userdata)
{
  ebb_http_server_run_mhd (userdata);
  return 0;
}

static int
on_timer (sd_event_source *src EBB_UNUSED, uint64_t usec EBB_UNUSED, void *userdata)
{
  ebb_http_server_run_mhd (userdata);
  return 0;
}

static bool
conn_same_addr (const ebb_http_conn *c, int family, const unsigned char *addr)
{
  size_t n = family == AF_INET ? 4 : 16;
  return c->family == family && memcmp (c->addr, addr, n) == 0;
}

/* The address part of a sockaddr for the per-address limit; false for unix peers. */
static bool
addr_key (const struct sockaddr *sa, int *family, unsigned char addr[16])
{
  if (!sa)
    return false;
  if (sa->sa_family == AF_INET)
    {
      memcpy (addr, &((const struct sockaddr_in *)sa)->sin_addr, 4);
      *family = AF_INET;
      return true;
    }
  if (sa->sa_family == AF_INET6)
    {
      memcpy (addr, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
      *family = AF_INET6;
      return true;
    }
  return false;
}

/* Closes a connection from outside MHD: a shutdown makes its socket readable at EOF, and
 * MHD then closes and forgets it in its next run. */
static void
evict (ebb_http_conn *c)
{
  const union MHD_ConnectionInfo *ci
      = MHD_get_connection_info (c->con, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (ci)
    shutdown (ci->connect_fd, SHUT_RDWR);
  c->evicted = true;
}

/* MHD's accept policy callback: the total and per-address limits. Ours rather than
 * MHD's own, to count refusals and to evict instead of refusing where that is safe. */
static enum MHD_Result
accept_policy (void *cls, const struct sockaddr *sa, socklen_t len EBB_UNUSED)
{
  ebb_http_listener *l = cls;
  ebb_http_server *s = l->server;
  if (s->n_conns >= s->max_connections)
    {
      s->stats.rejected_total++;
      return MHD_NO;
    }
  int family = 0;
  unsigned char addr[16];
  if (!addr_key (sa, &family, addr))
    return MHD_YES;
  size_t mine = 0;
  ebb_http_conn *victim = NULL;
  uint64_t now = ebb_now_usec ();
  for (ebb_http_conn *c = s->conns_head; c; c = c->next)
    {
      if (c->evicted || !conn_same_addr (c, family, addr))
        continue;
      mine++;
      if (!victim && !c->headers_done
          && now - c->since_usec >= (uint64_t)EBB_HTTP_EVICT_MIN_AGE_MS * 1000)
        victim = c;
    }
  if (mine < s->max_connections_per_ip)
    return MHD_YES;
  if (!victim)
    {
      s->stats.rejected_per_ip++;
      return MHD_NO;
    }
  evict (victim);
  s->stats.evicted++;
  return MHD_YES;
}

static void
on_connection (void *cls, struct MHD_Connection *con, void **socket_context,
               enum MHD_ConnectionNotificationCode code)
{
  ebb_http_listener *l = cls;
  ebb_http_server *s = l->server;
  if (code == MHD_CONNECTION_NOTIFY_STARTED)
    {
      ebb_http_conn *c = ebb_xcalloc (1, sizeof *c);
      c->con = con;
      c->since_usec = ebb_now_usec ();
      const union MHD_ConnectionInfo *ci
          = MHD_get_connection_info (con, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
      if (!ci || !addr_key (ci->client_addr, &c->family, c->addr))
        c->family = AF_UNIX;
      c->prev = s->conns_tail;
      if (s->conns_tail)
        s->conns_tail->next = c;
      else
        s->conns_head = c;
      s->conns_tail = c;
      s->n_conns++;
      s->stats.connections++;
      *socket_context = c;
      return;
    }
  ebb_http_conn *c = *socket_context;
  if (!c)
    return;
  *socket_context = NULL;
  if (c->prev)
    c->prev->next = c->next;
  else
    s->conns_head = c->next;
  if (c->next)
    c->next->prev = c->prev;
  else
    s->conns_tail = c->prev;
  s->n_conns--;
  free (c);
}

/* Starts the MHD daemon on the listener's socket and hooks it into the loop. */
static int
listener_start (ebb_http_server *s, ebb_http_listener *l, ebb_error **err)
{
  unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  bool tls = s->tls_cert && !l->sock.is_unix;
  /* An option array ends at its own MHD_OPTION_END: empty, it adds nothing. */
  struct MHD_OptionItem tls_opts[3] = { { MHD_OPTION_END, 0, NULL } };
  if (tls)
    {
      flags |= MHD_USE_TLS;
      tls_opts[0] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, s->tls_key };
      tls_opts[1] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, s->tls_cert };
      tls_opts[2] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
      char *u = ebb_xasprintf ("https%s", l->sock.base_url + 4); /* "http://..." */
      free (l->sock.base_url);
      l->sock.base_url = u;
    }
  l->mhd = MHD_start_daemon (
      flags, 0, accept_policy, l, on_access, l, MHD_OPTION_ARRAY, tls_opts,
      MHD_OPTION_EXTERNAL_LOGGER, mhd_log, l, MHD_OPTION_LISTEN_SOCKET, l->sock.fd,
      MHD_OPTION_NOTIFY_COMPLETED, on_completed, l, MHD_OPTION_NOTIFY_CONNECTION, on_connection, l,
      /* One over ours: at its own limit MHD stops accepting, and the queue would wait in the
         backlog uncounted; accept_policy refuses instead. */
      MHD_OPTION_CONNECTION_LIMIT, s->max_connections + 1, MHD_OPTION_CONNECTION_TIMEOUT,
      s->header_timeout_sec, MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
  if (!l->mhd)
    return ebb_error_set (err, EIO, "listen %s: cannot start libmicrohttpd%s", l->sock.base_url,
                          tls ? " (is the TLS key/certificate pair valid PEM?)" : "");
  l->sock.fd = -1; /* MHD owns and closes it now */
  const union MHD_DaemonInfo *info = MHD_get_daemon_info (l->mhd, MHD_DAEMON_INFO_EPOLL_FD);
  if (!info)
    return ebb_error_set (err, EIO, "listen %s: no epoll fd from libmicrohttpd", l->sock.base_url);
  int r = sd_event_add_io (s->event, &l->io, info->epoll_fd, EPOLLIN, on_epoll_ready, l);
  if (r < 0)
    return ebb_error_set_errno (err, -r, "listen %s: sd_event_add_io", l->sock.base_url);
  r = sd_event_add_time (s->event, &l->timer, CLOCK_MONOTONIC, UINT64_MAX, 1000, on_timer, l);
  if (r < 0)
    return ebb_error_set_errno (err, -r, "listen %s: sd_event_add_time", l->sock.base_url);
  rearm_timer (l);
  return 0;
}

static int
check_config (const ebb_http_server_config *cfg, ebb_error **err)
{
  if (!cfg || !cfg->listen || !cfg->listen[0])
    return ebb_error_set (err, EINVAL, "http server: no listen address");
  for (size_t i = 0; i < cfg->n_routes; i++)
    {
      const ebb_http_route *r = &cfg->routes[i];
      if (!r->method || !r->pattern || r->pattern[0] != '/' || !r->handler)
        return ebb_error_set (err, EINVAL, "http server: route %zu is incomplete", i);
    }
  bool token = cfg->bearer_token && cfg->bearer_token[0];
  for (size_t i = 0; cfg->listen[i]; i++)
    if (!token && !ebb_http_listen_spec_is_unix (cfg->listen[i]))
      return ebb_error_set (err, EINVAL,
                            "listen %s: a TCP listener needs a bearer token (loopback too: any "
                            "local user can connect); set one, or listen on unix:/path",
                            cfg->listen[i]);
  return 0;
}

/* Reads a PEM file whole (they are small; a cap keeps a wrong path from eating memory). */
static int
read_pem (const char *path, const char *what, char **out, ebb_error **err)
{
  FILE *f = fopen (path, "re");
  if (!f)
    return ebb_error_set_errno (err, errno, "http server: %s %s", what, path);
  size_t cap = 1024 * 1024, len = 0;
  char *buf = ebb_xcalloc (1, cap + 1);
  size_t n;
  while (len < cap && (n = fread (buf + len, 1, cap - len, f)) > 0)
    len += n;
  bool bad = ferror (f) || len == 0 || len == cap;
  fclose (f);
  if (bad)
    {
      free (buf);
      return ebb_error_set (err, EINVAL, "http server: %s %s: empty, unreadable or over 1 MiB",
                            what, path);
    }
  *out = buf;
  return 0;
}

static int
load_tls (ebb_http_server *s, const ebb_http_server_config *cfg, ebb_error **err)
{
  bool cert = cfg->tls_cert_file && cfg->tls_cert_file[0];
  bool key = cfg->tls_key_file && cfg->tls_key_file[0];
  if (!cert && !key)
    return 0;
  if (!cert || !key)
    return ebb_error_set (err, EINVAL, "http server: TLS needs both a certificate and a key");
  if (MHD_is_feature_supported (MHD_FEATURE_TLS) != MHD_YES)
    return ebb_error_set (err, ENOTSUP, "http server: libmicrohttpd was built without TLS");
  int r = read_pem (cfg->tls_cert_file, "TLS certificate", &s->tls_cert, err);
  if (r < 0)
    return r;
  return read_pem (cfg->tls_key_file, "TLS key", &s->tls_key, err);
}

/* At most the configured total, and never more than the open-file limit allows (minus a
 * reserve for the program's own files): past it, accept() would fail in a loop. */
static unsigned
connection_cap (unsigned want)
{
  struct rlimit rl;
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 128)
    {
      rlim_t room = rl.rlim_cur - 64;
      if (want > room)
        want = (unsigned)room;
    }
  return want;
}

ebb_http_server *
ebb_http_server_new (sd_event *event, const ebb_http_server_config *cfg, ebb_error **err)
{
  if (!event)
    return ebb_error_set (err, EINVAL, "http server: no event loop"), NULL;
  if (check_config (cfg, err) < 0)
    return NULL;
  ebb_http_server *s = ebb_xcalloc (1, sizeof *s);
  s->event = sd_event_ref (event);
  s->routes = cfg->routes;
  s->n_routes = cfg->n_routes;
  s->userdata = cfg->userdata;
  if (cfg->bearer_token && cfg->bearer_token[0])
    s->bearer_token = ebb_xstrdup (cfg->bearer_token);
  s->max_body_bytes = cfg->max_body_bytes ? cfg->max_body_bytes : EBB_HTTP_DEFAULT_MAX_BODY_BYTES;
  s->conn_timeout_sec
      = cfg->conn_timeout_sec ? cfg->conn_timeout_sec : EBB_HTTP_DEFAULT_CONN_TIMEOUT_SEC;
  s->header_timeout_sec
      = cfg->header_timeout_sec ? cfg->header_timeout_sec : EBB_HTTP_DEFAULT_HEADER_TIMEOUT_SEC;
  s->max_connections = connection_cap (cfg->max_connections ? cfg->max_connections
                                                            : EBB_HTTP_DEFAULT_MAX_CONNECTIONS);
  s->max_connections_per_ip = cfg->max_connections_per_ip ? cfg->max_connections_per_ip
                                                          : EBB_HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP;
  gid_t gid = (gid_t)-1;
  if (load_tls (s, cfg, err) < 0
      || (cfg->unix_group && ebb_http_resolve_group (cfg->unix_group, &gid, err) < 0))
    {
      ebb_http_server_free (s);
      return NULL;
    }
  size_t n = 0;
  while (cfg->listen[n])
    n++;
  s->listeners = ebb_xcalloc (n, sizeof *s->listeners);
  for (size_t i = 0; i < n; i++, s->n_listeners++)
    {
      ebb_http_listener *l = &s->listeners[i];
      l->server = s;
      if (ebb_http_listen_open (cfg->listen[i], gid, &l->sock, err) < 0
          || listener_start (s, l, err) < 0)
        {
          s->n_listeners++; /* so free() cleans this half-started one too */
          ebb_http_server_free (s);
          return NULL;
        }
      ebb_log_debug ("http: listening on %s", l->sock.base_url);
    }
  return s;
}

/* Suspended requests cannot be left to MHD_stop_daemon (it aborts on them): answer them
 * 503 and resume them; their handles live on, detached. */
static void
release_suspended (ebb_http_server *s)
{
  while (s->suspended)
    {
      ebb_http_request *req = s->suspended;
      suspended_unlink (s, req);
      if (req->deferred)
        req->deferred->req = NULL;
      req->deferred = NULL;
      ebb_http_error (&req->resp, MHD_HTTP_SERVICE_UNAVAILABLE, "unavailable",
                      "the server is shutting down");
      req->phase = REQ_RESUMED;
      MHD_resume_connection (req->con);
    }
}

void
ebb_http_server_free (ebb_http_server *s)
{
  if (!s)
    return;
  release_suspended (s);
  for (size_t i = 0; i < s->n_listeners; i++)
    {
      ebb_http_listener *l = &s->listeners[i];
      l->io = sd_event_source_disable_unref (l->io);
      l->timer = sd_event_source_disable_unref (l->timer);
      if (l->mhd)
        {
          MHD_run (l->mhd); /* lets resumed requests send their 503 */
          MHD_stop_daemon (l->mhd);
        }
      ebb_http_listen_close (&l->sock);
    }
  free (s->listeners);
  free (s->bearer_token);
  if (s->tls_key)
    explicit_bzero (s->tls_key, strlen (s->tls_key));
  free (s->tls_key);
  free (s->tls_cert);
  sd_event_unref (s->event);
  free (s);
}

void
ebb_http_server_get_stats (const ebb_http_server *s, ebb_http_server_stats *out)
{
  *out = s->stats;
  out->open_connections = s->n_conns;
}

size_t
ebb_http_server_n_listeners (const ebb_http_server *s)
{
  return s->n_listeners;
}

int
ebb_http_server_port (const ebb_http_server *s, size_t idx)
{
  if (idx >= s->n_listeners)
    return -ENOENT;
  if (s->listeners[idx].sock.is_unix)
    return -EAFNOSUPPORT;
  return s->listeners[idx].sock.port;
}

const char *
ebb_http_server_base_url (const ebb_http_server *s, size_t idx)
{
  return idx < s->n_listeners ? s->listeners[idx].sock.base_url : NULL;
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
          suspended_unlink (req->listener->server, req);
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
