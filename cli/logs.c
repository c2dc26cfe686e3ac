/* ebbctl --agent URL logs ID [-f] [--tail N]: GET /v1/tasks/{id}/logs of an agent, the task's
 * output written to stdout as it comes (with -f until the task ends). Through the controller
 * (JOB[-TASK]) comes next. */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

typedef struct
{
  bool follow;
  bool tailed;
  uint64_t tail_lines;
} logs_args;

static int
on_opt (int val, const char *arg, void *data, ebb_error **err)
{
  logs_args *l = data;
  if (val == EBBCTL_O_FOLLOW)
    {
      l->follow = true;
      return 0;
    }
  l->tailed = true;
  /* The agent's bound (agent/logs.h): said here, before any call. */
  return ebbctl_parse_uint ("--tail", arg, 0, 1000000, &l->tail_lines, err);
}

int
ebbctl_logs (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  logs_args l = { 0 };
  int first = ebbctl_parse_cmd (cmd, argc, argv, on_opt, &l, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_want_args (cmd, argc, first, 1, &err) < 0
      || ebbctl_check_id ("task id", argv[first], &err) < 0)
    return ebbctl_fail (cmd, &err);
  char tail[32] = "";
  if (l.tailed)
    snprintf (tail, sizeof tail, "tail=%" PRIu64, l.tail_lines);
  cleanup_free char *path
      = ebb_xasprintf ("/v1/tasks/%s/logs%s%s%s%s", argv[first], l.tailed || l.follow ? "?" : "",
                       tail, l.tailed && l.follow ? "&" : "", l.follow ? "follow=1" : "");
  return ebbctl_call_stream (ctx, true, path, ctx->out);
}
