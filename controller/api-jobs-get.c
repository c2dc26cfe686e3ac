/* The answers about jobs: GET /v1/jobs (paged by job id), GET and DELETE /v1/jobs/{id}. A
 * finished job that left memory (sched-evict.c) is read back from the store and shown the
 * same way: in a listing, its row and its tasks' counts per state come from one query. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "controller/ops.h"
#include "lib/json.h"
#include "lib/util.h"

static void
job_freep (ebb_ctl_job **j)
{
  ebb_ctl_job_free (*j);
}
#define cleanup_job __attribute__ ((cleanup (job_freep)))

/* GET /v1/jobs: a page of at most ?limit= jobs, PAGE_DEFAULT without it; ?after= the id the
 * page follows (the previous page's next_after); ?state=active: the jobs not in a final
 * state only; ?order=desc: in descending id order (after: the ids below it), asc the
 * default. */
#define PAGE_DEFAULT 100
#define PAGE_MAX     1000

/* r as {"code", "message"} under "reason" when it says something. */
static void
add_reason (json_object *o, const ebb_ctl_reason *r)
{
  const char *code = ebb_ctl_reason_name (r->code);
  if (!code)
    return;
  json_object *ro = json_object_new_object ();
  ebb_json_add_string (ro, "code", code);
  ebb_json_add_string (ro, "message", r->message ? r->message : "");
  json_object_object_add (o, "reason", ro);
}

/* The fields of job j but its tasks; counts: how many of them are in each state. */
static json_object *
job_head (const ebb_ctl_job *j, const uint32_t counts[TASK_N_STATES])
{
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "id", j->id);
  ebb_json_add_string (o, "name", j->name);
  ebb_json_add_string (o, "class", ebb_ctl_class_name (j->cls));
  ebb_json_add_double (o, "est_task_sec", j->est_task_sec);
  ebb_json_add_int64 (o, "priority", j->priority);
  ebb_json_add_string (o, "submitted_by", j->submitted_by[0] ? j->submitted_by : NULL);
  ebb_json_add_string (o, "state", ebb_ctl_job_state_name (j->state));
  ebb_json_add_string (o, "request_id", j->request_id);
  ebb_ctl_api_add_time (o, "submitted_at", j->submitted_at);
  ebb_ctl_api_add_time (o, "started_at", j->started_at);
  ebb_ctl_api_add_time (o, "placed_at", j->placed_at);
  ebb_ctl_api_add_time (o, "finished_at", j->finished_at);
  add_reason (o, &j->reason);
  ebb_json_add_uint64 (o, "ntasks", j->ntasks);
  json_object *cnt = json_object_new_object ();
  for (int s = 0; s < TASK_N_STATES; s++)
    ebb_json_add_uint64 (cnt, ebb_ctl_task_state_name ((ebb_ctl_task_state)s), counts[s]);
  json_object_object_add (o, "task_states", cnt);
  return o;
}

/* Its tasks' sums of suspensions and suspended time, and how many active ones are held. The
 * time to the millisecond (the agents report milliseconds): a job's sum is the same text
 * whether its tasks were summed in memory or by the store's query, in another order. */
static void
add_sums (json_object *o, uint64_t suspensions, double suspended_sec, uint32_t held)
{
  ebb_json_add_uint64 (o, "suspensions", suspensions);
  ebb_json_add_double (o, "suspended_seconds", round (suspended_sec * 1000) / 1000);
  ebb_json_add_uint64 (o, "held_tasks", held); /* active tasks held by the operator */
}

