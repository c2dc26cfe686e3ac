/* Real engines: agent/runtime.c against the private dockerd and Podman service that
 * tests/runtimes/test-engines.sh starts (EBB_RT_DIR, EBB_RT_ENGINES_SH). Containers are
 * discovered through the events stream within 2 s, their cgroups match /proc, kills are
 * reported with their exit codes, and the client keeps following after the engine is killed
 * and restarted, including what happened while it was away. */
#include "config.h"

#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/runtime.h"
#include "lib/log.h"
#include "lib/time.h"
#include "tests/cu.h"

#define DISCOVER_USEC (2 * 1000 * 1000)  /* the requirement */
#define WAIT_USEC     (30 * 1000 * 1000) /* for what has no requirement (engine restarts) */

typedef struct
{
  ebb_rt_event_type type;
  char id[65];
  char name[128];
  pid_t pid;
  int exit_code;
  bool managed;
  char reason[256];
  char cgroup_text[4096]; /* the cgroups as /proc/PID/cgroup would print them */
  uint64_t at_usec;
} rec_event;

typedef struct
{
  rec_event ev[512];
  size_t n;
} recorder;

static sd_event *loop;
static recorder rec;
static const char *dir, *engines_sh, *image;
static char cg_parent[512];

static void
on_event (ebb_rt *rt EBB_UNUSED, const ebb_rt_event *ev, void *userdata)
{
  recorder *r = userdata;
  if (r->n == EBB_ARRAY_SIZE (r->ev))
    return;
  rec_event *e = &r->ev[r->n++];
  memset (e, 0, sizeof *e);
  e->type = ev->type;
  e->exit_code = ev->exit_code;
  e->at_usec = ebb_now_usec ();
  if (!ev->info)
    return;
  snprintf (e->id, sizeof e->id, "%s", ev->info->id);
  snprintf (e->name, sizeof e->name, "%s", ev->info->name);
  e->pid = ev->info->pid;
  e->managed = ev->info->managed;
  snprintf (e->reason, sizeof e->reason, "%s", ev->info->reason ? ev->info->reason : "");
  for (size_t i = 0; i < ev->info->cgroups.n_lines; i++)
    {
      const ebb_rt_cgroup_line *l = &ev->info->cgroups.lines[i];
      size_t len = strlen (e->cgroup_text);
      snprintf (e->cgroup_text + len, sizeof e->cgroup_text - len, "%d:%s:%s\n", l->hierarchy,
                l->controllers, l->path);
    }
}

/* Runs a shell command; returns its exit status. */
static int EBB_PRINTF (1, 2) sh (const char *fmt, ...)
{
  va_list ap;
  char *cmd = NULL;
  va_start (ap, fmt);
  CU_ASSERT_FATAL (vasprintf (&cmd, fmt, ap) >= 0);
  va_end (ap);
  int st = system (cmd);
  free (cmd);
  return WIFEXITED (st) ? WEXITSTATUS (st) : 128;
}

/* Runs a command and returns its first line of output (static buffer), "" on failure. */
static const char *EBB_PRINTF (1, 2) sh_out (const char *fmt, ...)
{
  static char out[512];
  va_list ap;
  char *cmd = NULL;
  va_start (ap, fmt);
  CU_ASSERT_FATAL (vasprintf (&cmd, fmt, ap) >= 0);
  va_end (ap);
  out[0] = '\0';
  FILE *p = popen (cmd, "r");
  free (cmd);
  if (!p)
    return out;
  if (!fgets (out, sizeof out, p))
    out[0] = '\0';
  pclose (p);
  out[strcspn (out, "\n")] = '\0';
  return out;
}

static const char *
cli (ebb_rt_kind kind)
{
  return ebb_rt_kind_name (kind);
}

/* The image as each engine names it. */
static const char *
img (ebb_rt_kind kind)
{
  static char buf[2][256];
  snprintf (buf[kind], sizeof buf[kind], "%s%s", kind == EBB_RT_PODMAN ? "localhost/" : "", image);
  return buf[kind];
}

/* Podman takes no default cgroup parent from its service: give it one under ours. */
static const char *
parent_opt (ebb_rt_kind kind)
{
  static char buf[600];
  if (kind == EBB_RT_DOCKER)
    return "--network=none";
  snprintf (buf, sizeof buf, "--cgroup-parent=%s-podman", cg_parent);
  return buf;
}

