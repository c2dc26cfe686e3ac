/* The systemd backend of libebb-cgroup against a real systemd (PID 1), run by `make check-vm`
 * in the VM booted from a Debian root image (tests/vm/run-systemd.sh). Skips elsewhere.
 *
 * One CPU burner runs in a transient scope the suite creates with StartTransientUnit. Limits
 * changed through the backend must survive `daemon-reload` (systemd re-applies its unit
 * properties on reload: a plain cgroupfs write is undone, which the control test shows), CPU
 * quotas systemd rounds on reload are re-applied exactly, memory limits and the engine's
 * suspend/resume keep working through systemd, freeze goes through FreezeUnit, and the backend
 * survives a restart of the D-Bus daemon. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "cgroup/systemd.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"
#include "tests/cu.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static sd_bus *bus;
static pid_t burner;
static char unit[64];
static char cgdir[640];
static ebb_cg_ctx *ctx;
static ebb_cg *cg;

/* ---- helpers ---- */

static void
read_cg_file (const char *name, char *buf, size_t n)
{
  char path[768];
  snprintf (path, sizeof path, "%s/%s", cgdir, name);
  buf[0] = '\0';
  FILE *f = fopen (path, "re");
  if (!f)
    return;
  if (!fgets (buf, (int)n, f))
    buf[0] = '\0';
  fclose (f);
  buf[strcspn (buf, "\n")] = '\0';
}

/* Waits up to timeout_usec for file `name` to read `want`; returns 1 when it did. */
static int
wait_file (const char *name, const char *want, uint64_t timeout_usec)
{
  char buf[128];
  uint64_t end = ebb_now_usec () + timeout_usec;
  do
    {
      read_cg_file (name, buf, sizeof buf);
      if (strcmp (buf, want) == 0)
        return 1;
      ebb_sleep_usec (50000);
    }
  while (ebb_now_usec () < end);
  printf ("\n  %s is \"%s\", expected \"%s\"\n", name, buf, want);
  return 0;
}

