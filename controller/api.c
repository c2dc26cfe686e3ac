/* The REST API: a route table over lib/http-server.h. Every mutation is validated
 * completely before anything changes (a 4xx changes nothing); POST /v1/jobs is idempotent
 * through request_id. Errors have the agent's shape {"error", "detail"}. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

#define NAME_MAX_BYTES 128
#define RID_MAX_BYTES  128
#define ARGV_MAX_ITEMS 4096
#define ARG_MAX_BYTES  65536
#define ENV_MAX_ITEMS  1024
#define PATH_MAX_BYTES 4096

/* GET / is the status page: controller/status-page.c defines this handler; without it the
 * route answers 404. */
int ebb_ctl_status_page (ebb_http_request *req, ebb_http_response *resp, void *ud)
    __attribute__ ((weak));

static int
bad (ebb_ctl *c, ebb_http_response *resp, unsigned status, const char *code, ebb_error **err)
{
  c->m.bad_requests++;
  ebb_http_error (resp, status, code, "%s", ebb_error_msg (err));
  return EBB_HTTP_REPLIED;
}

/* Parses the raw body strictly (duplicate keys, depth). Returns 0 and *out, or negative. */
static int
body_json (ebb_http_request *req, json_object **out, ebb_error **err)
{
  size_t len = 0;
  const char *body = ebb_http_request_body (req, &len);
  *out = NULL;
  if (len == 0 || body[strspn (body, " \t\r\n")] == '\0')
    return 0;
  *out = ebb_json_parse (body, len, 16, err);
  return *out ? 0 : -EBB_EPARSE;
}

static int
only_keys (json_object *o, const char *const *keys, const char *what, ebb_error **err)
{
  json_object_object_foreach (o, k, v)
  {
    (void)v;
    size_t i = 0;
    while (keys[i] && strcmp (keys[i], k) != 0)
      i++;
    if (!keys[i])
      return ebb_error_set (err, EBB_EPARSE, "%sunknown field \"%s\"", what, k);
  }
  return 0;
}

static int
validate_abs (const char *v, ebb_error **err)
{
  return v[0] == '/' ? 0 : ebb_error_set (err, EBB_EPARSE, "must be an absolute path");
}

