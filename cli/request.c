/* The commands that are one request and its answer (status, nodes, node, drain, undrain, jobs,
 * job, kill, tasks, task, resume; jobs and suspend after their own options): the command table
 * names an ebbctl_request, and these functions parse the argument, call and print. */
#include "config.h"

#include "cli/ebbctl.h"
#include "lib/util.h"

int
ebbctl_request_send (ebbctl_ctx *ctx, bool agent, const ebbctl_request *req, const char *arg,
                     json_object *body)
{
  cleanup_free char *path = ebb_xasprintf ("%s%s%s%s%s", req->path, arg ? "/" : "", arg ? arg : "",
                                           req->tail ? "/" : "", req->tail ? req->tail : "");
  json_object *o = NULL;
  int rc = req->paged && !agent ? ebbctl_call_pages (ctx, path, req->list, &o)
                                : ebbctl_call (ctx, agent, req->method, path, body, &o);
  if (rc == EBBCTL_EXIT_OK && req->filter)
    req->filter (ctx, req, o);
  if (rc == EBBCTL_EXIT_OK)
    {
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else if (ctx->output == EBBCTL_OUT_NAME)
        ebbctl_print_names (ctx, req->list ? ebbctl_list (o, req->list) : o);
      else
        rc = (req->print ? req->print : ebbctl_print_answer_kv) (ctx, req, arg, o);
    }
  json_object_put (o);
  return rc;
}

/* The id (or else the name) of obj, sanitised, on one line. */
static void
print_name (ebbctl_ctx *ctx, json_object *obj)
{
  char buf[64], clean[160];
  const char *v = ebbctl_member (obj, "id") ? ebbctl_cell (obj, "id", buf, sizeof buf)
                                            : ebbctl_str (obj, "name");
  if (v)
    fprintf (ctx->out, "%s\n", ebbctl_clean (clean, sizeof clean, v));
}

void
ebbctl_print_names (ebbctl_ctx *ctx, json_object *obj)
{
  if (json_object_is_type (obj, json_type_array))
    for (size_t i = 0; i < json_object_array_length (obj); i++)
      print_name (ctx, json_object_array_get_idx (obj, i));
  else
    print_name (ctx, obj);
}

int
ebbctl_request_run (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  const ebbctl_request *req = cmd->request;
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, req->arg_what ? 1 : 0, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  const char *arg = req->arg_what ? argv[first] : NULL;
  if (arg && ebbctl_check_id (req->arg_what, arg, &err) < 0)
    return ebbctl_fail (cmd, &err);
  return ebbctl_request_send (ctx, cmd->agent, req, arg, NULL);
}

/* The filter of a jobs request: the jobs of the list that ebbctl_jobs_filter rejects are
 * dropped (from --json's answer too). */
static void
filter_jobs (ebbctl_ctx *ctx, const ebbctl_request *req, json_object *answer)
{
  const ebbctl_jobs_filter *f = req->data;
  json_object *list = ebbctl_list (answer, "jobs");
  for (size_t i = list ? json_object_array_length (list) : 0; i-- > 0;)
    if (!ebbctl_jobs_filter_match (f, json_object_array_get_idx (list, i)))
      json_object_array_del_idx (list, i, 1);
  /* An empty table by default: say where the finished jobs are (kubectl: "No resources
   * found"); on stderr, so that scripts reading stdout see the table alone. */
  if (list && json_object_array_length (list) == 0 && !ctx->json && !f->all && !f->state
      && !f->klass && !f->name)
    fputs ("ebbctl: no unfinished jobs (ebbctl jobs --all lists the finished ones)\n", stderr);
}

int
ebbctl_jobs (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  ebbctl_jobs_filter f = { 0 };
  int first = ebbctl_parse_cmd (cmd, argc, argv, ebbctl_jobs_filter_opt, &f, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_want_args (cmd, argc, first, 0, &err) < 0)
    return ebbctl_fail (cmd, &err);
  /* Active jobs by default (kubectl get pods leaves out the completed ones unless asked;
   * squeue shows what is queued and running). The controller filters those: its pages hold
   * the unfinished jobs only (all in its memory), however many finished ones its store
   * keeps; class, name and a finished state are filtered here. */
  ebbctl_request req = *cmd->request;
  if (!ebbctl_jobs_filter_wants_finished (&f))
    req.path = "/v1/jobs?state=active";
  req.filter = filter_jobs;
  req.data = &f;
  return ebbctl_request_send (ctx, false, &req, NULL, NULL);
}

int
ebbctl_print_answer_kv (ebbctl_ctx *ctx, const ebbctl_request *req EBB_UNUSED,
                        const char *arg EBB_UNUSED, json_object *answer)
{
  ebbctl_print_kv (ctx->out, answer, NULL);
  return EBBCTL_EXIT_OK;
}

int
ebbctl_print_answer_state (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg,
                           json_object *answer)
{
  const char *state = ebbctl_str (answer, "state");
  char buf[64], before[64];
  fprintf (ctx->out, "%s: ", arg);
  /* kill: req->data is the state before. The controller answers once the kills are sent:
   * until the agents confirm them, the job is still running, and is being killed. */
  if (req->data)
    {
      ebbctl_print_state (ctx->out, ctx->color, ebbctl_clean (before, sizeof before, req->data));
      if (ebbctl_job_finished (req->data))
        {
          fputs (" (had ended: nothing to kill)\n", ctx->out);
          return EBBCTL_EXIT_OK;
        }
      fputs (" -> ", ctx->out);
      if (state && !ebbctl_job_finished (state))
        state = "killing";
    }
  ebbctl_print_state (ctx->out, ctx->color,
                      ebbctl_clean (buf, sizeof buf, state ? state : req->fallback));
  fputc ('\n', ctx->out);
  return EBBCTL_EXIT_OK;
}

int
ebbctl_kill (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  int first = ebbctl_simple_args (cmd, argc, argv, 1, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  const char *id = argv[first];
  if (ebbctl_check_id ("job id", id, &err) < 0)
    return ebbctl_fail (cmd, &err);
  /* What is being killed, as scancel -v and kubectl delete say: an unknown job is a 404
   * here, before anything is deleted. */
  cleanup_free char *path = ebb_xasprintf ("/v1/jobs/%s", id);
  json_object *job = NULL;
  int rc = ebbctl_call (ctx, false, "GET", path, NULL, &job);
  if (rc != EBBCTL_EXIT_OK)
    return rc;
  const char *state = ebbctl_str (job, "state");
  ebbctl_request req = *cmd->request;
  req.data = state ? state : "-";
  rc = ebbctl_request_send (ctx, false, &req, id, NULL);
  json_object_put (job);
  return rc;
}

int
ebbctl_print_answer_list (ebbctl_ctx *ctx, const ebbctl_request *req, const char *arg EBB_UNUSED,
                          json_object *answer)
{
  json_object *list = ebbctl_list (answer, req->list);
  if (!list)
    {
      fprintf (stderr, "ebbctl %s: the answer holds no list of %s\n", req->list, req->list);
      return EBBCTL_EXIT_FAILURE;
    }
  req->table (ctx, list);
  return EBBCTL_EXIT_OK;
}
