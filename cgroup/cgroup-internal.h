/* libebb-cgroup internals: the handle, the context, and the backend ops table (after crun's
 * cgroup-internal.h). The front end (cgroup.c) chooses one backend per handle at open time
 * and calls through the table; the engine (engine.c) only uses the public API.
 *
 * Backends:
 *   ebb_cg_v2_ops       cgroup v2 files (cgroup/v2.c)
 *   ebb_cg_v1_ops       cgroup v1 files (cgroup/v1.c)
 *   ebb_cg_systemd_ops  a systemd unit over sd-bus (cgroup/systemd.c), which sets the unit
 *                       property and then delegates to cg->file_ops for the cgroupfs write
 *                       and for every read, as crun and runc do.
 *
 * How the systemd backend is linked: cgroup/systemd.mk (included by cgroup/local.mk) sets
 *   EBB_CG_SYSTEMD_SOURCES = cgroup/systemd.c
 *   EBB_CG_SYSTEMD_CPPFLAGS = -DEBB_CG_HAVE_SYSTEMD=1
 * and cgroup/systemd.c defines ebb_cg_systemd_ops and ebb_cg_systemd_probe() below. Without
 * EBB_CG_HAVE_SYSTEMD the front end never chooses the systemd backend.
 */
#ifndef EBB_CGROUP_INTERNAL_H
#define EBB_CGROUP_INTERNAL_H

#include <pthread.h>

#include "cgroup/cgroup.h"

/* The v1 controllers ebb uses; each is its own hierarchy on hybrid hosts (or co-mounted:
 * then two entries share a mount and a directory). */
typedef enum
{
  EBB_CG_CTRL_CPU = 0,
  EBB_CG_CTRL_CPUACCT,
  EBB_CG_CTRL_MEMORY,
  EBB_CG_CTRL_FREEZER,
  EBB_CG_CTRL_PIDS, /* optional: only pids.max of tasks ebb launches */
  EBB_CG_CTRL_N
} ebb_cg_ctrl;

/* Returns "cpu", "cpuacct", "memory", "freezer", "pids". */
const char *ebb_cg_ctrl_name (ebb_cg_ctrl c);

struct ebb_cg_ctx
{
  char *proc_root;
  char *cgroup_root;
  char **allowed_roots; /* NULL-terminated, normalised ("/a/b", no trailing slash) */
  int use_systemd;
  int use_libcgroup;
  ebb_cg_layout layout;
  char *v2_mount;                /* layout V2: the cgroup2 mount */
  char *v1_mount[EBB_CG_CTRL_N]; /* layout V1: each controller's mount (NULL: not mounted) */
  char *v1_root[EBB_CG_CTRL_N];  /* the hierarchy path mounted there ("/" normally) */
};

typedef struct ebb_cg_ops ebb_cg_ops;

enum
{
  EBB_CG_CPUFD_QUOTA_R = 0, /* v2 cpu.max, v1 cpu.cfs_quota_us */
  EBB_CG_CPUFD_QUOTA_W,
  EBB_CG_CPUFD_PERIOD_R, /* v1 cpu.cfs_period_us */
  EBB_CG_CPUFD_PERIOD_W,
  EBB_CG_CPUFD_N
};

struct ebb_cg
{
  ebb_cg_ctx *ctx;
  const ebb_cg_ops *ops;      /* the chosen backend */
  const ebb_cg_ops *file_ops; /* v2 or v1 files: always set; systemd delegates to it */
  ebb_cg_backend_kind kind;
  char *path; /* cgroup path ("/a/b"); v1: the memory hierarchy's (else the first found) */
  uint64_t inode;

  /* v2: the cgroup directory, O_PATH|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC. -1 on v1. */
  int dirfd;
  /* v1: each controller's directory (-1 when that hierarchy is not mounted) and path. */
  int ctrl_fd[EBB_CG_CTRL_N];
  char *ctrl_path[EBB_CG_CTRL_N];

  /* Backend-private data (systemd: unit name, bus); freed by ops->close. */
  void *backend_data;

  /* Engine bookkeeping. */
  ebb_cg_original orig;
  uint64_t step_majfault_base; /* thrash detection baseline */
  /* Guarded by the pool's mutex (pool.c). */
  unsigned pool_pending; /* jobs queued/running/undispatched on this handle */
  int pool_running;      /* a worker runs a job on this handle */

