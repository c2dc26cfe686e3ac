/* Real loopback round trips: the server runs in an sd-event loop on a second thread, the
 * blocking client (or a raw socket, to send what curl will not) runs in the test thread. */
#include "config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "lib/error.h"
#include "lib/http-client.h"
#include "lib/http-server.h"
#include "lib/log.h"
#include "lib/time.h"
#include "tests/cu.h"

typedef struct
{
  sd_event *event;
  ebb_http_server *server;
  pthread_t thread;
  int stop_fd;
  sd_event_source *stop_src;
  int done_fds[2]; /* worker threads pass finished ebb_http_deferred pointers through here */
  sd_event_source *done_src;
  ebb_http_deferred *parked; /* a request deferred forever (until the test decides) */
  unsigned worker_sleep_msec;
} fixture;

static char tmpdir[64];

/* --- Handlers */

static int
h_list (ebb_http_request *req EBB_UNUSED, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  ebb_http_reply_json (resp, 200, json_object_new_array ());
  return EBB_HTTP_REPLIED;
}

static int
h_get_task (ebb_http_request *req, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "id", json_object_new_string (ebb_http_request_capture (req, "id")));
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

/* Echoes the capture, the parsed body, a header and the peer kind. */
static int
h_suspend (ebb_http_request *req, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  json_object *body = ebb_http_request_json (req);
  if (!body)
    {
      ebb_http_error (resp, 400, "bad_request", "a JSON body is required");
      return EBB_HTTP_REPLIED;
    }
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "id", json_object_new_string (ebb_http_request_capture (req, "id")));
  json_object_object_add (o, "got", json_object_get (body));
  const char *h = ebb_http_request_header (req, "x-test");
  json_object_object_add (o, "x_test", h ? json_object_new_string (h) : NULL);
  json_object_object_add (
      o, "peer",
      json_object_new_string (ebb_http_request_peer_kind (req) == EBB_HTTP_PEER_UNIX ? "unix"
                                                                                     : "tcp"));
  const char *q = ebb_http_request_query (req, "mode");
  json_object_object_add (o, "mode", q ? json_object_new_string (q) : NULL);
  ebb_http_reply_json (resp, 201, o);
  return EBB_HTTP_REPLIED;
}

static int
h_metrics (ebb_http_request *req EBB_UNUSED, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  ebb_http_reply_text (resp, 200, "text/plain; version=0.0.4", "ebb_up 1\n");
  return EBB_HTTP_REPLIED;
}

static int
h_big (ebb_http_request *req EBB_UNUSED, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  char *s = malloc (100001);
  memset (s, 'b', 100000);
  s[100000] = '\0';
  ebb_http_reply_text (resp, 200, NULL, s);
  free (s);
  return EBB_HTTP_REPLIED;
}

static int
h_nothing (ebb_http_request *req EBB_UNUSED, ebb_http_response *resp EBB_UNUSED,
           void *userdata EBB_UNUSED)
{
  return EBB_HTTP_REPLIED; /* a buggy handler: the server must still answer (500) */
}

typedef struct
{
  ebb_http_deferred *d;
  int fd;
  unsigned sleep_msec;
} worker_arg;

static void *
worker (void *p)
{
  worker_arg *a = p;
  ebb_sleep_usec ((uint64_t)a->sleep_msec * 1000);
  ssize_t n = write (a->fd, &a->d, sizeof a->d);
  (void)n;
  free (a);
  return NULL;
}

/* Defers; a worker thread finishes after worker_sleep_msec and hands back to the loop. */
static int
h_slow (ebb_http_request *req, ebb_http_response *resp EBB_UNUSED, void *userdata)
{
  fixture *f = userdata;
  worker_arg *a = malloc (sizeof *a);
  a->d = ebb_http_defer (req);
  a->fd = f->done_fds[1];
  a->sleep_msec = f->worker_sleep_msec;
  pthread_t t;
  CU_ASSERT_FATAL (pthread_create (&t, NULL, worker, a) == 0);
  pthread_detach (t);
  return EBB_HTTP_DEFERRED;
}

/* Defers and completes before returning, as a caller may when the work is already done. */
static int
h_inline (ebb_http_request *req, ebb_http_response *resp EBB_UNUSED, void *userdata EBB_UNUSED)
{
  ebb_http_deferred *d = ebb_http_defer (req);
  CU_ASSERT (ebb_http_defer (req) == d);
  ebb_http_error (ebb_http_deferred_response (d), 409, "conflict", "already done");
  ebb_http_deferred_complete (d);
  return EBB_HTTP_DEFERRED;
}

/* Returns DEFERRED without deferring: a bug the server answers with 500. */
static int
h_bad_defer (ebb_http_request *req EBB_UNUSED, ebb_http_response *resp EBB_UNUSED,
             void *userdata EBB_UNUSED)
{
  return EBB_HTTP_DEFERRED;
}

static int
h_park (ebb_http_request *req, ebb_http_response *resp EBB_UNUSED, void *userdata)
{
  fixture *f = userdata;
  f->parked = ebb_http_defer (req);
  return EBB_HTTP_DEFERRED;
}

/* Loop side of the worker: completes the deferred request. */
static int
on_worker_done (sd_event_source *s EBB_UNUSED, int fd, uint32_t revents EBB_UNUSED,
                void *userdata EBB_UNUSED)
{
  ebb_http_deferred *d = NULL;
  if (read (fd, &d, sizeof d) != sizeof d)
    return 0;
  ebb_http_request *req = ebb_http_deferred_request (d);
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "done", json_object_new_boolean (1));
  if (req)
    json_object_object_add (o, "id", json_object_new_string (ebb_http_request_capture (req, "id")));
  ebb_http_reply_json (ebb_http_deferred_response (d), 200, o);
  ebb_http_deferred_complete (d);
  return 0;
}

/* Parses the raw body strictly, nesting up to 2: 200 {"got": body or null}, or 400. */
static int
h_strict (ebb_http_request *req, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  cleanup_error ebb_error *err = NULL;
  json_object *body;
  if (ebb_http_request_body_json (req, 2, &body, &err) < 0)
    {
      CU_ASSERT_PTR_NULL (body);
      ebb_http_error (resp, 400, "bad_request", "%s", ebb_error_msg (&err));
      return EBB_HTTP_REPLIED;
    }
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "got", body);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

/* GET /query: 200 with "page" (the value of page), or 400 with the checker's reason. */
static int
h_query (ebb_http_request *req, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  static const char *const names[] = { "page", "after", NULL };
  cleanup_error ebb_error *err = NULL;
  if (ebb_http_request_query_check (req, names, &err) < 0)
    {
      ebb_http_error (resp, 400, "bad_request", "%s", ebb_error_msg (&err));
      return EBB_HTTP_REPLIED;
    }
  const char *page = ebb_http_request_query (req, "page");
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "page", page ? json_object_new_string (page) : NULL);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

/* GET /num?n=: ebb_http_request_query_u64 from 1 to 1000; 200 {"n": N} or its 400. */
static int
h_num (ebb_http_request *req, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  cleanup_error ebb_error *err = NULL;
  uint64_t n = 7; /* absent: left as it is */
  if (ebb_http_request_query_u64 (req, "n", 1, 1000, &n, &err) < 0)
    {
      ebb_http_error (resp, 400, "bad_request", "%s", ebb_error_msg (&err));
      return EBB_HTTP_REPLIED;
    }
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "n", json_object_new_int64 ((int64_t)n));
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

/* GET /stream: a streamed body of three pieces, the second and third made ready by loop
 * timers 50 ms apart (so the reader has nothing in between and the connection waits). */
typedef struct
{
  ebb_http_stream *st;
  sd_event_source *timer;
  unsigned ready, sent; /* pieces made ready, pieces handed out */
  unsigned reads_empty; /* reads that found nothing ready */
} stream_state;

static stream_state streamed;
static unsigned stream_done_calls;

static ssize_t
stream_read (void *ud, char *buf, size_t max_bytes)
{
  stream_state *s = ud;
  static const char *const pieces[] = { "one\n", "two\n", "three\n" };
  if (s->sent == EBB_ARRAY_SIZE (pieces))
    return EBB_HTTP_STREAM_END;
  if (s->sent == s->ready)
    {
      s->reads_empty++;
      return 0;
    }
  size_t n = strlen (pieces[s->sent]);
  CU_ASSERT_FATAL (n <= max_bytes);
  memcpy (buf, pieces[s->sent++], n);
  return (ssize_t)n;
}

static int
stream_tick (sd_event_source *src, uint64_t usec, void *ud)
{
  stream_state *s = ud;
  s->ready++;
  ebb_http_stream_wake (s->st);
  if (s->ready < 3)
    sd_event_source_set_time (src, usec + 50000);
  else
    sd_event_source_set_enabled (src, SD_EVENT_OFF);
  return 0;
}

static void
stream_done (void *ud)
{
  stream_state *s = ud;
  s->timer = sd_event_source_disable_unref (s->timer);
  stream_done_calls++;
}

static int
h_stream (ebb_http_request *req EBB_UNUSED, ebb_http_response *resp, void *userdata)
{
  fixture *f = userdata;
  streamed = (stream_state){ .ready = 1 };
  CU_ASSERT (sd_event_add_time_relative (f->event, &streamed.timer, CLOCK_MONOTONIC, 50000, 0,
                                         stream_tick, &streamed)
             >= 0);
  sd_event_source_set_enabled (streamed.timer, SD_EVENT_ON);
  streamed.st = ebb_http_reply_stream (resp, 200, NULL, 0, stream_read, stream_done, &streamed);
  return EBB_HTTP_REPLIED;
}

