/* File access shared by the backends: paths are checked, directories opened without
 * following symlinks, files read and written relative to a directory fd (doc/style.md, crun). */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/syscall.h>

#define READ_MAX_BYTES (1 << 20)

/* True when the cgroup directory behind dirfd no longer exists: every cgroup directory, v1
 * or v2, has cgroup.procs, and kernfs answers ENOENT inside a removed one. */
static int
dir_vanished (int dirfd)
{
  struct stat st;
  if (fstatat (dirfd, "cgroup.procs", &st, AT_SYMLINK_NOFOLLOW) == 0)
    return 0;
  return errno == ENOENT || errno == ENODEV;
}

static int
gone_or_errno (ebb_error **err, int dirfd, int e, const char *verb, const char *name)
{
  if (e == ENODEV || (e == ENOENT && dirfd != AT_FDCWD && dir_vanished (dirfd)))
    return ebb_error_set (err, EBB_EGONE, "%s %s: cgroup is gone (task gone)", verb, name);
  return ebb_error_set_errno (err, e, "%s %s", verb, name);
}

int
ebb_cg_read_at (int dirfd, const char *name, char **out, ebb_error **err)
{
  cleanup_close int fd = openat (dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return gone_or_errno (err, dirfd, errno, "open", name);
  size_t cap = 4096, len = 0;
  cleanup_free char *buf = ebb_xmalloc (cap + 1);
  for (;;)
    {
      ssize_t n = read (fd, buf + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return gone_or_errno (err, dirfd, errno, "read", name);
      if (n == 0)
        break;
      len += (size_t)n;
      if (len == cap)
        {
          if (cap >= READ_MAX_BYTES)
            return ebb_error_set (err, EBB_ERANGE, "read %s: larger than %d bytes", name,
                                  READ_MAX_BYTES);
          cap *= 2;
          buf = ebb_xrealloc (buf, cap + 1);
        }
    }
  buf[len] = '\0';
  *out = ebb_steal_ptr (&buf);
  return 0;
}

int
ebb_cg_write_at (int dirfd, const char *name, const char *s, ebb_error **err)
{
  cleanup_close int fd = openat (dirfd, name, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return gone_or_errno (err, dirfd, errno, "open", name);
  size_t len = strlen (s);
  ssize_t n;
  do
    n = write (fd, s, len);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    return gone_or_errno (err, dirfd, errno, "write", name);
  if ((size_t)n != len)
    return ebb_error_set (err, EIO, "write %s: short write (%zd of %zu bytes)", name, n, len);
  return 0;
}

/* Which v1 controller directory is dirfd (for messages); -1 for v2. */
static int
ctrl_of_fd (const ebb_cg *cg, int dirfd)
{
  for (int c = 0; c < EBB_CG_CTRL_N; c++)
    if (cg->ctrl_fd[c] == dirfd && dirfd >= 0)
      return c;
  return -1;
}

/* On ENOENT of a controller file, says which controller is missing where. */
static int
explain_missing (ebb_cg *cg, int dirfd, const char *name, ebb_error **err)
{
  size_t plen = strcspn (name, ".");
  int c = ctrl_of_fd (cg, dirfd);
  cleanup_free char *ctrls = NULL;
  if (c >= 0)
    ebb_error_wrap (err, "cgroup %s: the %s hierarchy has no %s (kernel too old?)",
                    cg->ctrl_path[c] ? cg->ctrl_path[c] : "?", ebb_cg_ctrl_name (c), name);
  else if (ebb_cg_read_at (dirfd, "cgroup.controllers", &ctrls, NULL) < 0)
    ebb_error_wrap (err, "cgroup %s", cg->path);
  else
    {
      ctrls[strcspn (ctrls, "\n")] = '\0';
      ebb_error_wrap (err,
                      "cgroup %s: controller %.*s is not enabled there (cgroup.controllers: "
                      "\"%s\"; enable it in the parent's cgroup.subtree_control)",
                      cg->path, (int)plen, name, ctrls);
    }
  return -ENOENT;
}

int
ebb_cg_read_file (ebb_cg *cg, int dirfd, const char *name, char **out, ebb_error **err)
{
  if (dirfd < 0)
    return ebb_error_set (err, ENOTSUP,
                          "cgroup %s: %s: the cgroup has no directory in that controller's "
                          "hierarchy (not mounted, or the cgroup lives elsewhere there)",
                          cg->path, name);
  int r = ebb_cg_read_at (dirfd, name, out, err);
  if (r == -ENOENT)
    return explain_missing (cg, dirfd, name, err);
  if (r < 0)
    return ebb_error_wrap (err, "cgroup %s", cg->path);
  return 0;
}

int
ebb_cg_write_file (ebb_cg *cg, int dirfd, const char *name, const char *s, ebb_error **err)
{
  if (dirfd < 0)
    return ebb_error_set (err, ENOTSUP,
                          "cgroup %s: %s: the cgroup has no directory in that controller's "
                          "hierarchy (not mounted, or the cgroup lives elsewhere there)",
                          cg->path, name);
  int r = ebb_cg_write_at (dirfd, name, s, err);
  if (r == -ENOENT)
    return explain_missing (cg, dirfd, name, err);
  if (r < 0)
    return ebb_error_wrap (err, "cgroup %s: \"%s\"", cg->path, s);
  return 0;
}

static void
drop_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

int
ebb_cg_cached_read (ebb_cg *cg, int *fd, int dirfd, const char *name, char *buf, size_t n,
                    ebb_error **err)
{
  if (*fd < 0 && dirfd >= 0)
    *fd = openat (dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  ssize_t r = *fd >= 0 ? pread (*fd, buf, n - 1, 0) : -1;
  if (r >= 0)
    {
      buf[r] = '\0';
      return 0;
    }
  /* The uncached path gives the precise error (gone, missing controller) or succeeds. */
  drop_fd (fd);
  cleanup_free char *s = NULL;
  int rc = ebb_cg_read_file (cg, dirfd, name, &s, err);
  if (rc >= 0)
    snprintf (buf, n, "%s", s);
  return rc;
}

int
ebb_cg_cached_write (ebb_cg *cg, int *fd, int dirfd, const char *name, const char *s,
                     ebb_error **err)
{
  if (*fd < 0 && dirfd >= 0)
    {
      *fd = openat (dirfd, name, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
      struct statfs sfs;
      if (*fd >= 0 && fstatfs (*fd, &sfs) == 0 && sfs.f_type != CGROUP_SUPER_MAGIC
          && sfs.f_type != CGROUP2_SUPER_MAGIC)
        drop_fd (fd); /* a fake tree (tests): plain files need truncating writes */
    }
  if (*fd < 0)
    return ebb_cg_write_file (cg, dirfd, name, s, err);
  size_t len = strlen (s);
  ssize_t r = pwrite (*fd, s, len, 0);
  if (r == (ssize_t)len)
    return 0;
  int e = r < 0 ? errno : EIO;
  drop_fd (fd);
  if (e == ENODEV || e == ENOENT)
    return gone_or_errno (err, dirfd, e, "write", name);
  return ebb_error_set_errno (err, e, "cgroup %s: write %s \"%s\"", cg->path, name, s);
}

static int
refuse_symlink (ebb_error **err, const char *mount, const char *path)
{
  return ebb_error_set (err, EBB_EREFUSED,
                        "refusing %s%s: a component is a symlink or leaves the hierarchy", mount,
                        path);
}

/* Fallback when openat2 is missing: walk components with O_NOFOLLOW. */
static int
open_walk (int fd, const char *mount, const char *path, ebb_error **err)
{
  cleanup_free char *copy = ebb_xstrdup (path);
  cleanup_close int cur = fd;
  char *save = NULL;
  for (char *c = strtok_r (copy, "/", &save); c; c = strtok_r (NULL, "/", &save))
    {
      int next = openat (cur, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0)
        {
          struct stat st;
          if (fstatat (cur, c, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
            return refuse_symlink (err, mount, path);
          if (errno == ENOENT)
            return ebb_error_set (err, EBB_EGONE, "cgroup %s: no such cgroup in %s", path, mount);
          return ebb_error_set_errno (err, errno, "open %s%s", mount, path);
        }
      close (cur);
      cur = next;
    }
  return ebb_steal_fd (&cur);
}

int
ebb_cg_open_dir (const char *mount, const char *path, ebb_error **err)
{
  cleanup_close int mfd = open (mount, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (mfd < 0)
    return ebb_error_set_errno (err, errno, "open cgroup mount %s", mount);
  if (strcmp (path, "/") == 0)
    return ebb_steal_fd (&mfd);
  struct open_how how = {
    .flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  int fd = (int)syscall (SYS_openat2, mfd, path + 1, &how, sizeof how);
  if (fd >= 0)
    return fd;
  switch (errno)
    {
    case ENOSYS:
      return open_walk (ebb_steal_fd (&mfd), mount, path, err);
    case ELOOP:
    case EXDEV:
      return refuse_symlink (err, mount, path);
    case ENOTDIR:
      {
        /* O_NOFOLLOW|O_DIRECTORY on a final symlink answers ENOTDIR */
        struct stat st;
        if (fstatat (mfd, path + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
          return refuse_symlink (err, mount, path);
        return ebb_error_set (err, EBB_EREFUSED, "refusing %s%s: not a directory", mount, path);
      }
    case ENOENT:
      return ebb_error_set (err, EBB_EGONE, "cgroup %s: no such cgroup in %s", path, mount);
    default:
      return ebb_error_set_errno (err, errno, "open %s%s", mount, path);
    }
}

/* Returns 1 when path is root or lies below it. */
static int
under_root (const char *path, const char *root)
{
  if (strcmp (root, "/") == 0)
    return 1;
  size_t n = strlen (root);
  return strncmp (path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Normalises path into out (collapsing slashes); returns NULL or the refusal reason. */
static const char *
normalise (const char *path, char *out)
{
  if (path[0] != '/')
    return "not an absolute cgroup path";
  char *o = out;
  for (const char *p = path; *p;)
    {
      while (*p == '/')
        p++;
      if (!*p)
        break;
      size_t n = strcspn (p, "/");
      if ((n == 2 && strncmp (p, "..", 2) == 0))
        return "contains \"..\"";
      if (n == 1 && *p == '.')
        return "contains \".\"";
      if (memchr (p, '\n', n))
        return "contains a newline";
      *o++ = '/';
      memcpy (o, p, n);
      o += n;
      p += n;
    }
  if (o == out)
    *o++ = '/';
  *o = '\0';
  return NULL;
}

int
ebb_cg_check_path (const ebb_cg_ctx *ctx, const char *path, char **out, ebb_error **err)
{
  if (!path || !*path)
    return ebb_error_set (err, EBB_EREFUSED, "refusing an empty cgroup path");
  if (strlen (path) > 4096)
    return ebb_error_set (err, EBB_EREFUSED, "refusing a cgroup path longer than 4096 bytes");
  cleanup_free char *norm = ebb_xmalloc (strlen (path) + 2);
  const char *why = normalise (path, norm);
  if (why)
    return ebb_error_set (err, EBB_EREFUSED, "refusing cgroup path \"%s\": %s", path, why);
  int ok = ctx->allowed_roots == NULL;
  for (char **r = ctx->allowed_roots; r && *r && !ok; r++)
    ok = under_root (norm, *r);
  if (!ok)
    return ebb_error_set (err, EBB_EREFUSED,
                          "refusing cgroup path \"%s\": outside the configured roots (first: %s)",
                          norm, ctx->allowed_roots[0] ? ctx->allowed_roots[0] : "none");
  *out = ebb_steal_ptr (&norm);
  return 0;
}

int
ebb_cg_read_optional (ebb_cg *cg, int dirfd, const char *name, char **out, ebb_error **err)
{
  if (dirfd < 0)
    return 0;
  cleanup_error ebb_error *local = NULL;
  int r = ebb_cg_read_at (dirfd, name, out, &local);
  if (r >= 0)
    return 1;
  if (r == -ENOENT || r == -EOPNOTSUPP || r == -ENOTSUP)
    return 0;
  if (err && !*err)
    *err = ebb_steal_ptr (&local);
  return ebb_error_wrap (err, "cgroup %s", cg->path);
}

int
ebb_cg_read_psi_optional (ebb_cg *cg, int dirfd, const char *name, ebb_cg_psi *psi, uint32_t *valid,
                          uint32_t bit, ebb_error **err)
{
  cleanup_free char *t = NULL;
  int r = ebb_cg_read_optional (cg, dirfd, name, &t, err);
  if (r <= 0)
    return r;
  if (ebb_cg_parse_psi (t, psi, err) < 0)
    return ebb_error_wrap (err, "cgroup %s: %s", cg->path, name);
  *valid |= bit;
  return 0;
}
