/* ebbctl watch [JOB]: redraws the cluster (or one job) every interval, with a progress bar of
 * tasks done of total, running and suspended. A job's watch ends when the job does. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/ebbctl.h"
#include "lib/util.h"

typedef struct
{
  double interval_sec;
  uint64_t count; /* 0: no limit */
} watch_args;

static int
on_opt (int val, const char *arg, void *data, ebb_error **err)
{
  watch_args *w = data;
  char *end = NULL;
  if (val == EBBCTL_O_COUNT)
    return ebbctl_parse_uint ("--count", arg, 1, 1000000, &w->count, err);
  errno = 0;
  w->interval_sec = strtod (arg, &end);
  if (errno || end == arg || *end || !isfinite (w->interval_sec) || w->interval_sec < 0.1
      || w->interval_sec > 3600)
    return ebb_error_set (err, EINVAL, "--interval: want seconds in [0.1, 3600], got '%s'", arg);
  return 0;
}

static void
progress_line (ebbctl_ctx *ctx, uint64_t d, uint64_t r, uint64_t s, uint64_t n)
{
  char bar[512];
  ebbctl_progress (bar, sizeof bar, d, r, s, n, 40);
  if (!ctx->color)
    {
      fprintf (ctx->out, "%s\n", bar);
      return;
    }
  /* In colour: running cells green, suspended ones yellow, as in the tables. */
  for (const char *p = bar; *p; p++)
    {
      const char *sgr = *p == '>'   ? ebbctl_state_color ("running")
                        : *p == '~' ? ebbctl_state_color ("suspended")
                                    : NULL;
      if (sgr && (p == bar || p[-1] != *p))
        fprintf (ctx->out, "\033[%sm", sgr);
      fputc (*p, ctx->out);
      if (sgr && p[1] != *p)
        fputs ("\033[0m", ctx->out);
    }
  fputc ('\n', ctx->out);
}

/* One frame of a job. Returns 1 when the job has ended (rc set), 0 to go on, or < 0 on error. */
static int
job_frame (ebbctl_ctx *ctx, const char *id, int *rc)
{
  char path[200];
  snprintf (path, sizeof path, "/v1/jobs/%s", id);
  json_object *o = NULL;
  int r = ebbctl_call (ctx, false, "GET", path, NULL, &o);
  if (r != EBBCTL_EXIT_OK)
    return *rc = r, -1;
  const char *state = ebbctl_str (o, "state");
  if (ctx->json)
    fprintf (ctx->out, "%s\n",
             json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN
                                                    | JSON_C_TO_STRING_NOSLASHESCAPE));
  else
    {
      uint64_t d, rn, s, n;
      ebbctl_job_counts (o, &d, &rn, &s, &n);
      const char *name = ebbctl_str (o, "name");
      char nb[256], sb[64];
      fprintf (ctx->out, "job %s  %s  ", id, ebbctl_clean (nb, sizeof nb, name));
      char hs[64];
      ebbctl_held_state (hs, sizeof hs, o); /* "running (1 held)" */
      ebbctl_print_state (ctx->out, ctx->color, ebbctl_clean (sb, sizeof sb, hs));
      fputc ('\n', ctx->out);
      progress_line (ctx, d, rn, s, n);
      fputc ('\n', ctx->out);
      ebbctl_job_tasks_table (ctx, o);
    }
  bool ended = ebbctl_job_finished (state);
  if (ended)
    *rc = strcmp (state, "done") == 0 ? EBBCTL_EXIT_OK : EBBCTL_EXIT_FAILURE;
  json_object_put (o);
  return ended;
}

/* Sums the task counts of every job in list. */
static void
sum_counts (json_object *list, uint64_t c[4])
{
  c[0] = c[1] = c[2] = c[3] = 0;
  for (size_t i = 0; list && i < json_object_array_length (list); i++)
    {
      uint64_t d, r, s, n;
      ebbctl_job_counts (json_object_array_get_idx (list, i), &d, &r, &s, &n);
      c[0] += d, c[1] += r, c[2] += s, c[3] += n;
    }
}

