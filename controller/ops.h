/* The controller's use cases (ops.c, ops-submit.c): submit, kill, drain and undrain, a
 * heartbeat, and the reads that merge the model with the store (a job, a page of jobs).
 * Each change is one transaction: the store's transaction is opened, the model and the
 * scheduler change, then ebb_ctl_flush commits and releases the agent calls decided (a
 * heartbeat leaves the commit to the flush at the end of the loop iteration, which groups
 * the heartbeats of one iteration). The API (api-*.c) turns HTTP/JSON into these calls and
 * their results back into answers; it neither writes the store nor schedules. */
#ifndef EBB_CTL_OPS_H
#define EBB_CTL_OPS_H

#include "controller/ctl.h"
#include "controller/store.h"

/* A submission (POST /v1/jobs) as the API validated it. */
typedef struct
{
  const char *name, *request_id; /* borrowed from the request's body */
  const char *digest;            /* of the body (ebb_ctl_body_digest), borrowed */
  ebb_ctl_class cls;
  double est;
  int32_t priority;         /* its tier (policies with ops->tiers) */
  const char *submitted_by; /* who: "uid=N" or "token" (api-jobs.c) */
  json_object **specs;      /* one per task, validated (api-jobs.c, api-adopt.c) */
  size_t n;
  uint32_t *edges; /* "deps": nedges (parent, child) pairs */
  uint32_t nedges;
} ebb_ctl_submit_req;
void ebb_ctl_submit_req_clear (ebb_ctl_submit_req *r);

/* The job of r with a new id, its tasks pending (specs taken from r), not added nor stored. */
ebb_ctl_job *ebb_ctl_job_from_req (ebb_ctl *c, ebb_ctl_submit_req *r);
/* Checks the adopting specs among specs[0..n) against the cluster. Returns 0, or the HTTP
 * status with *err: 404 no such node, 409 node not ready or the container or cgroup is an
 * active task already. */
unsigned ebb_ctl_adopt_check (ebb_ctl *c, json_object *const *specs, size_t n, ebb_error **err);
/* Submits r: a request id seen before with the same body digest gives *replay (the first
 * answer, the caller's to free), with another body 409 and *err of code EALREADY; else its
 * adoptions are checked, the job added, stored, scheduled and its calls released, *job.
 * Returns 0, or the HTTP status of a refusal with *err (nothing changed; 429: its tasks
 * would pass cfg->max_queued_tasks). */
unsigned ebb_ctl_op_submit (ebb_ctl *c, ebb_ctl_submit_req *r, ebb_ctl_job **job, char **replay,
                            ebb_error **err);
/* Kills job j (in memory): its pending tasks end, the running ones get DELETE. */
void ebb_ctl_op_kill (ebb_ctl *c, ebb_ctl_job *j);
/* ops-hold.c: holds (hold: `ebbctl suspend`) or releases task `task` of job j (in memory),
 * or, task negative, each of its running or suspended tasks, by `by` (the decision log's
 * who). Returns 0 (also when they are so already), or the HTTP status of a refusal with
 * *err, nothing changed: 404 no such task, 409 a task not running nor suspended, a job with
 * none, a policy without resources, or a suspension or resumption under way. */
unsigned ebb_ctl_op_hold (ebb_ctl *c, ebb_ctl_job *j, int64_t task, bool hold, const char *by,
                          ebb_error **err);
/* Drains node idx (drain) or makes it ready again. Returns 0, or -EBB_EREFUSED with *err
 * when the node is lost. */
int ebb_ctl_op_drain (ebb_ctl *c, int idx, bool drain, ebb_error **err);
/* Applies node name's heartbeat body. Returns 0, or negative with *err (a malformed report:
 * nothing changed). */
int ebb_ctl_op_heartbeat (ebb_ctl *c, const char *name, json_object *body, ebb_error **err);

/* Job id: in memory, else read from the store (*loaded: free it with ebb_ctl_job_free). */
ebb_ctl_job *ebb_ctl_job_get (ebb_ctl *c, uint64_t id, ebb_ctl_job **loaded);

/* A page of GET /v1/jobs: at most limit jobs following after in the page's order (id > after
 * ascending; id < after descending, desc); active: only the jobs not in a final state. */
typedef struct
{
  uint64_t after;
  size_t limit;
  bool desc, active;
} ebb_ctl_jobs_query;
/* The jobs of the page of q, in its order: each from the model (job) or a row of the store
 * (row; row->job NULL for an unreadable row, which takes its place in the page unlisted);
 * more: a next page exists, after last. */
typedef struct
{
  const ebb_ctl_job *job;
  const ebb_ctl_job_summary *row;
} ebb_ctl_jobs_page_item;
typedef struct
{
  ebb_ctl_jobs_page_item *items;
  size_t n;
  bool more;
  uint64_t last;
  ebb_ctl_job_summary *rows; /* the store's, which the items point into */
  size_t nrows;
} ebb_ctl_jobs_page_items;
/* Fills *out (ebb_ctl_jobs_page_items_clear) with the page of q. Returns 0, or -EIO when the
 * store cannot be read (nothing in *out to clear). */
int ebb_ctl_op_jobs_page (ebb_ctl *c, const ebb_ctl_jobs_query *q, ebb_ctl_jobs_page_items *out);
void ebb_ctl_jobs_page_items_clear (ebb_ctl_jobs_page_items *p);

/* The reads of the decision log and the store's figures the API answers with: up to limit
 * decisions after since (a JSON array), the last decision's sequence number, the store's
 * memory. The API reads the store through these and never opens it itself. */
json_object *ebb_ctl_op_decisions (ebb_ctl *c, uint64_t since, unsigned limit);
uint64_t ebb_ctl_op_last_seq (ebb_ctl *c);
void ebb_ctl_op_store_stats (ebb_ctl *c, ebb_ctl_store_stats *st);

#endif
