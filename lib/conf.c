#include "config.h"
#include "lib/conf.h"
#include "lib/time.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define FIELD(obj, s, T)  ((T *)(void *)((char *)(obj) + (s)->offset))
#define CFIELD(obj, s, T) ((const T *)(const void *)((const char *)(obj) + (s)->offset))

/* Longest part of a bad value quoted back in a message: enough to recognize it. */
#define GOT_MAX 64

/* Per-load state: the line where each setting was first seen in the current file (to
 * refuse duplicates) and whether a list was assigned during this load (the first
 * assignment replaces the default instead of appending to it). */
typedef struct
{
  unsigned *line_seen;
  bool *list_assigned;
} load_state;

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

static void
strv_append (char ***strv, const char *s)
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

/* Formats usec in the largest unit that divides it, so bounds read as written. */
static void
format_usec (uint64_t usec, char *buf, size_t size)
{
  static const struct
  {
    const char *unit;
    uint64_t usec;
  } units[] = { { "h", 3600000000ULL }, { "min", 60000000 }, { "s", 1000000 }, { "ms", 1000 } };
  for (size_t i = 0; usec && i < EBB_ARRAY_SIZE (units); i++)
    if (usec % units[i].usec == 0)
      {
        snprintf (buf, size, "%" PRIu64 "%s", usec / units[i].usec, units[i].unit);
        return;
      }
  snprintf (buf, size, "%" PRIu64 "%s", usec, usec ? "us" : "");
}

