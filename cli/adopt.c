/* ebbctl adopt [...] NODE (--container NAME [--runtime R] | --cgroup PATH): POST /v1/jobs
 * of one task that adopts an existing container or cgroup on NODE (the controller asks that
 * node's agent), so that the controller schedules it, preempts it and follows it to its
 * end like a task it launched. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/json.h"
#include "lib/util.h"

static int
on_opt (int val, const char *arg, void *data, ebb_error **err)
{
  ebbctl_adopt_args *a = data;
  switch (val)
    {
    case EBBCTL_O_NAME:
      return ebbctl_parse_name (arg, &a->name, err);
    case EBBCTL_O_CLASS:
      if (strcmp (arg, "short") && strcmp (arg, "long"))
        return ebb_error_set (err, EINVAL, "--class: want short or long, got '%s'", arg);
      a->klass = arg;
      return 0;
    case EBBCTL_O_CONTAINER:
      if (!ebb_id_is_valid (arg, 128))
        return ebb_error_set (err, EINVAL, "--container: want a container name or id, got '%s'",
                              arg);
      a->container = arg;
      return 0;
    case EBBCTL_O_RUNTIME:
      if (ebb_json_validate_runtime (arg, NULL) < 0)
        return ebb_error_set (err, EINVAL, "--runtime: want docker or podman, got '%s'", arg);
      a->runtime = arg;
      return 0;
    case EBBCTL_O_CGROUP:
      if (arg[0] != '/')
        return ebb_error_set (err, EINVAL, "--cgroup: want an absolute cgroup path, got '%s'", arg);
      a->cgroup = arg;
      return 0;
    case EBBCTL_O_CPU:
      return ebbctl_parse_uint ("--cpu", arg, 10, 1048576, &a->cpu_millis, err);
    case EBBCTL_O_MEMORY:
      return ebbctl_parse_size ("--memory", arg, &a->memory_bytes, err);
    default:
      return ebb_error_set (err, EINVAL, "unexpected option");
    }
}

int
ebbctl_adopt_parse (const ebbctl_cmd *cmd, int argc, char **argv, ebbctl_adopt_args *out,
                    FILE *help_out, ebb_error **err)
{
  *out = (ebbctl_adopt_args){ .klass = "long" };
  int first = ebbctl_parse_cmd (cmd, argc, argv, on_opt, out, help_out, err);
  if (first < 0)
    return first;
  if (ebbctl_want_args (cmd, argc, first, 1, err) < 0)
    return -EINVAL;
  out->node = argv[first];
  if (!out->node[0])
    return ebb_error_set (err, EINVAL, "the node name is empty");
  if (!out->container == !out->cgroup)
    return ebb_error_set (err, EINVAL, "give exactly one of --container and --cgroup");
  if (out->runtime && !out->container)
    return ebb_error_set (err, EINVAL, "--runtime goes with --container only");
  if (!out->name)
    {
      const char *base = out->container;
      if (!base)
        {
          base = strrchr (out->cgroup, '/') + 1;
          base = ebb_id_is_valid (base, 128) ? base : "adopted";
        }
      out->name = base;
    }
  return 0;
}

json_object *
ebbctl_adopt_body (const ebbctl_adopt_args *a, const char *request_id)
{
  json_object *o = ebbctl_job_body (a->name, a->klass, -1, request_id);
  json_object *ad = json_object_new_object ();
  ebb_json_add_string (ad, "node", a->node);
  if (a->container)
    ebb_json_add_string (ad, "container", a->container);
  if (a->runtime)
    ebb_json_add_string (ad, "runtime", a->runtime);
  if (a->cgroup)
    ebb_json_add_string (ad, "cgroup", a->cgroup);
  json_object *t = json_object_new_object ();
  json_object_object_add (t, "adopt", ad);
  if (a->cpu_millis)
    ebb_json_add_uint64 (t, "cpu_millis", a->cpu_millis);
  if (a->memory_bytes)
    ebb_json_add_uint64 (t, "memory_bytes", a->memory_bytes);
  json_object *tasks = json_object_new_array ();
  json_object_array_add (tasks, t);
  json_object_object_add (o, "tasks", tasks);
  return o;
}

int
ebbctl_adopt (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  ebbctl_adopt_args a;
  int r = ebbctl_adopt_parse (cmd, argc, argv, &a, ctx->out, &err);
  if (r < 0)
    return r == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  char rid[64];
  ebbctl_request_id (rid, sizeof rid);
  return ebbctl_post_job (ctx, ebbctl_adopt_body (&a, rid), true, NULL);
}
