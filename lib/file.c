/* The atomic file writer of lib/file.h: one copy, so every state file gets the same
 * temp-fsync-rename-fsync sequence and none leaves its temp file behind on a failure. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <string.h>
#include <unistd.h>

#include "lib/file.h"
#include "lib/util.h"

static int
write_all (int fd, const char *p, size_t n)
{
  while (n > 0)
    {
      ssize_t w = write (fd, p, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        return -errno;
      p += w;
      n -= (size_t)w;
    }
  return 0;
}

/* See lib/file.h. */
int
ebb_file_write_atomic_fd (int dirfd, const char *name, const char *text, int *keep_fd,
                          ebb_error **err)
{
  cleanup_free char *tmp = ebb_xasprintf (".%s.tmp", name);
  cleanup_close int fd
      = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "create %s", tmp);
  int r = write_all (fd, text, strlen (text));
  if (r == 0 && !keep_fd && fsync (fd) < 0)
    r = -errno;
  if (r < 0)
    {
      unlinkat (dirfd, tmp, 0);
      return ebb_error_set_errno (err, -r, "write %s", tmp);
    }
  if (renameat (dirfd, tmp, dirfd, name) < 0)
    {
      r = errno;
      unlinkat (dirfd, tmp, 0);
      return ebb_error_set_errno (err, r, "rename %s to %s", tmp, name);
    }
  if (keep_fd)
    {
      *keep_fd = ebb_steal_fd (&fd);
      return 0;
    }
  if (fsync (dirfd) < 0)
    return ebb_error_set_errno (err, errno, "fsync the directory of %s", name);
  return 0;
}

/* See lib/file.h. */
int
ebb_file_write_atomic (int dirfd, const char *name, const char *text, ebb_error **err)
{
  return ebb_file_write_atomic_fd (dirfd, name, text, NULL, err);
}

/* See lib/file.h. */
int
ebb_file_write_atomic_path (const char *path, const char *text, ebb_error **err)
{
  cleanup_free char *d = ebb_xstrdup (path);
  cleanup_free char *b = ebb_xstrdup (path);
  cleanup_close int dirfd = open (dirname (d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return ebb_error_set_errno (err, errno, "open the directory of %s", path);
  return ebb_file_write_atomic (dirfd, basename (b), text, err);
}
