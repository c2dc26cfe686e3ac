/* The etcd client: unary calls and watch streams as curl transfers in one multi driven by
 * sd-event (lib/curl-event.c), endpoint rotation, TLS client certificates and etcd auth. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/curl-event.h"
#include "lib/etcd.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"

#define ETCD_DEFAULT_TIMEOUT_MS   2000
#define ETCD_MAX_ANSWER_BYTES     (4 * 1024 * 1024)
#define ETCD_GRPC_UNAVAILABLE     14
#define ETCD_GRPC_UNAUTHENTICATED 16

typedef enum
{
  XFER_CALL,
  XFER_AUTH,
  XFER_WATCH,
} xfer_kind;

typedef struct xfer
{
  struct xfer *prev, *next; /* in the client's list: in the multi, or waiting for a token */
  ebb_etcd *c;
  xfer_kind kind;
  CURL *easy;
  struct curl_slist *headers;
  char *path, *request;
  char *buf; /* the answer so far (calls) */
  size_t len;
  size_t ep; /* the endpoint it went to */
  bool waiting, retried;
  char errbuf[CURL_ERROR_SIZE];
  ebb_etcd_done_fn done;
  ebb_etcd_msg_fn msg;
  ebb_etcd_end_fn end;
  void *userdata;
  json_tokener *tok;  /* watch: the stream, one object after another */
  json_object *queue; /* watch: messages parsed, not yet delivered (array) */
} xfer;

struct ebb_etcd_watch
{
  xfer x;
};

struct ebb_etcd
{
  sd_event *event;
  ebb_curl_event *multi;
  sd_event_source *deliver_src; /* hands parsed watch messages over, outside curl */
  char **eps;
  size_t n_eps, cur;
  char *ca_file, *cert_file, *key_file, *user, *password, *token;
  long timeout_ms;
  bool authenticating;
  xfer *xfers;
};

static char *
dup_or_null (const char *s)
{
  return s ? ebb_xstrdup (s) : NULL;
}

static void
link_xfer (ebb_etcd *c, xfer *x)
{
  x->prev = NULL;
  x->next = c->xfers;
  if (c->xfers)
    c->xfers->prev = x;
  c->xfers = x;
}

static void
unlink_xfer (ebb_etcd *c, xfer *x)
{
  if (x->prev)
    x->prev->next = x->next;
  else if (c->xfers == x)
    c->xfers = x->next;
  if (x->next)
    x->next->prev = x->prev;
  x->prev = x->next = NULL;
}

static void
xfer_free (xfer *x)
{
  if (x->easy)
    curl_easy_cleanup (x->easy);
  curl_slist_free_all (x->headers);
  free (x->path);
  free (x->request);
  free (x->buf);
  if (x->tok)
    json_tokener_free (x->tok);
  json_object_put (x->queue);
  if (x->kind == XFER_WATCH)
    free ((ebb_etcd_watch *)x);
  else
    free (x);
}

/* The next calls go to the next endpoint, unless another failure moved them already. */
static void
rotate (ebb_etcd *c, size_t ep)
{
  if (c->n_eps > 1 && ep == c->cur)
    {
      c->cur = (c->cur + 1) % c->n_eps;
      ebb_log_info ("etcd: now using %s", c->eps[c->cur]);
    }
}

static size_t
on_write (char *data, size_t size, size_t n, void *ud)
{
  xfer *x = ud;
  size_t bytes = size * n;
  if (x->len + bytes > ETCD_MAX_ANSWER_BYTES)
    return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
  x->buf = ebb_xrealloc (x->buf, x->len + bytes + 1);
  memcpy (x->buf + x->len, data, bytes);
  x->len += bytes;
  x->buf[x->len] = '\0';
  return bytes;
}

/* A watch's bytes: complete objects go to its queue, delivered from the loop (a callback
 * inside curl's must not remove the handle it is called for). */
