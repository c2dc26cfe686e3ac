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

static const char *const job_header[]
    = { "ID", "NAME", "CLASS", "STATE", "TASKS", "WAITED", "RUNTIME" };

static void
job_row (ebbctl_table *t, json_object *j, size_t i EBB_UNUSED)
{
  char id[32], tasks[64], waited[32], run[32];
  uint64_t d, r, s, n;
  ebbctl_job_counts (j, &d, &r, &s, &n);
  if (n)
    snprintf (tasks, sizeof tasks, "%llu/%llu", (unsigned long long)d, (unsigned long long)n);
  else
    snprintf (tasks, sizeof tasks, "-");
  const char *row[] = { ebbctl_cell (j, "id", id, sizeof id),
                        ebbctl_str (j, "name"),
                        ebbctl_str (j, "class"),
                        ebbctl_str (j, "state"),
                        tasks,
                        span (waited, sizeof waited, j, "submitted_at", "started_at"),
                        span (run, sizeof run, j, "started_at", "finished_at") };
  ebbctl_table_add (t, row);
}

/* -o wide: the counts of running and suspended tasks, when it was submitted, and why it
 * waits (the reason's message, when the controller gives one). */
static const char *const job_wide_header[]
    = { "ID",      "NAME",    "CLASS",     "STATE",     "TASKS", "WAITED",
        "RUNTIME", "RUNNING", "SUSPENDED", "SUBMITTED", "REASON" };

static void
job_wide_row (ebbctl_table *t, json_object *j, size_t i)
{
  /* The narrow row's cells, then the wide ones: one table of 11 columns. */
  ebbctl_table narrow;
  ebbctl_table_init (&narrow, EBB_ARRAY_SIZE (job_header), job_header);
  job_row (&narrow, j, i);
  char r[32], s[32], sub[32];
  uint64_t d, rn, su, n;
  ebbctl_job_counts (j, &d, &rn, &su, &n);
  snprintf (r, sizeof r, "%llu", (unsigned long long)rn);
  snprintf (s, sizeof s, "%llu", (unsigned long long)su);
  json_object *reason = ebbctl_member (j, "reason");
  const char *why = json_object_is_type (reason, json_type_string) ? json_object_get_string (reason)
                                                                   : ebbctl_str (reason, "message");
  const char *row[11];
  for (size_t c = 0; c < 7; c++)
    row[c] = narrow.cells[7 + c];
  row[7] = r, row[8] = s;
  row[9] = ebbctl_timestamp (sub, sizeof sub, ebbctl_num (j, "submitted_at", -1));
  row[10] = why;
  ebbctl_table_add (t, row);
  ebbctl_table_clear (&narrow);
}

void
ebbctl_jobs_table (ebbctl_ctx *ctx, json_object *list)
{
  if (ctx->output == EBBCTL_OUT_WIDE)
    ebbctl_table_print_list (ctx, job_wide_header, EBB_ARRAY_SIZE (job_wide_header), list,
                             job_wide_row);
  else
    ebbctl_table_print_list (ctx, job_header, EBB_ARRAY_SIZE (job_header), list, job_row);
}

static const char *const task_header[]
    = { "TASK", "STATE", "NODE", "AGENT-TASK", "EXIT", "SUSPENSIONS", "RUNTIME" };

static void
task_row (ebbctl_table *t, json_object *k, size_t i)
{
  char id[64], ex[32], su[32], run[32];
  const char *tid = ebbctl_cell (k, "id", id, sizeof id);
  if (tid[0] == '-' && !tid[1])
    {
      snprintf (id, sizeof id, "%zu", i);
      tid = id;
    }
  const char *row[]
      = { tid, ebbctl_str (k, "state"), ebbctl_str (k, "node"),
          /* the id the node's agent knows it by (ebbctl --agent ... task ID) */
          ebbctl_str (k, "agent_task_id"), ebbctl_cell (k, "exit_status", ex, sizeof ex),
          ebbctl_cell (k, "suspensions", su, sizeof su),
          span (run, sizeof run, k, "started_at", "finished_at") };
  ebbctl_table_add (t, row);
}

void
ebbctl_job_tasks_table (ebbctl_ctx *ctx, json_object *job)
{
  json_object *tasks = NULL;
  if (!json_object_object_get_ex (job, "tasks", &tasks)
      || !json_object_is_type (tasks, json_type_array))
    return;
  ebbctl_table_print_list (ctx, task_header, EBB_ARRAY_SIZE (task_header), tasks, task_row);
}
