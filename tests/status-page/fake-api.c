/* A stand-in for the controller's JSON API behind the real status page, for
 * tests/test-status-page-chromium.sh: GET / is ebb_ctl_status_page_handler; GET /v1/cluster,
 * /v1/nodes, /v1/jobs and /v1/decisions answer the files cluster.json, nodes.json, jobs.json
 * and decisions.json of DIR (read at each request), and want "Authorization: Bearer TOKEN" when
 * a token is given; GET / never does (the page holds no data). Prints its base URL on stdout
 * once listening; runs until SIGTERM.
 *   fake-api DIR [TOKEN] */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "controller/status-page.h"
#include "lib/json.h"
#include "lib/util.h"

static const char *data_dir, *token;

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
  const char *name = strrchr (ebb_http_request_path (req), '/') + 1;
  cleanup_free char *path = ebb_xasprintf ("%s/%s.json", data_dir, name);
  cleanup_fclose FILE *f = fopen (path, "re");
  char buf[1 << 16];
  size_t n = f ? fread (buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = '\0';
  ebb_http_reply_text (resp, f ? 200 : 404, "application/json", f ? buf : "{}");
  return EBB_HTTP_REPLIED;
}

static const ebb_http_route routes[] = {
  { "GET", "/", ebb_ctl_status_page_handler, 0 },
  { "GET", "/v1/cluster", h_file, 0 },
  { "GET", "/v1/nodes", h_file, 0 },
  { "GET", "/v1/jobs", h_file, 0 },
  { "GET", "/v1/decisions", h_file, 0 },
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
  const char *listen[] = { "127.0.0.1:0", NULL };
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
