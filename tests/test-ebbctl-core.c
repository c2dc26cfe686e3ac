/* ebbctl's pure parts: global and command option parsing, addresses, sizes, the submit body,
 * tables, the progress bar, durations, that every option of the tables is in --help, and how
 * the one-request commands check their argument and print their answers. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/ebbctl.h"
#include "cli/follow.h"
#include "lib/util.h"
#include "tests/cu.h"

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

static int
argc_of (char **argv)
{
  int n = 0;
  while (argv[n])
    n++;
  return n;
}

static char *
capture (void (*fn) (FILE *, void *), void *data)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  fn (f, data);
  fclose (f);
  return buf;
}

static void
test_normalize_url (void)
{
  cleanup_error ebb_error *err = NULL;
  struct
  {
    const char *in, *out;
  } good[] = { { "127.0.0.1:7480", "http://127.0.0.1:7480" },
               { "localhost:1", "http://localhost:1" },
               { "[::1]:7480", "http://[::1]:7480" },
               { "http://h:5", "http://h:5" },
               { "https://h:5", "https://h:5" },
               { "unix:/run/ebb/controller.sock", "unix:/run/ebb/controller.sock" } };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (good); i++)
    {
      cleanup_free char *u = ebbctl_normalize_url (good[i].in, &err);
      CU_ASSERT_PTR_NOT_NULL_FATAL (u);
      CU_ASSERT_STRING_EQUAL (u, good[i].out);
    }
  const char *bad[] = { "",     "unix:",   "unix:relative", "https://", "ftp://x",
                        "host", "host:",   "host:12a",      "::1:80",   "[::1:80",
                        "h :1", "http://", "http:///x" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      char *u = ebbctl_normalize_url (bad[i], &err);
      if (u)
        fprintf (stderr, "accepted '%s'\n", bad[i]);
      CU_ASSERT_PTR_NULL (u);
      CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
      ebb_error_free (&err);
      free (u);
    }
}

static void
test_global (void)
{
  cleanup_error ebb_error *err = NULL;
  unsetenv ("EBB_AGENT");
  setenv ("EBB_CONTROLLER", "10.0.0.1:99", 1);
  ebbctl_ctx ctx = { 0 };
  char **a = ARGV ("ebbctl", "--json", "--agent", "unix:/a.sock", "--token-file", "/t", "jobs",
                   "--json");
  CU_ASSERT_EQUAL (ebbctl_parse_global (&ctx, 8, a, &err), 6);
  CU_ASSERT (ctx.json);
  CU_ASSERT_STRING_EQUAL (ctx.agent, "unix:/a.sock");
  CU_ASSERT_STRING_EQUAL (ctx.token_file, "/t");
  CU_ASSERT_STRING_EQUAL (ctx.controller, "http://10.0.0.1:99"); /* from EBB_CONTROLLER */
  ebbctl_ctx_clear (&ctx);

  ctx = (ebbctl_ctx){ 0 };
  char **b = ARGV ("ebbctl", "--controller=h:1", "status");
  CU_ASSERT_EQUAL (ebbctl_parse_global (&ctx, 3, b, &err), 2);
  CU_ASSERT_STRING_EQUAL (ctx.controller, "http://h:1"); /* the option wins over the env */
  ebbctl_ctx_clear (&ctx);

  const char *bad[][3] = { { "ebbctl", "--controller", "nope" },
                           { "ebbctl", "--bogus", "status" },
                           { "ebbctl", "--token-file", "" },
                           { "ebbctl", "status", "--agent" } };
  for (size_t i = 0; i < 3; i++)
    {
      ctx = (ebbctl_ctx){ 0 };
      CU_ASSERT_EQUAL (ebbctl_parse_global (&ctx, 3, (char **)bad[i], &err), -EINVAL);
      CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
      ebb_error_free (&err);
      ebbctl_ctx_clear (&ctx);
    }
  /* Options after the command are the command's: global parsing stops at "status". */
  ctx = (ebbctl_ctx){ 0 };
  CU_ASSERT_EQUAL (ebbctl_parse_global (&ctx, 3, (char **)bad[3], &err), 1);
  ebbctl_ctx_clear (&ctx);

  setenv ("EBB_CONTROLLER", "bad address", 1);
  ctx = (ebbctl_ctx){ 0 };
  CU_ASSERT (ebbctl_parse_global (&ctx, 2, ARGV ("ebbctl", "status"), &err) < 0);
  ebb_error_free (&err);
  ebbctl_ctx_clear (&ctx);
  unsetenv ("EBB_CONTROLLER");

  char *buf = NULL;
  size_t len = 0;
  ctx = (ebbctl_ctx){ .out = open_memstream (&buf, &len) };
  CU_ASSERT_EQUAL (ebbctl_parse_global (&ctx, 2, ARGV ("ebbctl", "--help"), &err), -1);
  fclose (ctx.out);
  CU_ASSERT_PTR_NOT_NULL (strstr (buf, "--controller URL"));
  free (buf);
  ebbctl_ctx_clear (&ctx);
}

static void
test_sizes_and_numbers (void)
{
  cleanup_error ebb_error *err = NULL;
  uint64_t v = 0;
  CU_ASSERT_EQUAL (ebbctl_parse_size ("--memory", "512M", &v, &err), 0);
  CU_ASSERT_EQUAL (v, 512ULL << 20);
  CU_ASSERT_EQUAL (ebbctl_parse_size ("--memory", "1GiB", &v, &err), 0);
  CU_ASSERT_EQUAL (v, 1ULL << 30);
  CU_ASSERT_EQUAL (ebbctl_parse_size ("--memory", "4096", &v, &err), 0);
  CU_ASSERT_EQUAL (v, 4096);
  const char *bad[] = { "", "0", "-1", "12X", "1.5G", "2P", "99999999999999999999", "M", " 1M" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      CU_ASSERT_EQUAL (ebbctl_parse_size ("--memory", bad[i], &v, &err), -EINVAL);
      CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "--memory"));
      ebb_error_free (&err);
    }
  CU_ASSERT_EQUAL (ebbctl_parse_uint ("--tasks", "7", 1, 10, &v, &err), 0);
  CU_ASSERT_EQUAL (v, 7);
  const char *badn[] = { "0", "11", "-3", "+3", "3x", "", "18446744073709551616" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (badn); i++)
    {
      CU_ASSERT_EQUAL (ebbctl_parse_uint ("--tasks", badn[i], 1, 10, &v, &err), -EINVAL);
      ebb_error_free (&err);
    }
  CU_ASSERT_EQUAL (ebbctl_check_id ("job id", "j-1.x_2", &err), 0);
  CU_ASSERT (ebbctl_check_id ("job id", "../x", &err) < 0);
  ebb_error_free (&err);
  CU_ASSERT (ebbctl_check_id ("job id", "a b", &err) < 0);
}

