/* A task's output over the API (agent/logs.c): GET /v1/tasks/ID/logs with ?tail=N (the last
 * N lines) and ?follow=1 (streams new output until the task ends), read from the file the
 * launch writes (STATE/logs/ID.log). */
#ifndef EBB_AGENT_LOGS_H
#define EBB_AGENT_LOGS_H

#include <stdint.h>

#include "lib/error.h"
#include "lib/http-server.h"

struct ebb_agent;
struct ebb_agent_task;

/* Followers at once (agent-wide): one more is refused with 429. */
#define EBB_AGENT_LOG_MAX_FOLLOWERS 32
/* Bytes handed to the connection per read: a follower of a fast writer gets the output in
 * pieces of this size, as fast as its socket drains them. */
#define EBB_AGENT_LOG_CHUNK_BYTES (16 * 1024)
/* How often a follower that has read everything looks for new output or the task's end. */
#define EBB_AGENT_LOG_POLL_USEC (100 * 1000)
/* The most lines ?tail= may ask for. */
#define EBB_AGENT_LOG_MAX_TAIL 1000000

/* Answers GET /v1/tasks/ID/logs for t. Returns EBB_HTTP_REPLIED. */
int ebb_agent_logs_reply (struct ebb_agent *a, struct ebb_agent_task *t, ebb_http_request *req,
                          ebb_http_response *resp);

/* Answers GET /v1/tasks/ID/logs for a finished task whose log is kept (agent/logs-kept.h).
 * Returns EBB_HTTP_REPLIED. */
int ebb_agent_logs_reply_kept (struct ebb_agent *a, const char *id, ebb_http_request *req,
                               ebb_http_response *resp);

/* Returns the offset in fd (size bytes) where its last `lines` lines start (a final line
 * without a newline counts; size for 0 lines, 0 when there are fewer), or -errno. */
int64_t ebb_agent_log_tail_offset (int fd, uint64_t size, uint64_t lines);

#endif
