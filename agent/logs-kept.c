/* The kept logs of finished tasks: a list oldest first (by the time each task was forgotten,
 * or its file's modification time after a restart) with each one's bytes, so that keeping
 * one more removes the oldest beyond --keep-logs and --keep-logs-max without reading the
 * directory again. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/context.h"
#include "agent/logs-kept.h"
#include "agent/table.h"
#include "lib/log.h"
#include "lib/util.h"

typedef struct kept_log
{
  char id[EBB_AGENT_ID_MAX + 1];
  uint64_t bytes;
  int64_t mtime_nsec; /* for the order at a restart only */
} kept_log;

struct ebb_agent_kept_logs
{
  kept_log *v; /* oldest first */
  size_t n, cap;
  uint64_t bytes;
};

/* Adds the size of logs/NAME to *bytes and its modification time to *mtime_nsec (the
 * newest); nothing when it does not exist. */
static void
stat_log (int dirfd, const char *name, uint64_t *bytes, int64_t *mtime_nsec)
{
  struct stat st;
  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG (st.st_mode))
    return;
  *bytes += (uint64_t)st.st_size;
  int64_t m = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
  if (m > *mtime_nsec)
    *mtime_nsec = m;
}

/* Removes id's files (ID.log and ID.log.1). */
static void
unlink_log (ebb_agent *a, const char *id)
{
  char name[EBB_AGENT_ID_MAX + 8];
  snprintf (name, sizeof name, "%s.log", id);
  if (unlinkat (a->logs_fd, name, 0) < 0 && errno != ENOENT)
    ebb_log_warn ("remove log %s: %s", name, strerror (errno));
  snprintf (name, sizeof name, "%s.log.1", id);
  if (unlinkat (a->logs_fd, name, 0) < 0 && errno != ENOENT)
    ebb_log_warn ("remove log %s: %s", name, strerror (errno));
}

static void
drop_at (struct ebb_agent_kept_logs *k, size_t i)
{
  k->bytes -= k->v[i].bytes;
  memmove (&k->v[i], &k->v[i + 1], (k->n - i - 1) * sizeof *k->v);
  k->n--;
}

/* Removes the oldest kept logs while either bound is exceeded. */
static void
enforce (ebb_agent *a)
{
  struct ebb_agent_kept_logs *k = a->kept_logs;
  while (k->n > 0 && (k->n > a->cfg->keep_logs || k->bytes > a->cfg->keep_logs_max_bytes))
    {
      ebb_log_info ("task %s: its kept log goes (--keep-logs %" PRIu64 ", --keep-logs-max %" PRIu64
                    ")",
                    k->v[0].id, a->cfg->keep_logs, a->cfg->keep_logs_max_bytes);
      unlink_log (a, k->v[0].id);
      drop_at (k, 0);
    }
}

static kept_log *
find (const struct ebb_agent_kept_logs *k, const char *id)
{
  for (size_t i = 0; k && i < k->n; i++)
    if (strcmp (k->v[i].id, id) == 0)
      return &k->v[i];
  return NULL;
}

static void
append (struct ebb_agent_kept_logs *k, const kept_log *e)
{
  if (k->n == k->cap)
    {
      k->cap = k->cap ? 2 * k->cap : 16;
      k->v = ebb_xrealloc (k->v, k->cap * sizeof *k->v);
    }
  k->v[k->n++] = *e;
  k->bytes += e->bytes;
}

static struct ebb_agent_kept_logs *
kept_of (ebb_agent *a)
{
  if (!a->kept_logs)
    a->kept_logs = ebb_xcalloc (1, sizeof *a->kept_logs);
  return a->kept_logs;
}

/* A kept log of the id's files, sized now. */
static kept_log
measure (ebb_agent *a, const char *id)
{
  kept_log e = { .bytes = 0 };
  snprintf (e.id, sizeof e.id, "%s", id);
  char name[EBB_AGENT_ID_MAX + 8];
  snprintf (name, sizeof name, "%s.log", id);
  stat_log (a->logs_fd, name, &e.bytes, &e.mtime_nsec);
  snprintf (name, sizeof name, "%s.log.1", id);
  stat_log (a->logs_fd, name, &e.bytes, &e.mtime_nsec);
  return e;
}

void
ebb_agent_logs_keep (ebb_agent *a, const char *id)
{
  if (a->logs_fd < 0 || strlen (id) > EBB_AGENT_ID_MAX)
    return;
  struct ebb_agent_kept_logs *k = kept_of (a);
  kept_log *old = find (k, id);
  if (old)
    drop_at (k, (size_t)(old - k->v)); /* the same id launched again: it is the newest now */
  kept_log e = measure (a, id);
  if (e.bytes > a->cfg->keep_logs_max_bytes)
    {
      /* Larger than all the room: kept, it would push out every other and then itself. */
      ebb_log_info ("task %s: its log (%" PRIu64 " bytes) is over --keep-logs-max: not kept", id,
                    e.bytes);
      unlink_log (a, id);
      return;
    }
  append (k, &e);
  enforce (a);
}

bool
ebb_agent_logs_drop (ebb_agent *a, const char *id)
{
  kept_log *e = find (a->kept_logs, id);
  if (!e)
    return false;
  unlink_log (a, id);
  drop_at (a->kept_logs, (size_t)(e - a->kept_logs->v));
  return true;
}

bool
ebb_agent_logs_kept (const ebb_agent *a, const char *id)
{
  return find (a->kept_logs, id) != NULL;
}

static int
cmp_mtime (const void *x, const void *y)
{
  const kept_log *p = x, *q = y;
  return p->mtime_nsec < q->mtime_nsec ? -1 : p->mtime_nsec > q->mtime_nsec;
}

int
ebb_agent_logs_kept_load (ebb_agent *a, ebb_error **err)
{
  int fd = a->logs_fd >= 0 ? openat (a->logs_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  DIR *d = fd >= 0 ? fdopendir (fd) : NULL;
  if (!d)
    {
      int e = errno;
      if (fd >= 0)
        close (fd);
      return ebb_error_set_errno (err, e, "read the logs directory");
    }
  struct ebb_agent_kept_logs *k = kept_of (a);
  struct dirent *de;
  while ((de = readdir (d)))
    {
      size_t len = strlen (de->d_name);
      if (len <= 4 || len - 4 > EBB_AGENT_ID_MAX || strcmp (de->d_name + len - 4, ".log") != 0)
        continue;
      char id[EBB_AGENT_ID_MAX + 1];
      snprintf (id, sizeof id, "%.*s", (int)(len - 4), de->d_name);
      if (!ebb_agent_find (a, id) && !find (k, id))
        {
          kept_log e = measure (a, id);
          append (k, &e);
        }
    }
  closedir (d);
  if (k->n > 1)
    qsort (k->v, k->n, sizeof *k->v, cmp_mtime);
  enforce (a);
  return 0;
}

void
ebb_agent_logs_kept_free (ebb_agent *a)
{
  if (a->kept_logs)
    free (a->kept_logs->v);
  free (a->kept_logs);
  a->kept_logs = NULL;
}