static void
test_submit_parse (void)
{
  cleanup_error ebb_error *err = NULL;
  const ebbctl_cmd *cmd = ebbctl_command_find ("submit");
  CU_ASSERT_PTR_NOT_NULL_FATAL (cmd);
  ebbctl_submit_args a;
  char **argv = ARGV ("submit", "--name", "burn", "--class", "long", "--tasks", "3", "--cpu", "500",
                      "--memory", "64M", "--est", "2.5", "--wait", "--", "sh", "-c", "echo --name");
  CU_ASSERT_EQUAL_FATAL (ebbctl_submit_parse (cmd, argc_of (argv), argv, &a, NULL, &err), 0);
  CU_ASSERT_STRING_EQUAL (a.name, "burn");
  CU_ASSERT_STRING_EQUAL (a.klass, "long");
  CU_ASSERT_EQUAL (a.tasks, 3);
  CU_ASSERT_EQUAL (a.cpu_millis, 500);
  CU_ASSERT_EQUAL (a.memory_bytes, 64 << 20);
  CU_ASSERT_DOUBLE_EQUAL (a.est_sec, 2.5, 1e-9);
  CU_ASSERT (a.wait);
  CU_ASSERT_STRING_EQUAL (a.argv[0], "sh");
  CU_ASSERT_STRING_EQUAL (a.argv[2], "echo --name"); /* the task's argv is never ours */

  json_object *body = ebbctl_submit_body (&a, "rid-1");
  const char *s = json_object_to_json_string_ext (body, JSON_C_TO_STRING_PLAIN
                                                            | JSON_C_TO_STRING_NOSLASHESCAPE);
  CU_ASSERT_STRING_EQUAL (
      s, "{\"name\":\"burn\",\"class\":\"long\",\"est_task_sec\":2.5,\"request_id\":\"rid-1\","
         "\"tasks\":[{\"argv\":[\"sh\",\"-c\",\"echo --name\"],\"cpu_millis\":500,"
         "\"memory_bytes\":67108864},{\"argv\":[\"sh\",\"-c\",\"echo --name\"],\"cpu_millis\":"
         "500,\"memory_bytes\":67108864},{\"argv\":[\"sh\",\"-c\",\"echo --name\"],"
         "\"cpu_millis\":500,\"memory_bytes\":67108864}]}");
  json_object_put (body);

  /* Defaults, and the name from the program's base name. */
  char **d = ARGV ("submit", "--", "/usr/bin/sleep", "1");
  CU_ASSERT_EQUAL_FATAL (ebbctl_submit_parse (cmd, 4, d, &a, NULL, &err), 0);
  CU_ASSERT_STRING_EQUAL (a.name, "sleep");
  CU_ASSERT_STRING_EQUAL (a.klass, "auto");
  CU_ASSERT_EQUAL (a.tasks, 1);
  CU_ASSERT_EQUAL (a.cpu_millis, 1000);
  CU_ASSERT_EQUAL (a.memory_bytes, 256 << 20);
  CU_ASSERT (a.est_sec < 0 && !a.wait);
  body = ebbctl_submit_body (&a, NULL);
  json_object *v = NULL;
  CU_ASSERT (!json_object_object_get_ex (body, "est_task_sec", &v));
  CU_ASSERT (!json_object_object_get_ex (body, "request_id", &v));
  json_object_put (body);

  /* --json FILE: no program needed; --wait still allowed. */
  char **j = ARGV ("submit", "--wait", "--json", "-");
  CU_ASSERT_EQUAL_FATAL (ebbctl_submit_parse (cmd, 4, j, &a, NULL, &err), 0);
  CU_ASSERT (a.wait && a.json_file && strcmp (a.json_file, "-") == 0 && !a.argv);

  char **bad[] = {
    ARGV ("submit", "sleep", "1"),                   /* no "--" */
    ARGV ("submit", "--tasks", "3"),                 /* no program */
    ARGV ("submit", "--", ""),                       /* empty program */
    ARGV ("submit", "--class", "medium", "--", "x"), /* bad class */
    ARGV ("submit", "--tasks", "0", "--", "x"),      /* zero tasks */
    ARGV ("submit", "--tasks", "10001", "--", "x"),  /* too many */
    ARGV ("submit", "--cpu", "1.5", "--", "x"),      /* not an integer */
    ARGV ("submit", "--memory", "lots", "--", "x"),  /* not a size */
    ARGV ("submit", "--est", "-1", "--", "x"),       /* negative estimate */
    ARGV ("submit", "--est", "nan", "--", "x"),      /* not finite */
    ARGV ("submit", "--name", "a/b", "--", "x"),     /* name not an id */
    ARGV ("submit", "--bogus", "--", "x"),           /* unknown option */
    ARGV ("submit", "--name"),                       /* missing value */
    ARGV ("submit", "--json", "f", "--", "x"),       /* --json with a program */
    ARGV ("submit", "--json", "f", "x"),             /* --json with an argument */
    ARGV ("submit", "--json", "f", "--"),            /* --json then "--" */
    ARGV ("submit", "--tasks", "2", "--json", "f"),  /* --json with a body option */
    ARGV ("submit", "--json", "f", "--name", "n"),   /* the same, after it */
    ARGV ("submit", "--json", ""),                   /* empty file name */
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      int n = 0;
      while (bad[i][n])
        n++;
      CU_ASSERT_EQUAL (ebbctl_submit_parse (cmd, n, bad[i], &a, NULL, &err), -EINVAL);
      CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
      ebb_error_free (&err);
    }
}

/* submit --priority, --time-limit, --notify-signal (issue 23): into the body's job members,
 * and only when given. */
static void
test_submit_tiers (void)
{
  cleanup_error ebb_error *err = NULL;
  const ebbctl_cmd *cmd = ebbctl_command_find ("submit");
  CU_ASSERT_PTR_NOT_NULL_FATAL (cmd);
  ebbctl_submit_args a;
  char **argv = ARGV ("submit", "--priority", "-2", "--time-limit", "2h", "--notify-signal",
                      "SIGUSR1", "--", "true");
  CU_ASSERT_EQUAL_FATAL (ebbctl_submit_parse (cmd, argc_of (argv), argv, &a, NULL, &err), 0);
  CU_ASSERT_EQUAL (a.priority, -2);
  CU_ASSERT_EQUAL (a.time_limit_sec, 7200);
  json_object *body = ebbctl_submit_body (&a, NULL), *v = NULL;
  CU_ASSERT (json_object_object_get_ex (body, "priority", &v) && json_object_get_int64 (v) == -2);
  CU_ASSERT (json_object_object_get_ex (body, "time_limit_sec", &v)
             && json_object_get_int64 (v) == 7200);
  CU_ASSERT (json_object_object_get_ex (body, "notify_signal", &v)
             && strcmp (json_object_get_string (v), "SIGUSR1") == 0);
  json_object_put (body);
  char **plain = ARGV ("submit", "--time-limit", "90", "--", "true");
  CU_ASSERT_EQUAL_FATAL (ebbctl_submit_parse (cmd, argc_of (plain), plain, &a, NULL, &err), 0);
  CU_ASSERT_EQUAL (a.time_limit_sec, 90); /* a bare number is seconds */
  body = ebbctl_submit_body (&a, NULL);
  CU_ASSERT_FALSE (json_object_object_get_ex (body, "priority", NULL));
  CU_ASSERT_FALSE (json_object_object_get_ex (body, "notify_signal", NULL));
  json_object_put (body);
  char **bad[] = {
    ARGV ("submit", "--priority", "1.5", "--", "true"),
    ARGV ("submit", "--priority", "2000000", "--", "true"),
    ARGV ("submit", "--time-limit", "500ms", "--", "true"),
    ARGV ("submit", "--time-limit", "soon", "--", "true"),
    ARGV ("submit", "--notify-signal", "", "--", "true"),
    ARGV ("submit", "--priority", "1", "--json", "f"),
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      CU_ASSERT_EQUAL (ebbctl_submit_parse (cmd, argc_of (bad[i]), bad[i], &a, NULL, &err),
                       -EINVAL);
      ebb_error_free (&err);
    }
}

/* Writes text to a fresh temporary file; returns its name (freed by the caller). */
static char *
write_tmp (const char *text)
{
  char *name = ebb_xstrdup ("/tmp/ebbctl-core.XXXXXX");
  int fd = mkstemp (name);
  CU_ASSERT_FATAL (fd >= 0);
  CU_ASSERT_FATAL (write (fd, text, strlen (text)) == (ssize_t)strlen (text));
  close (fd);
  return name;
}