static void
format_bytes (uint64_t bytes, char *buf, size_t size)
{
  static const char units[] = "EPTGMK";
  for (size_t i = 0; bytes && i < sizeof units - 1; i++)
    {
      unsigned shift = 10 * (unsigned)(6 - i);
      if ((bytes & ((1ULL << shift) - 1)) == 0)
        {
          snprintf (buf, size, "%" PRIu64 "%c", bytes >> shift, units[i]);
          return;
        }
    }
  snprintf (buf, size, "%" PRIu64, bytes);
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
      format_usec (s->umin, lo, sizeof lo);
      format_usec (umax_of (s), hi, sizeof hi);
      if (!ubounded)
        snprintf (buf, size, "must be a duration (e.g. 250ms, 10s, 5min)");
      else
        snprintf (buf, size, "must be a duration in [%s, %s]", lo, hi);
      return;
    case EBB_CONF_BYTES:
      format_bytes (s->umin, lo, sizeof lo);
      format_bytes (umax_of (s), hi, sizeof hi);
      if (!ubounded)
        snprintf (buf, size, "must be a byte size (e.g. 4096, 512K, 64M, 1G)");
      else
        snprintf (buf, size, "must be a byte size in [%s, %s]", lo, hi);
      return;
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
  char got[GOT_MAX + 4];
  describe (s, what, sizeof what);
  size_t len = strlen (value);
  snprintf (got, sizeof got, "%.*s%s", GOT_MAX, value, len > GOT_MAX ? "..." : "");
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
static int
assign (const ebb_conf_setting *s, void *obj, const char *value, ebb_error **err)
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
      free (*FIELD (obj, s, char *));
      *FIELD (obj, s, char *) = *value ? ebb_xstrdup (value) : NULL;
      return 0;
    case EBB_CONF_STRLIST:
      if (!*value)
        {
          ebb_strv_free (*FIELD (obj, s, char **));
          *FIELD (obj, s, char **) = NULL;
          return 0;
        }
      if ((r = check_string (s, value, err)) < 0)
        return r;
      strv_append (FIELD (obj, s, char **), value);
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
    *FIELD (obj, s, bool) = v.b;
  else if (s->type == EBB_CONF_INT64)
    *FIELD (obj, s, int64_t) = v.i;
  else if (s->type == EBB_CONF_ENUM)
    *FIELD (obj, s, int) = v.e;
  else if (s->type == EBB_CONF_DOUBLE)
    *FIELD (obj, s, double) = v.d;
  else
    *FIELD (obj, s, uint64_t) = v.u;
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

static void
clear_field (const ebb_conf_setting *s, void *obj)
{
  if (s->type == EBB_CONF_STRING)
    {
      free (*FIELD (obj, s, char *));
      *FIELD (obj, s, char *) = NULL;
    }
  else if (s->type == EBB_CONF_STRLIST)
    {
      ebb_strv_free (*FIELD (obj, s, char **));
      *FIELD (obj, s, char **) = NULL;
    }
}

void
ebb_conf_free (const ebb_conf_setting *table, size_t n, void *obj)
{
  for (size_t i = 0; i < n; i++)
    clear_field (&table[i], obj);
}

int
ebb_conf_defaults (const ebb_conf_setting *table, size_t n, void *obj, ebb_error **err)
{
  for (size_t i = 0; i < n; i++)
    {
      const ebb_conf_setting *s = &table[i];
      clear_field (s, obj);
      switch (s->type)
        {
        case EBB_CONF_BOOL:
          *FIELD (obj, s, bool) = false;
          break;
        case EBB_CONF_INT64:
          *FIELD (obj, s, int64_t) = 0;
          break;
        case EBB_CONF_ENUM:
          *FIELD (obj, s, int) = 0;
          break;
        case EBB_CONF_DOUBLE:
          *FIELD (obj, s, double) = 0;
          break;
        case EBB_CONF_UINT64:
        case EBB_CONF_DURATION:
        case EBB_CONF_BYTES:
          *FIELD (obj, s, uint64_t) = 0;
          break;
        default:
          break;
        }
      if (s->def && assign (s, obj, s->def, err) < 0)
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
  if (assign (s, obj, value, err) < 0)
    return ebb_error_wrap (err, "%s", where ? where : key);
  return 0;
}

/* Returns true when the n bytes at p are well-formed UTF-8 (no overlongs, surrogates or
 * code points above U+10FFFF). */
static bool
utf8_valid (const unsigned char *p, size_t n)
{
  size_t i = 0;
  while (i < n)
    {
      unsigned c = p[i];
      size_t len = c < 0x80             ? 1
                   : (c & 0xe0) == 0xc0 ? 2
                   : (c & 0xf0) == 0xe0 ? 3
                   : (c & 0xf8) == 0xf0 ? 4
                                        : 0;
      if (len == 0 || i + len > n)
        return false;
      uint32_t cp = len == 1 ? c : c & (0x7f >> len);
      for (size_t k = 1; k < len; k++)
        {
          if ((p[i + k] & 0xc0) != 0x80)
            return false;
          cp = (cp << 6) | (p[i + k] & 0x3f);
        }
      static const uint32_t min_cp[] = { 0, 0, 0x80, 0x800, 0x10000 };
      if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return false;
      i += len;
    }
  return true;
}

static bool
is_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r';
}

/* Unquotes the value starting at the opening quote p into out (as large as p). Returns 0,
 * or negative with *err holding the reason. */
static int
unquote (const char *p, char *out, ebb_error **err)
{
  p++;
  while (*p && *p != '"')
    {
      if (*p != '\\')
        {
          *out++ = *p++;
          continue;
        }
      switch (p[1])
        {
        case '"':
        case '\\':
          *out++ = p[1];
          break;
        case 'n':
          *out++ = '\n';
          break;
        case 't':
          *out++ = '\t';
          break;
        case '\0':
          return ebb_error_set (err, EBB_EPARSE, "unterminated quoted value");
        default:
          return ebb_error_set (err, EBB_EPARSE, "invalid escape \"\\%c\" in quoted value", p[1]);
        }
      p += 2;
    }
  if (*p != '"')
    return ebb_error_set (err, EBB_EPARSE, "unterminated quoted value");
  *out = '\0';
  for (p++; is_blank (*p); p++)
    ;
  if (*p && *p != '#')
    return ebb_error_set (err, EBB_EPARSE, "unexpected text after the closing quote");
  return 0;
}

/* Cuts an unquoted value at a comment (a '#' after a blank; blank_before says whether one
 * precedes v) and trims trailing blanks. */
static void
trim_unquoted (char *v, bool blank_before)
{
  for (char *p = v; *p; p++)
    if (*p == '#' && (p == v ? blank_before : is_blank (p[-1])))
      {
        *p = '\0';
        break;
      }
  size_t len = strlen (v);
  while (len > 0 && is_blank (v[len - 1]))
    v[--len] = '\0';
}

static bool
key_valid (const char *k)
{
  for (; *k; k++)
    if (!isalnum ((unsigned char)*k) && *k != '_' && *k != '-')
      return false;
  return true;
}

/* Splits a non-blank, non-comment line (modified in place) into key and value. Returns 0,
 * or negative with the reason in *err. */
static int
split_line (char *line, char **key, char **value, ebb_error **err)
{
  char *eq = strchr (line, '=');
  if (!eq)
    return ebb_error_set (err, EBB_EPARSE, "missing \"=\" (expected key = value)");
  char *end = eq;
  while (end > line && is_blank (end[-1]))
    end--;
  *end = '\0';
  if (!*line)
    return ebb_error_set (err, EBB_EPARSE, "empty key before \"=\"");
  if (!key_valid (line))
    return ebb_error_set (err, EBB_EPARSE, "invalid key \"%.*s\" (allowed: A-Z a-z 0-9 _ -)",
                          GOT_MAX, line);
  char *v = eq + 1;
  while (is_blank (*v))
    v++;
  *key = line;
  *value = v;
  if (*v == '"')
    return unquote (v, v, err);
  trim_unquoted (v, is_blank (v[-1]));
  return 0;
}

/* Applies one line. Returns 0, or negative with *err holding "KEY: reason" or a reason. */
static int
apply_line (const ebb_conf_setting *table, size_t n, void *obj, load_state *st, char *line,
            unsigned lineno, ebb_error **err)
{
  while (is_blank (*line))
    line++;
  if (!*line || *line == '#')
    return 0;
  char *key = NULL, *value = NULL;
  int r = split_line (line, &key, &value, err);
  if (r < 0)
    return r;
  const ebb_conf_setting *s = ebb_conf_find (table, n, key);
  if (!s)
    return ebb_error_set (err, EBB_EPARSE, "unknown key \"%s\"", key);
  size_t i = (size_t)(s - table);
  if (s->type != EBB_CONF_STRLIST && st->line_seen[i])
    return ebb_error_set (err, EBB_EPARSE, "%s: duplicate key (first set on line %u)", key,
                          st->line_seen[i]);
  st->line_seen[i] = lineno;
  if (s->type == EBB_CONF_STRLIST && !st->list_assigned[i])
    clear_field (s, obj); /* the first assignment replaces the default list */
  st->list_assigned[i] = true;
  if ((r = assign (s, obj, value, err)) < 0)
    return ebb_error_wrap (err, "%s", key);
  return 0;
}

/* Parses a file's text line by line. Returns 0, or negative with *err "FILE:LINE: ...". */
static int
parse_text (const ebb_conf_setting *table, size_t n, void *obj, load_state *st, const char *file,
            const char *text, size_t len, ebb_error **err)
{
  char line[EBB_CONF_MAX_LINE + 1];
  unsigned lineno = 0;
  memset (st->line_seen, 0, n * sizeof *st->line_seen);
  for (size_t pos = 0; pos < len;)
    {
      const char *start = text + pos;
      const char *nl = memchr (start, '\n', len - pos);
      size_t line_len = nl ? (size_t)(nl - start) : len - pos;
      pos += line_len + (nl ? 1 : 0);
      lineno++;
      if (line_len > EBB_CONF_MAX_LINE)
        return ebb_error_set (err, EBB_EPARSE, "%s:%u: line longer than %d bytes", file, lineno,
                              EBB_CONF_MAX_LINE);
      if (memchr (start, '\0', line_len))
        return ebb_error_set (err, EBB_EPARSE, "%s:%u: NUL byte", file, lineno);
      if (!utf8_valid ((const unsigned char *)start, line_len))
        return ebb_error_set (err, EBB_EPARSE, "%s:%u: invalid UTF-8", file, lineno);
      memcpy (line, start, line_len);
      line[line_len] = '\0';
      if (apply_line (table, n, obj, st, line, lineno, err) < 0)
        return ebb_error_wrap (err, "%s:%u", file, lineno);
    }
  return 0;
}

int
ebb_conf_parse_text (const ebb_conf_setting *table, size_t n, void *obj, const char *file_name,
                     const char *text, size_t len, ebb_error **err)
{
  cleanup_free unsigned *line_seen = ebb_xcalloc (n + 1, sizeof *line_seen);
  cleanup_free bool *list_assigned = ebb_xcalloc (n + 1, sizeof *list_assigned);
  load_state st = { line_seen, list_assigned };
  return parse_text (table, n, obj, &st, file_name, text, len, err);
}

/* Reads a whole file of at most EBB_CONF_MAX_FILE_BYTES. Returns the length and *out
 * (NUL-terminated, to free), or negative with *err (errno code, ENOENT when missing). */
static ssize_t
read_file (const char *path, char **out, ebb_error **err)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "open %s", path);
  struct stat st;
  if (fstat (fd, &st) < 0)
    return ebb_error_set_errno (err, errno, "stat %s", path);
  if (!S_ISREG (st.st_mode))
    return ebb_error_set (err, EINVAL, "%s: not a regular file", path);
  cleanup_free char *buf = ebb_xmalloc (EBB_CONF_MAX_FILE_BYTES + 2);
  size_t len = 0;
  for (;;)
    {
      ssize_t r = read (fd, buf + len, EBB_CONF_MAX_FILE_BYTES + 1 - len);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return ebb_error_set_errno (err, errno, "read %s", path);
      if (r == 0)
        break;
      len += (size_t)r;
      if (len > EBB_CONF_MAX_FILE_BYTES)
        return ebb_error_set (err, EBB_EPARSE, "%s: larger than %d bytes", path,
                              EBB_CONF_MAX_FILE_BYTES);
    }
  buf[len] = '\0';
  *out = ebb_steal_ptr (&buf);
  return (ssize_t)len;
}

