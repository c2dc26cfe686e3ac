/* libebb-cgroup on this host's real cgroup v1 (cpu, cpuacct, memory, freezer hierarchies):
 * a CPU burner suspended and resumed through the engine, freeze/thaw, and a process
 * holding 300 MB of anonymous memory without swap. Test cgroups are fresh children of this
 * process's own cgroups and are removed afterwards, also after a failed assertion.
 *
 * CPU figures come from /proc/PID/stat (utime + stime), not from the library. The machine
 * is shared with other builds: "resumed" passes when the burner gets >= 80% of a CPU, or
 * >= 80% of what an identical uncontrolled burner gets in the same 2 s window. */
#include "config.h"
#include "cgroup/cgroup-internal.h"
#include "tests/cu.h"
#include "tests/cgroup-live.h"

#include <sys/stat.h>

/* A raw controller file of the test cgroup, first line, as the test's own view. */
static void
raw (ebb_cg *cg, ebb_cg_ctrl c, const char *name, char *buf, size_t n)
{
  live_raw_at (cg->ctrl_fd[c], name, buf, n);
}

static void
test_cpu_suspend_resume (void)
{
  ebb_cg *cg = live_test_cgroup ("cpu");
  CU_ASSERT_PTR_NOT_NULL_FATAL (cg);
  live_child burner, ref;
  CU_ASSERT_EQUAL_FATAL (live_spawn (&burner, 0), 0);
  CU_ASSERT_EQUAL_FATAL (live_spawn (&ref, 0), 0);
  CU_ASSERT_EQUAL_FATAL (live_attach (cg, burner.pid), 0);
  CU_ASSERT_EQUAL_FATAL (live_start (&burner), 0);
  CU_ASSERT_EQUAL_FATAL (live_start (&ref), 0);
  /* Originals with a burst: the footprint quota (1000) is below it, so the kernel wants the
   * burst lowered first; resume must bring back both exactly. */
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_cg_set_cpu (cg, 150000, 100000, &err), 0);
  CU_ASSERT_EQUAL (
      ebb_cg_write_at (cg->ctrl_fd[EBB_CG_CTRL_CPU], "cpu.cfs_burst_us", "20000", &err), 0);
  ebb_error_free (&err);
  char before[64], after[64], burst[64];
  raw (cg, EBB_CG_CTRL_CPU, "cpu.cfs_quota_us", before, sizeof before);
  CU_ASSERT_STRING_EQUAL (before, "150000");

  ebb_cg_result res;
  CU_ASSERT_EQUAL (ebb_cg_suspend (cg, NULL, &res, &err), 0);
  if (err)
    printf ("suspend: %s\n", ebb_error_msg (&err));
  ebb_error_free (&err);
  raw (cg, EBB_CG_CTRL_CPU, "cpu.cfs_quota_us", after, sizeof after);
  CU_ASSERT_STRING_EQUAL (after, "1000");
  raw (cg, EBB_CG_CTRL_CPU, "cpu.cfs_burst_us", burst, sizeof burst);
  CU_ASSERT_STRING_EQUAL (burst, "1000");
  ebb_sleep_usec (300000); /* let the current period's budget run out */
  pid_t pids[2] = { burner.pid, ref.pid };
  double share[2];
  live_cpu_share (pids, share, 2, 2000000);
  printf ("\n  suspended: burner %.1f%% of a CPU (reference %.1f%%)\n", share[0] * 100,
          share[1] * 100);
  CU_ASSERT_TRUE (share[0] >= 0 && share[0] <= 0.02);

  CU_ASSERT_EQUAL (ebb_cg_resume (cg, NULL, &res, &err), 0);
  ebb_error_free (&err);
  raw (cg, EBB_CG_CTRL_CPU, "cpu.cfs_quota_us", after, sizeof after);
  CU_ASSERT_STRING_EQUAL (after, before); /* exactly the originals */
  raw (cg, EBB_CG_CTRL_CPU, "cpu.cfs_burst_us", burst, sizeof burst);
  CU_ASSERT_STRING_EQUAL (burst, "20000");
  live_cpu_share (pids, share, 2, 2000000);
  printf ("  resumed: burner %.1f%% of a CPU (reference %.1f%%)\n", share[0] * 100, share[1] * 100);
  CU_ASSERT_TRUE (share[0] >= 0.80 || share[0] >= 0.80 * share[1]);
  CU_ASSERT_TRUE (share[0] > 0.10); /* far above the 2% of a suspended task, however busy */

  ebb_cg_stats st;
  CU_ASSERT_EQUAL (ebb_cg_read_stats (cg, &st, NULL), 0);
  CU_ASSERT_TRUE (st.valid & EBB_CG_STAT_THROTTLE);
  CU_ASSERT_TRUE (st.nr_throttled > 0);        /* the kernel did throttle it while suspended */
  CU_ASSERT_TRUE (st.cpu_usage_usec > 300000); /* cpuacct saw the resumed burner */
  live_kill (burner.pid);
  live_kill (ref.pid);
  CU_ASSERT_EQUAL (live_drop_cgroup (cg), 0);
}