/* submit --json FILE: one JSON object, anything else refused as a usage error (EINVAL). */
static void
test_submit_read_json (void)
{
  cleanup_error ebb_error *err = NULL;
  cleanup_free char *ok = write_tmp ("{\"name\":\"d\",\"deps\":[[0,1]],\"tasks\":[]}\n");
  json_object *o = ebbctl_submit_read_json (ok, &err);
  CU_ASSERT_FATAL (o != NULL);
  json_object *v = NULL;
  CU_ASSERT (json_object_object_get_ex (o, "deps", &v) && json_object_array_length (v) == 1);
  json_object_put (o);
  const char *bad_texts[] = { "[1,2]", "42", "{\"a\":", "", "{\"a\":1,\"a\":2}" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad_texts); i++)
    {
      cleanup_free char *f = write_tmp (bad_texts[i]);
      CU_ASSERT (ebbctl_submit_read_json (f, &err) == NULL);
      CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
      ebb_error_free (&err);
      unlink (f);
    }
  unlink (ok);
  CU_ASSERT (ebbctl_submit_read_json (ok, &err) == NULL); /* gone: cannot open */
  CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
  CU_ASSERT (err && strstr (ebb_error_msg (&err), "cannot open") != NULL);
}

static void
test_adopt_parse (void)
{
  cleanup_error ebb_error *err = NULL;
  const ebbctl_cmd *cmd = ebbctl_command_find ("adopt");
  CU_ASSERT_PTR_NOT_NULL_FATAL (cmd);
  ebbctl_adopt_args a;
  char **argv = ARGV ("adopt", "--container", "web", "--runtime", "podman", "--cpu", "500", "a1");
  CU_ASSERT_EQUAL_FATAL (ebbctl_adopt_parse (cmd, argc_of (argv), argv, &a, NULL, &err), 0);
  CU_ASSERT_STRING_EQUAL (a.name, "web");
  CU_ASSERT_STRING_EQUAL (a.klass, "long");
  json_object *body = ebbctl_adopt_body (&a, "rid-2");
  const char *s = json_object_to_json_string_ext (body, JSON_C_TO_STRING_PLAIN
                                                            | JSON_C_TO_STRING_NOSLASHESCAPE);
  CU_ASSERT_STRING_EQUAL (s, "{\"name\":\"web\",\"class\":\"long\",\"request_id\":\"rid-2\","
                             "\"tasks\":[{\"adopt\":{\"node\":\"a1\",\"container\":\"web\","
                             "\"runtime\":\"podman\"},\"cpu_millis\":500}]}");
  json_object_put (body);
  char **cg = ARGV ("adopt", "--class", "short", "a2", "--cgroup", "/ebb/batch-7");
  CU_ASSERT_EQUAL_FATAL (ebbctl_adopt_parse (cmd, argc_of (cg), cg, &a, NULL, &err), 0);
  CU_ASSERT_STRING_EQUAL (a.name, "batch-7");
  CU_ASSERT_STRING_EQUAL (a.node, "a2");
  CU_ASSERT_STRING_EQUAL (a.cgroup, "/ebb/batch-7");
  char **bad[] = {
    ARGV ("adopt", "a1"),                                          /* nothing to adopt */
    ARGV ("adopt", "--container", "c", "--cgroup", "/x", "a1"),    /* both */
    ARGV ("adopt", "--container", "c"),                            /* no node */
    ARGV ("adopt", "--container", "c", "a1", "a2"),                /* two nodes */
    ARGV ("adopt", "--cgroup", "/x", "--runtime", "docker", "a1"), /* runtime of a cgroup */
    ARGV ("adopt", "--container", "c", "--runtime", "lxc", "a1"),  /* bad runtime */
    ARGV ("adopt", "--cgroup", "rel", "a1"),                       /* relative path */
    ARGV ("adopt", "--container", "c", "--class", "auto", "a1"),   /* auto: not here */
    ARGV ("adopt", "--container", "a/b", "a1"),                    /* not a name */
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      CU_ASSERT_EQUAL (ebbctl_adopt_parse (cmd, argc_of (bad[i]), bad[i], &a, NULL, &err), -EINVAL);
      CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
      ebb_error_free (&err);
    }
}

static void
test_table (void)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  ebbctl_table t;
  ebbctl_table_init (&t, 3, (const char *const[]){ "ID", "STATE", "NODE" });
  ebbctl_table_add (&t, (const char *const[]){ "1", "running", "node-a" });
  ebbctl_table_add (&t, (const char *const[]){ "1234", NULL, "n\033[2Jx" });
  ebbctl_table_print (&t, f);
  ebbctl_table_clear (&t);
  fclose (f);
  CU_ASSERT_STRING_EQUAL (buf, "ID    STATE    NODE\n"
                               "1     running  node-a\n"
                               "1234  -        n?[2Jx\n");
  free (buf);
}

static void
letter_row (ebbctl_table *t, json_object *item, size_t i)
{
  char n[32];
  snprintf (n, sizeof n, "%zu", i);
  const char *row[] = { n, json_object_get_string (item) };
  ebbctl_table_add (t, row);
}

static void
test_table_print_list (void)
{
  char *buf = NULL;
  size_t len = 0;
  ebbctl_ctx ctx = { .out = open_memstream (&buf, &len) };
  json_object *list = json_tokener_parse ("[\"a\", \"bcd\"]");
  ebbctl_table_print_list (&ctx, (const char *const[]){ "N", "LETTERS" }, 2, list, letter_row);
  json_object *empty = json_object_new_array ();
  ebbctl_table_print_list (&ctx, (const char *const[]){ "N", "LETTERS" }, 2, empty, letter_row);
  fclose (ctx.out);
  CU_ASSERT_STRING_EQUAL (buf, "N  LETTERS\n"
                               "0  a\n"
                               "1  bcd\n"
                               "N  LETTERS\n");
  json_object_put (list);
  json_object_put (empty);
  free (buf);
}

/* Runs printer on the JSON text answer for req and arg; returns what it printed, *rc its code. */
static char *
print_answer (int (*printer) (ebbctl_ctx *, const ebbctl_request *, const char *, json_object *),
              const ebbctl_request *req, const char *arg, const char *answer, int *rc)
{
  char *buf = NULL;
  size_t len = 0;
  ebbctl_ctx ctx = { .out = open_memstream (&buf, &len) };
  json_object *o = json_tokener_parse (answer);
  *rc = printer (&ctx, req, arg, o);
  fclose (ctx.out);
  json_object_put (o);
  return buf;
}

/* print_answer, and its text must be want. */
static void
expect_answer (int (*printer) (ebbctl_ctx *, const ebbctl_request *, const char *, json_object *),
               const ebbctl_request *req, const char *arg, const char *answer, const char *want)
{
  int rc = -1;
  char *s = print_answer (printer, req, arg, answer, &rc);
  CU_ASSERT_STRING_EQUAL (s, want);
  CU_ASSERT_EQUAL (rc, EBBCTL_EXIT_OK);
  free (s);
}