/* Validates one task of POST /v1/jobs; returns its spec (what goes to the agent). */
static json_object *
parse_task (json_object *o, size_t i, ebb_error **err)
{
  static const char *const keys[] = { "argv", "cpu_millis", "memory_bytes", "env", "cwd", NULL };
  cleanup_free char *where = ebb_xasprintf ("tasks[%zu]: ", i);
  if (!json_object_is_type (o, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "%smust be an object", where), NULL;
  if (only_keys (o, keys, where, err) < 0)
    return NULL;
  char **argv = NULL, **env = NULL;
  uint64_t cpu = 0, mem = 0;
  const char *cwd = NULL;
  int r = ebb_json_get_strv (o, "argv", ARGV_MAX_ITEMS, ARG_MAX_BYTES, NULL, &argv, err);
  bool ok = r > 0 && argv[0] && argv[0][0];
  ebb_strv_free (argv);
  if (!ok)
    return r >= 0 ? ebb_error_set (err, EBB_EPARSE,
                                   "%sfield \"argv\": a non-empty array of strings "
                                   "with a non-empty argv[0] is required",
                                   where),
           NULL   : (ebb_error_wrap (err, "tasks[%zu]", i), NULL);
  if (ebb_json_get_uint64 (o, "cpu_millis", EBB_CTL_CPU_MILLIS_MIN, EBB_AGENT_CPU_MILLIS_MAX_CTL,
                           &cpu, err)
          <= 0
      || ebb_json_get_uint64 (o, "memory_bytes", EBB_CTL_MEMORY_BYTES_MIN, EBB_CTL_MEMORY_BYTES_MAX,
                              &mem, err)
             <= 0)
    {
      if (!ebb_error_code (err))
        ebb_error_set (err, EBB_EPARSE, "fields \"cpu_millis\" and \"memory_bytes\" are required");
      ebb_error_wrap (err, "tasks[%zu]", i);
      return NULL;
    }
  if (ebb_json_get_env (o, "env", ENV_MAX_ITEMS, ARG_MAX_BYTES, &env, err) < 0
      || ebb_json_get_string (o, "cwd", PATH_MAX_BYTES, validate_abs, &cwd, err) < 0)
    {
      ebb_error_wrap (err, "tasks[%zu]", i);
      return NULL;
    }
  ebb_strv_free (env);
  json_object *spec = NULL;
  json_object_deep_copy (o, &spec, NULL);
  return spec;
}

typedef struct
{
  const char *name, *request_id;
  ebb_ctl_class cls;
  double est;
  json_object **specs;
  size_t n;
} job_req;

static void
job_req_clear (job_req *jr)
{
  for (size_t i = 0; i < jr->n; i++)
    json_object_put (jr->specs[i]);
  free (jr->specs);
}

static int
parse_job (json_object *b, job_req *jr, ebb_error **err)
{
  static const char *const keys[]
      = { "name", "class", "est_task_sec", "request_id", "tasks", NULL };
  memset (jr, 0, sizeof *jr);
  jr->cls = CLS_AUTO;
  if (!b || !json_object_is_type (b, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "a JSON object is required");
  if (only_keys (b, keys, "", err) < 0)
    return -EBB_EPARSE;
  const char *cls = NULL;
  if (ebb_json_get_string (b, "name", NAME_MAX_BYTES, NULL, &jr->name, err) < 0
      || ebb_json_get_string (b, "request_id", RID_MAX_BYTES, ebb_json_validate_id, &jr->request_id,
                              err)
             < 0
      || ebb_json_get_string (b, "class", 8, NULL, &cls, err) < 0
      || ebb_json_get_double (b, "est_task_sec", 0, 1e9, &jr->est, err) < 0)
    return -EBB_EPARSE;
  if (cls)
    {
      if (strcmp (cls, "short") == 0)
        jr->cls = CLS_SHORT;
      else if (strcmp (cls, "long") == 0)
        jr->cls = CLS_LONG;
      else if (strcmp (cls, "auto") != 0)
        return ebb_error_set (err, EBB_EPARSE, "field \"class\": short, long or auto");
    }
  json_object *tasks;
  if (!json_object_object_get_ex (b, "tasks", &tasks)
      || !json_object_is_type (tasks, json_type_array))
    return ebb_error_set (err, EBB_EPARSE, "field \"tasks\": an array is required");
  size_t n = json_object_array_length (tasks);
  if (n == 0 || n > EBB_CTL_MAX_TASKS_PER_JOB)
    return ebb_error_set (err, EBB_ERANGE, "field \"tasks\": 1 to %d tasks",
                          EBB_CTL_MAX_TASKS_PER_JOB);
  jr->specs = ebb_xcalloc (n, sizeof *jr->specs);
  for (size_t i = 0; i < n; i++)
    {
      jr->specs[i] = parse_task (json_object_array_get_idx (tasks, i), i, err);
      if (!jr->specs[i])
        return -EBB_EPARSE;
      jr->n = i + 1;
    }
  return 0;
}

static ebb_ctl_job *
find_rid (ebb_ctl *c, const char *rid)
{
  for (size_t i = c->n_jobs; rid && i-- > 0;)
    if (c->jobs[i]->request_id && strcmp (c->jobs[i]->request_id, rid) == 0)
      return c->jobs[i];
  return NULL;
}

static ebb_ctl_job *
job_new (ebb_ctl *c, job_req *jr)
{
  ebb_ctl_job *j = ebb_xcalloc (1, sizeof *j);
  j->id = c->next_job_id++;
  j->name = jr->name ? ebb_xstrdup (jr->name) : ebb_xasprintf ("job-%" PRIu64, j->id);
  j->request_id = jr->request_id ? ebb_xstrdup (jr->request_id) : NULL;
  j->cls = jr->cls;
  j->est_task_sec = jr->est;
  j->state = JOB_QUEUED;
  j->submitted_at = ebb_ctl_now ();
  j->ntasks = (uint32_t)jr->n;
  j->tasks = ebb_xcalloc (jr->n, sizeof *j->tasks);
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      ebb_ctl_task *t = &j->tasks[i];
      t->job = j;
      t->idx = i;
      t->spec = jr->specs[i];
      jr->specs[i] = NULL;
      json_object *v;
      json_object_object_get_ex (t->spec, "cpu_millis", &v);
      t->cpu_millis = (uint64_t)json_object_get_int64 (v);
      json_object_object_get_ex (t->spec, "memory_bytes", &v);
      t->memory_bytes = (uint64_t)json_object_get_int64 (v);
      t->node = -1;
      t->slot = EBB_POL_NONE;
      t->pjob = EBB_POL_NONE;
    }
  return j;
}

static int
h_submit (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  cleanup_error ebb_error *err = NULL;
  json_object *b = NULL;
  if (body_json (req, &b, &err) < 0)
    return bad (c, resp, 400, "bad_request", &err);
  job_req jr;
  int r = parse_job (b, &jr, &err);
  if (r < 0)
    {
      job_req_clear (&jr);
      json_object_put (b);
      return bad (c, resp, 400, "bad_request", &err);
    }
  ebb_ctl_job *old = find_rid (c, jr.request_id);
  if (old)
    {
      ebb_http_reply_json (resp, 201, json_tokener_parse (old->answer));
      ebb_http_reply_header (resp, "Idempotent-Replayed", "true");
    }
  else
    {
      ebb_ctl_job *j = job_new (c, &jr);
      json_object *a = json_object_new_object ();
      ebb_json_add_uint64 (a, "id", j->id);
      ebb_json_add_string (a, "name", j->name);
      ebb_json_add_string (a, "state", "queued");
      j->answer = ebb_xstrdup (json_object_to_json_string_ext (a, EBB_JSON_TO_STRING_FLAGS));
      ebb_ctl_store_begin (c);
      ebb_ctl_store_job (c, j);
      for (uint32_t i = 0; i < j->ntasks; i++)
        ebb_ctl_store_task (c, &j->tasks[i]);
      ebb_ctl_store_commit (c);
      ebb_ctl_add_job (c, j);
      c->m.jobs_submitted++;
      ebb_log_info ("job %" PRIu64 " (%s): %u tasks, class %s", j->id, j->name, j->ntasks,
                    ebb_ctl_class_name (j->cls));
      cleanup_free char *loc = ebb_xasprintf ("/v1/jobs/%" PRIu64, j->id);
      ebb_http_reply_header (resp, "Location", loc);
      ebb_http_reply_json (resp, 201, a);
      uint64_t t0 = ebb_now_usec ();
      ebb_ctl_sched_job (c, j);
      c->arrival_usec[c->n_arrival++ % EBB_ARRAY_SIZE (c->arrival_usec)] = ebb_now_usec () - t0;
    }
  job_req_clear (&jr);
  json_object_put (b);
  return EBB_HTTP_REPLIED;
}

static void
add_time (json_object *o, const char *k, double t)
{
  if (t > 0)
    ebb_json_add_double (o, k, t);
  else
    json_object_object_add (o, k, NULL);
}

/* See ctl.h. */
json_object *
ebb_ctl_job_json (ebb_ctl *c, const ebb_ctl_job *j, bool with_tasks)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "id", j->id);
  ebb_json_add_string (o, "name", j->name);
  ebb_json_add_string (o, "class", ebb_ctl_class_name (j->cls));
  ebb_json_add_double (o, "est_task_sec", j->est_task_sec);
  ebb_json_add_string (o, "state", ebb_ctl_job_state_name (j->state));
  ebb_json_add_string (o, "request_id", j->request_id);
  add_time (o, "submitted_at", j->submitted_at);
  add_time (o, "started_at", j->started_at);
  add_time (o, "finished_at", j->finished_at);
  uint32_t counts[TASK_N_STATES] = { 0 };
  json_object *arr = with_tasks ? json_object_new_array () : NULL;
  for (uint32_t i = 0; i < j->ntasks; i++)
    {
      const ebb_ctl_task *t = &j->tasks[i];
      counts[t->state]++;
      if (!arr)
        continue;
      json_object *to = json_object_new_object ();
      cleanup_free char *id = ebb_xasprintf ("%" PRIu64 "-%u", j->id, t->idx);
      ebb_json_add_string (to, "id", id);
      ebb_json_add_uint64 (to, "index", t->idx);
      ebb_json_add_string (to, "state", ebb_ctl_task_state_name (t->state));
      ebb_json_add_string (to, "node", t->node >= 0 ? c->nodes[t->node]->name : NULL);
      if (t->has_exit)
        ebb_json_add_int64 (to, "exit_status", t->exit_status);
      else
        json_object_object_add (to, "exit_status", NULL);
      ebb_json_add_uint64 (to, "suspensions", t->suspensions);
      ebb_json_add_uint64 (to, "generation", t->generation);
      ebb_json_add_uint64 (to, "cpu_millis", t->cpu_millis);
      ebb_json_add_uint64 (to, "memory_bytes", t->memory_bytes);
      add_time (to, "started_at", t->started_at);
      add_time (to, "finished_at", t->finished_at);
      json_object_array_add (arr, to);
    }
  ebb_json_add_uint64 (o, "ntasks", j->ntasks);
  json_object *cnt = json_object_new_object ();
  for (int s = 0; s < TASK_N_STATES; s++)
    ebb_json_add_uint64 (cnt, ebb_ctl_task_state_name ((ebb_ctl_task_state)s), counts[s]);
  json_object_object_add (o, "task_states", cnt);
  if (arr)
    json_object_object_add (o, "tasks", arr);
  return o;
}