/* A graceful step on a cgroup without a CPU limit (cfs_quota_us -1) takes its amount from
 * what the scheduler booked, as the controller sends it (the caller's own idea, given_cores,
 * is left out): 1 CPU booked, 0.99 taken, the burner is left at 1% of a CPU. */
static void
test_step_unlimited_cpu (void)
{
  ebb_cg *cg = live_test_cgroup ("stepu");
  CU_ASSERT_PTR_NOT_NULL_FATAL (cg);
  live_child burner;
  CU_ASSERT_EQUAL_FATAL (live_spawn (&burner, 0), 0);
  CU_ASSERT_EQUAL_FATAL (live_attach (cg, burner.pid), 0);
  CU_ASSERT_EQUAL_FATAL (live_start (&burner), 0);
  char q[64];
  raw (cg, EBB_CG_CTRL_CPU, "cpu.cfs_quota_us", q, sizeof q);
  CU_ASSERT_STRING_EQUAL (q, "-1");
  ebb_error *err = NULL;
  ebb_cg_result res;
  CU_ASSERT_EQUAL (ebb_cg_step (cg, NULL,
                                &(ebb_cg_step_req){ .cpu_cores = 0.99, .booked_cores = 1.0 }, &res,
                                &err),
                   0);
  if (err)
    printf ("step: %s\n", ebb_error_msg (&err));
  ebb_error_free (&err);
  raw (cg, EBB_CG_CTRL_CPU, "cpu.cfs_quota_us", q, sizeof q);
  CU_ASSERT_STRING_EQUAL (q, "1000");
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_SHRUNK);
  ebb_sleep_usec (300000); /* let the current period's budget run out */
  double share;
  live_cpu_share (&burner.pid, &share, 1, 2000000);
  printf ("\n  stepped from unlimited: burner %.1f%% of a CPU\n", share * 100);
  CU_ASSERT_TRUE (share >= 0 && share <= 0.02);
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, NULL, &res, &err), 0);
  ebb_error_free (&err);
  raw (cg, EBB_CG_CTRL_CPU, "cpu.cfs_quota_us", q, sizeof q);
  CU_ASSERT_STRING_EQUAL (q, "-1");
  live_cpu_share (&burner.pid, &share, 1, 1000000);
  printf ("  resumed: burner %.1f%% of a CPU\n", share * 100);
  CU_ASSERT_TRUE (share > 0.10);
  live_kill (burner.pid);
  CU_ASSERT_EQUAL (live_drop_cgroup (cg), 0);
}