static void
test_answers (void)
{
  int rc = -1;
  const ebbctl_request kill = { .method = "DELETE", .path = "/v1/jobs", .fallback = "killed" };
  char *s = print_answer (ebbctl_print_answer_state, &kill, "7", "{\"state\":\"killing\"}", &rc);
  CU_ASSERT_STRING_EQUAL (s, "7: killing\n");
  CU_ASSERT_EQUAL (rc, EBBCTL_EXIT_OK);
  free (s);
  s = print_answer (ebbctl_print_answer_state, &kill, "7", "{}", &rc);
  CU_ASSERT_STRING_EQUAL (s, "7: killed\n");
  free (s);
  const ebbctl_request resume = { .method = "POST", .path = "/v1/tasks", .tail = "resume" };
  s = print_answer (ebbctl_print_answer_state, &resume, "t1", "{\"state\":\"run\\u001b\"}", &rc);
  CU_ASSERT_STRING_EQUAL (s, "t1: run?\n");
  free (s);
  s = print_answer (ebbctl_print_answer_state, &resume, "t1", "{}", &rc);
  CU_ASSERT_STRING_EQUAL (s, "t1: -\n");
  free (s);

  const ebbctl_request tasks = { .list = "tasks", .table = ebbctl_tasks_table };
  s = print_answer (ebbctl_print_answer_list, &tasks, NULL,
                    "{\"tasks\":[{\"id\":\"t1\",\"job\":\"j\",\"class\":\"long\","
                    "\"state\":\"running\",\"pid\":42,\"limits\":{\"cpu_millis\":500,"
                    "\"memory_bytes\":1048576},\"usage\":{\"cpu_usec\":1500000}}]}",
                    &rc);
  CU_ASSERT_STRING_EQUAL (s, "ID  JOB  CLASS  STATE    PID  CPU(m)  MEMORY  CPU USED\n"
                             "t1  j    long   running  42   500     1M      1.5s\n");
  CU_ASSERT_EQUAL (rc, EBBCTL_EXIT_OK);
  free (s);
  /* A suspended task: what the agent applied, then its own limits in parentheses. */
  s = print_answer (ebbctl_print_answer_list, &tasks, NULL,
                    "{\"tasks\":[{\"id\":\"t2\",\"job\":\"j\",\"class\":\"long\","
                    "\"state\":\"suspended\",\"pid\":43,\"limits\":{\"cpu_millis\":1000,"
                    "\"memory_bytes\":268435456},\"applied\":{\"cpu_max\":\"1000 100000\","
                    "\"memory_high\":null,\"memory_max\":67108864}},"
                    "{\"id\":\"t3\",\"job\":\"j\",\"class\":\"long\",\"state\":\"running\","
                    "\"pid\":44,\"limits\":{\"cpu_millis\":500,\"memory_bytes\":1048576},"
                    "\"applied\":{\"cpu_max\":\"50000 100000\",\"memory_max\":1048576}}]}",
                    &rc);
  CU_ASSERT_STRING_EQUAL (s, "ID  JOB  CLASS  STATE      PID  CPU(m)     MEMORY      CPU USED\n"
                             "t2  j    long   suspended  43   10 (1000)  64M (256M)  -\n"
                             "t3  j    long   running    44   500        1M          -\n");
  free (s);
  s = print_answer (ebbctl_print_answer_list, &tasks, NULL, "{\"jobs\":[]}", &rc);
  CU_ASSERT_STRING_EQUAL (s, "");
  CU_ASSERT_EQUAL (rc, EBBCTL_EXIT_FAILURE);
  free (s);

  s = print_answer (ebbctl_print_answer_job, &kill, "3",
                    "{\"id\":3,\"tasks\":[{\"state\":\"queued\",\"node\":\"n1\"}]}", &rc);
  CU_ASSERT_STRING_EQUAL (s, "Job:          3\n"
                             "Name:         -\n"
                             "Class:        -\n"
                             "State:        -\n"
                             "Submitted:    -\n"
                             "Tasks:        1: 1 queued\n\n"
                             "TASK  STATE   NODE  AGENT-TASK  EXIT  SUSPENSIONS  RUNTIME\n"
                             "0     queued  n1    -           -     -            -\n");
  free (s);
  /* kill: the state before, then after; kills sent, not yet confirmed by the agents; a
   * job that had ended. */
  ebbctl_request kill_before = kill;
  kill_before.data = "running";
  expect_answer (ebbctl_print_answer_state, &kill_before, "7", "{\"state\":\"killed\"}",
                 "7: running -> killed\n");
  expect_answer (ebbctl_print_answer_state, &kill_before, "7", "{\"state\":\"running\"}",
                 "7: running -> killing\n");
  kill_before.data = "done";
  expect_answer (ebbctl_print_answer_state, &kill_before, "7", "{\"state\":\"done\"}",
                 "7: done (had ended: nothing to kill)\n");
}

/* A REASON column when a job or task says why it waits or failed (issue 22: "squeue
 * prints (Resources)"), none otherwise. */
static void
test_reasons (void)
{
  const ebbctl_request jobs = { .list = "jobs", .table = ebbctl_jobs_table };
  expect_answer (ebbctl_print_answer_list, &jobs, NULL,
                 "{\"jobs\":[{\"id\":4,\"name\":\"q\",\"class\":\"short\",\"state\":"
                 "\"queued\",\"reason\":{\"code\":\"no_room\",\"message\":\"no room\"}},"
                 "{\"id\":5,\"name\":\"r\",\"class\":\"long\",\"state\":\"running\"}]}",
                 "ID  NAME  CLASS  STATE    TASKS  WAITED  RUNTIME  REASON\n"
                 "4   q     short  queued   -      -       -        no room\n"
                 "5   r     long   running  -      -       -        -\n");
  const ebbctl_request job = { .method = "GET" };
  expect_answer (ebbctl_print_answer_job, &job, "6",
                 "{\"id\":6,\"state\":\"failed\",\"tasks\":[{\"id\":\"6-0\",\"state\":"
                 "\"failed\",\"reason\":{\"code\":\"launch_failed\",\"message\":\"argv[0] "
                 "/nonexistent: No such file or directory\"}}]}",
                 "Job:          6\n"
                 "Name:         -\n"
                 "Class:        -\n"
                 "State:        failed\n"
                 "Submitted:    -\n"
                 "Tasks:        1: 1 failed\n\n"
                 "TASK  STATE   NODE  AGENT-TASK  EXIT  SUSPENSIONS  RUNTIME  REASON\n"
                 "6-0   failed  -     -           -     -            -        argv[0] "
                 "/nonexistent: No such file or directory\n");
}

/* ebbctl history's filter: finished jobs only, of --state, ended within --since. */
static void
test_history_filter (void)
{
  cleanup_error ebb_error *err = NULL;
  ebbctl_history_filter f = { 0 };
  json_object *done = json_tokener_parse ("{\"state\":\"done\",\"finished_at\":1000}");
  json_object *failed = json_tokener_parse ("{\"state\":\"failed\",\"finished_at\":3500}");
  json_object *running = json_tokener_parse ("{\"state\":\"running\"}");
  CU_ASSERT (ebbctl_history_match (&f, done, 4000));
  CU_ASSERT (ebbctl_history_match (&f, failed, 4000));
  CU_ASSERT_FALSE (ebbctl_history_match (&f, running, 4000));
  CU_ASSERT_EQUAL (ebbctl_history_opt (EBBCTL_O_SINCE, "1h", &f, &err), 0);
  CU_ASSERT_DOUBLE_EQUAL (f.since_sec, 3600, 1e-9);
  CU_ASSERT_FALSE (ebbctl_history_match (&f, done, 5000)); /* ended 4000 s ago */
  CU_ASSERT (ebbctl_history_match (&f, failed, 5000));
  CU_ASSERT_EQUAL (ebbctl_history_opt (EBBCTL_O_STATE, "done", &f, &err), 0);
  CU_ASSERT_FALSE (ebbctl_history_match (&f, failed, 5000));
  CU_ASSERT_EQUAL (ebbctl_history_opt (EBBCTL_O_STATE, "running", &f, &err), -EINVAL);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebbctl_history_opt (EBBCTL_O_SINCE, "soon", &f, &err), -EINVAL);
  json_object_put (done);
  json_object_put (failed);
  json_object_put (running);
}

/* ebbctl job shows the tier, who submitted the job and its suspended time (issue 23). */
static void
test_describe_tiers (void)
{
  const ebbctl_request job = { .method = "GET" };
  expect_answer (ebbctl_print_answer_job, &job, "7",
                 "{\"id\":7,\"name\":\"p\",\"class\":\"long\",\"priority\":2,"
                 "\"submitted_by\":\"uid=1000\",\"state\":\"running\",\"suspensions\":3,"
                 "\"suspended_seconds\":75.5,\"ntasks\":1,\"task_states\":{\"running\":1}}",
                 "Job:          7\n"
                 "Name:         p\n"
                 "Class:        long\n"
                 "Priority:     2\n"
                 "Submitted by: uid=1000\n"
                 "State:        running\n"
                 "Submitted:    -\n"
                 "Suspended:    1m15s in 3 suspensions\n"
                 "Tasks:        1: 1 running\n");
}