static int
h_jobs (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  (void)req;
  json_object *arr = json_object_new_array ();
  for (size_t i = 0; i < c->n_jobs; i++)
    json_object_array_add (arr, ebb_ctl_job_json (c, c->jobs[i], false));
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "jobs", arr);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static ebb_ctl_job *
job_or_404 (ebb_ctl *c, ebb_http_request *req, ebb_http_response *resp)
{
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
  ebb_ctl_job *j = ebb_ctl_job_find (c, id);
  if (!j)
    ebb_http_error (resp, 404, "not_found", "no job %llu", id);
  return j;
}

static int
h_job (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl_job *j = job_or_404 (ud, req, resp);
  if (j)
    ebb_http_reply_json (resp, 200, ebb_ctl_job_json (ud, j, true));
  return EBB_HTTP_REPLIED;
}

static int
h_job_delete (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl_job *j = job_or_404 (ud, req, resp);
  if (j)
    {
      ebb_ctl_kill_job (ud, j);
      ebb_http_reply_json (resp, 200, ebb_ctl_job_json (ud, j, true));
    }
  return EBB_HTTP_REPLIED;
}

/* See ctl.h. */
json_object *
ebb_ctl_node_json (ebb_ctl *c, int idx)
{
  ebb_ctl_node *n = c->nodes[idx];
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "name", n->name);
  ebb_json_add_string (o, "state", ebb_ctl_node_state_name (n->state));
  ebb_json_add_string (o, "url", n->url);
  ebb_json_add_uint64 (o, "epoch", n->epoch);
  ebb_json_add_uint64 (o, "slots", n->nslots);
  uint64_t cpu = 0, mem = 0, ntasks = 0;
  json_object *tasks = json_object_new_array ();
  for (size_t i = 0; i < c->n_jobs; i++)
    for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
      {
        const ebb_ctl_task *t = &c->jobs[i]->tasks[k];
        if (t->node != idx
            || !(t->state == TASK_STARTING || t->state == TASK_RUNNING
                 || t->state == TASK_SUSPENDED))
          continue;
        if (t->state != TASK_SUSPENDED)
          {
            cpu += t->cpu_millis;
            mem += t->memory_bytes;
          }
        ntasks++;
        cleanup_free char *id = ebb_xasprintf ("%" PRIu64 "-%u", t->job->id, t->idx);
        json_object_array_add (tasks, json_object_new_string (id));
      }
  json_object *cap = json_object_new_object ();
  ebb_json_add_uint64 (cap, "cpu_millis", n->cap_cpu_millis);
  ebb_json_add_uint64 (cap, "memory_bytes", n->cap_memory_bytes);
  json_object_object_add (o, "capacity", cap);
  json_object *al = json_object_new_object ();
  ebb_json_add_uint64 (al, "cpu_millis", cpu);
  ebb_json_add_uint64 (al, "memory_bytes", mem);
  json_object_object_add (o, "allocated", al);
  json_object_object_add (o, "tasks", tasks);
  ebb_json_add_uint64 (o, "ntasks", ntasks);
  add_time (o, "last_heartbeat", n->last_hb_at);
  return o;
}

