/* ebbctl submit [...] -- ARGV...: POST /v1/jobs; --wait polls the job until it ends. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "cli/ebbctl.h"
#include "lib/json.h"
#include "lib/time.h"
#include "lib/util.h"

#define MAX_TASKS 10000

static int
on_opt (int val, const char *arg, void *data, ebb_error **err)
{
  ebbctl_submit_args *a = data;
  char *end = NULL;
  if (val != EBBCTL_O_WAIT && val != EBBCTL_O_JSON_FILE)
    a->body_opts = true;
  switch (val)
    {
    case EBBCTL_O_NAME:
      return ebbctl_parse_name (arg, &a->name, err);
    case EBBCTL_O_CLASS:
      if (strcmp (arg, "short") && strcmp (arg, "long") && strcmp (arg, "auto"))
        return ebb_error_set (err, EINVAL, "--class: want short, long or auto, got '%s'", arg);
      a->klass = arg;
      return 0;
    case EBBCTL_O_TASKS:
      return ebbctl_parse_uint ("--tasks", arg, 1, MAX_TASKS, &a->tasks, err);
    case EBBCTL_O_CPU:
      return ebbctl_parse_uint ("--cpu", arg, 1, 1048576, &a->cpu_millis, err);
    case EBBCTL_O_MEMORY:
      return ebbctl_parse_size ("--memory", arg, &a->memory_bytes, err);
    case EBBCTL_O_EST:
      errno = 0;
      a->est_sec = strtod (arg, &end);
      if (errno || end == arg || *end || !isfinite (a->est_sec) || a->est_sec <= 0
          || a->est_sec > 1e9)
        return ebb_error_set (err, EINVAL, "--est: want seconds > 0, got '%s'", arg);
      return 0;
    case EBBCTL_O_PRIORITY:
      errno = 0;
      a->priority = strtoll (arg, &end, 10);
      if (errno || end == arg || *end || a->priority < -1000000 || a->priority > 1000000)
        return ebb_error_set (err, EINVAL,
                              "--priority: want an integer in [-1000000, 1000000], got '%s'", arg);
      return 0;
    case EBBCTL_O_TIME_LIMIT:
      {
        uint64_t usec = 0;
        if (ebb_parse_duration_usec (arg, 1000000, &usec) < 0 || usec < 1000000)
          return ebb_error_set (
              err, EINVAL, "--time-limit: want a duration of 1s or more (90s, 2h), got '%s'", arg);
        a->time_limit_sec = (usec + 999999) / 1000000;
        return 0;
      }
    case EBBCTL_O_NOTIFY_SIGNAL:
      if (!*arg)
        return ebb_error_set (err, EINVAL, "--notify-signal: empty signal name");
      a->notify_signal = arg;
      return 0;
    case EBBCTL_O_WAIT:
      a->wait = true;
      return 0;
    case EBBCTL_O_JSON_FILE:
      if (!*arg)
        return ebb_error_set (err, EINVAL, "--json: empty file name");
      a->json_file = arg;
      return 0;
    default:
      return ebb_error_set (err, EINVAL, "unexpected option");
    }
}

int
ebbctl_submit_parse (const ebbctl_cmd *cmd, int argc, char **argv, ebbctl_submit_args *out,
                     FILE *help_out, ebb_error **err)
{
  *out = (ebbctl_submit_args){
    .klass = "auto", .tasks = 1, .cpu_millis = 1000, .memory_bytes = 256ULL << 20, .est_sec = -1
  };
  int first = ebbctl_parse_cmd (cmd, argc, argv, on_opt, out, help_out, err);
  if (first < 0)
    return first;
  if (out->json_file)
    {
      /* The file is the whole body: nothing else may build one. */
      if (out->body_opts)
        return ebb_error_set (err, EINVAL,
                              "--json FILE is the whole body: it cannot be combined with "
                              "--name, --class, --tasks, --cpu, --memory, --est, --priority, "
                              "--time-limit or --notify-signal");
      if (first < argc || strcmp (argv[first - 1], "--") == 0)
        return ebb_error_set (err, EINVAL,
                              "--json FILE is the whole body: it cannot be combined with a "
                              "program (-- ARGV...)");
      return 0;
    }
  /* getopt stops at "--" and consumes it; without "--" the program must still come first. */
  if (first >= argc)
    return ebb_error_set (err, EINVAL, "no program given (submit [OPTION]... -- ARGV...)");
  if (strcmp (argv[first - 1], "--") != 0)
    return ebb_error_set (err, EINVAL, "put '--' before the program: submit [OPTION]... -- %s",
                          argv[first]);
  if (!argv[first][0])
    return ebb_error_set (err, EINVAL, "the program name is empty");
  out->argv = argv + first;
  if (!out->name)
    {
      const char *base = strrchr (argv[first], '/');
      base = base ? base + 1 : argv[first];
      out->name = ebb_id_is_valid (base, 128) ? base : "job";
    }
  return 0;
}