/* Starts a container; returns its id (static) or "" on failure. */
static const char *
run_container (ebb_rt_kind kind, const char *name, const char *labels, const char *extra,
               const char *cmd)
{
  return sh_out ("%s %s %s run -d --name %s %s %s %s %s sh -c '%s' 2>&1", engines_sh, cli (kind),
                 dir, name, parent_opt (kind), labels, extra, img (kind), cmd);
}

#define GOOD_LABELS                                                                                \
  "--label ebb.job=rt-job --label ebb.class=long --label ebb.cpu=500 --label ebb.memory=67108864"
#define BURN "while :; do :; done"

/* Runs the loop until an event of type for id (NULL: any) at index >= from is recorded.
 * Returns its index, or -1 on timeout. */
static ssize_t
wait_event (ebb_rt_event_type type, const char *id, size_t from, uint64_t timeout_usec)
{
  uint64_t end = ebb_now_usec () + timeout_usec;
  for (;;)
    {
      for (size_t i = from; i < rec.n; i++)
        if (rec.ev[i].type == type && (!id || strcmp (rec.ev[i].id, id) == 0))
          return (ssize_t)i;
      uint64_t now = ebb_now_usec ();
      if (now >= end)
        return -1;
      sd_event_run (loop, end - now < 50000 ? end - now : 50000);
    }
}

/* Runs the loop for usec, whatever happens. */
static void
spin (uint64_t usec)
{
  uint64_t end = ebb_now_usec () + usec;
  for (uint64_t now; (now = ebb_now_usec ()) < end;)
    sd_event_run (loop, end - now);
}

static ebb_rt *
connect_rt (ebb_rt_kind kind)
{
  char sock[600];
  snprintf (sock, sizeof sock, "%s/%s.sock", dir, cli (kind));
  ebb_rt_options o = { .backoff_min_usec = 50000, .backoff_max_usec = 500000 };
  ebb_error *err = NULL;
  ebb_rt *rt = ebb_rt_new (loop, kind, sock, &o, on_event, &rec, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rt);
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_CONNECTED, NULL, rec.n, 5000000) >= 0);
  CU_ASSERT_TRUE (ebb_rt_connected (rt));
  return rt;
}

/* The cgroups reported for pid are exactly what /proc says, and they are the container's:
 * below the engine's parent, named after the id, holding the PID. */
