#include "config.h"
#include "lib/conf.h"
#include "lib/error.h"
#include "lib/http-internal.h"
#include "lib/json.h"
#include "lib/rng.h"
#include "tests/cu.h"

#include <ftw.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

/* Parses a NUL-terminated document with the default depth; asserts success. */
static struct json_object *
parse_ok (const char *text)
{
  cleanup_error ebb_error *err = NULL;
  struct json_object *o = ebb_json_parse (text, strlen (text), 0, &err);
  if (err)
    fprintf (stderr, "\n  %s: %s\n", text, err->msg);
  CU_ASSERT_PTR_NULL (err);
  return o;
}

/* Asserts that text fails to parse with exactly msg and code. */
static void
parse_fails (const char *text, size_t len, int depth, int code, const char *msg)
{
  cleanup_error ebb_error *err = NULL;
  struct json_object *o = ebb_json_parse (text, len, depth, &err);
  CU_ASSERT_PTR_NULL (o);
  json_object_put (o);
  CU_ASSERT_EQUAL (ebb_error_code (&err), code);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), msg);
  if (strcmp (ebb_error_msg (&err), msg) != 0)
    fprintf (stderr, "\n  text: %.*s\n  want: %s\n  got:  %s\n", (int)len, text, msg,
             ebb_error_msg (&err));
}

#define FAILS(text, code, msg) parse_fails (text, strlen (text), 0, code, msg)

static void
test_parse_valid (void)
{
  struct json_object *o = parse_ok ("  {\"a\": [1, 2.5, \"x\", null, true]}\n");
  CU_ASSERT_TRUE (json_object_is_type (o, json_type_object));
  json_object_put (o);
  o = parse_ok ("{\"a:b\": \"c:d\\\":\", \"e\": {\"a:b\": [\"'\"]}}");
  CU_ASSERT_EQUAL (json_object_object_length (o), 2);
  json_object_put (o);
  /* a NUL in a value is left to its field check; an escaped backslash before "u0000" in a
   * key is no NUL */
  o = parse_ok ("{\"a\\\\u0000\": \"b\\u0000\", \"c\": [\"\\u0000\"]}");
  CU_ASSERT_TRUE (json_object_object_get_ex (o, "a\\u0000", NULL));
  json_object_put (o);
  o = parse_ok ("5");
  CU_ASSERT_TRUE (json_object_is_type (o, json_type_int));
  CU_ASSERT_EQUAL (json_object_get_int64 (o), 5);
  json_object_put (o);
  o = parse_ok ("18446744073709551615");
  CU_ASSERT_EQUAL (json_object_get_uint64 (o), UINT64_MAX);
  json_object_put (o);
  o = parse_ok ("-9223372036854775808");
  CU_ASSERT_EQUAL (json_object_get_int64 (o), INT64_MIN);
  json_object_put (o);
  o = parse_ok ("\"\xc3\xa9\"");
  CU_ASSERT_STRING_EQUAL (json_object_get_string (o), "\xc3\xa9");
  json_object_put (o);
  /* a buffer that is not NUL-terminated: only len bytes count */
  cleanup_error ebb_error *err = NULL;
  o = ebb_json_parse ("[1]]]]", 3, 0, &err);
  CU_ASSERT_PTR_NOT_NULL (o);
  json_object_put (o);
}

static void
test_parse_invalid (void)
{
  FAILS ("", EBB_EPARSE, "invalid JSON: empty document");
  parse_fails (NULL, 0, 0, EBB_EPARSE, "invalid JSON: empty document");
  FAILS (" \n", EBB_EPARSE, "invalid JSON: empty document");
  FAILS ("{\"a\":", EBB_EPARSE, "invalid JSON at offset 5: unexpected end of data");
  FAILS ("{\"a\" 1}", EBB_EPARSE,
         "invalid JSON at offset 5: object property name separator ':' expected");
  FAILS ("[1,]", EBB_EPARSE, "invalid JSON at offset 3: unexpected character");
  FAILS ("\"\\x\"", EBB_EPARSE, "invalid JSON at offset 2: invalid string sequence");
  FAILS ("\"\xff\"", EBB_EPARSE, "invalid JSON at offset 1: invalid utf-8 string");
  FAILS ("{\"a\":1} x", EBB_EPARSE, "trailing garbage at offset 8");
  FAILS ("[1]]", EBB_EPARSE, "trailing garbage at offset 3");
  FAILS ("{} {}", EBB_EPARSE, "trailing garbage at offset 3");
  FAILS ("5 x", EBB_EPARSE, "trailing garbage at offset 2");
  FAILS ("{'a': 1}", EBB_EPARSE, "invalid JSON at offset 1: single-quoted string");
  FAILS ("{\"it's\": {'b': 1}}", EBB_EPARSE, "invalid JSON at offset 10: single-quoted string");
  FAILS ("{\"a\": 1, \"a\": 2}", EBB_EPARSE, "invalid JSON: duplicate key in an object");
  FAILS ("[{\"x\": {\"a\": 1, \"\\u0061\": 2}}]", EBB_EPARSE,
         "invalid JSON: duplicate key in an object");
  FAILS ("[NaN]", EBB_EPARSE, "invalid JSON: NaN and Infinity are not numbers");
  FAILS ("{\"a\": -Infinity}", EBB_EPARSE, "invalid JSON: NaN and Infinity are not numbers");
  /* json-c keeps a key as a C string: a \u0000 in it would cut it short (issue 24, 9) */
  FAILS ("{\"env\": {\"LD_PRELOAD\\u0000junk\": \"/x.so\"}}", EBB_EPARSE,
         "invalid JSON at offset 9: NUL (\\u0000) in a key");
  FAILS ("{\"\\u0000\" : 1}", EBB_EPARSE, "invalid JSON at offset 1: NUL (\\u0000) in a key");
  static const char nul[] = "{\"a\":\0 1}";
  parse_fails (nul, sizeof nul - 1, 0, EBB_EPARSE, "invalid JSON: NUL byte");
}

