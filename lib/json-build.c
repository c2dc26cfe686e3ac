/* Building JSON: members added to an object (NULL strings as null) and the compact text. */
#include "config.h"
#include "lib/json.h"
#include "lib/util.h"

void
ebb_json_add_string (struct json_object *obj, const char *key, const char *s)
{
  json_object_object_add (obj, key, s ? json_object_new_string (s) : NULL);
}

void
ebb_json_add_int64 (struct json_object *obj, const char *key, int64_t v)
{
  json_object_object_add (obj, key, json_object_new_int64 (v));
}

void
ebb_json_add_uint64 (struct json_object *obj, const char *key, uint64_t v)
{
  json_object_object_add (obj, key, json_object_new_uint64 (v));
}

void
ebb_json_add_double (struct json_object *obj, const char *key, double v)
{
  json_object_object_add (obj, key, json_object_new_double (v));
}

void
ebb_json_add_bool (struct json_object *obj, const char *key, bool v)
{
  json_object_object_add (obj, key, json_object_new_boolean (v));
}

void
ebb_json_add_strv (struct json_object *obj, const char *key, char *const *strv)
{
  if (!strv)
    {
      json_object_object_add (obj, key, NULL);
      return;
    }
  struct json_object *a = json_object_new_array ();
  for (size_t i = 0; strv[i]; i++)
    json_object_array_add (a, json_object_new_string (strv[i]));
  json_object_object_add (obj, key, a);
}

char *
ebb_json_to_string (struct json_object *obj)
{
  return ebb_xstrdup (json_object_to_json_string_ext (obj, EBB_JSON_TO_STRING_FLAGS));
}
