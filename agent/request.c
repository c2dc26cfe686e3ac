/* Request validation: every field type- and range-checked, unknown fields refused, before
 * anything changes (a bad request changes nothing). Pure functions over json-c objects. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "agent/request.h"
#include "lib/conf.h"
#include "lib/json.h"
#include "lib/util.h"

#define REQUEST_ID_MAX 128

static int
validate_class (const char *v, ebb_error **err)
{
  if (strcmp (v, "short") == 0 || strcmp (v, "long") == 0)
    return 0;
  return ebb_error_set (err, EBB_EPARSE, "must be \"short\" or \"long\"");
}

static int
validate_mode (const char *v, ebb_error **err)
{
  if (strcmp (v, "immediate") == 0 || strcmp (v, "graceful") == 0)
    return 0;
  return ebb_error_set (err, EBB_EPARSE, "must be \"immediate\" or \"graceful\"");
}

/* A user or group: a name as useradd(8) allows it, or a numeric id. */
static int
validate_account (const char *v, ebb_error **err)
{
  if (!v[0] || v[0] == '-')
    return ebb_error_set (err, EBB_EPARSE, "must be a user or group name or a numeric id");
  for (const char *p = v; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')
          || *p == '_' || *p == '-' || *p == '.'))
      return ebb_error_set (err, EBB_EPARSE, "must be a user or group name or a numeric id");
  return 0;
}

static int
validate_abs (const char *v, ebb_error **err)
{
  if (v[0] != '/')
    return ebb_error_set (err, EBB_EPARSE, "must be an absolute path");
  return 0;
}

#define F_STR(name, req, st, mem, maxlen, val)                                                     \
  {                                                                                                \
    name, EBB_JSON_STRING, req, offsetof (st, mem), 0, 0, 0, 0, 0, 0, maxlen, 0, val, NULL, NULL   \
  }
#define F_U64(name, req, st, mem, lo, hi)                                                          \
  {                                                                                                \
    name, EBB_JSON_UINT64, req, offsetof (st, mem), 0, 0, lo, hi, 0, 0, 0, 0, NULL, NULL, NULL     \
  }

static const ebb_json_field launch_fields[] = {
  F_STR ("id", true, ebb_agent_launch_req, id, EBB_AGENT_ID_MAX, ebb_json_validate_id),
  { "argv", EBB_JSON_STRV, true, offsetof (ebb_agent_launch_req, argv), 0, 0, 0, 0, 0, 0,
    EBB_AGENT_MAX_ARG_BYTES, EBB_AGENT_MAX_ARGV, NULL, NULL, NULL },
  { "env", EBB_JSON_ENV, false, offsetof (ebb_agent_launch_req, env), 0, 0, 0, 0, 0, 0,
    EBB_AGENT_MAX_ARG_BYTES, EBB_AGENT_MAX_ENV, NULL, NULL, NULL },
  F_STR ("cwd", false, ebb_agent_launch_req, cwd, EBB_AGENT_MAX_PATH, validate_abs),
  F_U64 ("cpu_millis", true, ebb_agent_launch_req, cpu_millis, EBB_AGENT_CPU_MILLIS_MIN,
         EBB_AGENT_CPU_MILLIS_MAX),
  F_U64 ("memory_bytes", true, ebb_agent_launch_req, memory_bytes, EBB_AGENT_MEMORY_BYTES_MIN,
         EBB_AGENT_MEMORY_BYTES_MAX),
  F_STR ("job", true, ebb_agent_launch_req, job, EBB_AGENT_ID_MAX, ebb_json_validate_id),
  F_STR ("class", true, ebb_agent_launch_req, cls, 5, validate_class),
  F_STR ("request_id", false, ebb_agent_launch_req, request_id, REQUEST_ID_MAX,
         ebb_json_validate_id),
  F_U64 ("generation", false, ebb_agent_launch_req, generation, 1, UINT64_MAX),
  F_STR ("user", false, ebb_agent_launch_req, user, 64, validate_account),
  F_STR ("group", false, ebb_agent_launch_req, group, 64, validate_account),
  F_U64 ("time_limit_sec", false, ebb_agent_launch_req, time_limit_sec, 1,
         EBB_AGENT_TIME_LIMIT_SEC_MAX),
  /* A name or a number: checked by ebb_json_signal(). */
  { "notify_signal", EBB_JSON_ANY, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL },
};
static const ebb_json_schema launch_schema
    = { launch_fields, EBB_ARRAY_SIZE (launch_fields), false };

