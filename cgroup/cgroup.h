/* libebb-cgroup: make a running task preemptable without killing it (BIG-C §3,
 * doc/design.md "Preemption on the node").
 *
 * Three layers, each usable on its own:
 *  1. A context (ebb_cg_ctx): where /proc and the cgroup mounts are (injectable, so parser
 *     tests run on a fake tree), which cgroup paths may be touched, how hierarchies are laid
 *     out (v2 unified, or v1 with one hierarchy per controller as on hybrid hosts).
 *  2. A handle (ebb_cg) for one cgroup, opened by path or by PID; the backend (v2 files, v1
 *     files, or a systemd unit) is chosen when it is opened. Plain reads and writes of limits,
 *     freeze/thaw, proactive reclaim.
 *  3. The preemption engine on a handle: immediate suspend, graceful step, resume, with the
 *     original limits recorded before the first change, and a worker pool whose completions
 *     arrive on an eventfd so an sd-event loop never blocks on a reclaiming write.
 *
 * Conventions: every function that can fail takes `ebb_error **err` last (lib/error.h) and
 * returns a negative value (or NULL) on failure. Error codes that callers act on:
 *   EBB_EGONE     the cgroup or process vanished (ENOENT/ENODEV on an open cgroup): "task gone"
 *   EBB_EREFUSED  a path outside the allowed roots, containing "..", or reached via a symlink
 *   EBB_ETIMEDOUT freeze/thaw not confirmed in time (already rolled back)
 *   EBB_EPARSE    a kernel file in an unexpected format
 *   ENOTSUP       the cgroup lacks what is asked (v1 has no memory.high; controller missing:
 *                 the message names the controller and the cgroup)
 * A handle is not thread-safe: use it from one thread at a time (the pool guarantees this
 * for the jobs it runs, see ebb_cg_pool_submit()).
 */
#ifndef EBB_CGROUP_H
#define EBB_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/error.h"

/* "max" (no limit) in every limit field. */
#define EBB_CG_MAX UINT64_MAX

/* BIG-C's minimal footprint: 1% of one CPU and 64 MiB. 1000 µs is the kernel's quota floor. */
#define EBB_CG_FOOTPRINT_QUOTA_USEC   1000ULL
#define EBB_CG_FOOTPRINT_PERIOD_USEC  100000ULL
#define EBB_CG_FOOTPRINT_MEMORY_BYTES (64ULL << 20)

/* Kernel bounds of cpu.max / cpu.cfs_*_us. */
#define EBB_CG_QUOTA_MIN_USEC  1000ULL
#define EBB_CG_PERIOD_MIN_USEC 1000ULL
#define EBB_CG_PERIOD_MAX_USEC 1000000ULL

typedef struct ebb_cg_ctx ebb_cg_ctx;
typedef struct ebb_cg ebb_cg;
typedef struct ebb_cg_pool ebb_cg_pool;

/* ------------------------------------------------------------------------------------ */
/* Context                                                                                */

typedef enum
{
  EBB_CG_LAYOUT_UNKNOWN = 0,
  EBB_CG_LAYOUT_V2, /* one cgroup2 hierarchy at cgroup_root, with controllers */
  EBB_CG_LAYOUT_V1, /* v1 controller hierarchies (legacy or hybrid: cgroup_root/cpu, ...) */
} ebb_cg_layout;

typedef enum
{
  EBB_CG_BACKEND_AUTO = 0, /* choose per cgroup: systemd if a unit owns it, else files */
  EBB_CG_BACKEND_V2,       /* cgroup v2 files */
  EBB_CG_BACKEND_V1,       /* cgroup v1 files (cpu, cpuacct, memory, freezer, pids hierarchies) */
  EBB_CG_BACKEND_SYSTEMD,  /* a systemd unit over sd-bus, plus the cgroupfs write */
} ebb_cg_backend_kind;

