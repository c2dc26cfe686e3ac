/* See secret.h: one reader and one rule for every secret file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/secret.h"
#include "lib/util.h"

/* Opens path for a secret: a regular file with no group or other permission. Returns the fd,
 * or negative with *err set. */
static int
open_secret (const char *path, const char *what, ebb_error **err)
{
  if (!path || !*path)
    return ebb_error_set (err, EINVAL, "%s: no file name", what);
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) < 0)
    return ebb_error_set_errno (err, errno, "%s %s", what, path);
  if (!S_ISREG (st.st_mode))
    return ebb_error_set (err, EINVAL, "%s %s is not a regular file", what, path);
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    return ebb_error_set (err, EACCES,
                          "%s %s is accessible to its group or others (mode %04o): chmod 600 %s",
                          what, path, (unsigned)(st.st_mode & 07777), path);
  return ebb_steal_fd (&fd);
}

/* Reads up to max bytes; *len < max unless the file is longer. */
static int
read_all (int fd, const char *what, const char *path, char *buf, size_t max, size_t *len,
          ebb_error **err)
{
  *len = 0;
  while (*len < max)
    {
      ssize_t n = read (fd, buf + *len, max - *len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return ebb_error_set_errno (err, errno, "read %s %s", what, path);
      if (n == 0)
        break;
      *len += (size_t)n;
    }
  buf[*len] = '\0';
  return 0;
}

/* See secret.h. */
int
ebb_secret_read_token (const char *path, char **out, ebb_error **err)
{
  *out = NULL;
  cleanup_close int fd = open_secret (path, "token file", err);
  if (fd < 0)
    return fd;
  char buf[EBB_SECRET_TOKEN_MAX_BYTES + 2];
  size_t len;
  int r = read_all (fd, "token file", path, buf, sizeof buf - 1, &len, err);
  if (r < 0)
    return r;
  buf[strcspn (buf, "\r\n")] = '\0';
  len = strlen (buf);
  while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
    buf[--len] = '\0';
  bool printable = true;
  for (size_t i = 0; i < len; i++)
    printable &= buf[i] > ' ' && buf[i] <= '~';
  if (!printable || len == 0)
    r = ebb_error_set (err, EBB_EPARSE,
                       "token file %s: want one line of printable ASCII without blanks", path);
  else if (len > EBB_SECRET_TOKEN_MAX_BYTES)
    r = ebb_error_set (err, EBB_ERANGE, "token file %s: the token is longer than %d bytes", path,
                       EBB_SECRET_TOKEN_MAX_BYTES);
  else if (len < EBB_SECRET_TOKEN_MIN_CHARS)
    r = ebb_error_set (err, EBB_ERANGE,
                       "token file %s: the token is shorter than %d characters (make one with: "
                       "head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > %s)",
                       path, EBB_SECRET_TOKEN_MIN_CHARS, path);
  else
    *out = ebb_xstrdup (buf);
  explicit_bzero (buf, sizeof buf);
  return r;
}

/* See secret.h. */
int
ebb_secret_read_file (const char *path, const char *what, char **out, ebb_error **err)
{
  *out = NULL;
  cleanup_close int fd = open_secret (path, what, err);
  if (fd < 0)
    return fd;
  char *buf = ebb_xcalloc (1, EBB_SECRET_FILE_MAX_BYTES + 1);
  size_t len;
  int r = read_all (fd, what, path, buf, EBB_SECRET_FILE_MAX_BYTES, &len, err);
  if (r == 0 && len == 0)
    r = ebb_error_set (err, EBB_EPARSE, "%s %s is empty", what, path);
  else if (r == 0 && len == EBB_SECRET_FILE_MAX_BYTES)
    r = ebb_error_set (err, EBB_ERANGE, "%s %s is over %d bytes", what, path,
                       EBB_SECRET_FILE_MAX_BYTES);
  if (r < 0)
    {
      explicit_bzero (buf, len);
      free (buf);
      return r;
    }
  *out = buf;
  return 0;
}
