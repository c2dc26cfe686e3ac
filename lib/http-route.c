#include "config.h"

#include <string.h>

#include "lib/http-route.h"
#include "lib/util.h"

/* One segment: [start, start + len). */
typedef struct
{
  const char *start;
  size_t len;
} segment;

/* Reads the segment after the '/' at *s; returns false when *s is at the end (or not at a
 * '/', which cannot happen after the first check). */
static bool
next_segment (const char **s, segment *seg)
{
  if (**s != '/')
    return false;
  const char *start = *s + 1;
  const char *end = strchrnul (start, '/');
  seg->start = start;
  seg->len = (size_t)(end - start);
  *s = end;
  return true;
}

static bool
is_capture (const segment *p)
{
  return p->len >= 3 && p->start[0] == '{' && p->start[p->len - 1] == '}';
}

static bool
capture_value_ok (const segment *u)
{
  if (u->len == 0 || u->len > EBB_HTTP_MAX_CAPTURE_BYTES)
    return false;
  if ((u->len == 1 && u->start[0] == '.') || (u->len == 2 && memcmp (u->start, "..", 2) == 0))
    return false;
  for (size_t i = 0; i < u->len; i++)
    {
      if ((unsigned char)u->start[i] < 0x20 || u->start[i] == 0x7f)
        return false;
      /* An encoded '/' (left encoded by the server): a name never holds one, and
       * "keep%2fsuspend" must not look like a segment to anything that decodes it later. */
      if (u->start[i] == '%' && i + 2 < u->len && u->start[i + 1] == '2'
          && (u->start[i + 2] == 'f' || u->start[i + 2] == 'F'))
        return false;
    }
  return true;
}

static bool
add_capture (ebb_http_captures *caps, const segment *p, const segment *u)
{
  if (!caps)
    return true;
  if (caps->n >= EBB_HTTP_MAX_CAPTURES)
    return false;
  caps->names[caps->n] = strndup (p->start + 1, p->len - 2);
  caps->values[caps->n] = strndup (u->start, u->len);
  if (!caps->names[caps->n] || !caps->values[caps->n])
    abort (); /* out of memory is fatal in ebb (util.h) */
  caps->n++;
  return true;
}

bool
ebb_http_route_match (const char *pattern, const char *path, ebb_http_captures *caps)
{
  if (caps)
    ebb_http_captures_clear (caps);
  if (!pattern || !path || path[0] != '/' || pattern[0] != '/'
      || strnlen (path, EBB_HTTP_MAX_PATH_BYTES + 1) > EBB_HTTP_MAX_PATH_BYTES)
    return false;
  const char *p = pattern, *u = path;
  segment ps, us;
  bool ok = true;
  while (ok)
    {
      bool have_p = next_segment (&p, &ps), have_u = next_segment (&u, &us);
      if (!have_p || !have_u)
        {
          ok = !have_p && !have_u;
          break;
        }
      if (is_capture (&ps))
        ok = capture_value_ok (&us) && add_capture (caps, &ps, &us);
      else
        ok = ps.len == us.len && memcmp (ps.start, us.start, ps.len) == 0;
    }
  if (!ok && caps)
    ebb_http_captures_clear (caps);
  return ok;
}

const char *
ebb_http_captures_get (const ebb_http_captures *caps, const char *name)
{
  if (!caps || !name)
    return NULL;
  for (size_t i = 0; i < caps->n; i++)
    if (strcmp (caps->names[i], name) == 0)
      return caps->values[i];
  return NULL;
}

void
ebb_http_captures_clear (ebb_http_captures *caps)
{
  for (size_t i = 0; i < caps->n; i++)
    {
      free (caps->names[i]);
      free (caps->values[i]);
      caps->names[i] = caps->values[i] = NULL;
    }
  caps->n = 0;
}
