/* JSON helpers over json-c.
 *
 * json-c is lenient where a REST API must not be: json_object_get_int() turns "5" into 5,
 * 5.5 into 5 and true into 1, and the parser saturates 99999999999999999999 to INT64_MAX.
 * Everything here checks the JSON type first, checks ranges, and refuses overflowed numbers
 * at parse time, so a handler reading a request through these helpers (or a schema) sees
 * only values it asked for. Errors name the field:
 *   field "cpu_millis": must be an integer in [1, 1048576], got "abc"
 * with code EBB_EPARSE (wrong type, malformed, unknown, missing) or EBB_ERANGE (bounds).
 */
#ifndef EBB_JSON_H
#define EBB_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

/* How ebb serializes JSON everywhere: compact, and '/' not escaped as "\/" (json-c escapes it
 * by default; paths such as cgroup directories must stay readable and greppable). Every
 * json_object_to_json_string*() call in the tree passes these flags (tests/test-json.c). */
#define EBB_JSON_TO_STRING_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* The longest part of a bad value quoted back in an error message: enough to recognize it. */
#define EBB_JSON_GOT_MAX 64

/* Nesting depth allowed by default: ebb's documents are a few levels deep. */
#define EBB_JSON_MAX_DEPTH 32

/* Parses len bytes (need not be NUL-terminated) as exactly one JSON value, optionally
 * surrounded by whitespace: strict syntax, UTF-8 validated, arrays and objects nested at
 * most max_depth deep (<= 0: EBB_JSON_MAX_DEPTH). Also refused, though json-c lets them
 * through: integers that overflow 64 bits, NaN and Infinity, single-quoted keys, and
 * duplicate keys in an object. Returns a new reference, or NULL with *err (EBB_EPARSE:
 * "invalid JSON at offset N: reason", "trailing garbage at offset N", "JSON nested deeper
 * than N", "invalid JSON: duplicate key in an object"; EBB_ERANGE: "number out of range:
 * 99999999999999999999"). */
struct json_object *ebb_json_parse (const char *buf, size_t len, int max_depth, ebb_error **err);

/* A string validator: returns 0, or negative with *err set to a reason alone
 * ("must be an id of [A-Za-z0-9._-]"); the caller prefixes the field. */
typedef int (*ebb_json_str_validator) (const char *value, ebb_error **err);

/* A validator for ebb_id_is_valid() ids (length is bounded separately by max_len).
 * Returns 0 for an id, or -EBB_EPARSE with *err holding the reason. */
int ebb_json_validate_id (const char *value, ebb_error **err);

/* A validator for a container engine's name, as the API spells it: exactly "docker" or
 * "podman" (case and spaces count). Returns 0 for one of them, or -EBB_EPARSE with *err
 * holding the reason (NULL is refused too). */
int ebb_json_validate_runtime (const char *value, ebb_error **err);

/* Typed getters on a member of an object. Each returns 1 when the member is present and
 * valid (*out set), 0 when it is absent (or obj is not an object; *out untouched, no
 * error) and negative with *err naming the field when it has the wrong type or range.
 * JSON null is a wrong type for numbers, booleans and env objects; for strings and string
 * arrays it reads as absent, so what ebb_json_add_string/_strv() write for NULL reads back
 * as NULL (schemas do the same: a null optional string is absent, a null required one is
 * "is required"). */

/* An integer (JSON integer only, not "5", 5.5 or true) in [min, max]. */
int ebb_json_get_int64 (struct json_object *obj, const char *key, int64_t min, int64_t max,
                        int64_t *out, ebb_error **err);
/* A non-negative integer in [min, max] (up to UINT64_MAX). */
int ebb_json_get_uint64 (struct json_object *obj, const char *key, uint64_t min, uint64_t max,
                         uint64_t *out, ebb_error **err);
/* A signal a process may be told with, the value v of member key: a name ("SIGUSR1",
 * "USR1") or a number, not one it cannot catch (SIGKILL, SIGSTOP), not beyond SIGRTMAX.
 * Returns 0 and *out, or -EBB_EPARSE / -EBB_ERANGE with *err ("field \"KEY\": ..."). */
int ebb_json_signal (struct json_object *v, const char *key, int *out, ebb_error **err);
/* A finite number (integer or not) in [min, max]. */
int ebb_json_get_double (struct json_object *obj, const char *key, double min, double max,
                         double *out, ebb_error **err);
/* The dependency edges of a DAG job (ebb-sim's traces, the controller's POST /v1/jobs): arr
 * an array of at most max [parent, child] pairs of integers in [0, n). Sets *edges (2 x
 * *nedges values, to free; NULL when arr is NULL) and returns 0; -EBB_EPARSE or -EBB_ERANGE
 * with *err ("dep K: ..."). Cycles and repeated edges are the caller's to judge. */
