/* Unit suite of agent/runtime-parse.c: labels, inspect and list documents, /proc/PID/cgroup,
 * events, and the /events stream splitter fed at every chunk boundary, with hostile input. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "agent/runtime.h"
#include "tests/cu.h"

#define ID64  "a925c7db022e9db7a3c61c29c5bca1abcdf19948338c740a0a22234c061c36c8"
#define ID64B "2a07a0d03ad90c7a026f411b17ec67ffd0df1a60820cb2a2b65210ffa13bffca"

static json_object *
parse (const char *s)
{
  json_object *o = json_tokener_parse (s);
  CU_ASSERT_PTR_NOT_NULL_FATAL (o);
  return o;
}

/* Labels of a container as a JSON object text; returns ebb_rt_parse_labels' result. */
static int
labels (const char *json, ebb_rt_info *info)
{
  memset (info, 0, sizeof *info);
  json_object *o = parse (json);
  int r = ebb_rt_parse_labels (o, info);
  json_object_put (o);
  return r;
}

static void
test_labels_valid (void)
{
  ebb_rt_info info;
  CU_ASSERT_EQUAL (labels ("{\"ebb.job\":\"j-1.a_b\",\"ebb.class\":\"long\",\"ebb.cpu\":\"500\","
                           "\"ebb.memory\":\"104857600\",\"other\":\"x\"}",
                           &info),
                   1);
  CU_ASSERT_TRUE (info.ours);
  CU_ASSERT_TRUE (info.managed);
  CU_ASSERT_PTR_NULL (info.reason);
  CU_ASSERT_STRING_EQUAL (info.job, "j-1.a_b");
  CU_ASSERT_EQUAL (info.cls, EBB_RT_CLASS_LONG);
  CU_ASSERT_EQUAL (info.cpu_millis, 500);
  CU_ASSERT_EQUAL (info.memory_bytes, 104857600);
  ebb_rt_info_clear (&info);
  CU_ASSERT_EQUAL (labels ("{\"ebb.job\":\"j\",\"ebb.class\":\"short\",\"ebb.cpu\":\"1048576\","
                           "\"ebb.memory\":\"1125899906842624\"}",
                           &info),
                   1);
  CU_ASSERT_TRUE (info.managed);
  CU_ASSERT_EQUAL (info.cls, EBB_RT_CLASS_SHORT);
  ebb_rt_info_clear (&info);
}

static void
test_labels_not_ours (void)
{
  ebb_rt_info info;
  CU_ASSERT_EQUAL (labels ("{}", &info), 0);
  CU_ASSERT_FALSE (info.ours);
  CU_ASSERT_FALSE (info.managed);
  CU_ASSERT_EQUAL (labels ("{\"ebbjob\":\"x\",\"com.ebb.job\":\"y\"}", &info), 0);
  CU_ASSERT_FALSE (info.ours);
  memset (&info, 0, sizeof info);
  CU_ASSERT_EQUAL (ebb_rt_parse_labels (NULL, &info), 0);
  ebb_rt_info_clear (&info);
}