/* status, node and job are summaries (kubectl describe), not "a.b: value" dumps; status
 * has no slots (meaningless for the resource policies); a job says why it waits. */
static void
test_describe (void)
{
  int rc = -1;
  const ebbctl_request req = { .method = "GET", .path = "/v1/cluster" };
  char *s = print_answer (
      ebbctl_print_answer_status, &req, NULL,
      "{\"policy\":\"peacock\",\"nodes\":{\"total\":3,\"ready\":2,\"draining\":1,\"lost\":0},"
      "\"capacity\":{\"cpu_millis\":6000,\"memory_bytes\":12884901888},"
      "\"allocated\":{\"cpu_millis\":1500,\"memory_bytes\":1073741824},"
      "\"queued_jobs\":{\"short\":1,\"long\":2,\"auto\":0},\"jobs\":9,\"jobs_in_memory\":4,"
      "\"running_tasks\":5,\"suspended_tasks\":1,\"preemptions\":7,\"slots\":6,"
      "\"decisions\":12}",
      &rc);
  CU_ASSERT_EQUAL (rc, EBBCTL_EXIT_OK);
  CU_ASSERT_PTR_NULL (strstr (s, "slots"));
  CU_ASSERT_PTR_NULL (strstr (s, "capacity.cpu_millis"));
  CU_ASSERT_PTR_NOT_NULL (strstr (s, "Policy:       peacock\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (s, "Nodes:        3: 2 ready, 1 draining, 0 lost\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (s, "CPU:          1500m of 6000m allocated (25%)\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (s, "Memory:       1G of 12G allocated (8%)\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (s, "Queued jobs:  1 short, 2 long, 0 auto\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (s, "Tasks:        5 running, 1 suspended\n"));
  free (s);
  s = print_answer (ebbctl_print_answer_node, &req, "n1",
                    "{\"name\":\"n1\",\"state\":\"ready\",\"url\":\"http://10.0.0.2:7470\","
                    "\"slots\":2,\"capacity\":{\"cpu_millis\":2000,\"memory_bytes\":4294967296},"
                    "\"allocated\":{\"cpu_millis\":1000,\"memory_bytes\":0},"
                    "\"tasks\":[\"4-0\",\"4-1\"],\"ntasks\":2}",
                    &rc);
  CU_ASSERT_STRING_EQUAL (s, "Name:         n1\n"
                             "State:        ready\n"
                             "Address:      http://10.0.0.2:7470\n"
                             "CPU:          1000m of 2000m allocated (50%)\n"
                             "Memory:       0 of 4G allocated (0%)\n"
                             "Tasks:        2: 4-0 4-1\n"
                             "Heartbeat:    -\n");
  free (s);
  s = print_answer (ebbctl_print_answer_job, &req, "5",
                    "{\"id\":5,\"name\":\"q\",\"class\":\"short\",\"state\":\"queued\","
                    "\"reason\":{\"code\":\"no_room\",\"message\":\"0/2 nodes have room\"},"
                    "\"ntasks\":3,\"task_states\":{\"pending\":2,\"running\":1,\"failed\":0}}",
                    &rc);
  CU_ASSERT_PTR_NOT_NULL (strstr (s, "State:        queued\n"
                                     "Reason:       0/2 nodes have room (no_room)\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (s, "Tasks:        3: 2 pending, 1 running\n"));
  free (s);
}

/* A one-request command refuses a bad or missing argument before any call (there is no
 * server here: a call would fail with another code), and answers --help. */
static void
test_request_args (void)
{
  ebbctl_ctx ctx = { .out = fopen ("/dev/null", "w") };
  const ebbctl_cmd *node = ebbctl_command_find ("node");
  CU_ASSERT_PTR_EQUAL (node->run, ebbctl_request_run);
  CU_ASSERT_EQUAL (ebbctl_request_run (&ctx, node, 2, ARGV ("node", "../x")), EBBCTL_EXIT_USAGE);
  CU_ASSERT_EQUAL (ebbctl_request_run (&ctx, node, 1, ARGV ("node")), EBBCTL_EXIT_USAGE);
  CU_ASSERT_EQUAL (ebbctl_request_run (&ctx, node, 2, ARGV ("node", "--help")), EBBCTL_EXIT_OK);
  const ebbctl_cmd *status = ebbctl_command_find ("status");
  CU_ASSERT_EQUAL (ebbctl_request_run (&ctx, status, 2, ARGV ("status", "extra")),
                   EBBCTL_EXIT_USAGE);
  /* jobs parses its --active first, then the same refusals. */
  const ebbctl_cmd *jobs = ebbctl_command_find ("jobs");
  CU_ASSERT_PTR_EQUAL (jobs->run, ebbctl_jobs);
  CU_ASSERT_EQUAL (ebbctl_jobs (&ctx, jobs, 2, ARGV ("jobs", "extra")), EBBCTL_EXIT_USAGE);
  CU_ASSERT_EQUAL (ebbctl_jobs (&ctx, jobs, 3, ARGV ("jobs", "--active", "x")), EBBCTL_EXIT_USAGE);
  CU_ASSERT_EQUAL (ebbctl_jobs (&ctx, jobs, 2, ARGV ("jobs", "--activ=1")), EBBCTL_EXIT_USAGE);
  CU_ASSERT_EQUAL (ebbctl_jobs (&ctx, jobs, 3, ARGV ("jobs", "--active", "--help")),
                   EBBCTL_EXIT_OK);
  fclose (ctx.out);
  /* Every command either runs its own function or describes its request (jobs and history
   * both: its
   * options, then its request). */
  size_t n = 0;
  const ebbctl_cmd *cmds = ebbctl_commands (&n);
  for (size_t i = 0; i < n; i++)
    CU_ASSERT ((cmds[i].run == ebbctl_request_run || cmds[i].run == ebbctl_jobs
                || cmds[i].run == ebbctl_history || cmds[i].run == ebbctl_kill)
               == (cmds[i].request != NULL));
}

static void
test_member (void)
{
  json_object *o = json_tokener_parse ("{\"a\":{\"b\":1},\"n\":null}");
  CU_ASSERT_PTR_NOT_NULL (ebbctl_member (o, "a"));
  CU_ASSERT_PTR_NULL (ebbctl_member (o, "n"));
  CU_ASSERT_PTR_NULL (ebbctl_member (o, "x"));
  CU_ASSERT_PTR_NULL (ebbctl_member (ebbctl_member (o, "a"), "c"));
  CU_ASSERT_PTR_NULL (ebbctl_member (NULL, "a"));
  json_object_put (o);
}

static void
test_clean (void)
{
  char b[8];
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (b, sizeof b, "ok\033[2J"), "ok?[2J");
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (b, sizeof b, NULL), "-");
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (b, sizeof b, "a\tb\x7f\n"), "a?b??");
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (b, sizeof b, "0123456789"), "0123456");
  /* C1 controls: U+009B (the 8-bit CSI) as UTF-8 and as a lone byte, U+0080 and U+009F; any
   * byte that is not UTF-8. Printable UTF-8 (U+00A0, U+00E9, U+20AC) is kept. */
  char w[64];
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (w, sizeof w,
                                        "\xc2\x9b"
                                        "2J"),
                          "?2J");
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (w, sizeof w,
                                        "a\x9b"
                                        "2Jb"),
                          "a?2Jb");
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (w, sizeof w, "\xc2\x80|\xc2\x9f|\xc2\xa0"), "?|?|\xc2\xa0");
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (w, sizeof w, "caf\xc3\xa9 \xe2\x82\xac"),
                          "caf\xc3\xa9 \xe2\x82\xac");
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (w, sizeof w, "\xc0\xaf\xed\xa0\x80\xff\xe2\x82"),
                          "????????");
  /* Truncation never leaves half a character. */
  CU_ASSERT_STRING_EQUAL (ebbctl_clean (b, sizeof b, "abcdef\xc3\xa9"), "abcdef");
  /* Tables and key: value lines go through the same filter. */
  char *kv = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&kv, &len);
  json_object *o = json_tokener_parse ("{\"name\":\"\\u009b2J\",\"\\u0085k\":1}");
  ebbctl_print_kv (f, o, NULL);
  ebbctl_table t;
  ebbctl_table_init (&t, 1, (const char *const[]){ "N\xc2\x9b" });
  ebbctl_table_print (&t, f);
  ebbctl_table_clear (&t);
  fclose (f);
  CU_ASSERT_STRING_EQUAL (kv, "name: ?2J\n?k: 1\nN?\n");
  json_object_put (o);
  free (kv);
}

