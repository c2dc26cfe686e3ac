/* HTTP server glue: libmicrohttpd in external-poll mode inside an sd-event loop, a route table
 * with {name} captures, JSON bodies in and out, JSON errors, a body cap, optional bearer-token
 * auth and deferred (suspended) responses.
 *
 * Threading: every function here must be called on the thread running the sd-event loop the
 * server was attached to. A worker thread that finishes a deferred request hands the result to
 * the loop (e.g. an eventfd source or sd_event_source) which then calls
 * ebb_http_deferred_complete().
 *
 * Errors sent to clients always have the body {"error": "<short_code>", "detail": "<text>"}.
 * Built-in codes: not_found (404), method_not_allowed (405, with Allow), payload_too_large (413),
 * bad_request (400, invalid JSON), unauthorized (401, with WWW-Authenticate: Bearer),
 * internal (500, a handler that set no response), unavailable (503, server shutting down while
 * a request was deferred).
 */
#ifndef EBB_HTTP_SERVER_H
#define EBB_HTTP_SERVER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "lib/error.h"

typedef struct ebb_http_server ebb_http_server;
typedef struct ebb_http_request ebb_http_request;
typedef struct ebb_http_response ebb_http_response;
typedef struct ebb_http_deferred ebb_http_deferred;
typedef struct ebb_http_stream ebb_http_stream;

/* What a handler returns. */
typedef enum
{
  EBB_HTTP_REPLIED = 0,  /* the response was filled (no response at all becomes a 500) */
  EBB_HTTP_DEFERRED = 1, /* ebb_http_defer() was called; the reply comes later */
} ebb_http_handler_result;

typedef enum
{
  EBB_HTTP_PEER_TCP = 0,
  EBB_HTTP_PEER_UNIX = 1,
} ebb_http_peer_kind;

/* A handler: read the request, fill resp (or defer), return an ebb_http_handler_result.
 * userdata is ebb_http_server_config.userdata. */
typedef int (*ebb_http_handler) (ebb_http_request *req, ebb_http_response *resp, void *userdata);

/* Route flags. */
enum
{
  /* Any non-empty body is parsed as JSON whatever its Content-Type (a body with
   * Content-Type: application/json is parsed on every route). */
  EBB_HTTP_ROUTE_JSON = 1u << 0,
  /* Served without the bearer token: only for content that carries no data and changes
   * nothing (a status page's static HTML that then asks the API with the token). */
  EBB_HTTP_ROUTE_PUBLIC = 1u << 1,
};

typedef struct
{
  const char *method;  /* "GET", "POST", "PUT", "DELETE", ... */
  const char *pattern; /* "/v1/tasks/{id}/suspend": literal segments or {name} captures */
  ebb_http_handler handler;
  unsigned flags; /* EBB_HTTP_ROUTE_* */
} ebb_http_route;

#define EBB_HTTP_DEFAULT_MAX_BODY_BYTES   (1024 * 1024)
#define EBB_HTTP_DEFAULT_CONN_TIMEOUT_SEC 30 /* idle, once a request's headers are in */
/* Until the request line and headers are complete (reset by every byte, as MHD's timeouts
 * are): slowloris connections that trickle a header line every 10 s die after 5. */
#define EBB_HTTP_DEFAULT_HEADER_TIMEOUT_SEC 5
/* Open connections per listener (each has its own count; also capped by RLIMIT_NOFILE minus
 * a reserve, shared by the listeners). At the cap, the listener's oldest connection that has
 * not completed a request (no headers yet, or a body still coming) and never showed the
 * token, for at least EBB_HTTP_EVICT_MIN_AGE_MS, is closed to make room; with none, the new
 * one is refused. A connection whose request carried the token is never closed for room.
 * Minimum data rates: a request's line and headers must be complete within
 * header_timeout_sec of the connection's start (or of the end of the previous request), and
 * a body must come at EBB_HTTP_MIN_BODY_BYTES_PER_SEC on average once EBB_HTTP_BODY_GRACE_MS
 * have passed, or the connection is closed however steadily it trickles. */