/* Every bad label leaves the container ours but unmanaged, with a reason naming the label. */
static void
test_labels_invalid (void)
{
  static const struct
  {
    const char *json, *in_reason;
  } cases[] = {
    { "{\"ebb.class\":\"long\",\"ebb.cpu\":\"1\",\"ebb.memory\":\"1\"}", "ebb.job missing" },
    { "{\"ebb.job\":\"../x\",\"ebb.class\":\"long\",\"ebb.cpu\":\"1\",\"ebb.memory\":\"1\"}",
      "ebb.job" },
    { "{\"ebb.job\":\"\",\"ebb.class\":\"long\",\"ebb.cpu\":\"1\",\"ebb.memory\":\"1\"}",
      "ebb.job" },
    { "{\"ebb.job\":\"a/b\",\"ebb.class\":\"long\",\"ebb.cpu\":\"1\",\"ebb.memory\":\"1\"}",
      "ebb.job" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"Long\",\"ebb.cpu\":\"1\",\"ebb.memory\":\"1\"}",
      "ebb.class" },
    { "{\"ebb.job\":\"j\",\"ebb.cpu\":\"1\",\"ebb.memory\":\"1\"}", "ebb.class missing" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"0\",\"ebb.memory\":\"1\"}",
      "ebb.cpu" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"-5\",\"ebb.memory\":\"1\"}",
      "ebb.cpu" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"+5\",\"ebb.memory\":\"1\"}",
      "ebb.cpu" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\" 5\",\"ebb.memory\":\"1\"}",
      "ebb.cpu" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"0x10\",\"ebb.memory\":\"1\"}",
      "ebb.cpu" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"1048577\",\"ebb.memory\":\"1\"}",
      "ebb.cpu" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"99999999999999999999999\","
      "\"ebb.memory\":\"1\"}",
      "ebb.cpu" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"18446744073709551616\","
      "\"ebb.memory\":\"1\"}",
      "ebb.cpu" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":500,\"ebb.memory\":\"1\"}",
      "ebb.cpu: not a string" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"5\",\"ebb.memory\":\"1g\"}",
      "ebb.memory" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"5\","
      "\"ebb.memory\":\"1125899906842625\"}",
      "ebb.memory" },
    { "{\"ebb.job\":\"j\",\"ebb.class\":\"long\",\"ebb.cpu\":\"5\"}", "ebb.memory missing" },
    { "{\"ebb.job\":null,\"ebb.class\":\"long\",\"ebb.cpu\":\"5\",\"ebb.memory\":\"1\"}",
      "ebb.job: not a string" },
    { "{\"ebb.typo\":\"x\"}", "ebb.job missing" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (cases); i++)
    {
      ebb_rt_info info;
      CU_ASSERT_EQUAL (labels (cases[i].json, &info), 1);
      CU_ASSERT_TRUE (info.ours);
      CU_ASSERT_FALSE (info.managed);
      CU_ASSERT_PTR_NOT_NULL (info.reason);
      if (!info.reason || !strstr (info.reason, cases[i].in_reason))
        fprintf (stderr, "case %zu: reason \"%s\", want \"%s\"\n", i,
                 info.reason ? info.reason : "(null)", cases[i].in_reason);
      CU_ASSERT_PTR_NOT_NULL (info.reason ? strstr (info.reason, cases[i].in_reason) : NULL);
      ebb_rt_info_clear (&info);
    }
  /* A hostile value is quoted cut short. */
  char big[4096 + 128];
  memset (big, 0, sizeof big);
  strcpy (big, "{\"ebb.job\":\"");
  memset (big + strlen (big), 'x', 4000);
  strcat (big, "\"}");
  ebb_rt_info info;
  labels (big, &info);
  CU_ASSERT_FALSE (info.managed);
  CU_ASSERT_TRUE (info.reason && strlen (info.reason) < 200);
  ebb_rt_info_clear (&info);
}

static const char docker_inspect[]
    = "{\"Id\":\"" ID64 "\",\"Name\":\"/d1\",\"State\":{\"Status\":\"running\",\"Running\":true,"
      "\"Paused\":false,\"Pid\":17829,\"ExitCode\":0,\"StartedAt\":\"2026-11-22T03:45:28.4Z\"},"
      "\"HostConfig\":{\"CgroupParent\":\"\"},\"Config\":{\"Labels\":{\"ebb.job\":\"j1\","
      "\"ebb.class\":\"short\",\"ebb.cpu\":\"250\",\"ebb.memory\":\"1000\"}}}";

static void
test_inspect_docker (void)
{
  json_object *o = parse (docker_inspect);
  ebb_rt_info info;
  CU_ASSERT_EQUAL (ebb_rt_parse_inspect (EBB_RT_DOCKER, o, &info, NULL), 0);
  CU_ASSERT_STRING_EQUAL (info.id, ID64);
  CU_ASSERT_STRING_EQUAL (info.name, "d1");
  CU_ASSERT_TRUE (info.running);
  CU_ASSERT_EQUAL (info.pid, 17829);
  CU_ASSERT_STRING_EQUAL (info.started_at, "2026-11-22T03:45:28.4Z");
  CU_ASSERT_TRUE (info.managed);
  CU_ASSERT_EQUAL (info.cls, EBB_RT_CLASS_SHORT);
  CU_ASSERT_EQUAL (info.cpu_millis, 250);
  CU_ASSERT_EQUAL (info.kind, EBB_RT_DOCKER);
  CU_ASSERT_EQUAL (info.cgroups.n_lines, 0);
  ebb_rt_info_clear (&info);
  json_object_put (o);
}

static void
test_inspect_stopped_podman (void)
{
  json_object *o = parse ("{\"Id\":\"" ID64B "\",\"Name\":\"p1\",\"State\":{\"Running\":false,"
                          "\"Pid\":0,\"ExitCode\":3},\"Config\":{\"Labels\":null}}");
  ebb_rt_info info;
  CU_ASSERT_EQUAL (ebb_rt_parse_inspect (EBB_RT_PODMAN, o, &info, NULL), 0);
  CU_ASSERT_STRING_EQUAL (info.name, "p1");
  CU_ASSERT_FALSE (info.running);
  CU_ASSERT_EQUAL (info.pid, 0);
  CU_ASSERT_EQUAL (info.exit_code, 3);
  CU_ASSERT_FALSE (info.ours);
  CU_ASSERT_STRING_EQUAL (ebb_rt_kind_name (info.kind), "podman");
  ebb_rt_info_clear (&info);
  json_object_put (o);
}

static void
test_inspect_hostile (void)
{
  static const char *bad[] = {
    "[]",
    "{}",
    "{\"Id\":5,\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":1}}",
    "{\"Id\":\"../../etc\",\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":1}}",
    "{\"Id\":\"ABCDEF0123456789\",\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":1}}",
    "{\"Id\":\"abc\",\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":1}}",
    "{\"Id\":\"" ID64 "0\",\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":1}}",
    "{\"Id\":\"" ID64 "\",\"State\":{\"Running\":true,\"Pid\":1}}",
    "{\"Id\":\"" ID64 "\",\"Name\":\"\",\"State\":{\"Running\":true,\"Pid\":1}}",
    "{\"Id\":\"" ID64 "\",\"Name\":\"/x\"}",
    "{\"Id\":\"" ID64 "\",\"Name\":\"/x\",\"State\":\"running\"}",
    "{\"Id\":\"" ID64 "\",\"Name\":\"/x\",\"State\":{\"Running\":\"true\",\"Pid\":1}}",
    "{\"Id\":\"" ID64 "\",\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":\"1\"}}",
    "{\"Id\":\"" ID64 "\",\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":-1}}",
    "{\"Id\":\"" ID64 "\",\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":0}}",
    "{\"Id\":\"" ID64 "\",\"Name\":\"/x\",\"State\":{\"Running\":true,\"Pid\":4294967297}}",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      json_object *o = parse (bad[i]);
      ebb_rt_info info;
      ebb_error *err = NULL;
      int r = ebb_rt_parse_inspect (EBB_RT_DOCKER, o, &info, &err);
      if (r != -EBB_EPARSE)
        fprintf (stderr, "case %zu: %d\n", i, r);
      CU_ASSERT_EQUAL (r, -EBB_EPARSE);
      CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_EPARSE);
      CU_ASSERT_PTR_NULL (info.id); /* zeroed on failure */
      ebb_error_free (&err);
      json_object_put (o);
    }
  ebb_rt_info info;
  CU_ASSERT_EQUAL (ebb_rt_parse_inspect (EBB_RT_DOCKER, NULL, &info, NULL), -EBB_EPARSE);
}

