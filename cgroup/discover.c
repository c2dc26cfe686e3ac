/* The context: where the hierarchies are. mountinfo gives the layout (and is the only
 * source on fake trees); on real hosts libcgroup supplies the v1 mount points and a
 * process's v1 cgroup paths (doc/design.md: "libcgroup discovers, ebb writes").
 *
 * Where libcgroup 2.0.2 (Debian 12) is not used, and why (checked on this hybrid host and
 * in the cgroup v2 VM):
 *  - the layout (v2 unified vs v1): 2.0.2 exports no call that says which (cgroup_setup_mode
 *    came later), so ebb reads the fstype of the mount at cgroup_root from mountinfo;
 *  - a process's v2 path: cgroup_get_current_controller_path() fails with ECGOTHER on a
 *    pure v2 host (its scanf of /proc/PID/cgroup needs a non-empty controller list, and
 *    the v2 line is "0::/path"), so ebb parses the "0::" line itself;
 *  - fake trees (tests): libcgroup reads the real /proc/self/mountinfo and /proc, which
 *    cannot be redirected.
 * cgroup_init() itself works in both places (2 ms here, 37 ms in the emulated VM). */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <fcntl.h>
#include <libcgroup.h>
#include <pthread.h>
#include <string.h>

#include "lib/log.h"

static const char *const ctrl_names[EBB_CG_CTRL_N]
    = { "cpu", "cpuacct", "memory", "freezer", "pids" };

const char *
ebb_cg_ctrl_name (ebb_cg_ctrl c)
{
  return (unsigned)c < EBB_CG_CTRL_N ? ctrl_names[c] : "?";
}

void
ebb_cg_ctx_config_init (ebb_cg_ctx_config *cfg)
{
  *cfg = (ebb_cg_ctx_config){ .use_libcgroup = 1, .use_systemd = 1 };
}

/* libcgroup keeps global tables and cgroup_init() is not thread-safe: run it once. */
static pthread_once_t lcg_once = PTHREAD_ONCE_INIT;
static int lcg_status = -1;

static void
lcg_init_once (void)
{
  lcg_status = cgroup_init ();
}

/* Returns 0 when libcgroup initialised, else its error code (logged once per context). */
static int
lcg_ready (void)
{
  pthread_once (&lcg_once, lcg_init_once);
  return lcg_status;
}

/* True when mount_point is root itself or directly below it. */
static int
below (const char *mp, const char *root)
{
  size_t n = strlen (root);
  return strncmp (mp, root, n) == 0 && (mp[n] == '\0' || mp[n] == '/');
}

static void
take_mounts (ebb_cg_ctx *ctx, const ebb_cg_mount *m, int n)
{
  for (int i = 0; i < n; i++)
    {
      if (!below (m[i].mount_point, ctx->cgroup_root))
        continue;
      if (m[i].v2 && strcmp (m[i].mount_point, ctx->cgroup_root) == 0 && !ctx->v2_mount)
        ctx->v2_mount = ebb_xstrdup (m[i].mount_point);
      for (int c = 0; c < EBB_CG_CTRL_N && !m[i].v2; c++)
        if (!ctx->v1_mount[c] && ebb_cg_mount_has_controller (&m[i], ctrl_names[c]))
          {
            ctx->v1_mount[c] = ebb_xstrdup (m[i].mount_point);
            ctx->v1_root[c] = ebb_xstrdup (m[i].root);
          }
    }
}

static int
read_mountinfo (ebb_cg_ctx *ctx, const char *path, ebb_error **err)
{
  cleanup_free char *text = NULL;
  int r = ebb_cg_read_at (AT_FDCWD, path, &text, err);
  if (r < 0)
    return ebb_error_wrap (err, "discover cgroup mounts");
  ebb_cg_mount *m = NULL;
  int n = ebb_cg_parse_mountinfo (text, &m, err);
  if (n < 0)
    return ebb_error_wrap (err, "%s", path);
  take_mounts (ctx, m, n);
  ebb_cg_mounts_free (m, n);
  return 0;
}

/* Replaces the v1 mount points with libcgroup's answer where it has one. */
static void
lcg_mounts (ebb_cg_ctx *ctx)
{
  int r = lcg_ready ();
  if (r != 0)
    {
      ebb_log_debug ("libcgroup: cgroup_init: %s; using mountinfo", cgroup_strerror (r));
      return;
    }
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    {
      char *mp = NULL;
      if (cgroup_get_subsys_mount_point (ctrl_names[c], &mp) == 0 && mp && ctx->v1_mount[c]
          && below (mp, ctx->cgroup_root))
        {
          free (ctx->v1_mount[c]);
          ctx->v1_mount[c] = ebb_xstrdup (mp);
        }
      free (mp);
    }
}

