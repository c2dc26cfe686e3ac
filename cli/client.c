/* Calls to the controller or an agent, the bearer token, and reading their JSON. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/ebbctl.h"
#include "cli/follow.h"
#include "lib/http-client.h"
#include "lib/secret.h"
#include "lib/util.h"

/* The token file named by --token-file, else by EBB_TOKEN_FILE; NULL: none. */
static const char *
token_file (const ebbctl_ctx *ctx)
{
  const char *env = getenv ("EBB_TOKEN_FILE");
  return ctx->token_file ? ctx->token_file : env && *env ? env : NULL;
}

/* The token for this call: the named file's if any; for the controller over https, its
 * generated token when readable (no error when not: the server then says 401). Never the
 * generated one over plain http (whoever holds the port would get it) nor over a unix socket
 * (which needs none). *src: the file the token came from. */
static int
token_for (ebbctl_ctx *ctx, bool agent, const char *base, char **out, const char **src,
           ebb_error **err)
{
  *out = NULL;
  *src = token_file (ctx);
  if (*src)
    return ebb_secret_read_token (*src, out, err);
  if (agent || strncmp (base, "https://", 8) != 0)
    return 0;
  *src = EBBCTL_DEFAULT_CONTROLLER_TOKEN;
  if (access (*src, R_OK) == 0)
    ebb_secret_read_token (*src, out, NULL);
  return 0;
}

/* TOKEN_SRC: the file whose token was sent, NULL when none was: a 401 then says which of
 * the two is the matter (a wrong token, not a missing --token-file). */
static void
print_http_error (const char *what, const char *base, const char *path, ebb_http_result *res,
                  const char *token_src)
{
  const char *code = ebbctl_str (res->json, "error");
  const char *detail = ebbctl_str (res->json, "detail");
  fprintf (stderr, "ebbctl: %s %s%s: HTTP %ld", what, base, path, res->status);
  if (code || detail)
    fprintf (stderr, " %s: %s", code ? code : "error", detail ? detail : "");
  fputc ('\n', stderr);
  if (res->status == 401 && token_src)
    fprintf (stderr, "ebbctl: the server refused the token of %s\n", token_src);
  else if (res->status == 401 && strncmp (base, "http://", 7) == 0)
    fputs ("ebbctl: the server wants a bearer token, which ebbctl sends only over https:// or "
           "a unix socket: use unix:/PATH on the server's machine, or https:// with --ca-file\n",
           stderr);
  else if (res->status == 401)
    fputs ("ebbctl: the server wants a bearer token: pass --token-file FILE\n", stderr);
}

/* The controller to ask after base answered (r, res): the leader a standby named (503
 * not_leader), else after a failed connection (or a standby that knows no leader) the next of
 * the replicas; NULL: none, the answer stands. */
static const char *
next_controller (ebbctl_ctx *ctx, const char *base, int r, const ebb_http_result *res)
{
  const char *code = r == 0 ? ebbctl_str (res->json, "error") : NULL;
  bool standby = r == 0 && res->status == 503 && code && strcmp (code, "not_leader") == 0;
  const char *leader = standby ? ebbctl_str (res->json, "leader") : NULL;
  if (leader && strcmp (leader, base) != 0)
    return leader;
  if (!ctx->controllers || (r == 0 && !standby) || r == -EBB_EREFUSED)
    return NULL;
  for (size_t i = 0; ctx->controllers[i]; i++)
    if (strcmp (ctx->controllers[i], base) == 0)
      return ctx->controllers[i + 1];
  return ctx->controllers[0]; /* a leader named by a standby, not in the list, failed */
}