static void
test_list_entry (void)
{
  json_object *o = parse ("{\"Id\":\"" ID64 "\",\"Names\":[\"/web\"],\"State\":\"running\","
                          "\"Labels\":{\"ebb.job\":\"j\"}}");
  ebb_rt_info info;
  CU_ASSERT_EQUAL (ebb_rt_parse_list_entry (EBB_RT_DOCKER, o, &info, NULL), 0);
  CU_ASSERT_STRING_EQUAL (info.name, "web");
  CU_ASSERT_TRUE (info.running);
  CU_ASSERT_TRUE (info.ours);
  CU_ASSERT_FALSE (info.managed);
  CU_ASSERT_EQUAL (info.pid, 0);
  ebb_rt_info_clear (&info);
  json_object_put (o);
  o = parse ("{\"Id\":\"" ID64 "\",\"Names\":[],\"State\":\"exited\"}");
  CU_ASSERT_EQUAL (ebb_rt_parse_list_entry (EBB_RT_DOCKER, o, &info, NULL), -EBB_EPARSE);
  json_object_put (o);
  o = parse ("{\"Id\":\"" ID64 "\",\"Names\":[7],\"State\":\"exited\"}");
  CU_ASSERT_EQUAL (ebb_rt_parse_list_entry (EBB_RT_DOCKER, o, &info, NULL), -EBB_EPARSE);
  json_object_put (o);
}

