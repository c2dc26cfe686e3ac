#include "config.h"
#include "lib/error.h"

#include <stdarg.h>
#include <string.h>

static int
set_v (ebb_error **err, int code, int with_strerror, const char *fmt, va_list ap)
{
  if (code <= 0)
    code = EIO;
  if (!err || *err)
    return -code; /* keep the first, most specific error */
  char *msg = NULL;
  if (vasprintf (&msg, fmt, ap) < 0)
    msg = NULL;
  if (msg && with_strerror && code < EBB_EGONE)
    {
      char *full = ebb_xasprintf ("%s: %s", msg, strerror (code));
      free (msg);
      msg = full;
    }
  ebb_error *e = ebb_xcalloc (1, sizeof *e);
  e->code = code;
  e->msg = msg ? msg : ebb_xstrdup ("(error message lost: out of memory)");
  *err = e;
  return -code;
}

int
ebb_error_set (ebb_error **err, int code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  int r = set_v (err, code, 0, fmt, ap);
  va_end (ap);
  return r;
}

int
ebb_error_set_errno (ebb_error **err, int code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  int r = set_v (err, code, 1, fmt, ap);
  va_end (ap);
  return r;
}

int
ebb_error_wrap (ebb_error **err, const char *fmt, ...)
{
  if (!err || !*err)
    return -EIO;
  va_list ap;
  va_start (ap, fmt);
  cleanup_free char *ctx = NULL;
  if (vasprintf (&ctx, fmt, ap) < 0)
    ctx = NULL;
  va_end (ap);
  if (ctx)
    {
      char *full = ebb_xasprintf ("%s: %s", ctx, (*err)->msg);
      free ((*err)->msg);
      (*err)->msg = full;
    }
  return -(*err)->code;
}

void
ebb_error_free (ebb_error **err)
{
  if (!err || !*err)
    return;
  free ((*err)->msg);
  free (*err);
  *err = NULL;
}

int
ebb_error_code (ebb_error *const *err)
{
  return err && *err ? (*err)->code : 0;
}

const char *
ebb_error_msg (ebb_error *const *err)
{
  return err && *err ? (*err)->msg : "";
}

const char *
ebb_error_code_name (int code)
{
  static const struct
  {
    int code;
    const char *name;
  } names[] = {
    { ENOENT, "ENOENT" },
    { EINVAL, "EINVAL" },
    { EACCES, "EACCES" },
    { EPERM, "EPERM" },
    { EBUSY, "EBUSY" },
    { ENODEV, "ENODEV" },
    { EEXIST, "EEXIST" },
    { ENOMEM, "ENOMEM" },
    { EIO, "EIO" },
    { ETIMEDOUT, "ETIMEDOUT" },
    { ESRCH, "ESRCH" },
    { ENOTSUP, "ENOTSUP" },
    { EBB_EGONE, "EBB_EGONE" },
    { EBB_EPARSE, "EBB_EPARSE" },
    { EBB_ERANGE, "EBB_ERANGE" },
    { EBB_ETIMEDOUT, "EBB_ETIMEDOUT" },
    { EBB_EREFUSED, "EBB_EREFUSED" },
  };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (names); i++)
    if (names[i].code == code)
      return names[i].name;
  return "E?";
}
