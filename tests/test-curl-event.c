/* lib/curl-event: a transfer driven by sd-event completes through the owner's callback, the
 * curl timeout goes through the timer source, and io sources are released when a transfer
 * ends or is removed. The server is a raw loopback socket on the same loop. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/curl-event.h"
#include "lib/time.h"
#include "lib/util.h"
#include "tests/cu.h"

typedef struct
{
  sd_event *event;
  ebb_curl_event *ce;
  int listen_fd, conn_fd;
  bool reply;       /* answer the request, or keep the connection silent */
  bool exit_accept; /* leave the loop as soon as a connection is accepted */
  size_t watched_at_accept;
  int n_accept;
  int older_fds[4];
  int n_done;
  CURLcode code;
  char body[64];
  size_t body_len;
  char url[64];
} fixture;

static int
on_conn (sd_event_source *src, int fd, uint32_t revents EBB_UNUSED, void *userdata EBB_UNUSED)
{
  char buf[4096];
  if (read (fd, buf, sizeof buf) <= 0)
    return 0;
  static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
  CU_ASSERT_EQUAL (write (fd, resp, sizeof resp - 1), (ssize_t)(sizeof resp - 1));
  sd_event_source_disable_unref (src);
  return 0;
}

static int
on_accept (sd_event_source *src EBB_UNUSED, int fd, uint32_t revents EBB_UNUSED, void *userdata)
{
  fixture *f = userdata;
  int c = accept (fd, NULL, NULL);
  if (c < 0)
    return 0;
  if (f->conn_fd >= 0 && f->n_accept <= (int)EBB_ARRAY_SIZE (f->older_fds))
    f->older_fds[f->n_accept - 1] = f->conn_fd; /* kept open: the transfer waits */
  f->conn_fd = c;
  f->n_accept++;
  f->watched_at_accept = ebb_curl_event_n_watched (f->ce);
  if (f->reply)
    CU_ASSERT (sd_event_add_io (f->event, NULL, c, EPOLLIN, on_conn, f) >= 0);
  if (f->exit_accept)
    sd_event_exit (f->event, 0);
  return 0;
}

static int
on_deadline (sd_event_source *src EBB_UNUSED, uint64_t usec EBB_UNUSED, void *userdata)
{
  fixture *f = userdata;
  sd_event_exit (f->event, ETIMEDOUT);
  return 0;
}

static void
on_done (CURL *easy EBB_UNUSED, CURLcode code, void *userdata)
{
  fixture *f = userdata;
  f->n_done++;
  f->code = code;
  sd_event_exit (f->event, 0);
}

static size_t
on_write (char *buf, size_t size, size_t n, void *userdata)
{
  fixture *f = userdata;
  size_t len = size * n;
  if (f->body_len + len >= sizeof f->body)
    return 0;
  memcpy (f->body + f->body_len, buf, len);
  f->body_len += len;
  return len;
}

static void
fixture_init (fixture *f)
{
  memset (f, 0, sizeof *f);
  f->conn_fd = -1;
  CU_ASSERT_FATAL (sd_event_new (&f->event) >= 0);
  f->listen_fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof sa;
  CU_ASSERT_FATAL (bind (f->listen_fd, (struct sockaddr *)&sa, sizeof sa) == 0);
  CU_ASSERT_FATAL (listen (f->listen_fd, 4) == 0);
  CU_ASSERT_FATAL (getsockname (f->listen_fd, (struct sockaddr *)&sa, &len) == 0);
  snprintf (f->url, sizeof f->url, "http://127.0.0.1:%u/x", ntohs (sa.sin_port));
  CU_ASSERT_FATAL (sd_event_add_io (f->event, NULL, f->listen_fd, EPOLLIN, on_accept, f) >= 0);
  uint64_t now = 0;
  sd_event_now (f->event, CLOCK_MONOTONIC, &now);
  CU_ASSERT_FATAL (sd_event_add_time (f->event, NULL, CLOCK_MONOTONIC, now + 10 * 1000000ULL, 1000,
                                      on_deadline, f)
                   >= 0);
  cleanup_error ebb_error *err = NULL;
  f->ce = ebb_curl_event_new (f->event, "test", on_done, f, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f->ce);
}

