#include "config.h"
#include "lib/conf.h"
#include "lib/error.h"
#include "lib/rng.h"
#include "tests/cu.h"

#include <ftw.h>
#include <stddef.h>
#include <sys/stat.h>

typedef struct
{
  char *name;
  bool enabled;
  int64_t offset;
  uint64_t count;
  uint64_t interval_usec;
  uint64_t memory_bytes;
  int mode;
  char **listen;
  char *node_id;
  char *state_dir;
  uint64_t big;
  int64_t delta;
  double ratio;
} tcfg;

enum
{
  MODE_IMMEDIATE = 10,
  MODE_GRACEFUL = 20,
  MODE_KILL = 30,
};

static const ebb_conf_enum modes[] = {
  { "immediate", MODE_IMMEDIATE }, { "graceful", MODE_GRACEFUL }, { "kill", MODE_KILL }, { NULL, 0 }
};

static const ebb_conf_setting table[] = {
  { .name = "name",
    .type = EBB_CONF_STRING,
    .offset = offsetof (tcfg, name),
    .umax = 16,
    .def = "ebb",
    .help = "a name" },
  { .name = "enabled", .type = EBB_CONF_BOOL, .offset = offsetof (tcfg, enabled), .def = "yes" },
  { .name = "offset",
    .type = EBB_CONF_INT64,
    .offset = offsetof (tcfg, offset),
    .min = -10,
    .max = 10,
    .def = "0" },
  { .name = "count",
    .type = EBB_CONF_UINT64,
    .offset = offsetof (tcfg, count),
    .umin = 1,
    .umax = 1000,
    .def = "10" },
  { .name = "interval",
    .type = EBB_CONF_DURATION,
    .offset = offsetof (tcfg, interval_usec),
    .umin = 1000,
    .umax = 60000000,
    .def = "10s" },
  { .name = "memory",
    .type = EBB_CONF_BYTES,
    .offset = offsetof (tcfg, memory_bytes),
    .umin = 4096,
    .umax = 1ULL << 30,
    .def = "64M" },
  { .name = "mode",
    .type = EBB_CONF_ENUM,
    .offset = offsetof (tcfg, mode),
    .enums = modes,
    .def = "graceful" },
  { .name = "listen",
    .type = EBB_CONF_STRLIST,
    .offset = offsetof (tcfg, listen),
    .umax = 64,
    .def = "127.0.0.1:7070" },
  { .name = "node_id",
    .type = EBB_CONF_STRING,
    .offset = offsetof (tcfg, node_id),
    .validate = ebb_conf_validate_id },
  { .name = "state_dir",
    .type = EBB_CONF_STRING,
    .offset = offsetof (tcfg, state_dir),
    .validate = ebb_conf_validate_abspath,
    .def = "/var/lib/ebb" },
  { .name = "big", .type = EBB_CONF_UINT64, .offset = offsetof (tcfg, big) },
  { .name = "delta", .type = EBB_CONF_INT64, .offset = offsetof (tcfg, delta) },
  { .name = "ratio",
    .type = EBB_CONF_DOUBLE,
    .offset = offsetof (tcfg, ratio),
    .dmin = 0,
    .dmax = 1,
    .def = "0.17" },
};
#define N EBB_ARRAY_SIZE (table)

static char tmpdir[] = "/tmp/ebb-test-config-XXXXXX";

static int
init (void)
{
  return mkdtemp (tmpdir) ? 0 : -1;
}

static int
rm_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  return remove (path);
}

static int
clean (void)
{
  return nftw (tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Writes len bytes to tmpdir/rel; returns the full path (to free). */
static char *
write_file (const char *rel, const char *text, size_t len)
{
  char *path = ebb_xasprintf ("%s/%s", tmpdir, rel);
  FILE *f = fopen (path, "w");
  CU_ASSERT_FATAL (f != NULL);
  CU_ASSERT_FATAL (fwrite (text, 1, len, f) == len);
  CU_ASSERT_FATAL (fclose (f) == 0);
  return path;
}

static char *
write_text (const char *rel, const char *text)
{
  return write_file (rel, text, strlen (text));
}

static void
fresh (tcfg *c)
{
  memset (c, 0, sizeof *c);
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_FATAL (ebb_conf_defaults (table, N, c, &err) == 0);
}

/* Parses text as "t.conf" over defaults; returns the result, *err on failure. */
static int
parse (tcfg *c, const char *text, ebb_error **err)
{
  fresh (c);
  return ebb_conf_parse_text (table, N, c, "t.conf", text, strlen (text), err);
}

/* Asserts that text fails to parse with exactly msg and code. */
static void
expect_error (const char *text, int code, const char *msg)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  int r = parse (&c, text, &err);
  CU_ASSERT_EQUAL (r, -code);
  CU_ASSERT_EQUAL (ebb_error_code (&err), code);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), msg);
  if (strcmp (ebb_error_msg (&err), msg) != 0)
    fprintf (stderr, "\n  text: %s\n  want: %s\n  got:  %s\n", text, msg, ebb_error_msg (&err));
  ebb_conf_free (table, N, &c);
}