#define EBB_HTTP_DEFAULT_MAX_CONNECTIONS 4096
#define EBB_HTTP_MIN_BODY_BYTES_PER_SEC  1024
#define EBB_HTTP_BODY_GRACE_MS           2000
/* Open connections per client address and listener. When an address is at its limit, its
 * oldest evictable connection (as above) is closed to make room (so a slowloris source
 * cannot lock out a well-behaved client on the same address); with none, the new one is
 * refused. */
#define EBB_HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP 256
#define EBB_HTTP_EVICT_MIN_AGE_MS               250

/* GnuTLS priorities of the https listeners: TLS 1.2 and 1.3 only, AEAD ciphers only, forward
 * secrecy only (no static RSA key exchange), the server's preference order. */
#define EBB_HTTP_TLS_PRIORITIES                                                                    \
  "SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-256-GCM:+CHACHA20-POLY1305:"     \
  "+AES-128-GCM:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:-SHA1:%SERVER_PRECEDENCE"

typedef struct
{
  /* NULL-terminated list of listen specs: "127.0.0.1:7470", "[::1]:7470", "0.0.0.0:7470",
   * "localhost:0" (port 0: the kernel picks; see ebb_http_server_port()), or "unix:/path"
   * (created mode 0660; a stale socket file is replaced, a live one is EADDRINUSE; the file is
   * removed by ebb_http_server_free()). */
  const char *const *listen;
  const ebb_http_route *routes;
  size_t n_routes;
  void *userdata; /* passed to every handler */
  /* NULL or "": no auth (then only unix listeners are allowed); else every request on a TCP
   * listener needs "Authorization: Bearer <token>". Unix listeners never ask for it: their
   * file mode and group decide who connects (as dockerd's socket). A TCP listener without a
   * token, loopback included, makes ebb_http_server_new() fail with EINVAL. */
  const char *bearer_token;
  size_t max_body_bytes;     /* 0: EBB_HTTP_DEFAULT_MAX_BODY_BYTES */
  unsigned conn_timeout_sec; /* idle connection timeout once headers are in; 0: the default */
  /* Fields added later (zero keeps the old behaviour or a safe default): */
  const char *unix_group;          /* group of unix socket files (name or gid); NULL: ours */
  unsigned header_timeout_sec;     /* see EBB_HTTP_DEFAULT_HEADER_TIMEOUT_SEC; 0: the default */
  unsigned max_connections;        /* per listener; 0: EBB_HTTP_DEFAULT_MAX_CONNECTIONS */
  unsigned max_connections_per_ip; /* 0: EBB_HTTP_DEFAULT_MAX_CONNECTIONS_PER_IP */
  /* PEM files; both set: every TCP listener speaks https only (GnuTLS through
   * libmicrohttpd, EBB_HTTP_TLS_PRIORITIES; unix listeners stay plain http) and its base URL is
   * "https://...". Read once by ebb_http_server_new(): EINVAL when only one is set, the file's
   * errno when unreadable, ENOTSUP when libmicrohttpd was built without TLS, EIO when GnuTLS
   * refuses the pair. */
  const char *tls_cert_file;
  const char *tls_key_file;
  /* NULL, or run before every route's handler with its arguments: true when it replied
   * itself and the handler is not run (a controller's standby sends clients to its leader). */
  bool (*gate) (ebb_http_request *req, ebb_http_response *resp, void *userdata);
} ebb_http_server_config;

/* Counters since the server started (for /metrics). */
typedef struct
{
  uint64_t requests;         /* requests answered (status known) */
  uint64_t by_class[6];      /* by status / 100: [2] 2xx, [4] 4xx, [5] 5xx; [0] unused */
  uint64_t connections;      /* connections accepted */
  uint64_t rejected_total;   /* refused: the listener was at max_connections, nothing to evict */
  uint64_t rejected_per_ip;  /* refused: the address was at its limit, nothing to evict */
  uint64_t evicted;          /* closed: to make room, or too slow (below) */
  uint64_t open_connections; /* now */
  uint64_t too_slow;         /* closed: headers or body below the minimum data rate */
} ebb_http_server_stats;

