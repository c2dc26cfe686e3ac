/* The front end of libebb-cgroup: opens handles, chooses a backend per cgroup, and checks
 * arguments before calling through the ops table (cgroup-internal.h). */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/log.h"

const char *
ebb_cg_backend_name (ebb_cg_backend_kind kind)
{
  switch (kind)
    {
    case EBB_CG_BACKEND_V2:
      return "v2";
    case EBB_CG_BACKEND_V1:
      return "v1";
    case EBB_CG_BACKEND_SYSTEMD:
      return "systemd";
    default:
      return "auto";
    }
}

static ebb_cg *
handle_alloc (ebb_cg_ctx *ctx)
{
  ebb_cg *cg = ebb_xcalloc (1, sizeof *cg);
  cg->ctx = ctx;
  cg->dirfd = -1;
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    cg->ctrl_fd[c] = -1;
  for (int i = 0; i < EBB_CG_CPUFD_N; i++)
    cg->cpu_fd[i] = -1;
  return cg;
}

/* The directory of cgroup path `path` relative to a mount whose root is `root`: the mount
 * shows only the hierarchy below root (cgroup namespaces, bind mounts). Returns NULL when
 * path is not visible there. */
static const char *
rel_to_root (const char *path, const char *root)
{
  if (!root || strcmp (root, "/") == 0)
    return path;
  size_t n = strlen (root);
  if (strncmp (path, root, n) != 0 || (path[n] != '\0' && path[n] != '/'))
    return NULL;
  return path[n] ? path + n : "/";
}

/* Opens the v1 directory of controller c for cgroup path p; -1 (not an error) when that
 * hierarchy is not mounted or the cgroup does not exist there. */
static int
open_v1_ctrl (ebb_cg *cg, int c, const char *p, ebb_error **err)
{
  ebb_cg_ctx *ctx = cg->ctx;
  if (!ctx->v1_mount[c] || !p)
    return 0;
  const char *rel = rel_to_root (p, ctx->v1_root[c]);
  if (!rel)
    return ebb_error_set (err, EBB_EREFUSED, "cgroup %s is not visible below the %s mount %s", p,
                          ebb_cg_ctrl_name (c), ctx->v1_mount[c]);
  cleanup_error ebb_error *local = NULL;
  int fd = ebb_cg_open_dir (ctx->v1_mount[c], rel, &local);
  if (fd == -EBB_EGONE)
    {
      ebb_log_debug ("cgroup %s: absent from the %s hierarchy", p, ebb_cg_ctrl_name (c));
      return 0;
    }
  if (fd < 0)
    {
      if (err && !*err)
        *err = ebb_steal_ptr (&local);
      return fd;
    }
  cg->ctrl_fd[c] = fd;
  cg->ctrl_path[c] = ebb_xstrdup (p);
  return 0;
}

static int
open_dirs (ebb_cg *cg, const char *v2path, char *const v1paths[EBB_CG_CTRL_N], ebb_error **err)
{
  ebb_cg_ctx *ctx = cg->ctx;
  struct stat st;
  if (ctx->layout == EBB_CG_LAYOUT_V2)
    {
      cg->dirfd = ebb_cg_open_dir (ctx->v2_mount, v2path, err);
      if (cg->dirfd < 0)
        return cg->dirfd;
      cg->path = ebb_xstrdup (v2path);
      cg->file_ops = &ebb_cg_v2_ops;
      return fstat (cg->dirfd, &st) < 0 ? -errno : (cg->inode = st.st_ino, 0);
    }
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    {
      int r = open_v1_ctrl (cg, c, v1paths[c], err);
      if (r < 0)
        return r;
    }
  int key = cg->ctrl_fd[EBB_CG_CTRL_MEMORY] >= 0 ? EBB_CG_CTRL_MEMORY : -1;
  for (int c = 0; c < EBB_CG_CTRL_N && key < 0; c++)
    if (cg->ctrl_fd[c] >= 0)
      key = c;
  if (key < 0)
    return ebb_error_set (err, EBB_EGONE, "cgroup %s: no such cgroup in any hierarchy",
                          v1paths[EBB_CG_CTRL_MEMORY] ?: v1paths[EBB_CG_CTRL_CPU] ?: "?");
  cg->path = ebb_xstrdup (cg->ctrl_path[key]);
  cg->file_ops = &ebb_cg_v1_ops;
  return fstat (cg->ctrl_fd[key], &st) < 0 ? -errno : (cg->inode = st.st_ino, 0);
}

static int
choose_backend (ebb_cg *cg, unsigned flags, ebb_error **err)
{
  cg->ops = cg->file_ops;
#ifdef EBB_CG_HAVE_SYSTEMD
  if (!(flags & EBB_CG_OPEN_FILES_ONLY) && cg->ctx->use_systemd)
    {
      int r = ebb_cg_systemd_probe (cg, err);
      if (r < 0)
        return r;
      if (r > 0)
        cg->ops = &ebb_cg_systemd_ops;
    }
#else
  (void)flags;
  (void)err;
#endif
  cg->kind = cg->ops->kind;
  return 0;
}