static void
check_cgroups (ebb_rt_kind kind, const rec_event *e)
{
  char path[128], text[4096] = "";
  snprintf (path, sizeof path, "/proc/%d/cgroup", (int)e->pid);
  FILE *f = fopen (path, "re");
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  size_t n = fread (text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose (f);
  CU_ASSERT_STRING_EQUAL (e->cgroup_text, text);
  ebb_rt_cgroups cg;
  CU_ASSERT_EQUAL_FATAL (ebb_rt_parse_proc_cgroup (e->cgroup_text, &cg, NULL), 0);
  const char *paths[] = { cg.cpu, cg.cpuacct, cg.memory, cg.freezer };
  const char *names[] = { "cpu", "cpuacct", "memory", "freezer" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (paths); i++)
    {
      CU_ASSERT_PTR_NOT_NULL_FATAL (paths[i]);
      CU_ASSERT_PTR_NOT_NULL (strstr (paths[i], e->id));
      CU_ASSERT_PTR_NOT_NULL (strstr (paths[i], cg_parent));
      CU_ASSERT_PTR_NOT_NULL (strstr (paths[i], kind == EBB_RT_DOCKER ? "-docker/" : "-podman/"));
      char procs[1024];
      snprintf (procs, sizeof procs, "/sys/fs/cgroup/%s%s/cgroup.procs", names[i], paths[i]);
      CU_ASSERT_EQUAL (sh ("grep -qx %d %s", (int)e->pid, procs), 0);
    }
  ebb_rt_cgroups_clear (&cg);
}

/* A labeled CPU burner is discovered through the events stream within 2 s, resolved to its
 * PID and cgroups; a container with bad labels is reported unmanaged; one without ebb labels
 * is not reported. Returns the burner's id in id_out. */
static void
discover (ebb_rt_kind kind, ebb_rt *rt, const char *name, char *id_out)
{
  size_t from = rec.n;
  char plain[96], bad[96];
  snprintf (plain, sizeof plain, "%s-plain", name);
  snprintf (bad, sizeof bad, "%s-bad", name);
  snprintf (id_out, 65, "%s", run_container (kind, plain, "--label other=1", "", "sleep 600"));
  uint64_t t0 = ebb_now_usec ();
  snprintf (id_out, 65, "%s", run_container (kind, name, GOOD_LABELS, "", BURN));
  CU_ASSERT_EQUAL_FATAL (strlen (id_out), 64);
  ssize_t i = wait_event (EBB_RT_CONTAINER_STARTED, id_out, from, DISCOVER_USEC);
  CU_ASSERT_FATAL (i >= 0);
  rec_event *e = &rec.ev[i];
  printf ("\n  %s: discovered %s %.3f s after `run` was started\n", cli (kind), name,
          (double)(e->at_usec - t0) / 1e6);
  CU_ASSERT_STRING_EQUAL (e->name, name);
  CU_ASSERT_TRUE (e->managed);
  int pid = atoi (
      sh_out ("%s %s %s inspect -f '{{.State.Pid}}' %s", engines_sh, cli (kind), dir, name));
  CU_ASSERT_EQUAL (e->pid, pid);
  check_cgroups (kind, e);
  /* Bad labels: reported, not managed, with the reason. */
  const char *bid = run_container (kind, bad,
                                   "--label ebb.job=j --label ebb.class=huge --label ebb.cpu=1 "
                                   "--label ebb.memory=1",
                                   "", "sleep 600");
  char bad_id[65];
  snprintf (bad_id, sizeof bad_id, "%s", bid);
  ssize_t b = wait_event (EBB_RT_CONTAINER_STARTED, bad_id, from, DISCOVER_USEC);
  CU_ASSERT_FATAL (b >= 0);
  CU_ASSERT_FALSE (rec.ev[b].managed);
  CU_ASSERT_PTR_NOT_NULL (strstr (rec.ev[b].reason, "ebb.class"));
  /* The plain container never shows up. */
  spin (300000);
  for (size_t k = from; k < rec.n; k++)
    CU_ASSERT_PTR_NULL (strstr (rec.ev[k].name, "-plain"));
  (void)rt;
}

/* Blocking inspect and list agree with the events. */
static void
inspect_and_list (ebb_rt_kind kind, ebb_rt *rt, const char *name, const char *id)
{
  ebb_rt_info info;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_rt_inspect (rt, name, &info, &err), 0);
  CU_ASSERT_STRING_EQUAL (info.id, id);
  CU_ASSERT_TRUE (info.running);
  CU_ASSERT_TRUE (info.managed);
  CU_ASSERT_STRING_EQUAL (info.job, "rt-job");
  CU_ASSERT_EQUAL (info.cls, EBB_RT_CLASS_LONG);
  CU_ASSERT_EQUAL (info.cpu_millis, 500);
  CU_ASSERT_EQUAL (info.memory_bytes, 67108864);
  CU_ASSERT_EQUAL (info.kind, kind);
  CU_ASSERT_PTR_NOT_NULL (info.cgroups.cpu);
  ebb_rt_info_clear (&info);
  char prefix[13];
  snprintf (prefix, sizeof prefix, "%.12s", id);
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, prefix, &info, NULL), 0);
  CU_ASSERT_STRING_EQUAL (info.id ? info.id : "", id);
  ebb_rt_info_clear (&info);
  /* The start of a name (only "<name>-plain" starts with "<name>-pl"). */
  char start[96];
  snprintf (start, sizeof start, "%s-pl", name);
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, start, &info, NULL), 0);
  CU_ASSERT_TRUE (info.name && strncmp (info.name, start, strlen (start)) == 0);
  ebb_rt_info_clear (&info);
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, "no-such-container", &info, &err), -ENOENT);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, "../../x", &info, &err), -EINVAL);
  ebb_error_free (&err);
  ebb_rt_info *list = NULL;
  int n = ebb_rt_list (rt, false, &list, &err);
  CU_ASSERT_TRUE_FATAL (n >= 2);
  bool found = false;
  for (int i = 0; i < n; i++)
    {
      CU_ASSERT_TRUE (list[i].ours);
      CU_ASSERT_PTR_NULL (strstr (list[i].name, "-plain"));
      found |= strcmp (list[i].id, id) == 0 && list[i].pid > 0;
    }
  CU_ASSERT_TRUE (found);
  ebb_rt_info_array_free (list, (size_t)n);
}