static void
test_defaults (void)
{
  tcfg c;
  fresh (&c);
  CU_ASSERT_STRING_EQUAL (c.name, "ebb");
  CU_ASSERT_TRUE (c.enabled);
  CU_ASSERT_EQUAL (c.offset, 0);
  CU_ASSERT_EQUAL (c.count, 10);
  CU_ASSERT_EQUAL (c.interval_usec, 10000000);
  CU_ASSERT_EQUAL (c.memory_bytes, 64ULL << 20);
  CU_ASSERT_EQUAL (c.mode, MODE_GRACEFUL);
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (c.listen), 1);
  CU_ASSERT_STRING_EQUAL (c.listen[0], "127.0.0.1:7070");
  CU_ASSERT_PTR_NULL (c.node_id);
  CU_ASSERT_STRING_EQUAL (c.state_dir, "/var/lib/ebb");
  /* defaults again over set values: strings are replaced, not leaked */
  CU_ASSERT_EQUAL (ebb_conf_defaults (table, N, &c, NULL), 0);
  CU_ASSERT_STRING_EQUAL (c.name, "ebb");
  ebb_conf_free (table, N, &c);
  CU_ASSERT_PTR_NULL (c.name);
  CU_ASSERT_PTR_NULL (c.listen);
  ebb_conf_free (table, N, &c); /* twice is safe */
}

static void
test_every_type (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  const char *text = "# a comment\n"
                     "\n"
                     "  name   =   agent-1  \n"
                     "enabled = off\n"
                     "offset = -10\n"
                     "count = 1000\n"
                     "interval = 250ms\n"
                     "memory = 512K\n"
                     "mode = kill\n"
                     "node_id = node.7\n"
                     "state_dir = /srv/ebb\n"
                     "big = 18446744073709551615\n"
                     "delta = -9223372036854775808\n";
  CU_ASSERT_EQUAL_FATAL (parse (&c, text, &err), 0);
  CU_ASSERT_STRING_EQUAL (c.name, "agent-1");
  CU_ASSERT_FALSE (c.enabled);
  CU_ASSERT_EQUAL (c.offset, -10);
  CU_ASSERT_EQUAL (c.count, 1000);
  CU_ASSERT_EQUAL (c.interval_usec, 250000);
  CU_ASSERT_EQUAL (c.memory_bytes, 512 * 1024);
  CU_ASSERT_EQUAL (c.mode, MODE_KILL);
  CU_ASSERT_STRING_EQUAL (c.node_id, "node.7");
  CU_ASSERT_STRING_EQUAL (c.state_dir, "/srv/ebb");
  CU_ASSERT_EQUAL (c.big, UINT64_MAX);
  CU_ASSERT_EQUAL (c.delta, INT64_MIN);
  ebb_conf_free (table, N, &c);
}

static void
test_bool_spellings (void)
{
  static const char *const yes[] = { "yes", "YES", "true", "True", "on", "1" };
  static const char *const no[] = { "no", "false", "OFF", "0" };
  bool b;
  for (size_t i = 0; i < EBB_ARRAY_SIZE (yes); i++)
    CU_ASSERT_TRUE (ebb_conf_parse_bool (yes[i], &b) == 0 && b);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (no); i++)
    CU_ASSERT_TRUE (ebb_conf_parse_bool (no[i], &b) == 0 && !b);
  CU_ASSERT_EQUAL (ebb_conf_parse_bool ("2", &b), -1);
  CU_ASSERT_EQUAL (ebb_conf_parse_bool ("", &b), -1);
  CU_ASSERT_EQUAL (ebb_conf_parse_bool ("yess", &b), -1);
  expect_error ("enabled = maybe\n", EBB_EPARSE,
                "t.conf:1: enabled: must be a boolean (yes/no, true/false, on/off, 1/0), "
                "got \"maybe\"");
}

