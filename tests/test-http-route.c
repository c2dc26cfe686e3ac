/* The route matcher against ordinary and hostile paths. */
#include "config.h"
#include "lib/http-route.h"
#include "tests/cu.h"

static bool
match (const char *pattern, const char *path)
{
  ebb_http_captures caps = { 0 };
  bool ok = ebb_http_route_match (pattern, path, &caps);
  if (!ok)
    CU_ASSERT_EQUAL (caps.n, 0);
  ebb_http_captures_clear (&caps);
  return ok;
}

static void
test_literal_exact (void)
{
  CU_ASSERT_TRUE (match ("/v1/tasks", "/v1/tasks"));
  CU_ASSERT_TRUE (match ("/", "/"));
  CU_ASSERT_FALSE (match ("/v1/tasks", "/v1/tasksX")); /* no prefix routing */
  CU_ASSERT_FALSE (match ("/v1/tasks", "/v1/task"));
  CU_ASSERT_FALSE (match ("/v1/tasks", "/v1/tasks/"));  /* no trailing-slash leniency */
  CU_ASSERT_FALSE (match ("/v1/tasks", "/v1/tasks/x")); /* no prefix on segments either */
  CU_ASSERT_FALSE (match ("/v1/tasks", "/v1"));
  CU_ASSERT_FALSE (match ("/v1/tasks", "/V1/tasks")); /* case-sensitive */
  CU_ASSERT_FALSE (match ("/v1/tasks", "v1/tasks"));
  CU_ASSERT_FALSE (match ("/v1/tasks", ""));
  CU_ASSERT_FALSE (match ("/", ""));
  CU_ASSERT_FALSE (match ("/", "//"));
  CU_ASSERT_FALSE (ebb_http_route_match (NULL, "/", NULL));
  CU_ASSERT_FALSE (ebb_http_route_match ("/", NULL, NULL));
  CU_ASSERT_TRUE (ebb_http_route_match ("/", "/", NULL));
}

static void
test_captures (void)
{
  ebb_http_captures caps = { 0 };
  CU_ASSERT_TRUE_FATAL (
      ebb_http_route_match ("/v1/tasks/{id}/suspend", "/v1/tasks/web-1/suspend", &caps));
  CU_ASSERT_EQUAL (caps.n, 1);
  CU_ASSERT_STRING_EQUAL (ebb_http_captures_get (&caps, "id"), "web-1");
  CU_ASSERT_PTR_NULL (ebb_http_captures_get (&caps, "ID"));
  CU_ASSERT_PTR_NULL (ebb_http_captures_get (&caps, "other"));

  CU_ASSERT_TRUE_FATAL (
      ebb_http_route_match ("/v1/{kind}/{id}", "/v1/jobs/j%2E1", &caps)); /* reuse clears */
  CU_ASSERT_EQUAL (caps.n, 2);
  CU_ASSERT_STRING_EQUAL (ebb_http_captures_get (&caps, "kind"), "jobs");
  /* The matcher does no decoding. */
  CU_ASSERT_STRING_EQUAL (ebb_http_captures_get (&caps, "id"), "j%2E1");
  /* An encoded slash (the server leaves it encoded) is in no capture: "keep%2fsuspend"
   * is neither task "keep/suspend" nor anything a handler could decode into it. */
  CU_ASSERT_FALSE (ebb_http_route_match ("/v1/{kind}/{id}", "/v1/jobs/j%2F1", &caps));
  CU_ASSERT_FALSE (ebb_http_route_match ("/v1/tasks/{id}", "/v1/tasks/keep%2fsuspend", &caps));
  CU_ASSERT_TRUE (ebb_http_route_match ("/v1/tasks/{id}", "/v1/tasks/keep%2", NULL));

  CU_ASSERT_FALSE (
      ebb_http_route_match ("/v1/tasks/{id}/suspend", "/v1/tasks/web-1/resume", &caps));
  CU_ASSERT_EQUAL (caps.n, 0); /* a failed match leaves nothing behind */
  ebb_http_captures_clear (&caps);
}