static void
test_parse_overflow (void)
{
  FAILS ("99999999999999999999", EBB_ERANGE, "number out of range: 99999999999999999999");
  FAILS ("{\"s\": \"99999999999999999999\", \"n\": -99999999999999999999}", EBB_ERANGE,
         "number out of range: -99999999999999999999");
  FAILS ("[18446744073709551616]", EBB_ERANGE, "number out of range: 18446744073709551616");
  FAILS ("[1e400]", EBB_ERANGE, "number out of range: 1e400");
  /* a buffer that ends right after the number, without a NUL (ASan checks the reads) */
  char *exact = ebb_xmalloc (20);
  memcpy (exact, "99999999999999999999", 20);
  parse_fails (exact, 20, 0, EBB_ERANGE, "number out of range: 99999999999999999999");
  free (exact);
}

static void
test_parse_depth (void)
{
  struct json_object *o = NULL;
  cleanup_error ebb_error *err = NULL;
  const char *ok3[] = { "[[[1]]]", "{\"a\":{\"b\":{}}}", "[{\"a\":[]}]", "5" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (ok3); i++)
    {
      o = ebb_json_parse (ok3[i], strlen (ok3[i]), 3, &err);
      CU_ASSERT_PTR_NOT_NULL (o);
      if (err)
        fprintf (stderr, "\n  %s: %s\n", ok3[i], err->msg);
      ebb_error_free (&err);
      json_object_put (o);
    }
  const char *deep4[] = { "[[[[1]]]]", "{\"a\":{\"b\":{\"c\":{}}}}", "[{\"a\":[{}]}]" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (deep4); i++)
    parse_fails (deep4[i], strlen (deep4[i]), 3, EBB_EPARSE, "JSON nested deeper than 3");
  /* far deeper than json-c's own limit: refused without recursion trouble */
  size_t n = 100000;
  char *deep = ebb_xmalloc (2 * n);
  memset (deep, '[', n);
  memset (deep + n, ']', n);
  parse_fails (deep, 2 * n, 0, EBB_EPARSE, "JSON nested deeper than 32");
  free (deep);
}

/* A fixture object with one member of each kind. */
static struct json_object *
sample (void)
{
  return parse_ok (
      "{\"i\": 7, \"neg\": -1, \"big\": 18446744073709551615, \"s5\": \"5\","
      " \"f\": 5.5, \"t\": true, \"nul\": null, \"str\": \"web-1\","
      " \"bad_id\": \"../x\", \"zero\": \"a\\u0000b\", \"arr\": [\"a\", \"b\"],"
      " \"mixed\": [\"a\", 1], \"env\": {\"A\": \"1\", \"B\": \"x=y\"},"
      " \"env_bad\": {\"A\": 1}, \"env_eq\": {\"A=B\": \"x\"}, \"env_empty\": {\"\": \"x\"},"
      " \"two\": 2}");
}

/* Asserts r is an error with exactly msg and code, then clears it. */
static void
expect (int r, ebb_error **err, int code, const char *msg)
{
  CU_ASSERT_EQUAL (r, -code);
  CU_ASSERT_EQUAL (ebb_error_code (err), code);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (err), msg);
  if (strcmp (ebb_error_msg (err), msg) != 0)
    fprintf (stderr, "\n  want: %s\n  got:  %s\n", msg, ebb_error_msg (err));
  ebb_error_free (err);
}

