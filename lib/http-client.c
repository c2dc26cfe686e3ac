/* Setting up one curl transfer and reading its result; the blocking call. */
#include "config.h"

#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "lib/http-server.h"
#include "lib/http-xfer.h"
#include "lib/json.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void
curl_init (void)
{
  if (curl_global_init (CURL_GLOBAL_DEFAULT) != CURLE_OK)
    abort ();
}

void
ebb_http_curl_init_once (void)
{
  pthread_once (&curl_once, curl_init);
}

void
ebb_http_result_clear (ebb_http_result *res)
{
  if (!res)
    return;
  json_object_put (res->json);
  free (res->body);
  free (res->content_type);
  *res = (ebb_http_result){ 0 };
}

static size_t
on_write (char *data, size_t size, size_t nmemb, void *userdata)
{
  ebb_http_xfer *x = userdata;
  size_t n = size * nmemb;
  long status = 0;
  if (x->sink && curl_easy_getinfo (x->easy, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK
      && status >= 200 && status <= 299)
    return x->sink (data, n, x->sink_ud) ? n : 0;
  if (n > x->max_bytes - x->body_len)
    {
      x->too_big = true;
      return 0; /* makes curl fail with CURLE_WRITE_ERROR: stop reading */
    }
  if (x->body_len + n + 1 > x->body_alloc)
    {
      size_t want = x->body_alloc ? x->body_alloc * 2 : 4096;
      while (want < x->body_len + n + 1)
        want *= 2;
      x->body = ebb_xrealloc (x->body, want);
      x->body_alloc = want;
    }
  memcpy (x->body + x->body_len, data, n);
  x->body_len += n;
  x->body[x->body_len] = '\0';
  return n;
}

/* "unix:/path" + path → http://localhost/path over the socket; "http://h:p" + path. */
static int
set_url (ebb_http_xfer *x, const char *base, const char *path, ebb_error **err)
{
  if (!base || !path || (path[0] != '/' && path[0] != '\0'))
    return ebb_error_set (err, EINVAL, "http: bad base '%s' or path '%s'", base ? base : "",
                          path ? path : "");
  if (strncmp (base, "unix:", 5) == 0)
    {
      if (base[5] == '\0')
        return ebb_error_set (err, EINVAL, "http: unix socket path missing in '%s'", base);
      x->unix_path = ebb_xstrdup (base + 5);
      x->url = ebb_xasprintf ("http://localhost%s", path);
      curl_easy_setopt (x->easy, CURLOPT_UNIX_SOCKET_PATH, x->unix_path);
    }
  else if (strncmp (base, "http://", 7) == 0 || strncmp (base, "https://", 8) == 0)
    {
      size_t len = strlen (base), scheme = base[4] == 's' ? 8 : 7;
      while (len > scheme && base[len - 1] == '/')
        len--; /* "http://h:p/" + "/v1" must not become "//v1" */
      x->url = ebb_xasprintf ("%.*s%s", (int)len, base, path);
    }
  else
    return ebb_error_set (err, EINVAL, "http: unsupported base address '%s'", base);
  curl_easy_setopt (x->easy, CURLOPT_URL, x->url);
  return 0;
}

static int
set_method_and_body (ebb_http_xfer *x, const char *method, json_object *body, ebb_error **err)
{
  if (!method || !method[0] || strpbrk (method, " \r\n\t"))
    return ebb_error_set (err, EINVAL, "http: bad method");
  if (body)
    {
      const char *s = json_object_to_json_string_ext (body, EBB_JSON_TO_STRING_FLAGS);
      curl_easy_setopt (x->easy, CURLOPT_POSTFIELDSIZE, (long)strlen (s));
      curl_easy_setopt (x->easy, CURLOPT_COPYPOSTFIELDS, s);
      x->headers = curl_slist_append (x->headers, "Content-Type: application/json");
    }
  else if (strcmp (method, "GET") != 0 && strcmp (method, "HEAD") != 0)
    {
      curl_easy_setopt (x->easy, CURLOPT_POSTFIELDSIZE, 0L);
      curl_easy_setopt (x->easy, CURLOPT_COPYPOSTFIELDS, "");
    }
  if (strcmp (method, "HEAD") == 0)
    curl_easy_setopt (x->easy, CURLOPT_NOBODY, 1L);
  else if (strcmp (method, "GET") != 0 && strcmp (method, "POST") != 0)
    curl_easy_setopt (x->easy, CURLOPT_CUSTOMREQUEST, method);
  else if (strcmp (method, "GET") == 0)
    curl_easy_setopt (x->easy, CURLOPT_HTTPGET, 1L);
  return 0;
}

static void
set_options (ebb_http_xfer *x, const ebb_http_call_opts *opts)
{
  long timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : EBB_HTTP_DEFAULT_TIMEOUT_MS;
  x->max_bytes = opts && opts->max_response_bytes ? opts->max_response_bytes
                                                  : EBB_HTTP_DEFAULT_MAX_RESPONSE_BYTES;
  curl_easy_setopt (x->easy, CURLOPT_TIMEOUT_MS, opts && opts->no_timeout ? 0L : timeout_ms);
  x->sink = opts ? opts->sink : NULL;
  x->sink_ud = opts ? opts->sink_ud : NULL;
  curl_easy_setopt (x->easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (x->easy, CURLOPT_PROTOCOLS_STR, "http,https");
  if (opts && opts->ca_file)
    curl_easy_setopt (x->easy, CURLOPT_CAINFO, opts->ca_file);
  /* https always checks the certificate and the name: the token goes nowhere else. */
  curl_easy_setopt (x->easy, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt (x->easy, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!x->sink)
    curl_easy_setopt (x->easy, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)x->max_bytes);
  curl_easy_setopt (x->easy, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt (x->easy, CURLOPT_WRITEDATA, x);
  curl_easy_setopt (x->easy, CURLOPT_ERRORBUFFER, x->errbuf);
  curl_easy_setopt (x->easy, CURLOPT_PRIVATE, x);
  /* No "Expect: 100-continue" round trip for our small JSON bodies. */
  x->headers = curl_slist_append (x->headers, "Expect:");
  x->headers = curl_slist_append (x->headers, "Accept: application/json");
  if (opts && opts->bearer_token && opts->bearer_token[0])
    {
      char *h = ebb_xasprintf ("Authorization: Bearer %s", opts->bearer_token);
      x->headers = curl_slist_append (x->headers, h);
      free (h);
    }
  if (opts && opts->extra_header)
    x->headers = curl_slist_append (x->headers, opts->extra_header);
}

/* The host of a "http://host:port/..." base ("[v6]" keeps its brackets); NULL when the
 * authority has user info ("http://127.0.0.1:80@evil.example/": the host is evil.example). */
static char *
base_host (const char *base)
{
  const char *h = base + 7;
  size_t n = strcspn (h, "/?#");
  if (memchr (h, '@', n))
    return NULL;
  if (h[0] == '[')
    {
      const char *close = strchr (h, ']');
      n = close ? (size_t)(close - h + 1) : strlen (h);
    }
  else
    n = strcspn (h, ":/?#");
  return strndup (h, n);
}

/* No credential to a peer whose identity was not checked. A unix socket's path is the
 * daemon's (a user cannot bind it in /run/ebb); https verifies the certificate and the name
 * (set_options). Plain TCP, loopback included, reaches whoever holds the port: once a
 * daemon stops, any local user can bind 127.0.0.1:PORT and collect the token. */
static int
check_token_transport (const char *base, const ebb_http_call_opts *opts, ebb_error **err)
{
  if (!opts || !opts->bearer_token || !opts->bearer_token[0] || !base
      || strncmp (base, "http://", 7) != 0)
    return 0;
  cleanup_free char *host = base_host (base);
  if (opts->test_plain_loopback && host && ebb_http_host_is_loopback (host))
    return 0;
  return ebb_error_set (err, EBB_EREFUSED,
                        "refusing to send the bearer token over plain http to %s: whoever holds "
                        "that port gets it (any local user, once the daemon stops); use "
                        "unix:/PATH or https://",
                        host ? host : base);
}

ebb_http_xfer *
ebb_http_xfer_new (const char *method, const char *base, const char *path, json_object *body,
                   const ebb_http_call_opts *opts, ebb_error **err)
{
  if (check_token_transport (base, opts, err) < 0)
    return NULL;
  ebb_http_curl_init_once ();
  ebb_http_xfer *x = ebb_xcalloc (1, sizeof *x);
  x->easy = curl_easy_init ();
  if (!x->easy)
    abort ();
  set_options (x, opts);
  if (set_url (x, base, path, err) < 0 || set_method_and_body (x, method, body, err) < 0)
    {
      ebb_http_xfer_free (x);
      return NULL;
    }
  curl_easy_setopt (x->easy, CURLOPT_HTTPHEADER, x->headers);
  return x;
}

void
ebb_http_xfer_free (ebb_http_xfer *x)
{
  if (!x)
    return;
  curl_easy_cleanup (x->easy);
  curl_slist_free_all (x->headers);
  free (x->url);
  free (x->unix_path);
  free (x->body);
  free (x);
}

static int
curl_error (ebb_http_xfer *x, CURLcode code, ebb_error **err)
{
  const char *msg = x->errbuf[0] ? x->errbuf : curl_easy_strerror (code);
  switch (code)
    {
    case CURLE_COULDNT_CONNECT:
      return ebb_error_set (err, ECONNREFUSED, "%s: connection refused (%s)", x->url, msg);
    case CURLE_OPERATION_TIMEDOUT:
      return ebb_error_set (err, EBB_ETIMEDOUT, "%s: timed out (%s)", x->url, msg);
    case CURLE_FILESIZE_EXCEEDED:
      return ebb_error_set (err, EBB_ERANGE, "%s: response larger than %zu bytes", x->url,
                            x->max_bytes);
    case CURLE_WRITE_ERROR:
      if (x->too_big)
        return ebb_error_set (err, EBB_ERANGE, "%s: response larger than %zu bytes", x->url,
                              x->max_bytes);
      break;
    default:
      break;
    }
  return ebb_error_set (err, EIO, "%s: %s", x->url, msg);
}

static bool
is_json_type (const char *ct)
{
  return ct && strncasecmp (ct, "application/json", 16) == 0
         && (ct[16] == '\0' || ct[16] == ';' || ct[16] == ' ');
}

int
ebb_http_xfer_finish (ebb_http_xfer *x, CURLcode code, ebb_http_result *out, ebb_error **err)
{
  *out = (ebb_http_result){ 0 };
  if (code != CURLE_OK)
    return curl_error (x, code, err);
  char *ct = NULL;
  curl_easy_getinfo (x->easy, CURLINFO_RESPONSE_CODE, &out->status);
  curl_easy_getinfo (x->easy, CURLINFO_CONTENT_TYPE, &ct);
  out->content_type = ct ? ebb_xstrdup (ct) : NULL;
  out->body = x->body ? x->body : ebb_xstrdup ("");
  out->body_len = x->body_len;
  x->body = NULL;
  x->body_len = x->body_alloc = 0;
  if (!is_json_type (ct) || out->body_len == 0)
    return 0;
  json_tokener *tok = json_tokener_new ();
  out->json = json_tokener_parse_ex (tok, out->body, (int)out->body_len);
  enum json_tokener_error jerr = json_tokener_get_error (tok);
  json_tokener_free (tok);
  if (jerr != json_tokener_success)
    {
      int r = ebb_error_set (err, EBB_EPARSE, "%s: invalid JSON in the response (HTTP %ld): %s",
                             x->url, out->status, json_tokener_error_desc (jerr));
      ebb_http_result_clear (out);
      return r;
    }
  return 0;
}

int
ebb_http_call (const char *method, const char *base, const char *path, json_object *body,
               const ebb_http_call_opts *opts, ebb_http_result *out, ebb_error **err)
{
  *out = (ebb_http_result){ 0 };
  ebb_http_xfer *x = ebb_http_xfer_new (method, base, path, body, opts, err);
  if (!x)
    return ebb_error_code (err) ? -ebb_error_code (err) : -EINVAL;
  CURLcode code = curl_easy_perform (x->easy);
  int r = ebb_http_xfer_finish (x, code, out, err);
  ebb_http_xfer_free (x);
  return r;
}