static void
test_int_bounds (void)
{
  expect_error ("offset = 11\n", EBB_ERANGE,
                "t.conf:1: offset: must be an integer in [-10, 10], got \"11\"");
  expect_error ("\noffset = -11\n", EBB_ERANGE,
                "t.conf:2: offset: must be an integer in [-10, 10], got \"-11\"");
  expect_error ("offset = abc\n", EBB_EPARSE,
                "t.conf:1: offset: must be an integer in [-10, 10], got \"abc\"");
  expect_error ("offset = 1.5\n", EBB_EPARSE,
                "t.conf:1: offset: must be an integer in [-10, 10], got \"1.5\"");
  expect_error ("offset =\n", EBB_EPARSE,
                "t.conf:1: offset: must be an integer in [-10, 10], got \"\"");
  expect_error ("delta = 9223372036854775808\n", EBB_ERANGE,
                "t.conf:1: delta: must be an integer, got \"9223372036854775808\"");
  expect_error ("count = 0\n", EBB_ERANGE,
                "t.conf:1: count: must be an integer in [1, 1000], got \"0\"");
  expect_error ("count = 1001\n", EBB_ERANGE,
                "t.conf:1: count: must be an integer in [1, 1000], got \"1001\"");
  expect_error ("count = -1\n", EBB_EPARSE,
                "t.conf:1: count: must be an integer in [1, 1000], got \"-1\"");
  expect_error ("count = +5\n", EBB_EPARSE,
                "t.conf:1: count: must be an integer in [1, 1000], got \"+5\"");
  expect_error ("big = 18446744073709551616\n", EBB_ERANGE,
                "t.conf:1: big: must be a non-negative integer, got \"18446744073709551616\"");
}

static void
test_duration_and_bytes (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL (parse (&c, "interval = 1min\nmemory = 1G\n", &err), 0);
  CU_ASSERT_EQUAL (c.interval_usec, 60000000);
  CU_ASSERT_EQUAL (c.memory_bytes, 1ULL << 30);
  ebb_conf_free (table, N, &c);
  CU_ASSERT_EQUAL (parse (&c, "interval = 2\nmemory = 4096\n", &err), 0);
  CU_ASSERT_EQUAL (c.interval_usec, 2000000); /* a bare number is seconds */
  CU_ASSERT_EQUAL (c.memory_bytes, 4096);
  ebb_conf_free (table, N, &c);
  expect_error ("interval = 0\n", EBB_ERANGE,
                "t.conf:1: interval: must be a duration in [1ms, 1min], got \"0\"");
  expect_error ("interval = 1h\n", EBB_ERANGE,
                "t.conf:1: interval: must be a duration in [1ms, 1min], got \"1h\"");
  expect_error ("interval = 10 s\n", EBB_EPARSE,
                "t.conf:1: interval: must be a duration in [1ms, 1min], got \"10 s\"");
  expect_error ("interval = 99999999999999999999s\n", EBB_ERANGE,
                "t.conf:1: interval: must be a duration in [1ms, 1min], "
                "got \"99999999999999999999s\"");
  expect_error ("memory = 2G\n", EBB_ERANGE,
                "t.conf:1: memory: must be a byte size in [4K, 1G], got \"2G\"");
  expect_error ("memory = 1.5G\n", EBB_EPARSE,
                "t.conf:1: memory: must be a byte size in [4K, 1G], got \"1.5G\"");
  expect_error ("memory = 17179869184G\n", EBB_ERANGE,
                "t.conf:1: memory: must be a byte size in [4K, 1G], got \"17179869184G\"");
}

static void
test_parse_bytes (void)
{
  static const struct
  {
    const char *s;
    uint64_t v;
  } ok[] = {
    { "0", 0 },
    { "4096", 4096 },
    { "100B", 100 },
    { "512K", 512 << 10 },
    { "512k", 512 << 10 },
    { "64M", 64ULL << 20 },
    { "64MiB", 64ULL << 20 },
    { "64MB", 64ULL << 20 },
    { "1G", 1ULL << 30 },
    { "1T", 1ULL << 40 },
    { "15E", 15ULL << 60 },
    { "18446744073709551615", UINT64_MAX },
  };
  static const char *const bad[]
      = { "",   "-1",  "1.5G", "G", "16E", "64X", "64 M", "64Mi", "64MiBs", "18446744073709551616",
          " 1", "0x10" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (ok); i++)
    {
      uint64_t v = 1;
      CU_ASSERT_EQUAL (ebb_conf_parse_bytes (ok[i].s, &v), 0);
      CU_ASSERT_EQUAL (v, ok[i].v);
    }
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      uint64_t v = 7;
      CU_ASSERT_EQUAL (ebb_conf_parse_bytes (bad[i], &v), -1);
      if (v != 7)
        fprintf (stderr, "accepted %s\n", bad[i]);
      CU_ASSERT_EQUAL (v, 7);
    }
}