static void
test_get_int64 (void)
{
  struct json_object *o = sample ();
  cleanup_error ebb_error *err = NULL;
  int64_t v = 99;
  CU_ASSERT_EQUAL (ebb_json_get_int64 (o, "i", 1, 10, &v, &err), 1);
  CU_ASSERT_EQUAL (v, 7);
  CU_ASSERT_EQUAL (ebb_json_get_int64 (o, "absent", 1, 10, &v, &err), 0);
  CU_ASSERT_EQUAL (v, 7);
  CU_ASSERT_PTR_NULL (err);
  expect (ebb_json_get_int64 (o, "s5", 1, 10, &v, &err), &err, EBB_EPARSE,
          "field \"s5\": must be an integer in [1, 10], got \"5\"");
  expect (ebb_json_get_int64 (o, "f", 1, 10, &v, &err), &err, EBB_EPARSE,
          "field \"f\": must be an integer in [1, 10], got 5.5");
  expect (ebb_json_get_int64 (o, "t", 1, 10, &v, &err), &err, EBB_EPARSE,
          "field \"t\": must be an integer in [1, 10], got true");
  expect (ebb_json_get_int64 (o, "nul", 1, 10, &v, &err), &err, EBB_EPARSE,
          "field \"nul\": must be an integer in [1, 10], got null");
  expect (ebb_json_get_int64 (o, "i", 8, 10, &v, &err), &err, EBB_ERANGE,
          "field \"i\": must be an integer in [8, 10], got 7");
  expect (ebb_json_get_int64 (o, "big", INT64_MIN, INT64_MAX, &v, &err), &err, EBB_ERANGE,
          "field \"big\": must be an integer, got 18446744073709551615");
  CU_ASSERT_EQUAL (ebb_json_get_int64 (o, "neg", INT64_MIN, INT64_MAX, &v, &err), 1);
  CU_ASSERT_EQUAL (v, -1);
  /* not an object: nothing there */
  CU_ASSERT_EQUAL (ebb_json_get_int64 (NULL, "i", 1, 10, &v, &err), 0);
  json_object_put (o);
}

static void
test_get_uint64_double_bool (void)
{
  struct json_object *o = sample ();
  cleanup_error ebb_error *err = NULL;
  uint64_t u = 0;
  CU_ASSERT_EQUAL (ebb_json_get_uint64 (o, "big", 0, UINT64_MAX, &u, &err), 1);
  CU_ASSERT_EQUAL (u, UINT64_MAX);
  expect (ebb_json_get_uint64 (o, "neg", 0, UINT64_MAX, &u, &err), &err, EBB_ERANGE,
          "field \"neg\": must be a non-negative integer, got -1");
  expect (ebb_json_get_uint64 (o, "big", 1, 1048576, &u, &err), &err, EBB_ERANGE,
          "field \"big\": must be an integer in [1, 1048576], got 18446744073709551615");
  expect (ebb_json_get_uint64 (o, "f", 0, UINT64_MAX, &u, &err), &err, EBB_EPARSE,
          "field \"f\": must be a non-negative integer, got 5.5");
  double d = 0;
  CU_ASSERT_EQUAL (ebb_json_get_double (o, "f", 0, 10, &d, &err), 1);
  CU_ASSERT_DOUBLE_EQUAL (d, 5.5, 1e-12);
  CU_ASSERT_EQUAL (ebb_json_get_double (o, "i", 0, 0, &d, &err), 1); /* an integer is a number */
  CU_ASSERT_DOUBLE_EQUAL (d, 7.0, 1e-12);
  expect (ebb_json_get_double (o, "f", 0, 5, &d, &err), &err, EBB_ERANGE,
          "field \"f\": must be a number in [0, 5], got 5.5");
  expect (ebb_json_get_double (o, "s5", 0, 0, &d, &err), &err, EBB_EPARSE,
          "field \"s5\": must be a number, got \"5\"");
  bool b = false;
  CU_ASSERT_EQUAL (ebb_json_get_bool (o, "t", &b, &err), 1);
  CU_ASSERT_TRUE (b);
  expect (ebb_json_get_bool (o, "i", &b, &err), &err, EBB_EPARSE,
          "field \"i\": must be true or false, got 7");
  expect (ebb_json_get_bool (o, "nul", &b, &err), &err, EBB_EPARSE,
          "field \"nul\": must be true or false, got null");
  json_object_put (o);
}

static void
test_get_string (void)
{
  struct json_object *o = sample ();
  cleanup_error ebb_error *err = NULL;
  const char *s = NULL;
  CU_ASSERT_EQUAL (ebb_json_get_string (o, "str", 64, ebb_json_validate_id, &s, &err), 1);
  CU_ASSERT_STRING_EQUAL (s, "web-1");
  expect (ebb_json_get_string (o, "i", 64, NULL, &s, &err), &err, EBB_EPARSE,
          "field \"i\": must be a string, got 7");
  /* null reads as absent for strings: what add_string (NULL) writes reads back as NULL */
  s = NULL;
  CU_ASSERT_EQUAL (ebb_json_get_string (o, "nul", 64, NULL, &s, &err), 0);
  CU_ASSERT_PTR_NULL (s);
  CU_ASSERT_PTR_NULL (err);
  char **l = NULL;
  CU_ASSERT_EQUAL (ebb_json_get_strv (o, "nul", 4, 8, NULL, &l, &err), 0);
  CU_ASSERT_PTR_NULL (l);
  CU_ASSERT_PTR_NULL (err);
  expect (ebb_json_get_string (o, "str", 4, NULL, &s, &err), &err, EBB_ERANGE,
          "field \"str\": must be at most 4 bytes, got 5");
  expect (ebb_json_get_string (o, "zero", 0, NULL, &s, &err), &err, EBB_EPARSE,
          "field \"zero\": must not contain NUL");
  expect (ebb_json_get_string (o, "bad_id", 64, ebb_json_validate_id, &s, &err), &err, EBB_EPARSE,
          "field \"bad_id\": must be an id of A-Z a-z 0-9 . _ - (not \".\" or \"..\")");
  json_object_put (o);
}

