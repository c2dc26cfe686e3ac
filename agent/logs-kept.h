/* The output of finished tasks (agent/logs-kept.c): a launched task's log outlives the task's
 * forgetting (the DELETE of the exited task, which the controller sends once it learnt the
 * end), so that GET /v1/tasks/ID/logs still answers for it. The newest --keep-logs of them are
 * kept, --keep-logs-max bytes at most in all (ID.log and its rotated ID.log.1); beyond either
 * bound the oldest go. */
#ifndef EBB_AGENT_LOGS_KEPT_H
#define EBB_AGENT_LOGS_KEPT_H

#include <stdbool.h>

#include "lib/error.h"

struct ebb_agent;

/* A launched task id is forgotten: its log joins the kept ones (or goes at once, with
 * --keep-logs 0), and the oldest kept beyond the bounds are removed. */
void ebb_agent_logs_keep (struct ebb_agent *a, const char *id);

/* Whether id's log is kept (id is no task of the table any more). */
bool ebb_agent_logs_kept (const struct ebb_agent *a, const char *id);

/* At the start, after the journal's tasks are back: the logs of STATE/logs that no task of
 * the table owns become the kept ones, oldest first by modification time, and the bounds
 * apply. Returns 0, or negative with *err when the directory cannot be read. */
int ebb_agent_logs_kept_load (struct ebb_agent *a, ebb_error **err);

/* Removes id's kept log (its job left the controller's store). Returns whether it was kept. */
bool ebb_agent_logs_drop (struct ebb_agent *a, const char *id);

void ebb_agent_logs_kept_free (struct ebb_agent *a);

#endif
