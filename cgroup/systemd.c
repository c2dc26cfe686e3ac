/* libebb-cgroup: the systemd backend (doc/design.md "Preemption on the node", systemd points).
 *
 * A cgroup that a systemd unit owns is changed through the unit: SetUnitProperties with
 * runtime=true, then the same value written to cgroupfs (as crun and runc do), because
 * systemd re-applies its own idea of the unit's limits whenever it reloads and would silently
 * undo a file-only write. systemd keeps the CPU quota in memory exactly but stores it for
 * reload as a whole percent (10 ms/s), so after each reload (the Manager's Reloading signal)
 * the files are compared with what this backend set and rewritten where systemd rounded.
 * Memory limits are written to cgroupfs first: lowering memory.high below usage reclaims in the
 * writing thread, and that must be our worker, not PID 1. Device properties are never touched.
 *
 * The bus connection, method calls and properties are in cgroup/systemd-bus.c; here: the
 * backend's operations, re-verification after reloads, choosing the backend, the extras.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "cgroup/cgroup-internal.h"
#include "cgroup/systemd-bus.h"
#include "cgroup/systemd.h"
#include "lib/log.h"
#include "lib/util.h"

/* ---- re-verification after systemd reloads ---- */

/* Rewrites, through the file backend, each limit this backend set that the files no longer
 * show. Returns the number rewritten, or negative. */
static int
reapply (ebb_cg *cg, ebb_cg_sd_state *s, ebb_error **err)
{
  const ebb_cg_limits *d = &s->desired;
  ebb_cg_limits cur = { 0 };
  int n = 0, r = cg->file_ops->read_limits (cg, &cur, err);
  if (r < 0)
    return r;
  if ((d->valid & EBB_CG_LIM_CPU)
      && (cur.cpu_quota_usec != d->cpu_quota_usec || cur.cpu_period_usec != d->cpu_period_usec))
    {
      ebb_log_notice (
          "systemd backend %s: cpu.max after reload is %llu/%llu, rewriting %llu/%llu", s->unit,
          (unsigned long long)cur.cpu_quota_usec, (unsigned long long)cur.cpu_period_usec,
          (unsigned long long)d->cpu_quota_usec, (unsigned long long)d->cpu_period_usec);
      if ((r = cg->file_ops->set_cpu (cg, d->cpu_quota_usec, d->cpu_period_usec, err)) < 0)
        return r;
      n++;
    }
  struct
  {
    uint32_t bit;
    uint64_t want, have;
    int (*set) (ebb_cg *, uint64_t, ebb_error **);
  } mem[] = {
    { EBB_CG_LIM_MEMORY_HIGH, d->memory_high_bytes, cur.memory_high_bytes,
      cg->file_ops->set_memory_high },
    { EBB_CG_LIM_MEMORY_MAX, d->memory_max_bytes, cur.memory_max_bytes,
      cg->file_ops->set_memory_max },
    { EBB_CG_LIM_SWAP_MAX, d->swap_max_bytes, cur.swap_max_bytes, cg->file_ops->set_swap_max },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (mem); i++)
    {
      if (!(d->valid & mem[i].bit) || !(cur.valid & mem[i].bit) || !mem[i].set
          || mem[i].want == mem[i].have)
        continue;
      if ((r = mem[i].set (cg, mem[i].want, err)) < 0)
        return r;
      n++;
    }
  return n;
}

/* Dispatches queued bus messages (Reloading signals); a broken connection is dropped, to be
 * re-opened (and a reload assumed) by the next call. */
static void
process_bus (ebb_cg_sd_state *s)
{
  int r = 0;
  while (s->bus && (r = sd_bus_process (s->bus, NULL)) > 0)
    ;
  if (s->bus && (r < 0 || sd_bus_is_open (s->bus) <= 0))
    {
      ebb_cg_sd_drop_bus (s);
      s->reconnects++;
      s->reload_pending = 1;
      ebb_log_info ("systemd backend %s: bus connection lost (%s)", s->unit,
                    r < 0 ? strerror (-r) : "closed");
    }
}

static int
verify (ebb_cg *cg, ebb_cg_sd_state *s, int force, ebb_error **err)
{
  process_bus (s);
  if (!force && !s->reload_pending)
    return 0;
  s->reload_pending = 0;
  if (!s->desired.valid)
    return 0;
  int r = reapply (cg, s, err);
  if (r < 0)
    {
      s->reload_pending = 1; /* try again next time */
      return ebb_error_wrap (err, "systemd backend %s: re-verify after reload", s->unit);
    }
  return r;
}

