/* Responses a handler fills, and the request getters it reads from. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/http-internal.h"
#include "lib/json.h"

void
ebb_http_response_clear (ebb_http_response *resp)
{
  free (resp->body);
  free (resp->content_type);
  for (size_t i = 0; i < resp->n_headers; i++)
    {
      free (resp->headers[i].name);
      free (resp->headers[i].value);
    }
  free (resp->headers);
  ebb_http_stream_free (resp->stream);
  *resp = (ebb_http_response){ 0 };
}

void
ebb_http_response_move (ebb_http_response *dst, ebb_http_response *src)
{
  ebb_http_response_clear (dst);
  *dst = *src;
  *src = (ebb_http_response){ 0 };
}

/* Replaces status and body, keeping headers already added. */
static void
set_body (ebb_http_response *resp, unsigned status, const char *content_type, char *body,
          size_t len)
{
  free (resp->body);
  free (resp->content_type);
  ebb_http_stream_free (ebb_steal_ptr (&resp->stream));
  resp->set = true;
  resp->status = status;
  resp->body = body;
  resp->body_len = len;
  resp->content_type = ebb_xstrdup (content_type);
}

void
ebb_http_reply_json (ebb_http_response *resp, unsigned status, json_object *obj)
{
  size_t len = 0;
  const char *s = json_object_to_json_string_length (obj, EBB_JSON_TO_STRING_FLAGS, &len);
  char *copy = ebb_xmalloc (len + 2);
  memcpy (copy, s, len);
  copy[len++] = '\n'; /* curl and humans both prefer a final newline */
  copy[len] = '\0';
  json_object_put (obj);
  set_body (resp, status, "application/json", copy, len);
}

void
ebb_http_reply_text (ebb_http_response *resp, unsigned status, const char *content_type,
                     const char *text)
{
  set_body (resp, status, content_type ? content_type : "text/plain; charset=utf-8",
            ebb_xstrdup (text ? text : ""), text ? strlen (text) : 0);
}

void
ebb_http_error (ebb_http_response *resp, unsigned status, const char *code, const char *fmt, ...)
{
  va_list ap;
  char *detail = NULL;
  va_start (ap, fmt);
  if (vasprintf (&detail, fmt, ap) < 0)
    abort ();
  va_end (ap);
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "error", json_object_new_string (code));
  json_object_object_add (o, "detail", json_object_new_string (detail));
  free (detail);
  ebb_http_reply_json (resp, status, o);
}

void
ebb_http_reply_header (ebb_http_response *resp, const char *name, const char *value)
{
  resp->headers = ebb_xrealloc (resp->headers, (resp->n_headers + 1) * sizeof *resp->headers);
  resp->headers[resp->n_headers].name = ebb_xstrdup (name);
  resp->headers[resp->n_headers].value = ebb_xstrdup (value);
  resp->n_headers++;
}

struct MHD_Response *
ebb_http_response_build (ebb_http_response *resp)
{
  ebb_http_response fallback = { 0 };
  if (!resp->set)
    {
      ebb_http_error (&fallback, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal",
                      "the handler produced no response");
      resp = &fallback;
    }
  struct MHD_Response *r
      = resp->stream
            ? ebb_http_stream_build (resp)
            : MHD_create_response_from_buffer (resp->body_len, resp->body, MHD_RESPMEM_MUST_COPY);
  if (r)
    {
      MHD_add_response_header (r, MHD_HTTP_HEADER_CONTENT_TYPE, resp->content_type);
      for (size_t i = 0; i < resp->n_headers; i++)
        MHD_add_response_header (r, resp->headers[i].name, resp->headers[i].value);
    }
  ebb_http_response_clear (&fallback);
  return r;
}

const char *
ebb_http_request_method (const ebb_http_request *req)
{
  return req->method;
}

const char *
ebb_http_request_path (const ebb_http_request *req)
{
  return req->path;
}

const char *
ebb_http_request_capture (const ebb_http_request *req, const char *name)
{
  return ebb_http_captures_get (&req->caps, name);
}