static void
test_enum (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL (parse (&c, "mode = immediate\n", &err), 0);
  CU_ASSERT_EQUAL (c.mode, MODE_IMMEDIATE);
  ebb_conf_free (table, N, &c);
  expect_error ("mode = fast\n", EBB_EPARSE,
                "t.conf:1: mode: must be one of immediate, graceful, kill, got \"fast\"");
  expect_error ("mode = Kill\n", EBB_EPARSE,
                "t.conf:1: mode: must be one of immediate, graceful, kill, got \"Kill\"");
}

/* Parses one line setting name and checks the resulting string (NULL: unset). */
static void
expect_name (const char *line, const char *want)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL (parse (&c, line, &err), 0);
  if (err)
    fprintf (stderr, "\n  %s: %s\n", line, err->msg);
  if (want && c.name)
    CU_ASSERT_STRING_EQUAL (c.name, want);
  if (!want)
    CU_ASSERT_PTR_NULL (c.name);
  if (want && !c.name)
    CU_FAIL ("name unset");
  ebb_conf_free (table, N, &c);
}

static void
test_comments_and_quotes (void)
{
  expect_name ("name = a # comment\n", "a");
  expect_name ("name = a#b\n", "a#b");
  expect_name ("name =#b\n", "#b");
  expect_name ("name = # all comment\n", NULL);
  expect_name ("name =\n", NULL);
  expect_name ("name = \"a # b\"\n", "a # b");
  expect_name ("name = \"a # b\"   # trailing\n", "a # b");
  expect_name ("name = \"q\\\"\\\\\\tz\"\n", "q\"\\\tz");
  expect_name ("name = \" sp \"\n", " sp ");
  expect_name ("name = \"\"\n", NULL);
  expect_name ("name=x\r\n", "x");
  expect_name ("\tname\t=\tx y\t\n", "x y");
  expect_name ("name = x", "x"); /* no newline at the end of the file */
  {
    /* a buffer exactly as long as its text, without a NUL (ASan checks the reads) */
    tcfg c;
    cleanup_error ebb_error *err = NULL;
    char *exact = ebb_xmalloc (8);
    memcpy (exact, "name = y", 8);
    fresh (&c);
    CU_ASSERT_EQUAL (ebb_conf_parse_text (table, N, &c, "t.conf", exact, 8, &err), 0);
    CU_ASSERT_STRING_EQUAL (c.name, "y");
    free (exact);
    ebb_conf_free (table, N, &c);
  }
  expect_name ("   # indented comment\nname = k\n", "k");
  expect_error ("name = \"abc\n", EBB_EPARSE, "t.conf:1: unterminated quoted value");
  expect_error ("name = \"abc\\\"\n", EBB_EPARSE, "t.conf:1: unterminated quoted value");
  expect_error ("name = \"a\\qb\"\n", EBB_EPARSE,
                "t.conf:1: invalid escape \"\\q\" in quoted value");
  expect_error ("name = \"a\" b\n", EBB_EPARSE,
                "t.conf:1: unexpected text after the closing quote");
  expect_error ("name = 12345678901234567\n", EBB_ERANGE,
                "t.conf:1: name: must be at most 16 bytes, got 17");
}

static void
test_lists (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (parse (&c, "listen = a\nlisten = \"b c\"\nlisten = d\n", &err), 0);
  /* the first assignment replaced the default; the others appended */
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (c.listen), 3);
  CU_ASSERT_STRING_EQUAL (c.listen[0], "a");
  CU_ASSERT_STRING_EQUAL (c.listen[1], "b c");
  CU_ASSERT_STRING_EQUAL (c.listen[2], "d");
  CU_ASSERT_PTR_NULL (c.listen[3]);
  ebb_conf_free (table, N, &c);
  CU_ASSERT_EQUAL (parse (&c, "listen = a\nlisten =\nlisten = z\n", &err), 0);
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (c.listen), 1);
  CU_ASSERT_STRING_EQUAL (c.listen[0], "z");
  ebb_conf_free (table, N, &c);
  CU_ASSERT_EQUAL (parse (&c, "listen =\n", &err), 0);
  CU_ASSERT_PTR_NULL (c.listen);
  ebb_conf_free (table, N, &c);
  CU_ASSERT_EQUAL (parse (&c, "name = x\n", &err), 0);
  CU_ASSERT_EQUAL (ebb_strv_length (c.listen), 1); /* untouched: the default stays */
  ebb_conf_free (table, N, &c);
}