static int
load_file (const ebb_conf_setting *table, size_t n, void *obj, load_state *st, const char *path,
           ebb_error **err)
{
  cleanup_free char *text = NULL;
  ssize_t len = read_file (path, &text, err);
  if (len < 0)
    return (int)len;
  return parse_text (table, n, obj, st, path, text, (size_t)len, err);
}

static int
cmp_names (const void *a, const void *b)
{
  return strcmp (*(char *const *)a, *(char *const *)b);
}

/* Lists the NAME.conf regular files in dir, sorted by strcmp. Returns the count and *out
 * (to ebb_strv_free; NULL when the directory does not exist), or negative with *err. */
static int
list_dropins (const char *dir, char ***out, ebb_error **err)
{
  cleanup_dir DIR *d = opendir (dir);
  *out = NULL;
  if (!d && (errno == ENOENT || errno == ENOTDIR))
    return 0;
  if (!d)
    return ebb_error_set_errno (err, errno, "open directory %s", dir);
  char **names = NULL;
  struct dirent *de;
  while ((de = readdir (d)))
    {
      size_t len = strlen (de->d_name);
      struct stat st;
      if (de->d_name[0] == '.' || len <= 5 || strcmp (de->d_name + len - 5, ".conf") != 0)
        continue;
      if (fstatat (dirfd (d), de->d_name, &st, 0) < 0 || !S_ISREG (st.st_mode))
        continue; /* a dangling link or a directory called x.conf is not a drop-in */
      strv_append (&names, de->d_name);
    }
  size_t count = ebb_strv_length (names);
  if (count)
    qsort (names, count, sizeof *names, cmp_names);
  *out = names;
  return (int)count;
}