static void
test_freeze_thaw (void)
{
  ebb_cg *cg = live_test_cgroup ("frz");
  CU_ASSERT_PTR_NOT_NULL_FATAL (cg);
  live_child c;
  CU_ASSERT_EQUAL_FATAL (live_spawn (&c, 0), 0);
  CU_ASSERT_EQUAL_FATAL (live_attach (cg, c.pid), 0);
  CU_ASSERT_EQUAL_FATAL (live_start (&c), 0);
  ebb_error *err = NULL;
  uint64_t t0 = ebb_now_usec ();
  CU_ASSERT_EQUAL (ebb_cg_set_frozen (cg, 1, 2000000, &err), 0);
  printf ("\n  freeze confirmed in %llu µs\n", (unsigned long long)(ebb_now_usec () - t0));
  ebb_error_free (&err);
  char state[32];
  raw (cg, EBB_CG_CTRL_FREEZER, "freezer.state", state, sizeof state);
  CU_ASSERT_STRING_EQUAL (state, "FROZEN");
  ebb_cg_stats st;
  CU_ASSERT_EQUAL (ebb_cg_read_stats (cg, &st, NULL), 0);
  CU_ASSERT_TRUE ((st.valid & EBB_CG_STAT_FROZEN) && st.frozen == 1);
  double share;
  live_cpu_share (&c.pid, &share, 1, 500000);
  CU_ASSERT_TRUE (share >= 0 && share < 0.01);
  CU_ASSERT_EQUAL (ebb_cg_set_frozen (cg, 0, 2000000, &err), 0);
  ebb_error_free (&err);
  raw (cg, EBB_CG_CTRL_FREEZER, "freezer.state", state, sizeof state);
  CU_ASSERT_STRING_EQUAL (state, "THAWED");
  /* running again: well above the frozen bound, even on a machine loaded by other builds */
  live_cpu_share (&c.pid, &share, 1, 1000000);
  printf ("  thawed: %.1f%% of a CPU\n", share * 100);
  CU_ASSERT_TRUE (share > 0.05);
  live_kill (c.pid);
  CU_ASSERT_EQUAL (live_drop_cgroup (cg), 0);
}

static void
test_memory_held_no_swap (void)
{
  ebb_cg *cg = live_test_cgroup ("mem");
  CU_ASSERT_PTR_NOT_NULL_FATAL (cg);
  /* A non-trivial original limit, to prove it comes back to the byte. */
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_set_memory_max (cg, 1ULL << 30, &err), 0);
  char before[64], during[64], after[64];
  raw (cg, EBB_CG_CTRL_MEMORY, "memory.limit_in_bytes", before, sizeof before);
  CU_ASSERT_STRING_EQUAL (before, "1073741824");
  live_child h;
  CU_ASSERT_EQUAL_FATAL (live_spawn (&h, 300u << 20), 0);
  CU_ASSERT_EQUAL_FATAL (live_attach (cg, h.pid), 0);
  CU_ASSERT_EQUAL_FATAL (live_start (&h), 0);

  ebb_cg_result res;
  CU_ASSERT_EQUAL (ebb_cg_suspend (cg, NULL, &res, &err), 0);
  if (err)
    printf ("suspend: %s\n", ebb_error_msg (&err));
  ebb_error_free (&err);
  raw (cg, EBB_CG_CTRL_MEMORY, "memory.limit_in_bytes", during, sizeof during);
  printf ("\n  suspend: before %llu, after %llu, reclaimed %llu, held %llu bytes in %llu ms; "
          "limit_in_bytes %s\n",
          (unsigned long long)res.memory_before_bytes, (unsigned long long)res.memory_after_bytes,
          (unsigned long long)res.reclaimed_bytes, (unsigned long long)res.held_bytes,
          (unsigned long long)res.elapsed_usec / 1000, during);
  /* ≈300 MB held: nothing can go without swap; never less than the buffer itself */
  CU_ASSERT_TRUE (res.held_bytes >= (300ULL << 20) && res.held_bytes <= (340ULL << 20));
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_SUSPENDED);
  ebb_cg_stats st;
  CU_ASSERT_EQUAL (ebb_cg_read_stats (cg, &st, NULL), 0);
  CU_ASSERT_EQUAL (st.oom_kill, 0);
  /* capped just above what it holds (it cannot grow while suspended), never below */
  CU_ASSERT_TRUE (strtoull (during, NULL, 10) >= st.memory_current_bytes);
  CU_ASSERT_TRUE (strtoull (during, NULL, 10) < (1ULL << 30));
  char oom[256];
  raw (cg, EBB_CG_CTRL_MEMORY, "memory.oom_control", oom, sizeof oom);
  CU_ASSERT_STRING_EQUAL (oom, "oom_kill_disable 1"); /* first line: waits, never killed */
  ebb_sleep_usec (500000);
  CU_ASSERT_TRUE (live_alive (h.pid));

  CU_ASSERT_EQUAL (ebb_cg_resume (cg, NULL, &res, &err), 0);
  ebb_error_free (&err);
  raw (cg, EBB_CG_CTRL_MEMORY, "memory.limit_in_bytes", after, sizeof after);
  CU_ASSERT_STRING_EQUAL (after, before);
  raw (cg, EBB_CG_CTRL_MEMORY, "memory.oom_control", oom, sizeof oom);
  CU_ASSERT_STRING_EQUAL (oom, "oom_kill_disable 0");
  CU_ASSERT_TRUE (live_alive (h.pid));
  /* the holder checks all 300 MB and exits 0 when nothing was lost */
  CU_ASSERT_TRUE (live_holder_intact (&h));
  CU_ASSERT_EQUAL (ebb_cg_read_stats (cg, &st, NULL), 0);
  CU_ASSERT_EQUAL (st.oom_kill, 0);
  CU_ASSERT_EQUAL (live_drop_cgroup (cg), 0);
}