static const char hybrid_cgroup[] = "9:name=systemd:/p/ebb-rt-1-docker/" ID64 "\n"
                                    "8:pids:/p/ebb-rt-1-docker/" ID64 "\n"
                                    "6:freezer:/p/ebb-rt-1-docker/" ID64 "\n"
                                    "4:memory:/p/ebb-rt-1-docker/" ID64 "\n"
                                    "2:cpuacct:/q/" ID64 "\n"
                                    "1:cpu:/r/" ID64 "\n"
                                    "0::/p/ebb-rt-1-docker/" ID64 "\n";

static void
test_proc_cgroup_hybrid (void)
{
  ebb_rt_cgroups cg;
  CU_ASSERT_EQUAL_FATAL (ebb_rt_parse_proc_cgroup (hybrid_cgroup, &cg, NULL), 0);
  CU_ASSERT_EQUAL (cg.n_lines, 7);
  CU_ASSERT_STRING_EQUAL (cg.cpu, "/r/" ID64);
  CU_ASSERT_STRING_EQUAL (cg.cpuacct, "/q/" ID64);
  CU_ASSERT_STRING_EQUAL (cg.memory, "/p/ebb-rt-1-docker/" ID64);
  CU_ASSERT_STRING_EQUAL (cg.freezer, "/p/ebb-rt-1-docker/" ID64);
  CU_ASSERT_STRING_EQUAL (cg.pids, "/p/ebb-rt-1-docker/" ID64);
  CU_ASSERT_STRING_EQUAL (cg.unified, "/p/ebb-rt-1-docker/" ID64);
  CU_ASSERT_STRING_EQUAL (cg.lines[0].controllers, "name=systemd");
  CU_ASSERT_EQUAL (cg.lines[0].hierarchy, 9);
  ebb_rt_cgroups_clear (&cg);
  /* cpu,cpuacct co-mounted (the usual layout elsewhere), a path with a colon, no newline. */
  CU_ASSERT_EQUAL_FATAL (ebb_rt_parse_proc_cgroup ("3:cpu,cpuacct:/a:b\n0::/", &cg, NULL), 0);
  CU_ASSERT_STRING_EQUAL (cg.cpu, "/a:b");
  CU_ASSERT_STRING_EQUAL (cg.cpuacct, "/a:b");
  CU_ASSERT_STRING_EQUAL (cg.unified, "/");
  CU_ASSERT_PTR_NULL (cg.memory);
  ebb_rt_cgroups_clear (&cg);
}

static void
test_proc_cgroup_v2 (void)
{
  ebb_rt_cgroups cg;
  CU_ASSERT_EQUAL_FATAL (
      ebb_rt_parse_proc_cgroup ("0::/system.slice/docker-" ID64 ".scope\n", &cg, NULL), 0);
  CU_ASSERT_EQUAL (cg.n_lines, 1);
  CU_ASSERT_STRING_EQUAL (cg.unified, "/system.slice/docker-" ID64 ".scope");
  CU_ASSERT_PTR_NULL (cg.cpu);
  ebb_rt_cgroups_clear (&cg);
}

