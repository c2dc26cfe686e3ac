/* The cgroup v2 files backend. */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <string.h>

static int
keyed (const char *text, const char *key, uint64_t *out, uint32_t *valid, uint32_t bit,
       ebb_error **err)
{
  int r = ebb_cg_parse_keyed (text, key, out, err);
  if (r > 0)
    *valid |= bit;
  return r;
}

static int
stats_cpu (ebb_cg *cg, ebb_cg_stats *st, ebb_error **err)
{
  cleanup_free char *t = NULL;
  int r = ebb_cg_read_optional (cg, cg->dirfd, "cpu.stat", &t, err);
  if (r <= 0)
    return r;
  if (keyed (t, "usage_usec", &st->cpu_usage_usec, &st->valid, EBB_CG_STAT_CPU, err) < 0
      || keyed (t, "nr_periods", &st->nr_periods, &st->valid, EBB_CG_STAT_THROTTLE, err) < 0
      || ebb_cg_parse_keyed (t, "nr_throttled", &st->nr_throttled, err) < 0
      || ebb_cg_parse_keyed (t, "throttled_usec", &st->throttled_usec, err) < 0)
    return ebb_error_wrap (err, "cgroup %s: cpu.stat", cg->path);
  return 0;
}

static int
stats_memory (ebb_cg *cg, ebb_cg_stats *st, ebb_error **err)
{
  cleanup_free char *cur = NULL, *stat = NULL, *swap = NULL, *ev = NULL;
  int r = ebb_cg_read_optional (cg, cg->dirfd, "memory.current", &cur, err);
  if (r > 0 && (r = ebb_cg_parse_u64_or_max (cur, &st->memory_current_bytes, err)) >= 0)
    st->valid |= EBB_CG_STAT_MEMORY;
  if (r >= 0)
    r = ebb_cg_read_optional (cg, cg->dirfd, "memory.stat", &stat, err);
  if (r > 0
      && (ebb_cg_parse_keyed (stat, "anon", &st->memory_anon_bytes, err) < 0
          || ebb_cg_parse_keyed (stat, "file", &st->memory_file_bytes, err) < 0
          || keyed (stat, "pgmajfault", &st->pgmajfault, &st->valid, EBB_CG_STAT_PGMAJFAULT, err)
                 < 0
          || keyed (stat, "pswpin", &st->swapin_pages, &st->valid, EBB_CG_STAT_SWAPIN, err) < 0))
    r = -EBB_EPARSE;
  if (r >= 0)
    r = ebb_cg_read_optional (cg, cg->dirfd, "memory.swap.current", &swap, err);
  if (r > 0 && (r = ebb_cg_parse_u64_or_max (swap, &st->swap_current_bytes, err)) >= 0)
    st->valid |= EBB_CG_STAT_SWAP;
  if (r >= 0)
    r = ebb_cg_read_optional (cg, cg->dirfd, "memory.events", &ev, err);
  if (r > 0)
    r = keyed (ev, "oom_kill", &st->oom_kill, &st->valid, EBB_CG_STAT_OOM, err);
  return r < 0 ? ebb_error_wrap (err, "cgroup %s: memory", cg->path) : 0;
}

static int
v2_freeze_read (ebb_cg *cg, ebb_error **err)
{
  cleanup_free char *t = NULL;
  int r = ebb_cg_read_file (cg, cg->dirfd, "cgroup.events", &t, err);
  if (r < 0)
    return r;
  uint64_t f = 0;
  r = ebb_cg_parse_keyed (t, "frozen", &f, err);
  if (r < 0)
    return ebb_error_wrap (err, "cgroup %s: cgroup.events", cg->path);
  return f ? 1 : 0;
}

static int
v2_read_stats (ebb_cg *cg, ebb_cg_stats *st, ebb_error **err)
{
  int r = stats_cpu (cg, st, err);
  if (r >= 0)
    r = stats_memory (cg, st, err);
  if (r >= 0)
    r = ebb_cg_read_psi_optional (cg, cg->dirfd, "cpu.pressure", &st->cpu_psi, &st->valid,
                                  EBB_CG_STAT_PSI_CPU, err);
  if (r >= 0)
    r = ebb_cg_read_psi_optional (cg, cg->dirfd, "memory.pressure", &st->memory_psi, &st->valid,
                                  EBB_CG_STAT_PSI_MEMORY, err);
  if (r >= 0 && cg->path && strcmp (cg->path, "/") != 0)
    {
      r = v2_freeze_read (cg, err);
      if (r >= 0)
        {
          st->frozen = r;
          st->valid |= EBB_CG_STAT_FROZEN;
        }
    }
  return r < 0 ? r : 0;
}

/* Reads a single-value limit file when present; sets bit in valid. */
static int
limit_opt (ebb_cg *cg, const char *name, uint64_t *out, uint32_t *valid, uint32_t bit,
           ebb_error **err)
{
  cleanup_free char *t = NULL;
  int r = ebb_cg_read_optional (cg, cg->dirfd, name, &t, err);
  if (r <= 0)
    return r;
  if (ebb_cg_parse_u64_or_max (t, out, err) < 0)
    return ebb_error_wrap (err, "cgroup %s: %s", cg->path, name);
  *valid |= bit;
  return 0;
}

