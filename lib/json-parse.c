/* Parsing a JSON document, strictly: one value, bounded depth, and numbers, quotes and
 * duplicate keys json-c would accept silently are errors. */
#include "config.h"
#include "lib/json.h"
#include "lib/util.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <string.h>

/* Finds the first number literal in buf that does not fit 64 bits (or a double), for the
 * message after json-c saturated it. Writes it to lit; returns false when none is found. */
static bool
find_overflow (const char *buf, size_t len, char *lit, size_t size)
{
  for (size_t i = 0; i < len; i++)
    {
      if (buf[i] == '"')
        {
          for (i++; i < len && buf[i] != '"'; i++)
            if (buf[i] == '\\')
              i++;
          continue;
        }
      if (buf[i] != '-' && (buf[i] < '0' || buf[i] > '9'))
        continue;
      size_t n = 0; /* bounded by len: buf need not be NUL-terminated */
      while (i + n < len && strchr ("-+0123456789.eE", buf[i + n]) && buf[i + n])
        n++;
      char tmp[512];
      snprintf (tmp, sizeof tmp, "%.*s", (int)(n < sizeof tmp ? n : sizeof tmp - 1), buf + i);
      errno = 0;
      if (strpbrk (tmp, ".eE"))
        (void)strtod (tmp, NULL);
      else if (tmp[0] == '-')
        (void)strtoll (tmp, NULL, 10);
      else
        (void)strtoull (tmp, NULL, 10);
      if (errno == ERANGE)
        {
          snprintf (lit, size, "%.*s%s", EBB_JSON_GOT_MAX, tmp,
                    strlen (tmp) > EBB_JSON_GOT_MAX ? "..." : "");
          return true;
        }
      i += n - 1;
    }
  return false;
}

/* What a pass over the raw text outside JSON strings finds: the first single quote
 * (json-c accepts 'single-quoted' keys even in strict mode; JSON has none), the number
 * of ':' (one per object member in a document json-c accepted), and the first key with a
 * \u0000 escape (json-c keeps a key as a C string: "A\u0000B" would reach every reader as
 * "A", where a value with a NUL is refused by its field check). */
typedef struct
{
  size_t single_quote; /* offset, or len when there is none */
  size_t colons;
  size_t nul_key; /* offset of the key's opening quote, or len when there is none */
} raw_scan;

/* Scans the string whose opening quote is at buf[i]: returns the offset of its closing
 * quote (or len) and sets *nul when it has a \u0000 escape. */
static size_t
scan_string (const char *buf, size_t len, size_t i, bool *nul)
{
  for (i++; i < len && buf[i] != '"'; i++)
    if (buf[i] == '\\')
      {
        if (i + 5 < len && buf[i + 1] == 'u' && memcmp (buf + i + 2, "0000", 4) == 0)
          *nul = true;
        i++;
      }
  return i;
}

static raw_scan
scan_raw (const char *buf, size_t len)
{
  raw_scan rs = { len, 0, len };
  for (size_t i = 0; i < len; i++)
    {
      if (buf[i] == '\'' && rs.single_quote == len)
        rs.single_quote = i;
      else if (buf[i] == ':')
        rs.colons++;
      else if (buf[i] == '"')
        {
          bool nul = false;
          size_t open = i;
          i = scan_string (buf, len, i, &nul);
          /* a key is the string a ':' follows */
          size_t next = i + 1;
          while (next < len && buf[next] && strchr (" \t\r\n", buf[next]))
            next++;
          if (nul && next < len && buf[next] == ':' && rs.nul_key == len)
            rs.nul_key = open;
        }
    }
  return rs;
}

/* Returns true when the first off bytes of buf parse as one complete JSON value. */
static bool
complete_prefix (const char *buf, size_t off, int depth)
{
  struct json_tokener *tok = json_tokener_new_ex (depth);
  if (!tok)
    return false;
  json_tokener_set_flags (tok, JSON_TOKENER_STRICT);
  struct json_object *o = json_tokener_parse_ex (tok, buf, (int)off);
  if (!o && json_tokener_get_error (tok) == json_tokener_continue)
    o = json_tokener_parse_ex (tok, "", 1);
  json_tokener_free (tok);
  bool ok = o != NULL;
  json_object_put (o);
  return ok;
}

/* Runs the tokener over buf, ending the input as a whole document. Returns the value (or
 * NULL) and *end, the offset where parsing stopped. */
static struct json_object *
tokenize (struct json_tokener *tok, const char *buf, size_t len, size_t *end)
{
  struct json_object *o = json_tokener_parse_ex (tok, buf, (int)len);
  *end = json_tokener_get_parse_end (tok);
  if (!o && json_tokener_get_error (tok) == json_tokener_continue)
    {
      /* a bare number or an incomplete document: a terminating NUL settles which */
      o = json_tokener_parse_ex (tok, "", 1);
      *end = len;
    }
  return o;
}

/* What a walk over a parsed value finds. */
typedef struct
{
  bool nonfinite; /* a NaN or an infinity: json-c accepts them even in strict mode */
  size_t members; /* object members, after json-c merged duplicate keys */
} tree_scan;

/* Returns the nesting depth of containers in v (a scalar is 0) and adds to *ts. json-c's
 * own depth limit counts arrays and objects differently, so the documented limit is
 * checked here; json-c's (one above it) bounds this recursion. */
