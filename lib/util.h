/* Small utilities shared by every part of ebb: cleanup attributes and helpers that
 * every module would otherwise write again. */
#ifndef EBB_UTIL_H
#define EBB_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <errno.h>

#define EBB_ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))
#define EBB_UNUSED        __attribute__ ((unused))
#define EBB_PRINTF(f, a)  __attribute__ ((format (printf, f, a)))

static inline void
ebb_freep (void *p)
{
  free (*(void **)p);
}

static inline void
ebb_closep (int *fd)
{
  if (*fd >= 0)
    {
      int saved = errno;
      close (*fd);
      errno = saved;
    }
}

static inline void
ebb_fclosep (FILE **f)
{
  if (*f)
    fclose (*f);
}

static inline void
ebb_closedirp (DIR **d)
{
  if (*d)
    closedir (*d);
}

/* Ownership leaves a cleanup variable with `*out = ebb_steal_ptr (&x);`. */
static inline void *
ebb_steal_ptr (void *pp)
{
  void **p = (void **)pp;
  void *v = *p;
  *p = NULL;
  return v;
}

static inline int
ebb_steal_fd (int *fd)
{
  int v = *fd;
  *fd = -1;
  return v;
}

#define cleanup_free   __attribute__ ((cleanup (ebb_freep)))
#define cleanup_close  __attribute__ ((cleanup (ebb_closep)))
#define cleanup_fclose __attribute__ ((cleanup (ebb_fclosep)))
#define cleanup_dir    __attribute__ ((cleanup (ebb_closedirp)))

/* Allocation failure is not recoverable in ebb's daemons: abort with a message rather than
 * thread NULL checks through every caller. */
/* Returns the capacity to grow an array of cap elements to so that it holds need: cap (or
 * first when 0) doubled until it is enough, so appends cost amortized O(1). */
static inline uint64_t
ebb_grow_cap (uint64_t cap, uint64_t first, uint64_t need)
{
  if (cap == 0)
    cap = first;
  while (cap < need)
    cap *= 2;
  return cap;
}

void *ebb_xmalloc (size_t n);
void *ebb_xcalloc (size_t n, size_t size);
void *ebb_xrealloc (void *p, size_t n);
char *ebb_xstrdup (const char *s);
char *ebb_xasprintf (const char *fmt, ...) EBB_PRINTF (1, 2);

/* Returns true when s is a non-empty string of [A-Za-z0-9._-] at most max_len long and is
 * not "." or "..": the shape of every id that ends up in a path or a URL. */
int ebb_id_is_valid (const char *s, size_t max_len);

/* For a daemon's main(), before any thread exists: blocks SIGTERM, SIGINT, SIGHUP (and
 * SIGCHLD when with_children) in the calling thread, so every thread created later
 * inherits the mask and sd-event alone takes them (signalfd; children through pidfds), and
 * ignores SIGPIPE (a peer that hangs up is an error return, not a death). */
void ebb_daemon_block_signals (int with_children);

#endif
