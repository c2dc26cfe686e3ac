/* The cgroup v1 files backend: cpu, cpuacct, memory and freezer, each possibly its own
 * hierarchy (hybrid hosts). v1 has no memory.high, memory.reclaim or per-cgroup swap limit
 * of its own; those ops are absent and the engine steps memory.limit_in_bytes instead. */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <string.h>

#define FD(cg, c) ((cg)->ctrl_fd[EBB_CG_CTRL_##c])

static int
opt_u64 (ebb_cg *cg, int fd, const char *name, uint64_t *out, ebb_error **err)
{
  cleanup_free char *t = NULL;
  int r = ebb_cg_read_optional (cg, fd, name, &t, err);
  if (r <= 0)
    return r;
  /* v1 writes "-1" for an unlimited quota */
  if (strncmp (t, "-1", 2) == 0)
    {
      *out = EBB_CG_MAX;
      return 1;
    }
  if (ebb_cg_parse_u64_or_max (t, out, err) < 0)
    return ebb_error_wrap (err, "cgroup %s: %s", cg->path, name);
  return 1;
}

static int
stats_cpu (ebb_cg *cg, ebb_cg_stats *st, ebb_error **err)
{
  uint64_t ns = 0;
  int r = opt_u64 (cg, FD (cg, CPUACCT), "cpuacct.usage", &ns, err);
  if (r > 0)
    {
      st->cpu_usage_usec = ns / 1000;
      st->valid |= EBB_CG_STAT_CPU;
    }
  cleanup_free char *t = NULL;
  if (r >= 0)
    r = ebb_cg_read_optional (cg, FD (cg, CPU), "cpu.stat", &t, err);
  if (r > 0)
    {
      uint64_t tns = 0;
      if (ebb_cg_parse_keyed (t, "nr_periods", &st->nr_periods, err) < 0
          || ebb_cg_parse_keyed (t, "nr_throttled", &st->nr_throttled, err) < 0
          || ebb_cg_parse_keyed (t, "throttled_time", &tns, err) < 0)
        return ebb_error_wrap (err, "cgroup %s: cpu.stat", cg->path);
      st->throttled_usec = tns / 1000;
      st->valid |= EBB_CG_STAT_THROTTLE;
    }
  return r < 0 ? r : 0;
}

static int
stats_memory (ebb_cg *cg, ebb_cg_stats *st, ebb_error **err)
{
  int r = opt_u64 (cg, FD (cg, MEMORY), "memory.usage_in_bytes", &st->memory_current_bytes, err);
  if (r > 0)
    st->valid |= EBB_CG_STAT_MEMORY;
  cleanup_free char *t = NULL, *oom = NULL;
  if (r > 0)
    r = ebb_cg_read_optional (cg, FD (cg, MEMORY), "memory.stat", &t, err);
  /* total_* are hierarchical (this cgroup and its children), like v2's figures. */
  if (r > 0
      && (ebb_cg_parse_keyed (t, "total_rss", &st->memory_anon_bytes, err) < 0
          || ebb_cg_parse_keyed (t, "total_cache", &st->memory_file_bytes, err) < 0))
    r = -EBB_EPARSE;
  int k = r > 0 ? ebb_cg_parse_keyed (t, "total_pgmajfault", &st->pgmajfault, err) : 0;
  if (k > 0)
    st->valid |= EBB_CG_STAT_PGMAJFAULT;
  /* total_swap appears only with swap accounting. */
  int s = k >= 0 && r > 0 ? ebb_cg_parse_keyed (t, "total_swap", &st->swap_current_bytes, err) : 0;
  if (s > 0)
    st->valid |= EBB_CG_STAT_SWAP;
  if (k < 0 || s < 0)
    r = -EBB_EPARSE;
  if (r > 0)
    r = ebb_cg_read_optional (cg, FD (cg, MEMORY), "memory.oom_control", &oom, err);
  if (r > 0 && (r = ebb_cg_parse_keyed (oom, "oom_kill", &st->oom_kill, err)) > 0)
    st->valid |= EBB_CG_STAT_OOM;
  return r < 0 ? ebb_error_wrap (err, "cgroup %s: memory", cg->path) : 0;
}