/* A step's "booked": the task's holding before it, as the scheduler counts it (at least the
 * step, at most what a task may be given). */
static const ebb_json_field booked_fields[] = {
  F_U64 ("cpu_millis", false, ebb_agent_booked, cpu_millis, 1, EBB_AGENT_CPU_MILLIS_MAX),
  F_U64 ("memory_bytes", false, ebb_agent_booked, memory_bytes, 1, EBB_AGENT_MEMORY_BYTES_MAX),
};
static const ebb_json_schema booked_schema
    = { booked_fields, EBB_ARRAY_SIZE (booked_fields), false };

static const ebb_json_field suspend_fields[] = {
  F_STR ("mode", true, ebb_agent_suspend_req, mode, 9, validate_mode),
  F_U64 ("cpu_millis", false, ebb_agent_suspend_req, cpu_millis, 0, EBB_AGENT_CPU_MILLIS_MAX),
  F_U64 ("memory_bytes", false, ebb_agent_suspend_req, memory_bytes, 0, EBB_AGENT_MEMORY_BYTES_MAX),
  { "booked", EBB_JSON_OBJECT, false, offsetof (ebb_agent_suspend_req, booked), 0, 0, 0, 0, 0, 0, 0,
    0, NULL, NULL, &booked_schema },
  F_STR ("request_id", false, ebb_agent_suspend_req, request_id, REQUEST_ID_MAX,
         ebb_json_validate_id),
  F_U64 ("generation", false, ebb_agent_suspend_req, generation, 1, UINT64_MAX),
};
static const ebb_json_schema suspend_schema
    = { suspend_fields, EBB_ARRAY_SIZE (suspend_fields), false };

static const ebb_json_field adopt_fields[] = {
  F_STR ("container", false, ebb_agent_adopt_req, container, 128, ebb_json_validate_id),
  F_STR ("cgroup", false, ebb_agent_adopt_req, cgroup, EBB_AGENT_MAX_PATH, validate_abs),
  F_STR ("runtime", false, ebb_agent_adopt_req, runtime, 6, ebb_json_validate_runtime),
  F_STR ("id", false, ebb_agent_adopt_req, id, EBB_AGENT_ID_MAX, ebb_json_validate_id),
  F_STR ("job", false, ebb_agent_adopt_req, job, EBB_AGENT_ID_MAX, ebb_json_validate_id),
  F_STR ("class", false, ebb_agent_adopt_req, cls, 5, validate_class),
  F_U64 ("cpu_millis", false, ebb_agent_adopt_req, cpu_millis, 0, EBB_AGENT_CPU_MILLIS_MAX),
  F_U64 ("memory_bytes", false, ebb_agent_adopt_req, memory_bytes, 0, EBB_AGENT_MEMORY_BYTES_MAX),
  F_STR ("request_id", false, ebb_agent_adopt_req, request_id, REQUEST_ID_MAX,
         ebb_json_validate_id),
  F_U64 ("generation", false, ebb_agent_adopt_req, generation, 1, UINT64_MAX),
};
static const ebb_json_schema adopt_schema = { adopt_fields, EBB_ARRAY_SIZE (adopt_fields), false };

static const ebb_json_field simple_fields[] = {
  F_STR ("request_id", false, ebb_agent_simple_req, request_id, REQUEST_ID_MAX,
         ebb_json_validate_id),
  F_U64 ("grace_millis", false, ebb_agent_simple_req, grace_millis, 0, 600000),
  F_U64 ("generation", false, ebb_agent_simple_req, generation, 1, UINT64_MAX),
};
static const ebb_json_schema simple_schema
    = { simple_fields, EBB_ARRAY_SIZE (simple_fields), false };

