/* The REST API's inside: api-routes.c has the route table and the listeners, api-jobs.c,
 * api-nodes.c and api-cluster.c the handlers of their resources. ctl.h has what the rest of
 * the controller calls; this header what the API's files call of each other. Every handler
 * takes the controller as ud and returns EBB_HTTP_REPLIED. */
#ifndef EBB_CTL_API_H
#define EBB_CTL_API_H

#include <json-c/json.h>
#include <stdio.h>

#include "controller/ctl.h"
#include "controller/ops.h"
#include "lib/http-server.h"

/* What the daemon and the tests call of the API. */
int ebb_ctl_http_start (ebb_ctl *c, ebb_error **err);
json_object *ebb_ctl_job_json (ebb_ctl *c, const ebb_ctl_job *j, bool with_tasks);
/* Returns the page of GET /v1/jobs for q: {"jobs": [its jobs in the page's order, without
 * their tasks], "next_after": the last one's id when more follow, else null}, from memory
 * and the store; NULL when the store cannot be read. */
json_object *ebb_ctl_jobs_page (ebb_ctl *c, const ebb_ctl_jobs_query *q);

/* Replies status with the error code and *err's message (counted as a bad request).
 * Returns EBB_HTTP_REPLIED. */
int ebb_ctl_api_bad (ebb_ctl *c, ebb_http_response *resp, unsigned status, const char *code,
                     ebb_error **err);
/* Adds unix time t as k, or null when t is 0 (not yet). */
void ebb_ctl_api_add_time (json_object *o, const char *k, double t);
/* Refuses a member of o not named in keys (NULL-terminated): "<where>unknown field". */
int ebb_ctl_api_only_keys (json_object *o, const char *const *keys, const char *where,
                           ebb_error **err);

/* api-audit.c: logs "audit: CALLER: what" at the default verbosity, CALLER "uid N" (the peer
 * of a unix socket) or "token" (TCP). */
void ebb_ctl_api_audit (const ebb_http_request *req, const char *fmt, ...) EBB_PRINTF (2, 3);
/* The caller of req as the audit names it ("uid N" or "token"), into buf. */
void ebb_ctl_api_caller (const ebb_http_request *req, char *buf, size_t size);

/* api-adopt.c: tasks of POST /v1/jobs that adopt a container or cgroup. */
/* Validates task i {"adopt": {node, container[, runtime] | cgroup}, cpu_millis?,
 * memory_bytes?} alone. Returns its spec, or NULL with *err. */
json_object *ebb_ctl_adopt_parse_task (json_object *o, size_t i, ebb_error **err);
/* api-jobs-limits.c: the job's "priority", "time_limit_sec" and "notify_signal" of body b
 * into jr (the last two into its launched tasks' specs); a non-zero priority is refused
 * when ops (policy's) has no tiers. Returns 0 or -EBB_EPARSE with *err. */
int ebb_ctl_api_parse_limits (json_object *b, ebb_ctl_submit_req *jr, const ebb_pol_ops *ops,
                              const char *policy, ebb_error **err);
/* api-jobs.c */
/* A job of the body of POST /v1/jobs, validated as the handler does (its "deps" against the
 * running policy too), with a new id, not added nor stored; NULL with *err (a 400). */
ebb_ctl_job *ebb_ctl_api_job_new (ebb_ctl *c, json_object *b, ebb_error **err);
/* api-jobs-get.c */
/* Job {id} of the request, in memory or read from the store (*loaded, freed by the
 * caller), or NULL when answered with 400 or 404. */
ebb_ctl_job *ebb_ctl_api_job_or_404 (ebb_ctl *c, ebb_http_request *req, ebb_http_response *resp,
                                     ebb_ctl_job **loaded);

/* api-logs.c: GET /v1/jobs/{id}/tasks/{k}/logs, streamed from the task's agent. */
#define EBB_CTL_LOG_BUFFER_BYTES (1024 * 1024)
#define EBB_CTL_LOG_MAX_TAIL     1000000 /* the agent's bound (agent/logs.h) */
int ebb_ctl_api_task_logs (ebb_http_request *req, ebb_http_response *resp, void *ud);

/* api-nodes.c */

/* api-leader.c */
/* A standby's answer: 503 {"error":"not_leader","leader":URL or null}; returns true when it
 * replied so (the caller returns EBB_HTTP_REPLIED), false on the leader. */
bool ebb_ctl_api_not_leader (ebb_ctl *c, ebb_http_response *resp);
/* The servers' gate (ebb_http_server_config.gate): on a standby, every route but GET /,
 * /v1/health, /metrics and /v1/cluster answers ebb_ctl_api_not_leader(). */
bool ebb_ctl_api_gate (ebb_http_request *req, ebb_http_response *resp, void *ud);
/* Adds "role" ("leader"|"standby") and "leader" ({"id","url","epoch"}, null when unknown). */
void ebb_ctl_api_add_role (ebb_ctl *c, json_object *o);

/* api-cluster.c */

/* The routes of each file's resources (api-routes.c serves them, in this order: a path's
 * methods keep the order of its Allow header). */
extern const ebb_http_route ebb_ctl_api_cluster_routes[];
extern const size_t ebb_ctl_api_cluster_n_routes;
extern const ebb_http_route ebb_ctl_api_jobs_get_routes[];
extern const size_t ebb_ctl_api_jobs_get_n_routes;
extern const ebb_http_route ebb_ctl_api_jobs_routes[];
extern const size_t ebb_ctl_api_jobs_n_routes;
extern const ebb_http_route ebb_ctl_api_nodes_routes[];
extern const size_t ebb_ctl_api_nodes_n_routes;
extern const ebb_http_route ebb_ctl_api_hold_routes[]; /* api-hold.c */
extern const size_t ebb_ctl_api_hold_n_routes;
/* api-metrics.c: the histograms, the per-node gauges and the process_* families of
 * GET /metrics, written to f. */
void ebb_ctl_api_metrics_headline (ebb_ctl *c, FILE *f);

#endif
