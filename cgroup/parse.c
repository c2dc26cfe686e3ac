/* Parsers for the kernel's cgroup files. Pure functions on text, so they are tested with
 * hostile input (truncated, huge numbers, garbage) without a kernel. */
#include "config.h"
#include "cgroup/cgroup-internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parses a decimal u64 at *p (no sign, no leading space), advancing *p. Returns 0, or
 * -EBB_EPARSE when there is no digit, -EBB_ERANGE on overflow. */
static int
parse_u64_at (const char **p, uint64_t *out)
{
  const char *s = *p;
  if (!isdigit ((unsigned char)*s))
    return -EBB_EPARSE;
  uint64_t v = 0;
  for (; isdigit ((unsigned char)*s); s++)
    {
      uint64_t d = (uint64_t)(*s - '0');
      if (v > (UINT64_MAX - d) / 10)
        return -EBB_ERANGE;
      v = v * 10 + d;
    }
  *p = s;
  *out = v;
  return 0;
}

static int
parse_error (ebb_error **err, int r, const char *what, const char *s)
{
  if (r == -EBB_ERANGE)
    return ebb_error_set (err, EBB_ERANGE, "%s: number out of range in \"%.40s\"", what, s);
  return ebb_error_set (err, EBB_EPARSE, "%s: malformed \"%.40s\"", what, s);
}

static const char *
skip_blanks (const char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

/* True at the end of a value: end of string or newline (trailing blanks allowed). */
static int
at_value_end (const char *s)
{
  s = skip_blanks (s);
  return *s == '\0' || *s == '\n';
}

int
ebb_cg_parse_u64_or_max (const char *s, uint64_t *out, ebb_error **err)
{
  const char *p = skip_blanks (s);
  if (strncmp (p, "max", 3) == 0 && at_value_end (p + 3))
    {
      *out = EBB_CG_MAX;
      return 0;
    }
  uint64_t v;
  int r = parse_u64_at (&p, &v);
  if (r == 0 && !at_value_end (p))
    r = -EBB_EPARSE;
  if (r == 0 && v == EBB_CG_MAX)
    r = -EBB_ERANGE; /* would read as "max" */
  if (r < 0)
    return parse_error (err, r, "value", s);
  *out = v;
  return 0;
}

int
ebb_cg_parse_cpu_max (const char *s, uint64_t *quota_usec, uint64_t *period_usec, ebb_error **err)
{
  const char *p = skip_blanks (s);
  uint64_t q, per = 0;
  int r = 0;
  if (strncmp (p, "max", 3) == 0)
    {
      q = EBB_CG_MAX;
      p += 3;
    }
  else
    r = parse_u64_at (&p, &q);
  if (r == 0 && (*p == ' ' || *p == '\t'))
    {
      p = skip_blanks (p);
      if (!at_value_end (p))
        r = parse_u64_at (&p, &per);
    }
  if (r == 0 && !at_value_end (p))
    r = -EBB_EPARSE;
  if (r == 0 && q == EBB_CG_MAX && strncmp (skip_blanks (s), "max", 3) != 0)
    r = -EBB_ERANGE; /* a literal 18446744073709551615 would read as "max" */
  if (r < 0)
    return parse_error (err, r, "cpu.max", s);
  *quota_usec = q;
  *period_usec = per;
  return 0;
}

/* Returns a pointer to the value of `key` at the start of a line of s, or NULL. */
static const char *
find_key (const char *s, const char *key)
{
  size_t klen = strlen (key);
  if (klen == 0)
    return NULL;
  for (const char *line = s; line && *line;)
    {
      if (strncmp (line, key, klen) == 0 && (line[klen] == ' ' || line[klen] == '\t'))
        return line + klen;
      line = strchr (line, '\n');
      if (line)
        line++;
    }
  return NULL;
}

int
ebb_cg_parse_keyed (const char *s, const char *key, uint64_t *out, ebb_error **err)
{
  const char *v = find_key (s, key);
  if (!v)
    return 0;
  const char *p = skip_blanks (v);
  uint64_t n;
  int r = parse_u64_at (&p, &n);
  if (r == 0 && !at_value_end (p))
    r = -EBB_EPARSE;
  if (r < 0)
    return parse_error (err, r, key, v);
  *out = n;
  return 1;
}

/* Parses "avg10=1.23" style decimals: up to 3 integer digits (PSI is a percentage). */
static int
parse_pct (const char **p, double *out)
{
  const char *s = *p;
  uint64_t ip = 0, fp = 0, scale = 1;
  int r = parse_u64_at (&s, &ip);
  if (r < 0)
    return r;
  if (*s == '.')
    {
      s++;
      if (!isdigit ((unsigned char)*s))
        return -EBB_EPARSE;
      for (; isdigit ((unsigned char)*s); s++)
        if (scale < 1000000)
          {
            fp = fp * 10 + (uint64_t)(*s - '0');
            scale *= 10;
          }
    }
  if (ip > 100)
    return -EBB_ERANGE;
  *out = (double)ip + (double)fp / (double)scale;
  *p = s;
  return 0;
}

/* Parses the fields after "some"/"full": avg10=X avg60=Y avg300=Z total=N. */
static int
parse_psi_line (const char *p, double *avg10, uint64_t *total)
{
  int seen_avg10 = 0, seen_total = 0;
  while (!at_value_end (p))
    {
      p = skip_blanks (p);
      const char *eq = p;
      while (*eq && *eq != '=' && *eq != ' ' && *eq != '\n')
        eq++;
      if (*eq != '=')
        return -EBB_EPARSE;
      size_t klen = (size_t)(eq - p);
      const char *v = eq + 1;
      int r;
      if (klen == 5 && strncmp (p, "total", 5) == 0)
        {
          r = parse_u64_at (&v, total);
          seen_total = 1;
        }
      else
        {
          double d = 0;
          r = parse_pct (&v, &d);
          if (r == 0 && klen == 5 && strncmp (p, "avg10", 5) == 0)
            {
              *avg10 = d;
              seen_avg10 = 1;
            }
        }
      if (r < 0)
        return r;
      if (*v != ' ' && *v != '\t' && *v != '\n' && *v != '\0')
        return -EBB_EPARSE;
      p = v;
    }
  return seen_avg10 && seen_total ? 0 : -EBB_EPARSE;
}

int
ebb_cg_parse_psi (const char *s, ebb_cg_psi *out, ebb_error **err)
{
  ebb_cg_psi psi = { 0 };
  int have_some = 0;
  for (const char *line = s; line && *line;)
    {
      int r = 0;
      if (strncmp (line, "some ", 5) == 0)
        {
          r = parse_psi_line (line + 5, &psi.some_avg10, &psi.some_total_usec);
          have_some = 1;
        }
      else if (strncmp (line, "full ", 5) == 0)
        r = parse_psi_line (line + 5, &psi.full_avg10, &psi.full_total_usec);
      else if (*line != '\n')
        r = -EBB_EPARSE;
      if (r < 0)
        return parse_error (err, r, "pressure", line);
      line = strchr (line, '\n');
      if (line)
        line++;
    }
  if (!have_some)
    return ebb_error_set (err, EBB_EPARSE, "pressure: no \"some\" line");
  *out = psi;
  return 0;
}

int
ebb_cg_parse_freezer_state (const char *s, ebb_error **err)
{
  static const char *const names[] = { "THAWED", "FREEZING", "FROZEN" };
  const char *p = skip_blanks (s);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (names); i++)
    {
      size_t n = strlen (names[i]);
      if (strncmp (p, names[i], n) == 0 && at_value_end (p + n))
        return (int)i;
    }
  return ebb_error_set (err, EBB_EPARSE, "freezer.state: unknown state \"%.20s\"", s);
}

