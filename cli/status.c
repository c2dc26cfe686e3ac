/* ebbctl status: GET /v1/cluster. */
#include "config.h"

#include "cli/ebbctl.h"

int
ebbctl_status (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 0, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  json_object *o = NULL;
  int rc = ebbctl_call (ctx, false, "GET", "/v1/cluster", NULL, &o);
  if (rc == EBBCTL_EXIT_OK)
    {
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else
        ebbctl_print_kv (ctx->out, o, NULL);
    }
  json_object_put (o);
  return rc;
}