static int
v2_read_limits (ebb_cg *cg, ebb_cg_limits *l, ebb_error **err)
{
  cleanup_free char *t = NULL;
  int r = ebb_cg_read_optional (cg, cg->dirfd, "cpu.max", &t, err);
  if (r > 0)
    {
      if (ebb_cg_parse_cpu_max (t, &l->cpu_quota_usec, &l->cpu_period_usec, err) < 0)
        return ebb_error_wrap (err, "cgroup %s", cg->path);
      l->valid |= EBB_CG_LIM_CPU;
    }
  if (r >= 0)
    r = limit_opt (cg, "cpu.max.burst", &l->cpu_burst_usec, &l->valid, EBB_CG_LIM_CPU_BURST, err);
  if (r >= 0)
    r = limit_opt (cg, "memory.high", &l->memory_high_bytes, &l->valid, EBB_CG_LIM_MEMORY_HIGH,
                   err);
  if (r >= 0)
    r = limit_opt (cg, "memory.max", &l->memory_max_bytes, &l->valid, EBB_CG_LIM_MEMORY_MAX, err);
  if (r >= 0)
    r = limit_opt (cg, "memory.swap.max", &l->swap_max_bytes, &l->valid, EBB_CG_LIM_SWAP_MAX, err);
  return r < 0 ? r : 0;
}

static void
fmt_value (char *buf, size_t n, uint64_t v)
{
  if (v == EBB_CG_MAX)
    snprintf (buf, n, "max");
  else
    snprintf (buf, n, "%llu", (unsigned long long)v);
}

static int
write_value (ebb_cg *cg, const char *name, uint64_t v, ebb_error **err)
{
  char buf[32];
  fmt_value (buf, sizeof buf, v);
  return ebb_cg_write_file (cg, cg->dirfd, name, buf, err);
}

static int
v2_set_cpu (ebb_cg *cg, uint64_t quota_usec, uint64_t period_usec, ebb_error **err)
{
  char q[32], buf[64];
  fmt_value (q, sizeof q, quota_usec);
  snprintf (buf, sizeof buf, "%s %llu", q, (unsigned long long)period_usec);
  return ebb_cg_cached_write (cg, &cg->cpu_fd[EBB_CG_CPUFD_QUOTA_W], cg->dirfd, "cpu.max", buf,
                              err);
}

static int
v2_read_cpu (ebb_cg *cg, ebb_cg_limits *l, ebb_error **err)
{
  char buf[64];
  int r = ebb_cg_cached_read (cg, &cg->cpu_fd[EBB_CG_CPUFD_QUOTA_R], cg->dirfd, "cpu.max", buf,
                              sizeof buf, err);
  if (r < 0)
    return r;
  if (ebb_cg_parse_cpu_max (buf, &l->cpu_quota_usec, &l->cpu_period_usec, err) < 0)
    return ebb_error_wrap (err, "cgroup %s", cg->path);
  l->valid |= EBB_CG_LIM_CPU;
  return 0;
}

static int
v2_set_cpu_burst (ebb_cg *cg, uint64_t burst_usec, ebb_error **err)
{
  return write_value (cg, "cpu.max.burst", burst_usec, err);
}

static int
v2_set_memory_high (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  return write_value (cg, "memory.high", bytes, err);
}

static int
v2_set_memory_max (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  return write_value (cg, "memory.max", bytes, err);
}

static int
v2_set_swap_max (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  return write_value (cg, "memory.swap.max", bytes, err);
}

static int
v2_reclaim (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  char buf[32];
  fmt_value (buf, sizeof buf, bytes);
  int r = ebb_cg_write_file (cg, cg->dirfd, "memory.reclaim", buf, err);
  if (r == -ENOENT)
    {
      ebb_error_free (err);
      return ebb_error_set (err, ENOTSUP, "cgroup %s: no memory.reclaim (kernel < 5.19?)",
                            cg->path);
    }
  return r;
}

static int
v2_freeze_write (ebb_cg *cg, int frozen, ebb_error **err)
{
  return ebb_cg_write_file (cg, cg->dirfd, "cgroup.freeze", frozen ? "1" : "0", err);
}

const ebb_cg_ops ebb_cg_v2_ops = {
  .name = "v2",
  .kind = EBB_CG_BACKEND_V2,
  .read_stats = v2_read_stats,
  .read_limits = v2_read_limits,
  .set_cpu = v2_set_cpu,
  .set_cpu_burst = v2_set_cpu_burst,
  .set_memory_high = v2_set_memory_high,
  .set_memory_max = v2_set_memory_max,
  .set_swap_max = v2_set_swap_max,
  .reclaim = v2_reclaim,
  .freeze_write = v2_freeze_write,
  .freeze_read = v2_freeze_read,
  .attach = ebb_cg_files_attach,
  .read_cpu = v2_read_cpu,
};
