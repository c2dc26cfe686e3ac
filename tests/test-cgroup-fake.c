/* libebb-cgroup on fake /proc and cgroup trees in a temporary directory (doc/style.md: roots
 * are injectable): path refusals, "task gone", missing-controller messages, the files read
 * and written by each backend, and the engine's order and exact restoration. Real kernel
 * behaviour is tested by test-cgroup-v1-host (this host) and test-cgroup-v2-live (VM). */
#include "config.h"
#include "cgroup/cgroup.h"
#include "tests/cu.h"
#include "tests/fake-tree.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[] = "/tmp/ebb-cg-fake-XXXXXX";

static void
put (const char *rel, const char *content)
{
  ebb_fake_put (tmp, rel, content);
}

/* Returns the content of a file (static buffer), trailing newline removed. */
static const char *
get (const char *rel)
{
  static char buf[4096];
  char path[512];
  snprintf (path, sizeof path, "%s/%s", tmp, rel);
  buf[0] = '\0';
  FILE *f = fopen (path, "r");
  if (!f)
    return "(missing)";
  size_t n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  if (n && buf[n - 1] == '\n')
    buf[n - 1] = '\0';
  return buf;
}

static void
v2_cgroup (const char *dir)
{
  static const char *const files[][2] = {
    { "cpu.max", "max 100000\n" },
    { "cpu.max.burst", "0\n" },
    { "memory.high", "max\n" },
    { "memory.max", "max\n" },
    { "memory.swap.max", "0\n" },
    { "memory.swap.current", "0\n" },
    { "memory.current", "314572800\n" },
    { "memory.stat", "anon 310000000\nfile 4572800\npgmajfault 3\n" },
    { "cpu.stat", "usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\nnr_periods 7\n"
                  "nr_throttled 2\nthrottled_usec 300\n" },
    { "cpu.pressure", "some avg10=1.50 avg60=0.00 avg300=0.00 total=10\n"
                      "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n" },
    { "memory.pressure", "some avg10=0.00 avg60=0.00 avg300=0.00 total=20\n"
                         "full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n" },
    { "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n" },
    { "memory.reclaim", "" },
    { "cgroup.events", "populated 1\nfrozen 0\n" },
    { "cgroup.freeze", "0\n" },
    { "cgroup.procs", "" },
    { "cgroup.controllers", "cpu memory pids\n" },
    { "cgroup.subtree_control", "\n" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (files); i++)
    {
      char rel[256];
      snprintf (rel, sizeof rel, "%s/%s", dir, files[i][0]);
      put (rel, files[i][1]);
    }
}

static int
init (void)
{
  if (!mkdtemp (tmp))
    return 1;
  ebb_fake_v2_mount (tmp);
  put ("proc/meminfo", "MemTotal: 100 kB\nSwapTotal:       524284 kB\n");
  put ("proc/123/cgroup", "0::/a/b\n");
  put ("proc/124/cgroup", "0::/a/../etc\n");
  v2_cgroup ("cg");
  v2_cgroup ("cg/a");
  v2_cgroup ("cg/a/b");
  v2_cgroup ("cg/c");
  char path[512], target[512];
  snprintf (path, sizeof path, "%s/cg/a/link", tmp);
  snprintf (target, sizeof target, "%s/cg/c", tmp);
  return symlink (target, path) < 0;
}

static int
clean (void)
{
  return ebb_fake_remove (tmp);
}

static void
v1_cgroup (const char *dir)
{
  static const char *const files[][3] = {
    { "cpu,cpuacct", "cpu.cfs_quota_us", "-1\n" },
    { "cpu,cpuacct", "cpu.cfs_period_us", "100000\n" },
    { "cpu,cpuacct", "cpu.cfs_burst_us", "0\n" },
    { "cpu,cpuacct", "cpu.stat", "nr_periods 4\nnr_throttled 3\nthrottled_time 2000\n" },
    { "cpu,cpuacct", "cpuacct.usage", "7000000\n" },
    { "cpu,cpuacct", "cgroup.procs", "" },
    { "memory", "memory.limit_in_bytes", "9223372036854771712\n" },
    { "memory", "memory.usage_in_bytes", "314572800\n" },
    { "memory", "memory.stat",
      "cache 1\nrss 2\ntotal_cache 4096\ntotal_rss 314568704\n"
      "total_pgmajfault 9\n" },
    { "memory", "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n" },
    { "memory", "cgroup.procs", "" },
    { "freezer", "freezer.state", "THAWED\n" },
    { "freezer", "cgroup.procs", "" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (files); i++)
    {
      char rel[256];
      snprintf (rel, sizeof rel, "v1/%s/%s/%s", files[i][0], dir, files[i][1]);
      put (rel, files[i][2]);
    }
}

static ebb_cg_ctx *
fake_v1_ctx (void)
{
  char mi[2048];
  snprintf (mi, sizeof mi,
            "30 22 0:28 / %s/v1 rw - tmpfs tmpfs rw\n"
            "32 30 0:29 / %s/v1/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
            "33 30 0:30 / %s/v1/memory rw - cgroup cgroup rw,memory\n"
            "34 30 0:31 / %s/v1/freezer rw - cgroup cgroup rw,freezer\n"
            "35 30 0:32 / %s/v1/unified rw - cgroup2 cgroup2 rw\n",
            tmp, tmp, tmp, tmp, tmp);
  put ("proc1/self/mountinfo", mi);
  put ("proc1/meminfo", "SwapTotal: 0 kB\n");
  put ("proc1/200/cgroup", "4:memory:/m/t\n3:cpu,cpuacct:/c/t\n2:freezer:/m/t\n0::/\n");
  v1_cgroup ("m/t");
  v1_cgroup ("c/t");
  ebb_cg_ctx *ctx = NULL;
  ebb_error *err = NULL;
  if (ebb_fake_ctx_new (tmp, "proc1", "v1", NULL, &ctx, &err) < 0)
    printf ("v1 ctx: %s\n", ebb_error_msg (&err));
  ebb_error_free (&err);
  return ctx;
}

static ebb_cg_ctx *
fake_ctx (const char *const *roots)
{
  ebb_cg_ctx *ctx = NULL;
  ebb_error *err = NULL;
  int r = ebb_fake_ctx_new (tmp, "proc", "cg", roots, &ctx, &err);
  if (r < 0)
    printf ("ctx: %s\n", ebb_error_msg (&err));
  ebb_error_free (&err);
  return ctx;
}

/* The graceful step of the step tests: half a CPU and 64 MiB. */
static const ebb_cg_step_req half_step = { .cpu_cores = 0.5, .memory_bytes = 64 << 20 };

/* Makes cg/NAME (v2_cgroup), writes content to its file when file is not NULL, and opens
 * it in ctx. */
static ebb_cg *
open_v2 (ebb_cg_ctx *ctx, const char *name, const char *file, const char *content)
{
  char rel[256], path[256];
  snprintf (rel, sizeof rel, "cg/%s", name);
  v2_cgroup (rel);
  if (file)
    {
      snprintf (rel, sizeof rel, "cg/%s/%s", name, file);
      put (rel, content);
    }
  snprintf (path, sizeof path, "/%s", name);
  ebb_cg *cg = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (ctx, path, 0, &cg, NULL), 0);
  return cg;
}

static void
test_v2_read (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  CU_ASSERT_EQUAL (ebb_cg_ctx_layout (ctx), EBB_CG_LAYOUT_V2);
  ebb_cg *cg = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (ctx, "/a/b", 0, &cg, NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_backend (cg), EBB_CG_BACKEND_V2);
  CU_ASSERT_STRING_EQUAL (ebb_cg_path (cg), "/a/b");
  CU_ASSERT_TRUE (ebb_cg_dirfd (cg) >= 0);
  CU_ASSERT_NOT_EQUAL (ebb_cg_inode (cg), 0);
  ebb_cg_stats st;
  CU_ASSERT_EQUAL (ebb_cg_read_stats (cg, &st, NULL), 0);
  CU_ASSERT_EQUAL (st.cpu_usage_usec, 5000);
  CU_ASSERT_EQUAL (st.nr_periods, 7);
  CU_ASSERT_EQUAL (st.nr_throttled, 2);
  CU_ASSERT_EQUAL (st.throttled_usec, 300);
  CU_ASSERT_EQUAL (st.memory_current_bytes, 314572800);
  CU_ASSERT_EQUAL (st.memory_anon_bytes, 310000000);
  CU_ASSERT_EQUAL (st.memory_file_bytes, 4572800);
  CU_ASSERT_EQUAL (st.pgmajfault, 3);
  CU_ASSERT_DOUBLE_EQUAL (st.cpu_psi.some_avg10, 1.5, 1e-9);
  CU_ASSERT_EQUAL (st.memory_psi.full_total_usec, 5);
  CU_ASSERT_EQUAL (st.oom_kill, 0);
  CU_ASSERT_EQUAL (st.frozen, 0);
  uint32_t want = EBB_CG_STAT_CPU | EBB_CG_STAT_THROTTLE | EBB_CG_STAT_MEMORY | EBB_CG_STAT_SWAP
                  | EBB_CG_STAT_PSI_CPU | EBB_CG_STAT_PSI_MEMORY | EBB_CG_STAT_OOM
                  | EBB_CG_STAT_FROZEN | EBB_CG_STAT_PGMAJFAULT;
  CU_ASSERT_EQUAL (st.valid, want);
  ebb_cg_limits l;
  CU_ASSERT_EQUAL (ebb_cg_read_limits (cg, &l, NULL), 0);
  CU_ASSERT_EQUAL (l.cpu_quota_usec, EBB_CG_MAX);
  CU_ASSERT_EQUAL (l.cpu_period_usec, 100000);
  CU_ASSERT_EQUAL (l.memory_high_bytes, EBB_CG_MAX);
  CU_ASSERT_EQUAL (l.swap_max_bytes, 0);
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static void
expect_code (int r, ebb_error **err, int code, const char *needle)
{
  CU_ASSERT_EQUAL (r, -code);
  CU_ASSERT_EQUAL (ebb_error_code (err), code);
  if (needle && !strstr (ebb_error_msg (err), needle))
    {
      printf ("message \"%s\" lacks \"%s\"\n", ebb_error_msg (err), needle);
      CU_FAIL ("error message");
    }
  ebb_error_free (err);
}

static void
test_refusals (void)
{
  static const char *const roots[] = { "/a", NULL };
  ebb_cg_ctx *ctx = fake_ctx (roots);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_cg *cg = NULL;
  ebb_error *err = NULL;
  expect_code (ebb_cg_open_path (ctx, "/a/../c", 0, &cg, &err), &err, EBB_EREFUSED, "\"..\"");
  expect_code (ebb_cg_open_path (ctx, "/c", 0, &cg, &err), &err, EBB_EREFUSED, "outside");
  expect_code (ebb_cg_open_path (ctx, "/ab", 0, &cg, &err), &err, EBB_EREFUSED, "outside");
  expect_code (ebb_cg_open_path (ctx, "a/b", 0, &cg, &err), &err, EBB_EREFUSED, "absolute");
  expect_code (ebb_cg_open_path (ctx, "", 0, &cg, &err), &err, EBB_EREFUSED, NULL);
  expect_code (ebb_cg_open_path (ctx, "/a/link", 0, &cg, &err), &err, EBB_EREFUSED, "symlink");
  expect_code (ebb_cg_open_path (ctx, "/a/nope", 0, &cg, &err), &err, EBB_EGONE, NULL);
  expect_code (ebb_cg_open_pid (ctx, 124, 0, &cg, &err), &err, EBB_EREFUSED, "\"..\"");
  expect_code (ebb_cg_open_pid (ctx, 99999, 0, &cg, &err), &err, EBB_EGONE, "gone");
  CU_ASSERT_PTR_NULL (cg);
  /* accepted forms: repeated slashes, a filesystem path, a process */
  CU_ASSERT_EQUAL (ebb_cg_open_path (ctx, "//a///b/", 0, &cg, NULL), 0);
  CU_ASSERT_STRING_EQUAL (ebb_cg_path (cg), "/a/b");
  ebb_cg_close (cg);
  char fs[512];
  snprintf (fs, sizeof fs, "%s/cg/a/b", tmp);
  CU_ASSERT_EQUAL (ebb_cg_open_path (ctx, fs, 0, &cg, NULL), 0);
  ebb_cg_close (cg);
  CU_ASSERT_EQUAL (ebb_cg_open_pid (ctx, 123, 0, &cg, NULL), 0);
  CU_ASSERT_STRING_EQUAL (ebb_cg_path (cg), "/a/b");
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static void
test_missing_controller_and_gone (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  v2_cgroup ("cg/g");
  char path[512];
  snprintf (path, sizeof path, "%s/cg/g/memory.high", tmp);
  unlink (path);
  put ("cg/g/cgroup.controllers", "cpu pids\n");
  ebb_cg *cg = NULL;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (ctx, "/g", 0, &cg, NULL), 0);
  expect_code (ebb_cg_set_memory_high (cg, 1 << 20, &err), &err, ENOENT,
               "controller memory is not enabled");
  /* out of range CPU values never reach the kernel */
  expect_code (ebb_cg_set_cpu (cg, 999, 100000, &err), &err, EBB_ERANGE, NULL);
  expect_code (ebb_cg_set_cpu (cg, 1000, 999, &err), &err, EBB_ERANGE, NULL);
  expect_code (ebb_cg_set_cpu (cg, 1000, 1000001, &err), &err, EBB_ERANGE, NULL);
  CU_ASSERT_EQUAL (ebb_cg_set_cpu (cg, 1000, 1000, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/g/cpu.max"), "1000 1000");
  /* the cgroup vanishes under the open handle: "task gone" */
  char cmd[600];
  snprintf (cmd, sizeof cmd, "rm -rf '%s/cg/g'", tmp);
  CU_ASSERT_EQUAL (system (cmd), 0);
  ebb_cg_stats st;
  expect_code (ebb_cg_read_stats (cg, &st, &err), &err, EBB_EGONE, "gone");
  expect_code (ebb_cg_set_cpu (cg, 2000, 100000, &err), &err, EBB_EGONE, NULL);
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static void
test_engine_v2_order_and_restore (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_cg *cg = open_v2 (ctx, "e", "cpu.max.burst", "5000\n");
  ebb_cg_engine_config cfg;
  ebb_cg_engine_config_init (&cfg);
  cfg.reclaim_timeout_usec = 200000;
  ebb_cg_result res;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_cg_suspend (cg, &cfg, &res, &err), 0);
  if (err)
    printf ("suspend: %s\n", ebb_error_msg (&err));
  CU_ASSERT_STRING_EQUAL (get ("cg/e/cpu.max"), "1000 100000");
  /* a fake file never answers EINVAL, so the burst stays; the host test covers the
   * kernel's "burst <= quota" rule */
  CU_ASSERT_STRING_EQUAL (get ("cg/e/cpu.max.burst"), "5000");
  CU_ASSERT_STRING_EQUAL (get ("cg/e/memory.high"), "67108864");
  CU_ASSERT_STRING_EQUAL (get ("cg/e/memory.swap.max"), "max"); /* 0 and host swap: raised */
  /* usage did not move (a fake file): nothing was reclaimed, so memory.max stays (a cap
   * just above usage would OOM-kill the next allocation) */
  CU_ASSERT_STRING_EQUAL (get ("cg/e/memory.max"), "max");
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_SUSPENDED);
  CU_ASSERT_EQUAL (res.held_bytes, 314572800);
  CU_ASSERT_EQUAL (res.reclaimed_bytes, 0);
  CU_ASSERT_EQUAL (ebb_cg_get_state (cg), EBB_CG_STATE_SUSPENDED);
  ebb_cg_original o;
  ebb_cg_get_original (cg, &o);
  CU_ASSERT_TRUE (o.recorded && o.swap_raised);
  CU_ASSERT_EQUAL (o.limits.cpu_burst_usec, 5000);
  /* a fresh handle (agent restart) given the journaled originals restores the same */
  ebb_cg_close (cg);
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (ctx, "/e", 0, &cg, NULL), 0);
  ebb_cg_set_original (cg, &o);
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, &err), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/e/cpu.max"), "max 100000");
  CU_ASSERT_STRING_EQUAL (get ("cg/e/cpu.max.burst"), "5000");
  CU_ASSERT_STRING_EQUAL (get ("cg/e/memory.high"), "max");
  CU_ASSERT_STRING_EQUAL (get ("cg/e/memory.max"), "max");
  CU_ASSERT_STRING_EQUAL (get ("cg/e/memory.swap.max"), "0");
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_RUNNING);
  CU_ASSERT_EQUAL (ebb_cg_get_state (cg), EBB_CG_STATE_RUNNING);
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static void
test_graceful_step_fake (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_cg *cg = open_v2 (ctx, "s", "cpu.max", "200000 100000\n");
  ebb_cg_engine_config cfg;
  ebb_cg_engine_config_init (&cfg);
  ebb_cg_result res;
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &half_step, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/s/cpu.max"), "150000 100000");
  CU_ASSERT_STRING_EQUAL (get ("cg/s/memory.high"), "247463936"); /* 300 MiB - 64 MiB */
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_SHRUNK);
  CU_ASSERT_FALSE (res.thrashing);
  /* thrashing appears: memory PSI over the threshold */
  put ("cg/s/memory.pressure", "some avg10=55.00 avg60=0.00 avg300=0.00 total=20\n");
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &half_step, &res, NULL), 0);
  CU_ASSERT_TRUE (res.thrashing);
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_FROZEN_OUT);
  CU_ASSERT_STRING_EQUAL (get ("cg/s/cpu.max"), "1000 100000");
  /* frozen out: further steps change nothing */
  put ("cg/s/cpu.max", "1000 100000\n");
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &half_step, &res, NULL), 0);
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_FROZEN_OUT);
  CU_ASSERT_STRING_EQUAL (get ("cg/s/memory.high"), "180355072"); /* second step only */
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/s/cpu.max"), "200000 100000");
  CU_ASSERT_STRING_EQUAL (get ("cg/s/memory.high"), "max");
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

