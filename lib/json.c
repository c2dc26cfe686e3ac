/* Reading checked values out of parsed JSON: one field at a time (ebb_json_get_*) or a
 * whole object against a schema. */
#include "config.h"
#include "lib/json.h"
#include "lib/conf.h"
#include "lib/util.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <string.h>

/* Writes v as compact JSON, cut to EBB_JSON_GOT_MAX bytes, for "got ..." in messages. */
static void
got_text (struct json_object *v, char *buf, size_t size)
{
  const char *s = json_object_to_json_string_ext (v, EBB_JSON_TO_STRING_FLAGS);
  size_t len = strlen (s);
  snprintf (buf, size, "%.*s%s", EBB_JSON_GOT_MAX, s, len > EBB_JSON_GOT_MAX ? "..." : "");
}

/* Sets 'field "NAME": WHAT, got VALUE'. Returns -code. */
static int
bad_field (ebb_error **err, int code, const char *name, struct json_object *v, const char *what)
{
  char got[EBB_JSON_GOT_MAX + 4];
  got_text (v, got, sizeof got);
  return ebb_error_set (err, code, "field \"%s\": %s, got %s", name, what, got);
}

/* The messages of the range checks, written only on the error path: a trace reader calls
 * the checks for every number, and formatting them eagerly was a tenth of reading a DAG
 * trace. */
static int
bad_int64 (ebb_error **err, int code, const char *name, struct json_object *v, int64_t min,
           int64_t max)
{
  char what[96];
  if (min == INT64_MIN && max == INT64_MAX)
    snprintf (what, sizeof what, "must be an integer");
  else
    snprintf (what, sizeof what, "must be an integer in [%" PRId64 ", %" PRId64 "]", min, max);
  return bad_field (err, code, name, v, what);
}

static int
bad_uint64 (ebb_error **err, int code, const char *name, struct json_object *v, uint64_t min,
            uint64_t max)
{
  char what[96];
  if (min == 0 && max == UINT64_MAX)
    snprintf (what, sizeof what, "must be a non-negative integer");
  else
    snprintf (what, sizeof what, "must be an integer in [%" PRIu64 ", %" PRIu64 "]", min, max);
  return bad_field (err, code, name, v, what);
}

static int
bad_double (ebb_error **err, int code, const char *name, struct json_object *v, double min,
            double max)
{
  char what[96];
  if (min == 0 && max == 0)
    snprintf (what, sizeof what, "must be a number");
  else
    snprintf (what, sizeof what, "must be a number in [%g, %g]", min, max);
  return bad_field (err, code, name, v, what);
}

static int
check_int64 (struct json_object *v, const char *name, int64_t min, int64_t max, int64_t *out,
             ebb_error **err)
{
  if (!json_object_is_type (v, json_type_int))
    return bad_int64 (err, EBB_EPARSE, name, v, min, max);
  int64_t i = json_object_get_int64 (v);
  /* json-c keeps integers above INT64_MAX as uint64 and saturates get_int64 */
  bool above = i == INT64_MAX && json_object_get_uint64 (v) > (uint64_t)INT64_MAX;
  if (above || i < min || i > max)
    return bad_int64 (err, EBB_ERANGE, name, v, min, max);
  *out = i;
  return 0;
}

static int
check_uint64 (struct json_object *v, const char *name, uint64_t min, uint64_t max, uint64_t *out,
              ebb_error **err)
{
  if (!json_object_is_type (v, json_type_int))
    return bad_uint64 (err, EBB_EPARSE, name, v, min, max);
  if (json_object_get_int64 (v) < 0)
    return bad_uint64 (err, EBB_ERANGE, name, v, min, max);
  uint64_t u = json_object_get_uint64 (v);
  if (u < min || u > max)
    return bad_uint64 (err, EBB_ERANGE, name, v, min, max);
  *out = u;
  return 0;
}

static int
check_double (struct json_object *v, const char *name, double min, double max, double *out,
              ebb_error **err)
{
  bool any = min == 0 && max == 0;
  if (!json_object_is_type (v, json_type_int) && !json_object_is_type (v, json_type_double))
    return bad_double (err, EBB_EPARSE, name, v, min, max);
  double d = json_object_get_double (v);
  if (!isfinite (d) || (!any && (d < min || d > max)))
    return bad_double (err, EBB_ERANGE, name, v, min, max);
  *out = d;
  return 0;
}