static int
h_nodes (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  (void)req;
  json_object *arr = json_object_new_array ();
  for (size_t i = 0; i < c->n_nodes; i++)
    json_object_array_add (arr, ebb_ctl_node_json (c, (int)i));
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "nodes", arr);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static int
node_or_404 (ebb_ctl *c, ebb_http_request *req, ebb_http_response *resp)
{
  const char *name = ebb_http_request_capture (req, "name");
  int idx = -1;
  if (!name || !ebb_id_is_valid (name, 64))
    {
      c->m.bad_requests++;
      ebb_http_error (resp, 400, "bad_request", "node name must match [A-Za-z0-9._-]{1,64}");
      return -1;
    }
  if (!ebb_ctl_node_find (c, name, &idx))
    ebb_http_error (resp, 404, "not_found", "no node %s", name);
  return idx;
}

static int
h_node (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  int idx = node_or_404 (ud, req, resp);
  if (idx >= 0)
    ebb_http_reply_json (resp, 200, ebb_ctl_node_json (ud, idx));
  return EBB_HTTP_REPLIED;
}

static int
drain_op (ebb_http_request *req, ebb_http_response *resp, ebb_ctl *c, bool drain)
{
  int idx = node_or_404 (c, req, resp);
  if (idx < 0)
    return EBB_HTTP_REPLIED;
  if (c->nodes[idx]->state == NODE_LOST)
    {
      ebb_http_error (resp, 409, "conflict", "node %s is lost", c->nodes[idx]->name);
      return EBB_HTTP_REPLIED;
    }
  ebb_ctl_node_drain (c, idx, drain);
  ebb_http_reply_json (resp, 200, ebb_ctl_node_json (c, idx));
  return EBB_HTTP_REPLIED;
}

