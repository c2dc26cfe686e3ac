/* The preemption engine (BIG-C §3, doc/design.md "Preemption on the node"): immediate suspend,
 * graceful steps, resume. It records the original limits before its first change and puts
 * back exactly those; it never asks the kernel for a limit that would OOM-kill the task. */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "lib/time.h"

/* Slack above usage when memory.max follows what was reclaimed, so the next page the task
 * touches does not hit the hard limit. */
#define MAX_HEADROOM_BYTES (4ULL << 20)

void
ebb_cg_engine_config_init (ebb_cg_engine_config *cfg)
{
  *cfg = (ebb_cg_engine_config){
    .footprint_quota_usec = EBB_CG_FOOTPRINT_QUOTA_USEC,
    .footprint_period_usec = EBB_CG_FOOTPRINT_PERIOD_USEC,
    .footprint_memory_bytes = EBB_CG_FOOTPRINT_MEMORY_BYTES,
    .reclaim_timeout_usec = 10 * EBB_USEC_PER_SEC,
    .thrash_psi_some_avg10 = 10.0,
    .thrash_majfault_delta = 1000,
    .raise_swap = 1,
    .raised_swap_max_bytes = EBB_CG_MAX,
  };
}

/* Records the originals before the first change: all limits (full), or only the CPU ones
 * for a CPU-only suspend (one read on the hot path). Completing a CPU-only record keeps the
 * CPU originals already taken: the kernel holds the footprint by then. */
static int
ensure_recorded (ebb_cg *cg, int full, ebb_error **err)
{
  ebb_cg_original *o = &cg->orig;
  if (o->recorded && (!full || !o->cpu_only))
    return 0;
  ebb_cg_limits l = { 0 };
  int r = !full && cg->ops->read_cpu ? cg->ops->read_cpu (cg, &l, err)
                                     : ebb_cg_read_limits (cg, &l, err);
  if (r < 0)
    return ebb_error_wrap (err, "record original limits");
  if (o->recorded)
    {
      const uint32_t keep = o->limits.valid & (EBB_CG_LIM_CPU | EBB_CG_LIM_CPU_BURST);
      if (keep & EBB_CG_LIM_CPU)
        {
          l.cpu_quota_usec = o->limits.cpu_quota_usec;
          l.cpu_period_usec = o->limits.cpu_period_usec;
        }
      if (keep & EBB_CG_LIM_CPU_BURST)
        l.cpu_burst_usec = o->limits.cpu_burst_usec;
      l.valid |= keep;
      o->limits = l;
      o->cpu_only = 0;
      return 0;
    }
  memset (o, 0, sizeof *o);
  o->limits = l;
  o->recorded = 1;
  o->cpu_only = !full;
  o->state = EBB_CG_STATE_RUNNING;
  return 0;
}

int
ebb_cg_record_original (ebb_cg *cg, ebb_cg_original *out, ebb_error **err)
{
  int r = ensure_recorded (cg, 1, err);
  if (r < 0)
    return r;
  if (out)
    *out = cg->orig;
  return 0;
}

void
ebb_cg_get_original (const ebb_cg *cg, ebb_cg_original *out)
{
  *out = cg->orig;
}

void
ebb_cg_set_original (ebb_cg *cg, const ebb_cg_original *orig)
{
  cg->orig = *orig;
}

ebb_cg_state
ebb_cg_get_state (const ebb_cg *cg)
{
  return cg->orig.recorded ? cg->orig.state : EBB_CG_STATE_RUNNING;
}

static uint64_t
mem_usage (ebb_cg *cg, ebb_error **err, int *rc)
{
  ebb_cg_stats st;
  *rc = ebb_cg_read_stats (cg, &st, err);
  return *rc < 0 ? 0 : st.memory_current_bytes;
}

/* Returns 1 when the host has swap configured (/proc/meminfo SwapTotal > 0). */
static int
host_has_swap (const ebb_cg_ctx *ctx)
{
  cleanup_free char *path = ebb_xasprintf ("%s/meminfo", ctx->proc_root);
  cleanup_free char *t = NULL;
  if (ebb_cg_read_at (AT_FDCWD, path, &t, NULL) < 0)
    return 0;
  const char *p = strstr (t, "SwapTotal:");
  return p && strtoull (p + 10, NULL, 10) > 0;
}

