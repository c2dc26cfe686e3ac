/* Creating, removing and populating cgroups for tasks ebb launches itself. */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/log.h"

/* True when v1 controller c shares its hierarchy with an earlier one (co-mounted
 * "cpu,cpuacct"): its directory is the same and must be created/removed once. */
static int
comounted_earlier (const ebb_cg_ctx *ctx, int c)
{
  for (int j = 0; j < c; j++)
    if (ctx->v1_mount[j] && ctx->v1_mount[c] && strcmp (ctx->v1_mount[j], ctx->v1_mount[c]) == 0)
      return 1;
  return 0;
}

/* v2: enables cpu, memory and pids for parent's children where parent offers them and they are
 * not enabled yet. Only the parent is touched, never its ancestors (systemd owns those). */
static int
enable_controllers (ebb_cg *parent, ebb_error **err)
{
  cleanup_free char *avail = NULL, *enabled = NULL;
  int r = ebb_cg_read_file (parent, parent->dirfd, "cgroup.controllers", &avail, err);
  if (r >= 0)
    r = ebb_cg_read_file (parent, parent->dirfd, "cgroup.subtree_control", &enabled, err);
  if (r < 0)
    return r;
  static const char *const want[] = { "cpu", "memory", "pids" };
  char req[64] = "";
  for (size_t i = 0; i < EBB_ARRAY_SIZE (want); i++)
    {
      char pat[16];
      snprintf (pat, sizeof pat, " %s ", want[i]);
      cleanup_free char *a = ebb_xasprintf (" %s ", avail), *e = ebb_xasprintf (" %s ", enabled);
      for (char *p = a; *p; p++)
        if (*p == '\n')
          *p = ' ';
      for (char *p = e; *p; p++)
        if (*p == '\n')
          *p = ' ';
      if (strstr (a, pat) && !strstr (e, pat))
        snprintf (req + strlen (req), sizeof req - strlen (req), "%s+%s", *req ? " " : "", want[i]);
    }
  if (!*req)
    return 0;
  r = ebb_cg_write_file (parent, parent->dirfd, "cgroup.subtree_control", req, err);
  if (r == -EBUSY)
    return ebb_error_wrap (err, "enable controllers (the parent has processes of its own: "
                                "cgroup v2 allows controllers only for children then)");
  return r;
}

static int
mkdir_in (int dirfd, const char *name, const char *where, ebb_error **err)
{
  if (mkdirat (dirfd, name, 0755) < 0)
    return ebb_error_set_errno (err, errno, "create cgroup %s/%s", where, name);
  return 0;
}

/* Creates name in every mounted v1 hierarchy of parent; removes them again on failure. */
static int
create_v1 (ebb_cg *parent, const char *name, char *paths[EBB_CG_CTRL_N], ebb_error **err)
{
  int made[EBB_CG_CTRL_N] = { 0 };
  int r = 0;
  for (int c = 0; c < EBB_CG_CTRL_N && r >= 0; c++)
    {
      if (parent->ctrl_fd[c] < 0)
        continue;
      const char *pp = parent->ctrl_path[c];
      paths[c] = ebb_xasprintf ("%s/%s", strcmp (pp, "/") == 0 ? "" : pp, name);
      if (comounted_earlier (parent->ctx, c))
        continue;
      r = mkdir_in (parent->ctrl_fd[c], name, pp, err);
      made[c] = r >= 0;
    }
  if (r < 0)
    for (int c = 0; c < EBB_CG_CTRL_N; c++)
      if (made[c])
        unlinkat (parent->ctrl_fd[c], name, AT_REMOVEDIR);
  return r;
}

