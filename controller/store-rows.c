/* Jobs and tasks read back from a row of any backend (store-backend.h): the fields of the
 * row, the tasks failed until their rows are read, a task's spec parsed (its allocation, its
 * DAG edges) and its state and node set through the model's setters; and the values of the
 * rows written, the same way for every backend. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "controller/store-backend.h"
#include "lib/json.h"
#include "lib/util.h"

static char *
dup_col (const ebb_ctl_store_row *r, int col)
{
  const char *v = r->s (r, col);
  return v ? ebb_xstrdup (v) : NULL;
}

/* See store-backend.h. */
void
ebb_ctl_store_node_of_row (ebb_ctl *c, const ebb_ctl_store_row *r)
{
  ebb_ctl_node *n = ebb_xcalloc (1, sizeof *n);
  n->name = dup_col (r, 0);
  n->url = dup_col (r, 1);
  n->state = (ebb_ctl_node_state)r->i (r, 2);
  n->epoch = (uint64_t)r->i (r, 3);
  n->cap_cpu_millis = (uint64_t)r->i (r, 4);
  n->cap_memory_bytes = (uint64_t)r->i (r, 5);
  /* As its heartbeats set them: a ready node is in the first policy of a new leader. */
  n->nslots = ebb_ctl_node_slots (n->cap_cpu_millis);
  n->last_hb_at = r->d (r, 6);
  if (!n->name || ebb_ctl_add_node (c, n) < 0)
    {
      free (n->name);
      free (n->url);
      free (n);
    }
}

/* The reason in columns col (its code's name) and col + 1 (its message) of a row. */
static void
reason_of_row (ebb_ctl_reason *why, const ebb_ctl_store_row *r, int col)
{
  const char *msg = r->s (r, col + 1);
  ebb_ctl_reason_set (why, ebb_ctl_reason_code_of (r->s (r, col)), "%s", msg ? msg : "");
}

#define J(c) EBB_CTL_JCOL_##c
#define T(c) EBB_CTL_TCOL_##c