int ebb_json_parse_edges (struct json_object *arr, uint32_t n, uint32_t max, uint32_t **edges,
                          uint32_t *nedges, ebb_error **err);
/* true or false. */
int ebb_json_get_bool (struct json_object *obj, const char *key, bool *out, ebb_error **err);
/* A string of at most max_len bytes (0: any) without NUL, passing validate (optional).
 * *out is borrowed from obj. */
int ebb_json_get_string (struct json_object *obj, const char *key, size_t max_len,
                         ebb_json_str_validator validate, const char **out, ebb_error **err);
/* An array of at most max_items (0: any) strings, each as ebb_json_get_string() checks.
 * *out is a new NULL-terminated list (free with ebb_strv_free from lib/conf.h). */
int ebb_json_get_strv (struct json_object *obj, const char *key, size_t max_items, size_t max_len,
                       ebb_json_str_validator validate, char ***out, ebb_error **err);
/* An object of string values (an environment): at most max_items entries, keys
 * non-empty without '=' or NUL, values without NUL, each "KEY=VALUE" at most max_len
 * (0: any). *out is a new NULL-terminated list of "KEY=VALUE", ready for execve(). */
int ebb_json_get_env (struct json_object *obj, const char *key, size_t max_items, size_t max_len,
                      char ***out, ebb_error **err);

/* Schemas: validate an object against a table of fields and, given a struct, store each
 * field into it at its offset. Absent optional fields leave the struct untouched, so the
 * caller puts defaults there first. */
typedef enum
{
  EBB_JSON_STRING, /* char * (owned copy); max_len, validate */
  EBB_JSON_BOOL,   /* bool */
  EBB_JSON_INT64,  /* int64_t in [min, max] (both 0: any) */
  EBB_JSON_UINT64, /* uint64_t in [umin, umax] (umax 0: UINT64_MAX) */
  EBB_JSON_DOUBLE, /* double in [dmin, dmax] (both 0: any finite) */
  EBB_JSON_ENUM,   /* int: a string, one of enums */
  EBB_JSON_STRV,   /* char ** (owned, NULL-terminated); max_items, max_len, validate */
  EBB_JSON_ENV,    /* char ** of "KEY=VALUE" (owned); max_items, max_len */
  EBB_JSON_OBJECT, /* with schema: validated (and stored) recursively; without: any object */
  EBB_JSON_ARRAY,  /* any array, not stored; max_items */
  EBB_JSON_ANY,    /* any value, not stored */
} ebb_json_type;

typedef struct
{
  const char *name;
  int value;
} ebb_json_enum;

struct ebb_json_schema;

typedef struct ebb_json_field
{
  const char *name;
  ebb_json_type type;
  bool required;
  size_t offset; /* offsetof (struct, member) where the value is stored */
  int64_t min, max;
  uint64_t umin, umax;
  double dmin, dmax;
  size_t max_len, max_items;
  ebb_json_str_validator validate;
  const ebb_json_enum *enums;           /* ENUM: terminated by { NULL, 0 } */
  const struct ebb_json_schema *schema; /* OBJECT: nested schema, stored at offset */
} ebb_json_field;

typedef struct ebb_json_schema
{
  const ebb_json_field *fields;
  size_t n_fields;
  bool allow_unknown; /* false: a member not in fields is an error */
} ebb_json_schema;

/* Validates obj against schema; when out is non-NULL, stores every present field of a
 * storable type into out. Returns 0, or negative with *err naming the first bad field
 * ('field "limits.cpu_millis": ...', 'field "x": unknown field', 'field "x": is
 * required', or 'must be an object, got ...' for a non-object). On failure, what was
 * already stored stays in out: free it with ebb_json_schema_free(). */
int ebb_json_schema_apply (const ebb_json_schema *schema, struct json_object *obj, void *out,
                           ebb_error **err);

/* Frees the strings and lists stored by ebb_json_schema_apply() (recursively) and sets
 * them to NULL. */
void ebb_json_schema_free (const ebb_json_schema *schema, void *out);

/* Building responses: add a member to obj (taking no ownership of the arguments).
 * add_string stores JSON null for a NULL s; add_strv an array (null for NULL). */
void ebb_json_add_string (struct json_object *obj, const char *key, const char *s);
void ebb_json_add_int64 (struct json_object *obj, const char *key, int64_t v);
void ebb_json_add_uint64 (struct json_object *obj, const char *key, uint64_t v);
void ebb_json_add_double (struct json_object *obj, const char *key, double v);
void ebb_json_add_bool (struct json_object *obj, const char *key, bool v);
void ebb_json_add_strv (struct json_object *obj, const char *key, char *const *strv);

/* Returns a new string holding obj serialized compactly (free it), never NULL. */
char *ebb_json_to_string (struct json_object *obj);

#endif