static int
h_drain (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return drain_op (req, resp, ud, true);
}

static int
h_undrain (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  return drain_op (req, resp, ud, false);
}

static int
h_heartbeat (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  cleanup_error ebb_error *err = NULL;
  const char *name = ebb_http_request_capture (req, "name");
  if (!name || !ebb_id_is_valid (name, 64))
    {
      c->m.heartbeats_refused++;
      c->m.bad_requests++;
      ebb_http_error (resp, 400, "bad_request", "node name must match [A-Za-z0-9._-]{1,64}");
      return EBB_HTTP_REPLIED;
    }
  json_object *b = NULL;
  if (body_json (req, &b, &err) < 0 || ebb_ctl_heartbeat (c, name, b, &err) < 0)
    {
      json_object_put (b);
      c->m.heartbeats_refused++;
      return bad (c, resp, 400, "bad_request", &err);
    }
  json_object_put (b);
  ebb_ctl_node *n = ebb_ctl_node_find (c, name, NULL);
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "state", ebb_ctl_node_state_name (n->state));
  ebb_json_add_uint64 (o, "epoch", n->epoch);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static int
h_decisions (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  const char *s = ebb_http_request_query (req, "since");
  uint64_t since = 0;
  if (s)
    {
      char *end = NULL;
      errno = 0;
      unsigned long long v = *s >= '0' && *s <= '9' ? strtoull (s, &end, 10) : 0;
      if (!end || *end || errno)
        {
          c->m.bad_requests++;
          ebb_http_error (resp, 400, "bad_request", "since must be a decimal sequence number");
          return EBB_HTTP_REPLIED;
        }
      since = v;
    }
  json_object *o = json_object_new_object ();
  json_object_object_add (o, "decisions", ebb_ctl_store_decisions (c, since, 10000));
  ebb_json_add_uint64 (o, "last_seq", c->decision_seq);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

/* See ctl.h. */
json_object *
ebb_ctl_cluster_json (ebb_ctl *c)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "policy", c->cfg->policy);
  uint64_t ready = 0, lost = 0, draining = 0, cap = 0, capmem = 0, alloc = 0, allocmem = 0;
  for (size_t i = 0; i < c->n_nodes; i++)
    {
      ebb_ctl_node *n = c->nodes[i];
      ready += n->state == NODE_READY;
      lost += n->state == NODE_LOST;
      draining += n->state == NODE_DRAINING;
      if (n->state != NODE_LOST)
        {
          cap += n->cap_cpu_millis;
          capmem += n->cap_memory_bytes;
        }
    }
  uint64_t queued[3] = { 0 }, running = 0, suspended = 0;
  for (size_t i = 0; i < c->n_jobs; i++)
    {
      ebb_ctl_job *j = c->jobs[i];
      if (j->state == JOB_QUEUED)
        queued[j->cls]++;
      for (uint32_t k = 0; k < j->ntasks; k++)
        {
          ebb_ctl_task *t = &j->tasks[k];
          if (t->state == TASK_STARTING || t->state == TASK_RUNNING)
            {
              alloc += t->cpu_millis;
              allocmem += t->memory_bytes;
              running++;
            }
          suspended += t->state == TASK_SUSPENDED;
        }
    }
  json_object *nodes = json_object_new_object ();
  ebb_json_add_uint64 (nodes, "total", c->n_nodes);
  ebb_json_add_uint64 (nodes, "ready", ready);
  ebb_json_add_uint64 (nodes, "draining", draining);
  ebb_json_add_uint64 (nodes, "lost", lost);
  json_object_object_add (o, "nodes", nodes);
  json_object *cp = json_object_new_object ();
  ebb_json_add_uint64 (cp, "cpu_millis", cap);
  ebb_json_add_uint64 (cp, "memory_bytes", capmem);
  json_object_object_add (o, "capacity", cp);
  json_object *al = json_object_new_object ();
  ebb_json_add_uint64 (al, "cpu_millis", alloc);
  ebb_json_add_uint64 (al, "memory_bytes", allocmem);
  json_object_object_add (o, "allocated", al);
  json_object *q = json_object_new_object ();
  ebb_json_add_uint64 (q, "short", queued[CLS_SHORT]);
  ebb_json_add_uint64 (q, "long", queued[CLS_LONG]);
  ebb_json_add_uint64 (q, "auto", queued[CLS_AUTO]);
  json_object_object_add (o, "queued_jobs", q);
  ebb_json_add_uint64 (o, "jobs", c->n_jobs);
  ebb_json_add_uint64 (o, "running_tasks", running);
  ebb_json_add_uint64 (o, "suspended_tasks", suspended);
  ebb_json_add_uint64 (o, "preemptions", c->m.suspends);
  ebb_json_add_uint64 (o, "slots", c->n_slots);
  ebb_json_add_uint64 (o, "decisions", c->decision_seq);
  return o;
}

