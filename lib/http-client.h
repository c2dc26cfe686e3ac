/* HTTP client glue over libcurl: blocking calls for CLIs, and non-blocking calls for daemons
 * (curl multi driven by an sd-event loop). Both take a base address and a path:
 *
 *   base "http://127.0.0.1:7470" or "http://[::1]:7470" + path "/v1/tasks"
 *   base "https://node-1.example:7470" + path "/v1/tasks" (verified against ca_file, or
 *   the system's CA store)
 *   base "unix:/run/ebb/agent.sock" + path "/v1/tasks" (http://localhost/v1/tasks over the socket)
 *
 * Transport failures are ebb_errors: ECONNREFUSED (nobody listening, also for a unix socket
 * that is missing), EBB_ETIMEDOUT (the whole call took longer than timeout_ms), EBB_ERANGE
 * (response larger than max_response_bytes), EBB_EPARSE (a body labelled application/json that
 * does not parse), EINVAL (bad base address or arguments),
 * EBB_EREFUSED (a bearer token with a plain "http://" base, loopback included: the token goes
 * only over a unix socket or https with a verified certificate, never to a TCP port that
 * anyone could be holding), EIO (anything else, with curl's message, TLS failures included). Any
 * HTTP status, 4xx/5xx included, is a successful call: check result.status.
 */
#ifndef EBB_HTTP_CLIENT_H
#define EBB_HTTP_CLIENT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-event.h>

#include "lib/error.h"

#define EBB_HTTP_DEFAULT_TIMEOUT_MS         30000
#define EBB_HTTP_DEFAULT_MAX_RESPONSE_BYTES (16 * 1024 * 1024)

typedef struct
{
  long status;       /* HTTP status code */
  json_object *json; /* parsed body when Content-Type is application/json, else NULL; owned */
  char *body;        /* raw body, NUL-terminated ("" when empty); owned */
  size_t body_len;
  char *content_type; /* or NULL; owned */
} ebb_http_result;

typedef struct
{
  const char *bearer_token;  /* NULL: no Authorization header */
  long timeout_ms;           /* 0: EBB_HTTP_DEFAULT_TIMEOUT_MS; the whole call */
  size_t max_response_bytes; /* 0: EBB_HTTP_DEFAULT_MAX_RESPONSE_BYTES */
  const char *ca_file;       /* https: PEM CA bundle to verify the server; NULL: the system's */
  /* Unit tests of a server's own token check only (no daemon, ebbctl or tool sets it): the
   * token may go over plain http to a numeric loopback address. */
  bool test_plain_loopback;
  /* A followed log (ebbctl; the controller's proxy): a 2xx body goes to sink as it arrives, not
   * into the result (whose body is then empty) and not bounded by max_response_bytes; a sink
   * returning false stops the call (EIO). Other statuses are kept as usual. */
  bool (*sink) (const char *data, size_t len, void *sink_ud);
  void *sink_ud;
  bool no_timeout; /* no time limit on the call (a stream that lasts as long as a task) */
  /* One more request header, "Name: value" (a controller's Ebb-Leader-Epoch); NULL: none. */
  const char *extra_header;
} ebb_http_call_opts;

/* Frees what a result owns and zeroes it; safe on a zeroed result. */
void ebb_http_result_clear (ebb_http_result *res);

/* Blocking call. body (borrowed, may be NULL) is sent as application/json; opts may be NULL.
 * Returns 0 with *out filled (any HTTP status), or a negative code with *err set and *out
 * zeroed (see the codes above). */
int ebb_http_call (const char *method, const char *base, const char *path, json_object *body,
                   const ebb_http_call_opts *opts, ebb_http_result *out, ebb_error **err);

/* --- Non-blocking client: curl multi inside an sd-event loop (loop thread only) */

typedef struct ebb_http_client ebb_http_client;

/* Completion callback: called once per started request, from the loop. On success err is
 * NULL and res is filled (the callback may steal res->json by setting it to NULL); on failure
 * res is zeroed and err says why (ECANCELED when the client was freed first). Both are freed
 * after the callback returns. */
typedef void (*ebb_http_done_fn) (ebb_http_result *res, const ebb_error *err, void *userdata);

/* Returns a client attached to event (referenced), or NULL with *err set. */
ebb_http_client *ebb_http_client_new (sd_event *event, ebb_error **err);

/* Aborts pending requests, calling their callbacks with ECANCELED, then frees. Safe on NULL.
 * Must not be called from inside a completion callback of the same client. */
void ebb_http_client_free (ebb_http_client *c);

/* Starts a request; done is called later from the loop (never from inside this call).
 * Returns 0, or a negative code with *err set (then done will not be called). */
int ebb_http_client_start (ebb_http_client *c, const char *method, const char *base,
                           const char *path, json_object *body, const ebb_http_call_opts *opts,
                           ebb_http_done_fn done, void *userdata, ebb_error **err);

/* Returns how many requests are in flight. */
size_t ebb_http_client_pending (const ebb_http_client *c);
/* Caps the client: per_host connections to one host (kept alive and shared), total calls
 * under way at once; the calls over it wait in the client, in start order, and still count
 * in ebb_http_client_pending. 0: no cap. */
void ebb_http_client_limit (ebb_http_client *c, long per_host, long total);

#endif