static void
test_progress (void)
{
  char b[256];
  CU_ASSERT_STRING_EQUAL (ebbctl_progress (b, sizeof b, 3, 2, 1, 10, 10),
                          "[###>>~....] 3/10 done, 2 running, 1 suspended");
  /* Suspended tasks are drawn apart from running ones. */
  CU_ASSERT_STRING_EQUAL (ebbctl_progress (b, sizeof b, 1, 1, 1, 3, 9),
                          "[###>>>~~~] 1/3 done, 1 running, 1 suspended");
  CU_ASSERT_STRING_EQUAL (ebbctl_progress (b, sizeof b, 10, 0, 0, 10, 4),
                          "[####] 10/10 done, 0 running, 0 suspended");
  CU_ASSERT_STRING_EQUAL (ebbctl_progress (b, sizeof b, 0, 0, 0, 0, 4),
                          "[....] 0/0 done, 0 running, 0 suspended");
  /* Counts that do not add up are clamped, never a bar longer than its width. */
  CU_ASSERT_STRING_EQUAL (ebbctl_progress (b, sizeof b, 12, 5, 5, 10, 4),
                          "[####] 10/10 done, 0 running, 0 suspended");
  CU_ASSERT_STRING_EQUAL (ebbctl_progress (b, sizeof b, 1, 9, 9, 10, 10),
                          "[#>>>>>>>>>] 1/10 done, 9 running, 0 suspended");
  CU_ASSERT_STRING_EQUAL (ebbctl_progress (b, sizeof b, 0, 0, 4, 4, 4),
                          "[~~~~] 0/4 done, 0 running, 4 suspended");
  CU_ASSERT_STRING_EQUAL (ebbctl_progress (b, sizeof b, 1, 0, 0, 3, 10),
                          "[###.......] 1/3 done, 0 running, 0 suspended");
}

static void
test_duration_bytes (void)
{
  char b[32];
  CU_ASSERT_STRING_EQUAL (ebbctl_duration (b, sizeof b, 0.85), "850ms");
  CU_ASSERT_STRING_EQUAL (ebbctl_duration (b, sizeof b, 12.34), "12.3s");
  CU_ASSERT_STRING_EQUAL (ebbctl_duration (b, sizeof b, 245), "4m05s");
  CU_ASSERT_STRING_EQUAL (ebbctl_duration (b, sizeof b, 7380), "2h03m");
  CU_ASSERT_STRING_EQUAL (ebbctl_duration (b, sizeof b, -1), "-");
  CU_ASSERT_STRING_EQUAL (ebbctl_duration (b, sizeof b, 1.0 / 0.0), "-");
  CU_ASSERT_STRING_EQUAL (ebbctl_bytes (b, sizeof b, 100), "100");
  CU_ASSERT_STRING_EQUAL (ebbctl_bytes (b, sizeof b, 512ULL << 20), "512M");
  CU_ASSERT_STRING_EQUAL (ebbctl_bytes (b, sizeof b, 3ULL << 29), "1.5G");
}

/* WAITED is the job's wait until its last task left pending (placed_at), not until its
 * first task started: a job with a task pending 6 s showed 0ms (issue 22). */
static void
test_job_waited (void)
{
  char b[32];
  json_object *j = json_tokener_parse ("{\"state\":\"running\",\"submitted_at\":100,"
                                       "\"started_at\":100,\"placed_at\":106}");
  CU_ASSERT_STRING_EQUAL (ebbctl_job_waited (b, sizeof b, j), "6.0s");
  json_object_put (j);
  /* A task still pending: the wait so far. */
  j = json_tokener_parse ("{\"state\":\"running\",\"started_at\":100,\"placed_at\":null}");
  json_object_object_add (j, "submitted_at", json_object_new_double (ebbctl_now () - 6.01));
  CU_ASSERT_STRING_EQUAL (ebbctl_job_waited (b, sizeof b, j), "6.0s");
  json_object_put (j);
  /* Without placed_at (an older controller) or finished with it null (a restart): until
   * its start. */
  j = json_tokener_parse ("{\"state\":\"running\",\"submitted_at\":100,\"started_at\":100}");
  CU_ASSERT_STRING_EQUAL (ebbctl_job_waited (b, sizeof b, j), "0ms");
  json_object_put (j);
  j = json_tokener_parse ("{\"state\":\"done\",\"submitted_at\":100,\"started_at\":102}");
  CU_ASSERT_STRING_EQUAL (ebbctl_job_waited (b, sizeof b, j), "2.0s");
  json_object_put (j);
  j = json_tokener_parse ("{\"state\":\"queued\"}");
  CU_ASSERT_STRING_EQUAL (ebbctl_job_waited (b, sizeof b, j), "-");
  json_object_put (j);
}

static void
test_job_counts (void)
{
  json_object *j = json_tokener_parse (
      "{\"tasks\":[{\"state\":\"exited\"},{\"state\":\"running\"},{\"state\":\"starting\"},"
      "{\"state\":\"suspended\"},{\"state\":\"pending\"},{\"state\":\"killed\"},{}]}");
  uint64_t d, r, s, n;
  ebbctl_job_counts (j, &d, &r, &s, &n);
  CU_ASSERT_EQUAL (d, 2);
  CU_ASSERT_EQUAL (r, 2);
  CU_ASSERT_EQUAL (s, 1);
  CU_ASSERT_EQUAL (n, 7);
  json_object_put (j);
  /* A job of a list: counts per state, no tasks. */
  j = json_tokener_parse ("{\"ntasks\":9,\"task_states\":{\"pending\":1,\"starting\":1,"
                          "\"running\":2,\"suspended\":1,\"exited\":2,\"failed\":1,"
                          "\"killed\":1}}");
  ebbctl_job_counts (j, &d, &r, &s, &n);
  CU_ASSERT (d == 4 && r == 3 && s == 1 && n == 9);
  json_object_put (j);
  ebbctl_job_counts (NULL, &d, &r, &s, &n);
  CU_ASSERT_EQUAL (n, 0);
  CU_ASSERT (ebbctl_job_finished ("done") && ebbctl_job_finished ("killed"));
  CU_ASSERT (!ebbctl_job_finished ("running") && !ebbctl_job_finished (NULL));
}

static void
print_all_help (FILE *f, void *data)
{
  (void)data;
  ebbctl_print_help (f, NULL);
}

