/* ebbctl history [--since DURATION] [--state S]: the finished jobs with how long each waited,
 * ran and was suspended, and who submitted it, as Slurm's sacct lists them (issue 23). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/time.h"
#include "lib/util.h"

static const char *const states[] = { "done", "failed", "killed" };

int
ebbctl_history_opt (int val, const char *arg, void *data, ebb_error **err)
{
  ebbctl_history_filter *f = data;
  uint64_t usec = 0;
  switch (val)
    {
    case EBBCTL_O_SINCE:
      if (ebb_parse_duration_usec (arg, 1000000, &usec) < 0)
        return ebb_error_set (err, EINVAL, "--since: want a duration (90s, 2h), got '%s'", arg);
      f->since_sec = (double)usec / 1e6;
      return 0;
    case EBBCTL_O_STATE:
      for (size_t i = 0; i < EBB_ARRAY_SIZE (states); i++)
        if (strcmp (arg, states[i]) == 0)
          {
            f->state = states[i];
            return 0;
          }
      return ebb_error_set (err, EINVAL, "--state: want done, failed or killed, got '%s'", arg);
    default:
      return ebb_error_set (err, EINVAL, "no such option");
    }
}

bool
ebbctl_history_match (const ebbctl_history_filter *f, json_object *job, double now)
{
  const char *state = ebbctl_str (job, "state");
  if (!state || !ebbctl_job_finished (state) || (f->state && strcmp (state, f->state) != 0))
    return false;
  double end = ebbctl_num (job, "finished_at", -1);
  return f->since_sec <= 0 || (end > 0 && end >= now - f->since_sec);
}

/* The finished jobs of the answer that f keeps (from --json's answer too). */
static void
filter (ebbctl_ctx *ctx EBB_UNUSED, const ebbctl_request *req, json_object *answer)
{
  json_object *list = ebbctl_list (answer, "jobs");
  double now = ebbctl_now ();
  for (size_t i = list ? json_object_array_length (list) : 0; i-- > 0;)
    if (!ebbctl_history_match (req->data, json_object_array_get_idx (list, i), now))
      json_object_array_del_idx (list, i, 1);
}

static const char *const header[]
    = { "ID",     "NAME",    "STATE",     "PRIORITY",   "SUBMITTED-BY",
        "WAITED", "RUNTIME", "SUSPENDED", "SUSPENSIONS" };

/* "-" for a member the answer does not have (a controller from before issue 23). */
static const char *
secs (char *buf, size_t size, json_object *j, const char *key)
{
  double v = ebbctl_num (j, key, -1);
  return v < 0 ? "-" : ebbctl_duration (buf, size, v);
}

/* b - a of two members, "-" when either is absent. */
static const char *
between (char *buf, size_t size, json_object *j, const char *a, const char *b)
{
  double x = ebbctl_num (j, a, -1), y = ebbctl_num (j, b, -1);
  return x <= 0 || y <= 0 ? "-" : ebbctl_duration (buf, size, y - x);
}

static void
row (ebbctl_table *t, json_object *j, size_t i EBB_UNUSED)
{
  char id[32], pr[32], w[32], r[32], s[32], n[32];
  const char *cells[] = { ebbctl_cell (j, "id", id, sizeof id),
                          ebbctl_str (j, "name"),
                          ebbctl_str (j, "state"),
                          ebbctl_cell (j, "priority", pr, sizeof pr),
                          ebbctl_str (j, "submitted_by"),
                          between (w, sizeof w, j, "submitted_at", "started_at"),
                          between (r, sizeof r, j, "started_at", "finished_at"),
                          secs (s, sizeof s, j, "suspended_seconds"),
                          ebbctl_cell (j, "suspensions", n, sizeof n) };
  ebbctl_table_add (t, cells);
}

void
ebbctl_history_table (ebbctl_ctx *ctx, json_object *list)
{
  ebbctl_table_print_list (ctx, header, EBB_ARRAY_SIZE (header), list, row);
}

int
ebbctl_history (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  ebbctl_history_filter f = { 0 };
  int first = ebbctl_parse_cmd (cmd, argc, argv, ebbctl_history_opt, &f, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (ebbctl_want_args (cmd, argc, first, 0, &err) < 0)
    return ebbctl_fail (cmd, &err);
  ebbctl_request req = *cmd->request;
  req.filter = filter;
  req.data = &f;
  return ebbctl_request_send (ctx, false, &req, NULL, NULL);
}