/* ebbctl_call, or with sink a call whose 2xx body goes to sink as it comes (no time limit). */
static int
call (ebbctl_ctx *ctx, bool agent, const char *method, const char *path, json_object *body,
      bool (*sink) (const char *, size_t, void *), void *sink_ud, json_object **out)
{
  cleanup_error ebb_error *err = NULL;
  const char *base = agent ? ctx->agent : ctx->controller;
  const char *what = agent ? "agent" : "controller";
  *out = NULL;
  if (!base)
    {
      fprintf (stderr, "ebbctl: no agent address: pass --agent URL or set EBB_AGENT (no agent "
                       "socket at " EBBCTL_DEFAULT_AGENT_SOCKET ")\n");
      return EBBCTL_EXIT_USAGE;
    }
  cleanup_free char *token = NULL;
  const char *token_src = NULL;
  ebb_http_result res = { 0 };
  int r;
  /* Replicas: a standby names the leader, a failed connection moves to the next one, a
   * silent one to the leader the others name; a submission asked again is one job
   * (request_id). */
  size_t hops = 0, n = 0;
  while (ctx->controllers && ctx->controllers[n])
    n++;
  for (;;)
    {
      free (token);
      token = NULL;
      if (token_for (ctx, agent, base, &token, &token_src, &err) < 0)
        {
          fprintf (stderr, "ebbctl: %s\n", ebb_error_msg (&err));
          return EBBCTL_EXIT_FAILURE;
        }
      ebb_http_call_opts opts = { .bearer_token = token,
                                  .timeout_ms = 30000,
                                  .ca_file = ctx->ca_file,
                                  .sink = sink,
                                  .sink_ud = sink_ud,
                                  .no_timeout = sink != NULL };
      /* With replicas, a silent one (a paused leader) is not waited out: see cli/follow.c. */
      cleanup_free char *moved = NULL;
      if (!agent && n > 1)
        r = ebbctl_follow_call ((const char *const *)ctx->controllers, method, base, path, body,
                                &opts, &res, &moved, &err);
      else
        r = ebb_http_call (method, base, path, body, &opts, &res, &err);
      const char *next = agent || hops++ > 2 * n + 2 ? NULL
                         : moved                     ? moved
                                                     : next_controller (ctx, base, r, &res);
      if (!next)
        break;
      char *nb = ebb_xstrdup (next); /* next may be in res */
      ebb_http_result_clear (&res);
      ebb_error_free (&err);
      free (ctx->controller);
      ctx->controller = nb;
      base = nb;
    }
  if (r == -EBB_EREFUSED)
    {
      /* A deliberate refusal, not a network failure: say so, and what to do. */
      fprintf (stderr,
               "ebbctl: not sending the token of %s to the %s at %s: plain http reaches "
               "whoever holds that port (any local user, once the daemon stops); use "
               "unix:/PATH on its machine (no token needed) or https:// with --ca-file\n",
               token_src, what, base);
      return EBBCTL_EXIT_FAILURE;
    }
  if (r < 0)
    {
      /* Over a unix socket curl speaks of localhost port 80: say what is wrong with the
       * socket instead when that is the matter. */
      struct stat st;
      if (strncmp (base, "unix:", 5) == 0 && stat (base + 5, &st) < 0)
        fprintf (stderr, "ebbctl: cannot reach the %s at %s: %s%s\n", what, base, strerror (errno),
                 agent ? ""
                       : " (is ebb-controller running on this machine? else --controller "
                         "https://HOST:PORT or EBB_CONTROLLER)");
      else if (strncmp (base, "unix:", 5) == 0 && !S_ISSOCK (st.st_mode))
        fprintf (stderr, "ebbctl: cannot reach the %s at %s: not a socket\n", what, base);
      else
        fprintf (stderr, "ebbctl: cannot reach the %s at %s: %s\n", what, base,
                 ebb_error_msg (&err));
      if (!agent && ctx->controller_default)
        fputs ("ebbctl: that is the default address (no --controller, no EBB_CONTROLLER)\n",
               stderr);
      return EBBCTL_EXIT_FAILURE;
    }
  int rc = EBBCTL_EXIT_OK;
  if (res.status < 200 || res.status > 299)
    {
      print_http_error (what, base, path, &res, token ? token_src : NULL);
      rc = res.status == 404 ? EBBCTL_EXIT_NOT_FOUND : EBBCTL_EXIT_FAILURE;
    }
  else if (!res.json && res.body_len)
    {
      fprintf (stderr, "ebbctl: the %s at %s answered %s with no JSON\n", what, base, path);
      rc = EBBCTL_EXIT_FAILURE;
    }
  else
    *out = ebb_steal_ptr (&res.json);
  ebb_http_result_clear (&res);
  return rc;
}

int
ebbctl_call (ebbctl_ctx *ctx, bool agent, const char *method, const char *path, json_object *body,
             json_object **out)
{
  return call (ctx, agent, method, path, body, NULL, NULL, out);
}

/* Writes what comes to the stream; false (the call stops) when it cannot. */
static bool
to_file (const char *data, size_t len, void *ud)
{
  FILE *f = ud;
  if (fwrite (data, 1, len, f) != len)
    return false;
  fflush (f); /* a follower reads it as it comes */
  return !ferror (f);
}

int
ebbctl_call_stream (ebbctl_ctx *ctx, bool agent, const char *path, FILE *to)
{
  json_object *none = NULL;
  int rc = call (ctx, agent, "GET", path, NULL, to_file, to, &none);
  json_object_put (none);
  return rc;
}