/* cpu.max unlimited: the step takes its amount from what the task was given (its
 * allocation), so a step of all but the footprint leaves the footprint; without an
 * allocation it counts as all online CPUs. */
static void
test_graceful_step_unlimited_cpu (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_cg *cg = open_v2 (ctx, "u", "cpu.max", "max 100000\n");
  ebb_cg_engine_config cfg;
  ebb_cg_engine_config_init (&cfg);
  ebb_cg_result res;
  /* given 1 CPU, asked for 0.99: 1% of a CPU left */
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg,
                                &(ebb_cg_step_req){ .cpu_cores = 0.99, .given_cores = 1.0 }, &res,
                                NULL),
                   0);
  CU_ASSERT_STRING_EQUAL (get ("cg/u/cpu.max"), "1000 100000");
  CU_ASSERT_EQUAL (res.cpu_quota_usec, 1000);
  /* given 1 CPU, asked for 0.9: 10% left (a part of the allocation, not of the host) */
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/u/cpu.max"), "max 100000");
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg,
                                &(ebb_cg_step_req){ .cpu_cores = 0.9, .given_cores = 1.0 }, &res,
                                NULL),
                   0);
  CU_ASSERT_STRING_EQUAL (get ("cg/u/cpu.max"), "10000 100000");
  /* a second step goes on from the limit now in force, not from the allocation */
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg,
                                &(ebb_cg_step_req){ .cpu_cores = 0.05, .given_cores = 1.0 }, &res,
                                NULL),
                   0);
  CU_ASSERT_STRING_EQUAL (get ("cg/u/cpu.max"), "5000 100000");
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/u/cpu.max"), "max 100000");
  /* no allocation known: unlimited is all online CPUs */
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &(ebb_cg_step_req){ .cpu_cores = 0.5 }, &res, NULL), 0);
  char want[64];
  snprintf (want, sizeof want, "%ld 100000", (n > 0 ? n : 1) * 100000 - 50000);
  CU_ASSERT_STRING_EQUAL (get ("cg/u/cpu.max"), want);
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  /* a limited cpu.max is the base whatever the allocation */
  put ("cg/u/cpu.max", "50000 100000\n");
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg,
                                &(ebb_cg_step_req){ .cpu_cores = 0.3, .given_cores = 1.0 }, &res,
                                NULL),
                   0);
  CU_ASSERT_STRING_EQUAL (get ("cg/u/cpu.max"), "20000 100000");
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/u/cpu.max"), "50000 100000");
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