static void
test_bad_lines (void)
{
  expect_error ("offset = 1\noffset = 2\n", EBB_EPARSE,
                "t.conf:2: offset: duplicate key (first set on line 1)");
  expect_error ("name = a\n\nnope = 1\n", EBB_EPARSE, "t.conf:3: unknown key \"nope\"");
  expect_error ("Name = a\n", EBB_EPARSE, "t.conf:1: unknown key \"Name\"");
  expect_error ("name\n", EBB_EPARSE, "t.conf:1: missing \"=\" (expected key = value)");
  expect_error ("# ok\nname a\n", EBB_EPARSE, "t.conf:2: missing \"=\" (expected key = value)");
  expect_error (" = 5\n", EBB_EPARSE, "t.conf:1: empty key before \"=\"");
  expect_error ("na me = 5\n", EBB_EPARSE,
                "t.conf:1: invalid key \"na me\" (allowed: A-Z a-z 0-9 _ -)");
  expect_error ("node_id = ../etc\n", EBB_EPARSE,
                "t.conf:1: node_id: must be an id of A-Z a-z 0-9 . _ - (not \".\" or \"..\")");
  expect_error ("state_dir = var/lib\n", EBB_EPARSE,
                "t.conf:1: state_dir: must be an absolute path");
}

static void
test_hostile_bytes (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  /* a NUL in the middle of line 2 */
  static const char nul[] = "name = a\nname2\0 = b\n";
  fresh (&c);
  CU_ASSERT_EQUAL (ebb_conf_parse_text (table, N, &c, "t.conf", nul, sizeof nul - 1, &err),
                   -EBB_EPARSE);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), "t.conf:2: NUL byte");
  ebb_error_free (&err);
  ebb_conf_free (table, N, &c);
  expect_error ("name = \xff\xfe\n", EBB_EPARSE, "t.conf:1: invalid UTF-8");
  expect_error ("# ok\n# \xc0\xaf overlong\n", EBB_EPARSE, "t.conf:2: invalid UTF-8");
  expect_error ("name = \xed\xa0\x80\n", EBB_EPARSE, "t.conf:1: invalid UTF-8"); /* surrogate */
  expect_error ("name = \xe2\x82\n", EBB_EPARSE, "t.conf:1: invalid UTF-8");     /* truncated */
  expect_name ("name = \xc3\xa9t\xc3\xa9\n", "\xc3\xa9t\xc3\xa9");
  expect_name ("name = \xf0\x9f\x98\x80\n", "\xf0\x9f\x98\x80");                     /* U+1F600 */
  expect_error ("name = \xf4\x90\x80\x80\n", EBB_EPARSE, "t.conf:1: invalid UTF-8"); /* >U+10FFFF */
  expect_error ("name = \xf0\x80\x80\x80\n", EBB_EPARSE, "t.conf:1: invalid UTF-8"); /* overlong */
  expect_error ("name = \x80\n", EBB_EPARSE, "t.conf:1: invalid UTF-8");
  /* lone continuation */ /* valid UTF-8 */
  /* a line of exactly the cap is fine, one byte more is not */
  char *big = ebb_xmalloc (EBB_CONF_MAX_LINE + 16);
  memset (big, 'x', EBB_CONF_MAX_LINE + 1);
  big[0] = '#';
  big[EBB_CONF_MAX_LINE] = '\n';
  big[EBB_CONF_MAX_LINE + 1] = '\0';
  CU_ASSERT_EQUAL (parse (&c, big, &err), 0);
  ebb_conf_free (table, N, &c);
  memset (big, 'x', EBB_CONF_MAX_LINE + 1);
  big[0] = '#';
  big[EBB_CONF_MAX_LINE + 1] = '\0';
  char *text = ebb_xasprintf ("name = a\n%s\n", big);
  expect_error (text, EBB_EPARSE, "t.conf:2: line longer than 4096 bytes");
  free (text);
  free (big);
}

static void
test_dropins_order_and_override (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  cleanup_free char *main_path
      = write_text ("agent.conf", "offset = 1\ncount = 5\nlisten = main\n");
  cleanup_free char *dir = ebb_xasprintf ("%s/agent.conf.d", tmpdir);
  CU_ASSERT_FATAL (mkdir (dir, 0755) == 0);
  free (write_text ("agent.conf.d/2-late.conf", "offset = 3\nlisten = late\n"));
  free (write_text ("agent.conf.d/10-early.conf", "offset = 2\nmode = kill\nlisten = early\n"));
  free (write_text ("agent.conf.d/notes.txt", "garbage\n"));
  free (write_text ("agent.conf.d/x.conf.bak", "garbage\n"));
  free (write_text ("agent.conf.d/.hidden.conf", "garbage\n"));
  cleanup_free char *subdir = ebb_xasprintf ("%s/agent.conf.d/dir.conf", tmpdir);
  CU_ASSERT_FATAL (mkdir (subdir, 0755) == 0);
  fresh (&c);
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, main_path, 0, &err), 0);
  if (err)
    fprintf (stderr, "\n  %s\n", err->msg);
  CU_ASSERT_EQUAL (c.offset, 3);               /* "2-late.conf" sorts after "10-early.conf" */
  CU_ASSERT_EQUAL (c.count, 5);                /* from the main file, not overridden */
  CU_ASSERT_EQUAL (c.mode, MODE_KILL);         /* from a drop-in */
  CU_ASSERT_EQUAL (c.interval_usec, 10000000); /* the default */
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (c.listen), 3);
  CU_ASSERT_STRING_EQUAL (c.listen[0], "main");
  CU_ASSERT_STRING_EQUAL (c.listen[1], "early");
  CU_ASSERT_STRING_EQUAL (c.listen[2], "late");
  ebb_conf_free (table, N, &c);

  /* an error in a drop-in names that file and line */
  free (write_text ("agent.conf.d/30-bad.conf", "# bad\ncount = 0\n"));
  fresh (&c);
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, main_path, 0, &err), -EBB_ERANGE);
  cleanup_free char *want = ebb_xasprintf (
      "%s/agent.conf.d/30-bad.conf:2: count: must be an integer in [1, 1000], got \"0\"", tmpdir);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), want);
  ebb_conf_free (table, N, &c);
}

