/* Jobs and their tasks as tables, shared by jobs, job and watch; the answer of job. */
#include "config.h"

#include <string.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

bool
ebbctl_job_finished (const char *state)
{
  return state
         && (strcmp (state, "done") == 0 || strcmp (state, "failed") == 0
             || strcmp (state, "killed") == 0);
}

static bool
task_done (const char *s)
{
  return s
         && (strcmp (s, "exited") == 0 || strcmp (s, "failed") == 0 || strcmp (s, "killed") == 0
             || strcmp (s, "done") == 0);
}

void
ebbctl_job_counts (json_object *job, uint64_t *done, uint64_t *running, uint64_t *suspended,
                   uint64_t *total)
{
  *done = *running = *suspended = *total = 0;
  json_object *tasks = NULL;
  json_object *v = NULL;
  if (json_object_is_type (job, json_type_object) && json_object_object_get_ex (job, "tasks", &v)
      && json_object_is_type (v, json_type_array))
    tasks = v;
  if (!tasks)
    {
      /* A job of a list (GET /v1/jobs) carries counts per state instead of its tasks. */
      json_object *st = NULL;
      if (!json_object_object_get_ex (job, "task_states", &st))
        return;
      double n = ebbctl_num (job, "ntasks", 0);
      *total = n > 0 ? (uint64_t)n : 0;
      *done = (uint64_t)(ebbctl_num (st, "exited", 0) + ebbctl_num (st, "failed", 0)
                         + ebbctl_num (st, "killed", 0));
      *running = (uint64_t)(ebbctl_num (st, "running", 0) + ebbctl_num (st, "starting", 0));
      *suspended = (uint64_t)ebbctl_num (st, "suspended", 0);
      return;
    }
  *total = json_object_array_length (tasks);
  for (size_t i = 0; i < *total; i++)
    {
      const char *s = ebbctl_str (json_object_array_get_idx (tasks, i), "state");
      if (task_done (s))
        (*done)++;
      else if (s && (strcmp (s, "running") == 0 || strcmp (s, "starting") == 0))
        (*running)++;
      else if (s && strcmp (s, "suspended") == 0)
        (*suspended)++;
    }
}

/* Time from a to b (b absent: now), or "-" when a is absent. */
static const char *
span (char *buf, size_t size, json_object *o, const char *from, const char *to)
{
  double a = ebbctl_num (o, from, -1), b = ebbctl_num (o, to, -1);
  if (a <= 0)
    return "-";
  return ebbctl_duration (buf, size, (b > 0 ? b : ebbctl_now ()) - a);
}

/* See ebbctl.h. */
const char *
ebbctl_job_waited (char *buf, size_t size, json_object *job)
{
  double sub = ebbctl_num (job, "submitted_at", -1), end = ebbctl_num (job, "placed_at", -1);
  /* placed_at null: a task still waits (the wait so far) unless the job is over; absent
   * (an older controller) or a finished job's null (one restarted since): until its start. */
  json_object *v = NULL;
  bool waits = json_object_object_get_ex (job, "placed_at", &v) && !v
               && !ebbctl_job_finished (ebbctl_str (job, "state"));
  if (end <= 0)
    end = waits ? ebbctl_now () : ebbctl_num (job, "started_at", -1);
  if (sub <= 0 || end <= 0)
    return "-";
  return ebbctl_duration (buf, size, end - sub);
}

static const char *const job_header[]
    = { "ID", "NAME", "CLASS", "STATE", "TASKS", "WAITED", "RUNTIME" };

static void
job_row (ebbctl_table *t, json_object *j, size_t i EBB_UNUSED)
{
  char id[32], tasks[64], waited[32], run[32], state[48];
  uint64_t d, r, s, n;
  ebbctl_job_counts (j, &d, &r, &s, &n);
  if (n)
    snprintf (tasks, sizeof tasks, "%llu/%llu", (unsigned long long)d, (unsigned long long)n);
  else
    snprintf (tasks, sizeof tasks, "-");
  const char *row[] = { ebbctl_cell (j, "id", id, sizeof id),
                        ebbctl_str (j, "name"),
                        ebbctl_str (j, "class"),
                        ebbctl_held_state (state, sizeof state, j),
                        tasks,
                        ebbctl_job_waited (waited, sizeof waited, j),
                        span (run, sizeof run, j, "started_at", "finished_at") };
  ebbctl_table_add (t, row);
}

const char *
ebbctl_reason (json_object *obj)
{
  json_object *r = ebbctl_member (obj, "reason");
  if (json_object_is_type (r, json_type_string))
    return json_object_get_string (r);
  const char *m = ebbctl_str (r, "message");
  return m ? m : ebbctl_str (r, "code");
}

