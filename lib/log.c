#include "config.h"
#include "lib/log.h"

#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Process-wide logging settings: a logger is the one legitimate piece of global state, since
 * every module logs and none should have to thread a logger through its API. */
static int log_level = LOG_INFO;
static ebb_log_prefix_mode log_prefix = EBB_LOG_PREFIX_AUTO;
static const char *log_ident = NULL;
static FILE *log_stream = NULL;

void
ebb_log_set_level (int priority)
{
  if (priority < LOG_EMERG)
    priority = LOG_EMERG;
  if (priority > LOG_DEBUG)
    priority = LOG_DEBUG;
  log_level = priority;
}

int
ebb_log_get_level (void)
{
  return log_level;
}

int
ebb_log_level_from_string (const char *s)
{
  static const char *const names[]
      = { "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug" };
  if (!s)
    return -1;
  if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
    return s[0] - '0';
  for (int i = 0; i < (int)EBB_ARRAY_SIZE (names); i++)
    if (strcasecmp (s, names[i]) == 0)
      return i;
  if (strcasecmp (s, "error") == 0)
    return LOG_ERR;
  if (strcasecmp (s, "warn") == 0)
    return LOG_WARNING;
  return -1;
}

void
ebb_log_set_prefix_mode (ebb_log_prefix_mode mode)
{
  log_prefix = mode;
}

void
ebb_log_set_ident (const char *ident)
{
  log_ident = ident;
}

void
ebb_log_set_stream (FILE *f)
{
  log_stream = f;
}

void
ebb_logv (int priority, const char *fmt, va_list ap)
{
  if (priority > log_level)
    return;
  FILE *out = log_stream ? log_stream : stderr;
  int prefix = log_prefix == EBB_LOG_PREFIX_ALWAYS
               || (log_prefix == EBB_LOG_PREFIX_AUTO && !isatty (fileno (out)));
  /* Build the line first so concurrent writers (worker threads) do not interleave. */
  char buf[2048];
  int n = 0;
  if (prefix)
    n += snprintf (buf, sizeof buf, "<%d>", priority);
  if (log_ident)
    n += snprintf (buf + n, sizeof buf - n, "%s: ", log_ident);
  if (n < (int)sizeof buf)
    n += vsnprintf (buf + n, sizeof buf - n, fmt, ap);
  if (n >= (int)sizeof buf - 1)
    n = sizeof buf - 2;
  buf[n++] = '\n';
  buf[n] = '\0';
  fputs (buf, out);
  fflush (out);
}

void
ebb_log (int priority, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  ebb_logv (priority, fmt, ap);
  va_end (ap);
}
