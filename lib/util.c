#include "config.h"
#include "lib/util.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>

static void
die_oom (size_t n)
{
  fprintf (stderr, "<2>ebb: out of memory allocating %zu bytes\n", n);
  abort ();
}

void *
ebb_xmalloc (size_t n)
{
  void *p = malloc (n ? n : 1);
  if (!p)
    die_oom (n);
  return p;
}

void *
ebb_xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size ? size : 1);
  if (!p)
    die_oom (n * size);
  return p;
}

void *
ebb_xrealloc (void *p, size_t n)
{
  void *q = realloc (p, n ? n : 1);
  if (!q)
    die_oom (n);
  return q;
}

char *
ebb_xstrdup (const char *s)
{
  char *p = strdup (s);
  if (!p)
    die_oom (strlen (s) + 1);
  return p;
}

char *
ebb_xasprintf (const char *fmt, ...)
{
  va_list ap;
  char *s = NULL;
  va_start (ap, fmt);
  int r = vasprintf (&s, fmt, ap);
  va_end (ap);
  if (r < 0)
    die_oom (0);
  return s;
}

int
ebb_id_is_valid (const char *s, size_t max_len)
{
  size_t n = 0;
  if (!s || !*s)
    return 0;
  for (const char *p = s; *p; p++, n++)
    {
      char c = *p;
      int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
               || c == '.' || c == '_' || c == '-';
      if (!ok || n >= max_len)
        return 0;
    }
  return strcmp (s, ".") != 0 && strcmp (s, "..") != 0;
}

void
ebb_daemon_block_signals (int with_children)
{
  sigset_t ss;
  sigemptyset (&ss);
  sigaddset (&ss, SIGTERM);
  sigaddset (&ss, SIGINT);
  sigaddset (&ss, SIGHUP);
  if (with_children)
    sigaddset (&ss, SIGCHLD);
  sigprocmask (SIG_BLOCK, &ss, NULL);
  signal (SIGPIPE, SIG_IGN);
}