static const ebb_http_route routes[] = {
  { "GET", "/query", h_query, 0 },
  { "GET", "/num", h_num, 0 },
  { "GET", "/stream", h_stream, 0 },
  { "GET", "/v1/tasks", h_list, 0 },
  { "GET", "/v1/tasks/{id}", h_get_task, 0 },
  { "POST", "/v1/tasks/{id}/suspend", h_suspend, EBB_HTTP_ROUTE_JSON },
  { "PUT", "/v1/tasks/{id}/suspend", h_suspend, 0 },
  { "GET", "/metrics", h_metrics, 0 },
  { "GET", "/public", h_metrics, EBB_HTTP_ROUTE_PUBLIC },
  { "GET", "/big", h_big, 0 },
  { "GET", "/nothing", h_nothing, 0 },
  { "POST", "/v1/slow/{id}", h_slow, 0 },
  { "POST", "/v1/park", h_park, 0 },
  { "POST", "/v1/inline", h_inline, 0 },
  { "POST", "/v1/bad-defer", h_bad_defer, 0 },
  { "POST", "/v1/strict", h_strict, 0 },
};

/* --- Fixture */

static int
on_stop (sd_event_source *s, int fd EBB_UNUSED, uint32_t revents EBB_UNUSED, void *u EBB_UNUSED)
{
  return sd_event_exit (sd_event_source_get_event (s), 0);
}

static void *
loop_thread (void *p)
{
  fixture *f = p;
  sd_event_loop (f->event);
  return NULL;
}

/* Every TCP listener needs a token: the fixture's default, sent by auth and raw_request().
 * The client sends a token over plain http only with test_plain_loopback. */
#define TEST_TOKEN "fixture-token"
static const ebb_http_call_opts auth = { .bearer_token = TEST_TOKEN, .test_plain_loopback = true };

/* Limits and the socket group for the next fixture_start() (tests reset it). */
static ebb_http_server_config fixture_extra;

/* Creates the server with the given listen specs and token (NULL: TEST_TOKEN) and runs its
 * loop in a thread. */
static int
fixture_start (fixture *f, const char *const *listen, const char *token, size_t max_body)
{
  cleanup_error ebb_error *err = NULL;
  *f = (fixture){ .stop_fd = -1, .worker_sleep_msec = 50 };
  CU_ASSERT_FATAL (sd_event_new (&f->event) >= 0);
  CU_ASSERT_FATAL (pipe2 (f->done_fds, O_CLOEXEC) == 0);
  f->stop_fd = eventfd (0, EFD_CLOEXEC);
  sd_event_add_io (f->event, &f->stop_src, f->stop_fd, EPOLLIN, on_stop, f);
  sd_event_add_io (f->event, &f->done_src, f->done_fds[0], EPOLLIN, on_worker_done, f);
  ebb_http_server_config cfg = { .listen = listen,
                                 .routes = routes,
                                 .n_routes = EBB_ARRAY_SIZE (routes),
                                 .userdata = f,
                                 .bearer_token = token ? token : TEST_TOKEN,
                                 .max_body_bytes = max_body,
                                 .conn_timeout_sec = fixture_extra.conn_timeout_sec,
                                 .unix_group = fixture_extra.unix_group,
                                 .header_timeout_sec = fixture_extra.header_timeout_sec,
                                 .max_connections = fixture_extra.max_connections,
                                 .max_connections_per_ip = fixture_extra.max_connections_per_ip,
                                 .tls_cert_file = fixture_extra.tls_cert_file,
                                 .tls_key_file = fixture_extra.tls_key_file,
                                 .gate = fixture_extra.gate };
  f->server = ebb_http_server_new (f->event, &cfg, &err);
  if (!f->server)
    {
      fprintf (stderr, "server: %s\n", ebb_error_msg (&err));
      return -1;
    }
  CU_ASSERT_FATAL (pthread_create (&f->thread, NULL, loop_thread, f) == 0);
  return 0;
}

/* Stops the loop thread; the test thread then owns the loop (and may free the server). */
static void
fixture_stop_loop (fixture *f)
{
  uint64_t one = 1;
  CU_ASSERT (write (f->stop_fd, &one, sizeof one) == sizeof one);
  pthread_join (f->thread, NULL);
}

static void
fixture_free (fixture *f)
{
  ebb_http_server_free (f->server);
  sd_event_source_disable_unref (f->stop_src);
  sd_event_source_disable_unref (f->done_src);
  sd_event_unref (f->event);
  close (f->stop_fd);
  close (f->done_fds[0]);
  close (f->done_fds[1]);
}

static void
fixture_stop (fixture *f)
{
  fixture_stop_loop (f);
  fixture_free (f);
}

static const char *
base (fixture *f, size_t i)
{
  return ebb_http_server_base_url (f->server, i);
}

static char *raw_request_as_is (int port, const char *text, size_t len);

/* Sends a raw request over TCP with TEST_TOKEN added after the request line and returns
 * the whole response text (headers + body). */
static char *
raw_request (int port, const char *text, size_t len)
{
  const char *eol = memchr (text, '\n', len);
  if (!eol)
    return raw_request_as_is (port, text, len);
  size_t head = (size_t)(eol + 1 - text);
  static const char hdr[] = "Authorization: Bearer " TEST_TOKEN "\r\n";
  char *buf = malloc (len + sizeof hdr);
  memcpy (buf, text, head);
  memcpy (buf + head, hdr, sizeof hdr - 1);
  memcpy (buf + head + sizeof hdr - 1, text + head, len - head);
  char *out = raw_request_as_is (port, buf, len + sizeof hdr - 1);
  free (buf);
  return out;
}

/* Reads what the server sends on fd until it closes it (or the receive timeout, or 64 KiB),
 * closes fd and returns the text. */
static char *
read_and_close (int fd)
{
  size_t cap = 65536, used = 0;
  char *buf = calloc (1, cap + 1);
  ssize_t n;
  while (used < cap && (n = read (fd, buf + used, cap - used)) > 0)
    used += (size_t)n;
  close (fd);
  return buf;
}

/* Sends a raw request over TCP as it is and returns the whole response text. */
static char *
raw_request_as_is (int port, const char *text, size_t len)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET,
                             .sin_port = htons ((uint16_t)port),
                             .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  CU_ASSERT_FATAL (connect (fd, (struct sockaddr *)&sin, sizeof sin) == 0);
  struct timeval tv = { .tv_sec = 5 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  /* The server may answer and close before all is sent (an early 413): ignore EPIPE. */
  for (size_t off = 0; off < len;)
    {
      ssize_t n = send (fd, text + off, len - off, MSG_NOSIGNAL);
      if (n <= 0)
        break;
      off += (size_t)n;
    }
  shutdown (fd, SHUT_WR);
  return read_and_close (fd);
}

static int
raw_status (const char *response)
{
  int status = -1;
  if (sscanf (response, "HTTP/1.%*d %d", &status) != 1)
    return -1;
  return status;
}

static const char *const tcp_only[] = { "127.0.0.1:0", NULL };

/* --- Tests */

static void
test_json_round_trip (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  CU_ASSERT (ebb_http_server_port (f.server, 0) > 0);
  CU_ASSERT_EQUAL (ebb_http_server_port (f.server, 1), -ENOENT);
  CU_ASSERT_EQUAL (ebb_http_server_n_listeners (f.server), 1);

  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  json_object *body = json_tokener_parse ("{\"grace_ms\": 250, \"why\": \"burst\"}");
  CU_ASSERT_EQUAL_FATAL (ebb_http_call ("POST", base (&f, 0), "/v1/tasks/web-1/suspend?mode=hard",
                                        body, &auth, &res, &err),
                         0);
  CU_ASSERT_EQUAL (res.status, 201);
  CU_ASSERT_PTR_NOT_NULL_FATAL (res.json);
  json_object *v;
  CU_ASSERT (json_object_object_get_ex (res.json, "id", &v)
             && strcmp (json_object_get_string (v), "web-1") == 0);
  CU_ASSERT (json_object_object_get_ex (res.json, "got", &v) && json_object_equal (v, body));
  CU_ASSERT (json_object_object_get_ex (res.json, "peer", &v)
             && strcmp (json_object_get_string (v), "tcp") == 0);
  CU_ASSERT (json_object_object_get_ex (res.json, "mode", &v)
             && strcmp (json_object_get_string (v), "hard") == 0);
  CU_ASSERT_STRING_EQUAL (res.content_type, "application/json");
  ebb_http_result_clear (&res);
  json_object_put (body);

  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  CU_ASSERT (json_object_is_type (res.json, json_type_array));
  ebb_http_result_clear (&res);

  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/metrics", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  CU_ASSERT_PTR_NULL (res.json);
  CU_ASSERT_STRING_EQUAL (res.body, "ebb_up 1\n");
  CU_ASSERT_STRING_EQUAL (res.content_type, "text/plain; version=0.0.4");
  ebb_http_result_clear (&res);

  /* A handler that forgot to answer gives a JSON 500, not a hung connection. */
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/nothing", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 500);
  CU_ASSERT (json_object_object_get_ex (res.json, "error", &v)
             && strcmp (json_object_get_string (v), "internal") == 0);
  ebb_http_result_clear (&res);
  fixture_stop (&f);
}

static void
assert_error_body (const ebb_http_result *res, const char *code)
{
  json_object *v = NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL (res->json);
  CU_ASSERT (json_object_object_get_ex (res->json, "error", &v)
             && strcmp (json_object_get_string (v), code) == 0);
  CU_ASSERT (json_object_object_get_ex (res->json, "detail", &v)
             && json_object_is_type (v, json_type_string));
}