  /* Files the CPU path uses on every suspend/resume, opened once (fs.c cached I/O): a
   * suspend is then one read and one write, close to the raw write(2) it wraps. */
  int cpu_fd[EBB_CG_CPUFD_N];
  /* v1: the cfs period last read or written through this handle (0: unknown). A suspend
   * reads it fresh when it records the originals; resume trusts it, so a period changed by
   * someone else during a suspension is kept (ebb writes only what it changed). */
  uint64_t v1_period_usec;
};

/* The backend table. Every function returns 0 (or >= 0) on success and negative with *err
 * filled on failure; ENOENT/ENODEV on an open cgroup becomes EBB_EGONE. A NULL entry means
 * "not supported by this backend" (the front end answers ENOTSUP). */
struct ebb_cg_ops
{
  const char *name;
  ebb_cg_backend_kind kind;
  /* Called once after the generic fields are filled (dirfd/ctrl_fd opened). */
  int (*open) (ebb_cg *cg, ebb_error **err);
  /* Frees backend_data. */
  void (*close) (ebb_cg *cg);
  int (*read_stats) (ebb_cg *cg, ebb_cg_stats *out, ebb_error **err);
  int (*read_limits) (ebb_cg *cg, ebb_cg_limits *out, ebb_error **err);
  /* quota EBB_CG_MAX = unlimited; bounds already checked by the front end. */
  int (*set_cpu) (ebb_cg *cg, uint64_t quota_usec, uint64_t period_usec, ebb_error **err);
  int (*set_cpu_burst) (ebb_cg *cg, uint64_t burst_usec, ebb_error **err);
  int (*set_memory_high) (ebb_cg *cg, uint64_t bytes, ebb_error **err);
  int (*set_memory_max) (ebb_cg *cg, uint64_t bytes, ebb_error **err);
  int (*set_swap_max) (ebb_cg *cg, uint64_t bytes, ebb_error **err);
  int (*reclaim) (ebb_cg *cg, uint64_t bytes, ebb_error **err);
  /* Writes the freeze request only; the front end confirms and rolls back. */
  int (*freeze_write) (ebb_cg *cg, int frozen, ebb_error **err);
  /* Returns 1 frozen, 0 thawed, 2 in transition (v1 FREEZING), negative on failure. */
  int (*freeze_read) (ebb_cg *cg, ebb_error **err);
  int (*attach) (ebb_cg *cg, pid_t pid, ebb_error **err);
  /* v1 memory.oom_control oom_kill_disable: the engine sets it while a task is suspended so
   * a task that grows into its lowered limit waits instead of being killed. */
  int (*set_oom_kill_disable) (ebb_cg *cg, int disable, ebb_error **err);
  /* Optional: reads only the CPU quota and period (the CPU-only suspend's original), through
   * cached fds. NULL: the front end uses read_limits. */
  int (*read_cpu) (ebb_cg *cg, ebb_cg_limits *out, ebb_error **err);
};

extern const ebb_cg_ops ebb_cg_v2_ops;
extern const ebb_cg_ops ebb_cg_v1_ops;

#ifdef EBB_CG_HAVE_SYSTEMD
extern const ebb_cg_ops ebb_cg_systemd_ops;
/* Asks systemd whether a unit owns cg (GetUnitByControlGroup). Returns 1 (and stores the
 * unit in cg->backend_data, ready for ebb_cg_systemd_ops.open), 0 when no unit owns it or no
 * bus is reachable (files are used then), negative on failure. */
int ebb_cg_systemd_probe (ebb_cg *cg, ebb_error **err);
#endif

/* A process's cgroup path for v1 controller c, or its v2 path when c < 0 (discover.c).
 * pid 0 is the caller. Returns 1 and *out (malloc'd); 0 when the process has no such line;
 * EBB_EGONE when the process is gone; negative on failure. */
int ebb_cg_pid_path (ebb_cg_ctx *ctx, pid_t pid, int c, char **out, ebb_error **err);

/* Sets the CPU burst (resources.c; the engine restores an original with it). */
int ebb_cg_set_cpu_burst (ebb_cg *cg, uint64_t burst_usec, ebb_error **err);

/* Opens a handle on paths already checked with ebb_cg_check_path(): v2path on a V2 layout,
 * v1paths[c] per controller on V1 (NULL entries: not in that hierarchy). */
int ebb_cg_open_paths (ebb_cg_ctx *ctx, const char *v2path, char *const v1paths[EBB_CG_CTRL_N],
                       unsigned flags, ebb_cg **out, ebb_error **err);