/* Returns 1 when the comma-separated list [list, end) contains name. */
static int
csv_has (const char *list, const char *end, const char *name)
{
  size_t n = strlen (name);
  for (const char *p = list; p < end;)
    {
      const char *c = memchr (p, ',', (size_t)(end - p));
      const char *e = c ? c : end;
      if ((size_t)(e - p) == n && strncmp (p, name, n) == 0)
        return 1;
      p = e + 1;
    }
  return 0;
}

/* Checks one "/proc/PID/cgroup" line "ID:controllers:path" [line, end); returns 1 and the
 * path bounds when it matches controller, 0 when not, -EBB_EPARSE when malformed. */
static int
proc_cgroup_line (const char *line, const char *end, const char *controller, const char **pb,
                  const char **pe)
{
  const char *p = line;
  uint64_t id;
  if (parse_u64_at (&p, &id) < 0 || p >= end || *p != ':')
    return -EBB_EPARSE;
  const char *cs = p + 1;
  const char *ce = memchr (cs, ':', (size_t)(end - cs));
  if (!ce || ce + 1 >= end || ce[1] != '/')
    return -EBB_EPARSE;
  int match;
  if (!controller || !*controller)
    match = id == 0 && ce == cs;
  else
    match = ce > cs && csv_has (cs, ce, controller);
  if (!match)
    return 0;
  *pb = ce + 1;
  *pe = end;
  return 1;
}