static int
h_cluster (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)req;
  ebb_http_reply_json (resp, 200, ebb_ctl_cluster_json (ud));
  return EBB_HTTP_REPLIED;
}

static int
h_health (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  (void)req;
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "status", c->stopping ? "stopping" : "ok");
  ebb_json_add_string (o, "policy", c->cfg->policy);
  ebb_json_add_uint64 (o, "nodes", c->n_nodes);
  ebb_json_add_uint64 (o, "jobs", c->n_jobs);
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Job arrival -> launches sent, over the last jobs: a Prometheus summary. */
static void
quantiles (ebb_ctl *c, FILE *f)
{
  size_t n = c->n_arrival < EBB_ARRAY_SIZE (c->arrival_usec) ? c->n_arrival
                                                             : EBB_ARRAY_SIZE (c->arrival_usec);
  uint64_t v[EBB_ARRAY_SIZE (c->arrival_usec)];
  memcpy (v, c->arrival_usec, n * sizeof *v);
  qsort (v, n, sizeof *v, cmp_u64);
  fprintf (f,
           "# HELP ebb_controller_job_decision_seconds Job arrival to its launches sent "
           "(last %zu jobs).\n# TYPE ebb_controller_job_decision_seconds summary\n",
           n);
  static const double qs[] = { 0.5, 0.9, 0.99 };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (qs); i++)
    fprintf (f, "ebb_controller_job_decision_seconds{quantile=\"%g\"} %.6f\n", qs[i],
             n ? (double)v[(size_t)((double)(n - 1) * qs[i] + 0.5)] / 1e6 : 0.0);
  fprintf (f, "ebb_controller_job_decision_seconds_count %zu\n", c->n_arrival);
}