static size_t
on_watch_write (char *data, size_t size, size_t n, void *ud)
{
  xfer *x = ud;
  size_t bytes = size * n, off = 0;
  while (off < bytes)
    {
      json_object *o = json_tokener_parse_ex (x->tok, data + off, (int)(bytes - off));
      enum json_tokener_error e = json_tokener_get_error (x->tok);
      if (!o && e == json_tokener_continue)
        break;
      if (!o)
        return 0; /* not JSON: end the stream */
      off += json_tokener_get_parse_end (x->tok);
      json_tokener_reset (x->tok);
      json_object_array_add (x->queue, o);
      sd_event_source_set_enabled (x->c->deliver_src, SD_EVENT_ONESHOT);
    }
  return bytes;
}

static int
deliver (sd_event_source *s, void *ud)
{
  ebb_etcd *c = ud;
  (void)s;
  /* One message per scan: a callback may stop any watch, this one included. */
  for (;;)
    {
      xfer *w = c->xfers;
      while (w && !(w->kind == XFER_WATCH && w->queue && json_object_array_length (w->queue)))
        w = w->next;
      if (!w)
        return 0;
      json_object *m = json_object_get (json_object_array_get_idx (w->queue, 0));
      json_object_array_del_idx (w->queue, 0, 1);
      w->msg (m, w->userdata);
      json_object_put (m);
    }
}

static void set_auth_header (ebb_etcd *c, xfer *x);

