/* ebbctl suspend JOB[-TASK]: the operator's hold through the controller (cli/hold.c);
 * ebbctl [--agent URL] suspend ID [--mode immediate|graceful]: POST /v1/tasks/{id}/suspend
 * of an agent (its task id jJOB-tTASK-gGEN; debugging). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/json.h"

typedef struct
{
  const char *mode;
  uint64_t cpu_millis, memory_bytes; /* 0: not given */
} suspend_args;

static int
on_opt (int val, const char *arg, void *data, ebb_error **err)
{
  suspend_args *s = data;
  if (val == EBBCTL_O_CPU)
    return ebbctl_parse_uint ("--cpu", arg, 1, 1048576, &s->cpu_millis, err);
  if (val == EBBCTL_O_MEMORY)
    return ebbctl_parse_size ("--memory", arg, &s->memory_bytes, err);
  if (strcmp (arg, "immediate") != 0 && strcmp (arg, "graceful") != 0)
    return ebb_error_set (err, EINVAL, "--mode: want immediate or graceful, got '%s'", arg);
  s->mode = arg;
  return 0;
}

int
ebbctl_suspend (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  suspend_args s = { .mode = "immediate" };
  int first = ebbctl_parse_cmd (cmd, argc, argv, on_opt, &s, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_want_args (cmd, argc, first, 1, &err) < 0)
    return ebbctl_fail (cmd, &err);
  if (ebbctl_hold_wanted (ctx, argv[first]))
    {
      int rc = s.cpu_millis || s.memory_bytes || strcmp (s.mode, "immediate") != 0
                   ? ebb_error_set (&err, EINVAL,
                                    "--mode, --cpu and --memory are for an agent's task (--agent)")
                   : ebbctl_hold_send (ctx, argv[first], true, &err);
      return rc == -EINVAL ? ebbctl_fail (cmd, &err) : rc;
    }
  if (ebbctl_check_id ("task id", argv[first], &err) < 0)
    return ebbctl_fail (cmd, &err);
  bool graceful = strcmp (s.mode, "graceful") == 0;
  /* The agent needs the amounts of a graceful step; an immediate one takes everything. */
  if (graceful != (s.cpu_millis || s.memory_bytes))
    {
      ebb_error_set (&err, EINVAL,
                     graceful ? "--mode graceful needs --cpu and/or --memory"
                              : "--cpu and --memory are for --mode graceful");
      return ebbctl_fail (cmd, &err);
    }
  json_object *body = json_object_new_object ();
  ebb_json_add_string (body, "mode", s.mode);
  if (s.cpu_millis)
    ebb_json_add_uint64 (body, "cpu_millis", s.cpu_millis);
  if (s.memory_bytes)
    ebb_json_add_uint64 (body, "memory_bytes", s.memory_bytes);
  static const ebbctl_request req = {
    .method = "POST", .path = "/v1/tasks", .tail = "suspend", .print = ebbctl_print_answer_state
  };
  int rc = ebbctl_request_send (ctx, true, &req, argv[first], body);
  json_object_put (body);
  return rc;
}