static void
test_missing_files (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  cleanup_free char *missing = ebb_xasprintf ("%s/none.conf", tmpdir);
  fresh (&c);
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, missing, EBB_CONF_OPTIONAL, &err), 0);
  CU_ASSERT_PTR_NULL (err);
  CU_ASSERT_EQUAL (c.count, 10);
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, missing, 0, &err), -ENOENT);
  cleanup_free char *want = ebb_xasprintf ("open %s: No such file or directory", missing);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), want);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, missing, 0, NULL), -ENOENT);

  /* a missing main file with drop-ins: optional still reads them */
  cleanup_free char *dir = ebb_xasprintf ("%s/none.conf.d", tmpdir);
  CU_ASSERT_FATAL (mkdir (dir, 0755) == 0);
  free (write_text ("none.conf.d/a.conf", "count = 7\n"));
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, missing, EBB_CONF_OPTIONAL, &err), 0);
  CU_ASSERT_EQUAL (c.count, 7);

  /* a drop-in "directory" that is a file is no drop-in directory */
  cleanup_free char *flat = write_text ("flat.conf", "count = 8\n");
  free (write_text ("flat.conf.d", "count = 9\n"));
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, flat, 0, &err), 0);
  CU_ASSERT_EQUAL (c.count, 8);

  /* a directory is not a config file, even optional */
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, tmpdir, EBB_CONF_OPTIONAL, &err), -EINVAL);
  cleanup_free char *want2 = ebb_xasprintf ("%s: not a regular file", tmpdir);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), want2);
  ebb_conf_free (table, N, &c);
}

static void
test_too_large_file (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  size_t len = EBB_CONF_MAX_FILE_BYTES + 10;
  char *text = ebb_xmalloc (len);
  for (size_t i = 0; i < len; i++)
    text[i] = (i % 64 == 63) ? '\n' : '#';
  cleanup_free char *path = write_file ("big.conf", text, len);
  free (text);
  fresh (&c);
  CU_ASSERT_EQUAL (ebb_conf_load (table, N, &c, path, 0, &err), -EBB_EPARSE);
  cleanup_free char *want = ebb_xasprintf ("%s: larger than 1048576 bytes", path);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), want);
  ebb_conf_free (table, N, &c);
}

static void
test_set_from_string (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  fresh (&c);
  CU_ASSERT_EQUAL (ebb_conf_set (table, N, &c, "count", "42", "--count", &err), 0);
  CU_ASSERT_EQUAL (c.count, 42);
  CU_ASSERT_EQUAL (ebb_conf_set (table, N, &c, "count", "abc", "--count", &err), -EBB_EPARSE);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err),
                          "--count: must be an integer in [1, 1000], got \"abc\"");
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (c.count, 42); /* a bad value changes nothing */
  CU_ASSERT_EQUAL (ebb_conf_set (table, N, &c, "memory", "8G", NULL, &err), -EBB_ERANGE);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err),
                          "memory: must be a byte size in [4K, 1G], got \"8G\"");
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_conf_set (table, N, &c, "nope", "1", "--nope", &err), -EBB_EPARSE);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), "--nope: unknown setting \"nope\"");
  ebb_error_free (&err);
  /* lists append; "" clears */
  CU_ASSERT_EQUAL (ebb_conf_set (table, N, &c, "listen", "", "--listen", &err), 0);
  CU_ASSERT_EQUAL (ebb_conf_set (table, N, &c, "listen", "x", "--listen", &err), 0);
  CU_ASSERT_EQUAL (ebb_conf_set (table, N, &c, "listen", "y", "--listen", &err), 0);
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (c.listen), 2);
  CU_ASSERT_STRING_EQUAL (c.listen[1], "y");
  CU_ASSERT_EQUAL (ebb_conf_set (table, N, &c, "name", "a # b", NULL, &err), 0);
  CU_ASSERT_STRING_EQUAL (c.name, "a # b"); /* no comment syntax on the command line */
  CU_ASSERT_PTR_NOT_NULL (ebb_conf_find (table, N, "mode"));
  CU_ASSERT_PTR_NULL (ebb_conf_find (table, N, "mod"));
  ebb_conf_free (table, N, &c);
}

