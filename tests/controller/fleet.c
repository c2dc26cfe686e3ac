/* A fleet of virtual agents in one process, for the controller's scale bench: N nodes, each
 * reachable at http://127.0.0.1:PORT/nK (the agent API under a per-node prefix: launch,
 * suspend, resume, delete) and each sending POST /v1/nodes/nK/heartbeat every HB seconds
 * (spread over the period) with its capacity, URL and tasks. A task runs for the seconds of
 * its argv ["sleep", S] (else forever) and is then reported exited with status 0.
 *
 * Flood mode (FLOOD-TASKS-PER-SEC > 0): after the first heartbeat of every node, submits
 * jobs of TASKS-PER-JOB tasks of "sleep 0.5" at that rate for FLOOD-SEC seconds, then prints
 * the submissions and the launches the fleet received in that window and 2 s after, as
 * placements per second of the window ("flood: ... placements/s").
 *
 * The controller sends its token to agents only over https or a unix socket, and the nodes
 * need distinct addresses: with EBB_FLEET_TLS_CERT and EBB_FLEET_TLS_KEY (PEM files; the
 * controller's --agent-ca verifies the certificate, which names 127.0.0.1) the fleet serves
 * https. CONTROLLER-URL is best the controller's unix socket (no token needed there).
 *
 * Usage: fleet CONTROLLER-URL N TOKEN-FILE [HB-SEC] [CPU-MILLIS-PER-NODE]
 *              [FLOOD-TASKS-PER-SEC FLOOD-SEC [TASKS-PER-JOB]] */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/http-client.h"
#include "lib/http-server.h"
#include "lib/json.h"
#include "lib/secret.h"
#include "lib/time.h"
#include "lib/util.h"

typedef struct vtask
{
  char *id;
  char *json_id;
  uint64_t generation;
  uint64_t end_usec; /* 0: forever */
  int state;         /* 0 running, 1 suspended, 2 exited */
  struct vtask *next;
} vtask;

typedef struct
{
  vtask *tasks;
  uint64_t seq;
} vnode;

static struct
{
  sd_event *ev;
  ebb_http_server *srv;
  ebb_http_client *cli;
  const char *ctl;
  char *token;
  char *base;
  uint32_t n, next_hb;
  uint64_t hb_usec, cpu;
  vnode *nodes;
  uint64_t hb_ok, hb_err;
  uint64_t launches; /* received, all time */
  /* Flood mode. */
  double flood_rate, flood_sec;
  uint32_t flood_per_job;
  uint64_t flood_t0, flood_due, flood_sent, flood_ok, flood_err, flood_launches0;
  bool flood_done;
  char *flood_body;
} F;

static long
node_of (ebb_http_request *req)
{
  const char *s = ebb_http_request_capture (req, "node");
  char *end;
  long k = s && s[0] == 'n' ? strtol (s + 1, &end, 10) : -1;
  return k >= 0 && k < (long)F.n && *end == '\0' ? k : -1;
}

static vtask *
find (vnode *n, const char *id)
{
  for (vtask *t = n->tasks; t; t = t->next)
    if (strcmp (t->id, id) == 0)
      return t;
  return NULL;
}

static json_object *
task_json (const vtask *t)
{
  json_object *o = json_object_new_object ();
  ebb_json_add_string (o, "id", t->id);
  ebb_json_add_string (o, "state",
                       t->state == 0   ? "running"
                       : t->state == 1 ? "suspended"
                                       : "exited");
  if (t->state == 2)
    ebb_json_add_int64 (o, "exit_status", 0);
  ebb_json_add_uint64 (o, "generation", t->generation);
  return o;
}

static int
h_launch (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  long k = node_of (req);
  json_object *b = ebb_http_request_json (req), *v, *argv;
  if (k < 0 || !b || !json_object_object_get_ex (b, "id", &v))
    {
      ebb_http_error (resp, 400, "bad_request", "bad launch");
      return EBB_HTTP_REPLIED;
    }
  if (find (&F.nodes[k], json_object_get_string (v)))
    {
      ebb_http_error (resp, 409, "conflict", "exists");
      return EBB_HTTP_REPLIED;
    }
  vtask *t = ebb_xcalloc (1, sizeof *t);
  t->id = ebb_xstrdup (json_object_get_string (v));
  if (json_object_object_get_ex (b, "generation", &v))
    t->generation = (uint64_t)json_object_get_int64 (v);
  if (json_object_object_get_ex (b, "argv", &argv) && json_object_array_length (argv) == 2
      && strcmp (json_object_get_string (json_object_array_get_idx (argv, 0)), "sleep") == 0)
    t->end_usec
        = ebb_now_usec ()
          + (uint64_t)(atof (json_object_get_string (json_object_array_get_idx (argv, 1))) * 1e6);
  t->next = F.nodes[k].tasks;
  F.nodes[k].tasks = t;
  F.launches++;
  ebb_http_reply_json (resp, 201, task_json (t));
  return EBB_HTTP_REPLIED;
}