int
ebb_cg_parse_proc_cgroup (const char *s, const char *controller, char **path, ebb_error **err)
{
  for (const char *line = s; line && *line;)
    {
      const char *nl = strchr (line, '\n');
      const char *end = nl ? nl : line + strlen (line);
      if (end > line)
        {
          const char *pb, *pe;
          int r = proc_cgroup_line (line, end, controller, &pb, &pe);
          if (r < 0)
            return ebb_error_set (err, EBB_EPARSE, "/proc/PID/cgroup: malformed line \"%.*s\"",
                                  (int)((end - line) > 60 ? 60 : end - line), line);
          if (r > 0)
            {
              *path = strndup (pb, (size_t)(pe - pb));
              if (!*path)
                abort ();
              return 1;
            }
        }
      line = nl ? nl + 1 : NULL;
    }
  return 0;
}

int
ebb_cg_mount_has_controller (const ebb_cg_mount *m, const char *controller)
{
  if (m->v2 || !m->options)
    return 0;
  return csv_has (m->options, m->options + strlen (m->options), controller);
}

/* Copies [b, e) unescaping mountinfo's octal escapes (\040 space, \011 tab, \012, \134). */
static char *
unescape (const char *b, const char *e)
{
  char *out = ebb_xmalloc ((size_t)(e - b) + 1), *o = out;
  for (const char *p = b; p < e; p++)
    {
      if (*p == '\\' && e - p >= 4 && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7'
          && p[3] >= '0' && p[3] <= '7')
        {
          *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
          p += 3;
        }
      else
        *o++ = *p;
    }
  *o = '\0';
  return out;
}

/* Splits a line [line, end) into space-separated fields; returns how many (at most max). */
static int
split_fields (const char *line, const char *end, const char **fb, const char **fe, int max)
{
  int n = 0;
  const char *p = line;
  while (p < end && n < max)
    {
      while (p < end && *p == ' ')
        p++;
      if (p >= end)
        break;
      fb[n] = p;
      while (p < end && *p != ' ')
        p++;
      fe[n++] = p;
    }
  return n;
}

/* Parses one mountinfo line; returns 1 and *m for a cgroup mount, 0 for another mount,
 * -EBB_EPARSE when malformed. Format: id parent maj:min root mountpoint opts [opt...] -
 * fstype source superopts. */
static int
mountinfo_line (const char *line, const char *end, ebb_cg_mount *m)
{
  const char *fb[64], *fe[64];
  int n = split_fields (line, end, fb, fe, 64);
  int sep = -1;
  for (int i = 6; i < n; i++)
    if (fe[i] - fb[i] == 1 && fb[i][0] == '-')
      {
        sep = i;
        break;
      }
  if (n < 6 || sep < 0 || sep + 1 >= n)
    return -EBB_EPARSE;
  size_t tl = (size_t)(fe[sep + 1] - fb[sep + 1]);
  int v2 = tl == 7 && strncmp (fb[sep + 1], "cgroup2", 7) == 0;
  int v1 = tl == 6 && strncmp (fb[sep + 1], "cgroup", 6) == 0;
  if (!v1 && !v2)
    return 0;
  if (sep + 3 >= n)
    return -EBB_EPARSE;
  m->root = unescape (fb[3], fe[3]);
  m->mount_point = unescape (fb[4], fe[4]);
  m->options = unescape (fb[sep + 3], fe[sep + 3]);
  m->v2 = v2;
  return 1;
}

int
ebb_cg_parse_mountinfo (const char *s, ebb_cg_mount **out, ebb_error **err)
{
  ebb_cg_mount *v = NULL;
  int n = 0;
  for (const char *line = s; line && *line;)
    {
      const char *nl = strchr (line, '\n');
      const char *end = nl ? nl : line + strlen (line);
      if (end > line)
        {
          ebb_cg_mount m = { 0 };
          int r = mountinfo_line (line, end, &m);
          if (r < 0)
            {
              ebb_cg_mounts_free (v, n);
              return ebb_error_set (err, EBB_EPARSE, "mountinfo: malformed line \"%.*s\"",
                                    (int)((end - line) > 80 ? 80 : end - line), line);
            }
          if (r > 0)
            {
              v = ebb_xrealloc (v, sizeof *v * (size_t)(n + 1));
              v[n++] = m;
            }
        }
      line = nl ? nl + 1 : NULL;
    }
  *out = v;
  return n;
}

void
ebb_cg_mounts_free (ebb_cg_mount *m, int n)
{
  for (int i = 0; m && i < n; i++)
    {
      free (m[i].mount_point);
      free (m[i].root);
      free (m[i].options);
    }
  free (m);
}

uint64_t
ebb_cg_v1_memory_value (uint64_t v)
{
  /* v1 reports "unlimited" as PAGE_COUNTER_MAX * PAGE_SIZE: 9223372036854771712 with 4 KiB
   * pages (LONG_MAX rounded down to a page). Anything at or above 2^62 is unlimited. */
  return v >= (1ULL << 62) ? EBB_CG_MAX : v;
}
