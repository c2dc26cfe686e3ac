/* Settings tables: parsing and checking one value, defaults, freeing. */
#include "config.h"
#include "lib/conf-internal.h"
#include "lib/time.h"
#include "lib/util.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <strings.h>

size_t
ebb_strv_length (char *const *strv)
{
  size_t n = 0;
  while (strv && strv[n])
    n++;
  return n;
}

void
ebb_strv_free (char **strv)
{
  for (size_t i = 0; strv && strv[i]; i++)
    free (strv[i]);
  free (strv);
}

void
ebb_conf_strv_append (char ***strv, const char *s)
{
  size_t n = ebb_strv_length (*strv);
  *strv = ebb_xrealloc (*strv, (n + 2) * sizeof (char *));
  (*strv)[n] = ebb_xstrdup (s);
  (*strv)[n + 1] = NULL;
}

int
ebb_conf_parse_bool (const char *s, bool *out)
{
  static const char *const yes[] = { "yes", "true", "on", "1" };
  static const char *const no[] = { "no", "false", "off", "0" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (yes); i++)
    {
      if (strcasecmp (s, yes[i]) == 0)
        return *out = true, 0;
      if (strcasecmp (s, no[i]) == 0)
        return *out = false, 0;
    }
  return -1;
}

int
ebb_conf_parse_bytes (const char *s, uint64_t *out_bytes)
{
  static const char units[] = "KMGTPE";
  if (!s || !isdigit ((unsigned char)*s))
    return -1;
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull (s, &end, 10);
  if (errno)
    return -1;
  unsigned shift = 0;
  if (*end && *end != 'B')
    {
      const char *u = strchr (units, toupper ((unsigned char)*end));
      if (!u)
        return -1;
      shift = 10 * (unsigned)(u - units + 1);
      end++;
      if (strcmp (end, "iB") == 0 || strcmp (end, "B") == 0)
        end += strlen (end);
    }
  else if (*end == 'B')
    end++;
  if (*end)
    return -1;
  if (shift && v > (UINT64_MAX >> shift))
    return -1;
  *out_bytes = (uint64_t)v << shift;
  return 0;
}

static uint64_t
umax_of (const ebb_conf_setting *s)
{
  return s->umax ? s->umax : UINT64_MAX;
}

/* Writes what a value of s must look like: "must be an integer in [1, 1000]". */
static void
describe (const ebb_conf_setting *s, char *buf, size_t size)
{
  char lo[32], hi[32];
  bool ubounded = s->umin != 0 || s->umax != 0;
  switch (s->type)
    {
    case EBB_CONF_INT64:
      if (s->min == 0 && s->max == 0)
        snprintf (buf, size, "must be an integer");
      else
        snprintf (buf, size, "must be an integer in [%" PRId64 ", %" PRId64 "]", s->min, s->max);
      return;
    case EBB_CONF_UINT64:
      if (!ubounded)
        snprintf (buf, size, "must be a non-negative integer");
      else
        snprintf (buf, size, "must be an integer in [%" PRIu64 ", %" PRIu64 "]", s->umin,
                  umax_of (s));
      return;
    case EBB_CONF_DURATION:
    case EBB_CONF_BYTES:
      {
        /* Bounds in the unit the values are written in. */
        bool dur = s->type == EBB_CONF_DURATION;
        void (*format) (uint64_t, char *, size_t)
            = dur ? ebb_conf_format_usec : ebb_conf_format_bytes;
        format (s->umin, lo, sizeof lo);
        format (umax_of (s), hi, sizeof hi);
        if (!ubounded)
          snprintf (buf, size, "%s",
                    dur ? "must be a duration (e.g. 250ms, 10s, 5min)"
                        : "must be a byte size (e.g. 4096, 512K, 64M, 1G)");
        else
          snprintf (buf, size, "must be a %s in [%s, %s]", dur ? "duration" : "byte size", lo, hi);
        return;
      }
    case EBB_CONF_DOUBLE:
      if (s->dmin == 0 && s->dmax == 0)
        snprintf (buf, size, "must be a number");
      else
        snprintf (buf, size, "must be a number in [%g, %g]", s->dmin, s->dmax);
      return;
    case EBB_CONF_BOOL:
      snprintf (buf, size, "must be a boolean (yes/no, true/false, on/off, 1/0)");
      return;
    case EBB_CONF_ENUM:
      {
        size_t off = (size_t)snprintf (buf, size, "must be one of");
        for (const ebb_conf_enum *e = s->enums; e && e->name && off < size; e++)
          off += (size_t)snprintf (buf + off, size - off, "%s %s", e == s->enums ? "" : ",",
                                   e->name);
        return;
      }
    case EBB_CONF_STRING:
    case EBB_CONF_STRLIST:
    default:
      snprintf (buf, size, "must be at most %" PRIu64 " bytes", s->umax);
      return;
    }
}

