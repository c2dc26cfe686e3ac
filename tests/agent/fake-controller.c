/* A stand-in for ebb-controller in the agent tests: serves POST /v1/nodes/{name}/heartbeat
 * on argv[1] (lib/http-server), answers 200 {}, and appends one line per heartbeat to argv[3]:
 * the receive time (CLOCK_MONOTONIC, microseconds), a blank, the body as received. Its own
 * base URL goes to argv[2] once it listens. Stops on SIGTERM/SIGINT or after argv[4]
 * seconds (a bound, so a broken test never leaves it running). */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/http-server.h"
#include "lib/time.h"

static FILE *out;

static int
h_heartbeat (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  size_t n = 0;
  const char *body = ebb_http_request_body (req, &n);
  fprintf (out, "%llu %s %.*s\n", (unsigned long long)ebb_now_usec (),
           ebb_http_request_capture (req, "name"), (int)n, body);
  fflush (out);
  ebb_http_reply_json (resp, 200, json_object_new_object ());
  return EBB_HTTP_REPLIED;
}

static const ebb_http_route routes[] = {
  { "POST", "/v1/nodes/{name}/heartbeat", h_heartbeat, 0 },
};

static int
on_stop (sd_event_source *s, uint64_t usec, void *ud)
{
  (void)usec, (void)ud;
  return sd_event_exit (sd_event_source_get_event (s), 0);
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      fprintf (stderr, "usage: %s LISTEN URL-FILE OUT-FILE SECONDS\n", argv[0]);
      return 2;
    }
  out = fopen (argv[3], "ae");
  sd_event *e = NULL;
  if (!out || sd_event_default (&e) < 0)
    return 1;
  sigset_t ss;
  sigemptyset (&ss);
  sigaddset (&ss, SIGTERM);
  sigaddset (&ss, SIGINT);
  sigprocmask (SIG_BLOCK, &ss, NULL);
  sd_event_add_signal (e, NULL, SIGTERM, NULL, NULL);
  sd_event_add_signal (e, NULL, SIGINT, NULL, NULL);
  sd_event_add_time_relative (e, NULL, CLOCK_MONOTONIC, strtoull (argv[4], NULL, 10) * 1000000ULL,
                              0, on_stop, NULL);
  const char *listen[] = { argv[1], NULL };
  ebb_http_server_config hc = { 0 };
  hc.listen = listen;
  hc.routes = routes;
  hc.n_routes = 1;
  ebb_error *err = NULL;
  ebb_http_server *s = ebb_http_server_new (e, &hc, &err);
  if (!s)
    {
      fprintf (stderr, "fake-controller: %s\n", ebb_error_msg (&err));
      ebb_error_free (&err);
      return 1;
    }
  FILE *u = fopen (argv[2], "we");
  if (!u)
    return 1;
  fprintf (u, "%s\n", ebb_http_server_base_url (s, 0));
  fclose (u);
  int r = sd_event_loop (e);
  ebb_http_server_free (s);
  sd_event_unref (e);
  fclose (out);
  return r < 0 ? 1 : 0;
}
