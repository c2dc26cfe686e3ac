/* ebbctl job ID: GET /v1/jobs/{id}, the job and a table of its tasks. */
#include "config.h"

#include "cli/ebbctl.h"
#include "lib/util.h"

int
ebbctl_job (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 1, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_check_id ("job id", argv[first], &err) < 0)
    return ebbctl_fail (cmd, &err);
  cleanup_free char *path = ebb_xasprintf ("/v1/jobs/%s", argv[first]);
  json_object *o = NULL;
  int rc = ebbctl_call (ctx, false, "GET", path, NULL, &o);
  if (rc == EBBCTL_EXIT_OK)
    {
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else
        {
          ebbctl_print_kv (ctx->out, o, NULL);
          fputc ('\n', ctx->out);
          ebbctl_job_tasks_table (ctx, o);
        }
    }
  json_object_put (o);
  return rc;
}
