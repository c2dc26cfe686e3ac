/* ebbctl --agent URL suspend ID [--mode immediate|graceful]: POST /v1/tasks/{id}/suspend. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/json.h"

static int
on_opt (int val, const char *arg, void *data, ebb_error **err)
{
  (void)val;
  if (strcmp (arg, "immediate") != 0 && strcmp (arg, "graceful") != 0)
    return ebb_error_set (err, EINVAL, "--mode: want immediate or graceful, got '%s'", arg);
  *(const char **)data = arg;
  return 0;
}

int
ebbctl_suspend (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  const char *mode = "immediate";
  int first = ebbctl_parse_cmd (cmd, argc, argv, on_opt, &mode, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_want_args (cmd, argc, first, 1, &err) < 0
      || ebbctl_check_id ("task id", argv[first], &err) < 0)
    return ebbctl_fail (cmd, &err);
  json_object *body = json_object_new_object ();
  ebb_json_add_string (body, "mode", mode);
  int rc = ebbctl_task_op (ctx, argv[first], "suspend", body);
  json_object_put (body);
  return rc;
}