/* See ebbctl.h. */
json_object *
ebbctl_job_body (const char *name, const char *klass, double est_sec, const char *request_id)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "name", name);
  ebb_json_add_string (o, "class", klass);
  if (est_sec > 0)
    ebb_json_add_double (o, "est_task_sec", est_sec);
  if (request_id)
    ebb_json_add_string (o, "request_id", request_id);
  return o;
}

json_object *
ebbctl_submit_body (const ebbctl_submit_args *a, const char *request_id)
{
  json_object *o = ebbctl_job_body (a->name, a->klass, a->est_sec, request_id);
  json_object *tasks = json_object_new_array ();
  for (uint64_t i = 0; i < a->tasks; i++)
    {
      json_object *t = json_object_new_object ();
      ebb_json_add_strv (t, "argv", a->argv);
      ebb_json_add_uint64 (t, "cpu_millis", a->cpu_millis);
      ebb_json_add_uint64 (t, "memory_bytes", a->memory_bytes);
      json_object_array_add (tasks, t);
    }
  json_object_object_add (o, "tasks", tasks);
  /* Only what was asked: a default priority is not sent, so a policy without tiers takes
   * the job. */
  if (a->priority)
    ebb_json_add_int64 (o, "priority", a->priority);
  if (a->time_limit_sec)
    ebb_json_add_uint64 (o, "time_limit_sec", a->time_limit_sec);
  if (a->notify_signal)
    ebb_json_add_string (o, "notify_signal", a->notify_signal);
  return o;
}

/* See ebbctl.h. */
void
ebbctl_request_id (char *buf, size_t size)
{
  unsigned char r[12] = { 0 };
  if (getrandom (r, sizeof r, 0) != (ssize_t)sizeof r)
    {
      uint64_t t = (uint64_t)time (NULL) ^ ((uint64_t)getpid () << 32);
      memcpy (r, &t, sizeof t);
    }
  size_t n = snprintf (buf, size, "ebbctl-");
  for (size_t i = 0; i < sizeof r && n + 2 < size; i++)
    n += snprintf (buf + n, size - n, "%02x", r[i]);
}

#define MAX_BODY_BYTES (16u << 20)

/* See ebbctl.h. */
json_object *
ebbctl_submit_read_json (const char *file, ebb_error **err)
{
  bool in = strcmp (file, "-") == 0;
  FILE *f = in ? stdin : fopen (file, "r");
  if (!f)
    {
      ebb_error_set (err, EINVAL, "--json: cannot open '%s': %s", file, strerror (errno));
      return NULL;
    }
  cleanup_free char *buf = ebb_xmalloc (MAX_BODY_BYTES + 1);
  size_t n = fread (buf, 1, MAX_BODY_BYTES + 1, f);
  bool bad = ferror (f);
  int saved = errno;
  if (!in)
    fclose (f);
  if (bad)
    {
      ebb_error_set (err, EINVAL, "--json: cannot read '%s': %s", file, strerror (saved));
      return NULL;
    }
  if (n > MAX_BODY_BYTES)
    {
      ebb_error_set (err, EINVAL, "--json: '%s' is larger than %u MiB", file, MAX_BODY_BYTES >> 20);
      return NULL;
    }
  cleanup_error ebb_error *perr = NULL;
  json_object *o = ebb_json_parse (buf, n, 0, &perr);
  if (!o)
    {
      ebb_error_set (err, EINVAL, "--json: '%s': %s", file, ebb_error_msg (&perr));
      return NULL;
    }
  if (!json_object_is_type (o, json_type_object))
    {
      json_object_put (o);
      ebb_error_set (err, EINVAL, "--json: '%s' is not a JSON object (want the POST /v1/jobs body)",
                     file);
      return NULL;
    }
  return o;
}