/* The container engines' names: exactly docker and podman; the same refusal for the rest,
 * through ebb_json_get_string as the controller and the agent read it. */
static void
test_validate_runtime (void)
{
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_json_validate_runtime ("docker", &err), 0);
  CU_ASSERT_EQUAL (ebb_json_validate_runtime ("podman", &err), 0);
  CU_ASSERT_PTR_NULL (err);
  char long_name[301];
  memset (long_name, 'd', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  const char *bad[] = { "", "Docker", "docker ", " podman", "dockerd", "lxc", long_name, NULL };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    expect (ebb_json_validate_runtime (bad[i], &err), &err, EBB_EPARSE,
            "must be \"docker\" or \"podman\"");
  CU_ASSERT_EQUAL (ebb_json_validate_runtime ("Docker", NULL), -EBB_EPARSE); /* no err wanted */
  struct json_object *o = json_object_new_object ();
  json_object_object_add (o, "runtime", json_object_new_string ("podman"));
  const char *s = NULL;
  CU_ASSERT_EQUAL (ebb_json_get_string (o, "runtime", 8, ebb_json_validate_runtime, &s, &err), 1);
  CU_ASSERT_STRING_EQUAL (s, "podman");
  json_object_object_add (o, "runtime", json_object_new_string ("PODMAN"));
  expect (ebb_json_get_string (o, "runtime", 8, ebb_json_validate_runtime, &s, &err), &err,
          EBB_EPARSE, "field \"runtime\": must be \"docker\" or \"podman\"");
  json_object_put (o);
}

static void
test_get_strv_env (void)
{
  struct json_object *o = sample ();
  cleanup_error ebb_error *err = NULL;
  char **l = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_json_get_strv (o, "arr", 4, 8, NULL, &l, &err), 1);
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (l), 2);
  CU_ASSERT_STRING_EQUAL (l[1], "b");
  ebb_strv_free (l);
  l = NULL;
  expect (ebb_json_get_strv (o, "mixed", 4, 8, NULL, &l, &err), &err, EBB_EPARSE,
          "field \"mixed[1]\": must be a string, got 1");
  CU_ASSERT_PTR_NULL (l);
  expect (ebb_json_get_strv (o, "arr", 1, 8, NULL, &l, &err), &err, EBB_ERANGE,
          "field \"arr\": must have at most 1 items, got 2");
  expect (ebb_json_get_strv (o, "str", 1, 8, NULL, &l, &err), &err, EBB_EPARSE,
          "field \"str\": must be an array of strings, got \"web-1\"");
  CU_ASSERT_EQUAL_FATAL (ebb_json_get_env (o, "env", 8, 64, &l, &err), 1);
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (l), 2);
  CU_ASSERT_STRING_EQUAL (l[0], "A=1");
  CU_ASSERT_STRING_EQUAL (l[1], "B=x=y");
  ebb_strv_free (l);
  l = NULL;
  expect (ebb_json_get_env (o, "env_bad", 8, 64, &l, &err), &err, EBB_EPARSE,
          "field \"env_bad.A\": must be a string, got 1");
  expect (ebb_json_get_env (o, "env_eq", 8, 64, &l, &err), &err, EBB_EPARSE,
          "field \"env_eq.A=B\": a variable name must be non-empty without \"=\"");
  expect (ebb_json_get_env (o, "env_empty", 8, 64, &l, &err), &err, EBB_EPARSE,
          "field \"env_empty.\": a variable name must be non-empty without \"=\"");
  expect (ebb_json_get_env (o, "env", 1, 64, &l, &err), &err, EBB_ERANGE,
          "field \"env\": must have at most 1 entries, got 2");
  expect (ebb_json_get_env (o, "env", 8, 4, &l, &err), &err, EBB_ERANGE,
          "field \"env.B\": must be at most 4 bytes");
  expect (ebb_json_get_env (o, "arr", 8, 64, &l, &err), &err, EBB_EPARSE,
          "field \"arr\": must be an object of strings, got [\"a\",\"b\"]");
  CU_ASSERT_PTR_NULL (l);
  json_object_put (o);
}

/* A task launch request, as the agent might declare it. */
typedef struct
{
  int64_t cpu;
  uint64_t memory_bytes;
} limits_req;

typedef struct
{
  char *id;
  int mode;
  int64_t cpu_millis;
  uint64_t memory_bytes;
  double weight;
  bool adopt;
  char **argv;
  char **env;
  limits_req limits;
} task_req;

static const ebb_json_enum mode_names[] = { { "immediate", 1 }, { "graceful", 2 }, { NULL, 0 } };