/* Parses a launch request. */
int
ebb_agent_parse_launch (json_object *obj, ebb_agent_launch_req *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (!obj)
    return ebb_error_set (err, EBB_EPARSE, "a JSON body is required");
  int r = ebb_json_schema_apply (&launch_schema, obj, out, err);
  if (r < 0)
    return r;
  if (!out->argv[0])
    return ebb_error_set (err, EBB_EPARSE, "field \"argv\": must not be empty");
  if (out->argv[0][0] == '\0')
    return ebb_error_set (err, EBB_EPARSE, "field \"argv\": argv[0] must not be empty");
  json_object *sig;
  if (json_object_object_get_ex (obj, "notify_signal", &sig))
    return ebb_json_signal (sig, "notify_signal", &out->notify_signal, err);
  return 0;
}

/* Whether entry ("KEY=VALUE") sets one of the names the agent gives every task. */
static bool
is_task_var (const char *entry)
{
  static const char *const names[] = { "EBB_JOB_ID=", "EBB_TASK_ID=", "EBB_CLASS=" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (names); i++)
    if (strncmp (entry, names[i], strlen (names[i])) == 0)
      return true;
  return false;
}

/* The task's environment: the caller's (or the default), what names the task last and
 * always from the launch itself (a caller cannot pass itself off as another job). */
char **
ebb_agent_task_env (const ebb_agent_launch_req *req)
{
  static char *const default_env[] = { "PATH=" EBB_AGENT_DEFAULT_PATH, "HOME=/", NULL };
  char *const *env = req->env ? req->env : default_env;
  size_t n = ebb_strv_length (env), o = 0;
  char **out = ebb_xcalloc (n + 4, sizeof *out);
  for (size_t i = 0; i < n; i++)
    if (!is_task_var (env[i]))
      out[o++] = ebb_xstrdup (env[i]);
  out[o++] = ebb_xasprintf ("EBB_JOB_ID=%s", req->job);
  out[o++] = ebb_xasprintf ("EBB_TASK_ID=%s", req->id);
  out[o++] = ebb_xasprintf ("EBB_CLASS=%s", req->cls);
  return out;
}

/* Frees what a launch request holds. */
void
ebb_agent_launch_req_clear (ebb_agent_launch_req *r)
{
  ebb_json_schema_free (&launch_schema, r);
}

/* Checks one resource of a step's "booked": given only with a step of that resource, and
 * at least the step (a step takes a part of what the task holds). */
static int
check_booked (const char *name, uint64_t step, uint64_t booked, ebb_error **err)
{
  if (booked && !step)
    return ebb_error_set (err, EBB_EPARSE, "field \"booked.%s\": only with a step of \"%s\"", name,
                          name);
  if (booked && step > booked)
    return ebb_error_set (err, EBB_ERANGE,
                          "field \"%s\": a step of %llu is more than \"booked.%s\" (%llu)", name,
                          (unsigned long long)step, name, (unsigned long long)booked);
  return 0;
}

/* Parses a suspend request: graceful needs a step, and may say what the task holds before
 * it ("booked"); immediate takes neither. */
int
ebb_agent_parse_suspend (json_object *obj, ebb_agent_suspend_req *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (!obj)
    return ebb_error_set (err, EBB_EPARSE, "a JSON body is required");
  int r = ebb_json_schema_apply (&suspend_schema, obj, out, err);
  if (r < 0)
    return r;
  out->graceful = strcmp (out->mode, "graceful") == 0;
  bool has_step = json_object_object_get_ex (obj, "cpu_millis", NULL)
                  || json_object_object_get_ex (obj, "memory_bytes", NULL);
  bool has_booked = json_object_object_get_ex (obj, "booked", NULL);
  if (!out->graceful && (has_step || has_booked))
    return ebb_error_set (err, EBB_EPARSE,
                          "field \"cpu_millis\"/\"memory_bytes\"/\"booked\": only for mode "
                          "\"graceful\"");
  if (out->graceful && out->cpu_millis == 0 && out->memory_bytes == 0)
    return ebb_error_set (err, EBB_EPARSE,
                          "mode \"graceful\" needs \"cpu_millis\" and/or \"memory_bytes\" > 0");
  if (has_booked && out->booked.cpu_millis == 0 && out->booked.memory_bytes == 0)
    return ebb_error_set (err, EBB_EPARSE,
                          "field \"booked\": needs \"cpu_millis\" and/or \"memory_bytes\"");
  if ((r = check_booked ("cpu_millis", out->cpu_millis, out->booked.cpu_millis, err)) < 0)
    return r;
  return check_booked ("memory_bytes", out->memory_bytes, out->booked.memory_bytes, err);
}