static void
test_hostile_paths (void)
{
  const char *p = "/v1/tasks/{id}/suspend";
  CU_ASSERT_FALSE (match (p, "/v1/tasks//suspend"));   /* empty capture */
  CU_ASSERT_FALSE (match (p, "/v1/tasks/../suspend")); /* dot-dot capture */
  CU_ASSERT_FALSE (match (p, "/v1/tasks/./suspend"));
  CU_ASSERT_FALSE (match (p, "/v1//tasks/x/suspend")); /* empty segment */
  CU_ASSERT_FALSE (match (p, "//v1/tasks/x/suspend"));
  CU_ASSERT_FALSE (match (p, "/v1/tasks/x/suspend/"));
  CU_ASSERT_FALSE (match (p, "/v1/tasks/x/y/suspend"));  /* a capture is one segment */
  CU_ASSERT_FALSE (match (p, "/v1/tasks/a\tb/suspend")); /* control characters */
  CU_ASSERT_FALSE (match (p, "/v1/tasks/a\x7f/suspend"));
  CU_ASSERT_TRUE (match (p, "/v1/tasks/...x/suspend"));   /* only "." and ".." are special */
  CU_ASSERT_TRUE (match (p, "/v1/tasks/%2e%2e/suspend")); /* undecoded: literal text */
  CU_ASSERT_FALSE (match ("/v1/{a}", "/v1/"));

  /* Capture length bound. */
  char seg[EBB_HTTP_MAX_CAPTURE_BYTES + 2];
  memset (seg, 'a', sizeof seg - 1);
  seg[sizeof seg - 1] = '\0';
  char *path = NULL;
  CU_ASSERT_FATAL (asprintf (&path, "/v1/tasks/%s/suspend", seg) > 0);
  CU_ASSERT_FALSE (match (p, path));
  free (path);
  seg[EBB_HTTP_MAX_CAPTURE_BYTES] = '\0';
  CU_ASSERT_FATAL (asprintf (&path, "/v1/tasks/%s/suspend", seg) > 0);
  CU_ASSERT_TRUE (match (p, path));
  free (path);

  /* Very long paths are refused whatever they contain. */
  size_t n = EBB_HTTP_MAX_PATH_BYTES + 10;
  char *longp = malloc (n + 1);
  CU_ASSERT_FATAL (longp != NULL);
  for (size_t i = 0; i < n; i++)
    longp[i] = i % 2 ? 'x' : '/';
  longp[n] = '\0';
  CU_ASSERT_FALSE (match ("/{a}", longp));
  CU_ASSERT_FALSE (match ("/x/x/x", longp));
  memset (longp, '/', n);
  CU_ASSERT_FALSE (match ("/", longp));
  free (longp);
}

static void
test_too_many_captures (void)
{
  ebb_http_captures caps = { 0 };
  CU_ASSERT_FALSE (
      ebb_http_route_match ("/{a}/{b}/{c}/{d}/{e}/{f}/{g}/{h}/{i}", "/1/2/3/4/5/6/7/8/9", &caps));
  CU_ASSERT_EQUAL (caps.n, 0);
  CU_ASSERT_TRUE (
      ebb_http_route_match ("/{a}/{b}/{c}/{d}/{e}/{f}/{g}/{h}", "/1/2/3/4/5/6/7/8", &caps));
  CU_ASSERT_EQUAL (caps.n, 8);
  CU_ASSERT_STRING_EQUAL (ebb_http_captures_get (&caps, "h"), "8");
  ebb_http_captures_clear (&caps);
  /* "{}" is no capture (a literal), so it matches only itself. */
  CU_ASSERT_TRUE (match ("/x/{}", "/x/{}"));
  CU_ASSERT_FALSE (match ("/x/{}", "/x/y"));
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_literal_exact),
  EBB_CU_TEST (test_captures),
  EBB_CU_TEST (test_hostile_paths),
  EBB_CU_TEST (test_too_many_captures),
};
EBB_CU_MAIN ("http-route", NULL, NULL, tests)