const char *
ebb_http_request_header (const ebb_http_request *req, const char *name)
{
  return MHD_lookup_connection_value (req->con, MHD_HEADER_KIND, name);
}

const char *
ebb_http_request_query (const ebb_http_request *req, const char *name)
{
  return MHD_lookup_connection_value (req->con, MHD_GET_ARGUMENT_KIND, name);
}

typedef struct
{
  const char *const *names;
  unsigned seen[16]; /* times each of names was given */
  ebb_error **err;
  int r;
} query_check;

static enum MHD_Result
query_check_one (void *cls, enum MHD_ValueKind kind EBB_UNUSED, const char *key, const char *value)
{
  query_check *q = cls;
  size_t i = 0;
  while (q->names[i] && strcmp (q->names[i], key) != 0)
    i++;
  /* The key is the client's: it is quoted cut short. */
  if (!q->names[i] || i >= EBB_ARRAY_SIZE (q->seen))
    q->r = ebb_error_set (q->err, EBB_EPARSE, "unknown query argument \"%.64s\"", key);
  else if (!value)
    q->r = ebb_error_set (q->err, EBB_EPARSE, "query argument \"%s\" needs a value", key);
  else if (q->seen[i]++)
    q->r = ebb_error_set (q->err, EBB_EPARSE, "query argument \"%s\" given more than once", key);
  return q->r < 0 ? MHD_NO : MHD_YES;
}

int
ebb_http_request_query_check (const ebb_http_request *req, const char *const *names,
                              ebb_error **err)
{
  query_check q = { .names = names, .err = err };
  MHD_get_connection_values (req->con, MHD_GET_ARGUMENT_KIND, query_check_one, &q);
  return q.r;
}

int
ebb_http_request_query_u64 (const ebb_http_request *req, const char *name, uint64_t min,
                            uint64_t max, uint64_t *out, ebb_error **err)
{
  const char *s = ebb_http_request_query (req, name);
  if (!s)
    return 0;
  /* Digits only: strtoull would take a sign, spaces and wrap "-1" around. */
  size_t len = strspn (s, "0123456789");
  errno = 0;
  unsigned long long v = len > 0 && len <= 20 && s[len] == '\0' ? strtoull (s, NULL, 10) : 0;
  if (len == 0 || len > 20 || s[len] != '\0' || errno || v < min || v > max)
    return ebb_error_set (err, EBB_EPARSE,
                          "%s must be a decimal number from %" PRIu64 " to %" PRIu64, name, min,
                          max);
  *out = v;
  return 0;
}

json_object *
ebb_http_request_json (const ebb_http_request *req)
{
  return req->json;
}

const char *
ebb_http_request_body (const ebb_http_request *req, size_t *len_bytes)
{
  if (len_bytes)
    *len_bytes = req->body_len;
  return req->body ? req->body : "";
}

int
ebb_http_request_body_json (const ebb_http_request *req, int max_depth, json_object **out,
                            ebb_error **err)
{
  size_t len = 0;
  const char *body = ebb_http_request_body (req, &len);
  *out = NULL;
  if (len == 0 || body[strspn (body, " \t\r\n")] == '\0')
    return 0;
  *out = ebb_json_parse (body, len, max_depth, err);
  return *out ? 0 : -EBB_EPARSE;
}

ebb_http_peer_kind
ebb_http_request_peer_kind (const ebb_http_request *req)
{
  return req->listener->sock.is_unix ? EBB_HTTP_PEER_UNIX : EBB_HTTP_PEER_TCP;
}

int
ebb_http_request_peer_uid (const ebb_http_request *req, unsigned *uid)
{
  if (!req->listener->sock.is_unix || !req->con)
    return -1;
  const union MHD_ConnectionInfo *ci
      = MHD_get_connection_info (req->con, MHD_CONNECTION_INFO_CONNECTION_FD);
  struct ucred cr;
  socklen_t len = sizeof cr;
  if (!ci || getsockopt (ci->connect_fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
    return -1;
  *uid = (unsigned)cr.uid;
  return 0;
}