/* See ctl.h. */
char *
ebb_ctl_metrics_text (ebb_ctl *c)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  if (!f)
    return ebb_xstrdup ("");
  uint64_t nstate[3] = { 0 }, tstate[TASK_N_STATES] = { 0 }, jstate[5] = { 0 };
  for (size_t i = 0; i < c->n_nodes; i++)
    nstate[c->nodes[i]->state]++;
  for (size_t i = 0; i < c->n_jobs; i++)
    {
      jstate[c->jobs[i]->state]++;
      for (uint32_t k = 0; k < c->jobs[i]->ntasks; k++)
        tstate[c->jobs[i]->tasks[k].state]++;
    }
#define COUNTER(n, h, v)                                                                           \
  fprintf (f, "# HELP " n " " h "\n# TYPE " n " counter\n" n " %" PRIu64 "\n", (uint64_t)(v))
  fprintf (
      f,
      "# HELP ebb_build_info The ebb build this program runs (always 1).\n"
      "# TYPE ebb_build_info gauge\nebb_build_info{program=\"ebb-controller\",version=\"%s\"} 1\n",
      PACKAGE_VERSION);
  COUNTER ("ebb_controller_jobs_submitted_total", "Jobs accepted by POST /v1/jobs.",
           c->m.jobs_submitted);
  COUNTER ("ebb_controller_task_launches_total", "LAUNCH decisions sent to agents.", c->m.launches);
  COUNTER ("ebb_controller_task_kills_total", "Tasks killed on request.", c->m.kills);
  COUNTER ("ebb_controller_task_suspends_total", "SUSPEND decisions (preemptions).", c->m.suspends);
  COUNTER ("ebb_controller_task_resumes_total", "RESUME decisions.", c->m.resumes);
  COUNTER ("ebb_controller_tasks_lost_total", "Tasks re-queued because their node was lost.",
           c->m.tasks_lost);
  COUNTER ("ebb_controller_heartbeats_total", "Heartbeats accepted.", c->m.heartbeats);
  COUNTER ("ebb_controller_heartbeats_refused_total", "Heartbeats refused as malformed.",
           c->m.heartbeats_refused);
  COUNTER ("ebb_controller_agent_calls_total", "Calls made to agents, retries included.",
           c->m.agent_calls);
  COUNTER ("ebb_controller_agent_call_retries_total", "Agent calls retried.", c->m.agent_retries);
  COUNTER ("ebb_controller_bad_requests_total", "Requests refused with a 4xx.", c->m.bad_requests);
  COUNTER ("ebb_controller_decisions_total", "Entries in the decision log.", c->decision_seq);
  fprintf (f,
           "# HELP ebb_controller_decision_seconds_total Time spent deciding and sending "
           "launches.\n# TYPE ebb_controller_decision_seconds_total counter\n"
           "ebb_controller_decision_seconds_total %.6f\n",
           (double)c->m.decision_usec_sum / 1e6);
  fprintf (f, "# HELP ebb_controller_nodes Nodes by state.\n# TYPE ebb_controller_nodes gauge\n");
  for (int s = 0; s < 3; s++)
    fprintf (f, "ebb_controller_nodes{state=\"%s\"} %" PRIu64 "\n",
             ebb_ctl_node_state_name ((ebb_ctl_node_state)s), nstate[s]);
  fprintf (f, "# HELP ebb_controller_tasks Tasks by state.\n# TYPE ebb_controller_tasks gauge\n");
  for (int s = 0; s < TASK_N_STATES; s++)
    fprintf (f, "ebb_controller_tasks{state=\"%s\"} %" PRIu64 "\n",
             ebb_ctl_task_state_name ((ebb_ctl_task_state)s), tstate[s]);
  fprintf (f, "# HELP ebb_controller_jobs Jobs by state.\n# TYPE ebb_controller_jobs gauge\n");
  for (int s = 0; s < 5; s++)
    fprintf (f, "ebb_controller_jobs{state=\"%s\"} %" PRIu64 "\n",
             ebb_ctl_job_state_name ((ebb_ctl_job_state)s), jstate[s]);
  fprintf (f,
           "# HELP ebb_controller_slots Policy slots (one CPU of a ready node).\n"
           "# TYPE ebb_controller_slots gauge\nebb_controller_slots %u\n",
           c->n_slots);
  fprintf (f,
           "# HELP ebb_controller_agent_calls_in_flight Agent calls under way.\n"
           "# TYPE ebb_controller_agent_calls_in_flight gauge\n"
           "ebb_controller_agent_calls_in_flight %zu\n",
           c->client ? ebb_http_client_pending (c->client) : 0);
  quantiles (c, f);
