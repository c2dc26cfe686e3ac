/* GET /v1/tasks/ID/logs: a launched task's output file streamed to the client through a
 * libmicrohttpd content reader on the agent's loop. Without follow the body ends at the
 * file's end; with follow a reader that caught up waits (its connection suspended) and a
 * timer of its own looks every EBB_AGENT_LOG_POLL_USEC for more output or the task's end,
 * so no thread and no busy loop serve a follower. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/context.h"
#include "agent/logs.h"
#include "agent/table.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

typedef struct log_reader
{
  ebb_agent *a;
  char id[EBB_AGENT_ID_MAX + 1]; /* looked up again each time: the task may be forgotten */
  int fd;
  uint64_t off;
  bool follow;
  ebb_http_stream *st;
  sd_event_source *timer; /* follow only */
} log_reader;

int64_t
ebb_agent_log_tail_offset (int fd, uint64_t size, uint64_t lines)
{
  if (lines == 0)
    return (int64_t)size;
  char buf[4096];
  uint64_t end = size, found = 0;
  while (end > 0)
    {
      size_t n = end < sizeof buf ? (size_t)end : sizeof buf;
      uint64_t start = end - n;
      ssize_t got = pread (fd, buf, n, (off_t)start);
      if (got < 0)
        return -errno;
      if ((size_t)got != n)
        return 0; /* truncated meanwhile (rotated): from the start of what is left */
      for (size_t i = n; i-- > 0;)
        /* A final newline ends the last line; it does not start another. */
        if (buf[i] == '\n' && start + i != size - 1 && ++found == lines)
          return (int64_t)(start + i + 1);
      end = start;
    }
  return 0;
}

/* Whether the task has ended (exited or forgotten): a follower then reads to the end. */
static bool
task_over (const log_reader *r)
{
  const ebb_agent_task *t = ebb_agent_find (r->a, r->id);
  return !t || t->state == EBB_AGENT_EXITED;
}

static ssize_t
read_log (void *ud, char *buf, size_t max_bytes)
{
  log_reader *r = ud;
  bool over = r->follow && task_over (r); /* before the read: output precedes the exit */
  ssize_t n = pread (r->fd, buf, max_bytes, (off_t)r->off);
  if (n == 0)
    {
      struct stat st;
      /* Rotated (ebb_agent_rotate_log truncates in place): go on from the new start. */
      if (fstat (r->fd, &st) == 0 && (uint64_t)st.st_size < r->off)
        {
          r->off = 0;
          n = pread (r->fd, buf, max_bytes, 0);
        }
    }
  if (n > 0)
    {
      r->off += (uint64_t)n;
      return n;
    }
  if (n < 0)
    ebb_log_warn ("task %s: read log: %s", r->id, strerror (errno));
  return n < 0 || !r->follow || over ? EBB_HTTP_STREAM_END : 0;
}

static int
on_poll (sd_event_source *s, uint64_t usec, void *ud)
{
  log_reader *r = ud;
  struct stat st;
  if (task_over (r) || (fstat (r->fd, &st) == 0 && (uint64_t)st.st_size != r->off))
    ebb_http_stream_wake (r->st); /* a no-op while the reader is not waiting */
  sd_event_source_set_time (s, usec + EBB_AGENT_LOG_POLL_USEC);
  return 0;
}

static void
reader_done (void *ud)
{
  log_reader *r = ud;
  if (r->follow)
    r->a->log_followers--;
  sd_event_source_disable_unref (r->timer);
  close (r->fd);
  free (r);
}

/* Reads ?tail and ?follow; returns 0, or -EBB_EPARSE with *err. */
static int
parse_query (ebb_http_request *req, uint64_t *tail, bool *tailed, bool *follow, ebb_error **err)
{
  static const char *const args[] = { "tail", "follow", NULL };
  int r = ebb_http_request_query_check (req, args, err);
  if (r < 0)
    return r;
  *tailed = ebb_http_request_query (req, "tail") != NULL;
  r = ebb_http_request_query_u64 (req, "tail", 0, EBB_AGENT_LOG_MAX_TAIL, tail, err);
  if (r < 0)
    return r;
  const char *f = ebb_http_request_query (req, "follow");
  *follow = false;
  if (f && ebb_conf_parse_bool (f, follow) < 0)
    return ebb_error_set (err, EBB_EPARSE, "follow must be 1 or 0 (true or false)");
  return 0;
}