static CURL *
fixture_easy (fixture *f, long timeout_ms)
{
  CURL *e = curl_easy_init ();
  CU_ASSERT_PTR_NOT_NULL_FATAL (e);
  curl_easy_setopt (e, CURLOPT_URL, f->url);
  curl_easy_setopt (e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt (e, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt (e, CURLOPT_WRITEDATA, f);
  if (timeout_ms)
    curl_easy_setopt (e, CURLOPT_TIMEOUT_MS, timeout_ms);
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_FATAL (ebb_curl_event_add (f->ce, e, &err) == 0);
  return e;
}

static void
fixture_clear (fixture *f)
{
  ebb_curl_event_free (f->ce);
  if (f->conn_fd >= 0)
    close (f->conn_fd);
  for (int i = 0; i < f->n_accept - 1 && i < (int)EBB_ARRAY_SIZE (f->older_fds); i++)
    close (f->older_fds[i]);
  close (f->listen_fd);
  sd_event_unref (f->event);
}

static void
test_transfer_completes (void)
{
  fixture f;
  fixture_init (&f);
  f.reply = true;
  CURL *e = fixture_easy (&f, 0);
  CU_ASSERT_EQUAL (sd_event_loop (f.event), 0);
  CU_ASSERT_EQUAL (f.n_done, 1);
  CU_ASSERT_EQUAL (f.code, CURLE_OK);
  long status = 0;
  curl_easy_getinfo (e, CURLINFO_RESPONSE_CODE, &status);
  CU_ASSERT_EQUAL (status, 200);
  CU_ASSERT_EQUAL (f.body_len, 2);
  CU_ASSERT_NSTRING_EQUAL (f.body, "ok", 2);
  CU_ASSERT (f.watched_at_accept >= 1); /* the client socket was watched through sd-event */
  CU_ASSERT_EQUAL (ebb_curl_event_n_watched (f.ce), 0);
  ebb_curl_event_remove (f.ce, e); /* already out of the multi: a no-op */
  curl_easy_cleanup (e);
  fixture_clear (&f);
}

/* The server never answers: only curl's timeout, armed through the timer source, ends it. */
static void
test_timeout_through_timer (void)
{
  fixture f;
  fixture_init (&f);
  uint64_t t0 = ebb_now_usec ();
  CURL *e = fixture_easy (&f, 300);
  CU_ASSERT_EQUAL (sd_event_loop (f.event), 0);
  uint64_t elapsed_usec = ebb_now_usec () - t0;
  CU_ASSERT_EQUAL (f.n_done, 1);
  CU_ASSERT_EQUAL (f.code, CURLE_OPERATION_TIMEDOUT);
  CU_ASSERT (elapsed_usec >= 250 * 1000);
  CU_ASSERT (elapsed_usec < 5 * 1000 * 1000);
  CU_ASSERT_EQUAL (ebb_curl_event_n_watched (f.ce), 0);
  curl_easy_cleanup (e);
  fixture_clear (&f);
}

/* Removing an unfinished transfer releases its io source and calls no callback. */
static void
test_remove_releases (void)
{
  fixture f;
  fixture_init (&f);
  f.exit_accept = true;
  CURL *e = fixture_easy (&f, 0);
  CU_ASSERT_EQUAL (sd_event_loop (f.event), 0);
  CU_ASSERT (f.conn_fd >= 0);
  CU_ASSERT (ebb_curl_event_n_watched (f.ce) >= 1);
  ebb_curl_event_remove (f.ce, e);
  CU_ASSERT_EQUAL (ebb_curl_event_n_watched (f.ce), 0);
  CU_ASSERT_EQUAL (f.n_done, 0);
  curl_easy_cleanup (e);
  fixture_clear (&f);
}

static int
on_quiet (sd_event_source *src EBB_UNUSED, uint64_t usec EBB_UNUSED, void *userdata)
{
  fixture *f = userdata;
  sd_event_exit (f->event, 0);
  return 0;
}

/* Two transfers to a server that never answers: two connections, or one under a cap of one
 * per host (the second waits inside curl). */
static int
accepts_with_limit (long per_host)
{
  fixture f;
  fixture_init (&f);
  if (per_host)
    ebb_curl_event_limit (f.ce, per_host, 0);
  CURL *e1 = fixture_easy (&f, 0), *e2 = fixture_easy (&f, 0);
  CU_ASSERT (
      sd_event_add_time_relative (f.event, NULL, CLOCK_MONOTONIC, 300 * 1000, 1000, on_quiet, &f)
      >= 0);
  CU_ASSERT_EQUAL (sd_event_loop (f.event), 0);
  int n = f.n_accept;
  CU_ASSERT_EQUAL (f.n_done, 0);
  ebb_curl_event_remove (f.ce, e1);
  ebb_curl_event_remove (f.ce, e2);
  curl_easy_cleanup (e1);
  curl_easy_cleanup (e2);
  fixture_clear (&f);
  return n;
}

static void
test_limit_connections (void)
{
  CU_ASSERT_EQUAL (accepts_with_limit (0), 2);
  CU_ASSERT_EQUAL (accepts_with_limit (1), 1);
}

static void
test_bad_args (void)
{
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_PTR_NULL (ebb_curl_event_new (NULL, "x", on_done, NULL, &err));
  CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
  CU_ASSERT_EQUAL (ebb_curl_event_n_watched (NULL), 0);
  ebb_curl_event_free (NULL);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_transfer_completes), EBB_CU_TEST (test_timeout_through_timer),
  EBB_CU_TEST (test_remove_releases),    EBB_CU_TEST (test_limit_connections),
  EBB_CU_TEST (test_bad_args),
};

EBB_CU_MAIN ("curl-event", NULL, NULL, tests)