static void
test_errors_404_405_413 (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 1024) == 0);
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  const char *unknown[]
      = { "/v1/tasksX",          "/v1/tasks/", "/v1//tasks", "/nope", "/v1/tasks/a/suspend/x",
          "/v1/tasks/../suspend" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (unknown); i++)
    {
      CU_ASSERT_EQUAL_FATAL (
          ebb_http_call ("GET", base (&f, 0), unknown[i], NULL, &auth, &res, &err), 0);
      CU_ASSERT_EQUAL (res.status, 404);
      assert_error_body (&res, "not_found");
      ebb_http_result_clear (&res);
    }

  CU_ASSERT_EQUAL (ebb_http_call ("DELETE", base (&f, 0), "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 405);
  assert_error_body (&res, "method_not_allowed");
  ebb_http_result_clear (&res);
  const char *get_suspend = "GET /v1/tasks/x/suspend HTTP/1.1\r\nHost: x\r\n\r\n";
  char *raw = raw_request (ebb_http_server_port (f.server, 0), get_suspend, strlen (get_suspend));
  CU_ASSERT_EQUAL (raw_status (raw), 405);
  CU_ASSERT_PTR_NOT_NULL (strstr (raw, "Allow: POST, PUT\r\n"));
  free (raw);

  /* 4 KiB of JSON against a 1 KiB cap: 413 before the handler runs. */
  char big[4096];
  memset (big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  json_object *body = json_object_new_object ();
  json_object_object_add (body, "pad", json_object_new_string (big));
  CU_ASSERT_EQUAL (
      ebb_http_call ("POST", base (&f, 0), "/v1/tasks/a/suspend", body, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 413);
  assert_error_body (&res, "payload_too_large");
  ebb_http_result_clear (&res);
  json_object_put (body);

  /* A declared size over the cap is refused before any body is read: the client here never
   * sends the body it announced (half-closes instead), so only an early 413 can reach it. */
  const char *announce = "POST /v1/tasks/a/suspend HTTP/1.1\r\nHost: x\r\n"
                         "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{";
  raw = raw_request (ebb_http_server_port (f.server, 0), announce, strlen (announce));
  CU_ASSERT_EQUAL (raw_status (raw), 413);
  free (raw);

  /* Just under the cap still works. */
  body = json_object_new_object ();
  json_object_object_add (body, "pad", json_object_new_string (big + 4096 - 1000));
  CU_ASSERT_EQUAL (
      ebb_http_call ("POST", base (&f, 0), "/v1/tasks/a/suspend", body, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 201);
  ebb_http_result_clear (&res);
  json_object_put (body);
  fixture_stop (&f);
}

/* A chunked body declares no size: the cap must stop it while it streams in. */
static void
test_413_chunked (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 1024) == 0);
  size_t cap = 200 * 1024;
  char *req = malloc (cap);
  int len = snprintf (req, cap,
                      "POST /v1/tasks/a/suspend HTTP/1.1\r\nHost: x\r\n"
                      "Content-Type: application/json\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n");
  for (int i = 0; i < 128; i++)
    {
      len += snprintf (req + len, cap - (size_t)len, "400\r\n");
      memset (req + len, ' ', 0x400);
      len += 0x400;
      len += snprintf (req + len, cap - (size_t)len, "\r\n");
    }
  len += snprintf (req + len, cap - (size_t)len, "0\r\n\r\n");
  char *raw = raw_request (ebb_http_server_port (f.server, 0), req, (size_t)len);
  CU_ASSERT_EQUAL (raw_status (raw), 413);
  CU_ASSERT_PTR_NOT_NULL (strstr (raw, "\"payload_too_large\""));
  CU_ASSERT_PTR_NOT_NULL (strstr (raw, "Connection: close\r\n"));
  free (raw);
  free (req);

  /* A client that keeps streaming far past the cap is cut off rather than read forever. */
  cap = 4 * 1024 * 1024;
  req = malloc (cap);
  len = snprintf (req, cap,
                  "POST /v1/tasks/a/suspend HTTP/1.1\r\nHost: x\r\n"
                  "Transfer-Encoding: chunked\r\n\r\n");
  while ((size_t)len + 0x10000 + 16 < cap)
    {
      len += snprintf (req + len, cap - (size_t)len, "10000\r\n");
      memset (req + len, ' ', 0x10000);
      len += 0x10000;
      len += snprintf (req + len, cap - (size_t)len, "\r\n");
    }
  raw = raw_request (ebb_http_server_port (f.server, 0), req, (size_t)len);
  CU_ASSERT_EQUAL (raw_status (raw), -1); /* disconnected, no reply */
  free (raw);
  free (req);
  /* The server is still fine. */
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  fixture_stop (&f);
}

static void
test_bad_json_400 (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);
  const char *bodies[] = { "{\"a\": ", "{nope}", "{} trailing", "[1,2" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bodies); i++)
    {
      char req[512];
      /* The JSON route parses whatever the Content-Type; the PUT route because of it. */
      int n = snprintf (req, sizeof req,
                        "%s /v1/tasks/a/suspend HTTP/1.1\r\nHost: x\r\n%sContent-Length: %zu\r\n"
                        "Connection: close\r\n\r\n%s",
                        i % 2 ? "POST" : "PUT",
                        i % 2 ? "Content-Type: text/plain\r\n"
                              : "Content-Type: application/json; charset=utf-8\r\n",
                        strlen (bodies[i]), bodies[i]);
      char *raw = raw_request (port, req, (size_t)n);
      CU_ASSERT_EQUAL (raw_status (raw), 400);
      CU_ASSERT_PTR_NOT_NULL (strstr (raw, "\"error\":\"bad_request\""));
      CU_ASSERT_PTR_NOT_NULL (strstr (raw, "\"detail\":\"invalid JSON: "));
      CU_ASSERT_PTR_NOT_NULL (strstr (raw, "Content-Type: application/json"));
      free (raw);
    }
  fixture_stop (&f);
}

/* GET path: expects status and, as text, member of a 200's body or "detail" of an error's
 * ("" when absent). */
