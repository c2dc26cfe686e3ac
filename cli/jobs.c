/* ebbctl jobs: GET /v1/jobs. */
#include "config.h"

#include "cli/ebbctl.h"

int
ebbctl_jobs (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 0, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  json_object *o = NULL;
  int rc = ebbctl_call (ctx, false, "GET", "/v1/jobs", NULL, &o);
  if (rc == EBBCTL_EXIT_OK)
    {
      json_object *list = ebbctl_list (o, "jobs");
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else if (list)
        ebbctl_jobs_table (ctx, list);
      else
        {
          fprintf (stderr, "ebbctl jobs: the answer holds no list of jobs\n");
          rc = EBBCTL_EXIT_FAILURE;
        }
    }
  json_object_put (o);
  return rc;
}