/* Run before each operation: a failed re-verify is logged, the operation goes on (it writes
 * fresh values anyway), except when the cgroup is gone. */
static int
sync_before (ebb_cg *cg, ebb_cg_sd_state *s, ebb_error **err)
{
  cleanup_error ebb_error *e = NULL;
  int r = verify (cg, s, 0, &e);
  if (r >= 0)
    return 0;
  if (r == -EBB_EGONE || ebb_error_code (&e) == EBB_EGONE)
    {
      if (err && !*err)
        *err = ebb_steal_ptr (&e);
      return -EBB_EGONE;
    }
  ebb_log_warn ("%s", ebb_error_msg (&e));
  return 0;
}

/* ---- the backend operations ---- */

static int
sd_set_cpu (ebb_cg *cg, uint64_t quota_usec, uint64_t period_usec, ebb_error **err)
{
  ebb_cg_sd_state *s = cg->backend_data;
  int r = sync_before (cg, s, err);
  if (r < 0)
    return r;
  uint64_t per_sec = UINT64_MAX;
  if (quota_usec != EBB_CG_MAX && __builtin_mul_overflow (quota_usec, USEC_PER_SEC, &per_sec) == 0)
    per_sec /= period_usec;
  ebb_cg_sd_prop_set p = { .unit = s->unit,
                           .name = { "CPUQuotaPerSecUSec", "CPUQuotaPeriodUSec" },
                           .type = { 't', 't' },
                           .value = { per_sec, period_usec },
                           .n = s->no_period_prop ? 1 : 2 };
  cleanup_error ebb_error *e = NULL;
  r = ebb_cg_sd_set_props (s, &p, &e);
  if (r < 0 && p.n == 2 && (r == -EINVAL || r == -ENXIO || r == -EPERM || r == -EROFS))
    {
      /* systemd < 242 has no CPUQuotaPeriodUSec; its period is 100 ms, the file has ours */
      ebb_log_info ("systemd backend %s: %s; setting CPUQuotaPerSecUSec alone", s->unit,
                    ebb_error_msg (&e));
      ebb_error_free (&e);
      s->no_period_prop = 1;
      p.n = 1;
      r = ebb_cg_sd_set_props (s, &p, &e);
    }
  if (r < 0)
    {
      if (err && !*err)
        *err = ebb_steal_ptr (&e);
      return r;
    }
  r = cg->file_ops->set_cpu (cg, quota_usec, period_usec, err);
  if (r < 0)
    return r;
  s->desired.cpu_quota_usec = quota_usec;
  s->desired.cpu_period_usec = period_usec;
  s->desired.valid |= EBB_CG_LIM_CPU;
  return 0;
}

/* Memory: the file first (its reclaim runs here, not in PID 1), then the unit property. */
static int
sd_set_memory (ebb_cg *cg, const char *prop, uint32_t bit, uint64_t bytes,
               int (*file_set) (ebb_cg *, uint64_t, ebb_error **), ebb_error **err)
{
  ebb_cg_sd_state *s = cg->backend_data;
  if (!file_set)
    return ebb_error_set (err, ENOTSUP, "cgroup %s: %s is not supported by the %s files", cg->path,
                          prop, cg->file_ops->name);
  int r = sync_before (cg, s, err);
  if (r < 0 || (r = file_set (cg, bytes, err)) < 0)
    return r;
  ebb_cg_sd_prop_set p = {
    .unit = s->unit, .name = { prop }, .type = { 't' }, .value = { ebb_cg_sd_value (bytes) }, .n = 1
  };
  if ((r = ebb_cg_sd_set_props (s, &p, err)) < 0)
    return r;
  if (bit == EBB_CG_LIM_MEMORY_HIGH)
    s->desired.memory_high_bytes = bytes;
  else if (bit == EBB_CG_LIM_MEMORY_MAX)
    s->desired.memory_max_bytes = bytes;
  else
    s->desired.swap_max_bytes = bytes;
  s->desired.valid |= bit;
  return 0;
}

static int
sd_set_memory_high (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  return sd_set_memory (cg, "MemoryHigh", EBB_CG_LIM_MEMORY_HIGH, bytes,
                        cg->file_ops->set_memory_high, err);
}