static void
expect_get (fixture *f, const char *path, long status, const char *member, const char *want)
{
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  CU_ASSERT_EQUAL_FATAL (ebb_http_call ("GET", base (f, 0), path, NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, status);
  json_object *v = NULL;
  json_object_object_get_ex (res.json, res.status == 200 ? member : "detail", &v);
  const char *got = v ? json_object_get_string (v) : "";
  CU_ASSERT_STRING_EQUAL (got, want);
  if (res.status != status || strcmp (got, want) != 0)
    fprintf (stderr, "\n  %s: got %ld %s\n", path, res.status, got);
  ebb_http_result_clear (&res);
}

/* ebb_http_request_query_check: known arguments once each with a value pass; an unknown,
 * a repeated or a valueless one is refused with its name. */
static void
test_query_check (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  static const struct
  {
    const char *path;
    long status;
    const char *detail; /* the 400's reason, or the 200's page ("" for none) */
  } cases[] = {
    { "/query", 200, "" },
    { "/query?page=2&after=9", 200, "2" },
    { "/query?page=", 200, "" }, /* an empty value is the handler's to judge */
    { "/query?page=1&page=2", 400, "query argument \"page\" given more than once" },
    { "/query?after=1&page=1&after=1", 400, "query argument \"after\" given more than once" },
    { "/query?pages=1", 400, "unknown query argument \"pages\"" },
    { "/query?page", 400, "query argument \"page\" needs a value" },
    { "/query?page%00=1", 400, "unknown query argument \"page%00\"" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (cases); i++)
    expect_get (&f, cases[i].path, cases[i].status, "page", cases[i].detail);
  fixture_stop (&f);
}

/* The gate of test_gate: /v1/tasks/... stays shut (what a controller's standby does with
 * its leader's routes); the rest passes to the handlers. */
static bool
shut_tasks (ebb_http_request *req, ebb_http_response *resp, void *userdata EBB_UNUSED)
{
  if (strncmp (ebb_http_request_path (req), "/v1/tasks", 9) != 0)
    return false;
  ebb_http_error (resp, 503, "gated", "shut by the gate");
  return true;
}

/* ebb_http_server_config.gate runs before every route's handler: true is its answer, false
 * runs the handler. */
static void
test_gate (void)
{
  fixture f;
  fixture_extra = (ebb_http_server_config){ .gate = shut_tasks };
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  expect_get (&f, "/v1/tasks", 503, "", "shut by the gate");
  expect_get (&f, "/v1/tasks/web-1", 503, "", "shut by the gate");
  expect_get (&f, "/query?page=2", 200, "page", "2");
  fixture_stop (&f);
  fixture_extra = (ebb_http_server_config){ 0 };
}

/* ebb_http_request_query_u64: digits only, within the bounds, left alone when absent. */
static void
test_query_u64 (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  const char *range = "n must be a decimal number from 1 to 1000";
  static const struct
  {
    const char *path;
    const char *n; /* "" for a 400 */
  } cases[] = {
    { "/num", "7" },
    { "/num?n=1", "1" },
    { "/num?n=1000", "1000" },
    { "/num?n=0", "" },
    { "/num?n=1001", "" },
    { "/num?n=-1", "" },
    { "/num?n=+5", "" },
    { "/num?n=5x", "" },
    { "/num?n=", "" },
    { "/num?n=%205", "" },
    { "/num?n=99999999999999999999999", "" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (cases); i++)
    expect_get (&f, cases[i].path, cases[i].n[0] ? 200 : 400, "n",
                cases[i].n[0] ? cases[i].n : range);
  fixture_stop (&f);
}

/* Collects a streamed body (the client's sink) with the time each piece came. */
typedef struct
{
  char text[64];
  size_t len;
  unsigned calls;
} sink_buf;

static bool
to_sink (const char *data, size_t len, void *ud)
{
  sink_buf *b = ud;
  CU_ASSERT_FATAL (b->len + len < sizeof b->text);
  memcpy (b->text + b->len, data, len);
  b->len += len;
  b->text[b->len] = '\0';
  b->calls++;
  return true;
}

/* A streamed body: every piece once and in order, the waits between them spent suspended
 * (the reader is not called again until a wake), done() once, and a client sink that gets
 * the body as it comes. */
static void
test_stream (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  stream_done_calls = 0;
  sink_buf got = { 0 };
  ebb_http_call_opts o = auth;
  o.sink = to_sink;
  o.sink_ud = &got;
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  uint64_t t0 = ebb_now_usec ();
  CU_ASSERT_EQUAL_FATAL (ebb_http_call ("GET", base (&f, 0), "/stream", NULL, &o, &res, &err), 0);
  uint64_t took_usec = ebb_now_usec () - t0;
  CU_ASSERT_EQUAL (res.status, 200);
  CU_ASSERT_STRING_EQUAL (got.text, "one\ntwo\nthree\n");
  CU_ASSERT_EQUAL (res.body_len, 0); /* it went to the sink */
  CU_ASSERT (took_usec >= 90000);    /* two waits of 50 ms */
  fixture_stop_loop (&f);
  /* Suspended while waiting: one empty read per wait (a polled reader makes many). */
  CU_ASSERT (streamed.reads_empty <= 2);
  if (streamed.reads_empty > 2)
    fprintf (stderr, "\n  %u empty reads\n", streamed.reads_empty);
  CU_ASSERT_EQUAL (stream_done_calls, 1);
  ebb_http_result_clear (&res);
  fixture_free (&f);
}

/* ebb_http_request_body_json: a blank body is no body; duplicate keys, nesting past the
 * limit and bad JSON are refused. */
static void
test_body_json_strict (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);
  static const struct
  {
    const char *body;
    int status;
    const char *want;
  } cases[] = {
    { "", 200, "{\"got\":null}" },
    { " \r\n\t", 200, "{\"got\":null}" },
    { "{\"a\":[1]}", 200, "{\"got\":{\"a\":[1]}}" },
    { "{\"a\":1,\"a\":2}", 400, "duplicate key" },
    { "{\"a\":[[1]]}", 400, "nested deeper than 2" },
    { "{\"a\":", 400, "\"bad_request\"" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (cases); i++)
    {
      char req[512];
      int n = snprintf (req, sizeof req,
                        "POST /v1/strict HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n"
                        "Connection: close\r\n\r\n%s",
                        strlen (cases[i].body), cases[i].body);
      char *raw = raw_request (port, req, (size_t)n);
      CU_ASSERT_EQUAL (raw_status (raw), cases[i].status);
      const char *json = strstr (raw, "\r\n\r\n");
      CU_ASSERT_PTR_NOT_NULL (json && strstr (json, cases[i].want));
      if (raw_status (raw) != cases[i].status || !json || !strstr (json, cases[i].want))
        fprintf (stderr, "case %zu: %s\n", i, raw);
      free (raw);
    }
  fixture_stop (&f);
}

/* Percent-encoding seen through the whole server: decoded before routing, except %00. */
static void
test_hostile_paths_end_to_end (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);
  struct
  {
    const char *path;
    int status;
    const char *needle;
  } cases[] = {
    { "/v1/tasks/%77eb-1", 200, "\"id\":\"web-1\"" },        /* decoded before routing */
    { "/v1/tasks/%2e%2e", 404, "not_found" },                /* decodes to ".." */
    { "/v1/tasks/a%2Fb", 404, "not_found" },                 /* no encoded slash in a name */
    { "/v1/tasks/x%00/suspend", 405, "method_not_allowed" }, /* not "GET /v1/tasks/x" */
    { "/v1/tasks/x%00y", 200, "\"id\":\"x%00y\"" },          /* NUL stays encoded */
    { "/v1/tasks/%zz", 200, "\"id\":\"%zz\"" },              /* bad escapes stay literal */
    { "/v1/tasks//", 404, "not_found" },
    { "/v1/tasks/../tasks", 404, "not_found" }, /* no dot-segment resolution either */
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (cases); i++)
    {
      char req[256];
      int n = snprintf (req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                        cases[i].path);
      char *raw = raw_request (port, req, (size_t)n);
      CU_ASSERT_EQUAL (raw_status (raw), cases[i].status);
      CU_ASSERT_PTR_NOT_NULL (strstr (raw, cases[i].needle));
      if (raw_status (raw) != cases[i].status || !strstr (raw, cases[i].needle))
        fprintf (stderr, "%s: %s\n", cases[i].path, raw);
      free (raw);
    }
  /* A very long path gets an answer, not a crash or a hang. */
  size_t len = 20000;
  char *req = malloc (len + 64);
  memcpy (req, "GET /", 5);
  memset (req + 5, 'a', len);
  int n = 5 + (int)len;
  n += sprintf (req + n, " HTTP/1.1\r\nHost: x\r\n\r\n");
  char *raw = raw_request (port, req, (size_t)n);
  CU_ASSERT (raw_status (raw) == 404 || raw_status (raw) == 414);
  free (raw);
  free (req);
  fixture_stop (&f);
}

static void
test_bearer_auth (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, "s3cret-token", 0) == 0);
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  const char *tokens[] = { NULL, "wrong", "s3cret-toke", "s3cret-token-", "S3CRET-TOKEN" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (tokens); i++)
    {
      ebb_http_call_opts o = { .bearer_token = tokens[i], .test_plain_loopback = true };
      CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &o, &res, &err), 0);
      CU_ASSERT_EQUAL (res.status, 401);
      assert_error_body (&res, "unauthorized");
      ebb_http_result_clear (&res);
    }
  /* Unknown routes are 401 too: no probing the route table without the token. */
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/nope", NULL, NULL, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 401);
  ebb_http_result_clear (&res);
  const char *get = "GET /v1/tasks HTTP/1.1\r\nHost: x\r\n\r\n";
  char *raw = raw_request_as_is (ebb_http_server_port (f.server, 0), get, strlen (get));
  CU_ASSERT_EQUAL (raw_status (raw), 401);
  CU_ASSERT_PTR_NOT_NULL (strstr (raw, "WWW-Authenticate: Bearer\r\n"));
  free (raw);
  /* A public route is served without the token, for its own method only. */
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/public", NULL, NULL, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  CU_ASSERT_EQUAL (ebb_http_call ("POST", base (&f, 0), "/public", NULL, NULL, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 401);
  ebb_http_result_clear (&res);
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/public/x", NULL, NULL, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 401);
  ebb_http_result_clear (&res);
  ebb_http_call_opts ok = { .bearer_token = "s3cret-token", .test_plain_loopback = true };
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &ok, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  fixture_stop (&f);
}

static void
test_unix_socket (void)
{
  char path[128];
  snprintf (path, sizeof path, "%s/agent.sock", tmpdir);
  char spec[160];
  snprintf (spec, sizeof spec, "unix:%s", path);

  /* A stale socket file (its server died) is replaced. */
  int stale = socket (AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  strcpy (sun.sun_path, path);
  CU_ASSERT_FATAL (bind (stale, (struct sockaddr *)&sun, sizeof sun) == 0);
  close (stale);

  const char *const listen[] = { "127.0.0.1:0", spec, NULL };
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, listen, NULL, 0) == 0);
  CU_ASSERT_EQUAL (ebb_http_server_port (f.server, 1), -EAFNOSUPPORT);
  CU_ASSERT_STRING_EQUAL (base (&f, 1), spec);
  struct stat st;
  CU_ASSERT_FATAL (stat (path, &st) == 0);
  CU_ASSERT (S_ISSOCK (st.st_mode));
  CU_ASSERT_EQUAL (st.st_mode & 07777, 0660);

  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  json_object *body = json_tokener_parse ("{\"x\": [1, 2, 3]}");
  CU_ASSERT_EQUAL_FATAL (
      ebb_http_call ("POST", spec, "/v1/tasks/u-1/suspend", body, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 201);
  json_object *v;
  CU_ASSERT (json_object_object_get_ex (res.json, "peer", &v)
             && strcmp (json_object_get_string (v), "unix") == 0);
  CU_ASSERT (json_object_object_get_ex (res.json, "got", &v) && json_object_equal (v, body));
  ebb_http_result_clear (&res);
  json_object_put (body);
  /* One rule: a unix socket is guarded by its mode and group, not the token (TCP still is). */
  CU_ASSERT_EQUAL (ebb_http_call ("GET", spec, "/v1/tasks", NULL, NULL, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, NULL, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 401);
  ebb_http_result_clear (&res);

  /* A second server on a live socket must not steal it. */
  sd_event *e2 = NULL;
  sd_event_new (&e2);
  const char *const again[] = { spec, NULL };
  ebb_http_server_config cfg = { .listen = again, .routes = routes, .n_routes = 1 };
  CU_ASSERT_PTR_NULL (ebb_http_server_new (e2, &cfg, &err));
  CU_ASSERT_EQUAL (ebb_error_code (&err), EADDRINUSE);
  ebb_error_free (&err);
  sd_event_unref (e2);

  fixture_stop (&f);
  CU_ASSERT (access (path, F_OK) != 0 && errno == ENOENT); /* removed on free */
}

static void
test_listen_spec_errors (void)
{
  sd_event *e = NULL;
  sd_event_new (&e);
  char file[128];
  snprintf (file, sizeof file, "unix:%s/plain-file", tmpdir);
  int fd = open (file + 5, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
  close (fd);
  struct
  {
    const char *spec;
    int code;
  } cases[] = { { "127.0.0.1", EINVAL },         { "127.0.0.1:99999", EINVAL }, { "[::1", EINVAL },
                { "127.0.0.1:x", EINVAL },       { "unix:", EINVAL },           { file, EEXIST },
                { "192.0.2.1:0", EADDRNOTAVAIL } };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (cases); i++)
    {
      cleanup_error ebb_error *err = NULL;
      const char *const listen[] = { cases[i].spec, NULL };
      ebb_http_server_config cfg
          = { .listen = listen, .routes = routes, .n_routes = 1, .bearer_token = "t" };
      CU_ASSERT_PTR_NULL (ebb_http_server_new (e, &cfg, &err));
      CU_ASSERT_EQUAL (ebb_error_code (&err), cases[i].code);
      if (ebb_error_code (&err) != cases[i].code)
        fprintf (stderr, "%s: %s\n", cases[i].spec, ebb_error_msg (&err));
    }
  CU_ASSERT (access (file + 5, F_OK) == 0); /* a non-socket file is never deleted */
  unlink (file + 5);
  sd_event_unref (e);
}

static void
test_ipv6_loopback (void)
{
  const char *const listen[] = { "[::1]:0", NULL };
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, listen, NULL, 0) == 0);
  CU_ASSERT_NSTRING_EQUAL (base (&f, 0), "http://[::1]:", 13);
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks/v6", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  fixture_stop (&f);
}