/* See ctl.h. */
json_object *
ebb_ctl_job_json (ebb_ctl *c, const ebb_ctl_job *j, bool with_tasks)
{
  uint32_t counts[TASK_N_STATES] = { 0 }, suspensions = 0, held = 0;
  double suspended_sec = 0;
  json_object *arr = with_tasks ? json_object_new_array () : NULL;
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      const ebb_ctl_task *t = &j->tasks[i];
      counts[t->state]++;
      suspensions += t->suspensions;
      suspended_sec += t->suspended_sec;
      held += t->held && ebb_ctl_task_active (t);
      if (!arr)
        continue;
      json_object *to = json_object_new_object ();
      cleanup_free char *id = ebb_xasprintf ("%" PRIu64 "-%u", j->id, t->idx);
      ebb_json_add_string (to, "id", id);
      ebb_json_add_uint64 (to, "index", t->idx);
      ebb_json_add_string (to, "state", ebb_ctl_task_state_name (t->state));
      ebb_json_add_string (to, "node", t->node >= 0 ? c->nodes[t->node]->name : NULL);
      /* The agent's id for it, in the generation it runs (or ran) in; none before a launch. */
      cleanup_free char *aid = t->generation > 0 && t->state != TASK_PENDING
                                   ? ebb_ctl_task_agent_id (j->id, t->idx, t->generation)
                                   : NULL;
      ebb_json_add_string (to, "agent_task_id", aid);
      if (t->has_exit)
        ebb_json_add_int64 (to, "exit_status", t->exit_status);
      else
        json_object_object_add (to, "exit_status", NULL);
      ebb_json_add_uint64 (to, "suspensions", t->suspensions);
      ebb_json_add_double (to, "suspended_seconds", t->suspended_sec);
      ebb_json_add_string (to, "end_reason", t->end_reason[0] ? t->end_reason : NULL);
      json_object_object_add (to, "held", json_object_new_boolean (t->held)); /* ebbctl suspend */
      ebb_json_add_uint64 (to, "generation", t->generation);
      ebb_json_add_uint64 (to, "cpu_millis", t->cpu_millis);
      ebb_json_add_uint64 (to, "memory_bytes", t->memory_bytes);
      ebb_ctl_api_add_time (to, "started_at", t->started_at);
      ebb_ctl_api_add_time (to, "finished_at", t->finished_at);
      add_reason (to, &t->reason);
      json_object_array_add (arr, to);
    }
  json_object *o = job_head (j, counts);
  add_sums (o, suspensions, suspended_sec, held);
  if (arr)
    json_object_object_add (o, "tasks", arr);
  return o;
}

/* See api.h. */
json_object *
ebb_ctl_jobs_page (ebb_ctl *c, const ebb_ctl_jobs_query *q)
{
  ebb_ctl_jobs_page_items p;
  if (ebb_ctl_op_jobs_page (c, q, &p) < 0)
    return NULL;
  json_object *arr = json_object_new_array ();
  for (size_t i = 0; i < p.n; i++)
    if (p.items[i].job)
      json_object_array_add (arr, ebb_ctl_job_json (c, p.items[i].job, false));
    else if (p.items[i].row->job) /* an unreadable row takes its place, unlisted */
      {
        const ebb_ctl_job_summary *r = p.items[i].row;
        json_object *o = job_head (r->job, r->task_states);
        add_sums (o, r->suspensions, r->suspended_sec, 0); /* finished: none active */
        json_object_array_add (arr, o);
      }
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "jobs", arr);
  if (p.more)
    ebb_json_add_uint64 (o, "next_after", p.last);
  else
    json_object_object_add (o, "next_after", NULL);
  ebb_ctl_jobs_page_items_clear (&p);
  return o;
}

/* Reads query argument name of req as a decimal number in [min, max] into *out (left as
 * it is when absent). Returns 0, or -1 after answering 400. */
static int
query_number (ebb_ctl *c, ebb_http_request *req, ebb_http_response *resp, const char *name,
              uint64_t min, uint64_t max, uint64_t *out)
{
  cleanup_error ebb_error *err = NULL;
  if (ebb_http_request_query_u64 (req, name, min, max, out, &err) == 0)
    return 0;
  ebb_ctl_api_bad (c, resp, 400, "bad_request", &err);
  return -1;
}