static int
cluster_frame (ebbctl_ctx *ctx, int *rc)
{
  json_object *cl = NULL, *nodes = NULL, *jobs = NULL;
  int r = ebbctl_call (ctx, false, "GET", "/v1/cluster", NULL, &cl);
  if (r == EBBCTL_EXIT_OK)
    r = ebbctl_call (ctx, false, "GET", "/v1/nodes", NULL, &nodes);
  if (r == EBBCTL_EXIT_OK)
    r = ebbctl_call_pages (ctx, "/v1/jobs?state=active", "jobs", &jobs); /* the unfinished */
  if (r == EBBCTL_EXIT_OK && ctx->json)
    {
      json_object *frame = json_object_new_object ();
      json_object_object_add (frame, "cluster", json_object_get (cl));
      json_object_object_add (frame, "nodes", json_object_get (ebbctl_list (nodes, "nodes")));
      json_object_object_add (frame, "jobs", json_object_get (ebbctl_list (jobs, "jobs")));
      fprintf (ctx->out, "%s\n",
               json_object_to_json_string_ext (frame, JSON_C_TO_STRING_PLAIN
                                                          | JSON_C_TO_STRING_NOSLASHESCAPE));
      json_object_put (frame);
    }
  else if (r == EBBCTL_EXIT_OK)
    {
      uint64_t c[4];
      char buf[64];
      json_object *jl = ebbctl_list (jobs, "jobs");
      sum_counts (jl, c);
      char pb[128], cb[64];
      fprintf (ctx->out, "policy %s  preemptions %s\n",
               ebbctl_clean (pb, sizeof pb, ebbctl_str (cl, "policy")),
               ebbctl_clean (cb, sizeof cb, ebbctl_cell (cl, "preemptions", buf, sizeof buf)));
      progress_line (ctx, c[0], c[1], c[2], c[3]);
      fputs ("\nNODES\n", ctx->out);
      if (ebbctl_list (nodes, "nodes"))
        ebbctl_nodes_table (ctx, ebbctl_list (nodes, "nodes"));
      fputs ("\nJOBS\n", ctx->out);
      if (jl)
        ebbctl_jobs_table (ctx, jl);
    }
  json_object_put (cl), json_object_put (nodes), json_object_put (jobs);
  if (r != EBBCTL_EXIT_OK)
    return *rc = r, -1;
  return 0;
}

/* The terminal's height (rows) or width: its window size, else $LINES or $COLUMNS, else 24
 * rows and no limit of columns. */
static size_t
terminal_size (bool rows)
{
  struct winsize ws;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && (rows ? ws.ws_row : ws.ws_col) > 0)
    return rows ? ws.ws_row : ws.ws_col;
  const char *l = getenv (rows ? "LINES" : "COLUMNS");
  long v = l ? strtol (l, NULL, 10) : 0;
  return v > 0 && v < 100000 ? (size_t)v : rows ? 24 : 0;
}

/* One frame (its header line, then the job's or the cluster's view). On a terminal it is
 * drawn into memory first and cut to the terminal's height (the cursor at the last line
 * would scroll the top away). Returns as job_frame. */
static int
frame (ebbctl_ctx *ctx, const char *job, bool tty, int *rc)
{
  char *text = NULL;
  size_t len = 0;
  FILE *screen = ctx->out;
  if (tty)
    ctx->out = open_memstream (&text, &len);
  if (!ctx->json)
    {
      char ts[32];
      fprintf (ctx->out, "ebbctl watch  %s  %s\n", ctx->controller,
               ebbctl_timestamp (ts, sizeof ts, ebbctl_now ()));
    }
  int r = job ? job_frame (ctx, job, rc) : cluster_frame (ctx, rc);
  if (tty)
    {
      fclose (ctx->out);
      ctx->out = screen;
      /* One line is left for the cursor; a line as wide as the terminal would wrap. */
      size_t rows = terminal_size (true), cols = terminal_size (false);
      ebbctl_clip_lines (screen, text, rows > 1 ? rows - 1 : 1, cols > 1 ? cols - 1 : 0);
      free (text);
    }
  return r;
}

int
ebbctl_watch (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  watch_args w = { .interval_sec = 1 };
  int first = ebbctl_parse_cmd (cmd, argc, argv, on_opt, &w, ctx->out, &err);
  if (first < 0)
    return first == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  if (argc - first > 1)
    {
      ebb_error_set (&err, EINVAL, "want at most one JOB");
      return ebbctl_fail (cmd, &err);
    }
  const char *job = argc - first == 1 ? argv[first] : NULL;
  if (job && ebbctl_check_id ("job id", job, &err) < 0)
    return ebbctl_fail (cmd, &err);
  bool tty = !ctx->json && ctx->out == stdout && isatty (STDOUT_FILENO);
  int rc = EBBCTL_EXIT_OK;
  for (uint64_t i = 0; !w.count || i < w.count; i++)
    {
      if (tty)
        fputs ("\033[H\033[2J", ctx->out);
      else if (i && !ctx->json)
        fputs ("\n", ctx->out);
      rc = EBBCTL_EXIT_OK;
      int r = frame (ctx, job, tty, &rc);
      fflush (ctx->out);
      if (r > 0 || (job && rc == EBBCTL_EXIT_NOT_FOUND) || rc == EBBCTL_EXIT_USAGE)
        break;
      /* A failed call (say, the controller restarting) was reported; the view goes on, and
       * the exit status says whether the last frame failed. */
      if (w.count && i + 1 == w.count)
        break;
      struct timespec ts = { (time_t)w.interval_sec, (long)(fmod (w.interval_sec, 1.0) * 1e9) };
      nanosleep (&ts, NULL);
    }
  return rc;
}