/* Binds every listener and attaches the server to event (which it references). The config
 * is copied except routes, which must outlive the server (a static table).
 * Returns the server, or NULL with *err set (bad spec: EINVAL; bind failures: their errno;
 * EADDRINUSE for a live unix socket; EEXIST for a non-socket file at the unix path). */
ebb_http_server *ebb_http_server_new (sd_event *event, const ebb_http_server_config *cfg,
                                      ebb_error **err);

/* Stops listening, answers still-deferred requests with 503, closes connections, removes
 * unix socket files. Safe on NULL; not from inside one of its handlers. Outstanding
 * ebb_http_deferred handles stay valid until completed (their completion then only frees them). */
void ebb_http_server_free (ebb_http_server *s);

/* Fills *out with the server's counters. */
void ebb_http_server_get_stats (const ebb_http_server *s, ebb_http_server_stats *out);

/* Whether spec is "unix:/path". */
bool ebb_http_listen_spec_is_unix (const char *spec);

/* Whether a TCP listen spec names a numeric loopback address: 127.0.0.0/8, [::1] or
 * [::ffff:127.x.y.z]. A host name ("localhost" included) is never loopback: what it resolves
 * to is not ours to trust. */
bool ebb_http_listen_spec_is_loopback (const char *spec);

/* Whether host (as in a URL: "127.0.0.1", "[::1]", "::1") is a numeric loopback address. */
bool ebb_http_host_is_loopback (const char *host);

/* Returns the number of listeners (one per listen spec). */
size_t ebb_http_server_n_listeners (const ebb_http_server *s);

/* Returns the bound TCP port of listener idx (the real one when the spec said port 0), or
 * -ENOENT when idx is out of range, -EAFNOSUPPORT for a unix-socket listener. */
int ebb_http_server_port (const ebb_http_server *s, size_t idx);

/* Returns a base address for the client glue that reaches listener idx:
 * "http://127.0.0.1:PORT", "http://[::1]:PORT" (a wildcard bind gives the loopback address;
 * "https://" with TLS) or "unix:/path"; NULL when idx is out of range. Owned by the server. */
const char *ebb_http_server_base_url (const ebb_http_server *s, size_t idx);

/* --- Request getters (valid during the handler; for a deferred request, until completion) */

/* Returns the method ("GET", ...). */
const char *ebb_http_request_method (const ebb_http_request *req);

/* Returns the percent-decoded path, without the query string ("%00" and "%2F" are left
 * encoded, so a NUL never cuts a path short and an encoded '/' never adds a segment). */
const char *ebb_http_request_path (const ebb_http_request *req);

/* Returns the value of capture {name} of the matched route, or NULL if there is none. */
const char *ebb_http_request_capture (const ebb_http_request *req, const char *name);

/* Returns the value of request header name (case-insensitive), or NULL when absent. */
const char *ebb_http_request_header (const ebb_http_request *req, const char *name);

/* Returns the value of query argument name (?name=value), or NULL when absent. */
const char *ebb_http_request_query (const ebb_http_request *req, const char *name);

/* Checks the query arguments of req against names (NULL-terminated) for a handler that
 * reads them with ebb_http_request_query(), which sees only the first of a repeated one:
 * each argument must be one of names, given once, with a value ("?limit" has none).
 * Returns 0, or -EBB_EPARSE with *err naming the argument (for a 400). */
int ebb_http_request_query_check (const ebb_http_request *req, const char *const *names,
                                  ebb_error **err);

/* Reads query argument name as a decimal number from min to max into *out (left as it is
 * when absent). Returns 0, or -EBB_EPARSE with *err saying the range (for a 400). */
int ebb_http_request_query_u64 (const ebb_http_request *req, const char *name, uint64_t min,
                                uint64_t max, uint64_t *out, ebb_error **err);
/* Returns the parsed JSON body (borrowed; json_object_get() to keep it), or NULL when the body
 * was empty or not JSON (see EBB_HTTP_ROUTE_JSON). */
json_object *ebb_http_request_json (const ebb_http_request *req);

/* Returns the raw body (NUL-terminated; "" when empty) and its length in *len_bytes if
 * non-NULL. */
const char *ebb_http_request_body (const ebb_http_request *req, size_t *len_bytes);