#undef COUNTER
  fclose (f);
  return buf;
}

static int
h_metrics (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)req;
  cleanup_free char *text = ebb_ctl_metrics_text (ud);
  ebb_http_reply_text (resp, 200, "text/plain; version=0.0.4; charset=utf-8", text);
  return EBB_HTTP_REPLIED;
}

static int
h_root (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  if (ebb_ctl_status_page)
    return ebb_ctl_status_page (req, resp, ud);
  ebb_http_error (resp, 404, "not_found", "no status page in this build; see /v1/cluster");
  return EBB_HTTP_REPLIED;
}

static const ebb_http_route routes[] = {
  /* The page is static HTML: a browser can load it without the token, which its script then
   * asks for (or takes from #token=) and sends with every API call. */
  { "GET", "/", h_root, EBB_HTTP_ROUTE_PUBLIC },
  { "GET", "/v1/health", h_health, 0 },
  { "GET", "/metrics", h_metrics, 0 },
  { "GET", "/v1/cluster", h_cluster, 0 },
  { "GET", "/v1/jobs", h_jobs, 0 },
  { "POST", "/v1/jobs", h_submit, 0 },
  { "GET", "/v1/jobs/{id}", h_job, 0 },
  { "DELETE", "/v1/jobs/{id}", h_job_delete, 0 },
  { "GET", "/v1/nodes", h_nodes, 0 },
  { "GET", "/v1/nodes/{name}", h_node, 0 },
  { "POST", "/v1/nodes/{name}/drain", h_drain, 0 },
  { "POST", "/v1/nodes/{name}/undrain", h_undrain, 0 },
  { "POST", "/v1/nodes/{name}/heartbeat", h_heartbeat, 0 },
  { "GET", "/v1/decisions", h_decisions, 0 },
};

/* Splits the listeners: unix sockets (file permissions guard them) and TCP (bearer token
 * always, loopback included). Returns 0, or negative with *err. */
int
ebb_ctl_http_start (ebb_ctl *c, ebb_error **err)
{
  size_t n = ebb_strv_length (c->cfg->listen);
  cleanup_free const char **unix_l = ebb_xcalloc (n + 1, sizeof *unix_l);
  cleanup_free const char **tcp_l = ebb_xcalloc (n + 1, sizeof *tcp_l);
  size_t nu = 0, nt = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (strncmp (c->cfg->listen[i], "unix:", 5) == 0)
        unix_l[nu++] = c->cfg->listen[i];
      else
        tcp_l[nt++] = c->cfg->listen[i];
    }
  ebb_http_server_config hc = { 0 };
  hc.routes = routes;
  hc.n_routes = EBB_ARRAY_SIZE (routes);
  hc.userdata = c;
  hc.max_body_bytes = EBB_CTL_MAX_BODY_BYTES;
  if (nu)
    {
      hc.listen = unix_l;
      c->http_unix = ebb_http_server_new (c->event, &hc, err);
      if (!c->http_unix)
        return ebb_error_wrap (err, "listen");
    }
  if (nt)
    {
      if (!c->token || !*c->token)
        return ebb_error_set (err, EINVAL, "a TCP listener needs a token (--token-file)");
      hc.listen = tcp_l;
      hc.bearer_token = c->token;
      hc.tls_cert_file = c->cfg->tls_cert; /* https on TCP; the unix socket stays plain */
      hc.tls_key_file = c->cfg->tls_key;
      c->http_tcp = ebb_http_server_new (c->event, &hc, err);
      if (!c->http_tcp)
        return ebb_error_wrap (err, "listen");
    }
  for (size_t i = 0; c->http_unix && i < ebb_http_server_n_listeners (c->http_unix); i++)
    ebb_log_notice ("listening on %s", ebb_http_server_base_url (c->http_unix, i));
  for (size_t i = 0; c->http_tcp && i < ebb_http_server_n_listeners (c->http_tcp); i++)
    ebb_log_notice ("listening on %s (token required)", ebb_http_server_base_url (c->http_tcp, i));
  return 0;
}
