/* ebbctl kill JOB: DELETE /v1/jobs/{id}. */
#include "config.h"

#include "cli/ebbctl.h"
#include "lib/util.h"

int
ebbctl_kill (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 1, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_check_id ("job id", argv[first], &err) < 0)
    return ebbctl_fail (cmd, &err);
  cleanup_free char *path = ebb_xasprintf ("/v1/jobs/%s", argv[first]);
  json_object *o = NULL;
  int rc = ebbctl_call (ctx, false, "DELETE", path, NULL, &o);
  if (rc == EBBCTL_EXIT_OK)
    {
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else
        {
          const char *state = ebbctl_str (o, "state");
          char buf[64];
          fprintf (ctx->out, "%s: %s\n", argv[first],
                   ebbctl_clean (buf, sizeof buf, state ? state : "killed"));
        }
    }
  json_object_put (o);
  return rc;
}