/* Polls the job until it ends. Returns 0 when done, 1 when failed or killed or on an error. */
static int
wait_job (ebbctl_ctx *ctx, const char *id, json_object **last)
{
  cleanup_free char *path = ebb_xasprintf ("/v1/jobs/%s", id);
  for (;;)
    {
      json_object *o = NULL;
      int rc = ebbctl_call (ctx, false, "GET", path, NULL, &o);
      if (rc != EBBCTL_EXIT_OK)
        return rc;
      const char *state = ebbctl_str (o, "state");
      if (ebbctl_job_finished (state))
        {
          rc = strcmp (state, "done") == 0 ? EBBCTL_EXIT_OK : EBBCTL_EXIT_FAILURE;
          *last = o;
          return rc;
        }
      json_object_put (o);
      struct timespec ts = { 0, 200 * 1000 * 1000 };
      nanosleep (&ts, NULL);
    }
}

/* See ebbctl.h. */
int
ebbctl_post_job (ebbctl_ctx *ctx, json_object *body, bool print, char **id)
{
  json_object *o = NULL;
  int rc = ebbctl_call (ctx, false, "POST", "/v1/jobs", body, &o);
  json_object_put (body);
  if (rc != EBBCTL_EXIT_OK)
    return rc;
  char idbuf[64], clean[64];
  const char *s = ebbctl_clean (clean, sizeof clean, ebbctl_cell (o, "id", idbuf, sizeof idbuf));
  if (print && ctx->json)
    ebbctl_print_json (ctx, o);
  else if (print)
    fprintf (ctx->out, "%s\n", s);
  if (id)
    *id = ebb_xstrdup (s);
  json_object_put (o);
  return EBBCTL_EXIT_OK;
}

int
ebbctl_submit (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  ebbctl_submit_args a;
  int r = ebbctl_submit_parse (cmd, argc, argv, &a, ctx->out, &err);
  if (r < 0)
    return r == -1 ? EBBCTL_EXIT_OK : ebbctl_fail (cmd, &err);
  char rid[64];
  ebbctl_request_id (rid, sizeof rid);
  json_object *body = NULL;
  if (a.json_file && !(body = ebbctl_submit_read_json (a.json_file, &err)))
    return ebbctl_fail (cmd, &err);
  /* The file's body is posted as it is, the controller validates it (a 400 says why); only
   * a request_id is added when it has none, so that a retried POST is not a second job. */
  if (body && !json_object_object_get_ex (body, "request_id", NULL))
    ebb_json_add_string (body, "request_id", rid);
  if (!body)
    body = ebbctl_submit_body (&a, rid);
  cleanup_free char *id = NULL;
  int rc = ebbctl_post_job (ctx, body, !a.wait, &id);
  if (rc != EBBCTL_EXIT_OK || !a.wait)
    return rc;
  if (ebbctl_check_id ("job id in the answer", id, &err) < 0)
    return ebbctl_fail (cmd, &err);
  json_object *last = NULL;
  rc = wait_job (ctx, id, &last);
  char clean[64];
  if (last && ctx->json)
    ebbctl_print_json (ctx, last);
  else if (last)
    fprintf (ctx->out, "%s %s\n", id,
             ebbctl_clean (clean, sizeof clean, ebbctl_str (last, "state")));
  json_object_put (last);
  return rc;
}