typedef struct ebb_cg_ctx_config
{
  /* Root of procfs; NULL means "/proc". Tests point it at a fake tree. */
  const char *proc_root;
  /* Where cgroup hierarchies are mounted; NULL means "/sys/fs/cgroup". */
  const char *cgroup_root;
  /* mountinfo to discover hierarchies from; NULL means "<proc_root>/self/mountinfo". */
  const char *mountinfo_path;
  /* NULL-terminated list of cgroup paths (as in /proc/PID/cgroup, e.g. "/ebb" or
   * "/system.slice"); only these and cgroups below them may be opened. NULL allows "/". */
  const char *const *allowed_roots;
  /* 1: ask libcgroup for mounts (real hosts); 0: parse mountinfo only (fake trees). */
  int use_libcgroup;
  /* 1: a cgroup owned by a systemd unit gets the systemd backend (when built in and a bus
   * is reachable); 0: always use files. */
  int use_systemd;
} ebb_cg_ctx_config;

/* Fills cfg with the defaults above (real /proc and /sys/fs/cgroup, libcgroup on, systemd
 * on, every path allowed). */
void ebb_cg_ctx_config_init (ebb_cg_ctx_config *cfg);

/* Discovers the hierarchies. Returns 0 and *out, or negative (ENOENT when no cgroup
 * hierarchy is mounted at cgroup_root, EBB_EPARSE on a malformed mountinfo). */
int ebb_cg_ctx_new (const ebb_cg_ctx_config *cfg, ebb_cg_ctx **out, ebb_error **err);

/* Frees the context; every handle opened from it must be closed first. NULL is allowed. */
void ebb_cg_ctx_free (ebb_cg_ctx *ctx);

/* Returns the layout discovered by ebb_cg_ctx_new(). */
ebb_cg_layout ebb_cg_ctx_layout (const ebb_cg_ctx *ctx);

/* Returns the mount directory of a v1 controller ("cpu", "memory", ...) or of the v2
 * hierarchy (controller ignored), or NULL when it is not mounted. */
const char *ebb_cg_ctx_mount (const ebb_cg_ctx *ctx, const char *controller);

/* ------------------------------------------------------------------------------------ */
/* Handles                                                                                */

typedef enum
{
  EBB_CG_OPEN_DEFAULT = 0,
  EBB_CG_OPEN_FILES_ONLY = 1 << 0, /* never the systemd backend for this handle */
} ebb_cg_open_flags;

/* Opens the cgroup at a cgroup path ("/ebb/task-1", the form /proc/PID/cgroup shows; on v1
 * the same path in each of the cpu, cpuacct, memory, freezer and pids hierarchies). A filesystem
 * path under cgroup_root ("/sys/fs/cgroup/ebb/task-1", on v1 "/sys/fs/cgroup/memory/...") is
 * accepted too. Returns 0 and *out; EBB_EREFUSED (outside the allowed roots, "..", a
 * symlink), EBB_EGONE (no such cgroup), or another negative code. */
int ebb_cg_open_path (ebb_cg_ctx *ctx, const char *path, unsigned flags, ebb_cg **out,
                      ebb_error **err);

/* Opens the cgroup(s) of a process, read from <proc_root>/PID/cgroup; pid 0 means the
 * calling process. On v1 each controller uses that process's own path in its hierarchy.
 * Returns 0 and *out; EBB_EGONE when the process does not exist; as ebb_cg_open_path(). */
int ebb_cg_open_pid (ebb_cg_ctx *ctx, pid_t pid, unsigned flags, ebb_cg **out, ebb_error **err);

/* Creates a fresh child cgroup `name` (an id: [A-Za-z0-9._-]) under parent and opens it with
 * the files backend of the parent's layout. v2: mkdir, and enable cpu, memory and pids (where
 * offered) in the parent's cgroup.subtree_control when they are not enabled yet (never in
 * ancestors above it). v1: one directory per hierarchy (cpu, cpuacct, memory, freezer, pids;
 * those mounted).
 * Returns 0 and *out; EEXIST when it already exists; negative on failure (partially created
 * directories are removed again). */
int ebb_cg_create_child (ebb_cg *parent, const char *name, ebb_cg **out, ebb_error **err);

/* Removes the cgroup's directories (all hierarchies on v1); the handle stays valid only for
 * ebb_cg_close(). Returns 0; EBUSY while processes remain; EBB_EGONE if already gone. */
