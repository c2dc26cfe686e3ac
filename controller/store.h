/* The controller's store: an opaque handle (c->store) over a backend's ops table
 * (controller/store-backend.h; SQLite today, controller/store-sqlite*.c). It keeps the jobs,
 * tasks, nodes, the decision log and the agent calls under way, and reads them back. It
 * changes nothing in the model while running (no counter, no spec freed): the model is
 * authoritative and written through; only the load at the start fills it. Without a store
 * (c->store NULL) the writes fail (-EIO, decisions 0) and the reads find nothing. */
#ifndef EBB_CTL_STORE_H
#define EBB_CTL_STORE_H

#include "controller/ctl.h"

typedef struct ebb_ctl_store ebb_ctl_store;

/* Opens the store cfg->store names (sqlite:PATH or a postgresql:// URI; unset: SQLite's
 * controller.db in cfg->state_dir, created 0700) into c->store. Returns 0, or negative with
 * *err. */
int ebb_ctl_store_open (ebb_ctl *c, ebb_error **err);
/* The backend a --store value names: "sqlite" (sqlite:PATH), "postgresql" (postgresql:// or
 * postgres://), or NULL. */
const char *ebb_ctl_store_kind (const char *store);
/* Commits what is open and closes c->store (NULL after). */
void ebb_ctl_store_close (ebb_ctl *c);

/* Every write opens a transaction when none is open; ebb_ctl_store_commit commits it (the
 * writes of one loop iteration are one transaction: ebb_ctl_flush commits them before the
 * calls they decided go out). Both return 0, or negative (logged); the commit of a
 * transaction in which a write failed rolls it back and fails (nothing of it is kept). */
int ebb_ctl_store_begin (ebb_ctl *c);
int ebb_ctl_store_commit (ebb_ctl *c);
/* The fence (PostgreSQL): raises the leader epoch stored to epoch (0: the stored one + 1,
 * the start of a controller without election) and holds it; each later transaction fails
 * once a higher one is stored. Returns 0 (*claimed: the epoch held; 0 for a backend of one
 * process, which needs none), -ESTALE when the stored epoch is not below, or -EIO. */
int ebb_ctl_store_claim (ebb_ctl *c, uint64_t epoch, uint64_t *claimed);
/* Whether a transaction is open (nothing written since the last commit: false). */
bool ebb_ctl_store_in_transaction (ebb_ctl *c);
/* Lets the backend do its periodic upkeep outside a decision (SQLite: copies the WAL back
 * into the database once it holds EBB_CTL_WAL_CHECKPOINT_PAGES). */
void ebb_ctl_store_checkpoint (ebb_ctl *c);

/* Write a row as the model has it; they change nothing in the model (the caller moves
 * counters and frees specs: ebb_ctl_task_write). Return 0, or negative (logged). */
int ebb_ctl_store_job (ebb_ctl *c, const ebb_ctl_job *j);
/* Writes the row whole (the spec with it) unless t->stored, then an update without it. */
int ebb_ctl_store_task (ebb_ctl *c, const ebb_ctl_task *t);
int ebb_ctl_store_node (ebb_ctl *c, const ebb_ctl_node *n);

/* Appends to the decision log (committed before the caller acts). Returns its sequence
 * number, the next after the last one (given explicitly to the call it decides: the call's
 * request id), or 0 when it could not be written. */
uint64_t ebb_ctl_store_decision (ebb_ctl *c, const char *kind, const ebb_ctl_task *t, int node,
                                 uint64_t for_job, const char *reason);
/* The sequence number of the last decision written (0: none). */
uint64_t ebb_ctl_store_last_seq (ebb_ctl *c);
/* Returns the decisions with seq > since as a JSON array (at most limit). */
json_object *ebb_ctl_store_decisions (ebb_ctl *c, uint64_t since, unsigned limit);

/* The agent calls whose effect the tasks table does not show (SUSPEND, RESUME, the
 * policy's KILL), kept from their decision to their answer so that a restart sends again,
 * with the same request id, what was decided but not acknowledged. One row per task: the
 * latest call (its seq) wins. */
typedef struct
{
  uint64_t job, seq, generation;
  uint32_t idx;
  char *kind; /* "suspend", "resume" or "kill" */
  char *path;
  char *body; /* JSON, or NULL for a DELETE */
} ebb_ctl_stored_call;
/* Saves the call (in the open transaction, committed before the call goes out). */
int ebb_ctl_store_call (ebb_ctl *c, const ebb_ctl_task *t, uint64_t seq, const char *kind,
                        const char *path, json_object *body);
