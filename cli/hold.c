/* ebbctl suspend|resume JOB[-TASK]: the operator's hold through the controller (issue 22,
 * like `scontrol suspend JOBID`): POST /v1/jobs/JOB[/tasks/TASK]/suspend or /resume. The
 * controller records it in its decision log and its policy never resumes a held task. An
 * agent's task id (jJOB-tTASK-gGEN), or --agent, keeps the agent-level call (debugging). */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

/* See ebbctl.h. */
bool
ebbctl_hold_wanted (const ebbctl_ctx *ctx, const char *arg)
{
  return !ctx->agent_given && isdigit ((unsigned char)arg[0]);
}

/* "ID: STATE[, held]" for each task the call named (req->data: one task's "JOB-TASK"; NULL:
 * every running or suspended task of the job). */
static int
print_held (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg, json_object *answer)
{
  (void)arg;
  json_object *tasks = ebbctl_list (answer, "tasks");
  for (size_t i = 0; tasks && i < json_object_array_length (tasks); i++)
    {
      json_object *t = json_object_array_get_idx (tasks, i);
      const char *id = ebbctl_str (t, "id"), *state = ebbctl_str (t, "state");
      if (!id || !state
          || (req->data ? strcmp (id, req->data) != 0
                        : strcmp (state, "running") != 0 && strcmp (state, "suspended") != 0))
        continue;
      char ib[64], sb[64];
      fprintf (ctx->out, "%s: ", ebbctl_clean (ib, sizeof ib, id));
      ebbctl_print_state (ctx->out, ctx->color, ebbctl_clean (sb, sizeof sb, state));
      /* Its call is on its way: "running, held" is being suspended, "suspended" resumed. */
      json_object *h = ebbctl_member (t, "held");
      bool held = h && json_object_get_boolean (h);
      fputs (held ? ", held\n"
             : strcmp (req->tail, "resume") == 0 && strcmp (state, "suspended") == 0
                 ? ", resuming\n"
                 : "\n",
             ctx->out);
    }
  return EBBCTL_EXIT_OK;
}

/* See ebbctl.h. */
int
ebbctl_hold_send (ebbctl_ctx *ctx, const char *arg, bool hold, ebb_error **err)
{
  uint64_t job = 0;
  const char *dash = strchr (arg, '-');
  cleanup_free char *path = dash ? ebbctl_job_task_path (arg, err) : NULL;
  if (dash && !path)
    return -EINVAL;
  if (!dash && ebbctl_parse_uint ("job id", arg, 1, UINT64_MAX, &job, err) < 0)
    return -EINVAL;
  cleanup_free char *task = NULL;
  if (dash)
    task = ebb_xasprintf ("%.*s-%s", (int)(dash - arg), arg, dash + 1);
  ebbctl_request req = { .method = "POST",
                         .path = "/v1/jobs",
                         .tail = hold ? "suspend" : "resume",
                         .print = print_held,
                         .data = task };
  return ebbctl_request_send (ctx, false, &req, path ? path : arg, NULL);
}

/* resume ID: the agent's resume of its task ID (--agent), or the controller's of
 * JOB[-TASK]. */
int
ebbctl_resume (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  static const ebbctl_request agent_req = { .method = "POST",
                                            .path = "/v1/tasks",
                                            .tail = "resume",
                                            .arg_what = "task id",
                                            .print = ebbctl_print_answer_state };
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 1, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  const char *arg = argv[first];
  if (ebbctl_hold_wanted (ctx, arg))
    {
      int rc = ebbctl_hold_send (ctx, arg, false, &err);
      return rc == -EINVAL ? ebbctl_fail (cmd, &err) : rc;
    }
  if (ebbctl_check_id ("task id", arg, &err) < 0)
    return ebbctl_fail (cmd, &err);
  return ebbctl_request_send (ctx, true, &agent_req, arg, NULL);
}

/* See ebbctl.h. */
const char *
ebbctl_held_state (char *buf, size_t size, json_object *obj)
{
  const char *state = ebbctl_str (obj, "state");
  json_object *h = ebbctl_member (obj, "held");
  if (h) /* a task */
    {
      snprintf (buf, size, "%s%s", state ? state : "-",
                json_object_get_boolean (h) ? " (held)" : "");
      return buf;
    }
  /* A job: "suspended" when no task of it runs, starts or waits but some are suspended. */
  json_object *st = ebbctl_member (obj, "task_states");
  double run = ebbctl_num (st, "running", 0) + ebbctl_num (st, "starting", 0);
  double sus = ebbctl_num (st, "suspended", 0), held = ebbctl_num (obj, "held_tasks", 0);
  if (state && strcmp (state, "running") == 0 && run == 0 && sus > 0
      && ebbctl_num (st, "pending", 0) == 0)
    state = "suspended";
  if (held <= 0)
    snprintf (buf, size, "%s", state ? state : "-");
  else if (held >= run + sus)
    snprintf (buf, size, "%s (held)", state);
  else
    snprintf (buf, size, "%s (%.0f held)", state, held);
  return buf;
}
