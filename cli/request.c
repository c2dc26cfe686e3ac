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
  if (rc == EBBCTL_EXIT_OK)
    {
      if (ctx->json)
        ebbctl_print_json (ctx, o);
      else
        rc = (req->print ? req->print : ebbctl_print_answer_kv) (ctx, req, arg, o);
    }
  json_object_put (o);
  return rc;
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

static int
jobs_opt (int val, const char *arg, void *data, ebb_error **err)
{
  (void)arg, (void)err;
  if (val == EBBCTL_O_ACTIVE)
    *(bool *)data = true;
  return 0;
}

int
ebbctl_jobs (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  bool active = false;
  int first = ebbctl_parse_cmd (cmd, argc, argv, jobs_opt, &active, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_want_args (cmd, argc, first, 0, &err) < 0)
    return ebbctl_fail (cmd, &err);
  /* The controller filters: the pages hold the unfinished jobs only (all in its memory),
   * however many finished ones its store keeps. */
  ebbctl_request req = *cmd->request;
  if (active)
    req.path = "/v1/jobs?state=active";
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
  char buf[64];
  fprintf (ctx->out, "%s: %s\n", arg,
           ebbctl_clean (buf, sizeof buf, state ? state : req->fallback));
  return EBBCTL_EXIT_OK;
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