/* GET /v1/jobs. */
static int
h_jobs (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  static const char *const args[] = { "limit", "after", "state", "order", NULL };
  cleanup_error ebb_error *err = NULL;
  if (ebb_http_request_query_check (req, args, &err) < 0)
    {
      c->m.bad_requests++;
      ebb_http_error (resp, 400, "bad_request", "%s", ebb_error_msg (&err));
      return EBB_HTTP_REPLIED;
    }
  uint64_t limit = PAGE_DEFAULT;
  const char *state = ebb_http_request_query (req, "state");
  const char *order = ebb_http_request_query (req, "order");
  ebb_ctl_jobs_query q = { .desc = order && strcmp (order, "desc") == 0,
                           .active = state && strcmp (state, "active") == 0 };
  /* Descending without after: from the newest (every id is below UINT64_MAX). */
  q.after = q.desc ? UINT64_MAX : 0;
  if ((state && !q.active) || (order && !q.desc && strcmp (order, "asc") != 0))
    {
      c->m.bad_requests++;
      ebb_http_error (resp, 400, "bad_request", "%s",
                      state && !q.active ? "state must be active" : "order must be asc or desc");
      return EBB_HTTP_REPLIED;
    }
  if (query_number (c, req, resp, "limit", 1, PAGE_MAX, &limit) < 0
      || query_number (c, req, resp, "after", 0, UINT64_MAX, &q.after) < 0)
    return EBB_HTTP_REPLIED;
  q.limit = limit;
  json_object *o = ebb_ctl_jobs_page (c, &q);
  if (!o)
    ebb_http_error (resp, 500, "store_error", "cannot read the jobs from the store");
  else
    ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

/* See api.h. */
ebb_ctl_job *
ebb_ctl_api_job_or_404 (ebb_ctl *c, ebb_http_request *req, ebb_http_response *resp,
                        ebb_ctl_job **loaded)
{
  *loaded = NULL;
  const char *s = ebb_http_request_capture (req, "id");
  char *end = NULL;
  errno = 0;
  unsigned long long id = s && *s >= '0' && *s <= '9' ? strtoull (s, &end, 10) : 0;
  if (!end || *end || errno || strlen (s) > 20)
    {
      c->m.bad_requests++;
      ebb_http_error (resp, 400, "bad_request", "job id must be a decimal number");
      return NULL;
    }
  ebb_ctl_job *j = ebb_ctl_job_get (c, id, loaded);
  if (!j)
    ebb_http_error (resp, 404, "not_found", "no job %llu", id);
  return j;
}

/* GET /v1/jobs/{id}. */
static int
h_job (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  cleanup_job ebb_ctl_job *loaded = NULL;
  ebb_ctl_job *j = ebb_ctl_api_job_or_404 (ud, req, resp, &loaded);
  if (j)
    ebb_http_reply_json (resp, 200, ebb_ctl_job_json (ud, j, true));
  return EBB_HTTP_REPLIED;
}

/* DELETE /v1/jobs/{id}. */
static int
h_job_delete (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  cleanup_job ebb_ctl_job *loaded = NULL;
  ebb_ctl_job *j = ebb_ctl_api_job_or_404 (ud, req, resp, &loaded);
  if (j)
    {
      /* One that left memory is finished: nothing to kill, its answer is the store's. */
      ebb_ctl_api_audit (req, "kill: job %" PRIu64 " (%s)%s", j->id, j->name,
                         loaded ? ", finished already" : "");
      if (!loaded)
        ebb_ctl_op_kill (ud, j);
      ebb_http_reply_json (resp, 200, ebb_ctl_job_json (ud, j, true));
    }
  return EBB_HTTP_REPLIED;
}

/* See api.h. */
const ebb_http_route ebb_ctl_api_jobs_get_routes[] = {
  { "GET", "/v1/jobs", h_jobs, 0 },
  { "GET", "/v1/jobs/{id}", h_job, 0 },
  { "DELETE", "/v1/jobs/{id}", h_job_delete, 0 },
};
const size_t ebb_ctl_api_jobs_get_n_routes = EBB_ARRAY_SIZE (ebb_ctl_api_jobs_get_routes);
