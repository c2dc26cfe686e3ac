/* ebbctl drain NAME / undrain NAME: POST /v1/nodes/{name}/drain or /undrain. */
#include "config.h"

#include "cli/ebbctl.h"
#include "lib/util.h"

int
ebbctl_drain (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 1, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_check_id ("node name", argv[first], &err) < 0)
    return ebbctl_fail (cmd, &err);
  /* cmd->name is "drain" or "undrain", the last segment of the route. */
  cleanup_free char *path = ebb_xasprintf ("/v1/nodes/%s/%s", argv[first], cmd->name);
  json_object *o = NULL;
  int rc = ebbctl_call (ctx, false, "POST", path, NULL, &o);
  if (rc == EBBCTL_EXIT_OK)
    {
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else
        {
          const char *state = ebbctl_str (o, "state");
          char buf[64];
          fprintf (ctx->out, "%s: %s\n", argv[first],
                   ebbctl_clean (buf, sizeof buf, state ? state : cmd->name));
        }
    }
  json_object_put (o);
  return rc;
}