static int
h_op (ebb_http_request *req, ebb_http_response *resp, int op)
{
  long k = node_of (req);
  const char *id = ebb_http_request_capture (req, "id");
  vtask *t = k >= 0 && id ? find (&F.nodes[k], id) : NULL;
  if (!t)
    {
      ebb_http_error (resp, 404, "not_found", "no task");
      return EBB_HTTP_REPLIED;
    }
  if (op < 2 && t->state != 2)
    t->state = op;
  else if (op == 2)
    t->state = 2, t->end_usec = 1;
  ebb_http_reply_json (resp, 200, task_json (t));
  return EBB_HTTP_REPLIED;
}

static int
h_suspend (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  return h_op (req, resp, 1);
}
static int
h_resume (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  return h_op (req, resp, 0);
}
static int
h_delete (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  (void)ud;
  long k = node_of (req);
  const char *id = ebb_http_request_capture (req, "id");
  for (vtask **pp = k >= 0 && id ? &F.nodes[k].tasks : NULL; pp && *pp; pp = &(*pp)->next)
    if (strcmp ((*pp)->id, id) == 0)
      {
        vtask *t = *pp;
        *pp = t->next;
        ebb_http_reply_json (resp, 200, task_json (t));
        free (t->id);
        free (t);
        return EBB_HTTP_REPLIED;
      }
  ebb_http_error (resp, 404, "not_found", "no task");
  return EBB_HTTP_REPLIED;
}

static const ebb_http_route routes[] = {
  { "POST", "/{node}/v1/tasks", h_launch, EBB_HTTP_ROUTE_JSON },
  { "POST", "/{node}/v1/tasks/{id}/suspend", h_suspend, EBB_HTTP_ROUTE_JSON },
  { "POST", "/{node}/v1/tasks/{id}/resume", h_resume, EBB_HTTP_ROUTE_JSON },
  { "DELETE", "/{node}/v1/tasks/{id}", h_delete, 0 },
};

static void
hb_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  (void)ud;
  if (!err && res->status == 200)
    F.hb_ok++;
  else
    F.hb_err++;
}

static void
heartbeat (uint32_t k)
{
  vnode *n = &F.nodes[k];
  uint64_t now = ebb_now_usec ();
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "seq", ++n->seq);
  cleanup_free char *url = ebb_xasprintf ("%s/n%u", F.base, k);
  ebb_json_add_string (o, "url", url);
  json_object *node = json_object_new_object (), *cap = json_object_new_object ();
  ebb_json_add_uint64 (cap, "cpu_millis", F.cpu);
  ebb_json_add_uint64 (cap, "memory_bytes", 4ULL << 30);
  json_object_object_add (node, "capacity", cap);
  json_object_object_add (o, "node", node);
  json_object *arr = json_object_new_array ();
  for (vtask *t = n->tasks; t; t = t->next)
    {
      if (t->state == 0 && t->end_usec && now >= t->end_usec)
        t->state = 2;
      json_object_array_add (arr, task_json (t));
    }
  json_object_object_add (o, "tasks", arr);
  cleanup_free char *path = ebb_xasprintf ("/v1/nodes/n%u/heartbeat", k);
  ebb_http_call_opts opts = { .bearer_token = F.token, .timeout_ms = 10000 };
  ebb_http_client_start (F.cli, "POST", F.ctl, path, o, &opts, hb_done, NULL, NULL);
  json_object_put (o);
}

static void
submit_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  (void)ud;
  if (!err && res->status == 201)
    F.flood_ok++;
  else
    F.flood_err++;
}

/* Flood mode, every 10 ms: the jobs due since the start, then the report. */
static void
flood_tick (uint64_t now)
{
  if (F.flood_done || F.hb_ok < F.n)
    return; /* not every node has reported yet */
  if (!F.flood_t0)
    {
      F.flood_t0 = now;
      F.flood_launches0 = F.launches;
      json_object *task = json_tokener_parse ("{\"argv\":[\"sleep\",\"0.5\"],"
                                              "\"cpu_millis\":1000,\"memory_bytes\":67108864}");
      json_object *arr = json_object_new_array ();
      for (uint32_t i = 0; i < F.flood_per_job; i++)
        json_object_array_add (arr, json_object_get (task));
      json_object_put (task);
      json_object *job = json_object_new_object ();
      json_object_object_add (job, "tasks", arr);
      F.flood_body = ebb_xstrdup (json_object_to_json_string (job));
      json_object_put (job);
    }
  double t = (double)(now - F.flood_t0) / 1e6;
  if (t < F.flood_sec)
    {
      uint64_t due = (uint64_t)(t * F.flood_rate / F.flood_per_job);
      ebb_http_call_opts opts = { .bearer_token = F.token, .timeout_ms = 30000 };
      for (; F.flood_sent < due; F.flood_sent++)
        {
          json_object *body = json_tokener_parse (F.flood_body);
          ebb_http_client_start (F.cli, "POST", F.ctl, "/v1/jobs", body, &opts, submit_done, NULL,
                                 NULL);
          json_object_put (body);
        }
      return;
    }
  if (t < F.flood_sec + 2)
    return;
  uint64_t got = F.launches - F.flood_launches0;
  printf ("flood: %" PRIu64 " jobs of %u tasks submitted in %.0f s (%" PRIu64 " accepted, %" PRIu64
          " failed); %" PRIu64 " launches received: %.0f placements/s\n",
          F.flood_sent, F.flood_per_job, F.flood_sec, F.flood_ok, F.flood_err, got,
          (double)got / F.flood_sec);
  fflush (stdout);
  F.flood_done = true;
}