/* A step with what the scheduler booked: the new limits are the booked holding less the
 * step, whatever the cgroup's limit (unlimited: no guess from the online CPUs) or usage,
 * floored at the footprint, and never above the limits in force. */
static void
test_graceful_step_booked (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_cg *cg = open_v2 (ctx, "k", NULL, NULL); /* cpu.max max, memory.high max, 300 MiB used */
  ebb_cg_engine_config cfg;
  ebb_cg_engine_config_init (&cfg);
  ebb_cg_result res;
  /* Unlimited, booked at one CPU (the task's own idea, given_cores, is 4): 990 of 1000
   * leaves the footprint, not 3.01 CPUs. */
  ebb_cg_step_req rq = { .cpu_cores = 0.99, .booked_cores = 1.0, .given_cores = 4.0 };
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &rq, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/k/cpu.max"), "1000 100000");
  CU_ASSERT_STRING_EQUAL (get ("cg/k/memory.high"), "max"); /* no memory step */
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  /* Memory from the books, not from the usage: booked 512 MiB less 128 MiB is 384 MiB
   * (above the 300 MiB used: nothing to reclaim, the task is held to its books). */
  rq = (ebb_cg_step_req){ .cpu_cores = 0.4,
                          .memory_bytes = 128 << 20,
                          .booked_cores = 1.0,
                          .booked_memory_bytes = 512 << 20 };
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &rq, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/k/cpu.max"), "60000 100000");
  CU_ASSERT_STRING_EQUAL (get ("cg/k/memory.high"), "402653184");
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_SHRUNK);
  /* The next step of the same suspension: booked is what the first one left. */
  rq = (ebb_cg_step_req){ .cpu_cores = 0.5,
                          .memory_bytes = 256 << 20,
                          .booked_cores = 0.6,
                          .booked_memory_bytes = 384 << 20 };
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &rq, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/k/cpu.max"), "10000 100000");
  CU_ASSERT_STRING_EQUAL (get ("cg/k/memory.high"), "134217728");
  /* Booked above the limits in force (a step arriving late): nothing is raised. */
  rq = (ebb_cg_step_req){ .cpu_cores = 0.2,
                          .memory_bytes = 64 << 20,
                          .booked_cores = 1.0,
                          .booked_memory_bytes = 512 << 20 };
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &rq, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/k/cpu.max"), "10000 100000");
  CU_ASSERT_STRING_EQUAL (get ("cg/k/memory.high"), "134217728");
  /* A step below the footprint stops at it. */
  rq = (ebb_cg_step_req){ .memory_bytes = 100 << 20, .booked_memory_bytes = 128 << 20 };
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &rq, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/k/memory.high"), "67108864");
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/k/cpu.max"), "max 100000");
  CU_ASSERT_STRING_EQUAL (get ("cg/k/memory.high"), "max");
  /* A limit above the books (the scheduler booked less than the cgroup allows): from the
   * books. */
  put ("cg/k/cpu.max", "200000 100000\n");
  rq = (ebb_cg_step_req){ .cpu_cores = 0.5, .booked_cores = 1.0 };
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &rq, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/k/cpu.max"), "50000 100000");
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/k/cpu.max"), "200000 100000");
  ebb_cg_close (cg);

  /* v1: cfs_quota_us -1 and no memory limit; the same books give the same limits. */
  ebb_cg_ctx *v1 = fake_v1_ctx ();
  CU_ASSERT_PTR_NOT_NULL_FATAL (v1);
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_pid (v1, 200, 0, &cg, NULL), 0);
  rq = (ebb_cg_step_req){ .cpu_cores = 0.99,
                          .memory_bytes = 128 << 20,
                          .booked_cores = 1.0,
                          .booked_memory_bytes = 256 << 20 };
  CU_ASSERT_EQUAL (ebb_cg_step (cg, NULL, &rq, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("v1/cpu,cpuacct/c/t/cpu.cfs_quota_us"), "1000");
  CU_ASSERT_STRING_EQUAL (get ("v1/memory/m/t/memory.limit_in_bytes"), "134217728");
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, NULL, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("v1/cpu,cpuacct/c/t/cpu.cfs_quota_us"), "-1");
  CU_ASSERT_STRING_EQUAL (get ("v1/memory/m/t/memory.limit_in_bytes"), "-1");
  ebb_cg_close (cg);
  ebb_cg_ctx_free (v1);
  ebb_cg_ctx_free (ctx);
}