int ebb_cg_remove (ebb_cg *cg, ebb_error **err);

/* Moves process pid into the cgroup (cgroup.procs, every hierarchy on v1). Returns 0;
 * EBB_EGONE when the process or the cgroup vanished; negative on failure. */
int ebb_cg_attach_pid (ebb_cg *cg, pid_t pid, ebb_error **err);

/* Returns the v2 cgroup directory fd (O_PATH; valid for clone3(CLONE_INTO_CGROUP), owned by
 * the handle), or -1 on v1. */
int ebb_cg_dirfd (const ebb_cg *cg);

/* Closes the handle (does not change the cgroup). NULL is allowed. */
void ebb_cg_close (ebb_cg *cg);

/* Returns the cgroup path ("/ebb/task-1"; on v1 the memory hierarchy's path). */
const char *ebb_cg_path (const ebb_cg *cg);

/* Returns the backend chosen at open time (never EBB_CG_BACKEND_AUTO). */
ebb_cg_backend_kind ebb_cg_backend (const ebb_cg *cg);

/* Returns a static name for a backend: "v2", "v1", "systemd", "auto". */
const char *ebb_cg_backend_name (ebb_cg_backend_kind kind);

/* Returns the inode of the cgroup directory (v1: the memory hierarchy's), which keys a task
 * together with its id: a cgroup re-created under the same name gets another inode. */
uint64_t ebb_cg_inode (const ebb_cg *cg);

/* ------------------------------------------------------------------------------------ */
/* Reading                                                                                */

typedef struct ebb_cg_psi
{
  double some_avg10, full_avg10; /* percent */
  uint64_t some_total_usec, full_total_usec;
} ebb_cg_psi;

/* Bits of ebb_cg_stats.valid: which fields the kernel provided for this cgroup. */
enum
{
  EBB_CG_STAT_CPU = 1 << 0,        /* cpu_usage_usec */
  EBB_CG_STAT_THROTTLE = 1 << 1,   /* nr_periods, nr_throttled, throttled_usec */
  EBB_CG_STAT_MEMORY = 1 << 2,     /* memory_current_bytes, anon, file */
  EBB_CG_STAT_SWAP = 1 << 3,       /* swap_current_bytes */
  EBB_CG_STAT_PSI_CPU = 1 << 4,    /* cpu_psi */
  EBB_CG_STAT_PSI_MEMORY = 1 << 5, /* memory_psi */
  EBB_CG_STAT_OOM = 1 << 6,        /* oom_kill */
  EBB_CG_STAT_FROZEN = 1 << 7,     /* frozen */
  EBB_CG_STAT_PGMAJFAULT = 1 << 8, /* pgmajfault */
  EBB_CG_STAT_SWAPIN = 1 << 9,     /* swapin_pages (v2 memory.stat pswpin, newer kernels) */
};

typedef struct ebb_cg_stats
{
  uint32_t valid; /* EBB_CG_STAT_* */
  uint64_t cpu_usage_usec;
  uint64_t nr_periods, nr_throttled, throttled_usec;
  uint64_t memory_current_bytes, memory_anon_bytes, memory_file_bytes;
  uint64_t swap_current_bytes;
  ebb_cg_psi cpu_psi, memory_psi;
  uint64_t oom_kill;
  uint64_t pgmajfault;
  uint64_t swapin_pages;
  int frozen; /* 1 frozen (v1: FROZEN), 0 otherwise */
} ebb_cg_stats;

/* Reads everything the cgroup offers into *out (fields not offered stay 0 and their valid
 * bit unset). Returns 0; EBB_EGONE when the cgroup vanished; negative on failure. */
int ebb_cg_read_stats (ebb_cg *cg, ebb_cg_stats *out, ebb_error **err);

/* Bits of ebb_cg_limits.valid. */
enum
{
  EBB_CG_LIM_CPU = 1 << 0,         /* cpu_quota_usec, cpu_period_usec */
  EBB_CG_LIM_CPU_BURST = 1 << 1,   /* cpu_burst_usec */
  EBB_CG_LIM_MEMORY_HIGH = 1 << 2, /* v2 only */
  EBB_CG_LIM_MEMORY_MAX = 1 << 3,  /* v2 memory.max, v1 memory.limit_in_bytes */
  EBB_CG_LIM_SWAP_MAX = 1 << 4,    /* v2 memory.swap.max */
};