static int
sd_set_memory_max (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  return sd_set_memory (cg, "MemoryMax", EBB_CG_LIM_MEMORY_MAX, bytes, cg->file_ops->set_memory_max,
                        err);
}

static int
sd_set_swap_max (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  return sd_set_memory (cg, "MemorySwapMax", EBB_CG_LIM_SWAP_MAX, bytes, cg->file_ops->set_swap_max,
                        err);
}

static int
build_unit_name (sd_bus_message *m, const void *arg)
{
  return sd_bus_message_append (m, "s", (const char *)arg);
}

/* FreezeUnit/ThawUnit keep systemd's view of the unit right; when systemd cannot (too old,
 * v1 freezer, a timeout) the file is written instead. The front end confirms either way. */
static int
sd_freeze_write (ebb_cg *cg, int frozen, ebb_error **err)
{
  ebb_cg_sd_state *s = cg->backend_data;
  int r = sync_before (cg, s, err);
  if (r < 0)
    return r;
  cleanup_error ebb_error *e = NULL;
  r = ebb_cg_sd_call (s, SD_PATH, SD_MANAGER, frozen ? "FreezeUnit" : "ThawUnit", build_unit_name,
                      s->unit, NULL, &e);
  if (r >= 0)
    return 0;
  if (r == -ENOENT || ebb_error_code (&e) == ENOENT)
    ebb_log_debug ("%s", ebb_error_msg (&e));
  else
    ebb_log_info ("systemd backend %s: %s; writing the freezer file", s->unit, ebb_error_msg (&e));
  return cg->file_ops->freeze_write (cg, frozen, err);
}

/* Everything else is the file backend's, after a re-verify where it matters. */
#define DELEGATE(fn, ...)                                                                          \
  do                                                                                               \
    {                                                                                              \
      if (!cg->file_ops->fn)                                                                       \
        return ebb_error_set (err, ENOTSUP, "cgroup %s: not supported by the %s files", cg->path,  \
                              cg->file_ops->name);                                                 \
      return cg->file_ops->fn (cg, __VA_ARGS__);                                                   \
    }                                                                                              \
  while (0)

static int
sd_read_stats (ebb_cg *cg, ebb_cg_stats *out, ebb_error **err)
{
  DELEGATE (read_stats, out, err);
}

static int
sd_read_limits (ebb_cg *cg, ebb_cg_limits *out, ebb_error **err)
{
  int r = sync_before (cg, cg->backend_data, err);
  if (r < 0)
    return r;
  DELEGATE (read_limits, out, err);
}

static int
sd_set_cpu_burst (ebb_cg *cg, uint64_t burst_usec, ebb_error **err)
{
  DELEGATE (set_cpu_burst, burst_usec, err); /* systemd has no burst property to keep */
}

static int
sd_reclaim (ebb_cg *cg, uint64_t bytes, ebb_error **err)
{
  DELEGATE (reclaim, bytes, err);
}

static int
sd_freeze_read (ebb_cg *cg, ebb_error **err)
{
  DELEGATE (freeze_read, err);
}

static int
sd_attach (ebb_cg *cg, pid_t pid, ebb_error **err)
{
  DELEGATE (attach, pid, err);
}

static int
sd_set_oom_kill_disable (ebb_cg *cg, int disable, ebb_error **err)
{
  DELEGATE (set_oom_kill_disable, disable, err);
}

/* Makes systemd enable the cpu and memory controllers for the unit when its cgroup lacks
 * them. systemd enables a controller only for units that need it: memory for
 * MemoryAccounting, but cpu only for a weight or a quota (its CPU accounting reads cpu.stat,
 * which exists without the controller), and it disables cpu again when the quota goes back to
 * infinity, taking cpu.max away under us. So the unit gets CPUWeight=100 (the kernel's
 * default weight: no change in scheduling) to keep cpu.max present for record and restore. */