static void
test_deferred_from_thread (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  uint64_t t0 = ebb_now_usec ();
  ebb_http_call_opts five_sec
      = { .bearer_token = TEST_TOKEN, .timeout_ms = 5000, .test_plain_loopback = true };
  int r = ebb_http_call ("POST", base (&f, 0), "/v1/slow/job-7", NULL, &five_sec, &res, &err);
  if (r < 0)
    fprintf (stderr, "slow: %s\n", ebb_error_msg (&err));
  CU_ASSERT_EQUAL_FATAL (r, 0);
  uint64_t took = ebb_now_usec () - t0;
  CU_ASSERT_EQUAL (res.status, 200);
  json_object *v;
  CU_ASSERT (json_object_object_get_ex (res.json, "done", &v) && json_object_get_boolean (v));
  CU_ASSERT (json_object_object_get_ex (res.json, "id", &v)
             && strcmp (json_object_get_string (v), "job-7") == 0);
  CU_ASSERT (took >= 45 * 1000); /* really waited for the worker */
  ebb_http_result_clear (&res);

  CU_ASSERT_EQUAL (ebb_http_call ("POST", base (&f, 0), "/v1/inline", NULL, &five_sec, &res, &err),
                   0);
  CU_ASSERT_EQUAL (res.status, 409);
  assert_error_body (&res, "conflict");
  ebb_http_result_clear (&res);
  CU_ASSERT_EQUAL (
      ebb_http_call ("POST", base (&f, 0), "/v1/bad-defer", NULL, &five_sec, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 500);
  assert_error_body (&res, "internal");
  ebb_http_result_clear (&res);

  /* The client gives up before the worker finishes: the completion must be harmless, and the
   * server must go on serving. */
  f.worker_sleep_msec = 400;
  ebb_http_call_opts o
      = { .bearer_token = TEST_TOKEN, .timeout_ms = 100, .test_plain_loopback = true };
  CU_ASSERT (ebb_http_call ("POST", base (&f, 0), "/v1/slow/gone", NULL, &o, &res, &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_ETIMEDOUT);
  ebb_error_free (&err);
  ebb_sleep_usec (600 * 1000);
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  fixture_stop (&f);
}

/* Freeing the server while a request is parked: the handle outlives it, detached. */
static void
test_deferred_outlives_server (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  ebb_http_call_opts o
      = { .bearer_token = TEST_TOKEN, .timeout_ms = 200, .test_plain_loopback = true };
  CU_ASSERT (ebb_http_call ("POST", base (&f, 0), "/v1/park", NULL, &o, &res, &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_ETIMEDOUT);
  fixture_stop_loop (&f);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f.parked);
  CU_ASSERT_PTR_NOT_NULL (ebb_http_deferred_request (f.parked));
  ebb_http_deferred *d = f.parked;
  fixture_free (&f);
  CU_ASSERT_PTR_NULL (ebb_http_deferred_request (d));
  ebb_http_error (ebb_http_deferred_response (d), 200, "late", "nobody listens");
  ebb_http_deferred_complete (d);
}

static void
test_client_errors (void)
{
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  /* Refused: a port that was just free. */
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sin;
  bind (fd, (struct sockaddr *)&sin, sizeof sin);
  getsockname (fd, (struct sockaddr *)&sin, &len);
  close (fd);
  char url[64];
  snprintf (url, sizeof url, "http://127.0.0.1:%d", ntohs (sin.sin_port));
  CU_ASSERT (ebb_http_call ("GET", url, "/v1/tasks", NULL, NULL, &res, &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), ECONNREFUSED);
  CU_ASSERT_EQUAL (res.status, 0);
  ebb_error_free (&err);
  char spec[128];
  snprintf (spec, sizeof spec, "unix:%s/nobody.sock", tmpdir);
  CU_ASSERT (ebb_http_call ("GET", spec, "/v1/tasks", NULL, NULL, &res, &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), ECONNREFUSED);
  ebb_error_free (&err);

  /* Timeout: a listener whose backlog accepts the connection but nobody ever answers. */
  fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sin.sin_port = 0;
  bind (fd, (struct sockaddr *)&sin, sizeof sin);
  listen (fd, 8);
  getsockname (fd, (struct sockaddr *)&sin, &len);
  snprintf (url, sizeof url, "http://127.0.0.1:%d", ntohs (sin.sin_port));
  ebb_http_call_opts o = { .timeout_ms = 300 };
  uint64_t t0 = ebb_now_usec ();
  CU_ASSERT (ebb_http_call ("GET", url, "/v1/tasks", NULL, &o, &res, &err) < 0);
  uint64_t took = ebb_now_usec () - t0;
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_ETIMEDOUT);
  CU_ASSERT (took >= 280 * 1000 && took < 5 * 1000 * 1000);
  ebb_error_free (&err);
  close (fd);

  const char *bad_bases[] = { "ftp://x", "127.0.0.1:1", "unix:" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad_bases); i++)
    {
      CU_ASSERT (ebb_http_call ("GET", bad_bases[i], "/", NULL, NULL, &res, &err) < 0);
      CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
      ebb_error_free (&err);
    }
}