/* v2: where memory.swap.max is 0 and the host has swap, raise it for the suspension. */
static int
raise_swap (ebb_cg *cg, const ebb_cg_engine_config *cfg, ebb_error **err)
{
  const ebb_cg_limits *o = &cg->orig.limits;
  if (!cfg->raise_swap || cg->orig.swap_raised || !(o->valid & EBB_CG_LIM_SWAP_MAX)
      || o->swap_max_bytes != 0 || !host_has_swap (cg->ctx))
    return 0;
  int r = ebb_cg_set_swap_max (cg, cfg->raised_swap_max_bytes, err);
  if (r < 0)
    return ebb_error_wrap (err, "raise memory.swap.max for the suspension");
  cg->orig.swap_raised = 1;
  return 0;
}

/* v2 immediate: memory.high to the target (the kernel reclaims and throttles, never
 * kills), memory.reclaim until usage reaches it or the deadline passes, then memory.max
 * down to what was reclaimed. */
static int
shrink_v2 (ebb_cg *cg, const ebb_cg_engine_config *cfg, uint64_t target, ebb_error **err)
{
  int r = raise_swap (cg, cfg, err);
  if (r >= 0)
    r = ebb_cg_set_memory_high (cg, target, err);
  if (r < 0)
    return r;
  uint64_t deadline = ebb_now_usec () + cfg->reclaim_timeout_usec, prev = UINT64_MAX;
  int stalls = 0;
  for (;;)
    {
      uint64_t cur = mem_usage (cg, err, &r);
      if (r < 0)
        return r;
      if (cur <= target || ebb_now_usec () >= deadline)
        break;
      stalls = cur + MAX_HEADROOM_BYTES / 4 >= prev ? stalls + 1 : 0;
      if (stalls >= 3)
        break; /* nothing more to take: no swap, or it is full */
      prev = cur;
      cleanup_error ebb_error *rerr = NULL;
      r = ebb_cg_reclaim (cg, cur - target, &rerr);
      if (r == -EBB_EGONE || (r < 0 && r != -EAGAIN && r != -ENOTSUP))
        return ebb_error_set (err, -r, "%s", ebb_error_msg (&rerr));
      if (r == -ENOTSUP || r == -EAGAIN)
        ebb_sleep_usec (20000);
    }
  uint64_t now = mem_usage (cg, err, &r);
  if (r < 0)
    return r;
  /* Lower memory.max only to what is already reclaimed: when usage reached the target,
   * cap it a little above (growth then reclaims to swap first). When it did not (no swap,
   * or swap full), a memory.max just above usage would be a trap: v2 has no
   * oom_kill_disable, so the next allocation past it would OOM-kill the task. memory.high
   * alone then holds it: the kernel throttles, never kills, above high. */
  const ebb_cg_limits *o = &cg->orig.limits;
  uint64_t max_to = (now > target ? now : target) + MAX_HEADROOM_BYTES;
  if (now <= target + MAX_HEADROOM_BYTES && (o->valid & EBB_CG_LIM_MEMORY_MAX)
      && max_to < o->memory_max_bytes)
    r = ebb_cg_set_memory_max (cg, max_to, err);
  return r;
}

/* v1, when the kernel cannot reclaim more: cap the limit just above what the task holds, so
 * it cannot grow while suspended (with oom_kill_disable it waits, it is not killed). */
static int
hold_v1 (ebb_cg *cg, uint64_t orig, ebb_error **err)
{
  int r;
  uint64_t now = mem_usage (cg, err, &r);
  if (r < 0)
    return r;
  uint64_t cap = now + MAX_HEADROOM_BYTES;
  if (cap >= orig)
    return 0;
  r = ebb_cg_set_memory_max (cg, cap, err);
  if (r == -EBUSY)
    {
      ebb_error_free (err); /* it grew meanwhile: keep what is in force */
      return 0;
    }
  return r;
}

/* v1: memory.limit_in_bytes down in steps; EBUSY means the kernel cannot reclaim more (no
 * swap for anonymous memory), so stop there. oom_kill_disable first: a suspended task that
 * grows into its limit then waits instead of being killed. */
