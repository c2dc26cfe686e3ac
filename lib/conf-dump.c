/* Writing settings back: values in the file syntax (ebb_conf_dump) and the help table. */
#include "config.h"
#include "lib/conf-internal.h"
#include "lib/util.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Formats usec in the largest unit that divides it, so bounds read as written. */
void
ebb_conf_format_usec (uint64_t usec, char *buf, size_t size)
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

void
ebb_conf_format_bytes (uint64_t bytes, char *buf, size_t size)
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
      snprintf (buf, size, "%s", *EBB_CONF_CFIELD (obj, s, bool) ? "yes" : "no");
      return;
    case EBB_CONF_INT64:
      snprintf (buf, size, "%" PRId64, *EBB_CONF_CFIELD (obj, s, int64_t));
      return;
    case EBB_CONF_UINT64:
      snprintf (buf, size, "%" PRIu64, *EBB_CONF_CFIELD (obj, s, uint64_t));
      return;
    case EBB_CONF_DURATION:
      ebb_conf_format_usec (*EBB_CONF_CFIELD (obj, s, uint64_t), buf, size);
      return;
    case EBB_CONF_BYTES:
      ebb_conf_format_bytes (*EBB_CONF_CFIELD (obj, s, uint64_t), buf, size);
      return;
    case EBB_CONF_DOUBLE:
      format_double (*EBB_CONF_CFIELD (obj, s, double), buf, size);
      return;
    case EBB_CONF_ENUM:
      snprintf (buf, size, "?");
      for (const ebb_conf_enum *e = s->enums; e && e->name; e++)
        if (e->value == *EBB_CONF_CFIELD (obj, s, int))
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
          const char *v = *EBB_CONF_CFIELD (obj, s, char *);
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