int
ebbctl_call_pages (ebbctl_ctx *ctx, const char *path, const char *list, json_object **out)
{
  *out = NULL;
  json_object *all = NULL;
  int rc = ebbctl_call (ctx, false, "GET", path, NULL, &all);
  uint64_t after = 0;
  for (bool first = true; rc == EBBCTL_EXIT_OK; first = false)
    {
      json_object *page = first ? all : NULL, *items = NULL, *next = NULL;
      if (!first)
        {
          cleanup_free char *p
              = ebb_xasprintf ("%s%safter=%" PRIu64, path, strchr (path, '?') ? "&" : "?", after);
          rc = ebbctl_call (ctx, false, "GET", p, NULL, &page);
          if (rc != EBBCTL_EXIT_OK)
            break;
        }
      items = ebbctl_list (page, list);
      if (!items)
        {
          fprintf (stderr, "ebbctl: the controller answered GET %s with no list of %s\n", path,
                   list);
          rc = EBBCTL_EXIT_FAILURE;
        }
      else if (!first)
        {
          json_object *into = ebbctl_list (all, list);
          for (size_t i = 0; i < json_object_array_length (items); i++)
            json_object_array_add (into, json_object_get (json_object_array_get_idx (items, i)));
        }
      bool more = rc == EBBCTL_EXIT_OK && json_object_object_get_ex (page, "next_after", &next)
                  && next != NULL;
      int64_t v = more ? json_object_get_int64 (next) : 0;
      if (more
          && (!json_object_is_type (next, json_type_int) || v < 0
              || (!first && (uint64_t)v <= after)))
        {
          fprintf (stderr, "ebbctl: the controller answered GET %s with a bad next page\n", path);
          rc = EBBCTL_EXIT_FAILURE;
        }
      if (!first)
        json_object_put (page);
      if (rc != EBBCTL_EXIT_OK || !more)
        break;
      after = (uint64_t)v;
    }
  if (rc != EBBCTL_EXIT_OK)
    {
      json_object_put (all);
      return rc;
    }
  if (json_object_object_get_ex (all, "next_after", NULL))
    json_object_object_add (all, "next_after", NULL);
  *out = all;
  return rc;
}

void
ebbctl_print_json (ebbctl_ctx *ctx, json_object *obj)
{
  fprintf (ctx->out, "%s\n",
           json_object_to_json_string_ext (obj, JSON_C_TO_STRING_PRETTY
                                                    | JSON_C_TO_STRING_NOSLASHESCAPE
                                                    | JSON_C_TO_STRING_SPACED));
}

json_object *
ebbctl_list (json_object *obj, const char *key)
{
  if (json_object_is_type (obj, json_type_array))
    return obj;
  json_object *v = NULL;
  if (json_object_is_type (obj, json_type_object) && json_object_object_get_ex (obj, key, &v)
      && json_object_is_type (v, json_type_array))
    return v;
  return NULL;
}

const char *
ebbctl_str (json_object *obj, const char *key)
{
  json_object *v = NULL;
  if (!json_object_is_type (obj, json_type_object) || !json_object_object_get_ex (obj, key, &v)
      || !json_object_is_type (v, json_type_string))
    return NULL;
  return json_object_get_string (v);
}

const char *
ebbctl_cell (json_object *obj, const char *key, char *buf, size_t size)
{
  json_object *v = NULL;
  if (!json_object_is_type (obj, json_type_object) || !json_object_object_get_ex (obj, key, &v)
      || !v)
    return "-";
  switch (json_object_get_type (v))
    {
    case json_type_string:
      return json_object_get_string (v);
    case json_type_int:
      snprintf (buf, size, "%lld", (long long)json_object_get_int64 (v));
      return buf;
    case json_type_double:
      snprintf (buf, size, "%g", json_object_get_double (v));
      return buf;
    case json_type_boolean:
      return json_object_get_boolean (v) ? "yes" : "no";
    default:
      snprintf (buf, size, "%s",
                json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN
                                                       | JSON_C_TO_STRING_NOSLASHESCAPE));
      return buf;
    }
}

double
ebbctl_num (json_object *obj, const char *key, double def)
{
  json_object *v = NULL;
  if (!json_object_is_type (obj, json_type_object) || !json_object_object_get_ex (obj, key, &v)
      || !(json_object_is_type (v, json_type_int) || json_object_is_type (v, json_type_double)))
    return def;
  return json_object_get_double (v);
}

int
ebbctl_fail (const ebbctl_cmd *cmd, ebb_error **err)
{
  int code = ebb_error_code (err);
  fprintf (stderr, "ebbctl%s%s: %s\n", cmd ? " " : "", cmd ? cmd->name : "", ebb_error_msg (err));
  if (code == EINVAL)
    {
      fprintf (stderr, "Try 'ebbctl %s%s--help'.\n", cmd ? cmd->name : "", cmd ? " " : "");
      return EBBCTL_EXIT_USAGE;
    }
  return code == ENOENT ? EBBCTL_EXIT_NOT_FOUND : EBBCTL_EXIT_FAILURE;
}

json_object *
ebbctl_member (json_object *obj, const char *key)
{
  json_object *v = NULL;
  return json_object_is_type (obj, json_type_object) && json_object_object_get_ex (obj, key, &v)
             ? v
             : NULL;
}