static void
test_proc_cgroup_hostile (void)
{
  static const char *bad[] = {
    "",
    "\n\n",
    "garbage\n",
    "1:cpu\n",
    "x:cpu:/a\n",
    "-1:cpu:/a\n",
    "1:cpu:relative\n",
    "1:cpu:\n",
    ":cpu:/a\n",
    "1234567890123:cpu:/a\n",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_rt_cgroups cg;
      ebb_error *err = NULL;
      CU_ASSERT_EQUAL (ebb_rt_parse_proc_cgroup (bad[i], &cg, &err), -EBB_EPARSE);
      CU_ASSERT_EQUAL (cg.n_lines, 0);
      ebb_error_free (&err);
    }
  /* More lines than any kernel prints. */
  char many[100 * 16] = "";
  for (int i = 0; i < 100; i++)
    snprintf (many + strlen (many), sizeof many - strlen (many), "%d:c%d:/x\n", i + 1, i);
  ebb_rt_cgroups cg;
  CU_ASSERT_EQUAL (ebb_rt_parse_proc_cgroup (many, &cg, NULL), -EBB_EPARSE);
}

static void
test_read_proc_cgroup (void)
{
  char dir[] = "/tmp/ebb-rt-proc.XXXXXX";
  CU_ASSERT_PTR_NOT_NULL_FATAL (mkdtemp (dir));
  char path[256];
  snprintf (path, sizeof path, "%s/42", dir);
  CU_ASSERT_EQUAL (mkdir (path, 0755), 0);
  snprintf (path, sizeof path, "%s/42/cgroup", dir);
  FILE *f = fopen (path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  fputs (hybrid_cgroup, f);
  fclose (f);
  ebb_rt_cgroups cg;
  CU_ASSERT_EQUAL (ebb_rt_read_proc_cgroup (dir, 42, &cg, NULL), 0);
  CU_ASSERT_STRING_EQUAL (cg.cpu, "/r/" ID64);
  ebb_rt_cgroups_clear (&cg);
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_rt_read_proc_cgroup (dir, 43, &cg, &err), -EBB_EGONE);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_rt_read_proc_cgroup (dir, 0, &cg, NULL), -EINVAL);
  f = fopen (path, "w");
  fputs ("not a cgroup file", f);
  fclose (f);
  CU_ASSERT_EQUAL (ebb_rt_read_proc_cgroup (dir, 42, &cg, &err), -EBB_EPARSE);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "42/cgroup"));
  ebb_error_free (&err);
  unlink (path);
  snprintf (path, sizeof path, "%s/42", dir);
  rmdir (path);
  rmdir (dir);
  /* The real thing: our own process. */
  CU_ASSERT_EQUAL (ebb_rt_read_proc_cgroup (NULL, getpid (), &cg, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL (cg.unified);
  ebb_rt_cgroups_clear (&cg);
}

#define DOCKER_DIE                                                                                 \
  "{\"status\":\"die\",\"id\":\"" ID64 "\",\"from\":\"img\",\"Type\":\"container\","               \
  "\"Action\":\"die\",\"Actor\":{\"ID\":\"" ID64 "\",\"Attributes\":{\"ebb.job\":\"j1\","          \
  "\"exitCode\":\"137\",\"name\":\"d1\"}},\"scope\":\"local\",\"time\":1795319117,"                \
  "\"timeNano\":1795319117963804760}"
#define PODMAN_DIE                                                                                 \
  "{\"status\":\"die\",\"id\":\"" ID64B "\",\"Type\":\"container\",\"Action\":\"die\","            \
  "\"Actor\":{\"ID\":\"" ID64B "\",\"Attributes\":{\"containerExitCode\":\"3\","                   \
  "\"exitCode\":\"3\",\"name\":\"p1\",\"podId\":\"\"}},\"time\":1795319118}"

static int
event (const char *json, ebb_rt_raw_event *ev)
{
  json_object *o = parse (json);
  int r = ebb_rt_parse_event (o, ev, NULL);
  json_object_put (o);
  return r;
}

static void
test_events (void)
{
  ebb_rt_raw_event ev;
  CU_ASSERT_EQUAL (event (DOCKER_DIE, &ev), 1);
  CU_ASSERT_EQUAL (ev.type, EBB_RT_EV_DIE);
  CU_ASSERT_STRING_EQUAL (ev.id, ID64);
  CU_ASSERT_EQUAL (ev.exit_code, 137);
  CU_ASSERT_EQUAL (ev.time_nsec, 1795319117963804760LL);
  CU_ASSERT_EQUAL (event (PODMAN_DIE, &ev), 1);
  CU_ASSERT_EQUAL (ev.type, EBB_RT_EV_DIE);
  CU_ASSERT_EQUAL (ev.exit_code, 3);
  CU_ASSERT_EQUAL (ev.time_nsec, 1795319118000000000LL);
  static const struct
  {
    const char *action;
    ebb_rt_ev_type type;
  } map[] = {
    { "start", EBB_RT_EV_START },          { "oom", EBB_RT_EV_OOM },
    { "update", EBB_RT_EV_UPDATE },        { "destroy", EBB_RT_EV_DESTROY },
    { "remove", EBB_RT_EV_DESTROY },       { "create", EBB_RT_EV_OTHER },
    { "exec_start: sh", EBB_RT_EV_OTHER }, { "health_status: healthy", EBB_RT_EV_OTHER },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (map); i++)
    {
      char buf[512];
      snprintf (buf, sizeof buf,
                "{\"Type\":\"container\",\"Action\":\"%s\",\"Actor\":{\"ID\":\"" ID64 "\"}}",
                map[i].action);
      CU_ASSERT_EQUAL (event (buf, &ev), 1);
      CU_ASSERT_EQUAL (ev.type, map[i].type);
      CU_ASSERT_EQUAL (ev.exit_code, -1);
    }
  /* Old-style events without Type/Actor. */
  CU_ASSERT_EQUAL (event ("{\"status\":\"start\",\"id\":\"" ID64 "\"}", &ev), 1);
  CU_ASSERT_EQUAL (ev.type, EBB_RT_EV_START);
  /* Events of other types are not ours to parse. */
  CU_ASSERT_EQUAL (event ("{\"Type\":\"image\",\"Action\":\"pull\",\"Actor\":{\"ID\":\"x\"}}", &ev),
                   0);
  CU_ASSERT_EQUAL (event ("{\"Type\":\"network\",\"Action\":\"connect\"}", &ev), 0);
}

static void
test_events_hostile (void)
{
  static const char *bad[] = {
    "{}",
    "{\"Type\":\"container\"}",
    "{\"Type\":\"container\",\"Action\":\"die\"}",
    "{\"Type\":\"container\",\"Action\":5,\"Actor\":{\"ID\":\"" ID64 "\"}}",
    "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"../../x\"}}",
    "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"" ID64 ID64 "\"}}",
    "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":[]}}",
    "[1,2]",
    "\"die\"",
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    {
      ebb_rt_raw_event ev;
      CU_ASSERT_EQUAL (event (bad[i], &ev), -EBB_EPARSE);
    }
  ebb_rt_raw_event ev;
  CU_ASSERT_EQUAL (ebb_rt_parse_event (NULL, &ev, NULL), -EBB_EPARSE);
  /* Exit codes that are not exit codes become unknown (-1), not garbage. */
  static const char *codes[] = { "\"-1\"", "\"256\"", "\"abc\"", "\"\"", "[]", "99999999999" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (codes); i++)
    {
      char buf[512];
      snprintf (buf, sizeof buf,
                "{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"" ID64
                "\",\"Attributes\":{\"exitCode\":%s}}}",
                codes[i]);
      CU_ASSERT_EQUAL (event (buf, &ev), 1);
      CU_ASSERT_EQUAL (ev.exit_code, -1);
    }
  CU_ASSERT_EQUAL (event ("{\"Type\":\"container\",\"Action\":\"die\",\"Actor\":{\"ID\":\"" ID64
                          "\",\"Attributes\":{\"exitCode\":\"0\"}}}",
                          &ev),
                   1);
  CU_ASSERT_EQUAL (ev.exit_code, 0);
}