static const ebb_json_field limits_fields[] = {
  { .name = "cpu",
    .type = EBB_JSON_INT64,
    .offset = offsetof (limits_req, cpu),
    .min = 1,
    .max = 64000 },
  { .name = "memory_bytes",
    .type = EBB_JSON_UINT64,
    .offset = offsetof (limits_req, memory_bytes) },
};
static const ebb_json_schema limits_schema
    = { limits_fields, EBB_ARRAY_SIZE (limits_fields), false };

static const ebb_json_field task_fields[] = {
  { .name = "id",
    .type = EBB_JSON_STRING,
    .required = true,
    .offset = offsetof (task_req, id),
    .max_len = 64,
    .validate = ebb_json_validate_id },
  { .name = "mode",
    .type = EBB_JSON_ENUM,
    .required = true,
    .offset = offsetof (task_req, mode),
    .enums = mode_names },
  { .name = "cpu_millis",
    .type = EBB_JSON_INT64,
    .offset = offsetof (task_req, cpu_millis),
    .min = 1,
    .max = 1048576 },
  { .name = "memory_bytes",
    .type = EBB_JSON_UINT64,
    .offset = offsetof (task_req, memory_bytes),
    .umin = 4096 },
  { .name = "weight",
    .type = EBB_JSON_DOUBLE,
    .offset = offsetof (task_req, weight),
    .dmin = 0,
    .dmax = 1 },
  { .name = "adopt", .type = EBB_JSON_BOOL, .offset = offsetof (task_req, adopt) },
  { .name = "argv", .type = EBB_JSON_STRV, .offset = offsetof (task_req, argv), .max_items = 8 },
  { .name = "env", .type = EBB_JSON_ENV, .offset = offsetof (task_req, env) },
  { .name = "limits",
    .type = EBB_JSON_OBJECT,
    .offset = offsetof (task_req, limits),
    .schema = &limits_schema },
  { .name = "labels", .type = EBB_JSON_OBJECT },
  { .name = "deps", .type = EBB_JSON_ARRAY, .max_items = 2 },
  { .name = "note", .type = EBB_JSON_ANY },
};
static const ebb_json_schema task_schema = { task_fields, EBB_ARRAY_SIZE (task_fields), false };
static const ebb_json_schema task_schema_open = { task_fields, EBB_ARRAY_SIZE (task_fields), true };

/* Applies schema to text into a fresh task_req; returns the result and frees everything. */
static int
apply (const ebb_json_schema *schema, const char *text, ebb_error **err)
{
  struct json_object *o = parse_ok (text);
  task_req t = { .cpu_millis = 1000 };
  int r = ebb_json_schema_apply (schema, o, &t, err);
  ebb_json_schema_free (schema, &t);
  json_object_put (o);
  return r;
}

static void
test_schema_stores (void)
{
  struct json_object *o = parse_ok (
      "{\"id\": \"web-1\", \"mode\": \"graceful\", \"memory_bytes\": 67108864, \"weight\": 0.5,"
      " \"adopt\": true, \"argv\": [\"/bin/sleep\", \"10\"], \"env\": {\"PATH\": \"/bin\"},"
      " \"limits\": {\"cpu\": 500}, \"labels\": {\"x\": 1}, \"deps\": [[1, 2], {}],"
      " \"note\": null}");
  task_req t = { .cpu_millis = 1000, .limits = { .memory_bytes = 7 } };
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_json_schema_apply (&task_schema, o, &t, &err), 0);
  if (err)
    fprintf (stderr, "\n  %s\n", err->msg);
  CU_ASSERT_STRING_EQUAL (t.id, "web-1");
  CU_ASSERT_EQUAL (t.mode, 2);
  CU_ASSERT_EQUAL (t.cpu_millis, 1000); /* absent: the caller's default stays */
  CU_ASSERT_EQUAL (t.memory_bytes, 67108864);
  CU_ASSERT_DOUBLE_EQUAL (t.weight, 0.5, 1e-12);
  CU_ASSERT_TRUE (t.adopt);
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (t.argv), 2);
  CU_ASSERT_STRING_EQUAL (t.argv[0], "/bin/sleep");
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (t.env), 1);
  CU_ASSERT_STRING_EQUAL (t.env[0], "PATH=/bin");
  CU_ASSERT_EQUAL (t.limits.cpu, 500);
  CU_ASSERT_EQUAL (t.limits.memory_bytes, 7);
  /* validating only */
  CU_ASSERT_EQUAL (ebb_json_schema_apply (&task_schema, o, NULL, &err), 0);
  /* applying twice replaces owned strings without leaking */
  CU_ASSERT_EQUAL (ebb_json_schema_apply (&task_schema, o, &t, &err), 0);
  ebb_json_schema_free (&task_schema, &t);
  CU_ASSERT_PTR_NULL (t.id);
  CU_ASSERT_PTR_NULL (t.argv);
  CU_ASSERT_PTR_NULL (t.env);
  ebb_json_schema_free (&task_schema, &t);
  json_object_put (o);
}