static int
nesting (struct json_object *v, tree_scan *ts)
{
  int deepest = 0;
  if (json_object_is_type (v, json_type_double) && !isfinite (json_object_get_double (v)))
    ts->nonfinite = true;
  if (json_object_is_type (v, json_type_array))
    {
      for (size_t i = 0; i < json_object_array_length (v); i++)
        {
          int d = nesting (json_object_array_get_idx (v, i), ts);
          deepest = d > deepest ? d : deepest;
        }
      return deepest + 1;
    }
  if (!json_object_is_type (v, json_type_object))
    return 0;
  json_object_object_foreach (v, key, val)
  {
    (void)key;
    ts->members++;
    int d = nesting (val, ts);
    deepest = d > deepest ? d : deepest;
  }
  return deepest + 1;
}

static bool
only_space (const char *p, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
      return false;
  return true;
}

struct json_object *
ebb_json_parse (const char *buf, size_t len, int max_depth, ebb_error **err)
{
  int depth = max_depth > 0 ? max_depth : EBB_JSON_MAX_DEPTH;
  if (!buf || len == 0)
    return ebb_error_set (err, EBB_EPARSE, "invalid JSON: empty document"), NULL;
  if (len >= INT_MAX)
    return ebb_error_set (err, EBB_ERANGE, "JSON document too large"), NULL;
  if (memchr (buf, '\0', len))
    return ebb_error_set (err, EBB_EPARSE, "invalid JSON: NUL byte"), NULL;
  if (only_space (buf, len))
    return ebb_error_set (err, EBB_EPARSE, "invalid JSON: empty document"), NULL;
  struct json_tokener *tok = json_tokener_new_ex (depth + 1);
  if (!tok)
    return ebb_error_set (err, ENOMEM, "json_tokener_new_ex failed"), NULL;
  json_tokener_set_flags (tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
  size_t end = 0;
  errno = 0;
  struct json_object *o = tokenize (tok, buf, len, &end);
  int saved_errno = errno;
  enum json_tokener_error jerr = json_tokener_get_error (tok);
  json_tokener_free (tok);
  char lit[EBB_JSON_GOT_MAX + 4];
  tree_scan ts = { false, 0 };
  int nested = o ? nesting (o, &ts) : 0;
  raw_scan rs = o ? scan_raw (buf, len) : (raw_scan){ len, 0, len };
  if (o && end < len && !only_space (buf + end, len - end))
    ebb_error_set (err, EBB_EPARSE, "trailing garbage at offset %zu", end);
  else if ((!o && jerr == json_tokener_error_depth) || nested > depth)
    ebb_error_set (err, EBB_EPARSE, "JSON nested deeper than %d", depth);
  else if (!o && end > 0 && end < len && complete_prefix (buf, end, depth + 1))
    ebb_error_set (err, EBB_EPARSE, "trailing garbage at offset %zu", end);
  else if (!o)
    ebb_error_set (err, EBB_EPARSE, "invalid JSON at offset %zu: %s", end,
                   json_tokener_error_desc (jerr));
  else if (saved_errno == ERANGE && find_overflow (buf, len, lit, sizeof lit))
    ebb_error_set (err, EBB_ERANGE, "number out of range: %s", lit);
  else if (rs.single_quote < len)
    ebb_error_set (err, EBB_EPARSE, "invalid JSON at offset %zu: single-quoted string",
                   rs.single_quote);
  else if (rs.nul_key < len)
    ebb_error_set (err, EBB_EPARSE, "invalid JSON at offset %zu: NUL (\\u0000) in a key",
                   rs.nul_key);
  else if (ts.nonfinite)
    ebb_error_set (err, EBB_EPARSE, "invalid JSON: NaN and Infinity are not numbers");
  else if (rs.colons != ts.members)
    ebb_error_set (err, EBB_EPARSE, "invalid JSON: duplicate key in an object");
  else
    return o;
  json_object_put (o);
  return NULL;
}

/* See json.h. */
int
ebb_json_signal (struct json_object *v, const char *key, int *out, ebb_error **err)
{
  int64_t n = -1;
  if (json_object_is_type (v, json_type_int))
    n = json_object_get_int64 (v);
  else if (json_object_is_type (v, json_type_string))
    {
      const char *s = json_object_get_string (v);
      if (strncmp (s, "SIG", 3) == 0)
        s += 3;
      for (int sig = 1; sig < NSIG && n < 0; sig++)
        if (sigabbrev_np (sig) && strcmp (s, sigabbrev_np (sig)) == 0)
          n = sig;
      if (n < 0)
        return ebb_error_set (err, EBB_EPARSE, "field \"%s\": unknown signal \"%s\"", key,
                              json_object_get_string (v));
    }
  else
    return ebb_error_set (err, EBB_EPARSE, "field \"%s\": must be a signal name or number", key);
  if (n < 1 || n > SIGRTMAX)
    return ebb_error_set (err, EBB_ERANGE, "field \"%s\": %lld is not a signal", key, (long long)n);
  if (n == SIGKILL || n == SIGSTOP)
    return ebb_error_set (err, EBB_ERANGE, "field \"%s\": SIGKILL and SIGSTOP cannot be handled",
                          key);
  *out = (int)n;
  return 0;
}