static int
check_bool (struct json_object *v, const char *name, bool *out, ebb_error **err)
{
  if (!json_object_is_type (v, json_type_boolean))
    return bad_field (err, EBB_EPARSE, name, v, "must be true or false");
  *out = json_object_get_boolean (v);
  return 0;
}

static int
check_string (struct json_object *v, const char *name, size_t max_len,
              ebb_json_str_validator validate, const char **out, ebb_error **err)
{
  if (!json_object_is_type (v, json_type_string))
    return bad_field (err, EBB_EPARSE, name, v, "must be a string");
  const char *s = json_object_get_string (v);
  size_t len = (size_t)json_object_get_string_len (v);
  if (strlen (s) != len)
    return ebb_error_set (err, EBB_EPARSE, "field \"%s\": must not contain NUL", name);
  if (max_len && len > max_len)
    return ebb_error_set (err, EBB_ERANGE, "field \"%s\": must be at most %zu bytes, got %zu", name,
                          max_len, len);
  if (validate && validate (s, err) < 0)
    {
      ebb_error_set (err, EBB_EPARSE, "invalid");
      return ebb_error_wrap (err, "field \"%s\"", name);
    }
  *out = s;
  return 0;
}

static int
check_strv (struct json_object *v, const char *name, size_t max_items, size_t max_len,
            ebb_json_str_validator validate, char ***out, ebb_error **err)
{
  if (!json_object_is_type (v, json_type_array))
    return bad_field (err, EBB_EPARSE, name, v, "must be an array of strings");
  size_t n = json_object_array_length (v);
  if (max_items && n > max_items)
    return ebb_error_set (err, EBB_ERANGE, "field \"%s\": must have at most %zu items, got %zu",
                          name, max_items, n);
  char **strv = ebb_xcalloc (n + 1, sizeof *strv);
  for (size_t i = 0; i < n; i++)
    {
      cleanup_free char *item = ebb_xasprintf ("%s[%zu]", name, i);
      const char *s = NULL;
      int r = check_string (json_object_array_get_idx (v, i), item, max_len, validate, &s, err);
      if (r < 0)
        {
          ebb_strv_free (strv);
          return r;
        }
      strv[i] = ebb_xstrdup (s);
    }
  *out = strv;
  return 0;
}

static int
check_env_entry (const char *name, const char *key, struct json_object *val, size_t max_len,
                 char **out, ebb_error **err)
{
  cleanup_free char *item = ebb_xasprintf ("%s.%s", name, key);
  if (!*key || strchr (key, '='))
    return ebb_error_set (err, EBB_EPARSE,
                          "field \"%s\": a variable name must be non-empty without \"=\"", item);
  const char *s = NULL;
  int r = check_string (val, item, 0, NULL, &s, err);
  if (r < 0)
    return r;
  char *kv = ebb_xasprintf ("%s=%s", key, s);
  if (strlen (kv) != strlen (key) + 1 + strlen (s) || (max_len && strlen (kv) > max_len))
    {
      free (kv);
      return ebb_error_set (err, EBB_ERANGE, "field \"%s\": must be at most %zu bytes", item,
                            max_len);
    }
  *out = kv;
  return 0;
}

static int
check_env (struct json_object *v, const char *name, size_t max_items, size_t max_len, char ***out,
           ebb_error **err)
{
  if (!json_object_is_type (v, json_type_object))
    return bad_field (err, EBB_EPARSE, name, v, "must be an object of strings");
  size_t n = (size_t)json_object_object_length (v);
  if (max_items && n > max_items)
    return ebb_error_set (err, EBB_ERANGE, "field \"%s\": must have at most %zu entries, got %zu",
                          name, max_items, n);
  char **strv = ebb_xcalloc (n + 1, sizeof *strv);
  size_t i = 0;
  json_object_object_foreach (v, key, val)
  {
    int r = check_env_entry (name, key, val, max_len, &strv[i], err);
    if (r < 0)
      {
        ebb_strv_free (strv);
        return r;
      }
    i++;
  }
  *out = strv;
  return 0;
}

