/* Jobs and tasks read back from a row of any backend (store-backend.h): the fields of the
 * row, the tasks failed until their rows are read, a task's spec parsed (its allocation, its
 * DAG edges) and its state and node set through the model's setters. */
#include "config.h"

#include <stdlib.h>

#include "controller/store-backend.h"
#include "lib/util.h"

static char *
dup_col (const ebb_ctl_store_row *r, int col)
{
  const char *v = r->s (r, col);
  return v ? ebb_xstrdup (v) : NULL;
}

/* See store-backend.h. */
ebb_ctl_job *
ebb_ctl_store_job_of_row (ebb_ctl *c, const ebb_ctl_store_row *r, bool with_tasks)
{
  uint64_t ntasks = (uint64_t)r->i (r, 10);
  if (ntasks == 0 || ntasks > EBB_CTL_MAX_TASKS_PER_JOB)
    return NULL;
  ebb_ctl_job *j = ebb_xcalloc (1, sizeof *j);
  j->id = (uint64_t)r->i (r, 0);
  j->request_id = dup_col (r, 1);
  j->name = dup_col (r, 2);
  j->cls = (ebb_ctl_class)r->i (r, 3);
  j->est_task_sec = r->d (r, 4);
  ebb_ctl_job_set_state (c, j, (ebb_ctl_job_state)r->i (r, 5));
  j->submitted_at = r->d (r, 6);
  j->started_at = r->d (r, 7);
  j->finished_at = r->d (r, 8);
  j->answer = dup_col (r, 9);
  j->ntasks = (uint32_t)ntasks;
  if (!with_tasks)
    return j;
  j->tasks = ebb_xcalloc (ntasks, sizeof *j->tasks);
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      j->tasks[i].job = j;
      j->tasks[i].idx = i;
      j->tasks[i].node = -1;
      j->tasks[i].slot = EBB_POL_NONE;
      j->tasks[i].pjob = EBB_POL_NONE;
      ebb_ctl_task_set_state (c, &j->tasks[i], TASK_FAILED); /* until its row is read */
    }
  return j;
}

/* See store-backend.h. */
bool
ebb_ctl_store_task_of_row (ebb_ctl *c, ebb_ctl_job *j, const ebb_ctl_store_row *r, bool keep_spec)
{
  uint64_t idx = (uint64_t)r->i (r, 1);
  if (idx >= j->ntasks)
    return false;
  ebb_ctl_task *t = &j->tasks[idx];
  const char *spec = r->s (r, 2);
  json_object *o = spec ? json_tokener_parse (spec) : NULL, *v;
  if (!o)
    return false;
  if (json_object_object_get_ex (o, "cpu_millis", &v))
    t->cpu_millis = (uint64_t)json_object_get_int64 (v);
  if (json_object_object_get_ex (o, "memory_bytes", &v))
    t->memory_bytes = (uint64_t)json_object_get_int64 (v);
  if (ebb_ctl_dag_load (j, t, o) < 0)
    {
      json_object_put (o);
      return false;
    }
  if (keep_spec)
    ebb_ctl_task_set_spec (t, o);
  else
    json_object_put (o);
  ebb_ctl_task_set_state (c, t, (ebb_ctl_task_state)r->i (r, 3));
  const char *node = r->s (r, 4);
  int ni = -1;
  if (node && ebb_ctl_node_find (c, node, &ni))
    ebb_ctl_task_set_node (c, t, ni);
  t->generation = (uint64_t)r->i (r, 5);
  t->exit_status = r->i (r, 6);
  t->has_exit = (int)r->i (r, 7);
  t->suspensions = (uint32_t)r->i (r, 8);
  t->started_at = r->d (r, 9);
  t->finished_at = r->d (r, 10);
  t->kill_wanted = (int)r->i (r, 11);
  t->stored = true;
  return true;
}

/* See store-backend.h. */
void
ebb_ctl_store_summaries_missing (ebb_ctl_job_summary *v, size_t k)
{
  for (size_t i = 0; i < k; i++)
    {
      uint64_t sum = 0;
      for (int ts = 0; v[i].job && ts < TASK_N_STATES; ts++)
        sum += v[i].task_states[ts];
      if (v[i].job && sum < v[i].job->ntasks)
        v[i].task_states[TASK_FAILED] += (uint32_t)(v[i].job->ntasks - sum);
    }
}

/* See store-backend.h. */
void
ebb_ctl_store_count_row (ebb_ctl *c, int q, uint64_t a, uint64_t n)
{
  if (q == 0)
    {
      if (a >= c->next_job_id)
        c->next_job_id = a + 1;
      c->n_jobs_stored = n;
    }
  else if (q == 1 && a < EBB_ARRAY_SIZE (c->evicted_jobs))
    c->evicted_jobs[a] += n;
  else if (q == 2 && a < EBB_ARRAY_SIZE (c->evicted_tasks))
    c->evicted_tasks[a] += n;
}