/* The limits the engine changes and restores. EBB_CG_MAX is "max"/unlimited (v1: -1 quota,
 * or the kernel's page-rounded "unlimited" memory value). */
typedef struct ebb_cg_limits
{
  uint32_t valid; /* EBB_CG_LIM_* */
  uint64_t cpu_quota_usec;
  uint64_t cpu_period_usec;
  uint64_t cpu_burst_usec;
  uint64_t memory_high_bytes;
  uint64_t memory_max_bytes;
  uint64_t swap_max_bytes;
} ebb_cg_limits;

/* Reads the current limits into *out. Returns 0; EBB_EGONE; negative on failure. */
int ebb_cg_read_limits (ebb_cg *cg, ebb_cg_limits *out, ebb_error **err);

/* ------------------------------------------------------------------------------------ */
/* Writing (one kernel file each; blocking where noted)                                   */

/* Sets the CPU bandwidth: quota per period (quota EBB_CG_MAX = unlimited). Quota must be
 * >= 1000 µs, period in 1 ms..1 s (EBB_ERANGE otherwise); a burst above the new quota is
 * lowered first. Returns 0; EBB_EGONE; negative on failure. */
int ebb_cg_set_cpu (ebb_cg *cg, uint64_t quota_usec, uint64_t period_usec, ebb_error **err);

/* Sets memory.high (v2; ENOTSUP on v1). Blocks while the kernel reclaims when lowered below
 * usage. Returns 0; EBB_EGONE; negative on failure. */
int ebb_cg_set_memory_high (ebb_cg *cg, uint64_t bytes, ebb_error **err);

/* Sets memory.max (v2) / memory.limit_in_bytes (v1). Lowering below usage reclaims and, if
 * the kernel cannot, may OOM-kill on v2 or fail with EBUSY on v1: the engine never asks for
 * less than is already reclaimed. Returns 0; EBUSY (v1, cannot reclaim); EBB_EGONE; negative
 * on failure. */
int ebb_cg_set_memory_max (ebb_cg *cg, uint64_t bytes, ebb_error **err);

/* Sets pids.max, the most processes and threads the cgroup may hold (EBB_CG_MAX: no limit),
 * in the v2 hierarchy or the v1 pids one. Returns 0; ENOTSUP when the cgroup has no pids
 * controller (v1: no pids hierarchy or no directory in it; v2: not enabled by the parent);
 * EBB_EGONE; negative on failure. */
int ebb_cg_set_pids_max (ebb_cg *cg, uint64_t n, ebb_error **err);

/* Sets memory.swap.max (v2; ENOTSUP on v1). Returns 0; EBB_EGONE; negative on failure. */
int ebb_cg_set_swap_max (ebb_cg *cg, uint64_t bytes, ebb_error **err);

/* Asks the kernel to reclaim `bytes` from the cgroup (v2 memory.reclaim; blocks). Returns 0
 * when all was reclaimed, EAGAIN when the kernel reclaimed less, ENOTSUP on v1 or kernels
 * without memory.reclaim, EBB_EGONE, negative on failure. */
int ebb_cg_reclaim (ebb_cg *cg, uint64_t bytes, ebb_error **err);

/* Freezes (frozen=1) or thaws (0) every process of the cgroup and waits up to timeout_usec
 * for the kernel to confirm (v2 cgroup.events "frozen", v1 freezer.state). If it is not
 * confirmed in time, the previous state is written back. Returns 0; EBB_ETIMEDOUT (rolled
 * back); EBB_EGONE; negative on failure. */
int ebb_cg_set_frozen (ebb_cg *cg, int frozen, uint64_t timeout_usec, ebb_error **err);

/* ------------------------------------------------------------------------------------ */
/* The preemption engine                                                                  */