static int
shrink_v1 (ebb_cg *cg, const ebb_cg_engine_config *cfg, uint64_t target, ebb_error **err)
{
  int r = 0;
  if (cg->ops->set_oom_kill_disable && !cg->orig.oom_kill_disabled)
    {
      r = cg->ops->set_oom_kill_disable (cg, 1, err);
      if (r < 0)
        return ebb_error_wrap (err, "disable the OOM killer for the suspension");
      cg->orig.oom_kill_disabled = 1;
    }
  uint64_t cur = mem_usage (cg, err, &r);
  if (r < 0)
    return r;
  uint64_t orig = cg->orig.limits.memory_max_bytes;
  if (!(cg->orig.limits.valid & EBB_CG_LIM_MEMORY_MAX))
    return 0;
  uint64_t next = cur < orig ? cur : orig;
  uint64_t step = (next > target ? next - target : 0) / 4;
  if (step < (8ULL << 20))
    step = 8ULL << 20;
  uint64_t deadline = ebb_now_usec () + cfg->reclaim_timeout_usec;
  do
    {
      next = next > target + step ? next - step : target;
      if (next >= orig)
        break;
      cleanup_error ebb_error *e = NULL;
      r = ebb_cg_set_memory_max (cg, next, &e);
      if (r == -EBUSY)
        return hold_v1 (cg, orig, err); /* cannot reclaim more: what remains is held */
      if (r < 0)
        return ebb_error_set (err, -r, "%s", ebb_error_msg (&e));
    }
  while (next > target && ebb_now_usec () < deadline);
  return 0;
}

/* Fills *res; with_memory 0 (CPU-only operations) reads nothing and reports the CPU limit
 * given, so a CPU suspend costs its one write. */
static void
fill_result (ebb_cg *cg, ebb_cg_result *res, uint64_t before, uint64_t t0, int with_memory,
             uint64_t quota_usec, uint64_t period_usec)
{
  ebb_cg_stats st;
  res->state = cg->orig.state;
  res->cpu_quota_usec = quota_usec;
  res->cpu_period_usec = period_usec;
  if (with_memory)
    {
      uint64_t after = res->memory_after_bytes;
      if (ebb_cg_read_stats (cg, &st, NULL) >= 0)
        after = st.memory_current_bytes;
      ebb_cg_result_memory (cg, res, before, after);
    }
  res->elapsed_usec = ebb_now_usec () - t0;
}

void
ebb_cg_result_memory (ebb_cg *cg, ebb_cg_result *res, uint64_t before, uint64_t after)
{
  ebb_cg_limits l;
  res->memory_before_bytes = before;
  res->memory_after_bytes = after;
  res->reclaimed_bytes = before > after ? before - after : 0;
  res->held_bytes = after;
  if (ebb_cg_read_limits (cg, &l, NULL) >= 0)
    {
      res->cpu_quota_usec = l.cpu_quota_usec;
      res->cpu_period_usec = l.cpu_period_usec;
      res->memory_limit_bytes
          = (l.valid & EBB_CG_LIM_MEMORY_HIGH) ? l.memory_high_bytes : l.memory_max_bytes;
    }
}

static int
cpu_to_footprint (ebb_cg *cg, const ebb_cg_engine_config *cfg, ebb_error **err)
{
  int r = ebb_cg_set_cpu (cg, cfg->footprint_quota_usec, cfg->footprint_period_usec, err);
  return r < 0 ? ebb_error_wrap (err, "CPU to the footprint") : 0;
}

const ebb_cg_engine_config *
ebb_cg_engine_begin (const ebb_cg_engine_config *cfg, ebb_cg_engine_config *def, ebb_cg_result *res)
{
  memset (res, 0, sizeof *res);
  if (cfg)
    return cfg;
  ebb_cg_engine_config_init (def);
  return def;
}