static void
test_client_response_cap (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  ebb_http_call_opts o
      = { .bearer_token = TEST_TOKEN, .max_response_bytes = 1000, .test_plain_loopback = true };
  CU_ASSERT (ebb_http_call ("GET", base (&f, 0), "/big", NULL, &o, &res, &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_ERANGE);
  ebb_error_free (&err);
  o.max_response_bytes = 100000;
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/big", NULL, &o, &res, &err), 0);
  CU_ASSERT_EQUAL (res.body_len, 100000);
  ebb_http_result_clear (&res);
  fixture_stop (&f);
}

/* --- The async client and the server in one loop, in the test thread. */

typedef struct
{
  sd_event *event;
  int done, ok, expect;
  int timeouts;
} async_state;

typedef struct
{
  async_state *st;
  char id[32];
} async_req;

static void
on_async_done (ebb_http_result *res, const ebb_error *err, void *userdata)
{
  async_req *r = userdata;
  json_object *v;
  if (!err && (res->status == 200 || res->status == 201)
      && json_object_object_get_ex (res->json, "id", &v)
      && strcmp (json_object_get_string (v), r->id) == 0)
    r->st->ok++;
  if (err && err->code == EBB_ETIMEDOUT)
    r->st->timeouts++;
  if (++r->st->done == r->st->expect)
    sd_event_exit (r->st->event, 0);
  free (r);
}

static int
on_watchdog (sd_event_source *s, uint64_t usec EBB_UNUSED, void *u EBB_UNUSED)
{
  return sd_event_exit (sd_event_source_get_event (s), 1);
}

/* 50 calls at once over tcp and a unix socket, under a cap (0: none) of connections per
 * host and calls under way: all of them complete. */
static void
async_50 (long per_host, long total)
{
  char spec[160];
  snprintf (spec, sizeof spec, "unix:%s/async.sock", tmpdir);
  const char *const listen[] = { "127.0.0.1:0", spec, NULL };
  cleanup_error ebb_error *err = NULL;
  async_state st = { .expect = 50 };
  sd_event_new (&st.event);
  ebb_http_server_config cfg = { .listen = listen,
                                 .routes = routes,
                                 .n_routes = EBB_ARRAY_SIZE (routes),
                                 .bearer_token = TEST_TOKEN };
  ebb_http_server *s = ebb_http_server_new (st.event, &cfg, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (s);
  ebb_http_client *c = ebb_http_client_new (st.event, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  if (per_host || total)
    ebb_http_client_limit (c, per_host, total);
  for (int i = 0; i < st.expect; i++)
    {
      async_req *r = calloc (1, sizeof *r);
      r->st = &st;
      snprintf (r->id, sizeof r->id, "t-%d", i);
      char path[64];
      /* Every fifth one is a POST with a JSON body (and the server echoes it). */
      bool post = i % 5 == 0;
      snprintf (path, sizeof path, post ? "/v1/tasks/%s/suspend" : "/v1/tasks/%s", r->id);
      json_object *body = post ? json_tokener_parse ("{\"n\": 1}") : NULL;
      CU_ASSERT_EQUAL (ebb_http_client_start (c, post ? "POST" : "GET",
                                              ebb_http_server_base_url (s, i % 2), path, body,
                                              &auth, on_async_done, r, &err),
                       0);
      json_object_put (body); /* the client copied it */
    }
  CU_ASSERT_EQUAL (ebb_http_client_pending (c), 50);
  CU_ASSERT_EQUAL (st.done, 0); /* callbacks only ever run from the loop */
  sd_event_source *wd = NULL;
  sd_event_add_time_relative (st.event, &wd, CLOCK_MONOTONIC, 10 * 1000 * 1000, 0, on_watchdog,
                              NULL);
  uint64_t t0 = ebb_now_usec ();
  CU_ASSERT_EQUAL (sd_event_loop (st.event), 0);
  fprintf (stderr, "50 concurrent requests (tcp+unix, cap %ld/%ld) in %.1f ms\n", per_host, total,
           (double)(ebb_now_usec () - t0) / 1000.0);
  CU_ASSERT_EQUAL (st.done, 50);
  CU_ASSERT_EQUAL (st.ok, 50);
  CU_ASSERT_EQUAL (ebb_http_client_pending (c), 0);
  sd_event_source_disable_unref (wd);
  ebb_http_client_free (c);
  ebb_http_server_free (s);
  sd_event_unref (st.event);
}

static void
test_async_50_concurrent (void)
{
  async_50 (0, 0);
}

/* Capped: the calls over the cap wait in the client and still all complete. */
static void
test_async_50_capped (void)
{
  async_50 (2, 3);
}

static void
test_async_timeout_and_cancel (void)
{
  cleanup_error ebb_error *err = NULL;
  async_state st = { .expect = 2 };
  sd_event_new (&st.event);
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sin;
  bind (fd, (struct sockaddr *)&sin, sizeof sin);
  listen (fd, 8);
  getsockname (fd, (struct sockaddr *)&sin, &len);
  char url[64];
  snprintf (url, sizeof url, "http://127.0.0.1:%d", ntohs (sin.sin_port));
  ebb_http_client *c = ebb_http_client_new (st.event, &err);
  ebb_http_call_opts o = { .timeout_ms = 200 };
  for (int i = 0; i < 2; i++)
    {
      async_req *r = calloc (1, sizeof *r);
      r->st = &st;
      CU_ASSERT_EQUAL (
          ebb_http_client_start (c, "GET", url, "/x", NULL, &o, on_async_done, r, &err), 0);
    }
  sd_event_source *wd = NULL;
  sd_event_add_time_relative (st.event, &wd, CLOCK_MONOTONIC, 5 * 1000 * 1000, 0, on_watchdog,
                              NULL);
  uint64_t t0 = ebb_now_usec ();
  CU_ASSERT_EQUAL (sd_event_loop (st.event), 0);
  uint64_t took = ebb_now_usec () - t0;
  CU_ASSERT_EQUAL (st.timeouts, 2);
  CU_ASSERT (took >= 180 * 1000 && took < 4 * 1000 * 1000);

  /* Freeing the client with requests in flight cancels them through their callbacks. */
  st.expect = 99;
  st.done = 0;
  async_req *r = calloc (1, sizeof *r);
  r->st = &st;
  int r0 = ebb_http_client_start (c, "GET", url, "/x", NULL, NULL, on_async_done, r, &err);
  if (r0 < 0)
    fprintf (stderr, "start: %s\n", ebb_error_msg (&err));
  CU_ASSERT_EQUAL (r0, 0);
  CU_ASSERT (
      ebb_http_client_start (c, "GET", "gopher://x", "/x", NULL, NULL, on_async_done, r, &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
  ebb_http_client_free (c);
  CU_ASSERT_EQUAL (st.done, 1);
  sd_event_source_disable_unref (wd);
  close (fd);
  sd_event_unref (st.event);
}

static int
suite_init (void)
{
  snprintf (tmpdir, sizeof tmpdir, "/tmp/ebb-test-http-XXXXXX");
  if (!mkdtemp (tmpdir))
    return -1;
  if (getenv ("EBB_TEST_HTTP_DEBUG"))
    ebb_log_set_level (LOG_DEBUG);
  return 0;
}

static int
suite_clean (void)
{
  char cmd[128];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  return system (cmd) == 0 ? 0 : -1;
}

/* --- Listener policy, limits, counters */

static void
test_tcp_needs_token (void)
{
  sd_event *e = NULL;
  sd_event_new (&e);
  const char *specs[] = { "127.0.0.1:0", "[::1]:0", "localhost:0" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (specs); i++)
    for (int empty = 0; empty < 2; empty++)
      {
        cleanup_error ebb_error *err = NULL;
        const char *const listen[] = { specs[i], NULL };
        ebb_http_server_config cfg = {
          .listen = listen, .routes = routes, .n_routes = 1, .bearer_token = empty ? "" : NULL
        };
        CU_ASSERT_PTR_NULL (ebb_http_server_new (e, &cfg, &err));
        CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
        CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "needs a bearer token"));
      }
  /* A unix socket alone needs none: its file mode is the access control. */
  char spec[160];
  snprintf (spec, sizeof spec, "unix:%s/notoken.sock", tmpdir);
  const char *const listen[] = { spec, NULL };
  cleanup_error ebb_error *err = NULL;
  ebb_http_server_config cfg = { .listen = listen, .routes = routes, .n_routes = 1 };
  ebb_http_server *s = ebb_http_server_new (e, &cfg, &err);
  CU_ASSERT_PTR_NOT_NULL (s);
  ebb_http_server_free (s);
  sd_event_unref (e);
}

static void
test_loopback_is_numeric (void)
{
  struct
  {
    const char *spec;
    bool loopback;
  } cases[] = {
    { "127.0.0.1:7470", true },
    { "127.1.2.3:1", true },
    { "[::1]:7470", true },
    { "[::ffff:127.0.0.1]:1", true },
    { "localhost:7470", false },
    { "127.evil.example:80", false },
    { "127.0.0.1.nip.io:80", false },
    { "0.0.0.0:7470", false },
    { "[::]:7470", false },
    { "128.0.0.1:1", false },
    { "10.0.0.1:1", false },
    { "[::ffff:10.0.0.1]:1", false },
    { "unix:/run/x.sock", false },
    { "127.0.0.1", false },
    { "", false },
    { "[::2]:1", false },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (cases); i++)
    {
      CU_ASSERT_EQUAL (ebb_http_listen_spec_is_loopback (cases[i].spec), cases[i].loopback);
      if (ebb_http_listen_spec_is_loopback (cases[i].spec) != cases[i].loopback)
        fprintf (stderr, "loopback(%s) wrong\n", cases[i].spec);
    }
  CU_ASSERT (!ebb_http_listen_spec_is_loopback (NULL));
  CU_ASSERT (ebb_http_host_is_loopback ("127.0.0.1"));
  CU_ASSERT (ebb_http_host_is_loopback ("[::1]"));
  CU_ASSERT (ebb_http_host_is_loopback ("::1"));
  CU_ASSERT (!ebb_http_host_is_loopback ("localhost"));
  CU_ASSERT (!ebb_http_host_is_loopback ("127.0.0.1.example"));
  CU_ASSERT (!ebb_http_host_is_loopback ("[127.0.0.1]"));
  CU_ASSERT (!ebb_http_host_is_loopback (NULL));
}

static void
test_unix_group (void)
{
  char spec[160];
  snprintf (spec, sizeof spec, "unix:%s/group.sock", tmpdir);
  const char *const listen[] = { spec, NULL };
  char gid_text[32];
  snprintf (gid_text, sizeof gid_text, "%u", (unsigned)getegid ());
  struct group *gr = getgrgid (getegid ());
  const char *groups[] = { gid_text, gr ? gr->gr_name : gid_text };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (groups); i++)
    {
      fixture f;
      fixture_extra = (ebb_http_server_config){ .unix_group = groups[i] };
      CU_ASSERT_FATAL (fixture_start (&f, listen, NULL, 0) == 0);
      struct stat st;
      CU_ASSERT_FATAL (stat (spec + 5, &st) == 0);
      CU_ASSERT_EQUAL (st.st_gid, getegid ());
      CU_ASSERT_EQUAL (st.st_mode & 07777, 0660);
      fixture_stop (&f);
    }
  sd_event *e = NULL;
  sd_event_new (&e);
  cleanup_error ebb_error *err = NULL;
  ebb_http_server_config cfg = {
    .listen = listen, .routes = routes, .n_routes = 1, .unix_group = "no-such-group-ebb-test"
  };
  CU_ASSERT_PTR_NULL (ebb_http_server_new (e, &cfg, &err));
  CU_ASSERT_EQUAL (ebb_error_code (&err), ENOENT);
  CU_ASSERT (access (spec + 5, F_OK) != 0);
  sd_event_unref (e);
  fixture_extra = (ebb_http_server_config){ 0 };
}

/* Opens a TCP connection to port that sends nothing (a slowloris client in miniature). */
static int
idle_connect (int port)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET,
                             .sin_port = htons ((uint16_t)port),
                             .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  CU_ASSERT_FATAL (connect (fd, (struct sockaddr *)&sin, sizeof sin) == 0);
  struct timeval tv = { .tv_sec = 5 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

/* Whether the server closed fd (EOF or reset) within the socket's receive timeout. */
static bool
closed_by_server (int fd)
{
  char c;
  ssize_t n = read (fd, &c, 1);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

static void
test_per_ip_eviction_and_stats (void)
{
  fixture f;
  fixture_extra = (ebb_http_server_config){ .max_connections_per_ip = 4 };
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);
  int idle[4];
  for (size_t i = 0; i < EBB_ARRAY_SIZE (idle); i++)
    idle[i] = idle_connect (port);
  usleep ((EBB_HTTP_EVICT_MIN_AGE_MS + 100) * 1000);
  /* The address is at its limit with header-less connections: a real request still gets
   * through, and the oldest idle one is closed for it. */
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  CU_ASSERT (closed_by_server (idle[0]));
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/nope", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 404);
  ebb_http_result_clear (&res);
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, NULL, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 401);
  ebb_http_result_clear (&res);
  fixture_stop_loop (&f);
  ebb_http_server_stats st;
  ebb_http_server_get_stats (f.server, &st);
  CU_ASSERT (st.evicted >= 1);
  CU_ASSERT_EQUAL (st.by_class[2], 1);
  CU_ASSERT_EQUAL (st.by_class[4], 2);
  CU_ASSERT_EQUAL (st.requests, 3);
  CU_ASSERT (st.connections >= 7);
  CU_ASSERT_EQUAL (st.rejected_total, 0);
  fixture_free (&f);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (idle); i++)
    close (idle[i]);
  fixture_extra = (ebb_http_server_config){ 0 };
}

static void
test_total_limit_and_header_timeout (void)
{
  fixture f;
  fixture_extra = (ebb_http_server_config){ .max_connections = 3, .header_timeout_sec = 1 };
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);
  int idle[3];
  for (size_t i = 0; i < EBB_ARRAY_SIZE (idle); i++)
    idle[i] = idle_connect (port);
  usleep (100 * 1000);
  /* Full: a fourth is refused at once. */
  int extra = idle_connect (port);
  uint64_t t0 = ebb_now_usec ();
  CU_ASSERT (closed_by_server (extra));
  CU_ASSERT (ebb_now_usec () - t0 < 900 * 1000);
  close (extra);
  /* Header-less connections die after the header timeout (1 s), not the idle one (30 s). */
  for (size_t i = 0; i < EBB_ARRAY_SIZE (idle); i++)
    {
      CU_ASSERT (closed_by_server (idle[i]));
      close (idle[i]);
    }
  CU_ASSERT (ebb_now_usec () - t0 < 3 * 1000 * 1000);
  /* Room again. */
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  fixture_stop_loop (&f);
  ebb_http_server_stats st;
  ebb_http_server_get_stats (f.server, &st);
  CU_ASSERT (st.rejected_total >= 1);
  fixture_free (&f);
  fixture_extra = (ebb_http_server_config){ 0 };
}

/* Sends text on a fresh connection without ending the sending side (the server sees only
 * what was sent, as from a client still sending) and returns all it answers within 2 s. */