typedef struct ebb_cg_engine_config
{
  uint64_t footprint_quota_usec;   /* default 1000 */
  uint64_t footprint_period_usec;  /* default 100000 */
  uint64_t footprint_memory_bytes; /* default 64 MiB */
  /* Immediate suspend waits at most this long for memory to reach the footprint. */
  uint64_t reclaim_timeout_usec; /* default 10 s */
  /* Graceful step: thrashing when memory PSI some avg10 exceeds this (percent) ... */
  double thrash_psi_some_avg10; /* default 10.0 */
  /* ... or when major faults (or swap-ins) grow by more than this many during the step. */
  uint64_t thrash_majfault_delta; /* default 1000 */
  /* Raise memory.swap.max for the suspension when it is 0 and swap exists (v2). */
  int raise_swap; /* default 1 */
  /* The swap.max to raise to (EBB_CG_MAX by default). */
  uint64_t raised_swap_max_bytes;
  /* Immediate suspend throttles CPU only and leaves memory alone (short preemptions). */
  int cpu_only; /* default 0 */
} ebb_cg_engine_config;

/* Fills cfg with the defaults above. */
void ebb_cg_engine_config_init (ebb_cg_engine_config *cfg);

typedef enum
{
  EBB_CG_STATE_RUNNING = 0, /* at its original limits (or never touched) */
  EBB_CG_STATE_SHRUNK,      /* graceful steps taken, still making progress */
  EBB_CG_STATE_SUSPENDED,   /* at the footprint (immediate suspend) */
  EBB_CG_STATE_FROZEN_OUT,  /* graceful: thrashing seen, put at the CPU footprint and left
                             * out of further steps */
} ebb_cg_state;

/* What the engine recorded before its first change: journal it (doc/design.md crash safety) and
 * hand it back with ebb_cg_set_original() after a restart. */
typedef struct ebb_cg_original
{
  int recorded; /* 0 until the first record */
  ebb_cg_limits limits;
  int swap_raised;       /* memory.swap.max was raised by the engine and must be restored */
  int oom_kill_disabled; /* v1: the engine set oom_kill_disable 1; resume writes 0 */
  ebb_cg_state state;
  uint32_t changed; /* EBB_CG_LIM_* the engine has changed: resume restores these */
  int cpu_only;     /* only the CPU limits were recorded (CPU-only suspend); the memory
                     * limits are read before the engine first changes one */
} ebb_cg_original;

typedef struct ebb_cg_result
{
  ebb_cg_state state;           /* state after the operation */
  uint64_t memory_before_bytes; /* usage when the operation started */
  uint64_t memory_after_bytes;  /* usage when it ended */
  uint64_t reclaimed_bytes;     /* before - after (0 if usage grew) */
  uint64_t held_bytes;          /* memory the task still holds afterwards (= after; the
                                 * footprint included): not free for other tasks */
  uint64_t cpu_quota_usec;      /* the CPU limit in force afterwards (EBB_CG_MAX: none) */
  uint64_t cpu_period_usec;
  uint64_t memory_limit_bytes; /* memory.high (v2) / limit_in_bytes (v1) afterwards */
  int thrashing;               /* graceful: thrashing was detected */
  uint64_t elapsed_usec;
} ebb_cg_result;

/* Reads the current limits and records them as the originals, unless already recorded.
 * Returns 0 and fills *out (may be NULL); EBB_EGONE; negative on failure. */
int ebb_cg_record_original (ebb_cg *cg, ebb_cg_original *out, ebb_error **err);

/* Returns the recorded originals (recorded == 0 when none). */
void ebb_cg_get_original (const ebb_cg *cg, ebb_cg_original *out);

/* Replaces the recorded originals (after an agent restart, from its journal). */
void ebb_cg_set_original (ebb_cg *cg, const ebb_cg_original *orig);

/* Returns the engine state of the handle. */
ebb_cg_state ebb_cg_get_state (const ebb_cg *cg);