int
ebb_cg_suspend (ebb_cg *cg, const ebb_cg_engine_config *cfg, ebb_cg_result *res, ebb_error **err)
{
  ebb_cg_engine_config def;
  cfg = ebb_cg_engine_begin (cfg, &def, res);
  uint64_t t0 = ebb_now_usec ();
  int r = ensure_recorded (cg, !cfg->cpu_only, err);
  uint64_t before = r >= 0 && !cfg->cpu_only ? mem_usage (cg, err, &r) : 0;
  /* CPU first: a throttled task stops dirtying memory, so reclaim goes faster (BIG-C). */
  if (r >= 0)
    r = cpu_to_footprint (cg, cfg, err);
  if (r >= 0)
    cg->orig.state = EBB_CG_STATE_SUSPENDED;
  if (r >= 0 && !cfg->cpu_only && cg->ops->set_memory_high)
    r = shrink_v2 (cg, cfg, cfg->footprint_memory_bytes, err);
  else if (r >= 0 && !cfg->cpu_only)
    r = shrink_v1 (cg, cfg, cfg->footprint_memory_bytes, err);
  if (r < 0)
    return ebb_error_wrap (err, "suspend %s", cg->path);
  fill_result (cg, res, before, t0, !cfg->cpu_only, cfg->footprint_quota_usec,
               cfg->footprint_period_usec);
  ebb_log_debug ("suspend %s: %llu -> %llu bytes in %llu µs", cg->path,
                 (unsigned long long)res->memory_before_bytes,
                 (unsigned long long)res->memory_after_bytes,
                 (unsigned long long)res->elapsed_usec);
  return 0;
}

#define MEMORY_BITS (EBB_CG_LIM_MEMORY_HIGH | EBB_CG_LIM_MEMORY_MAX | EBB_CG_LIM_SWAP_MAX)

/* Memory back first (doc/design.md: reverse order of suspend); only what the engine changed. */
static int
restore_memory (ebb_cg *cg, ebb_error **err)
{
  const ebb_cg_limits *o = &cg->orig.limits;
  uint32_t ch = cg->orig.changed & o->valid;
  int r = 0;
  if (ch & EBB_CG_LIM_MEMORY_MAX)
    r = ebb_cg_set_memory_max (cg, o->memory_max_bytes, err);
  if (r >= 0 && (ch & EBB_CG_LIM_MEMORY_HIGH))
    r = ebb_cg_set_memory_high (cg, o->memory_high_bytes, err);
  if (r >= 0 && (cg->orig.swap_raised || (ch & EBB_CG_LIM_SWAP_MAX)))
    {
      r = ebb_cg_set_swap_max (cg, o->swap_max_bytes, err);
      if (r >= 0)
        cg->orig.swap_raised = 0;
    }
  if (r >= 0 && cg->orig.oom_kill_disabled && cg->ops->set_oom_kill_disable)
    {
      r = cg->ops->set_oom_kill_disable (cg, 0, err);
      if (r >= 0)
        cg->orig.oom_kill_disabled = 0;
    }
  return r;
}

static int
restore_cpu (ebb_cg *cg, ebb_error **err)
{
  const ebb_cg_limits *o = &cg->orig.limits;
  uint32_t ch = cg->orig.changed & o->valid;
  int r = 0;
  if (ch & EBB_CG_LIM_CPU)
    r = ebb_cg_set_cpu (cg, o->cpu_quota_usec, o->cpu_period_usec, err);
  /* The burst after the quota: the kernel wants burst <= quota. */
  if (r >= 0 && (ch & EBB_CG_LIM_CPU_BURST))
    r = ebb_cg_set_cpu_burst (cg, o->cpu_burst_usec, err);
  return r;
}

int
ebb_cg_resume (ebb_cg *cg, const ebb_cg_engine_config *cfg, ebb_cg_result *res, ebb_error **err)
{
  (void)cfg;
  uint64_t t0 = ebb_now_usec ();
  memset (res, 0, sizeof *res);
  if (!cg->orig.recorded)
    {
      res->state = EBB_CG_STATE_RUNNING;
      return 0;
    }
  const ebb_cg_limits *o = &cg->orig.limits;
  int with_memory
      = (cg->orig.changed & MEMORY_BITS) || cg->orig.swap_raised || cg->orig.oom_kill_disabled;
  int r = 0;
  uint64_t before = with_memory ? mem_usage (cg, err, &r) : 0;
  if (r >= 0)
    r = restore_memory (cg, err);
  if (r >= 0)
    r = restore_cpu (cg, err);
  if (r < 0)
    return ebb_error_wrap (err, "resume %s", cg->path);
  cg->orig.recorded = 0;
  cg->orig.changed = 0;
  cg->orig.state = EBB_CG_STATE_RUNNING;
  cg->step_majfault_base = 0;
  fill_result (cg, res, before, t0, with_memory, o->cpu_quota_usec, o->cpu_period_usec);
  res->reclaimed_bytes = 0;
  return 0;
}
