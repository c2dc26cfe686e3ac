/* ebbctl logs JOB[-TASK] [-f] [--tail N]: GET /v1/jobs/JOB/tasks/TASK/logs of the
 * controller (TASK 0 when left out), which streams it from the task's agent; with --agent
 * (or EBB_AGENT), ebbctl logs ID asks that agent for its task ID directly
 * (GET /v1/tasks/ID/logs). The output goes to stdout as it comes (with -f until the task
 * ends). */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
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

/* See ebbctl.h. */
char *
ebbctl_job_task_path (const char *arg, ebb_error **err)
{
  uint64_t job = 0, k = 0;
  const char *dash = strchr (arg, '-');
  cleanup_free char *j = ebb_xstrdup (arg);
  if (dash)
    j[dash - arg] = '\0';
  if (ebbctl_parse_uint ("job id", j, 1, UINT64_MAX, &job, err) < 0
      || (dash && ebbctl_parse_uint ("task index", dash + 1, 0, UINT32_MAX, &k, err) < 0))
    return NULL;
  return ebb_xasprintf ("%" PRIu64 "/tasks/%" PRIu64, job, k);
}

int
ebbctl_logs (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  logs_args l = { 0 };
  int first = ebbctl_parse_cmd (cmd, argc, argv, on_opt, &l, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_want_args (cmd, argc, first, 1, &err) < 0)
    return ebbctl_fail (cmd, &err);
  cleanup_free char *task
      = ctx->agent_given ? ebb_xstrdup (argv[first]) : ebbctl_job_task_path (argv[first], &err);
  if (!task || (ctx->agent_given && ebbctl_check_id ("task id", task, &err) < 0))
    return ebbctl_fail (cmd, &err);
  char tail[32] = "";
  if (l.tailed)
    snprintf (tail, sizeof tail, "tail=%" PRIu64, l.tail_lines);
  cleanup_free char *path
      = ebb_xasprintf ("%s%s/logs%s%s%s%s", ctx->agent_given ? "/v1/tasks/" : "/v1/jobs/", task,
                       l.tailed || l.follow ? "?" : "", tail, l.tailed && l.follow ? "&" : "",
                       l.follow ? "follow=1" : "");
  return ebbctl_call_stream (ctx, ctx->agent_given, path, ctx->out);
}