static int
v1_freeze_read (ebb_cg *cg, ebb_error **err)
{
  cleanup_free char *t = NULL;
  int r = ebb_cg_read_file (cg, FD (cg, FREEZER), "freezer.state", &t, err);
  if (r < 0)
    return r;
  r = ebb_cg_parse_freezer_state (t, err);
  if (r < 0)
    return ebb_error_wrap (err, "cgroup %s", cg->path);
  return r == 2 ? 1 : r == 1 ? 2 : 0; /* FROZEN 1, FREEZING "in transition" 2, THAWED 0 */
}

static int
v1_read_stats (ebb_cg *cg, ebb_cg_stats *st, ebb_error **err)
{
  int r = stats_cpu (cg, st, err);
  if (r >= 0)
    r = stats_memory (cg, st, err);
  /* PSI per cgroup on v1 exists only with the kernel's cgroup1 psi option: optional. */
  if (r >= 0)
    r = ebb_cg_read_psi_optional (cg, FD (cg, CPU), "cpu.pressure", &st->cpu_psi, &st->valid,
                                  EBB_CG_STAT_PSI_CPU, err);
  if (r >= 0)
    r = ebb_cg_read_psi_optional (cg, FD (cg, MEMORY), "memory.pressure", &st->memory_psi,
                                  &st->valid, EBB_CG_STAT_PSI_MEMORY, err);
  if (r >= 0 && FD (cg, FREEZER) >= 0 && strcmp (cg->ctrl_path[EBB_CG_CTRL_FREEZER], "/") != 0)
    {
      r = v1_freeze_read (cg, err);
      if (r >= 0)
        {
          st->frozen = r == 1;
          st->valid |= EBB_CG_STAT_FROZEN;
        }
    }
  return r < 0 ? r : 0;
}

static int
v1_read_limits (ebb_cg *cg, ebb_cg_limits *l, ebb_error **err)
{
  int q = opt_u64 (cg, FD (cg, CPU), "cpu.cfs_quota_us", &l->cpu_quota_usec, err);
  int p = q >= 0 ? opt_u64 (cg, FD (cg, CPU), "cpu.cfs_period_us", &l->cpu_period_usec, err) : 0;
  if (q > 0 && p > 0)
    l->valid |= EBB_CG_LIM_CPU;
  int b = p >= 0 ? opt_u64 (cg, FD (cg, CPU), "cpu.cfs_burst_us", &l->cpu_burst_usec, err) : 0;
  if (b > 0)
    l->valid |= EBB_CG_LIM_CPU_BURST;
  int m = b >= 0 ? opt_u64 (cg, FD (cg, MEMORY), "memory.limit_in_bytes", &l->memory_max_bytes, err)
                 : 0;
  if (m > 0)
    {
      l->memory_max_bytes = ebb_cg_v1_memory_value (l->memory_max_bytes);
      l->valid |= EBB_CG_LIM_MEMORY_MAX;
    }
  return q < 0 ? q : p < 0 ? p : b < 0 ? b : m < 0 ? m : 0;
}

static int
write_num (ebb_cg *cg, int fd, const char *name, uint64_t v, ebb_error **err)
{
  char buf[32];
  if (v == EBB_CG_MAX)
    snprintf (buf, sizeof buf, "-1");
  else
    snprintf (buf, sizeof buf, "%llu", (unsigned long long)v);
  return ebb_cg_write_file (cg, fd, name, buf, err);
}

