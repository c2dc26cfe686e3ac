/* The server's event-loop glue and lifetime: one MHD daemon per listener, in
 * external-poll mode, driven by an sd-event io source on its epoll fd plus a timer from
 * MHD_get_timeout(). Requests are in http-request.c, connection limits in http-conn.c. */
#include "config.h"

#include <string.h>
#include <sys/resource.h>

#include "lib/http-internal.h"
#include "lib/log.h"
#include "lib/secret.h"
#include "lib/time.h"

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

/* Starts the MHD daemon on the listener's socket and hooks it into the loop. */
static int
listener_start (ebb_http_server *s, ebb_http_listener *l, ebb_error **err)
{
  unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  bool tls = s->tls_cert && !l->sock.is_unix;
  /* An option array ends at its own MHD_OPTION_END: empty, it adds nothing. */
  struct MHD_OptionItem tls_opts[4] = { { MHD_OPTION_END, 0, NULL } };
  if (tls)
    {
      flags |= MHD_USE_TLS;
      tls_opts[0] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, s->tls_key };
      tls_opts[1] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, s->tls_cert };
      tls_opts[2] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
                                             (void *)EBB_HTTP_TLS_PRIORITIES };
      tls_opts[3] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
      char *u = ebb_xasprintf ("https%s", l->sock.base_url + 4); /* "http://..." */
      free (l->sock.base_url);
      l->sock.base_url = u;
    }
  l->mhd = MHD_start_daemon (
      flags, 0, ebb_http_conn_accept_policy, l, ebb_http_request_on_access, l, MHD_OPTION_ARRAY,
      tls_opts, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, l, MHD_OPTION_LISTEN_SOCKET, l->sock.fd,
      MHD_OPTION_NOTIFY_COMPLETED, ebb_http_request_on_completed, l, MHD_OPTION_NOTIFY_CONNECTION,
      ebb_http_conn_on_notify, l,
      /* Over ours: at its own limit MHD stops accepting, and the queue would wait in the
         backlog uncounted; ebb_http_conn_accept_policy evicts or refuses instead, and the
         slack holds the evicted connections MHD has not closed yet. */
      MHD_OPTION_CONNECTION_LIMIT, s->max_connections + EBB_HTTP_EVICT_SLACK,
      MHD_OPTION_CONNECTION_TIMEOUT, s->header_timeout_sec, MHD_OPTION_UNESCAPE_CALLBACK,
      ebb_http_request_unescape, NULL, MHD_OPTION_END);
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
  /* The key is a secret: the one reader's rules (chmod 600), as for the tokens. */
  return ebb_secret_read_file (cfg->tls_key_file, "http server: TLS key", &s->tls_key, err);
}

/* At most the configured number per listener, and never more than the open-file limit
 * allows all n listeners (minus a reserve for the program's own files and each listener's
 * eviction slack): past it, accept() would fail in a loop. */
static unsigned
connection_cap (unsigned want, size_t n)
{
  struct rlimit rl;
  rlim_t reserve = 64 + (rlim_t)n * EBB_HTTP_EVICT_SLACK;
  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
      && rl.rlim_cur > reserve + 2 * n)
    {
      rlim_t room = (rl.rlim_cur - reserve) / n;
      if (want > room)
        want = (unsigned)room;
    }
  return want;
}

static int
on_rate_tick (sd_event_source *src, uint64_t usec, void *userdata)
{
  ebb_http_server *s = userdata;
  ebb_http_conn_check_rates (s, ebb_now_usec ());
  /* Evicted connections close in MHD's next run. */
  for (size_t i = 0; i < s->n_listeners; i++)
    ebb_http_server_run_mhd (&s->listeners[i]);
  sd_event_source_set_time (src, usec + EBB_HTTP_RATE_TICK_MS * 1000ull);
  return 0;
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
  s->gate = cfg->gate;
  if (cfg->bearer_token && cfg->bearer_token[0])
    s->bearer_token = ebb_xstrdup (cfg->bearer_token);
  s->max_body_bytes = cfg->max_body_bytes ? cfg->max_body_bytes : EBB_HTTP_DEFAULT_MAX_BODY_BYTES;
  s->conn_timeout_sec
      = cfg->conn_timeout_sec ? cfg->conn_timeout_sec : EBB_HTTP_DEFAULT_CONN_TIMEOUT_SEC;
  s->header_timeout_sec
      = cfg->header_timeout_sec ? cfg->header_timeout_sec : EBB_HTTP_DEFAULT_HEADER_TIMEOUT_SEC;
  size_t n = 0;
  while (cfg->listen[n])
    n++;
  s->max_connections = connection_cap (
      cfg->max_connections ? cfg->max_connections : EBB_HTTP_DEFAULT_MAX_CONNECTIONS, n);
  s->max_connections_per_ip = cfg->max_connections_per_ip ? cfg->max_connections_per_ip
                                                          : EBB_HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP;
  gid_t gid = (gid_t)-1;
  if (load_tls (s, cfg, err) < 0
      || (cfg->unix_group && ebb_http_resolve_group (cfg->unix_group, &gid, err) < 0))
    {
      ebb_http_server_free (s);
      return NULL;
    }
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
  int r = sd_event_add_time_relative (event, &s->rate_timer, CLOCK_MONOTONIC,
                                      EBB_HTTP_RATE_TICK_MS * 1000ull, 100 * 1000, on_rate_tick, s);
  if (r < 0 || sd_event_source_set_enabled (s->rate_timer, SD_EVENT_ON) < 0)
    {
      ebb_error_set_errno (err, r < 0 ? -r : EIO, "http server: rate timer");
      ebb_http_server_free (s);
      return NULL;
    }
  return s;
}

/* Suspended requests cannot be left to MHD_stop_daemon (it aborts on them): answer them
 * 503 and resume them; their handles live on, detached. A waiting stream ends instead. */
static void
release_suspended (ebb_http_server *s)
{
  while (s->suspended)
    {
      ebb_http_request *req = s->suspended;
      ebb_http_request_unlink_suspended (s, req);
      if (req->stream)
        {
          ebb_http_stream_release (req->stream); /* its body ends */
          continue;
        }
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
  s->rate_timer = sd_event_source_disable_unref (s->rate_timer);
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
  out->open_connections = 0;
  for (size_t i = 0; i < s->n_listeners; i++)
    out->open_connections += s->listeners[i].n_conns - s->listeners[i].n_evicted;
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
