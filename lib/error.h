/* The error convention of every ebb library (after crun's design-docs/error_handling.md).
 *
 *  - A function that can fail takes `ebb_error **err` as its last parameter, returns a
 *    negative int (or NULL for pointer returns) on failure and fills *err; it returns >= 0
 *    (or non-NULL) on success and leaves *err untouched.
 *  - An error carries `code`, an errno value (ENOENT, EINVAL, ...) or one of EBB_E* below,
 *    and a message. ebb_error_set() returns -code so `return ebb_error_set (...)` reads well.
 *  - On the way up, a caller adds context with ebb_error_wrap(), which prepends
 *    "context: " to the message and keeps the code, so the top sees
 *    "suspend task web-1: write cpu.max: Permission denied".
 *  - Exactly one owner frees it with ebb_error_free() (or cleanup_error); passing err == NULL
 *    means "I do not care about details" and is always allowed.
 *  - errno is never the channel between ebb functions; only between ebb and libc.
 */
#ifndef EBB_ERROR_H
#define EBB_ERROR_H

#include "lib/util.h"

/* ebb's own codes, above the errno range so they never collide with one. */
enum
{
  EBB_EGONE = 10000, /* the task or cgroup vanished (ENOENT/ENODEV while operating on it) */
  EBB_EPARSE,        /* malformed input: config, JSON, a kernel file */
  EBB_ERANGE,        /* a value outside its allowed bounds */
  EBB_ETIMEDOUT,     /* an operation did not complete in time */
  EBB_EREFUSED,      /* a request refused by policy: outside a root, through a symlink */
};

typedef struct ebb_error
{
  int code;
  char *msg;
} ebb_error;

/* Fills *err (if err is non-NULL and *err is NULL) and returns -code; code 0 becomes EIO. */
int ebb_error_set (ebb_error **err, int code, const char *fmt, ...) EBB_PRINTF (3, 4);

/* Like ebb_error_set(), appending ": strerror(code)" to the message. */
int ebb_error_set_errno (ebb_error **err, int code, const char *fmt, ...) EBB_PRINTF (3, 4);

/* Prepends "context: " to (*err)->msg; returns -(*err)->code, or -EIO if there is no error.
 * err may be NULL (the caller discarded details); the return value is then -EIO. */
int ebb_error_wrap (ebb_error **err, const char *fmt, ...) EBB_PRINTF (2, 3);

/* Frees *err and sets it to NULL; safe on NULL and on *err == NULL. */
void ebb_error_free (ebb_error **err);

/* Returns (*err)->code, or 0 when there is no error. */
int ebb_error_code (ebb_error *const *err);

/* Returns the message, or "" when there is no error. */
const char *ebb_error_msg (ebb_error *const *err);

/* Returns a static name for a code: "ENOENT", "EBB_EGONE", ... ("E?" when unknown). */
const char *ebb_error_code_name (int code);

#define cleanup_error __attribute__ ((cleanup (ebb_error_free)))

#endif