/* Collects what the splitter hands out. */
typedef struct
{
  int n;
  int n_null;
  char ids[8][65];
  int stop_after; /* 0: never */
} collected;

static int
collect (json_object *obj, void *userdata)
{
  collected *c = userdata;
  ebb_rt_raw_event ev;
  if (!obj)
    c->n_null++;
  else if (ebb_rt_parse_event (obj, &ev, NULL) == 1 && c->n < 8)
    snprintf (c->ids[c->n], sizeof c->ids[c->n], "%s", ev.id);
  json_object_put (obj);
  c->n++;
  if (c->stop_after && c->n >= c->stop_after)
    return -ECANCELED;
  return 0;
}

static const char stream_text[] = DOCKER_DIE "\n" PODMAN_DIE "\r\n  " DOCKER_DIE PODMAN_DIE "\n";

/* Every split of the stream into two chunks, and one byte at a time, gives the same four
 * events. */
static void
test_stream_chunks (void)
{
  size_t len = strlen (stream_text);
  for (size_t cut = 0; cut <= len; cut++)
    {
      ebb_rt_stream *s = ebb_rt_stream_new (0, 0);
      collected c = { 0 };
      CU_ASSERT_EQUAL (ebb_rt_stream_feed (s, stream_text, cut, collect, &c, NULL), 0);
      CU_ASSERT_EQUAL (ebb_rt_stream_feed (s, stream_text + cut, len - cut, collect, &c, NULL), 0);
      CU_ASSERT_EQUAL (c.n, 4);
      CU_ASSERT_STRING_EQUAL (c.ids[0], ID64);
      CU_ASSERT_STRING_EQUAL (c.ids[1], ID64B);
      CU_ASSERT_STRING_EQUAL (c.ids[2], ID64);
      CU_ASSERT_STRING_EQUAL (c.ids[3], ID64B);
      ebb_rt_stream_free (s);
    }
  ebb_rt_stream *s = ebb_rt_stream_new (0, 0);
  collected c = { 0 };
  for (size_t i = 0; i < len; i++)
    CU_ASSERT_EQUAL (ebb_rt_stream_feed (s, stream_text + i, 1, collect, &c, NULL), 0);
  CU_ASSERT_EQUAL (c.n, 4);
  /* Nothing pending at the end, then more events keep coming. */
  CU_ASSERT_EQUAL (ebb_rt_stream_feed (s, DOCKER_DIE, strlen (DOCKER_DIE), collect, &c, NULL), 0);
  CU_ASSERT_EQUAL (c.n, 5);
  ebb_rt_stream_free (s);
}

