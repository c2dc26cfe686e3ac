/* Human output: aligned tables, a progress bar, durations and sizes. Pure functions. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

const char *
ebbctl_state_color (const char *state)
{
  static const struct
  {
    const char *state, *sgr;
  } colors[] = {
    /* Working: green; held back or waiting: yellow (amber); broken: red; ended by hand:
     * grey. Ended well (done, exited): the terminal's colour. */
    { "running", "32" },  { "ready", "32" },  { "starting", "32" }, { "suspended", "33" },
    { "draining", "33" }, { "queued", "33" }, { "pending", "33" },  { "failed", "31" },
    { "lost", "31" },     { "killed", "90" }, { "killing", "90" },
  };
  /* Its first word: "suspended (held)" is suspended (cli/hold.c). */
  size_t n = state ? strcspn (state, " ") : 0;
  for (size_t i = 0; state && i < EBB_ARRAY_SIZE (colors); i++)
    if (strlen (colors[i].state) == n && strncmp (state, colors[i].state, n) == 0)
      return colors[i].sgr;
  return NULL;
}

bool
ebbctl_want_color (const ebbctl_ctx *ctx, int fd)
{
  /* no-color.org: NO_COLOR set and not empty turns colour off; so do a dumb terminal, a
   * pipe or a file, and machine-readable output. */
  const char *no = getenv ("NO_COLOR"), *term = getenv ("TERM");
  return (ctx->output == EBBCTL_OUT_TABLE || ctx->output == EBBCTL_OUT_WIDE) && isatty (fd)
         && !(no && *no) && !(term && strcmp (term, "dumb") == 0);
}

void
ebbctl_print_state (FILE *out, bool color, const char *clean_state)
{
  const char *sgr = color ? ebbctl_state_color (clean_state) : NULL;
  if (sgr)
    fprintf (out, "\033[%sm%s\033[0m", sgr, clean_state);
  else
    fputs (clean_state, out);
}

void
ebbctl_table_init (ebbctl_table *t, size_t n_cols, const char *const *header)
{
  *t = (ebbctl_table){ .n_cols = n_cols };
  ebbctl_table_add (t, header);
}

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when it is not one (a stray
 * continuation byte, a truncated or overlong sequence, a surrogate, above U+10FFFF). */
static size_t
utf8_len (const unsigned char *s)
{
  unsigned char c = s[0];
  size_t n = c < 0x80                 ? 1
             : c >= 0xc2 && c <= 0xdf ? 2
             : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xf0 && c <= 0xf4 ? 4
                                      : 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xc0) != 0x80)
      return 0;
  if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90)
      || (c == 0xf4 && s[1] > 0x8f))
    return 0;
  return n;
}

void
ebbctl_sanitize (char *s)
{
  unsigned char *r = (unsigned char *)s, *w = r;
  while (*r)
    {
      size_t n = utf8_len (r);
      /* C0 and DEL; C1 (U+0080-U+009F, "\xc2\x80"-"\xc2\x9f": U+009B is the 8-bit CSI to a
       * UTF-8 terminal) and bytes that are no UTF-8 (a lone 0x9b is the CSI to a Latin-1
       * terminal): each one '?'. */
      if (n == 0 || r[0] < 0x20 || r[0] == 0x7f || (r[0] == 0xc2 && r[1] <= 0x9f))
        {
          *w++ = '?';
          r += n ? n : 1;
          continue;
        }
      memmove (w, r, n);
      w += n, r += n;
    }
  *w = '\0';
}

/* A copy with control characters replaced (ebbctl_sanitize). */
static char *
sanitize (const char *s)
{
  char *c = ebb_xstrdup (s ? s : "-");
  ebbctl_sanitize (c);
  return c;
}

void
ebbctl_table_add (ebbctl_table *t, const char *const *cells)
{
  t->cells = ebb_xrealloc (t->cells, (t->n_rows + 1) * t->n_cols * sizeof *t->cells);
  for (size_t c = 0; c < t->n_cols; c++)
    t->cells[t->n_rows * t->n_cols + c] = sanitize (cells[c]);
  t->n_rows++;
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t
width_of (const char *s)
{
  size_t w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xc0) != 0x80)
      w++;
  return w;
}

void
ebbctl_table_print (const ebbctl_table *t, FILE *out)
{
  cleanup_free size_t *w = ebb_xcalloc (t->n_cols ? t->n_cols : 1, sizeof *w);
  for (size_t r = 0; r < t->n_rows; r++)
    for (size_t c = 0; c < t->n_cols; c++)
      {
        size_t x = width_of (t->cells[r * t->n_cols + c]);
        if (x > w[c])
          w[c] = x;
      }
  for (size_t r = 0; r < t->n_rows; r++)
    {
      for (size_t c = 0; c < t->n_cols; c++)
        {
          const char *cell = t->cells[r * t->n_cols + c];
          /* The STATE column in its state's colour; the padding counts the text only. */
          if (r > 0 && t->color && strcmp (t->cells[c], "STATE") == 0)
            ebbctl_print_state (out, true, cell);
          else
            fputs (cell, out);
          if (c + 1 < t->n_cols)
            fprintf (out, "%*s", (int)(w[c] - width_of (cell) + 2), "");
        }
      fputc ('\n', out);
    }
}