static int
set_roots (ebb_cg_ctx *ctx, const char *const *roots, ebb_error **err)
{
  if (!roots)
    return 0;
  size_t n = 0;
  while (roots[n])
    n++;
  ctx->allowed_roots = ebb_xcalloc (n + 1, sizeof (char *));
  ebb_cg_ctx tmp = { 0 }; /* check_path against no roots: only normalise */
  for (size_t i = 0; i < n; i++)
    if (ebb_cg_check_path (&tmp, roots[i], &ctx->allowed_roots[i], err) < 0)
      return ebb_error_wrap (err, "allowed root");
  return 0;
}

int
ebb_cg_ctx_new (const ebb_cg_ctx_config *cfg, ebb_cg_ctx **out, ebb_error **err)
{
  ebb_cg_ctx_config def;
  if (!cfg)
    {
      ebb_cg_ctx_config_init (&def);
      cfg = &def;
    }
  ebb_cg_ctx *ctx = ebb_xcalloc (1, sizeof *ctx);
  ctx->proc_root = ebb_xstrdup (cfg->proc_root ? cfg->proc_root : "/proc");
  ctx->cgroup_root = ebb_xstrdup (cfg->cgroup_root ? cfg->cgroup_root : "/sys/fs/cgroup");
  ctx->use_systemd = cfg->use_systemd;
  ctx->use_libcgroup = cfg->use_libcgroup;
  cleanup_free char *mi = cfg->mountinfo_path ? ebb_xstrdup (cfg->mountinfo_path)
                                              : ebb_xasprintf ("%s/self/mountinfo", ctx->proc_root);
  int r = set_roots (ctx, cfg->allowed_roots, err);
  if (r >= 0)
    r = read_mountinfo (ctx, mi, err);
  if (r >= 0 && !ctx->v2_mount && cfg->use_libcgroup)
    lcg_mounts (ctx);
  if (r >= 0)
    {
      ctx->layout = ctx->v2_mount ? EBB_CG_LAYOUT_V2 : EBB_CG_LAYOUT_V1;
      if (!ctx->v2_mount && !ctx->v1_mount[EBB_CG_CTRL_CPU] && !ctx->v1_mount[EBB_CG_CTRL_MEMORY])
        r = ebb_error_set (err, ENOENT,
                           "no cgroup2 hierarchy at %s and no v1 cpu or memory hierarchy below it",
                           ctx->cgroup_root);
    }
  if (r < 0)
    {
      ebb_cg_ctx_free (ctx);
      return r;
    }
  *out = ctx;
  return 0;
}

void
ebb_cg_ctx_free (ebb_cg_ctx *ctx)
{
  if (!ctx)
    return;
  free (ctx->proc_root);
  free (ctx->cgroup_root);
  for (char **r = ctx->allowed_roots; r && *r; r++)
    free (*r);
  free (ctx->allowed_roots);
  free (ctx->v2_mount);
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    {
      free (ctx->v1_mount[c]);
      free (ctx->v1_root[c]);
    }
  free (ctx);
}

ebb_cg_layout
ebb_cg_ctx_layout (const ebb_cg_ctx *ctx)
{
  return ctx->layout;
}

const char *
ebb_cg_ctx_mount (const ebb_cg_ctx *ctx, const char *controller)
{
  if (ctx->layout == EBB_CG_LAYOUT_V2)
    return ctx->v2_mount;
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    if (controller && strcmp (controller, ctrl_names[c]) == 0)
      return ctx->v1_mount[c];
  return NULL;
}

/* A process's cgroup path for controller c (v1) or the v2 path (c < 0): libcgroup on real
 * v1 hosts, else /proc/PID/cgroup parsed by ebb. Returns 1 and *out, 0 when the process has
 * no such line, EBB_EGONE when the process is gone, negative on failure. */
int
ebb_cg_pid_path (ebb_cg_ctx *ctx, pid_t pid, int c, char **out, ebb_error **err)
{
  if (pid == 0)
    pid = getpid ();
  if (c >= 0 && ctx->use_libcgroup && strcmp (ctx->proc_root, "/proc") == 0 && lcg_ready () == 0)
    {
      char *p = NULL;
      /* libcgroup reads /proc/PID/cgroup too; it answers ECGROUPNOTEXIST for a missing
       * controller and ECGOTHER for a vanished process, so fall through on any error to
       * give ebb's precise answer. */
      if (cgroup_get_current_controller_path (pid, ctrl_names[c], &p) == 0 && p)
        {
          *out = ebb_xstrdup (p);
          free (p);
          return 1;
        }
      free (p);
    }
  cleanup_free char *file = ebb_xasprintf ("%s/%d/cgroup", ctx->proc_root, (int)pid);
  cleanup_free char *text = NULL;
  int r = ebb_cg_read_at (AT_FDCWD, file, &text, err);
  if (r == -ENOENT || r == -ESRCH)
    {
      ebb_error_free (err);
      return ebb_error_set (err, EBB_EGONE, "process %d is gone (task gone)", (int)pid);
    }
  if (r < 0)
    return r;
  r = ebb_cg_parse_proc_cgroup (text, c >= 0 ? ctrl_names[c] : NULL, out, err);
  if (r < 0)
    return ebb_error_wrap (err, "%s", file);
  return r;
}
