/* The REST API's inside: api-routes.c has the route table and the listeners, api-jobs.c,
 * api-nodes.c and api-cluster.c the handlers of their resources. ctl.h has what the rest of
 * the controller calls; this header what the API's files call of each other. Every handler
 * takes the controller as ud and returns EBB_HTTP_REPLIED. */
#ifndef EBB_CTL_API_H
#define EBB_CTL_API_H

#include <json-c/json.h>

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

/* api-adopt.c: tasks of POST /v1/jobs that adopt a container or cgroup. */
/* Validates task i {"adopt": {node, container[, runtime] | cgroup}, cpu_millis?,
 * memory_bytes?} alone. Returns its spec, or NULL with *err. */
json_object *ebb_ctl_adopt_parse_task (json_object *o, size_t i, ebb_error **err);
/* api-jobs.c */
/* A job of the body of POST /v1/jobs, validated as the handler does (its "deps" against the
 * running policy too), with a new id, not added nor stored; NULL with *err (a 400). */
ebb_ctl_job *ebb_ctl_api_job_new (ebb_ctl *c, json_object *b, ebb_error **err);
int ebb_ctl_api_submit (ebb_http_request *req, ebb_http_response *resp, void *ud);
/* api-jobs-get.c */
int ebb_ctl_api_jobs (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_job (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_job_delete (ebb_http_request *req, ebb_http_response *resp, void *ud);

/* api-nodes.c */
int ebb_ctl_api_nodes (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_node (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_drain (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_undrain (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_heartbeat (ebb_http_request *req, ebb_http_response *resp, void *ud);

/* api-leader.c */
/* A standby's answer: 503 {"error":"not_leader","leader":URL or null}; returns true when it
 * replied so (the caller returns EBB_HTTP_REPLIED), false on the leader. */
bool ebb_ctl_api_not_leader (ebb_ctl *c, ebb_http_response *resp);
/* Adds "role" ("leader"|"standby") and "leader" ({"id","url","epoch"}, null when unknown). */
void ebb_ctl_api_add_role (ebb_ctl *c, json_object *o);

/* api-cluster.c */
int ebb_ctl_api_decisions (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_cluster (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_health (ebb_http_request *req, ebb_http_response *resp, void *ud);
int ebb_ctl_api_metrics (ebb_http_request *req, ebb_http_response *resp, void *ud);

#endif
