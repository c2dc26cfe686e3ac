/* The front end's reads and writes: argument checks and kernel rules that hold for every
 * backend (cpu.max bounds, burst before quota, freeze confirmation with rollback). */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <string.h>

#include "lib/time.h"

/* While the engine holds recorded originals, note which limits changed since: resume
 * restores exactly those (and writes nothing else). */
static int
note (ebb_cg *cg, uint32_t bit, int r)
{
  if (r >= 0 && cg->orig.recorded)
    cg->orig.changed |= bit;
  return r;
}

static int
unsupported (ebb_cg *cg, const char *what, ebb_error **err)
{
  return ebb_error_set (err, ENOTSUP, "cgroup %s: %s is not supported by the %s backend", cg->path,
                        what, cg->ops->name);
}

int
ebb_cg_read_stats (ebb_cg *cg, ebb_cg_stats *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (!cg->ops->read_stats)
    return unsupported (cg, "reading statistics", err);
  return cg->ops->read_stats (cg, out, err);
}

int
ebb_cg_read_limits (ebb_cg *cg, ebb_cg_limits *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (!cg->ops->read_limits)
    return unsupported (cg, "reading limits", err);
  return cg->ops->read_limits (cg, out, err);
}

int
ebb_cg_set_cpu (ebb_cg *cg, uint64_t quota_usec, uint64_t period_usec, ebb_error **err)
{
  if (period_usec < EBB_CG_PERIOD_MIN_USEC || period_usec > EBB_CG_PERIOD_MAX_USEC)
    return ebb_error_set (err, EBB_ERANGE, "cpu period %llu µs outside 1000..1000000",
                          (unsigned long long)period_usec);
  if (quota_usec != EBB_CG_MAX && (quota_usec < EBB_CG_QUOTA_MIN_USEC || quota_usec > (1ULL << 40)))
    return ebb_error_set (err, EBB_ERANGE, "cpu quota %llu µs outside 1000 µs..2^40 µs",
                          (unsigned long long)quota_usec);
  if (!cg->ops->set_cpu)
    return unsupported (cg, "setting the CPU limit", err);
  /* The kernel refuses a quota below the burst (EINVAL): then lower the burst and write the
   * quota again. Trying first saves a read on every call: bursts are rare. */
  cleanup_error ebb_error *first = NULL;
  int r = cg->ops->set_cpu (cg, quota_usec, period_usec, &first);
  if (r != -EINVAL || quota_usec == EBB_CG_MAX || !cg->ops->set_cpu_burst)
    {
      if (r < 0 && err && !*err)
        *err = ebb_steal_ptr (&first);
      return note (cg, EBB_CG_LIM_CPU, r);
    }
  ebb_cg_limits cur;
  if (ebb_cg_read_limits (cg, &cur, err) < 0)
    return ebb_error_wrap (err, "after EINVAL on the CPU quota");
  if (!(cur.valid & EBB_CG_LIM_CPU_BURST) || cur.cpu_burst_usec <= quota_usec)
    {
      if (err && !*err)
        *err = ebb_steal_ptr (&first);
      return r;
    }
  if (cg->orig.recorded && !(cg->orig.limits.valid & EBB_CG_LIM_CPU_BURST))
    {
      /* a CPU-only record skipped the burst: it is the original until now */
      cg->orig.limits.cpu_burst_usec = cur.cpu_burst_usec;
      cg->orig.limits.valid |= EBB_CG_LIM_CPU_BURST;
    }
  r = note (cg, EBB_CG_LIM_CPU_BURST, cg->ops->set_cpu_burst (cg, quota_usec, err));
  if (r < 0)
    return ebb_error_wrap (err, "lower cpu burst below the new quota");
  return note (cg, EBB_CG_LIM_CPU, cg->ops->set_cpu (cg, quota_usec, period_usec, err));
}

/* Sets the CPU burst (restoring an original); internal to the engine. */
int
ebb_cg_set_cpu_burst (ebb_cg *cg, uint64_t burst_usec, ebb_error **err)
{
  if (!cg->ops->set_cpu_burst)
    return unsupported (cg, "setting the CPU burst", err);
  return note (cg, EBB_CG_LIM_CPU_BURST, cg->ops->set_cpu_burst (cg, burst_usec, err));
}