static void
test_schema_errors (void)
{
  cleanup_error ebb_error *err = NULL;
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"cpu_millis\": \"abc\"}",
                 &err),
          &err, EBB_EPARSE,
          "field \"cpu_millis\": must be an integer in [1, 1048576], got \"abc\"");
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"cpu_millis\": 0}", &err),
          &err, EBB_ERANGE, "field \"cpu_millis\": must be an integer in [1, 1048576], got 0");
  expect (apply (&task_schema, "{\"mode\": \"graceful\"}", &err), &err, EBB_EPARSE,
          "field \"id\": is required");
  expect (apply (&task_schema, "{\"id\": \"a\"}", &err), &err, EBB_EPARSE,
          "field \"mode\": is required");
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": \"fast\"}", &err), &err, EBB_EPARSE,
          "field \"mode\": must be one of \"immediate\", \"graceful\", got \"fast\"");
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"bogus\": 1}", &err), &err,
          EBB_EPARSE, "field \"bogus\": unknown field");
  CU_ASSERT_EQUAL (
      apply (&task_schema_open, "{\"id\": \"a\", \"mode\": \"graceful\", \"bogus\": 1}", &err), 0);
  expect (apply (&task_schema,
                 "{\"id\": \"a\", \"mode\": \"graceful\", \"limits\": {\"cpu\": 99999}}", &err),
          &err, EBB_ERANGE, "field \"limits.cpu\": must be an integer in [1, 64000], got 99999");
  expect (
      apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"limits\": {\"x\": 1}}", &err),
      &err, EBB_EPARSE, "field \"limits.x\": unknown field");
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"limits\": [1]}", &err),
          &err, EBB_EPARSE, "field \"limits\": must be an object, got [1]");
  expect (
      apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"deps\": [1, 2, 3]}", &err),
      &err, EBB_ERANGE, "field \"deps\": must have at most 2 items, got 3");
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"weight\": 1.5}", &err),
          &err, EBB_ERANGE, "field \"weight\": must be a number in [0, 1], got 1.5");
  expect (
      apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"memory_bytes\": 10}", &err),
      &err, EBB_ERANGE,
      "field \"memory_bytes\": must be an integer in [4096, 18446744073709551615], got 10");
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"adopt\": \"yes\"}", &err),
          &err, EBB_EPARSE, "field \"adopt\": must be true or false, got \"yes\"");
  expect (apply (&task_schema, "{\"id\": \"../a\", \"mode\": \"graceful\"}", &err), &err,
          EBB_EPARSE, "field \"id\": must be an id of A-Z a-z 0-9 . _ - (not \".\" or \"..\")");
  expect (apply (&task_schema, "{\"id\": null, \"mode\": \"graceful\"}", &err), &err, EBB_EPARSE,
          "field \"id\": is required");
  CU_ASSERT_EQUAL (
      apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"argv\": null}", &err), 0);
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": null}", &err), &err, EBB_EPARSE,
          "field \"mode\": must be one of \"immediate\", \"graceful\", got null");
  expect (apply (&task_schema, "{\"id\": \"a\", \"mode\": \"graceful\", \"env\": null}", &err),
          &err, EBB_EPARSE, "field \"env\": must be an object of strings, got null");
  expect (apply (&task_schema, "[1]", &err), &err, EBB_EPARSE, "must be a JSON object, got [1]");
  /* a failure after owned fields were stored: schema_free in apply() releases them (ASan) */
  expect (
      apply (&task_schema,
             "{\"id\": \"a\", \"mode\": \"graceful\", \"argv\": [\"x\"], \"env\": {\"A\": \"1\"},"
             " \"limits\": {\"cpu\": 0}}",
             &err),
      &err, EBB_ERANGE, "field \"limits.cpu\": must be an integer in [1, 64000], got 0");
}

static void
test_builders (void)
{
  struct json_object *o = json_object_new_object ();
  char *l[] = { "a", "b/c", NULL };
  ebb_json_add_string (o, "s", "x\"y");
  ebb_json_add_string (o, "n", NULL);
  ebb_json_add_int64 (o, "i", -5);
  ebb_json_add_uint64 (o, "u", UINT64_MAX);
  ebb_json_add_double (o, "d", 0.25);
  ebb_json_add_bool (o, "b", true);
  ebb_json_add_strv (o, "l", l);
  ebb_json_add_strv (o, "none", NULL);
  char *s = ebb_json_to_string (o);
  CU_ASSERT_STRING_EQUAL (s, "{\"s\":\"x\\\"y\",\"n\":null,\"i\":-5,\"u\":18446744073709551615,"
                             "\"d\":0.25,\"b\":true,\"l\":[\"a\",\"b/c\"],\"none\":null}");
  /* what we build, we parse back to the same values */
  cleanup_error ebb_error *err = NULL;
  struct json_object *back = ebb_json_parse (s, strlen (s), 0, &err);
  uint64_t u = 0;
  CU_ASSERT_EQUAL (ebb_json_get_uint64 (back, "u", 0, UINT64_MAX, &u, &err), 1);
  CU_ASSERT_EQUAL (u, UINT64_MAX);
  const char *n = "unset";
  CU_ASSERT_EQUAL (ebb_json_get_string (back, "n", 0, NULL, &n, &err), 0);
  CU_ASSERT_STRING_EQUAL (n, "unset");
  free (s);
  json_object_put (back);
  json_object_put (o);
}