/* kill → DIED with 137 (SIGKILL) within 2 s; rm → REMOVED. */
static void
kill_and_remove (ebb_rt_kind kind, const char *name, const char *id)
{
  size_t from = rec.n;
  CU_ASSERT_EQUAL (sh ("%s %s %s kill %s > /dev/null", engines_sh, cli (kind), dir, name), 0);
  ssize_t i = wait_event (EBB_RT_CONTAINER_DIED, id, from, DISCOVER_USEC);
  CU_ASSERT_FATAL (i >= 0);
  CU_ASSERT_EQUAL (rec.ev[i].exit_code, 137);
  CU_ASSERT_EQUAL (sh ("%s %s %s rm -f %s > /dev/null", engines_sh, cli (kind), dir, name), 0);
  CU_ASSERT_TRUE (wait_event (EBB_RT_CONTAINER_REMOVED, id, from, DISCOVER_USEC) >= 0);
}

/* A container without ebb labels looked up by name (adoption by id) is followed from then
 * on: its kill is reported. */
static void
follow_adopted (ebb_rt_kind kind, ebb_rt *rt, const char *name)
{
  char plain[96];
  snprintf (plain, sizeof plain, "%s-plain", name);
  ebb_rt_info info;
  CU_ASSERT_EQUAL_FATAL (ebb_rt_inspect (rt, plain, &info, NULL), 0);
  CU_ASSERT_FALSE (info.ours);
  CU_ASSERT_TRUE (info.running);
  CU_ASSERT_PTR_NOT_NULL (info.cgroups.memory);
  char id[65];
  snprintf (id, sizeof id, "%s", info.id);
  ebb_rt_info_clear (&info);
  size_t from = rec.n;
  CU_ASSERT_EQUAL (sh ("%s %s %s kill %s > /dev/null", engines_sh, cli (kind), dir, plain), 0);
  ssize_t i = wait_event (EBB_RT_CONTAINER_DIED, id, from, DISCOVER_USEC);
  CU_ASSERT_FATAL (i >= 0);
  CU_ASSERT_EQUAL (rec.ev[i].exit_code, 137);
}

static void
remove_all (ebb_rt_kind kind)
{
  sh ("ids=$(%s %s %s ps -aq); [ -z \"$ids\" ] || %s %s %s rm -f $ids > /dev/null 2>&1", engines_sh,
      cli (kind), dir, engines_sh, cli (kind), dir);
}

static void
basic (ebb_rt_kind kind)
{
  rec.n = 0;
  ebb_rt *rt = connect_rt (kind);
  char id[65], name[64];
  snprintf (name, sizeof name, "rt-%s-1", cli (kind));
  discover (kind, rt, name, id);
  inspect_and_list (kind, rt, name, id);
  kill_and_remove (kind, name, id);
  follow_adopted (kind, rt, name);
  remove_all (kind);
  ebb_rt_free (rt);
}

static void
test_docker_basic (void)
{
  basic (EBB_RT_DOCKER);
}

static void
test_podman_basic (void)
{
  basic (EBB_RT_PODMAN);
}

/* dockerd is SIGKILLed and restarted: the client reports the loss, reconnects, finds the
 * --restart=always container again (restarted by dockerd, new PID) and follows new ones. */