/* Looks key up in obj. Returns true when present (*v may then be NULL: JSON null), false
 * when absent or when obj is not an object. */
static bool
member (struct json_object *obj, const char *key, struct json_object **v)
{
  *v = NULL;
  return json_object_is_type (obj, json_type_object) && json_object_object_get_ex (obj, key, v);
}

int
ebb_json_get_int64 (struct json_object *obj, const char *key, int64_t min, int64_t max,
                    int64_t *out, ebb_error **err)
{
  struct json_object *v;
  if (!member (obj, key, &v))
    return 0;
  int r = check_int64 (v, key, min, max, out, err);
  return r < 0 ? r : 1;
}

int
ebb_json_get_uint64 (struct json_object *obj, const char *key, uint64_t min, uint64_t max,
                     uint64_t *out, ebb_error **err)
{
  struct json_object *v;
  if (!member (obj, key, &v))
    return 0;
  int r = check_uint64 (v, key, min, max, out, err);
  return r < 0 ? r : 1;
}

/* See json.h. */
int
ebb_json_parse_edges (struct json_object *arr, uint32_t n, uint32_t max, uint32_t **edges,
                      uint32_t *nedges, ebb_error **err)
{
  *edges = NULL;
  *nedges = 0;
  if (!arr)
    return 0;
  if (!json_object_is_type (arr, json_type_array))
    return ebb_error_set (err, EBB_EPARSE, "deps must be an array of [parent, child] pairs");
  size_t m = json_object_array_length (arr);
  if (m > max)
    return ebb_error_set (err, EBB_ERANGE, "deps: at most %" PRIu32 " edges", max);
  uint32_t *e = ebb_xmalloc ((m ? m : 1) * 2 * sizeof *e);
  for (size_t k = 0; k < m; k++)
    {
      struct json_object *x = json_object_array_get_idx (arr, k);
      if (!json_object_is_type (x, json_type_array) || json_object_array_length (x) != 2)
        {
          free (e);
          return ebb_error_set (err, EBB_EPARSE, "dep %zu is not a [parent, child] pair", k);
        }
      for (int s = 0; s < 2; s++)
        {
          struct json_object *y = json_object_array_get_idx (x, s);
          int64_t v = json_object_is_type (y, json_type_int) ? json_object_get_int64 (y) : -1;
          if (v < 0 || v >= n)
            {
              free (e);
              return ebb_error_set (err, EBB_ERANGE,
                                    "dep %zu: task index must be in [0, %" PRIu32 ")", k, n);
            }
          e[2 * k + s] = (uint32_t)v;
        }
    }
  *edges = e;
  *nedges = (uint32_t)m;
  return 0;
}

int
ebb_json_get_double (struct json_object *obj, const char *key, double min, double max, double *out,
                     ebb_error **err)
{
  struct json_object *v;
  if (!member (obj, key, &v))
    return 0;
  int r = check_double (v, key, min, max, out, err);
  return r < 0 ? r : 1;
}

int
ebb_json_get_bool (struct json_object *obj, const char *key, bool *out, ebb_error **err)
{
  struct json_object *v;
  if (!member (obj, key, &v))
    return 0;
  int r = check_bool (v, key, out, err);
  return r < 0 ? r : 1;
}

int
ebb_json_get_string (struct json_object *obj, const char *key, size_t max_len,
                     ebb_json_str_validator validate, const char **out, ebb_error **err)
{
  struct json_object *v;
  if (!member (obj, key, &v) || !v)
    return 0; /* null reads as absent: ebb_json_add_string() writes NULL as null */
  int r = check_string (v, key, max_len, validate, out, err);
  return r < 0 ? r : 1;
}

int
ebb_json_get_strv (struct json_object *obj, const char *key, size_t max_items, size_t max_len,
                   ebb_json_str_validator validate, char ***out, ebb_error **err)
{
  struct json_object *v;
  if (!member (obj, key, &v) || !v)
    return 0; /* null reads as absent: ebb_json_add_strv() writes NULL as null */
  int r = check_strv (v, key, max_items, max_len, validate, out, err);
  return r < 0 ? r : 1;
}