/* Opens a handle on already checked paths (v2path on V2, v1paths[] on V1). */
int
ebb_cg_open_paths (ebb_cg_ctx *ctx, const char *v2path, char *const v1paths[EBB_CG_CTRL_N],
                   unsigned flags, ebb_cg **out, ebb_error **err)
{
  ebb_cg *cg = handle_alloc (ctx);
  int r = open_dirs (cg, v2path, v1paths, err);
  if (r >= 0)
    r = choose_backend (cg, flags, err);
  if (r >= 0 && cg->ops->open)
    r = cg->ops->open (cg, err);
  if (r < 0)
    {
      ebb_cg_close (cg); /* the chosen backend's close frees what its probe/open kept */
      return r < 0 ? r : -EIO;
    }
  *out = cg;
  return 0;
}

/* Strips "<cgroup_root>" (V2) or "<controller mount>" (V1) from a filesystem path. */
static const char *
strip_fs_prefix (const ebb_cg_ctx *ctx, const char *path)
{
  const char *mounts[EBB_CG_CTRL_N + 1];
  int n = 0;
  if (ctx->v2_mount)
    mounts[n++] = ctx->v2_mount;
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    if (ctx->v1_mount[c])
      mounts[n++] = ctx->v1_mount[c];
  for (int i = 0; i < n; i++)
    {
      size_t l = strlen (mounts[i]);
      if (strncmp (path, mounts[i], l) == 0 && (path[l] == '/' || path[l] == '\0'))
        return path[l] ? path + l : "/";
    }
  return path;
}

int
ebb_cg_open_path (ebb_cg_ctx *ctx, const char *path, unsigned flags, ebb_cg **out, ebb_error **err)
{
  cleanup_free char *norm = NULL;
  if (!path)
    return ebb_error_set (err, EINVAL, "open cgroup: no path");
  int r = ebb_cg_check_path (ctx, strip_fs_prefix (ctx, path), &norm, err);
  if (r < 0)
    return r;
  char *v1[EBB_CG_CTRL_N];
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    v1[c] = norm;
  return ebb_cg_open_paths (ctx, norm, v1, flags, out, err);
}

static void
free_paths (char **v)
{
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    free (v[c]);
}

int
ebb_cg_open_pid (ebb_cg_ctx *ctx, pid_t pid, unsigned flags, ebb_cg **out, ebb_error **err)
{
  char *raw[EBB_CG_CTRL_N] = { 0 }, *chk[EBB_CG_CTRL_N] = { 0 };
  int n = ctx->layout == EBB_CG_LAYOUT_V2 ? 1 : EBB_CG_CTRL_N;
  int r = 0;
  for (int c = 0; c < n && r >= 0; c++)
    {
      r = ebb_cg_pid_path (ctx, pid, ctx->layout == EBB_CG_LAYOUT_V2 ? -1 : c, &raw[c], err);
      if (r > 0)
        r = ebb_cg_check_path (ctx, raw[c], &chk[c], err);
    }
  if (r >= 0 && ctx->layout == EBB_CG_LAYOUT_V2 && !chk[0])
    r = ebb_error_set (err, ENOENT, "process %d has no cgroup v2 path", (int)pid);
  if (r >= 0)
    r = ebb_cg_open_paths (ctx, chk[0], chk, flags, out, err);
  free_paths (raw);
  free_paths (chk);
  return r < 0 ? ebb_error_wrap (err, "open cgroup of pid %d", (int)pid) : 0;
}

int
ebb_cg_dirfd (const ebb_cg *cg)
{
  return cg->dirfd;
}

const char *
ebb_cg_path (const ebb_cg *cg)
{
  return cg->path;
}

ebb_cg_backend_kind
ebb_cg_backend (const ebb_cg *cg)
{
  return cg->kind;
}

uint64_t
ebb_cg_inode (const ebb_cg *cg)
{
  return cg->inode;
}

void
ebb_cg_close (ebb_cg *cg)
{
  if (!cg)
    return;
  if (cg->ops && cg->ops->close)
    cg->ops->close (cg);
  if (cg->dirfd >= 0)
    close (cg->dirfd);
  for (int i = 0; i < EBB_CG_CPUFD_N; i++)
    if (cg->cpu_fd[i] >= 0)
      close (cg->cpu_fd[i]);
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    {
      if (cg->ctrl_fd[c] >= 0)
        close (cg->ctrl_fd[c]);
      free (cg->ctrl_path[c]);
    }
  free (cg->path);
  free (cg);
}