/* Sets the "must be ..., got "VALUE"" error for a value that does not fit s. */
static int
bad_value (const ebb_conf_setting *s, const char *value, int code, ebb_error **err)
{
  char what[512];
  char got[EBB_CONF_GOT_MAX + 4];
  describe (s, what, sizeof what);
  size_t len = strlen (value);
  snprintf (got, sizeof got, "%.*s%s", EBB_CONF_GOT_MAX, value,
            len > EBB_CONF_GOT_MAX ? "..." : "");
  for (char *p = got; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      *p = '?';
  return ebb_error_set (err, code, "%s, got \"%s\"", what, got);
}

static int
parse_int64 (const ebb_conf_setting *s, const char *value, int64_t *out, ebb_error **err)
{
  errno = 0;
  char *end = NULL;
  long long v = strtoll (value, &end, 10);
  if (!*value || isspace ((unsigned char)*value) || *end)
    return bad_value (s, value, EBB_EPARSE, err);
  if (errno == ERANGE || ((s->min != 0 || s->max != 0) && (v < s->min || v > s->max)))
    return bad_value (s, value, EBB_ERANGE, err);
  *out = v;
  return 0;
}

/* Returns true when value failed to parse only because its number is too large: the same
 * text with the number replaced by 1 parses. */
static bool
overflowed (const ebb_conf_setting *s, const char *value)
{
  size_t digits = strspn (value, "0123456789");
  if (!digits)
    return false;
  cleanup_free char *one = ebb_xasprintf ("1%s", value + digits);
  uint64_t v;
  if (s->type == EBB_CONF_DURATION)
    return ebb_parse_duration_usec (one, EBB_USEC_PER_SEC, &v) == 0;
  return ebb_conf_parse_bytes (one, &v) == 0;
}

/* Parses the unsigned types (UINT64, DURATION, BYTES) and checks their bounds. */
static int
parse_unsigned (const ebb_conf_setting *s, const char *value, uint64_t *out, ebb_error **err)
{
  uint64_t v = 0;
  int r = -1;
  bool overflow = false;
  if (s->type == EBB_CONF_UINT64)
    {
      char *end = NULL;
      errno = 0;
      v = strtoull (value, &end, 10);
      overflow = errno == ERANGE;
      r = isdigit ((unsigned char)*value) && !*end ? 0 : -1;
    }
  else if (s->type == EBB_CONF_DURATION)
    r = ebb_parse_duration_usec (value, EBB_USEC_PER_SEC, &v);
  else
    r = ebb_conf_parse_bytes (value, &v);
  if (r < 0 && s->type != EBB_CONF_UINT64)
    overflow = overflowed (s, value);
  if (overflow)
    return bad_value (s, value, EBB_ERANGE, err);
  if (r < 0)
    return bad_value (s, value, EBB_EPARSE, err);
  if (v < s->umin || v > umax_of (s))
    return bad_value (s, value, EBB_ERANGE, err);
  *out = v;
  return 0;
}

static int
parse_double (const ebb_conf_setting *s, const char *value, double *out, ebb_error **err)
{
  errno = 0;
  char *end = NULL;
  double d = strtod (value, &end);
  /* strtod also reads hex, "nan" and "inf": a config number is decimal */
  if (!*value || end == value || *end || strspn (value, "+-0123456789.eE") != strlen (value))
    return bad_value (s, value, EBB_EPARSE, err);
  bool any = s->dmin == 0 && s->dmax == 0;
  if (errno == ERANGE || !isfinite (d) || (!any && (d < s->dmin || d > s->dmax)))
    return bad_value (s, value, EBB_ERANGE, err);
  *out = d;
  return 0;
}

static int
parse_enum (const ebb_conf_setting *s, const char *value, int *out, ebb_error **err)
{
  for (const ebb_conf_enum *e = s->enums; e && e->name; e++)
    if (strcmp (e->name, value) == 0)
      return *out = e->value, 0;
  return bad_value (s, value, EBB_EPARSE, err);
}

static int
check_string (const ebb_conf_setting *s, const char *value, ebb_error **err)
{
  size_t len = strlen (value);
  if (s->umax && len > s->umax)
    return ebb_error_set (err, EBB_ERANGE, "must be at most %" PRIu64 " bytes, got %zu", s->umax,
                          len);
  if (s->validate)
    if (s->validate (s, value, err) < 0)
      return ebb_error_set (err, EBB_EPARSE, "rejected by its validator");
  return 0;
}

/* Parses value for s and stores it into obj. Returns 0, or negative with *err holding the
 * reason alone (the caller says where). */
int
ebb_conf_assign (const ebb_conf_setting *s, void *obj, const char *value, ebb_error **err)
{
  union
  {
    int64_t i;
    uint64_t u;
    bool b;
    int e;
    double d;
  } v;
  int r = 0;
  switch (s->type)
    {
    case EBB_CONF_STRING:
      if (*value && (r = check_string (s, value, err)) < 0)
        return r;
      free (*EBB_CONF_FIELD (obj, s, char *));
      *EBB_CONF_FIELD (obj, s, char *) = *value ? ebb_xstrdup (value) : NULL;
      return 0;
    case EBB_CONF_STRLIST:
      if (!*value)
        {
          ebb_strv_free (*EBB_CONF_FIELD (obj, s, char **));
          *EBB_CONF_FIELD (obj, s, char **) = NULL;
          return 0;
        }
      if ((r = check_string (s, value, err)) < 0)
        return r;
      ebb_conf_strv_append (EBB_CONF_FIELD (obj, s, char **), value);
      return 0;
    case EBB_CONF_BOOL:
      if (ebb_conf_parse_bool (value, &v.b) < 0)
        return bad_value (s, value, EBB_EPARSE, err);
      break;
    case EBB_CONF_INT64:
      r = parse_int64 (s, value, &v.i, err);
      break;
    case EBB_CONF_UINT64:
    case EBB_CONF_DURATION:
    case EBB_CONF_BYTES:
      r = parse_unsigned (s, value, &v.u, err);
      break;
    case EBB_CONF_ENUM:
      r = parse_enum (s, value, &v.e, err);
      break;
    case EBB_CONF_DOUBLE:
      r = parse_double (s, value, &v.d, err);
      break;
    default:
      return ebb_error_set (err, EINVAL, "setting has an unknown type %d", (int)s->type);
    }
  if (r < 0)
    return r;
  if (s->validate && s->validate (s, &v, err) < 0)
    return ebb_error_set (err, EBB_EPARSE, "rejected by its validator");
  if (s->type == EBB_CONF_BOOL)
    *EBB_CONF_FIELD (obj, s, bool) = v.b;
  else if (s->type == EBB_CONF_INT64)
    *EBB_CONF_FIELD (obj, s, int64_t) = v.i;
  else if (s->type == EBB_CONF_ENUM)
    *EBB_CONF_FIELD (obj, s, int) = v.e;
  else if (s->type == EBB_CONF_DOUBLE)
    *EBB_CONF_FIELD (obj, s, double) = v.d;
  else
    *EBB_CONF_FIELD (obj, s, uint64_t) = v.u;
  return 0;
}

const ebb_conf_setting *
ebb_conf_find (const ebb_conf_setting *table, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

void
ebb_conf_clear_field (const ebb_conf_setting *s, void *obj)
{
  if (s->type == EBB_CONF_STRING)
    {
      free (*EBB_CONF_FIELD (obj, s, char *));
      *EBB_CONF_FIELD (obj, s, char *) = NULL;
    }
  else if (s->type == EBB_CONF_STRLIST)
    {
      ebb_strv_free (*EBB_CONF_FIELD (obj, s, char **));
      *EBB_CONF_FIELD (obj, s, char **) = NULL;
    }
}

void
ebb_conf_free (const ebb_conf_setting *table, size_t n, void *obj)
{
  for (size_t i = 0; i < n; i++)
    ebb_conf_clear_field (&table[i], obj);
}

int
ebb_conf_defaults (const ebb_conf_setting *table, size_t n, void *obj, ebb_error **err)
{
  for (size_t i = 0; i < n; i++)
    {
      const ebb_conf_setting *s = &table[i];
      ebb_conf_clear_field (s, obj);
      switch (s->type)
        {
        case EBB_CONF_BOOL:
          *EBB_CONF_FIELD (obj, s, bool) = false;
          break;
        case EBB_CONF_INT64:
          *EBB_CONF_FIELD (obj, s, int64_t) = 0;
          break;
        case EBB_CONF_ENUM:
          *EBB_CONF_FIELD (obj, s, int) = 0;
          break;
        case EBB_CONF_DOUBLE:
          *EBB_CONF_FIELD (obj, s, double) = 0;
          break;
        case EBB_CONF_UINT64:
        case EBB_CONF_DURATION:
        case EBB_CONF_BYTES:
          *EBB_CONF_FIELD (obj, s, uint64_t) = 0;
          break;
        default:
          break;
        }
      if (s->def && ebb_conf_assign (s, obj, s->def, err) < 0)
        return ebb_error_wrap (err, "default of %s", s->name);
    }
  return 0;
}

int
ebb_conf_set (const ebb_conf_setting *table, size_t n, void *obj, const char *key,
              const char *value, const char *where, ebb_error **err)
{
  const ebb_conf_setting *s = ebb_conf_find (table, n, key);
  if (!s)
    return ebb_error_set (err, EBB_EPARSE, "%s: unknown setting \"%s\"", where ? where : key, key);
  if (ebb_conf_assign (s, obj, value, err) < 0)
    return ebb_error_wrap (err, "%s", where ? where : key);
  return 0;
}

int
ebb_conf_validate_id (const ebb_conf_setting *s EBB_UNUSED, const void *value, ebb_error **err)
{
  if (!ebb_id_is_valid (value, SIZE_MAX))
    return ebb_error_set (err, EBB_EPARSE,
                          "must be an id of A-Z a-z 0-9 . _ - (not \".\" or \"..\")");
  return 0;
}

int
ebb_conf_validate_abspath (const ebb_conf_setting *s EBB_UNUSED, const void *value, ebb_error **err)
{
  if (((const char *)value)[0] != '/')
    return ebb_error_set (err, EBB_EPARSE, "must be an absolute path");
  return 0;
}