/* Frees what a suspend request holds. */
void
ebb_agent_suspend_req_clear (ebb_agent_suspend_req *r)
{
  ebb_json_schema_free (&suspend_schema, r);
}

/* Parses an adopt request: exactly one of container and cgroup. */
int
ebb_agent_parse_adopt (json_object *obj, ebb_agent_adopt_req *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (!obj)
    return ebb_error_set (err, EBB_EPARSE, "a JSON body is required");
  int r = ebb_json_schema_apply (&adopt_schema, obj, out, err);
  if (r < 0)
    return r;
  if (!!out->container == !!out->cgroup)
    return ebb_error_set (err, EBB_EPARSE, "exactly one of \"container\" and \"cgroup\"");
  if (out->runtime && !out->container)
    return ebb_error_set (err, EBB_EPARSE, "\"runtime\" goes with \"container\" only");
  return 0;
}

/* Frees what an adopt request holds. */
void
ebb_agent_adopt_req_clear (ebb_agent_adopt_req *r)
{
  ebb_json_schema_free (&adopt_schema, r);
}

/* Parses an optional body of {request_id, grace_millis} (resume, delete). */
int
ebb_agent_parse_simple (json_object *obj, ebb_agent_simple_req *out, ebb_error **err)
{
  memset (out, 0, sizeof *out);
  if (!obj)
    return 0;
  int r = ebb_json_schema_apply (&simple_schema, obj, out, err);
  if (r < 0)
    return r;
  return 0;
}

/* Frees what a simple request holds. */
void
ebb_agent_simple_req_clear (ebb_agent_simple_req *r)
{
  ebb_json_schema_free (&simple_schema, r);
}

/* Canonicalizes a cgroup path. */
char *
ebb_agent_cgroup_canon (const char *path, ebb_error **err)
{
  if (!path || path[0] != '/')
    return ebb_error_set (err, EBB_EPARSE, "cgroup path must be absolute"), NULL;
  size_t n = strlen (path);
  if (n > EBB_AGENT_MAX_PATH)
    return ebb_error_set (err, EBB_ERANGE, "cgroup path too long"), NULL;
  char *out = ebb_xmalloc (n + 2);
  size_t o = 0;
  const char *p = path;
  while (*p)
    {
      while (*p == '/')
        p++;
      if (!*p)
        break;
      size_t len = strcspn (p, "/");
      if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
        {
          free (out);
          return ebb_error_set (err, EBB_EREFUSED, "cgroup path may not contain \".\" or \"..\""),
                 NULL;
        }
      for (size_t i = 0; i < len; i++)
        if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f || p[i] == '\\')
          {
            free (out);
            return ebb_error_set (err, EBB_EPARSE, "cgroup path has a forbidden character"), NULL;
          }
      out[o++] = '/';
      memcpy (out + o, p, len);
      o += len;
      p += len;
    }
  if (o == 0)
    out[o++] = '/';
  out[o] = '\0';
  return out;
}

/* Returns true when canon is root or below it. */
bool
ebb_agent_path_under (const char *canon, const char *root)
{
  size_t rl = strlen (root);
  while (rl > 1 && root[rl - 1] == '/')
    rl--;
  if (rl == 1 && root[0] == '/')
    return canon[0] == '/';
  return strncmp (canon, root, rl) == 0 && (canon[rl] == '\0' || canon[rl] == '/');
}