static void
test_docker_restart (void)
{
  rec.n = 0;
  ebb_rt *rt = connect_rt (EBB_RT_DOCKER);
  char id[65];
  snprintf (id, sizeof id, "%s",
            run_container (EBB_RT_DOCKER, "rt-docker-r", GOOD_LABELS, "--restart=always", BURN));
  ssize_t i = wait_event (EBB_RT_CONTAINER_STARTED, id, 0, DISCOVER_USEC);
  CU_ASSERT_FATAL (i >= 0);
  pid_t old_pid = rec.ev[i].pid;
  size_t from = rec.n;
  CU_ASSERT_EQUAL_FATAL (sh ("%s kill-docker %s", engines_sh, dir), 0);
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_DISCONNECTED, NULL, from, 5000000) >= 0);
  CU_ASSERT_FALSE (ebb_rt_connected (rt));
  spin (300000); /* a few failed reconnects */
  uint64_t t0 = ebb_now_usec ();
  CU_ASSERT_EQUAL_FATAL (sh ("%s start-docker %s", engines_sh, dir), 0);
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_CONNECTED, NULL, from, WAIT_USEC) >= 0);
  /* The container is running again: either it survived (same PID, nothing to report) or
   * dockerd restarted it (STARTED with the new PID). Either way the client knows its PID. */
  const char *pid_s = "";
  for (int k = 0; k < 100; k++)
    {
      pid_s = sh_out ("%s docker %s inspect -f '{{.State.Pid}}' rt-docker-r", engines_sh, dir);
      if (atoi (pid_s) > 0)
        break;
      spin (100000);
    }
  pid_t new_pid = atoi (pid_s);
  CU_ASSERT_TRUE_FATAL (new_pid > 0);
  if (new_pid != old_pid)
    {
      ssize_t j = wait_event (EBB_RT_CONTAINER_STARTED, id, from, DISCOVER_USEC);
      CU_ASSERT_FATAL (j >= 0);
      /* The latest STARTED carries the live PID. */
      ssize_t last = j;
      spin (500000);
      for (size_t k = (size_t)j; k < rec.n; k++)
        if (rec.ev[k].type == EBB_RT_CONTAINER_STARTED && strcmp (rec.ev[k].id, id) == 0)
          last = (ssize_t)k;
      CU_ASSERT_EQUAL (rec.ev[last].pid, new_pid);
      check_cgroups (EBB_RT_DOCKER, &rec.ev[last]);
    }
  printf ("\n  docker: dockerd restarted, container PID %d -> %d, back %.3f s after start\n",
          (int)old_pid, (int)new_pid, (double)(ebb_now_usec () - t0) / 1e6);
  /* Still followed: a new container and a kill. */
  from = rec.n;
  char id2[65];
  snprintf (id2, sizeof id2, "%s",
            run_container (EBB_RT_DOCKER, "rt-docker-r2", GOOD_LABELS, "", "sleep 600"));
  CU_ASSERT_TRUE (wait_event (EBB_RT_CONTAINER_STARTED, id2, from, DISCOVER_USEC) >= 0);
  CU_ASSERT_EQUAL (sh ("%s docker %s kill rt-docker-r2 > /dev/null", engines_sh, dir), 0);
  ssize_t d = wait_event (EBB_RT_CONTAINER_DIED, id2, from, DISCOVER_USEC);
  CU_ASSERT_TRUE (d >= 0 && rec.ev[d].exit_code == 137);
  remove_all (EBB_RT_DOCKER);
  ebb_rt_free (rt);
}

/* The Podman service is killed; while it is down, one container is started and another is
 * killed with the CLI (Podman needs no service for that). When the service is back, the
 * re-list reports both: nothing that happened while away is missed. */
