/* The POST of suspend and resume on an agent's task, and how its answer is printed. */
#include "config.h"

#include "cli/ebbctl.h"
#include "lib/util.h"

int
ebbctl_task_op (ebbctl_ctx *ctx, const char *id, const char *op, json_object *body)
{
  cleanup_free char *path = ebb_xasprintf ("/v1/tasks/%s/%s", id, op);
  json_object *o = NULL;
  int rc = ebbctl_call (ctx, true, "POST", path, body, &o);
  if (rc == EBBCTL_EXIT_OK)
    {
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else
        {
          char buf[64];
          fprintf (ctx->out, "%s: %s\n", id,
                   ebbctl_clean (buf, sizeof buf, ebbctl_str (o, "state")));
        }
    }
  json_object_put (o);
  return rc;
}