/* CPU time of the burner (utime + stime from /proc, independent of the library), in usec. */
static uint64_t
burner_cpu_usec (void)
{
  char path[64], buf[1024];
  snprintf (path, sizeof path, "/proc/%d/stat", (int)burner);
  FILE *f = fopen (path, "re");
  if (!f)
    return 0;
  size_t n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  char *p = strrchr (buf, ')');
  unsigned long long ut = 0, st = 0;
  if (!p || sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
    return 0;
  return (ut + st) * 1000000ULL / (unsigned long long)sysconf (_SC_CLK_TCK);
}

/* The burner's CPU use over `secs`, in percent of one CPU. */
static double
burner_share (unsigned secs)
{
  uint64_t c0 = burner_cpu_usec (), t0 = ebb_now_usec ();
  ebb_sleep_usec (secs * 1000000ULL);
  uint64_t c1 = burner_cpu_usec (), t1 = ebb_now_usec ();
  return 100.0 * (double)(c1 - c0) / (double)(t1 - t0);
}

/* `systemctl daemon-reload`: Manager.Reload returns once systemd has reloaded. */
static int
daemon_reload (void)
{
  sd_bus_error e = SD_BUS_ERROR_NULL;
  sd_bus_message *m = NULL, *reply = NULL;
  int r = sd_bus_message_new_method_call (bus, &m, "org.freedesktop.systemd1",
                                          "/org/freedesktop/systemd1",
                                          "org.freedesktop.systemd1.Manager", "Reload");
  if (r >= 0)
    r = sd_bus_call (bus, m, 120 * 1000000ULL, &e, &reply);
  if (r < 0)
    printf ("\n  daemon-reload failed: %s\n", e.message ? e.message : strerror (-r));
  sd_bus_error_free (&e);
  sd_bus_message_unref (m);
  sd_bus_message_unref (reply);
  return r < 0 ? r : 0;
}

/* Waits until the handle has seen `n` completed reloads (its Reloading signal). */
static int
wait_handle_reloads (unsigned n)
{
  uint64_t end = ebb_now_usec () + 10000000ULL;
  while (ebb_cg_systemd_reloads (cg) < n && ebb_now_usec () < end)
    {
      cleanup_error ebb_error *err = NULL;
      if (ebb_cg_systemd_verify (cg, 0, &err) < 0)
        printf ("\n  verify: %s\n", ebb_error_msg (&err));
      ebb_sleep_usec (50000);
    }
  return ebb_cg_systemd_reloads (cg) >= n;
}

static void
read_props (ebb_cg_systemd_props *p)
{
  cleanup_error ebb_error *err = NULL;
  memset (p, 0, sizeof *p);
  int r = ebb_cg_systemd_read_props (cg, p, &err);
  if (r < 0)
    printf ("\n  read_props: %s\n", ebb_error_msg (&err));
  CU_ASSERT_EQUAL (r, 0);
}

#define SET_OK(call)                                                                               \
  do                                                                                               \
    {                                                                                              \
      cleanup_error ebb_error *err_ = NULL;                                                        \
      ebb_error **err = &err_;                                                                     \
      int r_ = (call);                                                                             \
      if (r_ < 0)                                                                                  \
        printf ("\n  %s: %s\n", #call, ebb_error_msg (&err_));                                     \
      CU_ASSERT_EQUAL_FATAL (r_, 0);                                                               \
    }                                                                                              \
  while (0)

/* ---- suite setup: a burner in a transient scope ---- */

static int
start_scope (void)
{
  sd_bus_error e = SD_BUS_ERROR_NULL;
  snprintf (unit, sizeof unit, "ebb-test-%d.scope", (int)getpid ());
  int r = sd_bus_call_method (bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                              "org.freedesktop.systemd1.Manager", "StartTransientUnit", &e, NULL,
                              "ssa(sv)a(sa(sv))", unit, "fail", 2, "PIDs", "au", 1,
                              (uint32_t)burner, "Description", "s", "ebb systemd backend test", 0);
  if (r < 0)
    printf ("StartTransientUnit %s: %s\n", unit, e.message ? e.message : strerror (-r));
  sd_bus_error_free (&e);
  if (r < 0)
    return r;
  /* the job runs asynchronously: wait for the burner to land in the scope */
  char path[64], buf[512];
  snprintf (path, sizeof path, "/proc/%d/cgroup", (int)burner);
  for (int i = 0; i < 200; i++)
    {
      FILE *f = fopen (path, "re");
      if (f && fgets (buf, sizeof buf, f) && strstr (buf, unit))
        {
          fclose (f);
          buf[strcspn (buf, "\n")] = '\0';
          snprintf (cgdir, sizeof cgdir, "/sys/fs/cgroup%s", buf + 3); /* "0::/..." */
          return 0;
        }
      if (f)
        fclose (f);
      ebb_sleep_usec (50000);
    }
  printf ("burner %d never moved into %s\n", (int)burner, unit);
  return -1;
}

static int
suite_init (void)
{
  if (sd_bus_open_system (&bus) < 0)
    return -1;
  burner = fork ();
  if (burner < 0)
    return -1;
  if (burner == 0)
    for (volatile unsigned long i = 0;; i++)
      ;
  if (start_scope () < 0)
    return -1;
  ebb_cg_ctx_config cfg;
  ebb_cg_ctx_config_init (&cfg);
  cleanup_error ebb_error *err = NULL;
  if (ebb_cg_ctx_new (&cfg, &ctx, &err) < 0 || ebb_cg_open_pid (ctx, burner, 0, &cg, &err) < 0)
    {
      printf ("open: %s\n", ebb_error_msg (&err));
      return -1;
    }
  printf ("scope %s, cgroup %s, backend %s\n", unit, ebb_cg_path (cg),
          ebb_cg_backend_name (ebb_cg_backend (cg)));
  return 0;
}

static int
suite_clean (void)
{
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
  if (burner > 0)
    {
      kill (burner, SIGKILL);
      waitpid (burner, NULL, 0);
    }
  sd_bus_flush_close_unref (bus);
  return 0;
}

/* ---- tests ---- */

static void
test_unit_found (void)
{
  CU_ASSERT_EQUAL_FATAL (ebb_cg_backend (cg), EBB_CG_BACKEND_SYSTEMD);
  CU_ASSERT_STRING_EQUAL (ebb_cg_systemd_unit (cg), unit);
  /* opening made systemd enable the controllers the engine needs */
  CU_ASSERT (wait_file ("cpu.max", "max 100000", 5000000));
  CU_ASSERT (wait_file ("memory.high", "max", 5000000));
}

static void
test_cpu_quota_survives_reload (void)
{
  ebb_cg_systemd_props p;
  unsigned seen = ebb_cg_systemd_reloads (cg);
  SET_OK (ebb_cg_set_cpu (cg, 1000, 100000, err));
  CU_ASSERT (wait_file ("cpu.max", "1000 100000", 0));
  read_props (&p);
  CU_ASSERT_EQUAL (p.cpu_quota_per_sec_usec, 10000);
  double before = burner_share (2);
  CU_ASSERT_EQUAL_FATAL (daemon_reload (), 0);
  /* read straight from the file, before the backend had any chance to rewrite it */
  CU_ASSERT (wait_file ("cpu.max", "1000 100000", 0));
  CU_ASSERT (wait_handle_reloads (seen + 1));
  read_props (&p);
  CU_ASSERT_EQUAL (p.cpu_quota_per_sec_usec, 10000);
  double after = burner_share (2);
  printf ("\n  suspended at 1%%: burner %.1f%% of a CPU, %.1f%% after daemon-reload\n", before,
          after);
  CU_ASSERT (before <= 2.0);
  CU_ASSERT (after <= 2.0);

  seen = ebb_cg_systemd_reloads (cg);
  SET_OK (ebb_cg_set_cpu (cg, EBB_CG_MAX, 100000, err));
  CU_ASSERT_EQUAL_FATAL (daemon_reload (), 0);
  CU_ASSERT (wait_file ("cpu.max", "max 100000", 0));
  CU_ASSERT (wait_handle_reloads (seen + 1));
  read_props (&p);
  CU_ASSERT_EQUAL (p.cpu_quota_per_sec_usec, UINT64_MAX);
  double resumed = burner_share (2);
  printf ("  resumed: burner %.1f%% of a CPU after daemon-reload\n", resumed);
  CU_ASSERT (resumed >= 80.0);
}

/* The reason for the backend: a plain cgroupfs write is undone by the next reload. */
static void
test_files_only_write_is_undone (void)
{
  ebb_cg *files = NULL;
  cleanup_error ebb_error *err = NULL;
  int r = ebb_cg_open_path (ctx, ebb_cg_path (cg), EBB_CG_OPEN_FILES_ONLY, &files, &err);
  CU_ASSERT_EQUAL_FATAL (r, 0);
  CU_ASSERT_EQUAL (ebb_cg_backend (files), EBB_CG_BACKEND_V2);
  CU_ASSERT_EQUAL (ebb_cg_set_cpu (files, 1000, 100000, &err), 0);
  CU_ASSERT (wait_file ("cpu.max", "1000 100000", 0));
  CU_ASSERT_EQUAL (daemon_reload (), 0);
  CU_ASSERT (wait_file ("cpu.max", "max 100000", 5000000));
  printf ("\n  files-only write of 1000/100000: undone by daemon-reload\n");
  ebb_cg_close (files);
}

/* systemd stores the quota as whole percent for reload; the backend rewrites the exact one. */
static void
test_rounded_quota_reapplied (void)
{
  ebb_cg_systemd_props p;
  SET_OK (ebb_cg_set_cpu (cg, 12345, 100000, err)); /* also takes in earlier reload signals */
  unsigned seen = ebb_cg_systemd_reloads (cg);
  CU_ASSERT (wait_file ("cpu.max", "12345 100000", 0));
  read_props (&p);
  CU_ASSERT_EQUAL (p.cpu_quota_per_sec_usec, 123450);
  CU_ASSERT_EQUAL_FATAL (daemon_reload (), 0);
  /* systemd's own value after the reload, before the backend looks */
  CU_ASSERT (wait_file ("cpu.max", "12000 100000", 5000000));
  uint64_t end = ebb_now_usec () + 10000000ULL;
  int rewritten = 0;
  while (ebb_cg_systemd_reloads (cg) <= seen && ebb_now_usec () < end)
    {
      cleanup_error ebb_error *err = NULL;
      int r = ebb_cg_systemd_verify (cg, 0, &err);
      CU_ASSERT (r >= 0);
      rewritten += r > 0 ? r : 0;
      ebb_sleep_usec (50000);
    }
  CU_ASSERT_EQUAL (rewritten, 1);
  CU_ASSERT (wait_file ("cpu.max", "12345 100000", 0));
  read_props (&p);
  printf ("\n  12345/100000: systemd holds %llu us/s after reload, cpu.max re-applied exactly\n",
          (unsigned long long)p.cpu_quota_per_sec_usec);
  CU_ASSERT_EQUAL (p.cpu_quota_per_sec_usec, 120000);
  SET_OK (ebb_cg_set_cpu (cg, EBB_CG_MAX, 100000, err));
}

static void
test_memory_limits_survive_reload (void)
{
  ebb_cg_systemd_props p;
  SET_OK (ebb_cg_set_memory_high (cg, 64ULL << 20, err));
  SET_OK (ebb_cg_set_memory_max (cg, 256ULL << 20, err));
  SET_OK (ebb_cg_set_swap_max (cg, 128ULL << 20, err));
  CU_ASSERT (wait_file ("memory.high", "67108864", 0));
  read_props (&p);
  CU_ASSERT_EQUAL (p.memory_high_bytes, 64ULL << 20);
  CU_ASSERT_EQUAL (p.memory_max_bytes, 256ULL << 20);
  CU_ASSERT_EQUAL (p.memory_swap_max_bytes, 128ULL << 20);
  CU_ASSERT_EQUAL_FATAL (daemon_reload (), 0);
  CU_ASSERT (wait_file ("memory.high", "67108864", 0));
  CU_ASSERT (wait_file ("memory.max", "268435456", 0));
  CU_ASSERT (wait_file ("memory.swap.max", "134217728", 0));
  SET_OK (ebb_cg_set_memory_high (cg, EBB_CG_MAX, err));
  SET_OK (ebb_cg_set_memory_max (cg, EBB_CG_MAX, err));
  SET_OK (ebb_cg_set_swap_max (cg, EBB_CG_MAX, err));
  CU_ASSERT_EQUAL_FATAL (daemon_reload (), 0);
  CU_ASSERT (wait_file ("memory.high", "max", 0));
  CU_ASSERT (wait_file ("memory.max", "max", 0));
  CU_ASSERT (wait_file ("memory.swap.max", "max", 0));
  read_props (&p);
  CU_ASSERT_EQUAL (p.memory_high_bytes, UINT64_MAX);
}

/* The engine on a systemd-backed handle: suspend, reload, resume to the exact originals. */
static void
test_engine_suspend_resume (void)
{
  ebb_cg_engine_config cfg;
  ebb_cg_result res;
  ebb_cg_engine_config_init (&cfg);
  SET_OK (ebb_cg_suspend (cg, &cfg, &res, err));
  CU_ASSERT (wait_file ("cpu.max", "1000 100000", 0));
  CU_ASSERT (wait_file ("memory.high", "67108864", 0));
  CU_ASSERT_EQUAL_FATAL (daemon_reload (), 0);
  CU_ASSERT (wait_file ("cpu.max", "1000 100000", 0));
  CU_ASSERT (wait_file ("memory.high", "67108864", 0));
  double suspended = burner_share (2);
  SET_OK (ebb_cg_resume (cg, &cfg, &res, err));
  CU_ASSERT_EQUAL_FATAL (daemon_reload (), 0);
  CU_ASSERT (wait_file ("cpu.max", "max 100000", 0));
  CU_ASSERT (wait_file ("memory.high", "max", 0));
  CU_ASSERT (wait_file ("memory.max", "max", 0));
  double resumed = burner_share (2);
  printf ("\n  engine: suspended %.1f%%, resumed %.1f%% of a CPU (daemon-reload after each)\n",
          suspended, resumed);
  CU_ASSERT (suspended <= 2.0);
  CU_ASSERT (resumed >= 80.0);
}

static void
test_freeze_thaw_through_unit (void)
{
  ebb_cg_systemd_props p;
  SET_OK (ebb_cg_set_frozen (cg, 1, 10000000, err));
  read_props (&p);
  CU_ASSERT_STRING_EQUAL (p.freezer_state, "frozen");
  double frozen = burner_share (1);
  SET_OK (ebb_cg_set_frozen (cg, 0, 10000000, err));
  read_props (&p);
  CU_ASSERT_STRING_EQUAL (p.freezer_state, "running");
  printf ("\n  frozen through FreezeUnit: burner %.1f%% of a CPU\n", frozen);
  CU_ASSERT (frozen <= 1.0);
}

/* The D-Bus daemon restarts: the handle's connection drops and is re-opened. */
static void
test_reconnect_after_bus_restart (void)
{
  unsigned before = ebb_cg_systemd_reconnects (cg);
  CU_ASSERT_EQUAL_FATAL (system ("systemctl restart dbus.service"), 0);
  int r = -1;
  uint64_t end = ebb_now_usec () + 30000000ULL;
  while (r < 0 && ebb_now_usec () < end) /* until systemd is back on the new bus */
    {
      cleanup_error ebb_error *err = NULL;
      r = ebb_cg_set_cpu (cg, 50000, 100000, &err);
      if (r < 0)
        ebb_sleep_usec (200000);
    }
  CU_ASSERT_EQUAL_FATAL (r, 0);
  CU_ASSERT (ebb_cg_systemd_reconnects (cg) > before);
  ebb_cg_systemd_props p;
  read_props (&p);
  CU_ASSERT_EQUAL (p.cpu_quota_per_sec_usec, 500000);
  CU_ASSERT (wait_file ("cpu.max", "50000 100000", 0));
  printf ("\n  after restarting dbus: %u reconnect(s), CPUQuotaPerSecUSec %llu\n",
          ebb_cg_systemd_reconnects (cg) - before, (unsigned long long)p.cpu_quota_per_sec_usec);
}

/* The scope's processes exit, systemd removes the unit and its cgroup: "task gone", not a
 * failure to retry. */
static void
test_unit_gone (void)
{
  kill (burner, SIGKILL);
  waitpid (burner, NULL, 0);
  burner = 0;
  struct stat st;
  for (int i = 0; i < 200 && stat (cgdir, &st) == 0; i++)
    ebb_sleep_usec (50000);
  CU_ASSERT_NOT_EQUAL (stat (cgdir, &st), 0);
  cleanup_error ebb_error *err = NULL;
  int r = ebb_cg_set_cpu (cg, 1000, 100000, &err);
  printf ("\n  after the scope went away: %s\n", r < 0 ? ebb_error_msg (&err) : "success?");
  CU_ASSERT_EQUAL (r, -EBB_EGONE);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_unit_found),
  EBB_CU_TEST (test_cpu_quota_survives_reload),
  EBB_CU_TEST (test_files_only_write_is_undone),
  EBB_CU_TEST (test_rounded_quota_reapplied),
  EBB_CU_TEST (test_memory_limits_survive_reload),
  EBB_CU_TEST (test_engine_suspend_resume),
  EBB_CU_TEST (test_freeze_thaw_through_unit),
  EBB_CU_TEST (test_reconnect_after_bus_restart),
  EBB_CU_TEST (test_unit_gone),
};

int
main (void)
{
  struct statfs sf;
  if (sd_booted () <= 0)
    return ebb_cu_skip ("PID 1 is not systemd (run by make check-vm in the systemd VM)");
  if (statfs ("/sys/fs/cgroup", &sf) < 0 || sf.f_type != CGROUP2_SUPER_MAGIC)
    return ebb_cu_skip ("/sys/fs/cgroup is not the unified cgroup v2 hierarchy");
  if (geteuid () != 0)
    return ebb_cu_skip ("needs root to create transient units");
  ebb_log_set_level (LOG_INFO);
  return ebb_cu_run ("cgroup-systemd-live", suite_init, suite_clean, tests, EBB_ARRAY_SIZE (tests));
}
