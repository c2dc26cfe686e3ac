/* Adopted tasks in POST /v1/jobs: a task {"adopt": {...}} takes an existing container or
 * cgroup on one node instead of launching a command. The adopt object uses the agent's
 * names (POST /v1/tasks/adopt): "node" (required), then "container" (with an optional
 * "runtime", docker or podman) or "cgroup" (an absolute path). cpu_millis and memory_bytes
 * are optional beside it: without them the task's allocation comes from what the agent
 * reports (the container's ebb.cpu/ebb.memory labels or its cgroup's limits). Validation
 * happens in two steps: the body alone (ebb_ctl_adopt_parse_task), then against the
 * cluster (ebb_ctl_adopt_check), both before anything changes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "lib/json.h"
#include "lib/util.h"

#define CONTAINER_MAX_BYTES 128 /* the agent's limit */
#define CGROUP_MAX_BYTES    4096
#define NODE_MAX_BYTES      128

static int
validate_abs (const char *v, ebb_error **err)
{
  if (v[0] != '/')
    return ebb_error_set (err, EBB_EPARSE, "must be an absolute path");
  return 0;
}

/* Checks the adopt object a of task i (syntax only). */
static int
parse_adopt (json_object *a, const char *where, ebb_error **err)
{
  static const char *const keys[] = { "node", "container", "runtime", "cgroup", NULL };
  if (!json_object_is_type (a, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "%sfield \"adopt\": an object is required", where);
  cleanup_free char *in = ebb_xasprintf ("%sadopt: ", where);
  if (ebb_ctl_api_only_keys (a, keys, in, err) < 0)
    return -EBB_EPARSE;
  const char *node = NULL, *container = NULL, *runtime = NULL, *cgroup = NULL;
  if (ebb_json_get_string (a, "node", NODE_MAX_BYTES, NULL, &node, err) < 0
      || ebb_json_get_string (a, "container", CONTAINER_MAX_BYTES, ebb_json_validate_id, &container,
                              err)
             < 0
      || ebb_json_get_string (a, "runtime", 8, ebb_json_validate_runtime, &runtime, err) < 0
      || ebb_json_get_string (a, "cgroup", CGROUP_MAX_BYTES, validate_abs, &cgroup, err) < 0)
    return ebb_error_wrap (err, "%sadopt", where), -EBB_EPARSE;
  if (!node || !*node)
    return ebb_error_set (err, EBB_EPARSE, "%sfield \"adopt.node\" is required", where);
  if (!container == !cgroup)
    return ebb_error_set (
        err, EBB_EPARSE, "%sadopt: exactly one of \"container\" and \"cgroup\" is required", where);
  if (runtime && !container)
    return ebb_error_set (err, EBB_EPARSE, "%sadopt: \"runtime\" goes with \"container\" only",
                          where);
  return 0;
}

/* See ctl.h. */
json_object *
ebb_ctl_adopt_parse_task (json_object *o, size_t i, ebb_error **err)
{
  /* No argv, env or cwd: nothing is launched. */
  static const char *const keys[] = { "adopt", "cpu_millis", "memory_bytes", NULL };
  cleanup_free char *where = ebb_xasprintf ("tasks[%zu]: ", i);
  json_object *a = NULL;
  if (!json_object_is_type (o, json_type_object) || !json_object_object_get_ex (o, "adopt", &a))
    return ebb_error_set (err, EBB_EPARSE, "%sfield \"adopt\" is required", where), NULL;
  if (ebb_ctl_api_only_keys (o, keys, where, err) < 0 || parse_adopt (a, where, err) < 0)
    return NULL;
  uint64_t v;
  if (ebb_json_get_uint64 (o, "cpu_millis", EBB_CTL_CPU_MILLIS_MIN, EBB_AGENT_CPU_MILLIS_MAX_CTL,
                           &v, err)
          < 0
      || ebb_json_get_uint64 (o, "memory_bytes", EBB_CTL_MEMORY_BYTES_MIN, EBB_CTL_MEMORY_BYTES_MAX,
                              &v, err)
             < 0)
    return ebb_error_wrap (err, "tasks[%zu]", i), NULL;
  json_object *spec = NULL;
  json_object_deep_copy (o, &spec, NULL);
  return spec;
}