static char *
send_and_read (int port, const char *text)
{
  int fd = idle_connect (port);
  struct timeval tv = { .tv_sec = 2 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  CU_ASSERT (send (fd, text, strlen (text), MSG_NOSIGNAL) == (ssize_t)strlen (text));
  return read_and_close (fd);
}

/* Request smuggling (RFC 9112 6.3): Content-Length with Transfer-Encoding is answered 400
 * and the connection closed, so the request hidden after it is never served. */
static void
test_cl_with_te_closes (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  const char *req
      = "POST /v1/tasks/a/suspend HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN
        "\r\nContent-Type: application/json\r\nContent-Length: 5\r\n"
        "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        "GET /v1/tasks/hidden HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN "\r\n\r\n";
  char *raw = send_and_read (ebb_http_server_port (f.server, 0), req);
  CU_ASSERT_EQUAL (raw_status (raw), 400);
  CU_ASSERT_PTR_NULL (strstr (raw, "hidden"));
  CU_ASSERT_PTR_NULL (strstr (raw + 1, "HTTP/1.1 "));
  if (raw_status (raw) != 400 || strstr (raw, "hidden"))
    fprintf (stderr, "CL+TE: %s\n", raw);
  free (raw);
  fixture_stop (&f);
}

/* A body on a method that takes none (GET, HEAD) is refused as soon as the headers
 * are in, public routes included: a slow body cannot hold the connection. */
static void
test_no_body_on_get (void)
{
  fixture f;
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);
  const char *reqs[] = {
    "GET /public HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nabc",
    "GET /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN
    "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (reqs); i++)
    {
      uint64_t t0 = ebb_now_usec ();
      char *raw = send_and_read (port, reqs[i]);
      CU_ASSERT_EQUAL (raw_status (raw), 400);
      CU_ASSERT_PTR_NOT_NULL (strstr (raw, "takes no body"));
      CU_ASSERT (ebb_now_usec () - t0 < 1500 * 1000); /* closed by the server, not our timeout */
      if (raw_status (raw) != 400)
        fprintf (stderr, "body on GET %zu: %s\n", i, raw);
      free (raw);
    }
  /* An empty body is no body. */
  char *raw = send_and_read (port, "GET /public HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                                   "Connection: close\r\n\r\n");
  CU_ASSERT_EQUAL (raw_status (raw), 200);
  free (raw);
  /* "POST /v1/tasks/keep%2fsuspend" is not the suspension of task keep. */
  const char *post
      = "POST /v1/tasks/keep%2fsuspend HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN
        "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
  raw = send_and_read (port, post);
  CU_ASSERT_EQUAL (raw_status (raw), 404);
  CU_ASSERT_PTR_NULL (strstr (raw, "\"id\":\"keep\""));
  free (raw);
  fixture_stop (&f);
}

/* GET /v1/tasks with the token on fd (kept alive); returns the status. */
static int
authed_get (int fd)
{
  const char *get
      = "GET /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN "\r\n\r\n";
  CU_ASSERT (send (fd, get, strlen (get), MSG_NOSIGNAL) == (ssize_t)strlen (get));
  char buf[4096];
  ssize_t n = read (fd, buf, sizeof buf - 1);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  return raw_status (buf);
}

/* At the cap, the oldest connection without a complete request is closed for a new one
 * (not the new one refused), one that showed the token is kept, and each listener has its
 * own count: a full TCP listener does not lock out the unix socket. */
static void
test_cap_evicts_and_listeners_apart (void)
{
  char spec[160];
  snprintf (spec, sizeof spec, "unix:%s/cap.sock", tmpdir);
  const char *const listen[] = { "127.0.0.1:0", spec, NULL };
  fixture f;
  fixture_extra = (ebb_http_server_config){ .max_connections = 4 };
  CU_ASSERT_FATAL (fixture_start (&f, listen, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);
  int authed = idle_connect (port);
  CU_ASSERT_EQUAL (authed_get (authed), 200);
  int idle[3];
  for (size_t i = 0; i < EBB_ARRAY_SIZE (idle); i++)
    idle[i] = idle_connect (port);
  /* TCP is full (and its idle ones too young to evict): the unix socket still answers. */
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  CU_ASSERT_EQUAL (ebb_http_call ("GET", spec, "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  usleep ((EBB_HTTP_EVICT_MIN_AGE_MS + 100) * 1000);
  /* Full with old idle connections: a new client gets in, the oldest idle one goes. */
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  CU_ASSERT (closed_by_server (idle[0]));
  CU_ASSERT_EQUAL (authed_get (authed), 200); /* the tokened one was kept */
  fixture_stop_loop (&f);
  ebb_http_server_stats st;
  ebb_http_server_get_stats (f.server, &st);
  CU_ASSERT (st.evicted >= 1);
  CU_ASSERT_EQUAL (st.rejected_total, 0);
  fixture_free (&f);
  close (authed);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (idle); i++)
    close (idle[i]);
  fixture_extra = (ebb_http_server_config){ 0 };
}

/* Sends text on fd one byte every gap_ms until the server closes it or max_ms pass;
 * returns the time until the close in ms (max_ms: never closed). */
static uint64_t
trickle (int fd, const char *text, unsigned gap_ms, unsigned max_ms)
{
  uint64_t t0 = ebb_now_usec ();
  size_t len = strlen (text);
  for (size_t i = 0; (ebb_now_usec () - t0) / 1000 < max_ms; i = (i + 1) % len)
    {
      if (send (fd, text + i, 1, MSG_NOSIGNAL) != 1)
        break;
      struct pollfd p = { .fd = fd, .events = POLLIN };
      if (poll (&p, 1, (int)gap_ms) > 0)
        {
          char buf[512];
          if (read (fd, buf, sizeof buf) <= 0)
            break;
        }
    }
  uint64_t ms = (ebb_now_usec () - t0) / 1000;
  return ms < max_ms ? ms : max_ms;
}

/* Minimum data rates: headers that trickle a byte every 300 ms (each one restarting MHD's
 * timeout) are cut at the header timeout in all; a body that trickles is cut after its
 * grace, long before the idle timeout. */
static void
test_minimum_rates (void)
{
  fixture f;
  fixture_extra = (ebb_http_server_config){ .header_timeout_sec = 1, .conn_timeout_sec = 30 };
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);
  int fd = idle_connect (port);
  uint64_t ms = trickle (fd, "GET /v1/tasks HTTP/1.1\r\nX-a: bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
                         300, 6000);
  CU_ASSERT (ms >= 900 && ms < 2500);
  close (fd);
  fd = idle_connect (port);
  const char *head
      = "POST /v1/tasks/a/suspend HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN
        "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n";
  CU_ASSERT (send (fd, head, strlen (head), MSG_NOSIGNAL) == (ssize_t)strlen (head));
  ms = trickle (fd, "[1,2,3,4,5,6,7,8,9],", 100, 8000);
  CU_ASSERT (ms >= EBB_HTTP_BODY_GRACE_MS - 100 && ms < EBB_HTTP_BODY_GRACE_MS + 1500);
  close (fd);
  fixture_stop_loop (&f);
  ebb_http_server_stats st;
  ebb_http_server_get_stats (f.server, &st);
  CU_ASSERT_EQUAL (st.too_slow, 2);
  fixture_free (&f);
  fixture_extra = (ebb_http_server_config){ 0 };
}

/* --- TLS and the client's token policy */

/* Makes a throwaway self-signed certificate for 127.0.0.1 in tmpdir; false when openssl
 * is missing (scripts/install-deps.sh installs it). */
static bool
make_cert (char *cert, char *key, size_t n)
{
  snprintf (cert, n, "%s/cert.pem", tmpdir);
  snprintf (key, n, "%s/key.pem", tmpdir);
  if (access (cert, R_OK) == 0 && access (key, R_OK) == 0)
    return true;
  char cmd[1024];
  snprintf (cmd, sizeof cmd,
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
            "-keyout '%s' -out '%s' -days 2 -subj /CN=localhost "
            "-addext subjectAltName=IP:127.0.0.1,DNS:localhost >/dev/null 2>&1",
            key, cert);
  return system (cmd) == 0;
}

/* Whether openssl s_client completes a handshake with 127.0.0.1:port given its options
 * (SECLEVEL=0 so that the client itself offers what the server must refuse). */
static bool
handshake_ok (int port, const char *opts)
{
  char cmd[256];
  snprintf (cmd, sizeof cmd, "openssl s_client -connect 127.0.0.1:%d %s </dev/null >/dev/null 2>&1",
            port, opts);
  return system (cmd) == 0;
}

static void
test_tls_server (void)
{
  char cert[128], key[128];
  if (!make_cert (cert, key, sizeof cert))
    {
      CU_FAIL ("openssl could not make a test certificate (is it installed?)");
      return;
    }
  char spec[160];
  snprintf (spec, sizeof spec, "unix:%s/tls-side.sock", tmpdir);
  const char *const listen[] = { "127.0.0.1:0", spec, NULL };
  fixture f;
  fixture_extra = (ebb_http_server_config){ .tls_cert_file = cert, .tls_key_file = key };
  CU_ASSERT_FATAL (fixture_start (&f, listen, NULL, 0) == 0);
  CU_ASSERT_NSTRING_EQUAL (base (&f, 0), "https://127.0.0.1:", 18);
  CU_ASSERT_STRING_EQUAL (base (&f, 1), spec); /* unix stays plain */
  cleanup_error ebb_error *err = NULL;
  ebb_http_result res = { 0 };
  ebb_http_call_opts o = { .bearer_token = TEST_TOKEN, .ca_file = cert };
  CU_ASSERT_EQUAL (ebb_http_call ("GET", base (&f, 0), "/v1/tasks/t-1", NULL, &o, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  json_object *body = json_tokener_parse ("{\"over\": \"tls\"}");
  CU_ASSERT_EQUAL (
      ebb_http_call ("POST", base (&f, 0), "/v1/tasks/t-1/suspend", body, &o, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 201);
  ebb_http_result_clear (&res);
  json_object_put (body);
  /* TLS 1.2 minimum, AEAD suites only. */
  int tls_port = ebb_http_server_port (f.server, 0);
  CU_ASSERT (handshake_ok (tls_port, "-tls1_2"));
  CU_ASSERT (handshake_ok (tls_port, "-tls1_3"));
  CU_ASSERT (!handshake_ok (tls_port, "-tls1 -cipher DEFAULT@SECLEVEL=0"));
  CU_ASSERT (!handshake_ok (tls_port, "-tls1_1 -cipher DEFAULT@SECLEVEL=0"));
  CU_ASSERT (!handshake_ok (tls_port, "-tls1_2 -cipher ECDHE-ECDSA-AES128-SHA@SECLEVEL=0"));
  /* Without the CA the self-signed server is not trusted. */
  ebb_http_call_opts no_ca = { .bearer_token = TEST_TOKEN };
  CU_ASSERT (ebb_http_call ("GET", base (&f, 0), "/v1/tasks", NULL, &no_ca, &res, &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), EIO);
  ebb_error_free (&err);
  /* Plain http to the TLS port gets no answer. */
  char plain[64];
  snprintf (plain, sizeof plain, "http://127.0.0.1:%d", ebb_http_server_port (f.server, 0));
  ebb_http_call_opts quick
      = { .bearer_token = TEST_TOKEN, .timeout_ms = 2000, .test_plain_loopback = true };
  int r = ebb_http_call ("GET", plain, "/v1/tasks", NULL, &quick, &res, &err);
  CU_ASSERT (r < 0 || res.status >= 400);
  ebb_http_result_clear (&res);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_http_call ("GET", spec, "/v1/tasks", NULL, &auth, &res, &err), 0);
  CU_ASSERT_EQUAL (res.status, 200);
  ebb_http_result_clear (&res);
  fixture_stop (&f);
  fixture_extra = (ebb_http_server_config){ 0 };

  /* Configuration errors. */
  char garbage[128];
  snprintf (garbage, sizeof garbage, "%s/garbage.pem", tmpdir);
  FILE *g = fopen (garbage, "w");
  fputs ("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n", g);
  fclose (g);
  chmod (garbage, 0600); /* a key is refused unreadable to others before it is parsed */
  char open_key[128];
  snprintf (open_key, sizeof open_key, "%s/open-key.pem", tmpdir);
  g = fopen (open_key, "w");
  fputs ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", g);
  fclose (g);
  chmod (open_key, 0644);
  struct
  {
    const char *cert, *key;
    int code;
  } bad[] = {
    { cert, open_key, EACCES }, { cert, NULL, EINVAL },
    { NULL, key, EINVAL },      { "/nonexistent/cert.pem", key, ENOENT },
    { garbage, garbage, EIO },
  };
  sd_event *e = NULL;
  sd_event_new (&e);
  const char *const tcp[] = { "127.0.0.1:0", NULL };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_http_server_config cfg = { .listen = tcp,
                                     .routes = routes,
                                     .n_routes = 1,
                                     .bearer_token = "t",
                                     .tls_cert_file = bad[i].cert,
                                     .tls_key_file = bad[i].key };
      CU_ASSERT_PTR_NULL (ebb_http_server_new (e, &cfg, &err));
      CU_ASSERT_EQUAL (ebb_error_code (&err), bad[i].code);
      if (ebb_error_code (&err) != bad[i].code)
        fprintf (stderr, "tls case %zu: %s\n", i, ebb_error_msg (&err));
      ebb_error_free (&err);
    }
  sd_event_unref (e);
}

static void
never_called (ebb_http_result *res, const ebb_error *err, void *ud)
{
  (void)res, (void)err, (void)ud;
  CU_FAIL ("a refused call has no completion");
}

/* No token to an unverified peer: never over plain http, loopback included (any local user
 * can bind 127.0.0.1:PORT once the daemon stops). These fail before any connection. The
 * tests' own opt-in reaches numeric loopback only. */
static void
test_client_token_policy (void)
{
  const char *bases[] = { "http://127.0.0.1:7470",      "http://[::1]:7470",
                          "http://192.0.2.1:7470",      "http://localhost:7470",
                          "http://127.0.0.1.nip.io:80", "http://127.0.0.1:80@192.0.2.1/",
                          "http://[2001:db8::1]:7470",  "http://[::ffff:192.0.2.1]:1",
                          "http://node-1.example:7470/" };
  ebb_http_call_opts o = { .bearer_token = "secret", .timeout_ms = 200 };
  ebb_http_call_opts t
      = { .bearer_token = "secret", .timeout_ms = 200, .test_plain_loopback = true };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bases); i++)
    {
      cleanup_error ebb_error *err = NULL;
      ebb_http_result res = { 0 };
      CU_ASSERT_EQUAL (ebb_http_call ("GET", bases[i], "/v1/node", NULL, &o, &res, &err),
                       -EBB_EREFUSED);
      CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "refusing to send the bearer token"));
      ebb_error_free (&err);
      if (i >= 2) /* the opt-in does not reach past loopback */
        CU_ASSERT_EQUAL (ebb_http_call ("GET", bases[i], "/v1/node", NULL, &t, &res, &err),
                         -EBB_EREFUSED);
    }
  sd_event *e = NULL;
  sd_event_new (&e);
  cleanup_error ebb_error *err = NULL;
  ebb_http_client *c = ebb_http_client_new (e, &err);
  CU_ASSERT_FATAL (c != NULL);
  CU_ASSERT (ebb_http_client_start (c, "GET", "http://127.0.0.1:7470", "/x", NULL, &o, never_called,
                                    NULL, &err)
             < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_EREFUSED);
  ebb_http_client_free (c);
  sd_event_unref (e);
}