/* '/' is never escaped: not by ebb_json_to_string, not in an error's "got ..." quote, not in
 * an HTTP JSON reply (json-c's default would write "\\/sys\\/fs\\/cgroup"). */
static void
test_no_slash_escape (void)
{
  struct json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "cgroup", "/sys/fs/cgroup/ebb/t1");
  char *s = ebb_json_to_string (o);
  CU_ASSERT_STRING_EQUAL (s, "{\"cgroup\":\"/sys/fs/cgroup/ebb/t1\"}");
  free (s);

  cleanup_error ebb_error *err = NULL;
  int64_t v = 0;
  CU_ASSERT_TRUE (ebb_json_get_int64 (o, "cgroup", 0, 10, &v, &err) < 0);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "/sys/fs/cgroup/ebb/t1"));
  CU_ASSERT_PTR_NULL (strstr (ebb_error_msg (&err), "\\/"));

  ebb_http_response resp = { 0 };
  ebb_http_reply_json (&resp, 200, o); /* takes o */
  CU_ASSERT_EQUAL (resp.status, 200);
  CU_ASSERT_STRING_EQUAL (resp.body, "{\"cgroup\":\"/sys/fs/cgroup/ebb/t1\"}\n");
  free (resp.body);
  free (resp.content_type);
}

/* Every serialization call in the production sources passes EBB_JSON_TO_STRING_FLAGS (or
 * JSON_C_TO_STRING_NOSLASHESCAPE with other flags, e.g. PRETTY for humans), so a new call site
 * cannot bring back json-c's slash escaping unnoticed. */
static unsigned scan_calls, scan_bad;

static int
scan_file (const char *path, const struct stat *st, int type, struct FTW *ftw)
{
  (void)st;
  (void)ftw;
  size_t n = strlen (path);
  if (type != FTW_F || n < 2 || strcmp (path + n - 2, ".c") != 0)
    return 0;
  FILE *f = fopen (path, "re");
  if (!f)
    return 0;
  char *text = NULL;
  size_t size = 0;
  ssize_t len = getdelim (&text, &size, '\0', f);
  fclose (f);
  for (const char *p = text; len > 0 && (p = strstr (p, "json_object_to_")); p++)
    {
      const char *open = strchr (p, '(');
      int depth = 0;
      const char *q = open;
      for (; q && *q; q++)
        if (*q == '(')
          depth++;
        else if (*q == ')' && --depth == 0)
          break;
      if (!open || !q || !*q)
        continue;
      scan_calls++;
      char *args = strndup (open, (size_t)(q - open));
      if (!strstr (args, "EBB_JSON_TO_STRING_FLAGS") && !strstr (args, "NOSLASHESCAPE"))
        {
          scan_bad++;
          fprintf (stderr, "\n  %s: %.60s escapes '/' (no JSON_C_TO_STRING_NOSLASHESCAPE)", path,
                   p);
        }
      free (args);
    }
  free (text);
  return 0;
}

static void
test_every_call_site_uses_flags (void)
{
  const char *top = getenv ("EBB_TOP_SRCDIR");
  if (!top)
    top = ".";
  static const char *const dirs[]
      = { "lib", "cgroup", "policies", "sim", "agent", "controller", "cli" };
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    {
      char path[4096];
      snprintf (path, sizeof path, "%s/%s", top, dirs[i]);
      nftw (path, scan_file, 16, FTW_PHYS);
    }
  /* lib/json.c and lib/http-response.c at least: a scan that finds nothing proves nothing */
  CU_ASSERT_TRUE (scan_calls >= 3);
  CU_ASSERT_EQUAL (scan_bad, 0);
}

/* Mutations of a valid request: every outcome is a value or an error with a message; the
 * schema then accepts or names a field. ASan/UBSan/LSan watch the rest. */