/* Every option of every table appears in the program's --help and in its command's. */
static void
test_help_lists_every_option (void)
{
  cleanup_free char *all = capture (print_all_help, NULL);
  size_t n, ng;
  const ebbctl_cmd *cmds = ebbctl_commands (&n);
  const ebbctl_opt *g = ebbctl_global_opts (&ng);
  for (size_t i = 0; i < ng; i++)
    {
      cleanup_free char *o = ebb_xasprintf ("--%s", g[i].name);
      CU_ASSERT_PTR_NOT_NULL (strstr (all, o));
    }
  for (size_t i = 0; i < n; i++)
    {
      char *one = NULL;
      size_t len = 0;
      FILE *f = open_memstream (&one, &len);
      ebbctl_print_help (f, &cmds[i]);
      fclose (f);
      CU_ASSERT_PTR_NOT_NULL (strstr (all, cmds[i].name));
      for (size_t j = 0; j < cmds[i].n_opts; j++)
        {
          cleanup_free char *o = ebb_xasprintf ("--%s", cmds[i].opts[j].name);
          CU_ASSERT_PTR_NOT_NULL (strstr (all, o));
          CU_ASSERT_PTR_NOT_NULL (strstr (one, o));
        }
      free (one);
      CU_ASSERT_PTR_EQUAL (ebbctl_command_find (cmds[i].name), &cmds[i]);
    }
  CU_ASSERT_PTR_NULL (ebbctl_command_find ("nope"));
}

/* -o and --json anywhere after the command (kubectl), never a value of the command's own
 * options, never after "--", never submit's --json FILE. */
static void
test_output_opts (void)
{
  cleanup_error ebb_error *err = NULL;
  ebbctl_ctx ctx = { 0 };
  const ebbctl_cmd *jobs = ebbctl_command_find ("jobs");
  char **a = ARGV ("jobs", "--all", "--json", "--class", "long");
  int n = 5;
  CU_ASSERT_EQUAL (ebbctl_take_output_opts (&ctx, jobs, &n, a, &err), 0);
  CU_ASSERT (ctx.json && ctx.output == EBBCTL_OUT_JSON);
  CU_ASSERT_EQUAL (n, 4);
  CU_ASSERT_STRING_EQUAL (a[1], "--all");
  CU_ASSERT_STRING_EQUAL (a[3], "long");
  CU_ASSERT_PTR_NULL (a[4]);
  const char *forms[][3] = { { "-o", "wide", NULL },
                             { "-owide", NULL, NULL },
                             { "--output", "wide", NULL },
                             { "--output=wide", NULL, NULL } };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (forms); i++)
    {
      ctx = (ebbctl_ctx){ 0 };
      char *v[] = { "jobs", (char *)forms[i][0], (char *)forms[i][1], NULL };
      n = forms[i][1] ? 3 : 2;
      CU_ASSERT_EQUAL (ebbctl_take_output_opts (&ctx, jobs, &n, v, &err), 0);
      CU_ASSERT (ctx.output == EBBCTL_OUT_WIDE && !ctx.json && n == 1);
    }
  /* --name's value "-o" is the name; after "--" everything is the program's. */
  ctx = (ebbctl_ctx){ 0 };
  const ebbctl_cmd *submit = ebbctl_command_find ("submit");
  char **b
      = ARGV ("submit", "--name", "-o", "--json", "f.json", "-o", "name", "--", "ls", "-o", "json");
  n = 11;
  CU_ASSERT_EQUAL (ebbctl_take_output_opts (&ctx, submit, &n, b, &err), 0);
  CU_ASSERT_EQUAL (ctx.output, EBBCTL_OUT_NAME);
  CU_ASSERT_EQUAL (n, 9);
  CU_ASSERT_STRING_EQUAL (b[2], "-o");
  CU_ASSERT_STRING_EQUAL (b[3], "--json"); /* submit's own: the body from a file */
  CU_ASSERT_STRING_EQUAL (b[5], "--");
  CU_ASSERT_STRING_EQUAL (b[8], "json");
  char **c = ARGV ("jobs", "-o", "jsn");
  n = 3;
  CU_ASSERT_EQUAL (ebbctl_take_output_opts (&ctx, jobs, &n, c, &err), -EINVAL);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "did you mean 'json'?"));
  ebb_error_free (&err);
  char **d = ARGV ("jobs", "-o");
  n = 2;
  CU_ASSERT_EQUAL (ebbctl_take_output_opts (&ctx, jobs, &n, d, &err), -EINVAL);
  ebb_error_free (&err);
  /* Before the command too, as a global option. */
  ctx = (ebbctl_ctx){ .out = stdout };
  CU_ASSERT_EQUAL (ebbctl_parse_global (&ctx, 4, ARGV ("ebbctl", "-o", "name", "jobs"), &err), 3);
  CU_ASSERT_EQUAL (ctx.output, EBBCTL_OUT_NAME);
  ebbctl_ctx_clear (&ctx);
}

static void
test_suggest (void)
{
  CU_ASSERT_STRING_EQUAL (ebbctl_suggest_command ("stauts"), "status");
  CU_ASSERT_STRING_EQUAL (ebbctl_suggest_command ("job"), "job");
  CU_ASSERT_STRING_EQUAL (ebbctl_suggest_command ("decision"), "decisions");
  CU_ASSERT_STRING_EQUAL (ebbctl_suggest_command ("sub"), "submit");
  CU_ASSERT_PTR_NULL (ebbctl_suggest_command ("xyzzy"));
  CU_ASSERT_PTR_NULL (ebbctl_suggest_command ("d")); /* drain, decisions: no guess */
  /* A misspelt option: the command's closest. */
  cleanup_error ebb_error *err = NULL;
  const ebbctl_cmd *jobs = ebbctl_command_find ("jobs");
  FILE *null = fopen ("/dev/null", "w");
  CU_ASSERT_EQUAL (ebbctl_parse_cmd (jobs, 2, ARGV ("jobs", "--sttae=x"), ebbctl_jobs_filter_opt,
                                     &(ebbctl_jobs_filter){ 0 }, null, &err),
                   -EINVAL);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err),
                          "unknown option '--sttae=x'; did you mean '--state'?");
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebbctl_parse_cmd (jobs, 2, ARGV ("jobs", "--xyzzy"), ebbctl_jobs_filter_opt,
                                     &(ebbctl_jobs_filter){ 0 }, null, &err),
                   -EINVAL);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), "unknown option '--xyzzy'");
  fclose (null);
}

/* jobs: active by default; --all; --state (a finished one asks for every job); --class;
 * --name as a glob. */
static void
test_jobs_filter (void)
{
  json_object *run
      = json_tokener_parse ("{\"name\":\"etl-1\",\"class\":\"long\",\"state\":\"running\"}");
  json_object *done
      = json_tokener_parse ("{\"name\":\"q\",\"class\":\"short\",\"state\":\"done\"}");
  ebbctl_jobs_filter f = { 0 };
  CU_ASSERT (!ebbctl_jobs_filter_wants_finished (&f));
  CU_ASSERT (ebbctl_jobs_filter_match (&f, run) && !ebbctl_jobs_filter_match (&f, done));
  f.all = true;
  CU_ASSERT (ebbctl_jobs_filter_wants_finished (&f));
  CU_ASSERT (ebbctl_jobs_filter_match (&f, run) && ebbctl_jobs_filter_match (&f, done));
  f = (ebbctl_jobs_filter){ .state = "done" };
  CU_ASSERT (ebbctl_jobs_filter_wants_finished (&f));
  CU_ASSERT (!ebbctl_jobs_filter_match (&f, run) && ebbctl_jobs_filter_match (&f, done));
  f = (ebbctl_jobs_filter){ .all = true, .klass = "long" };
  CU_ASSERT (ebbctl_jobs_filter_match (&f, run) && !ebbctl_jobs_filter_match (&f, done));
  f = (ebbctl_jobs_filter){ .all = true, .name = "etl-*" };
  CU_ASSERT (ebbctl_jobs_filter_match (&f, run) && !ebbctl_jobs_filter_match (&f, done));
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebbctl_jobs_filter_opt (EBBCTL_O_STATE, "runing", &f, &err), -EINVAL);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "did you mean 'running'?"));
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebbctl_jobs_filter_opt (EBBCTL_O_CLASS, "medium", &f, &err), -EINVAL);
  json_object_put (run);
  json_object_put (done);
}