int
ebb_cg_create_child (ebb_cg *parent, const char *name, ebb_cg **out, ebb_error **err)
{
  if (!ebb_id_is_valid (name, 255))
    return ebb_error_set (err, EBB_EREFUSED, "refusing cgroup name \"%s\": not an id", name);
  char *paths[EBB_CG_CTRL_N] = { 0 };
  cleanup_free char *v2path = NULL;
  int r;
  if (parent->ctx->layout == EBB_CG_LAYOUT_V2)
    {
      v2path = ebb_xasprintf ("%s/%s", strcmp (parent->path, "/") == 0 ? "" : parent->path, name);
      r = enable_controllers (parent, err);
      if (r >= 0)
        r = mkdir_in (parent->dirfd, name, parent->path, err);
    }
  else
    r = create_v1 (parent, name, paths, err);
  if (r >= 0)
    {
      r = ebb_cg_open_paths (parent->ctx, v2path, paths, EBB_CG_OPEN_FILES_ONLY, out, err);
      if (r < 0)
        {
          /* remove what was made, through the parent's fds */
          if (v2path)
            unlinkat (parent->dirfd, name, AT_REMOVEDIR);
          for (int c = 0; c < EBB_CG_CTRL_N; c++)
            if (paths[c] && !comounted_earlier (parent->ctx, c))
              unlinkat (parent->ctrl_fd[c], name, AT_REMOVEDIR);
        }
    }
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    free (paths[c]);
  return r;
}

/* Removes the last component of path below mount. */
static int
remove_dir (const char *mount, const char *path, ebb_error **err)
{
  const char *slash = strrchr (path, '/');
  if (!slash || slash[1] == '\0' || strcmp (path, "/") == 0)
    return ebb_error_set (err, EBB_EREFUSED, "refusing to remove the root cgroup");
  cleanup_free char *parent
      = slash == path ? ebb_xstrdup ("/") : strndup (path, (size_t)(slash - path));
  cleanup_close int pfd = ebb_cg_open_dir (mount, parent, err);
  if (pfd < 0)
    return pfd;
  if (unlinkat (pfd, slash + 1, AT_REMOVEDIR) < 0)
    {
      if (errno == ENOENT)
        return ebb_error_set (err, EBB_EGONE, "remove cgroup %s: already gone", path);
      return ebb_error_set_errno (err, errno, "remove cgroup %s (in %s)", path, mount);
    }
  return 0;
}

int
ebb_cg_remove (ebb_cg *cg, ebb_error **err)
{
  ebb_cg_ctx *ctx = cg->ctx;
  if (ctx->layout == EBB_CG_LAYOUT_V2)
    return remove_dir (ctx->v2_mount, cg->path, err);
  int r = 0, dirs = 0, gone = 0;
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    {
      if (cg->ctrl_fd[c] < 0 || comounted_earlier (ctx, c))
        continue;
      dirs++;
      cleanup_error ebb_error *e = NULL;
      int rc = remove_dir (ctx->v1_mount[c], cg->ctrl_path[c], &e);
      if (rc == -EBB_EGONE)
        gone++;
      else if (rc < 0 && r >= 0)
        {
          r = rc;
          if (err && !*err)
            *err = e, e = NULL;
        }
    }
  /* Keep going after a failure so one busy hierarchy does not leave the others behind. A
   * hierarchy already removed (by an earlier, partial call) does not hide a busy one: the
   * call is EBB_EGONE only when every directory is gone. */
  if (r >= 0 && dirs > 0 && gone == dirs)
    return ebb_error_set (err, EBB_EGONE, "remove cgroup %s: already gone", cg->path);
  return r;
}

int
ebb_cg_attach_pid (ebb_cg *cg, pid_t pid, ebb_error **err)
{
  if (pid <= 0)
    return ebb_error_set (err, EINVAL, "attach: invalid pid %d", (int)pid);
  if (!cg->ops->attach)
    return ebb_error_set (err, ENOTSUP, "attach: not supported by the %s backend", cg->ops->name);
  int r = cg->ops->attach (cg, pid, err);
  if (r == -ESRCH)
    {
      ebb_error_free (err);
      return ebb_error_set (err, EBB_EGONE, "attach pid %d to %s: process is gone", (int)pid,
                            cg->path);
    }
  return r;
}

/* Writes pid to cgroup.procs in each directory (the files backends' attach). */
int
ebb_cg_files_attach (ebb_cg *cg, pid_t pid, ebb_error **err)
{
  char buf[32];
  snprintf (buf, sizeof buf, "%d", (int)pid);
  if (cg->dirfd >= 0)
    return ebb_cg_write_file (cg, cg->dirfd, "cgroup.procs", buf, err);
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    {
      if (cg->ctrl_fd[c] < 0 || comounted_earlier (cg->ctx, c))
        continue;
      int r = ebb_cg_write_file (cg, cg->ctrl_fd[c], "cgroup.procs", buf, err);
      if (r < 0)
        return r;
    }
  return 0;
}