static void
test_stream_stop (void)
{
  ebb_rt_stream *s = ebb_rt_stream_new (0, 0);
  collected c = { .stop_after = 2 };
  CU_ASSERT_EQUAL (ebb_rt_stream_feed (s, stream_text, strlen (stream_text), collect, &c, NULL),
                   -ECANCELED);
  CU_ASSERT_EQUAL (c.n, 2);
  ebb_rt_stream_free (s);
  /* Arrays are handed out too (the caller rejects them), with strings holding brackets. */
  s = ebb_rt_stream_new (0, 0);
  collected d = { 0 };
  const char *text = "[1]{\"a\":\"}]\\\"{\"}[[]]";
  CU_ASSERT_EQUAL (ebb_rt_stream_feed (s, text, strlen (text), collect, &d, NULL), 0);
  CU_ASSERT_EQUAL (d.n, 3);
  ebb_rt_stream_free (s);
}

static void
stream_rejects (const char *text, size_t len, size_t max_bytes, int depth, int code)
{
  ebb_rt_stream *s = ebb_rt_stream_new (max_bytes, depth);
  collected c = { 0 };
  ebb_error *err = NULL;
  int r = ebb_rt_stream_feed (s, text, len, collect, &c, &err);
  if (r != -code)
    fprintf (stderr, "stream_rejects \"%.*s\": %d %s\n", (int)len, text, r, ebb_error_msg (&err));
  CU_ASSERT_EQUAL (r, -code);
  CU_ASSERT_EQUAL (ebb_error_code (&err), code);
  ebb_error_free (&err);
  /* A failed stream stays failed: the caller reconnects. */
  CU_ASSERT_TRUE (ebb_rt_stream_feed (s, "{}", 2, collect, &c, NULL) < 0);
  ebb_rt_stream_free (s);
}