/* See store-backend.h. */
ebb_ctl_job *
ebb_ctl_store_job_of_row (ebb_ctl *c, const ebb_ctl_store_row *r, bool with_tasks)
{
  uint64_t ntasks = (uint64_t)r->i (r, J (ntasks));
  if (ntasks == 0 || ntasks > EBB_CTL_MAX_TASKS_PER_JOB)
    return NULL;
  ebb_ctl_job *j = ebb_xcalloc (1, sizeof *j);
  j->id = (uint64_t)r->i (r, J (id));
  j->request_id = dup_col (r, J (request_id));
  j->name = dup_col (r, J (name));
  j->cls = (ebb_ctl_class)r->i (r, J (class));
  j->est_task_sec = r->d (r, J (est));
  ebb_ctl_job_set_state (c, j, (ebb_ctl_job_state)r->i (r, J (state)));
  j->submitted_at = r->d (r, J (submitted_at));
  j->started_at = r->d (r, J (started_at));
  j->finished_at = r->d (r, J (finished_at));
  j->answer = dup_col (r, J (answer));
  j->body_digest = dup_col (r, J (body_digest));
  j->placed_at = r->d (r, J (placed_at));
  reason_of_row (&j->reason, r, J (reason));
  j->priority = (int)r->i (r, J (priority));
  const char *who = r->s (r, J (submitted_by));
  snprintf (j->submitted_by, sizeof j->submitted_by, "%s", who ? who : "");
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

/* A task's spec: its allocation and DAG edges read, kept (keep_spec) or freed. */
static bool
spec_of_row (ebb_ctl_job *j, ebb_ctl_task *t, const char *spec, bool keep_spec)
{
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
  return true;
}

/* See store-backend.h. */
bool
ebb_ctl_store_task_of_row (ebb_ctl *c, ebb_ctl_job *j, const ebb_ctl_store_row *r, bool keep_spec)
{
  uint64_t idx = (uint64_t)r->i (r, T (idx));
  if (idx >= j->ntasks)
    return false;
  ebb_ctl_task *t = &j->tasks[idx];
  if (!spec_of_row (j, t, r->s (r, T (spec)), keep_spec))
    return false;
  ebb_ctl_task_set_state (c, t, (ebb_ctl_task_state)r->i (r, T (state)));
  const char *node = r->s (r, T (node));
  int ni = -1;
  if (node && ebb_ctl_node_find (c, node, &ni))
    ebb_ctl_task_set_node (c, t, ni);
  t->generation = (uint64_t)r->i (r, T (generation));
  t->exit_status = r->i (r, T (exit_status));
  t->has_exit = (int)r->i (r, T (has_exit));
  t->suspensions = (uint32_t)r->i (r, T (suspensions));
  t->started_at = r->d (r, T (started_at));
  t->finished_at = r->d (r, T (finished_at));
  t->kill_wanted = (int)r->i (r, T (kill_wanted));
  reason_of_row (&t->reason, r, T (reason));
  t->suspended_sec = r->d (r, T (suspended_sec));
  const char *why = r->s (r, T (end_reason));
  snprintf (t->end_reason, sizeof t->end_reason, "%s", why ? why : "");
  t->held = r->i (r, T (held)) != 0;
  t->stored = true;
  return true;
}

static void
vint (ebb_ctl_store_value *v, int64_t i)
{
  *v = (ebb_ctl_store_value){ .kind = EBB_CTL_VAL_INT, .i = i };
}

static void
vdouble (ebb_ctl_store_value *v, double d)
{
  *v = (ebb_ctl_store_value){ .kind = EBB_CTL_VAL_DOUBLE, .d = d };
}

/* Text, NULL for NULL or (empty) for "". */
static void
vtext (ebb_ctl_store_value *v, const char *s, bool empty_null)
{
  bool null = !s || (empty_null && !*s);
  *v = (ebb_ctl_store_value){ .kind = null ? EBB_CTL_VAL_NULL : EBB_CTL_VAL_TEXT, .s = s };
}

/* See store-backend.h. */
void
ebb_ctl_store_job_values (const ebb_ctl_job *j, ebb_ctl_store_value v[EBB_CTL_JOB_N_COLS])
{
  vint (&v[J (id)], (int64_t)j->id);
  vtext (&v[J (request_id)], j->request_id, false);
  vtext (&v[J (name)], j->name, false);
  vint (&v[J (class)], j->cls);
  vdouble (&v[J (est)], j->est_task_sec);
  vint (&v[J (state)], j->state);
  vdouble (&v[J (submitted_at)], j->submitted_at);
  vdouble (&v[J (started_at)], j->started_at);
  vdouble (&v[J (finished_at)], j->finished_at);
  vtext (&v[J (answer)], j->answer, false);
  vint (&v[J (ntasks)], j->ntasks);
  vtext (&v[J (body_digest)], j->body_digest, false);
  vdouble (&v[J (placed_at)], j->placed_at);
  vtext (&v[J (reason)], ebb_ctl_reason_name (j->reason.code), false);
  vtext (&v[J (reason_msg)], j->reason.message, false);
  vint (&v[J (priority)], j->priority);
  vtext (&v[J (submitted_by)], j->submitted_by, true);
}

/* See store-backend.h. */
void
ebb_ctl_store_task_values (const ebb_ctl_task *t, const char *node,
                           ebb_ctl_store_value v[EBB_CTL_TASK_N_COLS])
{
  vint (&v[T (job)], (int64_t)t->job->id);
  vint (&v[T (idx)], t->idx);
  vtext (&v[T (spec)],
         t->stored ? NULL : json_object_to_json_string_ext (t->spec, EBB_JSON_TO_STRING_FLAGS),
         false);
  vint (&v[T (state)], t->state);
  vtext (&v[T (node)], node, false);
  vint (&v[T (generation)], (int64_t)t->generation);
  vint (&v[T (exit_status)], t->exit_status);
  vint (&v[T (has_exit)], t->has_exit);
  vint (&v[T (suspensions)], t->suspensions);
  vdouble (&v[T (started_at)], t->started_at);
  vdouble (&v[T (finished_at)], t->finished_at);
  vint (&v[T (kill_wanted)], t->kill_wanted);
  vtext (&v[T (reason)], ebb_ctl_reason_name (t->reason.code), false);
  vtext (&v[T (reason_msg)], t->reason.message, false);
  vdouble (&v[T (suspended_sec)], t->suspended_sec);
  vtext (&v[T (end_reason)], t->end_reason, true);
  vint (&v[T (held)], t->held);
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