/* Sets x's transfer up for the current endpoint. Returns 0, or negative with *err. */
static int
xfer_prepare (ebb_etcd *c, xfer *x, ebb_error **err)
{
  if (x->easy)
    curl_easy_cleanup (x->easy);
  if (!(x->easy = curl_easy_init ()))
    return ebb_error_set (err, ENOMEM, "etcd: curl_easy_init failed");
  x->ep = c->cur;
  free (x->buf);
  x->buf = NULL;
  x->len = 0;
  cleanup_free char *url = ebb_xasprintf ("%s%s", c->eps[x->ep], x->path);
  CURL *e = x->easy;
  curl_easy_setopt (e, CURLOPT_URL, url);
  curl_easy_setopt (e, CURLOPT_POSTFIELDS, x->request);
  curl_easy_setopt (e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt (e, CURLOPT_CONNECTTIMEOUT_MS, c->timeout_ms < 1000 ? c->timeout_ms : 1000L);
  if (x->kind == XFER_WATCH)
    {
      /* A stream: no deadline; TCP keepalive notices a member that vanished. */
      curl_easy_setopt (e, CURLOPT_TCP_KEEPALIVE, 1L);
      curl_easy_setopt (e, CURLOPT_TCP_KEEPIDLE, 2L);
      curl_easy_setopt (e, CURLOPT_TCP_KEEPINTVL, 1L);
      curl_easy_setopt (e, CURLOPT_WRITEFUNCTION, on_watch_write);
    }
  else
    {
      curl_easy_setopt (e, CURLOPT_TIMEOUT_MS, c->timeout_ms);
      curl_easy_setopt (e, CURLOPT_WRITEFUNCTION, on_write);
    }
  curl_easy_setopt (e, CURLOPT_WRITEDATA, x);
  curl_easy_setopt (e, CURLOPT_ERRORBUFFER, x->errbuf);
  curl_easy_setopt (e, CURLOPT_PRIVATE, x);
  if (c->ca_file)
    curl_easy_setopt (e, CURLOPT_CAINFO, c->ca_file);
  if (c->cert_file)
    curl_easy_setopt (e, CURLOPT_SSLCERT, c->cert_file);
  if (c->key_file)
    curl_easy_setopt (e, CURLOPT_SSLKEY, c->key_file);
  set_auth_header (c, x);
  return 0;
}

static void
set_auth_header (ebb_etcd *c, xfer *x)
{
  curl_slist_free_all (x->headers);
  x->headers = curl_slist_append (NULL, "Content-Type: application/json");
  if (c->token && x->kind != XFER_AUTH)
    {
      cleanup_free char *h = ebb_xasprintf ("Authorization: %s", c->token);
      x->headers = curl_slist_append (x->headers, h);
    }
  curl_easy_setopt (x->easy, CURLOPT_HTTPHEADER, x->headers);
}

static void start_auth (ebb_etcd *c);
static void finish (ebb_etcd *c, xfer *x, json_object *res, const ebb_error *err);

/* Hands x to curl now, or parks it until a token is there. Returns 0, or negative with *err
 * (x is then neither linked nor started). */
static int
launch (ebb_etcd *c, xfer *x, ebb_error **err)
{
  if (c->user && !c->token && x->kind != XFER_AUTH)
    {
      x->waiting = true;
      link_xfer (c, x);
      start_auth (c);
      return 0;
    }
  x->waiting = false;
  if (xfer_prepare (c, x, err) < 0 || ebb_curl_event_add (c->multi, x->easy, err) < 0)
    return -EIO;
  link_xfer (c, x);
  return 0;
}

static xfer *
xfer_new (ebb_etcd *c, xfer_kind kind, const char *path, json_object *body)
{
  xfer *x;
  if (kind == XFER_WATCH)
    x = &((ebb_etcd_watch *)ebb_xcalloc (1, sizeof (ebb_etcd_watch)))->x;
  else
    x = ebb_xcalloc (1, sizeof *x);
  x->c = c;
  x->kind = kind;
  x->path = ebb_xstrdup (path);
  x->request = ebb_xstrdup (body ? json_object_to_json_string_ext (
                                body, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                                 : "{}");
  return x;
}

/* The token has come (or not: err): the parked transfers go on (or fail). */
static void
auth_done (ebb_etcd *c, const char *token, const ebb_error *err)
{
  c->authenticating = false;
  free (c->token);
  c->token = dup_or_null (token);
  for (;;)
    {
      xfer *x = c->xfers;
      while (x && !x->waiting)
        x = x->next;
      if (!x)
        return;
      unlink_xfer (c, x);
      ebb_error *e = NULL;
      if (err || launch (c, x, &e) < 0)
        finish (c, x, NULL, err ? err : e);
      ebb_error_free (&e);
    }
}

static void
start_auth (ebb_etcd *c)
{
  if (c->authenticating)
    return;
  c->authenticating = true;
  json_object *b = json_object_new_object ();
  ebb_json_add_string (b, "name", c->user);
  ebb_json_add_string (b, "password", c->password);
  xfer *x = xfer_new (c, XFER_AUTH, "/v3/auth/authenticate", b);
  json_object_put (b);
  ebb_error *err = NULL;
  if (launch (c, x, &err) < 0)
    {
      xfer_free (x);
      auth_done (c, NULL, err);
    }
  ebb_error_free (&err);
}

static void
finish (ebb_etcd *c, xfer *x, json_object *res, const ebb_error *err)
{
  (void)c;
  if (x->kind == XFER_WATCH)
    x->end (err, x->userdata);
  else
    x->done (err ? NULL : res, err, x->userdata);
  xfer_free (x);
}

/* The transport's verdict: 0 when curl delivered an answer, else negative with *err. */
static int
transport_error (ebb_etcd *c, xfer *x, CURLcode code, ebb_error **err)
{
  if (code == CURLE_OK)
    return 0;
  rotate (c, x->ep);
  const char *why = x->errbuf[0] ? x->errbuf : curl_easy_strerror (code);
  int e = code == CURLE_COULDNT_CONNECT      ? ECONNREFUSED
          : code == CURLE_OPERATION_TIMEDOUT ? EBB_ETIMEDOUT
                                             : EIO;
  return ebb_error_set (err, e, "etcd %s%s: %s", c->eps[x->ep], x->path, why);
}

/* An answer other than 200: etcd's gRPC status in the gateway's {"error","code"} body.
 * Returns true when x was parked again for a fresh token (an expired one). */
static bool
etcd_error (ebb_etcd *c, xfer *x, long status, json_object *o, ebb_error **err)
{
  int64_t code = 0;
  const char *msg = NULL;
  ebb_etcd_get_int64 (o, "code", &code, NULL);
  if (ebb_json_get_string (o, "error", 0, NULL, &msg, NULL) != 1)
    ebb_json_get_string (o, "message", 0, NULL, &msg, NULL);
  if (code == ETCD_GRPC_UNAUTHENTICATED && c->user && x->kind != XFER_AUTH && !x->retried)
    {
      x->retried = true;
      ebb_log_info ("etcd: %s refused the token (%s); authenticating again", x->path,
                    msg ? msg : "no message");
      free (c->token);
      c->token = NULL;
      ebb_error *e = NULL;
      if (launch (c, x, &e) == 0)
        return true;
      ebb_error_free (&e);
    }
  if (status >= 500 || code == ETCD_GRPC_UNAVAILABLE)
    rotate (c, x->ep);
  /* A refused authentication is a 400 (InvalidArgument "authentication failed"): final too. */
  bool denied = status == 401 || status == 403 || code == ETCD_GRPC_UNAUTHENTICATED || code == 7
                || (x->kind == XFER_AUTH && status >= 400 && status < 500);
  ebb_error_set (err, denied ? EACCES : EIO, "etcd %s%s: HTTP %ld: %s", c->eps[x->ep], x->path,
                 status, msg ? msg : "no message");
  return false;
}

static void
on_done (CURL *easy, CURLcode code, void *ud)
{
  ebb_etcd *c = ud;
  xfer *x = NULL;
  curl_easy_getinfo (easy, CURLINFO_PRIVATE, (char **)&x);
  unlink_xfer (c, x);
  cleanup_error ebb_error *err = NULL;
  long status = 0;
  json_object *o = NULL;
  if (transport_error (c, x, code, &err) == 0)
    {
      curl_easy_getinfo (easy, CURLINFO_RESPONSE_CODE, &status);
      if (x->kind != XFER_WATCH)
        o = ebb_json_parse (x->buf ? x->buf : "", x->len, 0, NULL);
      if (status != 200 && etcd_error (c, x, status, o, &err))
        {
          json_object_put (o);
          return; /* parked for a fresh token */
        }
      if (status == 200 && !o && x->kind != XFER_WATCH)
        ebb_error_set (&err, EBB_EPARSE, "etcd %s%s: the answer is not JSON", c->eps[x->ep],
                       x->path);
    }
  if (x->kind == XFER_AUTH)
    {
      const char *token = NULL;
      if (!err && ebb_json_get_string (o, "token", 0, NULL, &token, &err) != 1 && !err)
        ebb_error_set (&err, EACCES, "etcd: authenticate answered no token");
      xfer_free (x);
      auth_done (c, token, err);
    }
  else
    finish (c, x, o, err);
  json_object_put (o);
}

/* See etcd.h. */
ebb_etcd *
ebb_etcd_new (sd_event *event, const ebb_etcd_config *cfg, ebb_error **err)
{
  if (!cfg->endpoints || !*cfg->endpoints)
    return ebb_error_set (err, EINVAL, "etcd: no endpoint"), NULL;
  if (cfg->user && !cfg->password)
    return ebb_error_set (err, EINVAL, "etcd: a user needs a password"), NULL;
  ebb_etcd *c = ebb_xcalloc (1, sizeof *c);
  cleanup_free char *list = ebb_xstrdup (cfg->endpoints);
  char *save = NULL;
  for (char *t = strtok_r (list, ",", &save); t; t = strtok_r (NULL, ",", &save))
    {
      size_t n = strlen (t);
      while (n && t[n - 1] == '/')
        t[--n] = '\0';
      if (strncmp (t, "http://", 7) != 0 && strncmp (t, "https://", 8) != 0)
        {
          ebb_error_set (err, EINVAL, "etcd: endpoint %s is not http:// or https://", t);
          ebb_etcd_free (c);
          return NULL;
        }
      c->eps = ebb_xrealloc (c->eps, (c->n_eps + 1) * sizeof *c->eps);
      c->eps[c->n_eps++] = ebb_xstrdup (t);
    }
  c->event = sd_event_ref (event);
  c->ca_file = dup_or_null (cfg->ca_file);
  c->cert_file = dup_or_null (cfg->cert_file);
  c->key_file = dup_or_null (cfg->key_file);
  c->user = dup_or_null (cfg->user);
  c->password = dup_or_null (cfg->password);
  c->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : ETCD_DEFAULT_TIMEOUT_MS;
  int r = sd_event_add_defer (event, &c->deliver_src, deliver, c);
  if (r < 0 || !c->n_eps)
    {
      ebb_error_set_errno (err, r < 0 ? -r : EINVAL, "etcd: setup");
      ebb_etcd_free (c);
      return NULL;
    }
  sd_event_source_set_enabled (c->deliver_src, SD_EVENT_OFF);
  if (!(c->multi = ebb_curl_event_new (event, "etcd", on_done, c, err)))
    {
      ebb_etcd_free (c);
      return NULL;
    }
  return c;
}

/* See etcd.h. */
void
ebb_etcd_free (ebb_etcd *c)
{
  if (!c)
    return;
  while (c->xfers)
    {
      xfer *x = c->xfers;
      unlink_xfer (c, x);
      if (x->easy && !x->waiting)
        ebb_curl_event_remove (c->multi, x->easy);
      ebb_error *err = NULL;
      ebb_error_set (&err, ECANCELED, "etcd%s: cancelled (client freed)", x->path);
      if (x->kind == XFER_AUTH)
        xfer_free (x);
      else
        finish (c, x, NULL, err);
      ebb_error_free (&err);
    }
  ebb_curl_event_free (c->multi);
  sd_event_source_disable_unref (c->deliver_src);
  for (size_t i = 0; i < c->n_eps; i++)
    free (c->eps[i]);
  free (c->eps);
  free (c->ca_file);
  free (c->cert_file);
  free (c->key_file);
  free (c->user);
  free (c->password);
  free (c->token);
  sd_event_unref (c->event);
  free (c);
}

/* See etcd.h. */
int
ebb_etcd_call (ebb_etcd *c, const char *path, json_object *body, ebb_etcd_done_fn done,
               void *userdata, ebb_error **err)
{
  if (!done)
    return ebb_error_set (err, EINVAL, "etcd: no callback");
  xfer *x = xfer_new (c, XFER_CALL, path, body);
  x->done = done;
  x->userdata = userdata;
  if (launch (c, x, err) < 0)
    {
      xfer_free (x);
      return -EIO;
    }
  return 0;
}

/* See etcd.h. */
ebb_etcd_watch *
ebb_etcd_watch_start (ebb_etcd *c, json_object *create_request, ebb_etcd_msg_fn msg,
                      ebb_etcd_end_fn end, void *userdata, ebb_error **err)
{
  json_object *b = json_object_new_object ();
  json_object_object_add (b, "create_request", json_object_get (create_request));
  xfer *x = xfer_new (c, XFER_WATCH, "/v3/watch", b);
  json_object_put (b);
  x->msg = msg;
  x->end = end;
  x->userdata = userdata;
  x->tok = json_tokener_new ();
  x->queue = json_object_new_array ();
  if (launch (c, x, err) < 0)
    {
      xfer_free (x);
      return NULL;
    }
  return (ebb_etcd_watch *)x;
}

/* See etcd.h. */
void
ebb_etcd_watch_stop (ebb_etcd_watch *w)
{
  if (!w)
    return;
  xfer *x = &w->x;
  unlink_xfer (x->c, x);
  if (!x->waiting)
    ebb_curl_event_remove (x->c->multi, x->easy);
  xfer_free (x);
}

/* See etcd.h. */
const char *
ebb_etcd_endpoint (const ebb_etcd *c)
{
  return c->eps[c->cur];
}
