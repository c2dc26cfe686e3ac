/* The configuration file syntax: lines, quoting, the main file and its drop-ins. */
#include "config.h"
#include "lib/conf-internal.h"
#include "lib/util.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Per-load state: the line where each setting was first seen in the current file (to
 * refuse duplicates) and whether a list was assigned during this load (the first
 * assignment replaces the default instead of appending to it). */
typedef struct
{
  unsigned *line_seen;
  bool *list_assigned;
} load_state;

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
                          EBB_CONF_GOT_MAX, line);
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
    ebb_conf_clear_field (s, obj); /* the first assignment replaces the default list */
  st->list_assigned[i] = true;
  if ((r = ebb_conf_assign (s, obj, value, err)) < 0)
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
      ebb_conf_strv_append (&names, de->d_name);
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
