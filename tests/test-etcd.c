/* lib/etcd: the gateway's encodings (base64 both ways, int64 as strings, a prefix's range
 * end), the client's refusal of bad configurations, a call to an endpoint where nobody
 * listens (ECONNREFUSED from the loop, and the next call goes to the next endpoint), and
 * against a scripted fake gateway on loopback: a 503 moves the client on, a refused token
 * is renewed once and the call retried with the new one, and a watch stream whose objects
 * arrive split across writes is delivered one message at a time. The calls to a real etcd
 * are in tests/ha/test-election.sh and tests/ha/test-etcd-tls.sh. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lib/etcd-election.h"
#include "lib/etcd.h"
#include "lib/time.h"
#include "lib/util.h"
#include "tests/cu.h"

static void
test_b64 (void)
{
  const char *plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar", "/ebb/election/1a" };
  const char *enc[] = { "",         "Zg==",     "Zm8=",     "Zm9v",
                        "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy", "L2ViYi9lbGVjdGlvbi8xYQ==" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (plain); i++)
    {
      char *e = ebb_etcd_b64 (plain[i], strlen (plain[i]));
      CU_ASSERT_STRING_EQUAL (e, enc[i]);
      size_t n = 99;
      char *d = ebb_etcd_unb64 (e, &n);
      CU_ASSERT_PTR_NOT_NULL_FATAL (d);
      CU_ASSERT_STRING_EQUAL (d, plain[i]);
      CU_ASSERT_EQUAL (n, strlen (plain[i]));
      free (d);
      free (e);
    }
  unsigned char bin[] = { 0, 0xff, 0x80, 1 };
  char *e = ebb_etcd_b64 (bin, sizeof bin);
  size_t n = 0;
  char *d = ebb_etcd_unb64 (e, &n);
  CU_ASSERT (n == sizeof bin && memcmp (d, bin, n) == 0);
  free (d);
  free (e);
  const char *bad[] = { "Zg=", "Z===", "Zm9v!A==", "=Zm9", "Zg==Zg==", "Zm 9" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    CU_ASSERT_PTR_NULL (ebb_etcd_unb64 (bad[i], NULL));
  CU_ASSERT_PTR_NULL (ebb_etcd_unb64 (NULL, NULL));
}

static void
test_int64 (void)
{
  json_object *o = json_tokener_parse (
      "{\"a\":\"7587869893394464005\",\"b\":12,\"c\":\"x1\",\"d\":true,\"e\":\"\",\"f\":\"-3\"}");
  int64_t v = 1;
  CU_ASSERT (ebb_etcd_get_int64 (o, "a", &v, NULL) == 1 && v == 7587869893394464005LL);
  CU_ASSERT (ebb_etcd_get_int64 (o, "b", &v, NULL) == 1 && v == 12);
  CU_ASSERT (ebb_etcd_get_int64 (o, "f", &v, NULL) == 1 && v == -3);
  CU_ASSERT (ebb_etcd_get_int64 (o, "zz", &v, NULL) == 0 && v == 0);
  const char *bad[] = { "c", "d", "e" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_error *err = NULL;
      CU_ASSERT (ebb_etcd_get_int64 (o, bad[i], &v, &err) == -EBB_EPARSE);
      ebb_error_free (&err);
    }
  json_object_put (o);
}

static void
test_prefix_end (void)
{
  char *e = ebb_etcd_prefix_end ("/ebb/election/");
  CU_ASSERT_STRING_EQUAL (e, "/ebb/election0");
  free (e);
  e = ebb_etcd_prefix_end ("a\xff\xff");
  CU_ASSERT_STRING_EQUAL (e, "b");
  free (e);
}

static void
test_config (void)
{
  sd_event *ev = NULL;
  CU_ASSERT_FATAL (sd_event_new (&ev) >= 0);
  ebb_etcd_config bad[] = {
    { .endpoints = NULL },
    { .endpoints = "" },
    { .endpoints = "127.0.0.1:2379" },
    { .endpoints = "http://127.0.0.1:2379,unix:/x" },
    { .endpoints = "http://127.0.0.1:2379", .user = "root" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_error *err = NULL;
      CU_ASSERT_PTR_NULL (ebb_etcd_new (ev, &bad[i], &err));
      CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
      ebb_error_free (&err);
    }
  ebb_etcd_config good = { .endpoints = "http://127.0.0.1:2379/,https://[::1]:2379" };
  ebb_etcd *c = ebb_etcd_new (ev, &good, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  CU_ASSERT_STRING_EQUAL (ebb_etcd_endpoint (c), "http://127.0.0.1:2379");
  /* The renew deadline must fall between the keepalive interval and the TTL. */
  ebb_election_config ec[] = {
    { .prefix = "/ebb/", .value = "u", .ttl_sec = 3, .renew_deadline_usec = 3000000 },
    { .prefix = "/ebb/", .value = "u", .keepalive_usec = 3000000 },
    { .prefix = "", .value = "u" },
    { .prefix = "/ebb/", .value = NULL },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (ec); i++)
    {
      ebb_error *err = NULL;
      CU_ASSERT_PTR_NULL (ebb_election_new (c, ev, &ec[i], (ebb_election_fn)abort, NULL, &err));
      CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
      ebb_error_free (&err);
    }
  ebb_etcd_free (c);
  sd_event_unref (ev);
}

