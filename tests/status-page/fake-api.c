/* A stand-in for the controller's JSON API, driven by files, for the status page's and
 * ebbctl's tests: GET / is the real ebb_ctl_status_page (never wants a token); a
 * request METHOD /v1/A[/B[/C[/D/E]]] is answered with the file DIR/METHOD_A[_B[_C[_D_E]]].json
 * (a task's logs: /v1/jobs/1/tasks/0/logs, GET_jobs_1_tasks_0_logs.json) (or, with a
 * query since=S, after=S, state=S or order=S, the first of DIR/METHOD_A[_B[_C]]_since_S.json,
 * ..._after_S.json, ..._state_S.json, ..._order_S.json that exists), read at each request (a
 * first line "#STATUS NNN" sets the status, else 200), or a JSON 404 when there is none; every
 * API request is appended to DIR/requests.log as
 * "METHOD PATH since=S[ after=A][ state=S][ order=O][ limit=L][ tail=N] BODY" on one line. With a
 * TOKEN, API requests without "Authorization: Bearer TOKEN" get a 401. Prints its base URL once
 * listening; runs until SIGTERM. It listens on the unix socket DIR/api.sock (tests reach it from
 * Chromium through socat). fake-api DIR [TOKEN] */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "controller/status-page.h"
#include "lib/json.h"
#include "lib/util.h"

static const char *data_dir, *token;

/* DIR/METHOD_A_B_C.json for /v1/A/B/C; NULL when a segment could escape DIR. */
static char *
file_of (ebb_http_request *req)
{
  const char *segs[5] = { ebb_http_request_capture (req, "a"), ebb_http_request_capture (req, "b"),
                          ebb_http_request_capture (req, "c"), ebb_http_request_capture (req, "d"),
                          ebb_http_request_capture (req, "e") };
  char *name = ebb_xasprintf ("%s/%s", data_dir, ebb_http_request_method (req));
  for (size_t i = 0; i < EBB_ARRAY_SIZE (segs) && segs[i]; i++)
    {
      if (!ebb_id_is_valid (segs[i], 128))
        {
          free (name);
          return NULL;
        }
      char *next = ebb_xasprintf ("%s_%s", name, segs[i]);
      free (name);
      name = next;
    }
  /* A page of a paged answer: DIR/METHOD_A_since_S.json or DIR/METHOD_A_after_S.json when
   * there is one; else a listing's filter or order (GET /v1/jobs?state=active, ?order=desc). */
  static const char *const pagers[] = { "since", "after", "state", "order" };
  char *path = NULL;
  for (size_t i = 0; i < EBB_ARRAY_SIZE (pagers) && !path; i++)
    {
      const char *v = ebb_http_request_query (req, pagers[i]);
      if (!v || !ebb_id_is_valid (v, 20))
        continue;
      path = ebb_xasprintf ("%s_%s_%s.json", name, pagers[i], v);
      if (access (path, F_OK) != 0)
        {
          free (path);
          path = NULL;
        }
    }
  if (!path)
    path = ebb_xasprintf ("%s.json", name);
  free (name);
  return path;
}

static void
log_request (ebb_http_request *req)
{
  cleanup_free char *path = ebb_xasprintf ("%s/requests.log", data_dir);
  cleanup_fclose FILE *f = fopen (path, "ae");
  const char *since = ebb_http_request_query (req, "since");
  if (!f)
    return;
  fprintf (f, "%s %s since=%s", ebb_http_request_method (req), ebb_http_request_path (req),
           since ? since : "-");
  static const char *const more[] = { "after", "state", "order", "limit", "tail" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (more); i++)
    {
      const char *v = ebb_http_request_query (req, more[i]);
      if (v)
        fprintf (f, " %s=%s", more[i], v);
    }
  fprintf (f, " %s\n", ebb_http_request_body (req, NULL));
}

static int
h_file (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  const char *auth = ebb_http_request_header (req, "Authorization");
  if (token && (!auth || strncmp (auth, "Bearer ", 7) != 0 || strcmp (auth + 7, token) != 0))
    {
      ebb_http_error (resp, 401, "unauthorized", "missing or wrong bearer token");
      return EBB_HTTP_REPLIED;
    }
  log_request (req);
  cleanup_free char *path = file_of (req);
  cleanup_fclose FILE *f = path ? fopen (path, "re") : NULL;
  static char buf[1 << 20];
  size_t n = f ? fread (buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = '\0';
  if (!f)
    {
      ebb_http_error (resp, 404, "not_found", "no %s", ebb_http_request_path (req));
      return EBB_HTTP_REPLIED;
    }
  unsigned status = 200;
  const char *body = buf;
  if (sscanf (buf, "#STATUS %u", &status) == 1)
    body = strchr (buf, '\n') ? strchr (buf, '\n') + 1 : "";
  ebb_http_reply_text (resp, status, "application/json", body);
  return EBB_HTTP_REPLIED;
}

#define ROUTES(m)                                                                                  \
  { m, "/v1/{a}", h_file, 0 }, { m, "/v1/{a}/{b}", h_file, 0 },                                    \
      { m, "/v1/{a}/{b}/{c}", h_file, 0 },                                                         \
  {                                                                                                \
    m, "/v1/{a}/{b}/{c}/{d}/{e}", h_file, 0                                                        \
  }

static const ebb_http_route routes[] = {
  { "GET", "/", ebb_ctl_status_page, 0 },
  ROUTES ("GET"),
  ROUTES ("POST"),
  ROUTES ("DELETE"),
};

int
main (int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  if (argc < 2 || argc > 3)
    {
      fprintf (stderr, "usage: fake-api DIR [TOKEN]\n");
      return 2;
    }
  data_dir = argv[1];
  token = argc == 3 ? argv[2] : NULL;
  sd_event *ev = NULL;
  sigset_t ss;
  sigemptyset (&ss);
  sigaddset (&ss, SIGTERM);
  sigprocmask (SIG_BLOCK, &ss, NULL);
  if (sd_event_default (&ev) < 0 || sd_event_add_signal (ev, NULL, SIGTERM, NULL, NULL) < 0)
    return 1;
  /* A unix socket: the HTTP glue wants a token on every TCP listener, for every route, and
   * this stand-in checks its token itself on the API routes only, as a browser needs. */
  cleanup_free char *spec = ebb_xasprintf ("unix:%s/api.sock", data_dir);
  const char *listen[] = { spec, NULL };
  ebb_http_server_config cfg
      = { .listen = listen, .routes = routes, .n_routes = EBB_ARRAY_SIZE (routes) };
  ebb_http_server *s = ebb_http_server_new (ev, &cfg, &err);
  if (!s)
    {
      fprintf (stderr, "fake-api: %s\n", ebb_error_msg (&err));
      return 1;
    }
  printf ("%s\n", ebb_http_server_base_url (s, 0));
  fflush (stdout);
  int r = sd_event_loop (ev);
  ebb_http_server_free (s);
  sd_event_unref (ev);
  return r < 0 ? 1 : 0;
}