void
ebbctl_table_add_more (ebbctl_table *t, size_t n_row_cols,
                       void (*row) (ebbctl_table *t, json_object *item, size_t i),
                       json_object *item, size_t i, const char *const *extra, size_t n_extra)
{
  /* row's cells into a table of their own, then one row of them and the extra ones. */
  ebbctl_table one = { .n_cols = n_row_cols };
  row (&one, item, i);
  const char **cells = ebb_xcalloc (n_row_cols + n_extra, sizeof *cells);
  for (size_t c = 0; c < n_row_cols && one.n_rows; c++)
    cells[c] = one.cells[c];
  for (size_t c = 0; c < n_extra; c++)
    cells[n_row_cols + c] = extra[c];
  ebbctl_table_add (t, cells);
  free (cells);
  ebbctl_table_clear (&one);
}

void
ebbctl_table_clear (ebbctl_table *t)
{
  for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
    free (t->cells[i]);
  free (t->cells);
  *t = (ebbctl_table){ 0 };
}

void
ebbctl_table_print_list (const ebbctl_ctx *ctx, const char *const *header, size_t n_cols,
                         json_object *list,
                         void (*row) (ebbctl_table *t, json_object *item, size_t i))
{
  ebbctl_table t;
  ebbctl_table_init (&t, n_cols, header);
  t.color = ctx->color;
  for (size_t i = 0; i < json_object_array_length (list); i++)
    row (&t, json_object_array_get_idx (list, i), i);
  ebbctl_table_print (&t, ctx->out);
  ebbctl_table_clear (&t);
}

/* Writes the line of n bytes at p cut to max_cols columns (0: no limit): SGR sequences
 * ("\033[...m") take none, a UTF-8 character one; a colour left open is closed. */
static void
put_line_cut (FILE *out, const char *p, size_t n, size_t max_cols)
{
  size_t cols = 0, i = 0;
  bool open = false;
  while (i < n)
    {
      if (p[i] == '\033' && i + 1 < n && p[i + 1] == '[')
        {
          size_t k = i + 2;
          while (k < n && p[k] != 'm')
            k++;
          k += k < n;
          open = !(k - i == 4 && p[i + 2] == '0'); /* "\033[0m" closes */
          fwrite (p + i, 1, k - i, out);
          i = k;
          continue;
        }
      if (((unsigned char)p[i] & 0xc0) != 0x80 && max_cols && cols++ >= max_cols)
        break;
      fputc (p[i++], out);
    }
  if (open)
    fputs ("\033[0m", out);
  fputc ('\n', out);
}

void
ebbctl_clip_lines (FILE *out, const char *text, size_t max_lines, size_t max_cols)
{
  size_t total = 0;
  for (const char *p = text; *p; p++)
    total += *p == '\n';
  if (*text && text[strlen (text) - 1] != '\n')
    total++;
  size_t shown = max_lines && total > max_lines ? max_lines - 1 : total;
  const char *p = text;
  for (size_t i = 0; i < shown; i++)
    {
      size_t n = strcspn (p, "\n");
      put_line_cut (out, p, n, max_cols);
      p += n + (p[n] == '\n');
    }
  if (shown < total)
    {
      char more[128];
      snprintf (more, sizeof more,
                "... %zu more lines (a taller terminal, or ebbctl jobs and nodes, show them)",
                total - shown);
      put_line_cut (out, more, strlen (more), max_cols);
    }
}

char *
ebbctl_progress (char *buf, size_t size, uint64_t done, uint64_t running, uint64_t suspended,
                 uint64_t total, unsigned width)
{
  if (done > total)
    done = total;
  if (running > total - done)
    running = total - done;
  if (suspended > total - done - running)
    suspended = total - done - running;
  char bar[256];
  if (width > sizeof bar - 1)
    width = sizeof bar - 1;
  /* Cells by rounding cumulative fractions, so the bar is full exactly when all are done. */
  unsigned n_done = total ? (unsigned)(done * width / total) : 0;
  unsigned n_run = total ? (unsigned)((done + running) * width / total) - n_done : 0;
  unsigned n_susp
      = total ? (unsigned)((done + running + suspended) * width / total) - n_done - n_run : 0;
  for (unsigned i = 0; i < width; i++)
    bar[i] = i < n_done ? '#' : i < n_done + n_run ? '>' : i < n_done + n_run + n_susp ? '~' : '.';
  bar[width] = '\0';
  snprintf (buf, size, "[%s] %llu/%llu done, %llu running, %llu suspended", bar,
            (unsigned long long)done, (unsigned long long)total, (unsigned long long)running,
            (unsigned long long)suspended);
  return buf;
}