/* Parses the raw body strictly with ebb_json_parse (duplicate keys refused, nesting up to
 * max_depth; 0: the default), for routes whose bodies must not be taken loosely. Returns 0
 * and *out (the caller's to put; NULL for an empty or all-blank body), or -EBB_EPARSE with
 * *err. */
int ebb_http_request_body_json (const ebb_http_request *req, int max_depth, json_object **out,
                                ebb_error **err);

/* Returns whether the request came in over a unix socket or TCP. */
ebb_http_peer_kind ebb_http_request_peer_kind (const ebb_http_request *req);
/* The uid of the process at the other end of a unix socket (SO_PEERCRED, taken at its
 * connect). Returns 0 with *uid, -EAFNOSUPPORT for a TCP request, or -errno. */
int ebb_http_request_peer_uid (const ebb_http_request *req, uid_t *uid);

/* --- Responses */

/* Sets a JSON response (application/json) and takes ownership of obj (json_object_put after
 * serialising); obj NULL sends "null". Replaces an earlier response. */
void ebb_http_reply_json (ebb_http_response *resp, unsigned status, json_object *obj);

/* Sets a text response; content_type NULL means "text/plain; charset=utf-8". Prometheus
 * metrics use "text/plain; version=0.0.4". text is copied. */
void ebb_http_reply_text (ebb_http_response *resp, unsigned status, const char *content_type,
                          const char *text);

/* Sets a JSON error response {"error": code, "detail": printf(fmt, ...)}. */
void ebb_http_error (ebb_http_response *resp, unsigned status, const char *code, const char *fmt,
                     ...) EBB_PRINTF (4, 5);

/* Adds a response header (copied); e.g. Location or Retry-After. */
void ebb_http_reply_header (ebb_http_response *resp, const char *name, const char *value);

/* --- Streamed responses */

/* Fills buf with up to max_bytes of the body: returns how many, 0 when nothing is ready
 * (the connection then waits, suspended, for ebb_http_stream_wake()), or
 * EBB_HTTP_STREAM_END (or any negative value) when the body is complete. */
#define EBB_HTTP_STREAM_END ((ssize_t)-1)
typedef ssize_t (*ebb_http_stream_read_fn) (void *ud, char *buf, size_t max_bytes);

/* Sets a response whose body read_fn produces on the loop thread (chunked on HTTP/1.1), at
 * most block_bytes per call (0: 16 KiB), replacing an earlier response. done(ud) runs
 * exactly once, when the response is over (body ended, client gone, server freed, or the
 * response replaced or never sent); the handle is invalid from then on. While a stream
 * waits, a client that went away is noticed only at the next wake. Returns the handle. */
ebb_http_stream *ebb_http_reply_stream (ebb_http_response *resp, unsigned status,
                                        const char *content_type, size_t block_bytes,
                                        ebb_http_stream_read_fn read_fn, void (*done) (void *ud),
                                        void *ud);
/* More of a waiting stream's body is ready (or its end): read_fn is called again from the
 * loop. A no-op when the stream is not waiting. Loop thread only. */
void ebb_http_stream_wake (ebb_http_stream *st);

/* --- Deferred responses */

/* Called by a handler that will answer later; the handler then returns EBB_HTTP_DEFERRED.
 * Returns a handle the caller owns until ebb_http_deferred_complete() (never NULL; calling it
 * twice for one request returns the same handle). */
ebb_http_deferred *ebb_http_defer (ebb_http_request *req);

/* Returns the response to fill for a deferred request. Always valid (if the client or the
 * server went away meanwhile, it is filled and then dropped). */
ebb_http_response *ebb_http_deferred_response (ebb_http_deferred *d);

/* Returns the request of a deferred handle (its getters stay valid), or NULL when the
 * connection or the server went away meanwhile. */
ebb_http_request *ebb_http_deferred_request (ebb_http_deferred *d);

/* Sends the filled response (a 500 if none was set), resumes the connection and frees d.
 * May also be called inside the handler that deferred, before it returns EBB_HTTP_DEFERRED
 * (the response is then sent at once). Safe after the client disconnected or the server was
 * freed (then it only frees d). Loop thread only. */
void ebb_http_deferred_complete (ebb_http_deferred *d);

#endif