static void
test_random_mutations (void)
{
  static const char base[]
      = "{\"id\": \"web-1\", \"mode\": \"graceful\", \"cpu_millis\": 500, \"weight\": 0.5,"
        " \"argv\": [\"/bin/true\"], \"env\": {\"A\": \"1\"}, \"limits\": {\"cpu\": 2}}";
  static const char alphabet[] = "{}[]\":,'\\ -0123456789.eEtruefalsnul\xff\xc3";
  ebb_rng rng;
  ebb_rng_seed (&rng, 7);
  unsigned parsed = 0, refused = 0, accepted = 0;
  for (int round = 0; round < 5000; round++)
    {
      char text[sizeof base + 8];
      size_t len = sizeof base - 1;
      memcpy (text, base, len);
      unsigned edits = 1 + (unsigned)ebb_rng_below (&rng, 3);
      for (unsigned k = 0; k < edits; k++)
        {
          size_t at = ebb_rng_below (&rng, len);
          if (ebb_rng_below (&rng, 4) == 0 && len > 1)
            memmove (text + at, text + at + 1, --len - at); /* delete a byte */
          else
            text[at] = alphabet[ebb_rng_below (&rng, sizeof alphabet - 1)];
        }
      cleanup_error ebb_error *err = NULL;
      struct json_object *o = ebb_json_parse (text, len, 0, &err);
      if (!o)
        {
          refused++;
          CU_ASSERT_TRUE (ebb_error_code (&err) == EBB_EPARSE
                          || ebb_error_code (&err) == EBB_ERANGE);
          CU_ASSERT_TRUE (strlen (ebb_error_msg (&err)) > 0);
          continue;
        }
      parsed++;
      task_req t = { .cpu_millis = 1000 };
      if (ebb_json_schema_apply (&task_schema, o, &t, &err) == 0)
        accepted++;
      else
        CU_ASSERT_TRUE (strncmp (ebb_error_msg (&err), "field \"", 7) == 0
                        || strncmp (ebb_error_msg (&err), "must be a JSON object", 21) == 0);
      ebb_json_schema_free (&task_schema, &t);
      json_object_put (o);
    }
  CU_ASSERT_TRUE (refused > 100);
  CU_ASSERT_TRUE (parsed > 100);
  CU_ASSERT_TRUE (accepted > 10);
  printf ("\n  mutations: %u refused by the parser, %u parsed, %u accepted by the schema\n",
          refused, parsed, accepted);
}

/* Parses text's "deps" over n tasks with at most max edges; returns the result and, when
 * refused, whether the message has want. */
static int
edges_of (const char *text, uint32_t n, uint32_t max, const char *want, uint32_t *nedges,
          uint32_t **edges)
{
  json_object *o = json_tokener_parse (text);
  CU_ASSERT_PTR_NOT_NULL_FATAL (o);
  ebb_error *err = NULL;
  int r = ebb_json_parse_edges (o, n, max, edges, nedges, &err);
  if (r < 0)
    {
      CU_ASSERT_PTR_NULL (*edges);
      CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), want));
    }
  ebb_error_free (&err);
  json_object_put (o);
  return r;
}

static void
test_parse_edges (void)
{
  uint32_t *e = NULL, m = 9;
  CU_ASSERT_EQUAL (ebb_json_parse_edges (NULL, 3, 10, &e, &m, NULL), 0); /* absent */
  CU_ASSERT_PTR_NULL (e);
  CU_ASSERT_EQUAL (m, 0);
  CU_ASSERT_EQUAL (edges_of ("[[0,2],[1,2]]", 3, 10, "", &m, &e), 0);
  CU_ASSERT_EQUAL_FATAL (m, 2);
  CU_ASSERT (e[0] == 0 && e[1] == 2 && e[2] == 1 && e[3] == 2);
  free (e);
  CU_ASSERT_EQUAL (edges_of ("[]", 3, 10, "", &m, &e), 0);
  CU_ASSERT_EQUAL (m, 0);
  free (e);
  CU_ASSERT (edges_of ("{}", 3, 10, "array of [parent, child] pairs", &m, &e) < 0);
  CU_ASSERT (edges_of ("[[0,1],[2]]", 3, 10, "dep 1 is not a", &m, &e) < 0);
  CU_ASSERT (edges_of ("[[0,3]]", 3, 10, "dep 0: task index must be in [0, 3)", &m, &e) < 0);
  CU_ASSERT (edges_of ("[[-1,0]]", 3, 10, "[0, 3)", &m, &e) < 0);
  CU_ASSERT (edges_of ("[[0,1.0]]", 3, 10, "[0, 3)", &m, &e) < 0);
  CU_ASSERT (edges_of ("[[0,\"1\"]]", 3, 10, "[0, 3)", &m, &e) < 0);
  CU_ASSERT (edges_of ("[[0,1],[0,2],[1,2]]", 3, 2, "at most 2 edges", &m, &e) < 0);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_random_mutations),
  EBB_CU_TEST (test_parse_valid),
  EBB_CU_TEST (test_parse_invalid),
  EBB_CU_TEST (test_parse_overflow),
  EBB_CU_TEST (test_parse_depth),
  EBB_CU_TEST (test_get_int64),
  EBB_CU_TEST (test_get_uint64_double_bool),
  EBB_CU_TEST (test_get_string),
  EBB_CU_TEST (test_parse_edges),
  EBB_CU_TEST (test_validate_runtime),
  EBB_CU_TEST (test_get_strv_env),
  EBB_CU_TEST (test_schema_stores),
  EBB_CU_TEST (test_schema_errors),
  EBB_CU_TEST (test_builders),
  EBB_CU_TEST (test_no_slash_escape),
  EBB_CU_TEST (test_every_call_site_uses_flags),
};

EBB_CU_MAIN ("json", NULL, NULL, tests)