/* True when an element of list carries a reason: the table then has a REASON column. */
static bool
any_reason (json_object *list)
{
  for (size_t i = 0; i < json_object_array_length (list); i++)
    if (ebbctl_reason (json_object_array_get_idx (list, i)))
      return true;
  return false;
}

/* The headers with REASON (jobs: also -o wide's columns) after the narrow ones. */
static const char *const job_reason_header[]
    = { "ID", "NAME", "CLASS", "STATE", "TASKS", "WAITED", "RUNTIME", "REASON" };
static const char *const job_wide_header[]
    = { "ID",      "NAME",    "CLASS",     "STATE",     "TASKS", "WAITED",
        "RUNTIME", "RUNNING", "SUSPENDED", "SUBMITTED", "REASON" };

static void
job_reason_row (ebbctl_table *t, json_object *j, size_t i)
{
  const char *extra[] = { ebbctl_reason (j) };
  ebbctl_table_add_more (t, EBB_ARRAY_SIZE (job_header), job_row, j, i, extra, 1);
}

/* -o wide: the counts of running and suspended tasks, when it was submitted, and why it
 * waits (the reason's message, when the controller gives one). */
static void
job_wide_row (ebbctl_table *t, json_object *j, size_t i)
{
  char r[32], s[32], sub[32];
  uint64_t d, rn, su, n;
  ebbctl_job_counts (j, &d, &rn, &su, &n);
  snprintf (r, sizeof r, "%llu", (unsigned long long)rn);
  snprintf (s, sizeof s, "%llu", (unsigned long long)su);
  const char *extra[]
      = { r, s, ebbctl_timestamp (sub, sizeof sub, ebbctl_num (j, "submitted_at", -1)),
          ebbctl_reason (j) };
  ebbctl_table_add_more (t, EBB_ARRAY_SIZE (job_header), job_row, j, i, extra,
                         EBB_ARRAY_SIZE (extra));
}

void
ebbctl_jobs_table (ebbctl_ctx *ctx, json_object *list)
{
  if (ctx->output == EBBCTL_OUT_WIDE)
    ebbctl_table_print_list (ctx, job_wide_header, EBB_ARRAY_SIZE (job_wide_header), list,
                             job_wide_row);
  else if (any_reason (list))
    ebbctl_table_print_list (ctx, job_reason_header, EBB_ARRAY_SIZE (job_reason_header), list,
                             job_reason_row);
  else
    ebbctl_table_print_list (ctx, job_header, EBB_ARRAY_SIZE (job_header), list, job_row);
}

static const char *const task_header[]
    = { "TASK", "STATE", "NODE", "AGENT-TASK", "EXIT", "SUSPENSIONS", "RUNTIME" };
static const char *const task_reason_header[]
    = { "TASK", "STATE", "NODE", "AGENT-TASK", "EXIT", "SUSPENSIONS", "RUNTIME", "REASON" };

static void
task_row (ebbctl_table *t, json_object *k, size_t i)
{
  char id[64], ex[32], su[32], run[32], state[48];
  const char *tid = ebbctl_cell (k, "id", id, sizeof id);
  if (tid[0] == '-' && !tid[1])
    {
      snprintf (id, sizeof id, "%zu", i);
      tid = id;
    }
  const char *row[]
      = { tid, ebbctl_held_state (state, sizeof state, k), ebbctl_str (k, "node"),
          /* the id the node's agent knows it by (ebbctl --agent ... task ID) */
          ebbctl_str (k, "agent_task_id"), ebbctl_cell (k, "exit_status", ex, sizeof ex),
          ebbctl_cell (k, "suspensions", su, sizeof su),
          span (run, sizeof run, k, "started_at", "finished_at") };
  ebbctl_table_add (t, row);
}

static void
task_reason_row (ebbctl_table *t, json_object *k, size_t i)
{
  const char *extra[] = { ebbctl_reason (k) };
  ebbctl_table_add_more (t, EBB_ARRAY_SIZE (task_header), task_row, k, i, extra, 1);
}

void
ebbctl_job_tasks_table (ebbctl_ctx *ctx, json_object *job)
{
  json_object *tasks = NULL;
  if (!json_object_object_get_ex (job, "tasks", &tasks)
      || !json_object_is_type (tasks, json_type_array))
    return;
  /* Why a task is pending or failed (a launch's error), when the controller says. */
  if (any_reason (tasks))
    ebbctl_table_print_list (ctx, task_reason_header, EBB_ARRAY_SIZE (task_reason_header), tasks,
                             task_reason_row);
  else
    ebbctl_table_print_list (ctx, task_header, EBB_ARRAY_SIZE (task_header), tasks, task_row);
}
