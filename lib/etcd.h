/* An etcd v3 client over its JSON gateway (libcurl in sd-event, json-c): unary calls
 * (/v3/lease/grant, /v3/lease/keepalive, /v3/kv/txn, /v3/kv/range, ...) and watch streams.
 * Keys and values travel base64-encoded; int64 fields come back as JSON strings (the gateway's
 * proto3 mapping), read with ebb_etcd_get_int64(). Ranges are linearizable (etcd's default;
 * this client never asks for serializable reads).
 *
 * Endpoints are tried in turn: a transport failure or a 5xx moves the client to the next one
 * for the calls that follow (the failed call itself is reported, the caller decides whether
 * to retry). With a user, the client authenticates first (/v3/auth/authenticate) and sends the
 * token with every call, authenticating again when etcd says the token is no longer valid.
 * With https endpoints, the server is verified against ca_file and cert_file/key_file are the
 * client certificate (etcd's --client-cert-auth). */
#ifndef EBB_LIB_ETCD_H
#define EBB_LIB_ETCD_H

#include <json-c/json.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "lib/error.h"

typedef struct ebb_etcd_config
{
  const char *endpoints; /* "http://127.0.0.1:2379,https://10.0.0.2:2379" */
  const char *ca_file;   /* PEM CA bundle for https endpoints; NULL: the system's */
  const char *cert_file; /* client certificate (PEM); NULL: none */
  const char *key_file;  /* its key (PEM) */
  const char *user;      /* etcd auth; NULL: none */
  const char *password;
  long timeout_ms; /* per unary call; 0: 2000 */
} ebb_etcd_config;

typedef struct ebb_etcd ebb_etcd;

/* Completion of a unary call, from the loop: on success err is NULL and res the answer (an
 * object; the callback may take a reference); on failure res is NULL and err says why
 * (ECONNREFUSED, EBB_ETIMEDOUT, EIO, EACCES for refused credentials, EBB_EPARSE, ECANCELED
 * when the client was freed first). */
typedef void (*ebb_etcd_done_fn) (json_object *res, const ebb_error *err, void *userdata);

/* Each message of a watch stream ({"result":{...}}: created, events, canceled), from the loop;
 * then end() once with the reason the stream ended (NULL err: etcd closed it). */
typedef void (*ebb_etcd_msg_fn) (json_object *msg, void *userdata);
typedef void (*ebb_etcd_end_fn) (const ebb_error *err, void *userdata);

/* Returns a client on event, or NULL with *err (no endpoint, a bad one, a user without a
 * password). The strings of cfg are copied. */
ebb_etcd *ebb_etcd_new (sd_event *event, const ebb_etcd_config *cfg, ebb_error **err);

/* Cancels every call and watch (their callbacks run with ECANCELED), then frees. NULL: no-op.
 * Not from inside one of its callbacks. */
void ebb_etcd_free (ebb_etcd *c);

/* POSTs body (borrowed) to path ("/v3/kv/range"); done runs later from the loop, never from
 * inside this call. Returns 0, or negative with *err (done will not run). */
int ebb_etcd_call (ebb_etcd *c, const char *path, json_object *body, ebb_etcd_done_fn done,
                   void *userdata, ebb_error **err);

typedef struct ebb_etcd_watch ebb_etcd_watch;

/* Opens /v3/watch with create_request (borrowed; {"key":..,"range_end":..,"start_revision":..}).
 * Returns the watch, or NULL with *err. msg and end run from the loop. */
ebb_etcd_watch *ebb_etcd_watch_start (ebb_etcd *c, json_object *create_request, ebb_etcd_msg_fn msg,
                                      ebb_etcd_end_fn end, void *userdata, ebb_error **err);

/* Closes a watch without calling end. NULL: no-op. */
void ebb_etcd_watch_stop (ebb_etcd_watch *w);

/* The endpoint calls go to now (for logs). */
const char *ebb_etcd_endpoint (const ebb_etcd *c);

/* base64 (RFC 4648, padded) of len bytes: a new string. */
char *ebb_etcd_b64 (const void *data, size_t len);
/* Decodes base64 text into a new NUL-terminated string (*len its length, may be NULL).
 * Returns NULL for text that is not base64. */
char *ebb_etcd_unb64 (const char *text, size_t *len);

/* An int64 member of obj as the gateway sends it (a JSON string of digits, or a number).
 * Returns 1 and *out, 0 when absent (*out = 0), negative with *err when malformed. */
int ebb_etcd_get_int64 (json_object *obj, const char *key, int64_t *out, ebb_error **err);

/* The key range of everything under prefix: *range_end (a new string) is prefix with its last
 * byte incremented, as etcd's clientv3.WithPrefix. */
char *ebb_etcd_prefix_end (const char *prefix);

#endif