static void
test_gone_and_refused (void)
{
  ebb_cg *cg = live_test_cgroup ("gone");
  CU_ASSERT_PTR_NOT_NULL_FATAL (cg);
  char path[512];
  snprintf (path, sizeof path, "%s", ebb_cg_path (cg));
  ebb_cg *again = NULL;
  CU_ASSERT_EQUAL (ebb_cg_open_path (live_ctx, path, EBB_CG_OPEN_FILES_ONLY, &again, NULL), 0);
  CU_ASSERT_EQUAL (live_drop_cgroup (cg), 0);
  ebb_error *err = NULL;
  ebb_cg_stats st;
  CU_ASSERT_EQUAL (ebb_cg_read_stats (again, &st, &err), -EBB_EGONE);
  ebb_error_free (&err);
  /* on this host the path exists in the memory hierarchy only (cpu has its own tree) */
  CU_ASSERT_EQUAL (ebb_cg_set_memory_max (again, 1 << 30, &err), -EBB_EGONE);
  ebb_error_free (&err);
  ebb_cg_close (again);
  CU_ASSERT_EQUAL (ebb_cg_open_path (live_ctx, path, 0, &again, &err), -EBB_EGONE);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_cg_open_path (live_ctx, "/../etc", 0, &again, &err), -EBB_EREFUSED);
  ebb_error_free (&err);
  /* a process that does not exist: "task gone", not a failure */
  CU_ASSERT_EQUAL (ebb_cg_attach_pid (live_self_cg, 999999999, &err), -EBB_EGONE);
  ebb_error_free (&err);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_cpu_suspend_resume), EBB_CU_TEST (test_step_unlimited_cpu),
  EBB_CU_TEST (test_freeze_thaw),        EBB_CU_TEST (test_memory_held_no_swap),
  EBB_CU_TEST (test_gone_and_refused),
};

int
main (void)
{
  if (geteuid () != 0)
    return ebb_cu_skip ("not root: cannot create cgroups");
  ebb_cg_ctx *probe = NULL;
  if (live_ctx_new (&probe, NULL) < 0 || ebb_cg_ctx_layout (probe) != EBB_CG_LAYOUT_V1)
    {
      ebb_cg_ctx_free (probe);
      return ebb_cu_skip ("no cgroup v1 hierarchies at /sys/fs/cgroup");
    }
  static const char *const need[] = { "cpu", "cpuacct", "memory", "freezer" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (need); i++)
    if (!ebb_cg_ctx_mount (probe, need[i]))
      {
        ebb_cg_ctx_free (probe);
        return ebb_cu_skip ("a v1 hierarchy (cpu, cpuacct, memory, freezer) is not mounted");
      }
  ebb_cg_ctx_free (probe);
  return ebb_cu_run ("cgroup-v1-host", live_suite_init, live_suite_clean, tests,
                     EBB_ARRAY_SIZE (tests));
}