static void
print_clipped (FILE *f, void *data)
{
  ebbctl_clip_lines (f, "a\nb\nc\nd\n", *(size_t *)data, 0);
}

/* Lines cut to 4 columns: colour sequences take none (a colour cut open is closed), a
 * UTF-8 character one; 5 lines on 5 rows, then 6 on 5. */
static void
print_cut (FILE *f, void *data)
{
  (void)data;
  ebbctl_clip_lines (f,
                     "abcdef\n\033[32mrunning\033[0m\nx\033[33my\033[0mz\n"
                     "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\nlast\nmore\n",
                     5, 4);
}

/* watch: a frame taller than the terminal is cut, saying how much is left out. */
static void
test_clip_lines (void)
{
  size_t rows = 3;
  cleanup_free char *a = capture (print_clipped, &rows);
  CU_ASSERT_STRING_EQUAL (a, "a\nb\n... 2 more lines (a taller terminal, or ebbctl jobs and "
                             "nodes, show them)\n");
  rows = 4;
  cleanup_free char *b = capture (print_clipped, &rows);
  CU_ASSERT_STRING_EQUAL (b, "a\nb\nc\nd\n");
  rows = 0;
  cleanup_free char *c = capture (print_clipped, &rows);
  CU_ASSERT_STRING_EQUAL (c, "a\nb\nc\nd\n");
  cleanup_free char *d = capture (print_cut, NULL);
  CU_ASSERT_STRING_EQUAL (d, "abcd\n"
                             "\033[32mrunn\033[0m\n"
                             "x\033[33my\033[0mz\n"
                             "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n"
                             "... \n");
}

/* The STATE column in colour, padded by its text; no colour unless asked. */
static void
test_color (void)
{
  CU_ASSERT_STRING_EQUAL (ebbctl_state_color ("running"), "32");
  CU_ASSERT_STRING_EQUAL (ebbctl_state_color ("suspended"), "33");
  CU_ASSERT_STRING_EQUAL (ebbctl_state_color ("failed"), "31");
  CU_ASSERT_PTR_NULL (ebbctl_state_color ("done"));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  ebbctl_table t;
  ebbctl_table_init (&t, 3, (const char *const[]){ "ID", "STATE", "X" });
  t.color = true;
  ebbctl_table_add (&t, (const char *const[]){ "1", "suspended", "a" });
  ebbctl_table_add (&t, (const char *const[]){ "2", "done", "b" });
  ebbctl_table_print (&t, f);
  ebbctl_table_clear (&t);
  fclose (f);
  CU_ASSERT_STRING_EQUAL (buf, "ID  STATE      X\n"
                               "1   \033[33msuspended\033[0m  a\n"
                               "2   done       b\n");
  free (buf);
  /* A memstream, a pipe: never a terminal. */
  ebbctl_ctx ctx = { 0 };
  int p[2];
  CU_ASSERT_EQUAL (pipe (p), 0);
  CU_ASSERT (!ebbctl_want_color (&ctx, p[1]));
  close (p[0]), close (p[1]);
}

static void
print_cmd_help (FILE *f, void *cmd)
{
  ebbctl_print_help (f, cmd);
}

/* Every command's --help ends with examples, and so does the program's. */
static void
test_help_examples (void)
{
  cleanup_free char *all = capture (print_all_help, NULL);
  CU_ASSERT_PTR_NOT_NULL (strstr (all, "\nExamples:\n  ebbctl "));
  size_t n;
  const ebbctl_cmd *cmds = ebbctl_commands (&n);
  for (size_t i = 0; i < n; i++)
    {
      cleanup_free char *one = capture (print_cmd_help, (void *)&cmds[i]);
      if (!strstr (one, "\nExamples:\n  ebbctl "))
        fprintf (stderr, "%s --help has no examples\n", cmds[i].name);
      CU_ASSERT_PTR_NOT_NULL (strstr (one, "\nExamples:\n  ebbctl "));
    }
}

/* cli/follow.c: which answer to GET /v1/cluster moves a call off a silent controller. */
static void
test_follow_leader (void)
{
  const char *a = "unix:/a.sock", *b = "unix:/b.sock", *c = "unix:/c.sock";
  uint64_t ep = 0;
  json_object *o = json_tokener_parse (
      "{\"role\":\"standby\",\"leader\":{\"url\":\"unix:/a.sock\",\"epoch\":7}}");
  /* A standby names the silent one: wait on, and learn its epoch. */
  CU_ASSERT_PTR_NULL (ebbctl_follow_leader (a, &ep, b, o));
  CU_ASSERT_EQUAL (ep, 7);
  json_object_put (o);
  /* A standby that knows no leader, or names one below the silent one's epoch: wait on. */
  o = json_tokener_parse ("{\"role\":\"standby\",\"leader\":null}");
  CU_ASSERT_PTR_NULL (ebbctl_follow_leader (a, &ep, b, o));
  json_object_put (o);
  o = json_tokener_parse (
      "{\"role\":\"standby\",\"leader\":{\"url\":\"unix:/c.sock\",\"epoch\":5}}");
  CU_ASSERT_PTR_NULL (ebbctl_follow_leader (a, &ep, b, o));
  json_object_put (o);
  /* A higher epoch elsewhere: go there. */
  o = json_tokener_parse (
      "{\"role\":\"standby\",\"leader\":{\"url\":\"unix:/c.sock\",\"epoch\":9}}");
  const char *to = ebbctl_follow_leader (a, &ep, b, o);
  CU_ASSERT_STRING_EQUAL (to ? to : "", c);
  json_object_put (o);
  /* One that leads itself: go to it (as it was reached), whatever the silent one's epoch. */
  o = json_tokener_parse ("{\"role\":\"leader\",\"leader\":{\"url\":\"http://b:1\",\"epoch\":3}}");
  to = ebbctl_follow_leader (a, &ep, b, o);
  CU_ASSERT_PTR_EQUAL (to, b);
  /* ... unless it is the one waited on. */
  CU_ASSERT_PTR_NULL (ebbctl_follow_leader (b, &ep, b, o));
  json_object_put (o);
  CU_ASSERT_PTR_NULL (ebbctl_follow_leader (a, &ep, b, NULL));
}

int
main (void)
{
  static const ebb_cu_test tests[] = {
    EBB_CU_TEST (test_normalize_url),
    EBB_CU_TEST (test_global),
    EBB_CU_TEST (test_sizes_and_numbers),
    EBB_CU_TEST (test_submit_parse),
    EBB_CU_TEST (test_submit_tiers),
    EBB_CU_TEST (test_describe_tiers),
    EBB_CU_TEST (test_history_filter),
    EBB_CU_TEST (test_submit_read_json),
    EBB_CU_TEST (test_adopt_parse),
    EBB_CU_TEST (test_table),
    EBB_CU_TEST (test_table_print_list),
    EBB_CU_TEST (test_answers),
    EBB_CU_TEST (test_request_args),
    EBB_CU_TEST (test_member),
    EBB_CU_TEST (test_clean),
    EBB_CU_TEST (test_progress),
    EBB_CU_TEST (test_duration_bytes),
    EBB_CU_TEST (test_job_counts),
    EBB_CU_TEST (test_job_waited),
    EBB_CU_TEST (test_help_lists_every_option),
    EBB_CU_TEST (test_describe),
    EBB_CU_TEST (test_reasons),
    EBB_CU_TEST (test_output_opts),
    EBB_CU_TEST (test_suggest),
    EBB_CU_TEST (test_jobs_filter),
    EBB_CU_TEST (test_clip_lines),
    EBB_CU_TEST (test_color),
    EBB_CU_TEST (test_help_examples),
    EBB_CU_TEST (test_follow_leader),
  };
  return ebb_cu_run ("ebbctl", NULL, NULL, tests, EBB_ARRAY_SIZE (tests));
}