/* Immediate suspend (blocks; see ebb_cg_pool_submit() for the non-blocking form): records
 * the originals, sets CPU to the footprint, then brings memory toward the footprint (v2:
 * memory.high + memory.reclaim, memory.max lowered only to what is already reclaimed; v1:
 * memory.limit_in_bytes in steps, EBUSY meaning "cannot reclaim more"). Memory that cannot
 * be reclaimed (no swap) is reported in held_bytes; it is not an error. Returns 0 and *res;
 * EBB_EGONE; negative on failure (limits already changed stay, originals stay recorded). */
int ebb_cg_suspend (ebb_cg *cg, const ebb_cg_engine_config *cfg, ebb_cg_result *res,
                    ebb_error **err);

/* One graceful step: what to take, and from what. */
typedef struct ebb_cg_step_req
{
  double cpu_cores;      /* CPU to take (e.g. 0.5); 0: the CPU limit is left alone */
  uint64_t memory_bytes; /* memory to take; 0: the memory limit is left alone */
  /* What the scheduler counts the task as holding before this step (0: not said). Given,
   * the new limit is this less the amount taken, whatever the cgroup's limit or usage (the
   * scheduler's amounts are parts of its own books): an unlimited container the scheduler
   * booked at one CPU is left at one CPU less the step, not at all online CPUs less it. */
  double booked_cores;
  uint64_t booked_memory_bytes;
  /* Without booked_cores, an unlimited CPU limit counts as this (the task's allocation as
   * the caller knows it); 0: all online CPUs. */
  double given_cores;
} ebb_cg_step_req;

/* Graceful step: lowers the CPU limit by req->cpu_cores and the memory limit by
 * req->memory_bytes, from what req says the task holds (booked), else from the current
 * effective limits (memory: the usage when lower), bounded below by the footprint. A step
 * never raises a limit. If thrashing is detected afterwards, puts the cgroup at the CPU
 * footprint and reports EBB_CG_STATE_FROZEN_OUT. A frozen-out cgroup is not stepped again
 * (returns 0, no change). Returns 0 and *res; EBB_EGONE; negative on failure. */
int ebb_cg_step (ebb_cg *cg, const ebb_cg_engine_config *cfg, const ebb_cg_step_req *req,
                 ebb_cg_result *res, ebb_error **err);

/* Resume: restores the recorded originals exactly, memory first (memory.max, memory.high,
 * swap.max), then CPU (period/quota, burst). Without recorded originals it does nothing.
 * Returns 0 and *res (state RUNNING, originals forgotten); EBB_EGONE; negative on failure. */
int ebb_cg_resume (ebb_cg *cg, const ebb_cg_engine_config *cfg, ebb_cg_result *res,
                   ebb_error **err);

/* ------------------------------------------------------------------------------------ */
/* Worker pool: the engine off the caller's thread                                        */

typedef enum
{
  EBB_CG_JOB_SUSPEND,
  EBB_CG_JOB_STEP,
  EBB_CG_JOB_RESUME,
  EBB_CG_JOB_RECLAIM, /* ebb_cg_reclaim (bytes) */
  EBB_CG_JOB_FREEZE,  /* ebb_cg_set_frozen (1, timeout) */
  EBB_CG_JOB_THAW,    /* ebb_cg_set_frozen (0, timeout) */
} ebb_cg_job_kind;

typedef struct ebb_cg_job
{
  ebb_cg_job_kind kind;
  ebb_cg_engine_config config; /* SUSPEND, STEP, RESUME */
  ebb_cg_step_req step;        /* STEP (see ebb_cg_step()) */
  uint64_t memory_bytes;       /* RECLAIM: bytes to reclaim */
  uint64_t timeout_usec;       /* FREEZE, THAW */
} ebb_cg_job;

/* Called on the thread that calls ebb_cg_pool_dispatch(), once per job. rc is the job's
 * return value, err its error (NULL on success; owned by the pool, freed after return). */
typedef void (*ebb_cg_job_done_fn) (ebb_cg *cg, const ebb_cg_job *job, int rc,
                                    const ebb_cg_result *res, ebb_error *err, void *userdata);

/* Starts n_workers threads (1..16). Returns 0 and *out, negative on failure. */
int ebb_cg_pool_new (unsigned n_workers, ebb_cg_pool **out, ebb_error **err);