/* A cached single-number read of a cpu file ("-1" is unlimited). */
static int
cpu_u64 (ebb_cg *cg, int which, const char *name, uint64_t *out, ebb_error **err)
{
  char buf[64];
  int r = ebb_cg_cached_read (cg, &cg->cpu_fd[which], FD (cg, CPU), name, buf, sizeof buf, err);
  if (r < 0)
    return r;
  if (strncmp (buf, "-1", 2) == 0)
    {
      *out = EBB_CG_MAX;
      return 0;
    }
  if (ebb_cg_parse_u64_or_max (buf, out, err) < 0)
    return ebb_error_wrap (err, "cgroup %s: %s", cg->path, name);
  return 0;
}

static int
v1_read_cpu (ebb_cg *cg, ebb_cg_limits *l, ebb_error **err)
{
  int r = cpu_u64 (cg, EBB_CG_CPUFD_QUOTA_R, "cpu.cfs_quota_us", &l->cpu_quota_usec, err);
  if (r >= 0)
    r = cpu_u64 (cg, EBB_CG_CPUFD_PERIOD_R, "cpu.cfs_period_us", &l->cpu_period_usec, err);
  if (r >= 0)
    {
      l->valid |= EBB_CG_LIM_CPU;
      cg->v1_period_usec = l->cpu_period_usec;
    }
  return r;
}

static void
fmt_num (char *buf, size_t n, uint64_t v)
{
  if (v == EBB_CG_MAX)
    snprintf (buf, n, "-1");
  else
    snprintf (buf, n, "%llu", (unsigned long long)v);
}

static int
v1_set_cpu (ebb_cg *cg, uint64_t quota_usec, uint64_t period_usec, ebb_error **err)
{
  /* Write the period only when it changes (a read tells, cheaply). */
  uint64_t cur = cg->v1_period_usec;
  char buf[32];
  int r = cur ? 0 : cpu_u64 (cg, EBB_CG_CPUFD_PERIOD_R, "cpu.cfs_period_us", &cur, err);
  if (r >= 0 && cur != period_usec)
    {
      fmt_num (buf, sizeof buf, period_usec);
      r = ebb_cg_cached_write (cg, &cg->cpu_fd[EBB_CG_CPUFD_PERIOD_W], FD (cg, CPU),
                               "cpu.cfs_period_us", buf, err);
    }
  cg->v1_period_usec = r >= 0 ? period_usec : 0;
  if (r < 0)
    return r;
  fmt_num (buf, sizeof buf, quota_usec);
  return ebb_cg_cached_write (cg, &cg->cpu_fd[EBB_CG_CPUFD_QUOTA_W], FD (cg, CPU),
                              "cpu.cfs_quota_us", buf, err);
}

static int
v1_set_cpu_burst (ebb_cg *cg, uint64_t burst_usec, ebb_error **err)
{
  return write_num (cg, FD (cg, CPU), "cpu.cfs_burst_us", burst_usec == EBB_CG_MAX ? 0 : burst_usec,
                    err);
}

static int
v1_set_memory_max (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  return write_num (cg, FD (cg, MEMORY), "memory.limit_in_bytes", bytes, err);
}

static int
v1_freeze_write (ebb_cg *cg, int frozen, ebb_error **err)
{
  return ebb_cg_write_file (cg, FD (cg, FREEZER), "freezer.state", frozen ? "FROZEN" : "THAWED",
                            err);
}

static int
v1_set_oom_kill_disable (ebb_cg *cg, int disable, ebb_error **err)
{
  return ebb_cg_write_file (cg, FD (cg, MEMORY), "memory.oom_control", disable ? "1" : "0", err);
}

const ebb_cg_ops ebb_cg_v1_ops = {
  .name = "v1",
  .kind = EBB_CG_BACKEND_V1,
  .read_stats = v1_read_stats,
  .read_limits = v1_read_limits,
  .set_cpu = v1_set_cpu,
  .set_cpu_burst = v1_set_cpu_burst,
  .set_memory_max = v1_set_memory_max,
  .freeze_write = v1_freeze_write,
  .freeze_read = v1_freeze_read,
  .attach = ebb_cg_files_attach,
  .set_oom_kill_disable = v1_set_oom_kill_disable,
  .read_cpu = v1_read_cpu,
};
