/* The small encodings of etcd's JSON gateway: base64 keys and values, int64 fields sent as
 * strings, and the range end of a prefix. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/etcd.h"
#include "lib/util.h"

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Returns a new string. */
char *
ebb_etcd_b64 (const void *data, size_t len)
{
  const unsigned char *p = data;
  char *out = ebb_xmalloc (4 * ((len + 2) / 3) + 1), *o = out;
  for (size_t i = 0; i < len; i += 3)
    {
      unsigned v = (unsigned)p[i] << 16;
      if (i + 1 < len)
        v |= (unsigned)p[i + 1] << 8;
      if (i + 2 < len)
        v |= p[i + 2];
      *o++ = b64_chars[(v >> 18) & 63];
      *o++ = b64_chars[(v >> 12) & 63];
      *o++ = i + 1 < len ? b64_chars[(v >> 6) & 63] : '=';
      *o++ = i + 2 < len ? b64_chars[v & 63] : '=';
    }
  *o = '\0';
  return out;
}

static int
b64_value (char c)
{
  const char *p = c ? strchr (b64_chars, c) : NULL;
  return p ? (int)(p - b64_chars) : -1;
}

/* Returns a new string, or NULL when text is not padded base64. */
char *
ebb_etcd_unb64 (const char *text, size_t *len)
{
  size_t n = text ? strlen (text) : 0;
  if (!text || n % 4)
    return NULL;
  char *out = ebb_xmalloc (n / 4 * 3 + 1);
  size_t o = 0;
  for (size_t i = 0; i < n; i += 4)
    {
      int v[4];
      for (int k = 0; k < 4; k++)
        v[k] = b64_value (text[i + k]);
      bool last = i + 4 == n;
      /* '=' only at the end: "xx==" or "xxx=". */
      bool pad2 = last && text[i + 2] == '=' && text[i + 3] == '=';
      bool pad1 = last && !pad2 && text[i + 3] == '=';
      if (v[0] < 0 || v[1] < 0 || (!pad2 && v[2] < 0) || (!pad2 && !pad1 && v[3] < 0))
        {
          free (out);
          return NULL;
        }
      unsigned w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12;
      w |= pad2 ? 0 : (unsigned)v[2] << 6;
      w |= pad2 || pad1 ? 0 : (unsigned)v[3];
      out[o++] = (char)(w >> 16);
      if (!pad2)
        out[o++] = (char)(w >> 8);
      if (!pad2 && !pad1)
        out[o++] = (char)w;
    }
  out[o] = '\0';
  if (len)
    *len = o;
  return out;
}

/* Returns 1 with *out, 0 when absent, or negative with *err. */
int
ebb_etcd_get_int64 (json_object *obj, const char *key, int64_t *out, ebb_error **err)
{
  json_object *v;
  *out = 0;
  if (!obj || !json_object_object_get_ex (obj, key, &v) || !v)
    return 0;
  if (json_object_is_type (v, json_type_int))
    {
      *out = json_object_get_int64 (v);
      return 1;
    }
  const char *s = json_object_is_type (v, json_type_string) ? json_object_get_string (v) : NULL;
  char *end = NULL;
  errno = 0;
  long long n = s && *s && strspn (s, "-0123456789") == strlen (s) ? strtoll (s, &end, 10) : 0;
  if (!s || !end || *end || errno)
    return ebb_error_set (err, EBB_EPARSE, "etcd: %s is not an int64", key);
  *out = n;
  return 1;
}

/* Returns a new string. */
char *
ebb_etcd_prefix_end (const char *prefix)
{
  char *end = ebb_xstrdup (prefix);
  size_t n = strlen (end);
  /* The last byte that is not 0xff, incremented; the rest dropped (etcd's GetPrefixRangeEnd).
   * A prefix of only 0xff bytes has none: "" (etcd's "\0", to the end of the key space, is not
   * a C string; ebb's prefixes are printable). */
  while (n > 0 && (unsigned char)end[n - 1] == 0xff)
    n--;
  if (n == 0)
    {
      end[0] = '\0';
      return end;
    }
  end[n - 1] = (char)((unsigned char)end[n - 1] + 1);
  end[n] = '\0';
  return end;
}
