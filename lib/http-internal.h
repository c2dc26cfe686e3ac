/* Structures shared by the HTTP server's files (internal to libebb-common). */
#ifndef EBB_HTTP_INTERNAL_H
#define EBB_HTTP_INTERNAL_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/http-listen.h"
#include "lib/http-route.h"
#include "lib/http-server.h"

typedef struct
{
  char *name;
  char *value;
} ebb_http_header;

struct ebb_http_response
{
  bool set;
  unsigned status;
  char *body;
  size_t body_len;
  char *content_type;
  ebb_http_header *headers;
  size_t n_headers;
  ebb_http_stream *stream; /* a streamed body (http-stream.c) instead of body */
};

/* One open connection (MHD's socket context), in its listener's list oldest first, for the
 * limits, their eviction and the minimum data rates. */
typedef struct ebb_http_conn
{
  struct ebb_http_conn *prev, *next;
  struct MHD_Connection *con;
  int family; /* AF_INET, AF_INET6 or AF_UNIX (no per-address limit) */
  unsigned char addr[16];
  uint64_t since_usec; /* accepted, or the last request finished (keep-alive) */
  bool headers_done;   /* a request's headers are in; not a slowloris suspect */
  bool authed;         /* a request with the token came in on it: never evicted for room */
  bool in_body;        /* reading a request body, since body_since_usec */
  uint64_t body_since_usec;
  uint64_t body_bytes; /* of the body being read */
  bool evicted;        /* shut down to make room; no longer counted */
} ebb_http_conn;

/* One listen spec: its socket, its own MHD daemon driven by the server's loop, and its own
 * open connections and limits (a flood on one listener never locks out another). */
typedef struct
{
  ebb_http_server *server;
  ebb_http_listen_socket sock;
  struct MHD_Daemon *mhd;
  sd_event_source *io;
  sd_event_source *timer;
  ebb_http_conn *conns_head, *conns_tail; /* open connections, oldest first */
  size_t n_conns;                         /* in the list, evicted ones included */
  size_t n_evicted;                       /* shut down, not yet closed by MHD */
} ebb_http_listener;

typedef enum
{
  REQ_NEW,       /* first call: headers only */
  REQ_BODY,      /* reading the body */
  REQ_DISCARD,   /* body over the cap: consuming and dropping it */
  REQ_SUSPENDED, /* handler deferred; the connection is suspended */
  REQ_RESUMED,   /* deferred reply ready, connection resumed */
  REQ_QUEUED,    /* a response has been queued to MHD */
} ebb_http_req_phase;

struct ebb_http_request
{
  ebb_http_listener *listener;
  struct MHD_Connection *con;
  ebb_http_req_phase phase;
  char *method;
  char *path;
  const ebb_http_route *route;
  ebb_http_captures caps;
  char *body;
  size_t body_len, body_alloc;
  size_t discarded_bytes; /* body bytes dropped after the cap was exceeded */
  json_object *json;
  ebb_http_response resp;
  ebb_http_deferred *deferred;
  ebb_http_request *susp_prev, *susp_next; /* in the server's list of suspended requests */
  unsigned sent_status;
  uint64_t start_usec;
  ebb_http_stream *stream; /* the streamed body being sent, until MHD frees it */
};

struct ebb_http_deferred
{
  ebb_http_request *req; /* NULL once the connection or the server is gone */
  ebb_http_response resp;
};

struct ebb_http_server
{
  sd_event *event;
  ebb_http_listener *listeners;
  size_t n_listeners;
  const ebb_http_route *routes;
  size_t n_routes;
  void *userdata;
  bool (*gate) (ebb_http_request *req, ebb_http_response *resp, void *userdata);
  char *bearer_token;
  size_t max_body_bytes;
  unsigned conn_timeout_sec;
  unsigned header_timeout_sec;
  unsigned max_connections, max_connections_per_ip; /* per listener */
  char *tls_cert, *tls_key;                         /* PEM text; NULL: plain http */
  sd_event_source *rate_timer;                      /* the minimum data rates, every tick */
  ebb_http_server_stats stats;
  ebb_http_request *suspended; /* head of the suspended list */
};

/* Past the body cap, MHD 0.9.x will not take a reply until the upload ends, so the rest is
 * read and dropped; a client that goes on streaming beyond this is disconnected instead. */
#define EBB_HTTP_DISCARD_LIMIT_BYTES (1024 * 1024)

/* http-response.c */
void ebb_http_response_clear (ebb_http_response *resp);
void ebb_http_response_move (ebb_http_response *dst, ebb_http_response *src);
/* Builds the MHD response (JSON 500 when resp is unset; a streamed body moves into it);
 * returns NULL only on MHD failure. */
struct MHD_Response *ebb_http_response_build (ebb_http_response *resp);

/* http-stream.c: the MHD response of resp's stream (taken from resp; NULL on failure, the
 * stream then freed); binds a queued stream and its request; frees a stream (its done
 * callback runs); ends a stream at shutdown, resuming its connection. */
struct MHD_Response *ebb_http_stream_build (ebb_http_response *resp);
void ebb_http_stream_attach (ebb_http_stream *st, ebb_http_request *req);
void ebb_http_stream_free (ebb_http_stream *st);
void ebb_http_stream_release (ebb_http_stream *st);

/* http-server.c */
void ebb_http_server_run_mhd (ebb_http_listener *l);

/* http-request.c: MHD's access handler, completion and unescape callbacks (cls: the
 * listener), and the linking and unlinking of a request on the server's suspended list. */
enum MHD_Result ebb_http_request_on_access (void *cls, struct MHD_Connection *con, const char *url,
                                            const char *method, const char *version,
                                            const char *upload_data, size_t *upload_data_size,
                                            void **con_cls);
void ebb_http_request_on_completed (void *cls, struct MHD_Connection *con, void **con_cls,
                                    enum MHD_RequestTerminationCode toe);
size_t ebb_http_request_unescape (void *cls, struct MHD_Connection *con, char *s);
void ebb_http_request_unlink_suspended (ebb_http_server *s, ebb_http_request *req);
void ebb_http_request_link_suspended (ebb_http_server *s, ebb_http_request *req);

/* Room kept in MHD's own connection limit over ours for evicted connections that MHD has
 * not closed yet (they close in its next run). */
#define EBB_HTTP_EVICT_SLACK 64

/* How often the minimum data rates (http-server.h) are checked: often, so that a flood's
 * connections reaching their deadline together are closed in small batches, not in one
 * long pause of the loop. */
#define EBB_HTTP_RATE_TICK_MS 100

/* http-conn.c: MHD's accept policy and connection-notify callbacks (cls: the listener),
 * the rate check, and the request's marks on its connection. */
enum MHD_Result ebb_http_conn_accept_policy (void *cls, const struct sockaddr *sa, socklen_t len);
void ebb_http_conn_on_notify (void *cls, struct MHD_Connection *con, void **socket_context,
                              enum MHD_ConnectionNotificationCode code);
void ebb_http_conn_check_rates (ebb_http_server *s, uint64_t now_usec);
ebb_http_conn *ebb_http_conn_of (struct MHD_Connection *con);

#endif