static void
test_dump_round_trip (void)
{
  tcfg c, d;
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (parse (&c,
                                "name = \"a \\\"q\\\" #x\"\nenabled = no\noffset = -3\n"
                                "interval = 1500ms\nmemory = 12K\nmode = immediate\n"
                                "listen = p\nlisten = q\nnode_id = n1\nratio = 0.17\n",
                                &err),
                         0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  CU_ASSERT_FATAL (f != NULL);
  CU_ASSERT_EQUAL (ebb_conf_dump (table, N, &c, f, &err), 0);
  fclose (f);
  CU_ASSERT_PTR_NOT_NULL (strstr (buf, "interval = 1500ms\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (buf, "memory = 12K\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (buf, "mode = immediate\n"));
  CU_ASSERT_EQUAL_FATAL (parse (&d, buf, &err), 0);
  if (err)
    fprintf (stderr, "\n%s\n%s\n", buf, err->msg);
  CU_ASSERT_STRING_EQUAL (d.name, "a \"q\" #x");
  CU_ASSERT_EQUAL (d.enabled, c.enabled);
  CU_ASSERT_EQUAL (d.offset, -3);
  CU_ASSERT_EQUAL (d.interval_usec, 1500000);
  CU_ASSERT_EQUAL (d.memory_bytes, 12 * 1024);
  CU_ASSERT_EQUAL (d.mode, MODE_IMMEDIATE);
  CU_ASSERT_EQUAL_FATAL (ebb_strv_length (d.listen), 2);
  CU_ASSERT_STRING_EQUAL (d.listen[1], "q");
  CU_ASSERT_STRING_EQUAL (d.node_id, "n1");
  CU_ASSERT_TRUE (d.ratio == c.ratio); /* exactly: the dump keeps every digit needed */
  CU_ASSERT_PTR_NOT_NULL (strstr (buf, "ratio = 0.17\n"));
  free (buf);
  ebb_conf_free (table, N, &c);
  ebb_conf_free (table, N, &d);

  /* a stream that cannot be written reports an error */
  f = fopen ("/dev/null", "r");
  CU_ASSERT_FATAL (f != NULL);
  CU_ASSERT_TRUE (ebb_conf_dump (table, N, &c, f, &err) < 0);
  CU_ASSERT_PTR_NOT_NULL (err);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_conf_print_help (table, N, f), -EIO);
  fclose (f);

  buf = NULL;
  f = open_memstream (&buf, &len);
  CU_ASSERT_EQUAL (ebb_conf_print_help (table, N, f), 0);
  fclose (f);
  CU_ASSERT_PTR_NOT_NULL (strstr (buf, "interval"));
  CU_ASSERT_PTR_NOT_NULL (strstr (buf, "a name"));
  free (buf);
}

typedef struct
{
  int64_t v;
} small_cfg;

static int
reject_odd (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  (void)s;
  if (*(const int64_t *)value % 2)
    return ebb_error_set (err, EBB_EPARSE, "must be even");
  return 0;
}

static void
test_bad_default_and_validator (void)
{
  static const ebb_conf_setting bad[]
      = { { .name = "v", .type = EBB_CONF_INT64, .offset = 0, .min = 1, .max = 5, .def = "9" } };
  static const ebb_conf_setting even[]
      = { { .name = "v", .type = EBB_CONF_INT64, .offset = 0, .validate = reject_odd } };
  small_cfg s = { 0 };
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_conf_defaults (bad, 1, &s, &err), -EBB_ERANGE);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err),
                          "default of v: must be an integer in [1, 5], got \"9\"");
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_conf_parse_text (even, 1, &s, "e.conf", "v = 4\n", 6, &err), 0);
  CU_ASSERT_EQUAL (s.v, 4);
  CU_ASSERT_EQUAL (ebb_conf_parse_text (even, 1, &s, "e.conf", "v = 3\n", 6, &err), -EBB_EPARSE);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), "e.conf:1: v: must be even");
  CU_ASSERT_EQUAL (s.v, 4);
}