int
ebb_json_get_env (struct json_object *obj, const char *key, size_t max_items, size_t max_len,
                  char ***out, ebb_error **err)
{
  struct json_object *v;
  if (!member (obj, key, &v))
    return 0;
  int r = check_env (v, key, max_items, max_len, out, err);
  return r < 0 ? r : 1;
}

int
ebb_json_validate_id (const char *value, ebb_error **err)
{
  if (!ebb_id_is_valid (value, SIZE_MAX))
    return ebb_error_set (err, EBB_EPARSE,
                          "must be an id of A-Z a-z 0-9 . _ - (not \".\" or \"..\")");
  return 0;
}

int
ebb_json_validate_runtime (const char *value, ebb_error **err)
{
  if (value && (strcmp (value, "docker") == 0 || strcmp (value, "podman") == 0))
    return 0;
  return ebb_error_set (err, EBB_EPARSE, "must be \"docker\" or \"podman\"");
}

#define SLOT(out, f, T) ((T *)(void *)((char *)(out) + (f)->offset))

static int schema_apply_at (const ebb_json_schema *schema, struct json_object *obj,
                            const char *prefix, void *out, ebb_error **err);

static void
store_strv (const ebb_json_field *f, void *out, char **strv)
{
  if (!out)
    {
      ebb_strv_free (strv);
      return;
    }
  ebb_strv_free (*SLOT (out, f, char **));
  *SLOT (out, f, char **) = strv;
}

static int
apply_enum (const ebb_json_field *f, struct json_object *v, const char *name, void *out,
            ebb_error **err)
{
  char what[256];
  size_t off = (size_t)snprintf (what, sizeof what, "must be one of");
  for (const ebb_json_enum *e = f->enums; e && e->name && off < sizeof what; e++)
    off += (size_t)snprintf (what + off, sizeof what - off, "%s \"%s\"", e == f->enums ? "" : ",",
                             e->name);
  if (!json_object_is_type (v, json_type_string))
    return bad_field (err, EBB_EPARSE, name, v, what);
  for (const ebb_json_enum *e = f->enums; e && e->name; e++)
    if (strcmp (e->name, json_object_get_string (v)) == 0)
      {
        if (out)
          *SLOT (out, f, int) = e->value;
        return 0;
      }
  return bad_field (err, EBB_EPARSE, name, v, what);
}

static int
apply_string (const ebb_json_field *f, struct json_object *v, const char *name, void *out,
              ebb_error **err)
{
  const char *s = NULL;
  int r = check_string (v, name, f->max_len, f->validate, &s, err);
  if (r < 0 || !out)
    return r;
  free (*SLOT (out, f, char *));
  *SLOT (out, f, char *) = ebb_xstrdup (s);
  return 0;
}

static int
apply_number (const ebb_json_field *f, struct json_object *v, const char *name, void *out,
              ebb_error **err)
{
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  bool b = false;
  int r;
  switch (f->type)
    {
    case EBB_JSON_BOOL:
      if ((r = check_bool (v, name, &b, err)) == 0 && out)
        *SLOT (out, f, bool) = b;
      return r;
    case EBB_JSON_INT64:
      r = f->min == 0 && f->max == 0 ? check_int64 (v, name, INT64_MIN, INT64_MAX, &i, err)
                                     : check_int64 (v, name, f->min, f->max, &i, err);
      if (r == 0 && out)
        *SLOT (out, f, int64_t) = i;
      return r;
    case EBB_JSON_UINT64:
      r = check_uint64 (v, name, f->umin, f->umax ? f->umax : UINT64_MAX, &u, err);
      if (r == 0 && out)
        *SLOT (out, f, uint64_t) = u;
      return r;
    default:
      if ((r = check_double (v, name, f->dmin, f->dmax, &d, err)) == 0 && out)
        *SLOT (out, f, double) = d;
      return r;
    }
}

