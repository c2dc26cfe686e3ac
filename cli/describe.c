/* status, node and job as summaries in the manner of kubectl describe: one "Label:  value"
 * line per fact a person asks about, computed (allocated of capacity, tasks per state, time
 * waited) rather than the API's members dumped; --json has every member. */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

/* "Label:" padded to a column, then the formatted value, sanitised. */
EBB_PRINTF (3, 4)
static void
line (FILE *out, const char *label, const char *fmt, ...)
{
  char v[1024];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (v, sizeof v, fmt, ap);
  va_end (ap);
  ebbctl_sanitize (v);
  fprintf (out, "%-14s%s\n", label, v);
}

/* "State:" in its colour. */
static void
state_line (ebbctl_ctx *ctx, const char *state)
{
  char buf[64];
  fprintf (ctx->out, "%-14s", "State:");
  ebbctl_print_state (ctx->out, ctx->color, ebbctl_clean (buf, sizeof buf, state));
  fputc ('\n', ctx->out);
}

/* "5000m of 6000m allocated (83%)" of member key of allocated and capacity of obj. */
static void
alloc_line (FILE *out, const char *label, json_object *obj, const char *key, bool bytes)
{
  double used = ebbctl_num (ebbctl_member (obj, "allocated"), key, -1);
  double cap = ebbctl_num (ebbctl_member (obj, "capacity"), key, -1);
  if (cap < 0)
    return;
  char a[32], b[32];
  if (bytes)
    ebbctl_bytes (a, sizeof a, used < 0 ? 0 : (uint64_t)used),
        ebbctl_bytes (b, sizeof b, (uint64_t)cap);
  else
    snprintf (a, sizeof a, "%.0fm", used < 0 ? 0 : used), snprintf (b, sizeof b, "%.0fm", cap);
  if (cap > 0 && used >= 0)
    line (out, label, "%s of %s allocated (%.0f%%)", a, b, 100 * used / cap);
  else
    line (out, label, "%s of %s allocated", a, b);
}

/* "2026-11-28 19:00:00 (5m03s ago)", or "-". */
static const char *
when (char *buf, size_t size, json_object *o, const char *key)
{
  double t = ebbctl_num (o, key, -1);
  char ts[32], d[32];
  if (t <= 0)
    return "-";
  snprintf (buf, size, "%s (%s ago)", ebbctl_timestamp (ts, sizeof ts, t),
            ebbctl_duration (d, sizeof d, ebbctl_now () - t));
  return buf;
}

int
ebbctl_print_answer_status (ebbctl_ctx *ctx, const ebbctl_request *req EBB_UNUSED,
                            const char *arg EBB_UNUSED, json_object *cl)
{
  FILE *out = ctx->out;
  char b[64];
  /* Which controller answered: the built-in default is named as such. */
  line (out, "Controller:", "%s%s", ctx->controller,
        ctx->controller_default ? " (the default: no --controller, no EBB_CONTROLLER)" : "");
  /* Replicas (ebb-controller --etcd): which one this is, and who leads at what epoch. */
  const char *role = ebbctl_str (cl, "role");
  json_object *leader = ebbctl_member (cl, "leader");
  if (role)
    line (out, "Role:", "%s", role);
  if (json_object_is_type (leader, json_type_object))
    line (out, "Leader:", "%s (id %s, epoch %.0f)",
          ebbctl_str (leader, "url") ? ebbctl_str (leader, "url") : "-",
          ebbctl_str (leader, "id") ? ebbctl_str (leader, "id") : "-",
          ebbctl_num (leader, "epoch", 0));
  line (out, "Policy:", "%s", ebbctl_cell (cl, "policy", b, sizeof b));
  json_object *nodes = ebbctl_member (cl, "nodes");
  if (json_object_is_type (nodes, json_type_object))
    line (out, "Nodes:", "%.0f: %.0f ready, %.0f draining, %.0f lost",
          ebbctl_num (nodes, "total", 0), ebbctl_num (nodes, "ready", 0),
          ebbctl_num (nodes, "draining", 0), ebbctl_num (nodes, "lost", 0));
  else
    line (out, "Nodes:", "%s", ebbctl_cell (cl, "nodes", b, sizeof b));
  alloc_line (out, "CPU:", cl, "cpu_millis", false);
  alloc_line (out, "Memory:", cl, "memory_bytes", true);
  json_object *q = ebbctl_member (cl, "queued_jobs");
  if (q)
    line (out, "Queued jobs:", "%.0f short, %.0f long, %.0f auto", ebbctl_num (q, "short", 0),
          ebbctl_num (q, "long", 0), ebbctl_num (q, "auto", 0));
  if (ebbctl_member (cl, "jobs"))
    line (out, "Jobs:", "%.0f (%.0f in memory)", ebbctl_num (cl, "jobs", 0),
          ebbctl_num (cl, "jobs_in_memory", 0));
  if (ebbctl_member (cl, "running_tasks"))
    line (out, "Tasks:", "%.0f running, %.0f suspended", ebbctl_num (cl, "running_tasks", 0),
          ebbctl_num (cl, "suspended_tasks", 0));
  line (out, "Preemptions:", "%s", ebbctl_cell (cl, "preemptions", b, sizeof b));
  if (ebbctl_member (cl, "decisions"))
    line (out, "Decisions:", "%s (ebbctl decisions)", ebbctl_cell (cl, "decisions", b, sizeof b));
  /* No slots: a policy-internal count, meaningless for the resource policies (-o json has
   * it). */
  return EBBCTL_EXIT_OK;
}

