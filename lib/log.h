/* Logging to stderr with <N> syslog priority prefixes, so journald keeps the levels when a
 * daemon runs under systemd (sd-daemon(3)); a threshold drops the chatty levels. */
#ifndef EBB_LOG_H
#define EBB_LOG_H

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "lib/util.h"

typedef enum
{
  EBB_LOG_PREFIX_AUTO, /* prefix when stderr is not a terminal (journal, pipes, files) */
  EBB_LOG_PREFIX_ALWAYS,
  EBB_LOG_PREFIX_NEVER,
} ebb_log_prefix_mode;

/* Sets the most verbose priority printed (LOG_ERR .. LOG_DEBUG); default LOG_INFO. */
void ebb_log_set_level (int priority);
int ebb_log_get_level (void);

/* Parses "err", "warning", "notice", "info", "debug" or a digit 0..7; returns the
 * priority, or -1 when the name is unknown. */
int ebb_log_level_from_string (const char *s);

void ebb_log_set_prefix_mode (ebb_log_prefix_mode mode);
void ebb_log_set_ident (const char *ident);

/* Redirects output (tests); NULL restores stderr. */
void ebb_log_set_stream (FILE *f);

void ebb_log (int priority, const char *fmt, ...) EBB_PRINTF (2, 3);
void ebb_logv (int priority, const char *fmt, va_list ap) EBB_PRINTF (2, 0);

#define ebb_log_err(...)    ebb_log (LOG_ERR, __VA_ARGS__)
#define ebb_log_warn(...)   ebb_log (LOG_WARNING, __VA_ARGS__)
#define ebb_log_notice(...) ebb_log (LOG_NOTICE, __VA_ARGS__)
#define ebb_log_info(...)   ebb_log (LOG_INFO, __VA_ARGS__)
#define ebb_log_debug(...)  ebb_log (LOG_DEBUG, __VA_ARGS__)

#endif