static void
test_stream_hostile (void)
{
  stream_rejects ("{\"a\":1}}", 8, 0, 0, EBB_EPARSE);
  stream_rejects ("{\"a\":tru}", 9, 0, 0, EBB_EPARSE);
  stream_rejects ("{'a':1}", 7, 0, 0, EBB_EPARSE);
  stream_rejects ("{\"a\":\"\xff\xfe\"}", 10, 0, 0, EBB_EPARSE); /* invalid UTF-8 */
  stream_rejects ("{\"a\":[1,]}", 10, 0, 0, EBB_EPARSE);
  stream_rejects ("{\"a\":1]", 7, 0, 0, EBB_EPARSE); /* brackets that do not match */
  stream_rejects ("null", 4, 0, 0, EBB_EPARSE);      /* events are objects */
  stream_rejects ("12 {}", 5, 0, 0, EBB_EPARSE);
  stream_rejects ("\"x\"", 3, 0, 0, EBB_EPARSE);
  stream_rejects ("}", 1, 0, 0, EBB_EPARSE);
  /* Too deep. */
  char deep[200];
  memset (deep, '[', sizeof deep);
  stream_rejects (deep, sizeof deep, 0, 16, EBB_EPARSE);
  /* Too big: a never-ending string, fed in pieces. */
  ebb_rt_stream *s = ebb_rt_stream_new (1000, 0);
  collected c = { 0 };
  ebb_error *err = NULL;
  char chunk[100];
  memset (chunk, 'x', sizeof chunk);
  CU_ASSERT_EQUAL (ebb_rt_stream_feed (s, "{\"a\":\"", 6, collect, &c, NULL), 0);
  int r = 0;
  for (int i = 0; i < 20 && r == 0; i++)
    r = ebb_rt_stream_feed (s, chunk, sizeof chunk, collect, &c, &err);
  CU_ASSERT_EQUAL (r, -EBB_ERANGE);
  CU_ASSERT_EQUAL (c.n, 0);
  ebb_error_free (&err);
  ebb_rt_stream_free (s);
  /* Exactly at the cap is fine; the cap is per value, not per stream. */
  s = ebb_rt_stream_new (strlen (DOCKER_DIE), 0);
  collected d = { 0 };
  for (int i = 0; i < 3; i++)
    CU_ASSERT_EQUAL (
        ebb_rt_stream_feed (s, DOCKER_DIE "\n", strlen (DOCKER_DIE) + 1, collect, &d, NULL), 0);
  CU_ASSERT_EQUAL (d.n, 3);
  ebb_rt_stream_free (s);
}

static void
test_names (void)
{
  CU_ASSERT_STRING_EQUAL (ebb_rt_kind_name (EBB_RT_DOCKER), "docker");
  CU_ASSERT_STRING_EQUAL (ebb_rt_kind_name (EBB_RT_PODMAN), "podman");
  CU_ASSERT_STRING_EQUAL (ebb_rt_class_name (EBB_RT_CLASS_SHORT), "short");
  CU_ASSERT_STRING_EQUAL (ebb_rt_class_name (EBB_RT_CLASS_LONG), "long");
  CU_ASSERT_PTR_NULL (ebb_rt_class_name (EBB_RT_CLASS_NONE));
  ebb_rt_info_clear (NULL);
  ebb_rt_cgroups_clear (NULL);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_labels_valid),
  EBB_CU_TEST (test_labels_not_ours),
  EBB_CU_TEST (test_labels_invalid),
  EBB_CU_TEST (test_inspect_docker),
  EBB_CU_TEST (test_inspect_stopped_podman),
  EBB_CU_TEST (test_inspect_hostile),
  EBB_CU_TEST (test_list_entry),
  EBB_CU_TEST (test_proc_cgroup_hybrid),
  EBB_CU_TEST (test_proc_cgroup_v2),
  EBB_CU_TEST (test_proc_cgroup_hostile),
  EBB_CU_TEST (test_read_proc_cgroup),
  EBB_CU_TEST (test_events),
  EBB_CU_TEST (test_events_hostile),
  EBB_CU_TEST (test_stream_chunks),
  EBB_CU_TEST (test_stream_stop),
  EBB_CU_TEST (test_stream_hostile),
  EBB_CU_TEST (test_names),
};

EBB_CU_MAIN ("runtime-parse", NULL, NULL, tests)