int
ebbctl_print_answer_node (ebbctl_ctx *ctx, const ebbctl_request *req EBB_UNUSED,
                          const char *arg EBB_UNUSED, json_object *n)
{
  FILE *out = ctx->out;
  char b[64], w[96];
  line (out, "Name:", "%s", ebbctl_cell (n, "name", b, sizeof b));
  state_line (ctx, ebbctl_str (n, "state"));
  line (out, "Address:", "%s", ebbctl_cell (n, "url", b, sizeof b));
  alloc_line (out, "CPU:", n, "cpu_millis", false);
  alloc_line (out, "Memory:", n, "memory_bytes", true);
  json_object *tasks = ebbctl_member (n, "tasks");
  if (json_object_is_type (tasks, json_type_array))
    {
      cleanup_free char *ids = ebb_xstrdup ("");
      for (size_t i = 0; i < json_object_array_length (tasks); i++)
        {
          char *next
              = ebb_xasprintf ("%s%s%s", ids, i ? " " : "",
                               json_object_get_string (json_object_array_get_idx (tasks, i)));
          free (ids);
          ids = next;
        }
      line (out, "Tasks:", "%zu%s%s", json_object_array_length (tasks), *ids ? ": " : "", ids);
    }
  else
    line (out, "Tasks:", "%s", ebbctl_cell (n, "tasks", b, sizeof b));
  line (out, "Heartbeat:", "%s", when (w, sizeof w, n, "last_heartbeat"));
  return EBBCTL_EXIT_OK;
}

/* "6: 1 exited, 2 running, 2 suspended, 1 pending" from a job's task_states or tasks. */
static void
tasks_line (FILE *out, json_object *job)
{
  cleanup_free char *s = ebb_xstrdup ("");
  json_object *st = ebbctl_member (job, "task_states");
  json_object *tasks = ebbctl_list (ebbctl_member (job, "tasks"), NULL);
  if (!st && tasks)
    {
      /* An answer without counts: counted from its tasks. */
      st = json_object_new_object ();
      for (size_t i = 0; i < json_object_array_length (tasks); i++)
        {
          const char *k = ebbctl_str (json_object_array_get_idx (tasks, i), "state");
          k = k ? k : "unknown";
          json_object_object_add (st, k,
                                  json_object_new_int64 ((int64_t)ebbctl_num (st, k, 0) + 1));
        }
    }
  else
    json_object_get (st);
  json_object_object_foreach (st, k, v)
  {
    if (json_object_get_int64 (v) <= 0)
      continue;
    char *next = ebb_xasprintf ("%s%s%lld %s", s, *s ? ", " : ": ",
                                (long long)json_object_get_int64 (v), k);
    free (s);
    s = next;
  }
  json_object_put (st);
  double n = ebbctl_num (job, "ntasks", tasks ? (double)json_object_array_length (tasks) : 0);
  line (out, "Tasks:", "%.0f%s", n, s);
}

/* "Reason:  message (code)" when o carries a reason. */
static void
reason_line (FILE *out, json_object *o)
{
  const char *msg = ebbctl_reason (o);
  const char *code = ebbctl_str (ebbctl_member (o, "reason"), "code");
  if (msg && code && strcmp (msg, code) != 0)
    line (out, "Reason:", "%s (%s)", msg, code);
  else if (msg)
    line (out, "Reason:", "%s", msg);
}

int
ebbctl_print_answer_job (ebbctl_ctx *ctx, const ebbctl_request *req EBB_UNUSED,
                         const char *arg EBB_UNUSED, json_object *job)
{
  FILE *out = ctx->out;
  char b[64], w[96], d[32];
  line (out, "Job:", "%s", ebbctl_cell (job, "id", b, sizeof b));
  line (out, "Name:", "%s", ebbctl_cell (job, "name", b, sizeof b));
  line (out, "Class:", "%s", ebbctl_cell (job, "class", b, sizeof b));
  if (ebbctl_member (job, "priority"))
    line (out, "Priority:", "%s", ebbctl_cell (job, "priority", b, sizeof b));
  if (ebbctl_str (job, "submitted_by"))
    line (out, "Submitted by:", "%s", ebbctl_cell (job, "submitted_by", b, sizeof b));
  char held[64];
  state_line (ctx, ebbctl_held_state (held, sizeof held, job)); /* "running (1 held)" */
  reason_line (out, job);
  double est = ebbctl_num (job, "est_task_sec", -1);
  if (est > 0)
    line (out, "Task estimate:", "%s", ebbctl_duration (d, sizeof d, est));
  line (out, "Submitted:", "%s", when (w, sizeof w, job, "submitted_at"));
  double sub = ebbctl_num (job, "submitted_at", -1), start = ebbctl_num (job, "started_at", -1);
  double end = ebbctl_num (job, "finished_at", -1);
  if (start > 0)
    line (out, "Started:", "%s (waited %s)", when (w, sizeof w, job, "started_at"),
          ebbctl_job_waited (d, sizeof d, job));
  else if (sub > 0 && !ebbctl_job_finished (ebbctl_str (job, "state")))
    line (out, "Started:", "- (waiting %s)", ebbctl_duration (d, sizeof d, ebbctl_now () - sub));
  if (end > 0)
    line (out, "Finished:", "%s (ran %s)", when (w, sizeof w, job, "finished_at"),
          start > 0 ? ebbctl_duration (d, sizeof d, end - start) : "-");
  double susp = ebbctl_num (job, "suspended_seconds", -1);
  if (susp >= 0)
    line (out, "Suspended:", "%s in %.0f suspensions", ebbctl_duration (d, sizeof d, susp),
          ebbctl_num (job, "suspensions", 0));
  tasks_line (out, job);
  if (ebbctl_list (ebbctl_member (job, "tasks"), NULL))
    {
      fputc ('\n', out);
      ebbctl_job_tasks_table (ctx, job);
    }
  return EBBCTL_EXIT_OK;
}
