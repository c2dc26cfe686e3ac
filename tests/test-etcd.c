/* lib/etcd: the gateway's encodings (base64 both ways, int64 as strings, a prefix's range
 * end), the client's refusal of bad configurations, and a call to an endpoint where nobody
 * listens: ECONNREFUSED from the loop, and the next call goes to the next endpoint. The calls
 * to a real etcd are in tests/ha/test-election.sh. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/etcd-election.h"
#include "lib/etcd.h"
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

int
main (void)
{
  static const ebb_cu_test tests[] = {
    EBB_CU_TEST (test_b64),    EBB_CU_TEST (test_int64),           EBB_CU_TEST (test_prefix_end),
    EBB_CU_TEST (test_config), EBB_CU_TEST (test_refused_rotates),
  };
  return ebb_cu_run ("etcd", NULL, NULL, tests, EBB_ARRAY_SIZE (tests));
}