/* Returns the pool's eventfd: readable when completed jobs wait for dispatch (register it
 * with sd_event_add_io (EPOLLIN)). */
int ebb_cg_pool_fd (const ebb_cg_pool *pool);

/* Queues a job on cg. Jobs on the same handle run one at a time in submission order; the
 * caller must not use cg otherwise until its callbacks have run (ebb_cg_pool_busy()).
 * Returns 0; negative on failure (the pool is shutting down). */
int ebb_cg_pool_submit (ebb_cg_pool *pool, ebb_cg *cg, const ebb_cg_job *job,
                        ebb_cg_job_done_fn done, void *userdata, ebb_error **err);

/* Returns 1 while jobs on cg are queued, running, or not yet dispatched; 0 otherwise. */
int ebb_cg_pool_busy (ebb_cg_pool *pool, const ebb_cg *cg);

/* Runs the callbacks of completed jobs (never blocks). Returns how many ran. */
int ebb_cg_pool_dispatch (ebb_cg_pool *pool);

/* Waits for every queued job, runs their callbacks, stops the threads and frees the pool.
 * NULL is allowed. */
void ebb_cg_pool_free (ebb_cg_pool *pool);

/* ------------------------------------------------------------------------------------ */
/* Parsers (pure functions on file contents; exposed for tests and for the agent)         */

/* "max 100000", "50000 100000" or "max" → quota (EBB_CG_MAX for "max") and period (0 when
 * absent). Returns 0, or -EBB_EPARSE / -EBB_ERANGE. */
int ebb_cg_parse_cpu_max (const char *s, uint64_t *quota_usec, uint64_t *period_usec,
                          ebb_error **err);

/* A single value file: a decimal or "max" (→ EBB_CG_MAX). Returns 0, or -EBB_EPARSE /
 * -EBB_ERANGE. */
int ebb_cg_parse_u64_or_max (const char *s, uint64_t *out, ebb_error **err);

/* Finds `key` in a flat-keyed file ("key value\n" lines: memory.stat, cpu.stat,
 * memory.events, cgroup.events, v1 memory.oom_control). Returns 1 and *out when found, 0
 * when absent, -EBB_EPARSE / -EBB_ERANGE when its value is not a number. */
int ebb_cg_parse_keyed (const char *s, const char *key, uint64_t *out, ebb_error **err);

/* A PSI file ("some avg10=0.00 avg60=... total=N\nfull ..."). "full" may be absent (cpu on
 * older kernels): its fields stay 0. Returns 0, or -EBB_EPARSE / -EBB_ERANGE. */
int ebb_cg_parse_psi (const char *s, ebb_cg_psi *out, ebb_error **err);

/* v1 freezer.state: returns 0 THAWED, 1 FREEZING, 2 FROZEN, or -EBB_EPARSE. */
int ebb_cg_parse_freezer_state (const char *s, ebb_error **err);

/* /proc/PID/cgroup: finds the path of `controller` ("memory", ...; NULL or "" for the v2
 * "0::" line). Returns 1 and *path (malloc'd) when found, 0 when absent, -EBB_EPARSE on a
 * malformed line. */
int ebb_cg_parse_proc_cgroup (const char *s, const char *controller, char **path, ebb_error **err);

/* One mount from mountinfo. */
typedef struct ebb_cg_mount
{
  char *mount_point; /* unescaped (\040 → ' ') */
  char *root;        /* the hierarchy path mounted there ("/" normally) */
  int v2;            /* cgroup2 */
  char *options;     /* super options: "rw,cpu,cpuacct" */
} ebb_cg_mount;

/* Parses mountinfo text into the cgroup and cgroup2 mounts. Returns the number found (>= 0)
 * and *out (free with ebb_cg_mounts_free), or -EBB_EPARSE on a malformed line. */
int ebb_cg_parse_mountinfo (const char *s, ebb_cg_mount **out, ebb_error **err);
void ebb_cg_mounts_free (ebb_cg_mount *m, int n);

/* Returns 1 when a v1 mount's super options name controller ("cpu" is not "cpuset"). */
int ebb_cg_mount_has_controller (const ebb_cg_mount *m, const char *controller);

#endif