/* Validates (and stores) one present field. name is its full path ("limits.cpu"). */
static int
apply_field (const ebb_json_field *f, struct json_object *v, const char *name, void *out,
             ebb_error **err)
{
  char **strv = NULL;
  int r = 0;
  switch (f->type)
    {
    case EBB_JSON_STRING:
      return apply_string (f, v, name, out, err);
    case EBB_JSON_ENUM:
      return apply_enum (f, v, name, out, err);
    case EBB_JSON_STRV:
      if ((r = check_strv (v, name, f->max_items, f->max_len, f->validate, &strv, err)) == 0)
        store_strv (f, out, strv);
      return r;
    case EBB_JSON_ENV:
      if ((r = check_env (v, name, f->max_items, f->max_len, &strv, err)) == 0)
        store_strv (f, out, strv);
      return r;
    case EBB_JSON_OBJECT:
      if (!json_object_is_type (v, json_type_object))
        return bad_field (err, EBB_EPARSE, name, v, "must be an object");
      if (!f->schema)
        return 0;
      return schema_apply_at (f->schema, v, name, out ? (char *)out + f->offset : NULL, err);
    case EBB_JSON_ARRAY:
      if (!json_object_is_type (v, json_type_array))
        return bad_field (err, EBB_EPARSE, name, v, "must be an array");
      if (f->max_items && json_object_array_length (v) > f->max_items)
        return ebb_error_set (err, EBB_ERANGE, "field \"%s\": must have at most %zu items, got %zu",
                              name, f->max_items, json_object_array_length (v));
      return 0;
    case EBB_JSON_ANY:
      return 0;
    default:
      return apply_number (f, v, name, out, err);
    }
}

static const ebb_json_field *
find_field (const ebb_json_schema *schema, const char *name)
{
  for (size_t i = 0; i < schema->n_fields; i++)
    if (strcmp (schema->fields[i].name, name) == 0)
      return &schema->fields[i];
  return NULL;
}

static int
schema_apply_at (const ebb_json_schema *schema, struct json_object *obj, const char *prefix,
                 void *out, ebb_error **err)
{
  for (size_t i = 0; i < schema->n_fields; i++)
    {
      const ebb_json_field *f = &schema->fields[i];
      cleanup_free char *name
          = *prefix ? ebb_xasprintf ("%s.%s", prefix, f->name) : ebb_xstrdup (f->name);
      struct json_object *v;
      bool null_is_absent = f->type == EBB_JSON_STRING || f->type == EBB_JSON_STRV;
      if (!member (obj, f->name, &v) || (!v && null_is_absent))
        {
          if (f->required)
            return ebb_error_set (err, EBB_EPARSE, "field \"%s\": is required", name);
          continue;
        }
      int r = apply_field (f, v, name, out, err);
      if (r < 0)
        return r;
    }
  if (schema->allow_unknown)
    return 0;
  json_object_object_foreach (obj, key, val)
  {
    (void)val;
    if (!find_field (schema, key))
      return ebb_error_set (err, EBB_EPARSE, "field \"%s%s%.*s\": unknown field", prefix,
                            *prefix ? "." : "", EBB_JSON_GOT_MAX, key);
  }
  return 0;
}

int
ebb_json_schema_apply (const ebb_json_schema *schema, struct json_object *obj, void *out,
                       ebb_error **err)
{
  if (!json_object_is_type (obj, json_type_object))
    {
      char got[EBB_JSON_GOT_MAX + 4];
      got_text (obj, got, sizeof got);
      return ebb_error_set (err, EBB_EPARSE, "must be a JSON object, got %s", got);
    }
  return schema_apply_at (schema, obj, "", out, err);
}

void
ebb_json_schema_free (const ebb_json_schema *schema, void *out)
{
  for (size_t i = 0; out && i < schema->n_fields; i++)
    {
      const ebb_json_field *f = &schema->fields[i];
      if (f->type == EBB_JSON_STRING)
        {
          free (*SLOT (out, f, char *));
          *SLOT (out, f, char *) = NULL;
        }
      else if (f->type == EBB_JSON_STRV || f->type == EBB_JSON_ENV)
        {
          ebb_strv_free (*SLOT (out, f, char **));
          *SLOT (out, f, char **) = NULL;
        }
      else if (f->type == EBB_JSON_OBJECT && f->schema)
        ebb_json_schema_free (f->schema, (char *)out + f->offset);
    }
}