/* Every 10 ms: the share of the fleet due in this slice of the period. */
static int
on_tick (sd_event_source *s, uint64_t usec, void *ud)
{
  (void)ud;
  uint64_t per = (uint64_t)F.n * 10000 / F.hb_usec + 1;
  for (uint64_t i = 0; i < per && ebb_http_client_pending (F.cli) < 2000; i++)
    {
      heartbeat (F.next_hb);
      F.next_hb = (F.next_hb + 1) % F.n;
    }
  if (F.flood_rate > 0)
    flood_tick (ebb_now_usec ());
  sd_event_source_set_time (s, usec + 10000);
  sd_event_source_set_enabled (s, SD_EVENT_ON);
  return 0;
}

static int
on_term (sd_event_source *s, const struct signalfd_siginfo *si, void *ud)
{
  (void)s, (void)si, (void)ud;
  fprintf (stderr, "fleet: %llu heartbeats ok, %llu failed\n", (unsigned long long)F.hb_ok,
           (unsigned long long)F.hb_err);
  sd_event_exit (F.ev, 0);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc < 4)
    {
      fprintf (stderr, "usage: fleet CONTROLLER-URL N TOKEN-FILE [HB-SEC] [CPU-MILLIS]"
                       " [FLOOD-TASKS-PER-SEC FLOOD-SEC [TASKS-PER-JOB]]\n");
      return 2;
    }
  sigset_t ss;
  sigemptyset (&ss);
  sigaddset (&ss, SIGTERM);
  sigaddset (&ss, SIGINT);
  sigprocmask (SIG_BLOCK, &ss, NULL);
  signal (SIGPIPE, SIG_IGN);
  F.ctl = argv[1];
  F.n = (uint32_t)strtoul (argv[2], NULL, 10);
  F.hb_usec = (uint64_t)((argc > 4 ? atof (argv[4]) : 5) * 1e6);
  F.cpu = argc > 5 ? strtoull (argv[5], NULL, 10) : 1000;
  F.flood_rate = argc > 7 ? atof (argv[6]) : 0;
  F.flood_sec = argc > 7 ? atof (argv[7]) : 0;
  F.flood_per_job = argc > 8 ? (uint32_t)strtoul (argv[8], NULL, 10) : 10;
  if (F.flood_per_job == 0)
    F.flood_per_job = 1;
  ebb_error *err = NULL;
  if (F.n == 0 || F.hb_usec < 10000)
    return fprintf (stderr, "fleet: bad arguments\n"), 2;
  if (ebb_secret_read_token (argv[3], &F.token, &err) < 0)
    return fprintf (stderr, "fleet: %s\n", ebb_error_msg (&err)), 2;
  F.nodes = ebb_xcalloc (F.n, sizeof *F.nodes);
  sd_event_default (&F.ev);
  const char *listen[] = { "127.0.0.1:0", NULL };
  ebb_http_server_config hc = { .listen = listen,
                                .routes = routes,
                                .n_routes = EBB_ARRAY_SIZE (routes),
                                .bearer_token = F.token,
                                .tls_cert_file = getenv ("EBB_FLEET_TLS_CERT"),
                                .tls_key_file = getenv ("EBB_FLEET_TLS_KEY") };
  F.srv = ebb_http_server_new (F.ev, &hc, &err);
  F.cli = F.srv ? ebb_http_client_new (F.ev, &err) : NULL;
  if (!F.cli)
    return fprintf (stderr, "fleet: %s\n", ebb_error_msg (&err)), 1;
  /* Heartbeats share kept-alive connections: the controller allows 256 per address, and
   * all the virtual nodes have the same one. */
  ebb_http_client_limit (F.cli, 64, 64);
  F.base = ebb_xstrdup (ebb_http_server_base_url (F.srv, 0));
  sd_event_add_signal (F.ev, NULL, SIGTERM, on_term, NULL);
  sd_event_add_signal (F.ev, NULL, SIGINT, on_term, NULL);
  sd_event_add_time_relative (F.ev, NULL, CLOCK_MONOTONIC, 1000, 0, on_tick, NULL);
  printf ("%s\n", F.base);
  fflush (stdout);
  sd_event_loop (F.ev);
  ebb_http_client_free (F.cli);
  ebb_http_server_free (F.srv);
  return 0;
}