static int
sd_open (ebb_cg *cg, ebb_error **err)
{
  ebb_cg_sd_state *s = cg->backend_data;
  (void)err;
  if (cg->dirfd < 0)
    return 0; /* v1: the controllers are separate hierarchies, nothing to enable */
  int no_cpu = faccessat (cg->dirfd, "cpu.max", F_OK, 0) < 0;
  int no_mem = faccessat (cg->dirfd, "memory.high", F_OK, 0) < 0;
  if (!no_cpu && !no_mem)
    return 0;
  ebb_cg_sd_prop_set p = { .unit = s->unit, .n = 0 };
  if (no_cpu)
    p.name[p.n] = "CPUWeight", p.type[p.n] = 't', p.value[p.n++] = 100;
  if (no_mem)
    p.name[p.n] = "MemoryAccounting", p.type[p.n] = 'b', p.value[p.n++] = 1;
  cleanup_error ebb_error *e = NULL;
  if (ebb_cg_sd_set_props (s, &p, &e) < 0)
    {
      ebb_log_warn ("systemd backend %s: enabling controllers: %s", s->unit, ebb_error_msg (&e));
      return 0;
    }
  /* systemd realises the change from its event loop, just after the reply */
  for (int i = 0; i < 200; i++)
    {
      if ((!no_cpu || faccessat (cg->dirfd, "cpu.max", F_OK, 0) == 0)
          && (!no_mem || faccessat (cg->dirfd, "memory.high", F_OK, 0) == 0))
        return 0;
      usleep (10000);
    }
  ebb_log_warn ("systemd backend %s: controllers still missing after 2 s", s->unit);
  return 0;
}

static void
sd_close (ebb_cg *cg)
{
  ebb_cg_sd_state_free (cg->backend_data);
  cg->backend_data = NULL;
}

const ebb_cg_ops ebb_cg_systemd_ops = {
  .name = "systemd",
  .kind = EBB_CG_BACKEND_SYSTEMD,
  .open = sd_open,
  .close = sd_close,
  .read_stats = sd_read_stats,
  .read_limits = sd_read_limits,
  .set_cpu = sd_set_cpu,
  .set_cpu_burst = sd_set_cpu_burst,
  .set_memory_high = sd_set_memory_high,
  .set_memory_max = sd_set_memory_max,
  .set_swap_max = sd_set_swap_max,
  .reclaim = sd_reclaim,
  .freeze_write = sd_freeze_write,
  .freeze_read = sd_freeze_read,
  .attach = sd_attach,
  .set_oom_kill_disable = sd_set_oom_kill_disable,
};

/* ---- choosing the backend ---- */

/* The D-Bus interface holding a unit type's cgroup properties, from the unit's Id (which
 * systemd returned: this is not guessing the unit from the cgroup's name). */
static const char *
unit_iface (const char *id)
{
  static const char *const types[][2] = {
    { ".scope", "org.freedesktop.systemd1.Scope" },
    { ".service", "org.freedesktop.systemd1.Service" },
    { ".slice", "org.freedesktop.systemd1.Slice" },
    { ".socket", "org.freedesktop.systemd1.Socket" },
    { ".mount", "org.freedesktop.systemd1.Mount" },
    { ".swap", "org.freedesktop.systemd1.Swap" },
  };
  const char *dot = strrchr (id, '.');
  for (size_t i = 0; dot && i < EBB_ARRAY_SIZE (types); i++)
    if (strcmp (dot, types[i][0]) == 0)
      return types[i][1];
  return NULL;
}

/* Asks systemd which unit owns cg->path. Returns 1 with s->unit, s->unit_path, s->iface
 * set; 0 when no unit owns exactly this cgroup; negative on failure. */
static int
find_unit (ebb_cg *cg, ebb_cg_sd_state *s, ebb_error **err)
{
  sd_bus_message *reply = NULL;
  const char *path = NULL;
  cleanup_error ebb_error *e = NULL;
  int r = ebb_cg_sd_call (s, SD_PATH, SD_MANAGER, "GetUnitByControlGroup", build_unit_name,
                          cg->path, &reply, &e);
  if (r < 0)
    {
      ebb_log_debug ("systemd: no unit for %s: %s", cg->path, ebb_error_msg (&e));
      return 0; /* NoUnitForControlGroup and friends: a cgroup systemd does not own */
    }
  if (sd_bus_message_read (reply, "o", &path) >= 0)
    s->unit_path = ebb_xstrdup (path);
  sd_bus_message_unref (reply);
  if (!s->unit_path)
    return ebb_error_set (err, EBB_EPARSE, "systemd GetUnitByControlGroup %s: bad reply", cg->path);
  char id[256] = "", cgpath[4096] = "";
  if (ebb_cg_sd_get_prop (s, SD_UNIT_IFACE, "Id", 's', NULL, id, sizeof id, err) < 0)
    return -1;
  const char *iface = unit_iface (id);
  if (!iface || strcmp (id, "init.scope") == 0 || strcmp (id, "-.slice") == 0)
    return 0;
  s->unit = ebb_xstrdup (id);
  if (ebb_cg_sd_get_prop (s, iface, "ControlGroup", 's', NULL, cgpath, sizeof cgpath, err) < 0)
    return -1;
  /* A cgroup below the unit's own (a delegated subtree) is the delegate's to write. */
  if (strcmp (cgpath, cg->path) != 0)
    {
      ebb_log_debug ("systemd: %s is inside %s (%s), using files", cg->path, id, cgpath);
      return 0;
    }
  s->iface = ebb_xstrdup (iface);
  return 1;
}