/* The call of seq for task (job, idx) was answered: forgets it (if still the latest). */
int ebb_ctl_store_call_done (ebb_ctl *c, uint64_t job, uint32_t idx, uint64_t seq);
/* The calls kept, in seq order: *out (free with ebb_ctl_stored_calls_free). Returns the
 * count. */
size_t ebb_ctl_store_calls (ebb_ctl *c, ebb_ctl_stored_call **out);
void ebb_ctl_stored_calls_free (ebb_ctl_stored_call *v, size_t n);

/* Loads the nodes and the unfinished jobs with their tasks saved by an earlier run into the
 * model (the finished ones stay in the store: counted, answered by ebb_ctl_store_job_get),
 * and the last decision's sequence number. Returns 0, or negative with *err. */
int ebb_ctl_store_load (ebb_ctl *c, ebb_error **err);
/* Returns job id as the store has it, with its tasks (no spec; node indexes of the nodes
 * known), or NULL. The caller frees it with ebb_ctl_job_free; it is not in the model. */
ebb_ctl_job *ebb_ctl_store_job_get (ebb_ctl *c, uint64_t id);
/* A job as the store lists it (GET /v1/jobs): its row without its tasks (job->tasks NULL;
 * job NULL for a row unreadable), and how many of its tasks are in each state. */
typedef struct
{
  uint64_t id;
  ebb_ctl_job *job;
  uint32_t task_states[TASK_N_STATES];
  uint64_t suspensions; /* its tasks' sums (issue 23) */
  double suspended_sec;
} ebb_ctl_job_summary;
/* Reads the store's jobs of id > after in id order (desc: of id < after, in descending id
 * order), at most limit, with their tasks' counts per state, in one query: *out
 * (ebb_ctl_job_summaries_free), *n of them. Returns 0, or -EIO (nothing in *out). */
int ebb_ctl_store_job_page (ebb_ctl *c, uint64_t after, bool desc, size_t limit,
                            ebb_ctl_job_summary **out, size_t *n);
void ebb_ctl_job_summaries_free (ebb_ctl_job_summary *v, size_t n);
/* Removes at most max finished jobs (their rows and tasks) finished before finished_before
 * (unix time) or older than the newest keep finished ones, but none with an agent call
 * recorded, and the decisions before finished_before but the newest; committed. Returns 0
 * with *pruned jobs removed, or -EIO. */
int ebb_ctl_store_prune (ebb_ctl *c, double finished_before, uint64_t keep, unsigned max,
                         uint64_t *pruned);
/* A task of a job the last prune removed that ran on a node: where its agent may keep its
 * log (ebb-agent --keep-logs). */
typedef struct ebb_ctl_pruned_task
{
  char *node;
  uint64_t job, generation;
  uint32_t idx;
} ebb_ctl_pruned_task;
/* The tasks that ran on a node of the jobs the last ebb_ctl_store_prune removed (at most
 * max) in *out (free with ebb_ctl_pruned_tasks_free); returns how many (0 when the backend
 * does not tell). */
size_t ebb_ctl_store_pruned_tasks (ebb_ctl *c, unsigned max, ebb_ctl_pruned_task **out);
void ebb_ctl_pruned_tasks_free (ebb_ctl_pruned_task *v, size_t n);
/* Returns the first answer given to request_id (the newest job of that id), or NULL; with
 * it, *digest the digest of that job's body (NULL when not known). */
char *ebb_ctl_store_rid_answer (ebb_ctl *c, const char *request_id, char **digest);

/* What of the process's memory is the store's (the metrics): heap bytes in use, pages of
 * its cache in use. */
typedef struct
{
  int64_t heap_bytes;
  int cache_pages;
} ebb_ctl_store_stats;
void ebb_ctl_store_get_stats (ebb_ctl *c, ebb_ctl_store_stats *st);

/* The preemptions of the decision log since the store was created: its suspensions,
 * resumptions and the policy's kills (the metrics' counters, rebuilt at start so they
 * survive a restart). */
typedef struct
{
  uint64_t suspends, resumes, preempt_kills;
} ebb_ctl_store_preemptions;
/* Fills *p (zeros without a store). Returns 0, or -EIO (*p zeroed). */
int ebb_ctl_store_preemptions_get (ebb_ctl *c, ebb_ctl_store_preemptions *p);

#endif