static void
test_double (void)
{
  tcfg c;
  cleanup_error ebb_error *err = NULL;
  fresh (&c);
  CU_ASSERT_DOUBLE_EQUAL (c.ratio, 0.17, 1e-12);
  ebb_conf_free (table, N, &c);
  CU_ASSERT_EQUAL (parse (&c, "ratio = 1e-3\n", &err), 0);
  CU_ASSERT_DOUBLE_EQUAL (c.ratio, 0.001, 1e-15);
  ebb_conf_free (table, N, &c);
  CU_ASSERT_EQUAL (parse (&c, "ratio = 1\n", &err), 0);
  CU_ASSERT_DOUBLE_EQUAL (c.ratio, 1.0, 1e-15);
  ebb_conf_free (table, N, &c);
  expect_error ("ratio = 1.5\n", EBB_ERANGE,
                "t.conf:1: ratio: must be a number in [0, 1], got \"1.5\"");
  expect_error ("ratio = -0.1\n", EBB_ERANGE,
                "t.conf:1: ratio: must be a number in [0, 1], got \"-0.1\"");
  expect_error ("ratio = abc\n", EBB_EPARSE,
                "t.conf:1: ratio: must be a number in [0, 1], got \"abc\"");
  expect_error ("ratio = nan\n", EBB_EPARSE,
                "t.conf:1: ratio: must be a number in [0, 1], got \"nan\"");
  expect_error ("ratio = 0x1p-2\n", EBB_EPARSE,
                "t.conf:1: ratio: must be a number in [0, 1], got \"0x1p-2\"");
  expect_error ("ratio = 0.5.5\n", EBB_EPARSE,
                "t.conf:1: ratio: must be a number in [0, 1], got \"0.5.5\"");
  expect_error ("ratio = 1e999\n", EBB_ERANGE,
                "t.conf:1: ratio: must be a number in [0, 1], got \"1e999\"");
}

/* Random lines over the syntax's own characters: every outcome is a success or an error
 * naming "t.conf:LINE:" with a parse or range code; ASan/UBSan/LSan watch the rest. */
static void
test_random_input (void)
{
  static const char alphabet[] = "= #\"\\\n\tnamecountlistenmode0129-.KMG\xc3\xa9\xff";
  static const char *const keys[] = { "name", "count", "listen", "mode", "memory", "ratio" };
  ebb_rng rng;
  ebb_rng_seed (&rng, 42);
  unsigned ok = 0, failed = 0;
  for (int round = 0; round < 3000; round++)
    {
      char text[256];
      size_t len = 0;
      if (round % 2)
        len = (size_t)snprintf (text, sizeof text,
                                "%s = ", keys[ebb_rng_below (&rng, EBB_ARRAY_SIZE (keys))]);
      size_t extra = ebb_rng_below (&rng, 64);
      for (size_t i = 0; i < extra && len < sizeof text - 1; i++)
        text[len++] = alphabet[ebb_rng_below (&rng, sizeof alphabet - 1)];
      text[len] = '\0';
      tcfg c;
      cleanup_error ebb_error *err = NULL;
      fresh (&c);
      int r = ebb_conf_parse_text (table, N, &c, "t.conf", text, len, &err);
      if (r == 0)
        ok++;
      else
        {
          failed++;
          CU_ASSERT_TRUE (r == -EBB_EPARSE || r == -EBB_ERANGE);
          CU_ASSERT_EQUAL (strncmp (ebb_error_msg (&err), "t.conf:", 7), 0);
        }
      ebb_conf_free (table, N, &c);
    }
  CU_ASSERT_TRUE (ok > 100); /* the generator reaches both outcomes */
  CU_ASSERT_TRUE (failed > 100);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_random_input),
  EBB_CU_TEST (test_double),
  EBB_CU_TEST (test_defaults),
  EBB_CU_TEST (test_every_type),
  EBB_CU_TEST (test_bool_spellings),
  EBB_CU_TEST (test_int_bounds),
  EBB_CU_TEST (test_duration_and_bytes),
  EBB_CU_TEST (test_parse_bytes),
  EBB_CU_TEST (test_enum),
  EBB_CU_TEST (test_comments_and_quotes),
  EBB_CU_TEST (test_lists),
  EBB_CU_TEST (test_bad_lines),
  EBB_CU_TEST (test_hostile_bytes),
  EBB_CU_TEST (test_dropins_order_and_override),
  EBB_CU_TEST (test_missing_files),
  EBB_CU_TEST (test_too_large_file),
  EBB_CU_TEST (test_set_from_string),
  EBB_CU_TEST (test_dump_round_trip),
  EBB_CU_TEST (test_bad_default_and_validator),
};

EBB_CU_MAIN ("config", init, clean, tests)