char *
ebbctl_duration (char *buf, size_t size, double sec)
{
  if (!isfinite (sec) || sec < 0)
    snprintf (buf, size, "-");
  else if (sec < 1)
    snprintf (buf, size, "%.0fms", sec * 1000);
  else if (sec < 60)
    snprintf (buf, size, "%.1fs", sec);
  else if (sec < 3600)
    snprintf (buf, size, "%um%02us", (unsigned)(sec / 60), (unsigned)fmod (sec, 60));
  else if (sec < 1e9)
    snprintf (buf, size, "%uh%02um", (unsigned)(sec / 3600), (unsigned)fmod (sec / 60, 60));
  else
    snprintf (buf, size, "-");
  return buf;
}

char *
ebbctl_bytes (char *buf, size_t size, uint64_t bytes)
{
  static const char units[] = "KMGTPE";
  if (bytes < 1024)
    {
      snprintf (buf, size, "%llu", (unsigned long long)bytes);
      return buf;
    }
  double v = (double)bytes;
  unsigned u = 0;
  while (v >= 1024 && u < sizeof units - 1)
    {
      v /= 1024;
      u++;
    }
  if (fabs (v - round (v)) < 0.05 || v >= 100)
    snprintf (buf, size, "%.0f%c", v, units[u - 1]);
  else
    snprintf (buf, size, "%.1f%c", v, units[u - 1]);
  return buf;
}

const char *
ebbctl_clean (char *buf, size_t size, const char *s)
{
  /* Sanitised before truncation, so a sequence cut short by the size is not mistaken for
   * garbage, then cut at a character boundary. */
  cleanup_free char *c = sanitize (s);
  size_t len = strlen (c);
  if (size && len >= size)
    {
      len = size - 1;
      while (len && ((unsigned char)c[len] & 0xc0) == 0x80)
        len--;
    }
  if (size)
    snprintf (buf, size, "%.*s", (int)len, c);
  return buf;
}

char *
ebbctl_timestamp (char *buf, size_t size, double unix_sec)
{
  time_t t = (time_t)unix_sec;
  struct tm tm;
  if (!(unix_sec > 0) || unix_sec > 1e11 || !localtime_r (&t, &tm)
      || !strftime (buf, size, "%Y-%m-%d %H:%M:%S", &tm))
    snprintf (buf, size, "-");
  return buf;
}

double
ebbctl_now (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool
ends_with (const char *s, const char *suffix)
{
  size_t a = strlen (s), b = strlen (suffix);
  return a >= b && strcmp (s + a - b, suffix) == 0;
}

static void
print_scalar_line (FILE *out, const char *key, json_object *v)
{
  char buf[512];
  cleanup_free char *k = ebb_xstrdup (key);
  if (json_object_is_type (v, json_type_array))
    {
      cleanup_free char *joined = ebb_xstrdup ("");
      for (size_t i = 0; i < json_object_array_length (v); i++)
        {
          json_object *e = json_object_array_get_idx (v, i);
          const char *s = json_object_is_type (e, json_type_string)
                              ? json_object_get_string (e)
                              : json_object_to_json_string_ext (
                                  e, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
          char *next = ebb_xasprintf ("%s%s%s", joined, i ? " " : "", s);
          free (joined);
          joined = next;
        }
      snprintf (buf, sizeof buf, "%s", joined);
    }
  else if ((ends_with (key, "_at") || ends_with (key, "heartbeat"))
           && (json_object_is_type (v, json_type_double) || json_object_is_type (v, json_type_int)))
    ebbctl_timestamp (buf, sizeof buf, json_object_get_double (v));
  else if (!v)
    snprintf (buf, sizeof buf, "-");
  else if (json_object_is_type (v, json_type_string))
    snprintf (buf, sizeof buf, "%s", json_object_get_string (v));
  else
    snprintf (buf, sizeof buf, "%s",
              json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN
                                                     | JSON_C_TO_STRING_NOSLASHESCAPE));
  ebbctl_sanitize (buf);
  ebbctl_sanitize (k);
  fprintf (out, "%s: %s\n", k, buf);
}

static bool
is_object_array (json_object *v)
{
  return json_object_is_type (v, json_type_array) && json_object_array_length (v) > 0
         && json_object_is_type (json_object_array_get_idx (v, 0), json_type_object);
}

void
ebbctl_print_kv (FILE *out, json_object *obj, const char *prefix)
{
  if (!json_object_is_type (obj, json_type_object))
    return;
  json_object_object_foreach (obj, key, v)
  {
    cleanup_free char *full = prefix ? ebb_xasprintf ("%s.%s", prefix, key) : ebb_xstrdup (key);
    if (json_object_is_type (v, json_type_object))
      ebbctl_print_kv (out, v, full);
    else if (!is_object_array (v))
      print_scalar_line (out, full, v);
  }
}