int
ebb_conf_load (const ebb_conf_setting *table, size_t n, void *obj, const char *path, unsigned flags,
               ebb_error **err)
{
  cleanup_free unsigned *line_seen = ebb_xcalloc (n + 1, sizeof *line_seen);
  cleanup_free bool *list_assigned = ebb_xcalloc (n + 1, sizeof *list_assigned);
  load_state st = { line_seen, list_assigned };
  ebb_error *local = NULL;
  if (load_file (table, n, obj, &st, path, &local) < 0)
    {
      bool skip = local && local->code == ENOENT && (flags & EBB_CONF_OPTIONAL);
      if (!skip)
        {
          int code = local ? local->code : EIO;
          if (err && !*err)
            *err = local;
          else
            ebb_error_free (&local);
          return -code;
        }
      ebb_error_free (&local);
    }
  cleanup_free char *dir = ebb_xasprintf ("%s.d", path);
  char **names = NULL;
  int count = list_dropins (dir, &names, err);
  int r = count < 0 ? count : 0;
  for (int i = 0; r == 0 && i < count; i++)
    {
      cleanup_free char *file = ebb_xasprintf ("%s/%s", dir, names[i]);
      r = load_file (table, n, obj, &st, file, err);
    }
  ebb_strv_free (names);
  return r;
}