int
ebb_cg_systemd_probe (ebb_cg *cg, ebb_error **err)
{
  if (sd_booted () <= 0 || !cg->path || strcmp (cg->path, "/") == 0)
    return 0;
  ebb_cg_sd_state *s = ebb_xcalloc (1, sizeof *s);
  int r = ebb_cg_sd_ensure_bus (s);
  if (r < 0)
    {
      ebb_log_info ("systemd: no bus (%s): cgroup %s uses files", strerror (-r), cg->path);
      ebb_cg_sd_state_free (s);
      return 0;
    }
  r = find_unit (cg, s, err);
  if (r <= 0)
    {
      ebb_cg_sd_state_free (s);
      return r < 0 ? ebb_error_wrap (err, "systemd backend for %s", cg->path) : 0;
    }
  s->reload_pending = 0; /* nothing set yet: nothing to re-verify */
  ebb_log_debug ("systemd: cgroup %s belongs to %s", cg->path, s->unit);
  cg->backend_data = s;
  return 1;
}

/* ---- the public extras (cgroup/systemd.h) ---- */

const char *
ebb_cg_systemd_unit (const ebb_cg *cg)
{
  ebb_cg_sd_state *s = ebb_cg_sd_state_of (cg);
  return s ? s->unit : NULL;
}

int
ebb_cg_systemd_read_props (ebb_cg *cg, ebb_cg_systemd_props *out, ebb_error **err)
{
  ebb_cg_sd_state *s = ebb_cg_sd_state_of (cg);
  if (!s)
    return ebb_error_set (err, ENOTSUP, "cgroup %s is not systemd-backed", cg ? cg->path : "?");
  static const char *const names[]
      = { "CPUQuotaPerSecUSec", "CPUQuotaPeriodUSec", "MemoryHigh", "MemoryMax", "MemorySwapMax" };
  uint64_t *dst[]
      = { &out->cpu_quota_per_sec_usec, &out->cpu_quota_period_usec, &out->memory_high_bytes,
          &out->memory_max_bytes, &out->memory_swap_max_bytes };
  memset (out, 0, sizeof *out);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (names); i++)
    {
      if (i == 1 && s->no_period_prop)
        {
          *dst[i] = EBB_CG_MAX;
          continue;
        }
      int r = ebb_cg_sd_get_prop (s, s->iface, names[i], 't', dst[i], NULL, 0, err);
      if (r < 0)
        return r;
    }
  cleanup_error ebb_error *e = NULL;
  if (ebb_cg_sd_get_prop (s, SD_UNIT_IFACE, "FreezerState", 's', NULL, out->freezer_state,
                          sizeof out->freezer_state, &e)
      < 0)
    out->freezer_state[0] = '\0'; /* systemd < 246 */
  return 0;
}

int
ebb_cg_systemd_verify (ebb_cg *cg, int force, ebb_error **err)
{
  ebb_cg_sd_state *s = ebb_cg_sd_state_of (cg);
  if (!s)
    return ebb_error_set (err, ENOTSUP, "cgroup %s is not systemd-backed", cg ? cg->path : "?");
  return verify (cg, s, force, err);
}

unsigned
ebb_cg_systemd_reloads (const ebb_cg *cg)
{
  ebb_cg_sd_state *s = ebb_cg_sd_state_of (cg);
  return s ? s->reloads : 0;
}

unsigned
ebb_cg_systemd_reconnects (const ebb_cg *cg)
{
  ebb_cg_sd_state *s = ebb_cg_sd_state_of (cg);
  return s ? s->reconnects : 0;
}

int
ebb_cg_systemd_fd (const ebb_cg *cg)
{
  ebb_cg_sd_state *s = ebb_cg_sd_state_of (cg);
  return s && s->bus ? sd_bus_get_fd (s->bus) : -ENOTCONN;
}