static void
test_podman_restart (void)
{
  rec.n = 0;
  ebb_rt *rt = connect_rt (EBB_RT_PODMAN);
  char keep[65], gone[65], fresh[65];
  snprintf (keep, sizeof keep, "%s",
            run_container (EBB_RT_PODMAN, "rt-podman-keep", GOOD_LABELS, "", "sleep 600"));
  snprintf (gone, sizeof gone, "%s",
            run_container (EBB_RT_PODMAN, "rt-podman-gone", GOOD_LABELS, "", "sleep 600"));
  CU_ASSERT_FATAL (wait_event (EBB_RT_CONTAINER_STARTED, keep, 0, DISCOVER_USEC) >= 0);
  CU_ASSERT_FATAL (wait_event (EBB_RT_CONTAINER_STARTED, gone, 0, DISCOVER_USEC) >= 0);
  size_t from = rec.n;
  CU_ASSERT_EQUAL_FATAL (sh ("%s kill-podman %s", engines_sh, dir), 0);
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_DISCONNECTED, NULL, from, 5000000) >= 0);
  CU_ASSERT_EQUAL (sh ("%s podman %s kill rt-podman-gone > /dev/null", engines_sh, dir), 0);
  snprintf (fresh, sizeof fresh, "%s",
            run_container (EBB_RT_PODMAN, "rt-podman-fresh", GOOD_LABELS, "", "sleep 600"));
  CU_ASSERT_EQUAL_FATAL (strlen (fresh), 64);
  spin (300000);
  for (size_t k = from; k < rec.n; k++)
    CU_ASSERT_TRUE (rec.ev[k].type == EBB_RT_ENGINE_DISCONNECTED);
  uint64_t t0 = ebb_now_usec ();
  CU_ASSERT_EQUAL_FATAL (sh ("%s start-podman %s", engines_sh, dir), 0);
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_CONNECTED, NULL, from, WAIT_USEC) >= 0);
  ssize_t s = wait_event (EBB_RT_CONTAINER_STARTED, fresh, from, DISCOVER_USEC);
  ssize_t d = wait_event (EBB_RT_CONTAINER_DIED, gone, from, DISCOVER_USEC);
  CU_ASSERT_TRUE (s >= 0);
  CU_ASSERT_TRUE (d >= 0);
  if (d >= 0)
    CU_ASSERT_EQUAL (rec.ev[d].exit_code, 137);
  if (s >= 0)
    check_cgroups (EBB_RT_PODMAN, &rec.ev[s]);
  printf ("\n  podman: service restarted, missed start and kill reported %.3f s after start\n",
          (double)(ebb_now_usec () - t0) / 1e6);
  /* The one that kept running is not reported again, and is still followed. */
  spin (300000);
  for (size_t k = from; k < rec.n; k++)
    CU_ASSERT_FALSE (strcmp (rec.ev[k].id, keep) == 0);
  from = rec.n;
  CU_ASSERT_EQUAL (sh ("%s podman %s kill rt-podman-keep > /dev/null", engines_sh, dir), 0);
  CU_ASSERT_TRUE (wait_event (EBB_RT_CONTAINER_DIED, keep, from, DISCOVER_USEC) >= 0);
  remove_all (EBB_RT_PODMAN);
  ebb_rt_free (rt);
}

/* No engine at the socket: the client reports it, keeps retrying, and freeing it is clean. */
static void
test_no_engine (void)
{
  rec.n = 0;
  char sock[600];
  snprintf (sock, sizeof sock, "%s/nobody.sock", dir);
  ebb_rt *rt = ebb_rt_new (loop, EBB_RT_DOCKER, sock, NULL, on_event, &rec, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (rt);
  CU_ASSERT_TRUE (wait_event (EBB_RT_ENGINE_DISCONNECTED, NULL, 0, 2000000) >= 0);
  ebb_rt_info info;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_rt_inspect (rt, "x", &info, &err), -ECONNREFUSED);
  ebb_error_free (&err);
  ebb_rt_free (rt);
  CU_ASSERT_PTR_NULL (ebb_rt_new (loop, EBB_RT_DOCKER, "relative.sock", NULL, NULL, NULL, &err));
  CU_ASSERT_EQUAL (ebb_error_code (&err), EINVAL);
  ebb_error_free (&err);
}

static int
init (void)
{
  return sd_event_new (&loop) < 0 ? -1 : 0;
}

static int
clean (void)
{
  sd_event_unref (loop);
  return 0;
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_no_engine),      EBB_CU_TEST (test_docker_basic),
  EBB_CU_TEST (test_podman_basic),   EBB_CU_TEST (test_docker_restart),
  EBB_CU_TEST (test_podman_restart),
};

int
main (void)
{
  dir = getenv ("EBB_RT_DIR");
  engines_sh = getenv ("EBB_RT_ENGINES_SH");
  image = getenv ("EBB_RT_IMAGE");
  const char *parent = getenv ("EBB_RT_CG_PARENT");
  if (!dir || !engines_sh || !image || !parent)
    return ebb_cu_skip ("run me through tests/runtimes/test-engines.sh (it starts the engines)");
  snprintf (cg_parent, sizeof cg_parent, "%s", parent);
  if (getenv ("EBB_RT_VERBOSE"))
    ebb_log_set_level (7);
  return ebb_cu_run ("runtime-engines", init, clean, tests, EBB_ARRAY_SIZE (tests));
}
