/* The jobs API: POST /v1/jobs (validated completely, idempotent through request_id); the
 * answers about jobs are in api-jobs-get.c. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "controller/ops.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"
#include "policies/dag.h"

#define NAME_MAX_BYTES 128
#define RID_MAX_BYTES  128
#define ARGV_MAX_ITEMS 4096
#define ARG_MAX_BYTES  65536
#define ENV_MAX_ITEMS  1024
#define PATH_MAX_BYTES 4096

/* See api.h. */
int
ebb_ctl_api_only_keys (json_object *o, const char *const *keys, const char *where, ebb_error **err)
{
  json_object_object_foreach (o, k, v)
  {
    (void)v;
    size_t i = 0;
    while (keys[i] && strcmp (keys[i], k) != 0)
      i++;
    if (!keys[i])
      return ebb_error_set (err, EBB_EPARSE, "%sunknown field \"%s\"", where, k);
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
  static const char *const keys[]
      = { "argv", "cpu_millis", "memory_bytes", "env", "cwd", "net_mbps", "stage", NULL };
  cleanup_free char *where = ebb_xasprintf ("tasks[%zu]: ", i);
  if (!json_object_is_type (o, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "%smust be an object", where), NULL;
  if (json_object_object_get_ex (o, "adopt", NULL))
    return ebb_ctl_adopt_parse_task (o, i, err); /* api-adopt.c */
  if (ebb_ctl_api_only_keys (o, keys, where, err) < 0)
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
      ebb_strv_free (env); /* a good env before a bad cwd */
      ebb_error_wrap (err, "tasks[%zu]", i);
      return NULL;
    }
  ebb_strv_free (env);
  /* DAG policies only: a network demand and a stage, as in ebb-sim's traces (sim/dag.c). */
  uint64_t net = 0, stage = 0;
  int has_net = ebb_json_get_uint64 (o, "net_mbps", 0, UINT64_C (1) << 40, &net, err);
  int has_stage
      = has_net < 0 ? -1 : ebb_json_get_uint64 (o, "stage", 0, UINT32_MAX - 1, &stage, err);
  if (has_stage < 0)
    {
      ebb_error_wrap (err, "tasks[%zu]", i);
      return NULL;
    }
  json_object *spec = NULL;
  json_object_deep_copy (o, &spec, NULL);
  /* Not the agent's: kept under the controller's "dag" member (sched-dag.c), stored with the
   * spec, which a restart reads back. */
  json_object_object_del (spec, "net_mbps");
  json_object_object_del (spec, "stage");
  json_object *d = json_object_new_object ();
  ebb_json_add_uint64 (d, "net_mbps", net);
  ebb_json_add_uint64 (d, "stage", has_stage ? stage : i);
  json_object_object_add (spec, "dag", d);
  return spec;
}

static int
edge_cmp (const void *a, const void *b)
{
  const uint32_t *x = a, *y = b;
  return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Validates "deps" against the job's n tasks: pairs of task indices in range, no edge twice
 * (harmless to a policy, but a client's mistake), no cycle (the check every DAG policy's
 * graph build makes, policies/dag.c). */
static int
parse_deps (json_object *arr, uint32_t n, ebb_ctl_submit_req *jr, ebb_error **err)
{
  /* The pairs as ebb-sim reads them from its traces (lib/json.c). */
  if (ebb_json_parse_edges (arr, n, EBB_CTL_MAX_EDGES_PER_JOB, &jr->edges, &jr->nedges, err) < 0)
    return -EBB_EPARSE;
  size_t m = jr->nedges;
  cleanup_free uint32_t *sorted = ebb_xmalloc ((m ? m : 1) * 2 * sizeof *sorted);
  memcpy (sorted, jr->edges, m * 2 * sizeof *sorted);
  qsort (sorted, m, 2 * sizeof *sorted, edge_cmp);
  for (size_t k = 1; k < m; k++)
    if (sorted[2 * k] == sorted[2 * k - 2] && sorted[2 * k + 1] == sorted[2 * k - 1])
      return ebb_error_set (err, EBB_EPARSE, "field \"deps\": edge [%u, %u] given twice",
                            sorted[2 * k], sorted[2 * k + 1]);
  ebb_dag_graph g;
  uint32_t bad = 0;
  int r = ebb_dag_graph_build (&g, n, jr->edges, jr->nedges, &bad);
  if (r == -2)
    return ebb_error_set (err, EBB_EPARSE, "field \"deps\": a cycle through task %u", bad);
  if (r < 0)
    return ebb_error_set (err, EBB_ERANGE, "deps[%u]: task index out of range", bad);
  ebb_dag_graph_free (&g);
  return 0;
}

static int
parse_job (json_object *b, ebb_ctl_submit_req *jr, ebb_error **err)
{
  static const char *const keys[]
      = { "name", "class",    "est_task_sec",   "request_id",    "tasks",
          "deps", "priority", "time_limit_sec", "notify_signal", NULL };
  memset (jr, 0, sizeof *jr);
  jr->cls = CLS_AUTO;
  if (!b || !json_object_is_type (b, json_type_object))
    return ebb_error_set (err, EBB_EPARSE, "a JSON object is required");
  if (ebb_ctl_api_only_keys (b, keys, "", err) < 0)
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
  json_object *deps;
  if (json_object_object_get_ex (b, "deps", &deps) && parse_deps (deps, (uint32_t)n, jr, err) < 0)
    return -EBB_EPARSE;
  return 0;
}

/* parse_job, and edges only for a policy that follows them. */
static int
parse_checked (ebb_ctl *c, json_object *b, ebb_ctl_submit_req *jr, ebb_error **err)
{
  const ebb_pol_ops *ops = ebb_pol_lookup (c->cfg->policy);
  int r = parse_job (b, jr, err);
  if (r == 0)
    r = ebb_ctl_api_parse_limits (b, jr, ops, c->cfg->policy, err); /* api-jobs-limits.c */
  /* Edges mean nothing to a policy that ignores them: refused rather than run out of order. */
  if (r == 0 && jr->nedges && !(ops && ops->dag))
    r = ebb_error_set (err, EBB_EPARSE,
                       "field \"deps\": policy '%s' ignores task dependencies (a DAG policy "
                       "runs them: graphene, cp, tetris or random)",
                       c->cfg->policy);
  return r;
}

/* See api.h. */
ebb_ctl_job *
ebb_ctl_api_job_new (ebb_ctl *c, json_object *b, ebb_error **err)
{
  ebb_ctl_submit_req jr;
  ebb_ctl_job *j = parse_checked (c, b, &jr, err) < 0 ? NULL : ebb_ctl_job_from_req (c, &jr);
  ebb_ctl_submit_req_clear (&jr);
  return j;
}

/* POST /v1/jobs. */
static int
h_submit (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  ebb_ctl *c = ud;
  cleanup_error ebb_error *err = NULL;
  json_object *b = NULL;
  if (ebb_http_request_body_json (req, 16, &b, &err) < 0)
    return ebb_ctl_api_bad (c, resp, 400, "bad_request", &err);
  /* Of the parsed body, so that a retry differing in white space only is the same. */
  cleanup_free char *digest
      = ebb_ctl_body_digest (json_object_to_json_string_ext (b, EBB_JSON_TO_STRING_FLAGS));
  ebb_ctl_submit_req jr;
  int r = parse_checked (c, b, &jr, &err);
  jr.digest = digest;
  /* Who submitted it (issue 23): the peer's uid on a unix socket, the token on TCP. */
  char who[24] = "token";
  uid_t uid;
  if (ebb_http_request_peer_uid (req, &uid) == 0)
    snprintf (who, sizeof who, "uid=%u", uid);
  jr.submitted_by = who;
  ebb_ctl_job *j = NULL;
  cleanup_free char *replay = NULL;
  unsigned st = r < 0 ? 400 : ebb_ctl_op_submit (c, &jr, &j, &replay, &err);
  ebb_ctl_submit_req_clear (&jr);
  json_object_put (b);
  if (st)
    return ebb_ctl_api_bad (c, resp, st,
                            st == 400                           ? "bad_request"
                            : st == 404                         ? "not_found"
                            : st == 422                         ? "unsatisfiable"
                            : st == 429                         ? "queue_full"
                            : st == 503                         ? "store_unavailable"
                            : ebb_error_code (&err) == EALREADY ? "request_id_reused"
                                                                : "conflict",
                            &err);
  if (replay)
    {
      ebb_http_reply_json (resp, 201, json_tokener_parse (replay));
      ebb_http_reply_header (resp, "Idempotent-Replayed", "true");
      return EBB_HTTP_REPLIED;
    }
  ebb_ctl_api_audit (req, "submit: job %" PRIu64 " (%s), %u tasks, class %s", j->id, j->name,
                     j->ntasks, ebb_ctl_class_name (j->cls));
  cleanup_free char *loc = ebb_xasprintf ("/v1/jobs/%" PRIu64, j->id);
  ebb_http_reply_header (resp, "Location", loc);
  ebb_http_reply_json (resp, 201, json_tokener_parse (j->answer));
  return EBB_HTTP_REPLIED;
}

/* See api.h. */
const ebb_http_route ebb_ctl_api_jobs_routes[] = {
  { "POST", "/v1/jobs", h_submit, 0 },
};
const size_t ebb_ctl_api_jobs_n_routes = EBB_ARRAY_SIZE (ebb_ctl_api_jobs_routes);