int
ebb_cg_set_memory_high (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  if (!cg->ops->set_memory_high)
    return unsupported (cg, "memory.high", err);
  return note (cg, EBB_CG_LIM_MEMORY_HIGH, cg->ops->set_memory_high (cg, bytes, err));
}

int
ebb_cg_set_memory_max (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  if (!cg->ops->set_memory_max)
    return unsupported (cg, "setting the memory limit", err);
  return note (cg, EBB_CG_LIM_MEMORY_MAX, cg->ops->set_memory_max (cg, bytes, err));
}

/* pids.max is written by ebb only for the tasks it launches, through the files of the
 * cgroup's layout whatever the backend (no engine state: suspend and resume never touch it). */
int
ebb_cg_set_pids_max (ebb_cg *cg, uint64_t n, ebb_error **err)
{
  int fd = cg->dirfd >= 0 ? cg->dirfd : cg->ctrl_fd[EBB_CG_CTRL_PIDS];
  if (fd < 0)
    return ebb_error_set (err, ENOTSUP, "cgroup %s: no directory in a pids hierarchy", cg->path);
  char buf[32];
  if (n == EBB_CG_MAX)
    snprintf (buf, sizeof buf, "max");
  else
    snprintf (buf, sizeof buf, "%llu", (unsigned long long)n);
  cleanup_error ebb_error *e = NULL;
  int r = ebb_cg_write_file (cg, fd, "pids.max", buf, &e);
  if (r == -ENOENT && cg->dirfd >= 0) /* v2: the parent did not enable pids */
    return ebb_error_set (err, ENOTSUP, "%s", ebb_error_msg (&e));
  if (r < 0 && err && !*err)
    *err = ebb_steal_ptr (&e);
  return r;
}

int
ebb_cg_set_swap_max (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  if (!cg->ops->set_swap_max)
    return unsupported (cg, "memory.swap.max", err);
  return note (cg, EBB_CG_LIM_SWAP_MAX, cg->ops->set_swap_max (cg, bytes, err));
}

int
ebb_cg_reclaim (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  if (!cg->ops->reclaim)
    return unsupported (cg, "memory.reclaim", err);
  if (bytes == 0)
    return 0;
  return cg->ops->reclaim (cg, bytes, err);
}

/* Polls the freeze state until it equals want or the deadline passes. Returns 0, 1 on
 * timeout, negative on failure. */
static int
wait_frozen (ebb_cg *cg, int want, uint64_t deadline_usec, ebb_error **err)
{
  uint64_t pause = 200;
  for (;;)
    {
      int s = cg->ops->freeze_read (cg, err);
      if (s < 0)
        return s;
      if (s == want)
        return 0;
      if (ebb_now_usec () >= deadline_usec)
        return 1;
      ebb_sleep_usec (pause);
      if (pause < 10000)
        pause *= 2;
    }
}

int
ebb_cg_set_frozen (ebb_cg *cg, int frozen, uint64_t timeout_usec, ebb_error **err)
{
  frozen = !!frozen;
  if (!cg->ops->freeze_write || !cg->ops->freeze_read)
    return unsupported (cg, "freezing", err);
  int before = cg->ops->freeze_read (cg, err);
  if (before < 0)
    return before;
  int r = cg->ops->freeze_write (cg, frozen, err);
  if (r < 0)
    return r;
  r = wait_frozen (cg, frozen, ebb_now_usec () + timeout_usec, err);
  if (r <= 0)
    return r;
  /* Not confirmed in time: go back to where we were (thawed unless it was frozen). */
  int back = before == 1 ? 1 : 0;
  int rb = cg->ops->freeze_write (cg, back, err);
  if (rb < 0)
    return ebb_error_wrap (err, "roll back after %s timed out", frozen ? "freeze" : "thaw");
  return ebb_error_set (err, EBB_ETIMEDOUT,
                        "cgroup %s: %s not confirmed within %llu ms; rolled back", cg->path,
                        frozen ? "freeze" : "thaw", (unsigned long long)(timeout_usec / 1000));
}