/* Headers in: the header timeout no longer applies (a slow body is cut by its own minimum
 * rate); the request answered and the connection kept alive: back to the header timeout. */
static void
test_timeouts_follow_the_request (void)
{
  fixture f;
  fixture_extra = (ebb_http_server_config){ .header_timeout_sec = 1, .conn_timeout_sec = 3 };
  CU_ASSERT_FATAL (fixture_start (&f, tcp_only, NULL, 0) == 0);
  int port = ebb_http_server_port (f.server, 0);

  int fd = idle_connect (port);
  const char *head
      = "POST /v1/tasks/a/suspend HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN
        "\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{\"a\":";
  CU_ASSERT (send (fd, head, strlen (head), MSG_NOSIGNAL) == (ssize_t)strlen (head));
  uint64_t t0 = ebb_now_usec ();
  struct timeval tv = { .tv_sec = 1, .tv_usec = 800 * 1000 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c;
  CU_ASSERT (read (fd, &c, 1) < 0 && errno == EAGAIN); /* still open past 1 s */
  tv = (struct timeval){ .tv_sec = 5 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  CU_ASSERT (closed_by_server (fd));
  uint64_t took = ebb_now_usec () - t0;
  /* Closed at the minimum body rate (5 bytes in the 2 s grace), before the idle timeout. */
  CU_ASSERT (took >= 1800 * 1000 && took < 3500 * 1000);
  close (fd);

  fd = idle_connect (port);
  const char *get
      = "GET /v1/tasks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TEST_TOKEN "\r\n\r\n";
  CU_ASSERT (send (fd, get, strlen (get), MSG_NOSIGNAL) == (ssize_t)strlen (get));
  char buf[4096];
  ssize_t n = read (fd, buf, sizeof buf - 1);
  CU_ASSERT_FATAL (n > 0);
  buf[n] = '\0';
  CU_ASSERT_EQUAL (raw_status (buf), 200);
  t0 = ebb_now_usec ();
  /* Drain what is left of the response, then the server must close within ~1 s. */
  bool closed = false;
  while ((n = read (fd, buf, sizeof buf)) > 0)
    ;
  closed = n == 0 || (n < 0 && errno == ECONNRESET);
  CU_ASSERT (closed);
  took = ebb_now_usec () - t0;
  CU_ASSERT (took < 2500 * 1000);
  close (fd);
  fixture_stop (&f);
  fixture_extra = (ebb_http_server_config){ 0 };
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_tcp_needs_token),
  EBB_CU_TEST (test_query_check),
  EBB_CU_TEST (test_query_u64),
  EBB_CU_TEST (test_gate),
  EBB_CU_TEST (test_stream),
  EBB_CU_TEST (test_loopback_is_numeric),
  EBB_CU_TEST (test_unix_group),
  EBB_CU_TEST (test_per_ip_eviction_and_stats),
  EBB_CU_TEST (test_total_limit_and_header_timeout),
  EBB_CU_TEST (test_timeouts_follow_the_request),
  EBB_CU_TEST (test_cl_with_te_closes),
  EBB_CU_TEST (test_cap_evicts_and_listeners_apart),
  EBB_CU_TEST (test_minimum_rates),
  EBB_CU_TEST (test_no_body_on_get),
  EBB_CU_TEST (test_tls_server),
  EBB_CU_TEST (test_client_token_policy),
  EBB_CU_TEST (test_json_round_trip),
  EBB_CU_TEST (test_errors_404_405_413),
  EBB_CU_TEST (test_413_chunked),
  EBB_CU_TEST (test_bad_json_400),
  EBB_CU_TEST (test_body_json_strict),
  EBB_CU_TEST (test_hostile_paths_end_to_end),
  EBB_CU_TEST (test_bearer_auth),
  EBB_CU_TEST (test_unix_socket),
  EBB_CU_TEST (test_listen_spec_errors),
  EBB_CU_TEST (test_ipv6_loopback),
  EBB_CU_TEST (test_deferred_from_thread),
  EBB_CU_TEST (test_deferred_outlives_server),
  EBB_CU_TEST (test_client_errors),
  EBB_CU_TEST (test_client_response_cap),
  EBB_CU_TEST (test_async_50_concurrent),
  EBB_CU_TEST (test_async_50_capped),
  EBB_CU_TEST (test_async_timeout_and_cancel),
};
EBB_CU_MAIN ("http-server", suite_init, suite_clean, tests)