/* A loopback port where nobody listens (bound, then closed). */
static int
closed_port (void)
{
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  CU_ASSERT_FATAL (bind (fd, (struct sockaddr *)&a, len) == 0);
  CU_ASSERT_FATAL (getsockname (fd, (struct sockaddr *)&a, &len) == 0);
  close (fd);
  return ntohs (a.sin_port);
}

typedef struct
{
  sd_event *ev;
  int n, code;
  bool had_res;
} refused_state;

static void
on_refused (json_object *res, const ebb_error *err, void *ud)
{
  refused_state *s = ud;
  s->n++;
  s->had_res = res != NULL;
  s->code = err ? err->code : 0;
  sd_event_exit (s->ev, 0);
}

static void
test_refused_rotates (void)
{
  refused_state s = { 0 };
  CU_ASSERT_FATAL (sd_event_new (&s.ev) >= 0);
  int p1 = closed_port (), p2 = closed_port ();
  char eps[96];
  snprintf (eps, sizeof eps, "http://127.0.0.1:%d,http://127.0.0.1:%d", p1, p2);
  ebb_etcd_config cfg = { .endpoints = eps, .timeout_ms = 1000 };
  ebb_etcd *c = ebb_etcd_new (s.ev, &cfg, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  json_object *b = json_object_new_object ();
  CU_ASSERT (ebb_etcd_call (c, "/v3/kv/range", b, on_refused, &s, NULL) == 0);
  CU_ASSERT_EQUAL (s.n, 0); /* never from inside the call */
  sd_event_loop (s.ev);
  CU_ASSERT_EQUAL (s.n, 1);
  CU_ASSERT_EQUAL (s.code, ECONNREFUSED);
  CU_ASSERT (!s.had_res);
  char want[48];
  snprintf (want, sizeof want, "http://127.0.0.1:%d", p2);
  CU_ASSERT_STRING_EQUAL (ebb_etcd_endpoint (c), want);
  /* A call still in flight when the client is freed ends with ECANCELED. */
  CU_ASSERT (ebb_etcd_call (c, "/v3/kv/range", b, on_refused, &s, NULL) == 0);
  ebb_etcd_free (c);
  CU_ASSERT_EQUAL (s.n, 2);
  CU_ASSERT_EQUAL (s.code, ECANCELED);
  json_object_put (b);
  sd_event_unref (s.ev);
}

/* --- A scripted fake gateway: one request per connection, answered by a callback. */

typedef struct fake fake;
typedef const char *(*fake_reply_fn) (fake *f, const char *path, const char *auth, int *status);

struct fake
{
  sd_event *ev;
  int lfd;
  char url[64];
  fake_reply_fn reply;
  int n_req, n_auth;
  char log[512];             /* "path auth;" per request */
  const char *const *stream; /* a watch answer: written piece by piece, 20 ms apart */
  uint64_t range_delay_usec; /* /v3/kv/range answered this late (a check still in flight
                              * when the watch's events come) */
  struct fake_conn *conns;   /* the open ones, closed by fake_stop (a client's last
                              * connection may still be open when a test ends) */
};

typedef struct fake_conn
{
  fake *f;
  int fd;
  char buf[8192];
  char *late; /* an answer written when its timer fires */
  size_t len;
  size_t piece;
  sd_event_source *src;
  struct fake_conn *next, **prev;
} fake_conn;

static void
conn_close (fake_conn *c)
{
  if ((*c->prev = c->next))
    c->next->prev = c->prev;
  sd_event_source_disable_unref (c->src);
  close (c->fd);
  free (c->late);
  free (c);
}

static int
on_late (sd_event_source *s, uint64_t usec, void *ud)
{
  fake_conn *c = ud;
  (void)s;
  (void)usec;
  CU_ASSERT (write (c->fd, c->late, strlen (c->late)) == (ssize_t)strlen (c->late));
  conn_close (c);
  return 0;
}

static int
on_piece (sd_event_source *s, uint64_t usec, void *ud)
{
  fake_conn *c = ud;
  const char *p = c->f->stream[c->piece++];
  if (!p)
    {
      sd_event_source_disable_unref (s);
      conn_close (c);
      return 0;
    }
  CU_ASSERT (write (c->fd, p, strlen (p)) == (ssize_t)strlen (p));
  sd_event_source_set_time (s, usec + 20000);
  sd_event_source_set_enabled (s, SD_EVENT_ONESHOT);
  return 0;
}

/* The request is complete: answer it (or start the stream). */
static void
fake_answer (fake_conn *c, const char *hdr_end)
{
  fake *f = c->f;
  char path[64] = "", auth[64] = "-";
  sscanf (c->buf, "POST %63s", path);
  const char *a = strcasestr (c->buf, "\r\nAuthorization: ");
  if (a && a < hdr_end)
    sscanf (a + 17, "%63[^\r]", auth);
  f->n_req++;
  f->n_auth += strcmp (path, "/v3/auth/authenticate") == 0;
  size_t n = strlen (f->log);
  snprintf (f->log + n, sizeof f->log - n, "%s %s;", path, auth);
  if (strcmp (path, "/v3/watch") == 0 && f->stream)
    {
      const char h[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: "
                       "close\r\n\r\n";
      CU_ASSERT (write (c->fd, h, sizeof h - 1) == (ssize_t)(sizeof h - 1));
      sd_event_source_disable_unref (c->src);
      c->src = NULL;
      uint64_t now = 0;
      sd_event_now (f->ev, CLOCK_MONOTONIC, &now);
      CU_ASSERT (sd_event_add_time (f->ev, NULL, CLOCK_MONOTONIC, now, 1000, on_piece, c) >= 0);
      return;
    }
  int status = 200;
  const char *body = f->reply (f, path, auth, &status);
  char out[1024];
  int len = snprintf (out, sizeof out,
                      "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: "
                      "%zu\r\nConnection: close\r\n\r\n%s",
                      status, strlen (body), body);
  if (strcmp (path, "/v3/kv/range") == 0 && f->range_delay_usec)
    {
      uint64_t now = 0;
      sd_event_now (f->ev, CLOCK_MONOTONIC, &now);
      c->late = ebb_xstrdup (out);
      sd_event_source_disable_unref (c->src);
      CU_ASSERT (sd_event_add_time (f->ev, &c->src, CLOCK_MONOTONIC, now + f->range_delay_usec,
                                    1000, on_late, c)
                 >= 0);
      return;
    }
  CU_ASSERT (write (c->fd, out, (size_t)len) == len);
  conn_close (c);
}

static int
on_fake_read (sd_event_source *s, int fd, uint32_t revents, void *ud)
{
  fake_conn *c = ud;
  (void)s;
  (void)revents;
  ssize_t n = read (fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
  if (n <= 0)
    {
      conn_close (c);
      return 0;
    }
  c->len += (size_t)n;
  c->buf[c->len] = '\0';
  const char *end = strstr (c->buf, "\r\n\r\n");
  const char *cl = strcasestr (c->buf, "\r\nContent-Length: ");
  size_t want = cl && end && cl < end ? strtoul (cl + 18, NULL, 10) : 0;
  if (end && c->len >= (size_t)(end + 4 - c->buf) + want)
    fake_answer (c, end);
  return 0;
}

static int
on_fake_accept (sd_event_source *s, int fd, uint32_t revents, void *ud)
{
  fake *f = ud;
  (void)s;
  (void)revents;
  int cfd = accept4 (fd, NULL, NULL, SOCK_CLOEXEC);
  if (cfd < 0)
    return 0;
  fake_conn *c = ebb_xcalloc (1, sizeof *c);
  c->f = f;
  c->fd = cfd;
  if ((c->next = f->conns))
    f->conns->prev = &c->next;
  c->prev = &f->conns;
  f->conns = c;
  CU_ASSERT (sd_event_add_io (f->ev, &c->src, cfd, EPOLLIN, on_fake_read, c) >= 0);
  return 0;
}

static void
fake_start (fake *f, sd_event *ev, fake_reply_fn reply)
{
  memset (f, 0, sizeof *f);
  f->ev = ev;
  f->reply = reply;
  f->lfd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  socklen_t len = sizeof a;
  CU_ASSERT_FATAL (bind (f->lfd, (struct sockaddr *)&a, len) == 0 && listen (f->lfd, 8) == 0);
  CU_ASSERT_FATAL (getsockname (f->lfd, (struct sockaddr *)&a, &len) == 0);
  snprintf (f->url, sizeof f->url, "http://127.0.0.1:%d", ntohs (a.sin_port));
  CU_ASSERT_FATAL (sd_event_add_io (ev, NULL, f->lfd, EPOLLIN, on_fake_accept, f) >= 0);
}

/* Closes the listener and every connection still open. */
static void
fake_stop (fake *f)
{
  close (f->lfd);
  while (f->conns)
    conn_close (f->conns);
}

static sd_event *
loop_new (void)
{
  sd_event *ev = NULL;
  CU_ASSERT_FATAL (sd_event_new (&ev) >= 0);
  return ev;
}

/* A fake gateway on a new loop (*ev) and a client of it; stream: its watch answer. */
static ebb_etcd *
fake_client (sd_event **ev, fake *f, fake_reply_fn reply, const char *const *stream)
{
  *ev = loop_new ();
  fake_start (f, *ev, reply);
  f->stream = stream;
  ebb_etcd_config cfg = { .endpoints = f->url };
  ebb_etcd *c = ebb_etcd_new (*ev, &cfg, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  return c;
}

/* Runs the loop until *n reaches want (sd_event_exit would end the loop for good: the
 * second call of a test needs it again), at most 5 s. */
static void
run_until (sd_event *ev, const int *n, int want)
{
  uint64_t end = ebb_now_usec () + 5000000;
  while (*n < want && ebb_now_usec () < end)
    sd_event_run (ev, 100000);
  CU_ASSERT_EQUAL (*n, want);
}

typedef struct
{
  sd_event *ev;
  int n, code;
  char answer[256];
} call_state;

static void
on_call (json_object *res, const ebb_error *err, void *ud)
{
  call_state *s = ud;
  s->n++;
  s->code = err ? err->code : 0;
  snprintf (s->answer, sizeof s->answer, "%s",
            res ? json_object_to_json_string_ext (res, JSON_C_TO_STRING_PLAIN) : "-");
}

/* The first token handed out ("t1") is refused by range; the second ("t2") is accepted. */
static const char *
reply_auth (fake *f, const char *path, const char *auth, int *status)
{
  if (strcmp (path, "/v3/auth/authenticate") == 0)
    return f->n_auth == 1 ? "{\"token\":\"t1\"}" : "{\"token\":\"t2\"}";
  if (strcmp (auth, "t2") == 0)
    return "{\"count\":\"1\"}";
  *status = 401;
  return "{\"error\":\"etcdserver: invalid auth token\",\"code\":16}";
}

static void
test_token_renewed (void)
{
  sd_event *ev = loop_new ();
  fake f;
  fake_start (&f, ev, reply_auth);
  ebb_etcd_config cfg = { .endpoints = f.url, .user = "root", .password = "pw" };
  ebb_etcd *c = ebb_etcd_new (ev, &cfg, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  call_state s = { .ev = ev };
  CU_ASSERT (ebb_etcd_call (c, "/v3/kv/range", NULL, on_call, &s, NULL) == 0);
  run_until (ev, &s.n, 1);
  CU_ASSERT_EQUAL (s.n, 1);
  CU_ASSERT_EQUAL (s.code, 0);
  CU_ASSERT_STRING_EQUAL (s.answer, "{\"count\":\"1\"}");
  CU_ASSERT_STRING_EQUAL (f.log, "/v3/auth/authenticate -;/v3/kv/range t1;"
                                 "/v3/auth/authenticate -;/v3/kv/range t2;");
  ebb_etcd_free (c);
  fake_stop (&f);
  sd_event_unref (ev);
}

static const char *
reply_unavailable (fake *f, const char *path, const char *auth, int *status)
{
  (void)f;
  (void)path;
  (void)auth;
  *status = 503;
  return "{\"error\":\"etcdserver: no leader\",\"code\":14}";
}

static const char *
reply_ok (fake *f, const char *path, const char *auth, int *status)
{
  (void)f;
  (void)path;
  (void)auth;
  (void)status;
  return "{\"ok\":true}";
}

static void
test_unavailable_rotates (void)
{
  sd_event *ev = loop_new ();
  fake f1, f2;
  fake_start (&f1, ev, reply_unavailable);
  fake_start (&f2, ev, reply_ok);
  char eps[160];
  snprintf (eps, sizeof eps, "%s,%s", f1.url, f2.url);
  ebb_etcd_config cfg = { .endpoints = eps };
  ebb_etcd *c = ebb_etcd_new (ev, &cfg, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (c);
  call_state s = { .ev = ev };
  CU_ASSERT (ebb_etcd_call (c, "/v3/lease/keepalive", NULL, on_call, &s, NULL) == 0);
  run_until (ev, &s.n, 1);
  CU_ASSERT (s.n == 1 && s.code == EIO);
  CU_ASSERT_STRING_EQUAL (ebb_etcd_endpoint (c), f2.url);
  CU_ASSERT (ebb_etcd_call (c, "/v3/lease/keepalive", NULL, on_call, &s, NULL) == 0);
  run_until (ev, &s.n, 2);
  CU_ASSERT (s.n == 2 && s.code == 0);
  CU_ASSERT_STRING_EQUAL (s.answer, "{\"ok\":true}");
  CU_ASSERT (f1.n_req == 1 && f2.n_req == 1);
  ebb_etcd_free (c);
  fake_stop (&f1);
  fake_stop (&f2);
  sd_event_unref (ev);
}

typedef struct
{
  sd_event *ev;
  char msgs[512];
  int n, ended, end_code;
} watch_state;

static void
on_msg (json_object *m, void *ud)
{
  watch_state *s = ud;
  size_t n = strlen (s->msgs);
  snprintf (s->msgs + n, sizeof s->msgs - n, "%s|",
            json_object_to_json_string_ext (m, JSON_C_TO_STRING_PLAIN));
  s->n++;
}

static void
on_end (const ebb_error *err, void *ud)
{
  watch_state *s = ud;
  s->ended++;
  s->end_code = err ? err->code : 0;
}

static void
test_watch_stream (void)
{
  static const char *const pieces[] = { "{\"result\":{\"created\":true}}\n{\"res",
                                        "ult\":{\"events\":[{\"kv\":{\"key\":\"YQ==\"}}]}}\n{",
                                        "\"result\":{\"canceled\":true}}", "\n", NULL };
  sd_event *ev;
  fake f;
  ebb_etcd *c = fake_client (&ev, &f, reply_ok, pieces);
  watch_state s = { .ev = ev };
  json_object *cr = json_tokener_parse ("{\"key\":\"YQ==\"}");
  ebb_etcd_watch *w = ebb_etcd_watch_start (c, cr, on_msg, on_end, &s, NULL);
  json_object_put (cr);
  CU_ASSERT_PTR_NOT_NULL_FATAL (w);
  run_until (ev, &s.ended, 1);
  CU_ASSERT_EQUAL (s.n, 3);
  CU_ASSERT_STRING_EQUAL (s.msgs, "{\"result\":{\"created\":true}}|"
                                  "{\"result\":{\"events\":[{\"kv\":{\"key\":\"YQ==\"}}]}}|"
                                  "{\"result\":{\"canceled\":true}}|");
  CU_ASSERT (s.ended == 1 && s.end_code == 0);
  CU_ASSERT (strstr (f.log, "/v3/watch -;") != NULL);
  ebb_etcd_free (c);
  fake_stop (&f);
  sd_event_unref (ev);
}

/* --- The election against the fake: leads at its key's create_revision, then loses when its
 * keepalives stop being answered (the renew deadline) or the lease is reported gone. */

static int keepalives_ok;   /* keepalives answered with a TTL before the failures start */
static bool lease_vanishes; /* after those: an answer without a TTL instead of a 503 */
static int n_keepalives;

static const char *
reply_election (fake *f, const char *path, const char *auth, int *status)
{
  static char range[256];
  (void)f;
  (void)auth;
  if (strcmp (path, "/v3/lease/grant") == 0)
    return "{\"ID\":\"42\",\"TTL\":\"1\"}";
  if (strcmp (path, "/v3/kv/txn") == 0)
    return "{\"header\":{\"revision\":\"7\"},\"succeeded\":true}";
  if (strcmp (path, "/v3/kv/range") == 0)
    {
      char *k = ebb_etcd_b64 ("/t/election/2a", 14), *v = ebb_etcd_b64 ("me", 2);
      snprintf (range, sizeof range,
                "{\"kvs\":[{\"key\":\"%s\",\"value\":\"%s\",\"create_revision\":\"7\"}]}", k, v);
      free (k);
      free (v);
      return range;
    }
  if (strcmp (path, "/v3/lease/keepalive") == 0 && n_keepalives++ < keepalives_ok)
    return "{\"result\":{\"ID\":\"42\",\"TTL\":\"1\"}}";
  if (strcmp (path, "/v3/lease/keepalive") == 0 && lease_vanishes)
    return "{\"result\":{\"ID\":\"42\"}}";
  *status = 503;
  return "{\"error\":\"etcdserver: request timed out\",\"code\":14}";
}

typedef struct
{
  int n_leader, n_lost;
  int64_t epoch;
  uint64_t leader_usec, lost_usec;
  char why[160];
  bool leader_after_lost;
} elect_state;

static void
on_elect (ebb_election *e, ebb_election_event ev, const ebb_error *err, void *ud)
{
  elect_state *s = ud;
  if (ev == EBB_ELECTION_LEADER)
    {
      s->n_leader++;
      s->epoch = ebb_election_epoch (e);
      s->leader_usec = ebb_now_usec ();
    }
  else if (ev == EBB_ELECTION_LOST)
    {
      s->n_lost++;
      s->lost_usec = ebb_now_usec ();
      snprintf (s->why, sizeof s->why, "%s", err && err->msg ? err->msg : "");
      s->leader_after_lost = ebb_election_is_leader (e);
    }
}

static void
run_election (int ok, bool vanish, elect_state *s)
{
  keepalives_ok = ok;
  lease_vanishes = vanish;
  n_keepalives = 0;
  static const char *const idle[] = { "{\"result\":{\"created\":true}}\n", NULL };
  sd_event *ev;
  fake f;
  ebb_etcd *c = fake_client (&ev, &f, reply_election, idle);
  ebb_election_config ec = { .prefix = "/t/",
                             .value = "me",
                             .ttl_sec = 1,
                             .keepalive_usec = 100000,
                             .renew_deadline_usec = 500000 };
  ebb_election *e = ebb_election_new (c, ev, &ec, on_elect, s, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (e);
  CU_ASSERT (ebb_election_campaign (e, NULL) == 0);
  run_until (ev, &s->n_lost, 1);
  CU_ASSERT (strstr (f.log, "/v3/lease/grant -;/v3/kv/txn -;") == f.log);
  ebb_election_free (e);
  ebb_etcd_free (c);
  fake_stop (&f);
  sd_event_unref (ev);
}

static void
test_election_deadline (void)
{
  elect_state s = { 0 };
  run_election (3, false, &s);
  CU_ASSERT_EQUAL (s.n_leader, 1);
  CU_ASSERT_EQUAL (s.epoch, 7);
  CU_ASSERT_EQUAL (s.n_lost, 1);
  CU_ASSERT_STRING_EQUAL (s.why, "the lease was not renewed for 500 ms");
  CU_ASSERT (!s.leader_after_lost);
  /* 3 answered keepalives 100 ms apart, then 500 ms: lost about 0.8 s after leading. */
  uint64_t ms = (s.lost_usec - s.leader_usec) / 1000;
  printf ("(lost %llu ms after leading) ", (unsigned long long)ms);
  CU_ASSERT (ms >= 500 && ms <= 1500);
}

static void
test_election_lease_gone (void)
{
  elect_state s = { 0 };
  run_election (2, true, &s);
  CU_ASSERT_EQUAL (s.n_leader, 1);
  CU_ASSERT_STRING_EQUAL (s.why, "the lease expired");
  CU_ASSERT ((s.lost_usec - s.leader_usec) / 1000 < 500); /* at the answer, not the deadline */
}

/* A standby behind another candidate's key: the leader is reported once (LEADER_SEEN), also
 * when the watch's events come while the first check is still under way (a check asked again
 * meanwhile used to see "no change" and never report the leader it had found). */
static const char *
reply_standby (fake *f, const char *path, const char *auth, int *status)
{
  static char range[256];
  (void)f;
  (void)auth;
  if (strcmp (path, "/v3/lease/grant") == 0)
    return "{\"ID\":\"42\",\"TTL\":\"5\"}";
  if (strcmp (path, "/v3/kv/txn") == 0)
    return "{\"header\":{\"revision\":\"7\"},\"succeeded\":true}";
  if (strcmp (path, "/v3/kv/range") == 0)
    {
      char *k = ebb_etcd_b64 ("/t/election/1", 13), *v = ebb_etcd_b64 ("them", 4);
      snprintf (range, sizeof range,
                "{\"kvs\":[{\"key\":\"%s\",\"value\":\"%s\",\"create_revision\":\"5\"}]}", k, v);
      free (k);
      free (v);
      return range;
    }
  if (strcmp (path, "/v3/lease/keepalive") == 0)
    return "{\"result\":{\"ID\":\"42\",\"TTL\":\"5\"}}";
  *status = 404;
  return "{}";
}

typedef struct
{
  int n_seen, n_leader;
} standby_state;

static void
on_standby (ebb_election *e, ebb_election_event ev, const ebb_error *err, void *ud)
{
  standby_state *s = ud;
  (void)e;
  (void)err;
  s->n_seen += ev == EBB_ELECTION_LEADER_SEEN;
  s->n_leader += ev == EBB_ELECTION_LEADER;
}

static void
test_election_standby_sees_leader (void)
{
  /* A PUT under the prefix 0, 20 and 40 ms into the watch; every range answered 60 ms late. */
  static const char *const events[]
      = { "{\"result\":{\"events\":[{\"type\":\"PUT\",\"kv\":{\"key\":\"eA==\"}}]}}\n",
          "{\"result\":{\"events\":[{\"type\":\"PUT\",\"kv\":{\"key\":\"eA==\"}}]}}\n",
          "{\"result\":{\"events\":[{\"type\":\"PUT\",\"kv\":{\"key\":\"eA==\"}}]}}\n",
          "{\"result\":{\"created\":true}}\n", NULL };
  sd_event *ev;
  fake f;
  ebb_etcd *c = fake_client (&ev, &f, reply_standby, events);
  f.range_delay_usec = 60000;
  ebb_election_config ec = { .prefix = "/t/", .value = "me", .ttl_sec = 5 };
  standby_state s = { 0 };
  ebb_election *e = ebb_election_new (c, ev, &ec, on_standby, &s, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (e);
  CU_ASSERT (ebb_election_campaign (e, NULL) == 0);
  run_until (ev, &s.n_seen, 1);
  /* The checks the events asked for, answered too: still one report. */
  uint64_t end = ebb_now_usec () + 400000;
  while (ebb_now_usec () < end)
    sd_event_run (ev, 50000);
  CU_ASSERT_EQUAL (s.n_seen, 1);
  CU_ASSERT_EQUAL (s.n_leader, 0);
  int64_t epoch = 0;
  const char *who = ebb_election_leader (e, &epoch);
  CU_ASSERT (who && strcmp (who, "them") == 0);
  CU_ASSERT_EQUAL (epoch, 5);
  ebb_election_free (e);
  ebb_etcd_free (c);
  fake_stop (&f);
  sd_event_unref (ev);
}

int
main (void)
{
  static const ebb_cu_test tests[] = {
    EBB_CU_TEST (test_b64),
    EBB_CU_TEST (test_int64),
    EBB_CU_TEST (test_prefix_end),
    EBB_CU_TEST (test_config),
    EBB_CU_TEST (test_refused_rotates),
    EBB_CU_TEST (test_token_renewed),
    EBB_CU_TEST (test_unavailable_rotates),
    EBB_CU_TEST (test_watch_stream),
    EBB_CU_TEST (test_election_deadline),
    EBB_CU_TEST (test_election_lease_gone),
    EBB_CU_TEST (test_election_standby_sees_leader),
  };
  return ebb_cu_run ("etcd", NULL, NULL, tests, EBB_ARRAY_SIZE (tests));
}