/* The files backends' attach: pid into cgroup.procs of each directory (manage.c). */
int ebb_cg_files_attach (ebb_cg *cg, pid_t pid, ebb_error **err);

/* ---- helpers shared by the backends (cgroup/fs.c) ---- */

/* Reads file `name` relative to dirfd into a malloc'd NUL-terminated string (at most 1 MiB).
 * Returns 0 and *out; EBB_EGONE when the directory vanished (ENODEV, or ENOENT while the
 * directory itself is gone); ENOENT when only the file is missing; negative otherwise. */
int ebb_cg_read_at (int dirfd, const char *name, char **out, ebb_error **err);

/* Writes s to file `name` relative to dirfd with one write(2). Returns 0; EBB_EGONE as
 * above; the kernel's errno (EBUSY, EINVAL, ...) otherwise. */
int ebb_cg_write_at (int dirfd, const char *name, const char *s, ebb_error **err);

/* Like ebb_cg_read_at() on an open handle: adds the cgroup path to the message, and on
 * ENOENT names the controller missing there (from cgroup.controllers on v2). */
int ebb_cg_read_file (ebb_cg *cg, int dirfd, const char *name, char **out, ebb_error **err);

/* Reads a file the kernel may not offer (a disabled controller, PSI turned off at boot, a v1
 * hierarchy that is not mounted: dirfd < 0). Returns 1 and *out when present, 0 when absent,
 * negative on failure (EBB_EGONE when the cgroup vanished). Used by both file backends. */
int ebb_cg_read_optional (ebb_cg *cg, int dirfd, const char *name, char **out, ebb_error **err);

/* Reads an optional PSI file into *psi and sets bit in *valid. Returns 0 (also when the file is
 * absent, leaving *valid alone), negative on a read or parse failure. */
int ebb_cg_read_psi_optional (ebb_cg *cg, int dirfd, const char *name, ebb_cg_psi *psi,
                              uint32_t *valid, uint32_t bit, ebb_error **err);
int ebb_cg_write_file (ebb_cg *cg, int dirfd, const char *name, const char *s, ebb_error **err);

/* Cached I/O on a file the handle keeps open in *fd (opened on first use, closed again
 * after an error so the next call re-checks the path). Read: one pread at offset 0 into buf
 * (NUL-terminated). Same return values as ebb_cg_read_file()/ebb_cg_write_file(). */
int ebb_cg_cached_read (ebb_cg *cg, int *fd, int dirfd, const char *name, char *buf, size_t n,
                        ebb_error **err);
int ebb_cg_cached_write (ebb_cg *cg, int *fd, int dirfd, const char *name, const char *s,
                         ebb_error **err);

/* Opens cgroup path `path` (normalised, checked) below mount directory `mount`, refusing
 * symlinks (openat2 RESOLVE_NO_SYMLINKS|RESOLVE_BENEATH, or a component walk with
 * O_NOFOLLOW). Returns the O_PATH fd; EBB_EREFUSED (symlink/escape); EBB_EGONE (missing);
 * negative on failure. */
/* Starts an operation of the engine: clears *res and returns cfg, or *def filled with the
 * defaults when cfg is NULL (engine.c). */
const ebb_cg_engine_config *ebb_cg_engine_begin (const ebb_cg_engine_config *cfg,
                                                 ebb_cg_engine_config *def, ebb_cg_result *res);
/* Fills the memory figures of *res (before and after an operation: reclaimed, held) and the
 * limits now in force, as read back (engine.c). */
void ebb_cg_result_memory (ebb_cg *cg, ebb_cg_result *res, uint64_t before, uint64_t after);

int ebb_cg_open_dir (const char *mount, const char *path, ebb_error **err);

/* Normalises a cgroup path and checks it against ctx->allowed_roots: must be absolute, no
 * "..", no empty or "." components beyond repeated slashes. Returns 0 and *out (malloc'd,
 * "/a/b" or "/"); EBB_EREFUSED with the reason. */
int ebb_cg_check_path (const ebb_cg_ctx *ctx, const char *path, char **out, ebb_error **err);

/* v1 "unlimited" memory values (PAGE_COUNTER_MAX rounded to pages) are mapped to EBB_CG_MAX;
 * returns the mapped value. */
uint64_t ebb_cg_v1_memory_value (uint64_t v);

#endif
