/* POST /v1/jobs/{id}/suspend and /resume (each running or suspended task of the job), and
 * POST /v1/jobs/{id}/tasks/{k}/suspend and /resume (one task): the operator's hold and
 * release (issue 22, `ebbctl suspend|resume JOB[-TASK]`, like `scontrol suspend`). A held
 * task stays suspended until resumed so: the policy never resumes it. Idempotent (a task
 * held already is not held again); the answer is the job as GET /v1/jobs/{id} shows it. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ops.h"
#include "lib/util.h"

/* The task index {k} of the path, -1 without one; -2 when it is not a number (answered). */
static int64_t
task_of (ebb_http_request *req, ebb_http_response *resp, const ebb_ctl_job *j)
{
  const char *s = ebb_http_request_capture (req, "k");
  if (!s)
    return -1;
  char *end = NULL;
  unsigned long k = *s >= '0' && *s <= '9' && strlen (s) <= 10 ? strtoul (s, &end, 10) : 0;
  if (!end || *end)
    {
      ebb_http_error (resp, 404, "not_found", "job %" PRIu64 " has no task %s", j->id, s);
      return -2;
    }
  return (int64_t)k;
}

static int
hold_or_release (ebb_http_request *req, ebb_http_response *resp, ebb_ctl *c, bool hold)
{
  ebb_ctl_job *loaded = NULL;
  ebb_ctl_job *j = ebb_ctl_api_job_or_404 (c, req, resp, &loaded);
  int64_t k = j ? task_of (req, resp, j) : -2;
  char who[32];
  ebb_ctl_api_caller (req, who, sizeof who);
  cleanup_error ebb_error *err = NULL;
  /* A job no longer in memory is finished: nothing of it runs. */
  unsigned st = k < -1   ? 0
                : loaded ? (ebb_error_set (&err, EBB_EREFUSED, "job %" PRIu64 " is %s", j->id,
                                           ebb_ctl_job_state_name (j->state)),
                            409)
                         : ebb_ctl_op_hold (c, j, k, hold, who, &err);
  if (k >= -1 && st)
    ebb_ctl_api_bad (c, resp, st, st == 404 ? "not_found" : "conflict", &err);
  else if (k >= -1)
    {
      char task[32] = "";
      if (k >= 0)
        snprintf (task, sizeof task, ", task %" PRId64, k);
      ebb_ctl_api_audit (req, "%s: job %" PRIu64 " (%s)%s", hold ? "suspend" : "resume", j->id,
                         j->name, task);
      ebb_http_reply_json (resp, 200, ebb_ctl_job_json (c, j, true));
    }
  ebb_ctl_job_free (loaded);
  return EBB_HTTP_REPLIED;
}

static int
h_suspend (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return hold_or_release (req, resp, ud, true);
}

static int
h_resume (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return hold_or_release (req, resp, ud, false);
}

/* See api.h. */
const ebb_http_route ebb_ctl_api_hold_routes[] = {
  { "POST", "/v1/jobs/{id}/suspend", h_suspend, 0 },
  { "POST", "/v1/jobs/{id}/resume", h_resume, 0 },
  { "POST", "/v1/jobs/{id}/tasks/{k}/suspend", h_suspend, 0 },
  { "POST", "/v1/jobs/{id}/tasks/{k}/resume", h_resume, 0 },
};
const size_t ebb_ctl_api_hold_n_routes = EBB_ARRAY_SIZE (ebb_ctl_api_hold_routes);