/* Opens id's log read-only (launched: the agent writes it); returns the fd, or -1 after
 * answering. */
static int
open_log (ebb_agent *a, const char *id, bool launched, ebb_http_response *resp, struct stat *st)
{
  char name[EBB_AGENT_ID_MAX + 8];
  snprintf (name, sizeof name, "%s.log", id);
  int fd = launched && a->logs_fd >= 0
               ? openat (a->logs_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)
               : -1;
  if (fd >= 0 && fstat (fd, st) == 0 && S_ISREG (st->st_mode))
    return fd;
  if (fd >= 0)
    close (fd);
  if (!launched)
    ebb_http_error (resp, 404, "not_found",
                    "task %s was adopted: its output is not written by the agent", id);
  else
    ebb_http_error (resp, 404, "not_found", "task %s has no log", id);
  return -1;
}

static int
reply (ebb_agent *a, const char *id, bool launched, ebb_http_request *req, ebb_http_response *resp)
{
  cleanup_error ebb_error *err = NULL;
  uint64_t tail = 0;
  bool tailed, follow;
  if (parse_query (req, &tail, &tailed, &follow, &err) < 0)
    {
      ebb_http_error (resp, 400, "bad_request", "%s", ebb_error_msg (&err));
      return EBB_HTTP_REPLIED;
    }
  if (follow && a->log_followers >= EBB_AGENT_LOG_MAX_FOLLOWERS)
    {
      ebb_http_reply_header (resp, "Retry-After", "5");
      ebb_http_error (resp, 429, "too_many_requests", "%u logs are followed already",
                      EBB_AGENT_LOG_MAX_FOLLOWERS);
      return EBB_HTTP_REPLIED;
    }
  struct stat st;
  int fd = open_log (a, id, launched, resp, &st);
  if (fd < 0)
    return EBB_HTTP_REPLIED;
  int64_t off = tailed ? ebb_agent_log_tail_offset (fd, (uint64_t)st.st_size, tail) : 0;
  log_reader *r = ebb_xcalloc (1, sizeof *r);
  *r = (log_reader){ .a = a, .fd = fd, .off = off > 0 ? (uint64_t)off : 0, .follow = follow };
  snprintf (r->id, sizeof r->id, "%s", id);
  if (follow)
    {
      int e = sd_event_add_time_relative (a->event, &r->timer, CLOCK_MONOTONIC,
                                          EBB_AGENT_LOG_POLL_USEC, 0, on_poll, r);
      if (e >= 0)
        e = sd_event_source_set_enabled (r->timer, SD_EVENT_ON);
      if (e < 0)
        {
          r->follow = false;
          reader_done (r);
          ebb_http_error (resp, 500, "internal", "follow timer: %s", strerror (-e));
          return EBB_HTTP_REPLIED;
        }
      a->log_followers++;
    }
  r->st = ebb_http_reply_stream (resp, 200, "text/plain; charset=utf-8", EBB_AGENT_LOG_CHUNK_BYTES,
                                 read_log, reader_done, r);
  return EBB_HTTP_REPLIED;
}

int
ebb_agent_logs_reply (ebb_agent *a, ebb_agent_task *t, ebb_http_request *req,
                      ebb_http_response *resp)
{
  return reply (a, t->id, t->source == EBB_AGENT_SRC_LAUNCHED, req, resp);
}

int
ebb_agent_logs_reply_kept (ebb_agent *a, const char *id, ebb_http_request *req,
                           ebb_http_response *resp)
{
  /* The task is over: a follower reads to the end and the stream ends (task_over). */
  return reply (a, id, true, req, resp);
}