/* Writes s quoted in the file syntax. */
static void
put_quoted (FILE *out, const char *s)
{
  fputc ('"', out);
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        fprintf (out, "\\%c", *s);
      else if (*s == '\n')
        fputs ("\\n", out);
      else if (*s == '\t')
        fputs ("\\t", out);
      else
        fputc (*s, out);
    }
  fputc ('"', out);
}

/* Formats d with the fewest digits that read back as the same double. */
static void
format_double (double d, char *buf, size_t size)
{
  for (int prec = 1; prec <= 17; prec++)
    {
      snprintf (buf, size, "%.*g", prec, d);
      if (strtod (buf, NULL) == d)
        return;
    }
}

/* Formats a scalar (non-string) value of s as the file syntax would write it. */
static void
format_scalar (const ebb_conf_setting *s, const void *obj, char *buf, size_t size)
{
  switch (s->type)
    {
    case EBB_CONF_BOOL:
      snprintf (buf, size, "%s", *CFIELD (obj, s, bool) ? "yes" : "no");
      return;
    case EBB_CONF_INT64:
      snprintf (buf, size, "%" PRId64, *CFIELD (obj, s, int64_t));
      return;
    case EBB_CONF_UINT64:
      snprintf (buf, size, "%" PRIu64, *CFIELD (obj, s, uint64_t));
      return;
    case EBB_CONF_DURATION:
      format_usec (*CFIELD (obj, s, uint64_t), buf, size);
      return;
    case EBB_CONF_BYTES:
      format_bytes (*CFIELD (obj, s, uint64_t), buf, size);
      return;
    case EBB_CONF_DOUBLE:
      format_double (*CFIELD (obj, s, double), buf, size);
      return;
    case EBB_CONF_ENUM:
      snprintf (buf, size, "?");
      for (const ebb_conf_enum *e = s->enums; e && e->name; e++)
        if (e->value == *CFIELD (obj, s, int))
          {
            snprintf (buf, size, "%s", e->name);
            break;
          }
      return;
    default:
      snprintf (buf, size, "?");
      return;
    }
}

int
ebb_conf_dump (const ebb_conf_setting *table, size_t n, const void *obj, FILE *out, ebb_error **err)
{
  for (size_t i = 0; i < n; i++)
    {
      const ebb_conf_setting *s = &table[i];
      if (s->type == EBB_CONF_STRING)
        {
          const char *v = *CFIELD (obj, s, char *);
          fprintf (out, "%s = ", s->name);
          if (v)
            put_quoted (out, v);
          fputc ('\n', out);
        }
      else if (s->type == EBB_CONF_STRLIST)
        {
          char *const *l = *(char **const *)(const void *)((const char *)obj + s->offset);
          if (!l || !*l)
            fprintf (out, "%s =\n", s->name);
          for (size_t k = 0; l && l[k]; k++)
            {
              fprintf (out, "%s = ", s->name);
              put_quoted (out, l[k]);
              fputc ('\n', out);
            }
        }
      else
        {
          char buf[128];
          format_scalar (s, obj, buf, sizeof buf);
          fprintf (out, "%s = %s\n", s->name, buf);
        }
    }
  if (fflush (out) != 0 || ferror (out))
    return ebb_error_set_errno (err, errno ? errno : EIO, "write configuration");
  return 0;
}

int
ebb_conf_print_help (const ebb_conf_setting *table, size_t n, FILE *out)
{
  static const char *const type_names[] = { "string", "boolean", "integer", "integer", "duration",
                                            "bytes",  "choice",  "list",    "number" };
  for (size_t i = 0; i < n; i++)
    {
      const ebb_conf_setting *s = &table[i];
      const char *type = (size_t)s->type < EBB_ARRAY_SIZE (type_names) ? type_names[s->type] : "?";
      fprintf (out, "  %-28s %-9s default: %-12s %s\n", s->name, type,
               s->def && *s->def ? s->def : "(none)", s->help ? s->help : "");
    }
  return fflush (out) == 0 && !ferror (out) ? 0 : -EIO;
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