static void
test_freeze_timeout_rolls_back (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_cg *cg = NULL;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (ctx, "/c", 0, &cg, NULL), 0);
  /* cgroup.events never says "frozen 1" in a fake tree */
  expect_code (ebb_cg_set_frozen (cg, 1, 30000, &err), &err, EBB_ETIMEDOUT, "rolled back");
  CU_ASSERT_STRING_EQUAL (get ("cg/c/cgroup.freeze"), "0");
  put ("cg/c/cgroup.events", "populated 1\nfrozen 1\n");
  CU_ASSERT_EQUAL (ebb_cg_set_frozen (cg, 1, 30000, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/c/cgroup.freeze"), "1");
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static void
test_create_child_enables_controllers (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_cg *parent = NULL, *child = NULL;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (ctx, "/c", 0, &parent, NULL), 0);
  expect_code (ebb_cg_create_child (parent, "../x", &child, &err), &err, EBB_EREFUSED, NULL);
  CU_ASSERT_EQUAL (ebb_cg_create_child (parent, "task-1", &child, &err), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/c/cgroup.subtree_control"), "+cpu +memory +pids");
  CU_ASSERT_PTR_NOT_NULL_FATAL (child);
  CU_ASSERT_STRING_EQUAL (ebb_cg_path (child), "/c/task-1");
  expect_code (ebb_cg_create_child (parent, "task-1", &child, &err), &err, EEXIST, NULL);
  CU_ASSERT_EQUAL (ebb_cg_remove (child, NULL), 0);
  expect_code (ebb_cg_remove (child, &err), &err, EBB_EGONE, NULL);
  ebb_cg_close (child);
  ebb_cg_close (parent);
  ebb_cg_ctx_free (ctx);
}

/* pids.max (issue 24): written where the pids controller is, ENOTSUP where it is not. */
static void
test_pids_max (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_error *err = NULL;
  ebb_cg *cg = open_v2 (ctx, "p", "pids.max", "max\n");
  CU_ASSERT_EQUAL (ebb_cg_set_pids_max (cg, 100, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/p/pids.max"), "100");
  CU_ASSERT_EQUAL (ebb_cg_set_pids_max (cg, EBB_CG_MAX, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/p/pids.max"), "max");
  ebb_cg_close (cg);
  cg = open_v2 (ctx, "q", "cgroup.controllers", "cpu memory\n");
  expect_code (ebb_cg_set_pids_max (cg, 100, &err), &err, ENOTSUP, "controller pids");
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static int done_order[4];
static int done_n;

static void
on_done (ebb_cg *cg, const ebb_cg_job *job, int rc, const ebb_cg_result *res, ebb_error *err,
         void *userdata)
{
  (void)cg;
  (void)res;
  (void)err;
  CU_ASSERT_EQUAL (rc, 0);
  if (done_n < 4)
    done_order[done_n++] = (int)job->kind * 10 + *(int *)userdata;
}

static int gone_rc;

static void
on_gone (ebb_cg *cg, const ebb_cg_job *job, int rc, const ebb_cg_result *res, ebb_error *err,
         void *userdata)
{
  (void)cg;
  (void)job;
  (void)res;
  (void)userdata;
  gone_rc = rc;
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_EGONE);
}

static void
test_pool (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  v2_cgroup ("cg/p");
  ebb_cg *cg = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (ctx, "/p", 0, &cg, NULL), 0);
  ebb_cg_pool *pool = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_pool_new (2, &pool, NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_pool_new (0, &pool, NULL), -EBB_ERANGE);
  ebb_cg_job s = { .kind = EBB_CG_JOB_SUSPEND }, r = { .kind = EBB_CG_JOB_RESUME };
  ebb_cg_engine_config_init (&s.config);
  s.config.reclaim_timeout_usec = 100000;
  r.config = s.config;
  int one = 1, two = 2;
  done_n = 0;
  CU_ASSERT_EQUAL (ebb_cg_pool_submit (pool, cg, &s, on_done, &one, NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_pool_submit (pool, cg, &r, on_done, &two, NULL), 0);
  CU_ASSERT_TRUE (ebb_cg_pool_busy (pool, cg));
  uint64_t deadline = 50; /* x 100 ms */
  while (done_n < 2 && deadline--)
    {
      struct pollfd pfd = { .fd = ebb_cg_pool_fd (pool), .events = POLLIN };
      if (poll (&pfd, 1, 100) > 0)
        ebb_cg_pool_dispatch (pool);
    }
  CU_ASSERT_EQUAL (done_n, 2);
  CU_ASSERT_EQUAL (done_order[0], EBB_CG_JOB_SUSPEND * 10 + 1);
  CU_ASSERT_EQUAL (done_order[1], EBB_CG_JOB_RESUME * 10 + 2);
  CU_ASSERT_FALSE (ebb_cg_pool_busy (pool, cg));
  CU_ASSERT_STRING_EQUAL (get ("cg/p/cpu.max"), "max 100000"); /* suspend, then resume */
  /* the cgroup vanishes before its job runs: the callback gets EBB_EGONE, not a crash */
  char cmd[600];
  snprintf (cmd, sizeof cmd, "rm -rf '%s/cg/p'", tmp);
  CU_ASSERT_EQUAL (system (cmd), 0);
  gone_rc = 0;
  ebb_cg_job f = { .kind = EBB_CG_JOB_SUSPEND, .config = s.config };
  CU_ASSERT_EQUAL (ebb_cg_pool_submit (pool, cg, &f, on_gone, NULL, NULL), 0);
  for (int i = 0; i < 50 && ebb_cg_pool_busy (pool, cg); i++)
    {
      struct pollfd pfd = { .fd = ebb_cg_pool_fd (pool), .events = POLLIN };
      if (poll (&pfd, 1, 100) > 0)
        ebb_cg_pool_dispatch (pool);
    }
  CU_ASSERT_EQUAL (gone_rc, -EBB_EGONE);
  ebb_cg_pool_free (pool);
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static void
test_v1_fake (void)
{
  ebb_cg_ctx *ctx = fake_v1_ctx ();
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  CU_ASSERT_EQUAL (ebb_cg_ctx_layout (ctx), EBB_CG_LAYOUT_V1);
  CU_ASSERT_PTR_NOT_NULL (ebb_cg_ctx_mount (ctx, "cpuacct"));
  CU_ASSERT_PTR_NULL (ebb_cg_ctx_mount (ctx, "pids"));
  ebb_cg *cg = NULL;
  ebb_error *err = NULL;
  /* by PID: each controller at that process's own path (cpu differs from memory) */
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_pid (ctx, 200, 0, &cg, &err), 0);
  CU_ASSERT_EQUAL (ebb_cg_backend (cg), EBB_CG_BACKEND_V1);
  CU_ASSERT_STRING_EQUAL (ebb_cg_path (cg), "/m/t");
  CU_ASSERT_EQUAL (ebb_cg_dirfd (cg), -1);
  ebb_cg_stats st;
  CU_ASSERT_EQUAL (ebb_cg_read_stats (cg, &st, NULL), 0);
  CU_ASSERT_EQUAL (st.cpu_usage_usec, 7000);
  CU_ASSERT_EQUAL (st.throttled_usec, 2);
  CU_ASSERT_EQUAL (st.nr_throttled, 3);
  CU_ASSERT_EQUAL (st.memory_anon_bytes, 314568704);
  CU_ASSERT_EQUAL (st.pgmajfault, 9);
  CU_ASSERT_EQUAL (st.oom_kill, 1);
  CU_ASSERT_TRUE ((st.valid & EBB_CG_STAT_FROZEN) && st.frozen == 0);
  CU_ASSERT_FALSE (st.valid & (EBB_CG_STAT_PSI_MEMORY | EBB_CG_STAT_SWAP));
  ebb_cg_limits l;
  CU_ASSERT_EQUAL (ebb_cg_read_limits (cg, &l, NULL), 0);
  CU_ASSERT_EQUAL (l.cpu_quota_usec, EBB_CG_MAX);   /* "-1" */
  CU_ASSERT_EQUAL (l.memory_max_bytes, EBB_CG_MAX); /* the kernel's page-rounded "unlimited" */
  CU_ASSERT_FALSE (l.valid & (EBB_CG_LIM_MEMORY_HIGH | EBB_CG_LIM_SWAP_MAX));
  expect_code (ebb_cg_set_memory_high (cg, 1 << 20, &err), &err, ENOTSUP, "memory.high");
  expect_code (ebb_cg_reclaim (cg, 1 << 20, &err), &err, ENOTSUP, NULL);
  expect_code (ebb_cg_set_pids_max (cg, 100, &err), &err, ENOTSUP, "pids hierarchy");
  /* immediate suspend: quota in the cpu hierarchy's own path, memory stepped down (a fake
   * file never says EBUSY, so it reaches the footprint), OOM killer off meanwhile */
  ebb_cg_result res;
  CU_ASSERT_EQUAL (ebb_cg_suspend (cg, NULL, &res, &err), 0);
  ebb_error_free (&err);
  CU_ASSERT_STRING_EQUAL (get ("v1/cpu,cpuacct/c/t/cpu.cfs_quota_us"), "1000");
  CU_ASSERT_STRING_EQUAL (get ("v1/cpu,cpuacct/m/t/cpu.cfs_quota_us"), "-1");
  CU_ASSERT_STRING_EQUAL (get ("v1/memory/m/t/memory.limit_in_bytes"), "67108864");
  CU_ASSERT_STRING_EQUAL (get ("v1/memory/m/t/memory.oom_control"), "1");
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, NULL, &res, &err), 0);
  CU_ASSERT_STRING_EQUAL (get ("v1/cpu,cpuacct/c/t/cpu.cfs_quota_us"), "-1");
  CU_ASSERT_STRING_EQUAL (get ("v1/memory/m/t/memory.limit_in_bytes"), "-1");
  CU_ASSERT_STRING_EQUAL (get ("v1/memory/m/t/memory.oom_control"), "0");
  /* freezer: the request and its confirmation are the same file in v1 (the rollback is
   * covered on v2 above and the real transition by the host test) */
  CU_ASSERT_EQUAL (ebb_cg_set_frozen (cg, 1, 20000, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("v1/freezer/m/t/freezer.state"), "FROZEN");
  ebb_cg_close (cg);
  /* by path: the same path in every hierarchy; the co-mounted cpu,cpuacct dir is created once */
  ebb_cg *parent = NULL, *child = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_cg_open_path (ctx, "/c/t", 0, &parent, NULL), 0);
  CU_ASSERT_EQUAL (ebb_cg_create_child (parent, "k", &child, &err), 0);
  ebb_error_free (&err);
  CU_ASSERT_PTR_NOT_NULL_FATAL (child);
  CU_ASSERT_STRING_EQUAL (ebb_cg_path (child), "/c/t/k");
  CU_ASSERT_EQUAL (ebb_cg_remove (child, NULL), 0);
  ebb_cg_close (child);
  /* One busy hierarchy (here: a fake directory that is not empty): the others are removed,
   * and a retry says busy again, not "already gone", until the last one goes. */
  CU_ASSERT_EQUAL_FATAL (ebb_cg_create_child (parent, "b", &child, NULL), 0);
  put ("v1/memory/c/t/b/busy", "1");
  CU_ASSERT_EQUAL (ebb_cg_remove (child, &err), -ENOTEMPTY);
  ebb_error_free (&err);
  struct stat sb;
  CU_ASSERT_NOT_EQUAL (stat (ebb_fake_path (tmp, "v1/freezer/c/t/b"), &sb), 0);
  CU_ASSERT_NOT_EQUAL (stat (ebb_fake_path (tmp, "v1/cpu,cpuacct/c/t/b"), &sb), 0);
  CU_ASSERT_EQUAL (ebb_cg_remove (child, &err), -ENOTEMPTY);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (unlink (ebb_fake_path (tmp, "v1/memory/c/t/b/busy")), 0);
  CU_ASSERT_EQUAL (ebb_cg_remove (child, NULL), 0);
  CU_ASSERT_NOT_EQUAL (stat (ebb_fake_path (tmp, "v1/memory/c/t/b"), &sb), 0);
  expect_code (ebb_cg_remove (child, &err), &err, EBB_EGONE, "already gone");
  ebb_cg_close (child);
  ebb_cg_close (parent);
  ebb_cg_ctx_free (ctx);
}

static void
test_thrash_by_faults (void)
{
  ebb_cg_ctx *ctx = fake_ctx (NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL (ctx);
  ebb_cg *cg = open_v2 (ctx, "f", NULL, NULL);
  ebb_cg_engine_config cfg;
  ebb_cg_engine_config_init (&cfg);
  cfg.thrash_majfault_delta = 100;
  ebb_cg_result res;
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &half_step, &res, NULL), 0);
  CU_ASSERT_FALSE (res.thrashing);
  put ("cg/f/memory.stat", "anon 310000000\nfile 4572800\npgmajfault 50\n"); /* +47 */
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &half_step, &res, NULL), 0);
  CU_ASSERT_FALSE (res.thrashing);
  put ("cg/f/memory.stat", "anon 310000000\nfile 4572800\npgmajfault 500\n"); /* +450 */
  CU_ASSERT_EQUAL (ebb_cg_step (cg, &cfg, &half_step, &res, NULL), 0);
  CU_ASSERT_TRUE (res.thrashing);
  CU_ASSERT_EQUAL (res.state, EBB_CG_STATE_FROZEN_OUT);
  CU_ASSERT_STRING_EQUAL (get ("cg/f/cpu.max"), "1000 100000");
  CU_ASSERT_EQUAL (ebb_cg_resume (cg, &cfg, &res, NULL), 0);
  CU_ASSERT_STRING_EQUAL (get ("cg/f/cpu.max"), "max 100000");
  ebb_cg_close (cg);
  ebb_cg_ctx_free (ctx);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_v1_fake),
  EBB_CU_TEST (test_thrash_by_faults),
  EBB_CU_TEST (test_v2_read),
  EBB_CU_TEST (test_refusals),
  EBB_CU_TEST (test_missing_controller_and_gone),
  EBB_CU_TEST (test_engine_v2_order_and_restore),
  EBB_CU_TEST (test_graceful_step_fake),
  EBB_CU_TEST (test_graceful_step_unlimited_cpu),
  EBB_CU_TEST (test_graceful_step_booked),
  EBB_CU_TEST (test_freeze_timeout_rolls_back),
  EBB_CU_TEST (test_create_child_enables_controllers),
  EBB_CU_TEST (test_pids_max),
  EBB_CU_TEST (test_pool),
};

EBB_CU_MAIN ("cgroup-fake", init, clean, tests)
