/* ebbctl --agent URL resume ID: POST /v1/tasks/{id}/resume. */
#include "config.h"

#include "cli/ebbctl.h"

int
ebbctl_resume (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 1, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_check_id ("task id", argv[first], &err) < 0)
    return ebbctl_fail (cmd, &err);
  return ebbctl_task_op (ctx, argv[first], "resume", NULL);
}
