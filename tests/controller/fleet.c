/* A fleet of virtual agents in one process, for the controller's scale bench and the fault
 * cycles: N nodes, each reachable at http://127.0.0.1:PORT/nK (the agent API under a per-node
 * prefix: launch, suspend, resume, delete, fence; fleet-api.c) and each sending POST
 * /v1/nodes/nK/heartbeat every HB seconds (spread over the period) with its capacity, URL and
 * tasks. A task runs for the seconds of its argv ["sleep", S] (else forever) and is then
 * reported exited with status 0.
 *
 * Every node checks leader epochs as the agent does (in memory: the fleet does not restart):
 * a mutating call with an Ebb-Leader-Epoch below the node's highest is answered 409
 * stale_leader, a higher one raises it, and POST /nK/v1/fence raises it and answers the
 * node's tasks. CONTROLLER-URL may be a list URL,URL,...: each node's heartbeats go to one of
 * them, follow a fence's "leader" at once and a standby's 503 not_leader "leader" after 0.5 s,
 * and move to the next of the list when a heartbeat fails (5 s timeout; retried after 0.5 s,
 * doubling up to 2 s), as the agent's do. A node has one periodic heartbeat under way at a
 * time, and each controller URL its own HTTP client: a stopped controller holds only the
 * calls sent to it.
 *
 * With EBB_FLEET_STATS=FILE the fleet writes its counters (fleet-stats.c) to FILE as one JSON
 * object, atomically, on SIGUSR1 and at exit: nodes, calls_accepted, calls_refused_stale,
 * calls_unfenced (no epoch header), fences, fences_refused, accepted_below_highest (calls that
 * acted below the node's highest epoch seen, counted apart from the refusal: must stay 0),
 * epoch_min, epoch_max (over nodes that saw one; 0: none), tasks_live, launches,
 * duplicate_live (job-tasks, any generation, live on two nodes at once at some moment; live:
 * launched, neither exited nor deleted, a suspended task included),
 * heartbeats_ok, heartbeats_failed, heartbeats_followed (to a leader a standby named),
 * heartbeats_moved (to the next URL of the list), and refused_by_epoch {"E": count}
 * (calls and fences refused, by their epoch).
 *
 * Flood mode (FLOOD-TASKS-PER-SEC > 0): after the first heartbeat of every node, submits
 * jobs of TASKS-PER-JOB tasks of "sleep 0.5" at that rate for FLOOD-SEC seconds, then prints
 * the submissions and the launches the fleet received in that window and 2 s after, as
 * placements per second of the window ("flood: ... placements/s").
 *
 * The controller sends its token to agents only over https or a unix socket, and the nodes
 * need distinct addresses: with EBB_FLEET_TLS_CERT and EBB_FLEET_TLS_KEY (PEM files; the
 * controller's --agent-ca verifies the certificate, which names 127.0.0.1) the fleet serves
 * https. CONTROLLER-URL is best the controller's unix socket (no token needed there); https
 * works too (verified with the PEM CA bundle EBB_FLEET_CONTROLLER_CA, else the system's CA
 * store), plain http does not (the token would go in clear).
 *
 * Usage: fleet CONTROLLER-URL[,URL...] N TOKEN-FILE [HB-SEC] [CPU-MILLIS-PER-NODE]
 *              [FLOOD-TASKS-PER-SEC FLOOD-SEC [TASKS-PER-JOB]] */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/secret.h"
#include "lib/time.h"
#include "lib/util.h"
#include "tests/controller/fleet.h"

/* A failed heartbeat is tried again (on the next URL) after a backoff that doubles from the
 * minimum to the maximum, as the agent's with a list of controllers (agent/heartbeat.c). */
#define BACKOFF_MIN_USEC 500000ULL
#define BACKOFF_MAX_USEC 2000000ULL
#define MAX_PENDING      2000 /* calls under way or waiting, beyond which no heartbeat starts */

fleet F;

/* Flood mode. */
static struct
{
  double rate, sec;
  uint32_t per_job;
  uint64_t t0, sent, ok, err, launches0;
  bool done;
  char *body;
} Fl;

/* One HTTP client per controller URL: a stopped controller (SIGSTOP) holds the calls sent to
 * it until their timeout, and those must not hold the calls to the others behind them in
 * one client's queue. */
static struct
{
  char *url;
  ebb_http_client *cli;
} * clients;
static size_t n_clients;

/* The client for url, made on first use (NULL when it cannot be made: logged). */
static ebb_http_client *
client_for (const char *url)
{
  for (size_t i = 0; i < n_clients; i++)
    if (strcmp (clients[i].url, url) == 0)
      return clients[i].cli;
  cleanup_error ebb_error *err = NULL;
  ebb_http_client *c = ebb_http_client_new (F.ev, &err);
  if (!c)
    {
      fprintf (stderr, "fleet: %s\n", ebb_error_msg (&err));
      return NULL;
    }
  /* Heartbeats share kept-alive connections: the controller allows 256 per address, and
   * all the virtual nodes have the same one. Up to 256 calls under way, so that as many
   * nodes' heartbeats to a stopped controller time out together, as agents' would. */
  ebb_http_client_limit (c, 64, 256);
  clients = ebb_xrealloc (clients, (n_clients + 1) * sizeof *clients);
  clients[n_clients].url = ebb_xstrdup (url);
  clients[n_clients++].cli = c;
  return c;
}

/* The calls under way or waiting, over every client. */
static size_t
pending (void)
{
  size_t n = 0;
  for (size_t i = 0; i < n_clients; i++)
    n += ebb_http_client_pending (clients[i].cli);
  return n;
}

/* Nodes whose heartbeat failed, waiting for their vnode.retry_at_usec. */
static uint32_t n_retrying;

static const char *
target (const vnode *n)
{
  return n->leader ? n->leader : F.ctls[n->ctl_idx];
}

static void heartbeat (uint32_t k);

/* See fleet.h. */
void
fleet_heartbeat_soon (uint32_t k)
{
  if (F.nodes[k].queued_now)
    return;
  F.nodes[k].queued_now = true;
  F.now_q[(F.now_head + F.now_len++) % F.n] = k;
}

/* A retry of node n's heartbeat after its backoff: the shortest when a standby named a new
 * leader (two standbys naming each other during a handover cannot make it spin), else
 * doubled. */
static void
retry_later (vnode *n, bool named)
{
  uint64_t b = n->backoff_usec && !named ? 2 * n->backoff_usec : BACKOFF_MIN_USEC;
  n->backoff_usec = b > BACKOFF_MAX_USEC ? BACKOFF_MAX_USEC : b;
  if (!n->retry_at_usec)
    n_retrying++;
  n->retry_at_usec = ebb_now_usec () + n->backoff_usec;
}

/* The leader a standby's 503 not_leader names, or NULL. */
static const char *
named_leader (const ebb_http_result *res)
{
  json_object *v;
  if (!res || res->status != 503 || !res->json
      || !json_object_object_get_ex (res->json, "error", &v)
      || strcmp (json_object_get_string (v), "not_leader") != 0
      || !json_object_object_get_ex (res->json, "leader", &v)
      || !json_object_is_type (v, json_type_string))
    return NULL;
  return json_object_get_string (v);
}

/* A failed heartbeat of node n (agent/heartbeat.c follow()): to the leader a standby named
 * (not plain http: the token would go in clear), else to the next URL of the list. */
static void
follow (vnode *n, const ebb_http_result *res)
{
  const char *leader = named_leader (res);
  bool again = leader && strncmp (leader, "http://", 7) != 0
               && (!n->leader || strcmp (leader, n->leader) != 0);
  free (n->leader);
  n->leader = again ? ebb_xstrdup (leader) : NULL;
  n->route_gen++;
  n->hb_in_flight = false;
  if (again)
    F.k.hb_followed++;
  else
    {
      n->ctl_idx = (n->ctl_idx + 1) % F.n_ctls;
      F.k.hb_next++;
    }
  retry_later (n, again);
}

/* Which heartbeat an answer is for: the node, and its route when the heartbeat left. */
typedef struct
{
  uint32_t k, gen;
} hb_call;

static void
hb_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  hb_call c = *(hb_call *)ud;
  free (ud);
  vnode *n = &F.nodes[c.k];
  if (c.gen == n->route_gen)
    n->hb_in_flight = false;
  if (!err && res->status == 200)
    {
      F.k.hb_ok++;
      n->backoff_usec = 0;
      if (!F.submit_to || strcmp (F.submit_to, target (n)) != 0)
        {
          free (F.submit_to);
          F.submit_to = ebb_xstrdup (target (n));
        }
      return;
    }
  F.k.hb_err++;
  if (err && err->code == ECANCELED)
    return;
  if (c.gen == n->route_gen) /* else a fence moved the heartbeats since this one left */
    follow (n, err ? NULL : res);
}

static void
heartbeat (uint32_t k)
{
  vnode *n = &F.nodes[k];
  json_object *o = json_object_new_object ();
  ebb_json_add_uint64 (o, "seq", ++n->seq);
  cleanup_free char *url = ebb_xasprintf ("%s/n%u", F.base, k);
  ebb_json_add_string (o, "url", url);
  json_object *node = json_object_new_object (), *cap = json_object_new_object ();
  ebb_json_add_uint64 (cap, "cpu_millis", F.cpu);
  ebb_json_add_uint64 (cap, "memory_bytes", 4ULL << 30);
  json_object_object_add (node, "capacity", cap);
  json_object_object_add (o, "node", node);
  json_object_object_add (o, "tasks", fleet_tasks_json (k));
  cleanup_free char *path = ebb_xasprintf ("/v1/nodes/n%u/heartbeat", k);
  ebb_http_call_opts opts
      = { .bearer_token = F.token, .timeout_ms = 5000, .ca_file = F.controller_ca };
  hb_call *ud = ebb_xmalloc (sizeof *ud);
  *ud = (hb_call){ k, n->route_gen };
  cleanup_error ebb_error *err = NULL;
  n->hb_in_flight = true;
  if (ebb_http_client_start (client_for (target (n)), "POST", target (n), path, o, &opts, hb_done,
                             ud, &err)
      < 0)
    hb_done (NULL, err, ud);
  json_object_put (o);
}

static void
submit_done (ebb_http_result *res, const ebb_error *err, void *ud)
{
  (void)ud;
  if (!err && res->status == 201)
    Fl.ok++;
  else
    Fl.err++;
}

/* The job every flood submission sends, as text. */
static char *
flood_job (void)
{
  json_object *task = json_tokener_parse ("{\"argv\":[\"sleep\",\"0.5\"],"
                                          "\"cpu_millis\":1000,\"memory_bytes\":67108864}");
  json_object *arr = json_object_new_array ();
  for (uint32_t i = 0; i < Fl.per_job; i++)
    json_object_array_add (arr, json_object_get (task));
  json_object_put (task);
  json_object *job = json_object_new_object ();
  json_object_object_add (job, "tasks", arr);
  char *text = ebb_xstrdup (json_object_to_json_string (job));
  json_object_put (job);
  return text;
}

/* Flood mode, every 10 ms: the jobs due since the start, then the report. */
static void
flood_tick (uint64_t now)
{
  if (Fl.done || F.k.hb_ok < F.n)
    return; /* not every node has reported yet */
  if (!Fl.t0)
    {
      Fl.t0 = now;
      Fl.launches0 = F.k.launches;
      Fl.body = flood_job ();
    }
  double t = (double)(now - Fl.t0) / 1e6;
  if (t < Fl.sec)
    {
      uint64_t due = (uint64_t)(t * Fl.rate / Fl.per_job);
      ebb_http_call_opts opts
          = { .bearer_token = F.token, .timeout_ms = 30000, .ca_file = F.controller_ca };
      const char *to = F.submit_to ? F.submit_to : F.ctls[0];
      for (; Fl.sent < due; Fl.sent++)
        {
          json_object *body = json_tokener_parse (Fl.body);
          ebb_http_client_start (client_for (to), "POST", to, "/v1/jobs", body, &opts, submit_done,
                                 NULL, NULL);
          json_object_put (body);
        }
      return;
    }
  if (t < Fl.sec + 2)
    return;
  uint64_t got = F.k.launches - Fl.launches0;
  printf ("flood: %" PRIu64 " jobs of %u tasks submitted in %.0f s (%" PRIu64 " accepted, %" PRIu64
          " failed); %" PRIu64 " launches received: %.0f placements/s\n",
          Fl.sent, Fl.per_job, Fl.sec, Fl.ok, Fl.err, got, (double)got / Fl.sec);
  fflush (stdout);
  Fl.done = true;
}

/* The heartbeats a fence or a named leader asked for, then the retries that are due. */
static void
send_queued (uint64_t now)
{
  while (F.now_len && pending () < MAX_PENDING)
    {
      uint32_t k = F.now_q[F.now_head];
      F.now_head = (F.now_head + 1) % F.n;
      F.now_len--;
      F.nodes[k].queued_now = false;
      heartbeat (k);
    }
  for (uint32_t k = 0; n_retrying && k < F.n && pending () < MAX_PENDING; k++)
    if (F.nodes[k].retry_at_usec && F.nodes[k].retry_at_usec <= now)
      {
        F.nodes[k].retry_at_usec = 0;
        n_retrying--;
        heartbeat (k);
      }
}

/* Every 10 ms: the queued heartbeats, and the periodic ones due since the start (N per
 * HB-SEC: a tick sent at least one each before, so a small fleet beat faster than HB-SEC). */
static int
on_tick (sd_event_source *s, uint64_t usec, void *ud)
{
  (void)ud;
  uint64_t now = ebb_now_usec ();
  send_queued (now);
  if (!F.hb_t0)
    F.hb_t0 = now;
  uint64_t due = (now - F.hb_t0) * F.n / F.hb_usec + 1;
  for (; F.hb_sent < due && pending () < MAX_PENDING; F.hb_sent++)
    {
      /* As an agent, one periodic heartbeat of a node on its route at a time. */
      if (!F.nodes[F.next_hb].hb_in_flight)
        heartbeat (F.next_hb);
      F.next_hb = (F.next_hb + 1) % F.n;
    }
  if (Fl.rate > 0)
    flood_tick (ebb_now_usec ());
  sd_event_source_set_time (s, usec + 10000);
  sd_event_source_set_enabled (s, SD_EVENT_ON);
  return 0;
}

static int
on_usr1 (sd_event_source *s, const struct signalfd_siginfo *si, void *ud)
{
  (void)s, (void)si, (void)ud;
  fleet_write_stats ();
  return 0;
}

static int
on_term (sd_event_source *s, const struct signalfd_siginfo *si, void *ud)
{
  (void)s, (void)si, (void)ud;
  fprintf (stderr,
           "fleet: %" PRIu64 " heartbeats ok, %" PRIu64 " failed; %" PRIu64
           " calls accepted, %" PRIu64 " refused as stale; %" PRIu64 " fences\n",
           F.k.hb_ok, F.k.hb_err, F.k.calls_accepted, F.k.calls_refused_stale, F.k.fences);
  fleet_write_stats ();
  sd_event_exit (F.ev, 0);
  return 0;
}

/* CONTROLLER-URL[,URL...] into F.ctls. */
static void
split_ctls (const char *list)
{
  cleanup_free char *copy = ebb_xstrdup (list);
  char *save = NULL;
  for (char *u = strtok_r (copy, ",", &save); u; u = strtok_r (NULL, ",", &save))
    {
      F.ctls = ebb_xrealloc (F.ctls, (F.n_ctls + 1) * sizeof *F.ctls);
      F.ctls[F.n_ctls++] = ebb_xstrdup (u);
    }
}

/* The arguments into F and Fl. Returns 0, or 2 (usage) with a message. */
static int
parse_args (int argc, char **argv)
{
  if (argc < 4)
    {
      fprintf (stderr, "usage: fleet CONTROLLER-URL[,URL...] N TOKEN-FILE [HB-SEC] [CPU-MILLIS]"
                       " [FLOOD-TASKS-PER-SEC FLOOD-SEC [TASKS-PER-JOB]]\n");
      return 2;
    }
  split_ctls (argv[1]);
  F.n = (uint32_t)strtoul (argv[2], NULL, 10);
  F.hb_usec = (uint64_t)((argc > 4 ? atof (argv[4]) : 5) * 1e6);
  F.cpu = argc > 5 ? strtoull (argv[5], NULL, 10) : 1000;
  Fl.rate = argc > 7 ? atof (argv[6]) : 0;
  Fl.sec = argc > 7 ? atof (argv[7]) : 0;
  Fl.per_job = argc > 8 ? (uint32_t)strtoul (argv[8], NULL, 10) : 10;
  if (Fl.per_job == 0)
    Fl.per_job = 1;
  if (F.n == 0 || F.n > UINT32_MAX / 2 || F.hb_usec < 10000 || F.n_ctls == 0)
    return fprintf (stderr, "fleet: bad arguments\n"), 2;
  F.stats_file = getenv ("EBB_FLEET_STATS");
  F.controller_ca = getenv ("EBB_FLEET_CONTROLLER_CA");
  if (F.stats_file && !*F.stats_file)
    F.stats_file = NULL;
  return 0;
}

int
main (int argc, char **argv)
{
  int r = parse_args (argc, argv);
  if (r)
    return r;
  sigset_t ss;
  sigemptyset (&ss);
  sigaddset (&ss, SIGTERM);
  sigaddset (&ss, SIGINT);
  sigaddset (&ss, SIGUSR1);
  sigprocmask (SIG_BLOCK, &ss, NULL);
  signal (SIGPIPE, SIG_IGN);
  ebb_error *err = NULL;
  if (ebb_secret_read_token (argv[3], &F.token, &err) < 0)
    return fprintf (stderr, "fleet: %s\n", ebb_error_msg (&err)), 2;
  F.nodes = ebb_xcalloc (F.n, sizeof *F.nodes);
  F.now_q = ebb_xcalloc (F.n, sizeof *F.now_q);
  sd_event_default (&F.ev);
  const char *listen[] = { "127.0.0.1:0", NULL };
  ebb_http_server_config hc = { .listen = listen,
                                .routes = fleet_routes,
                                .n_routes = fleet_n_routes,
                                .bearer_token = F.token,
                                .tls_cert_file = getenv ("EBB_FLEET_TLS_CERT"),
                                .tls_key_file = getenv ("EBB_FLEET_TLS_KEY") };
  F.srv = ebb_http_server_new (F.ev, &hc, &err);
  if (!F.srv)
    return fprintf (stderr, "fleet: %s\n", ebb_error_msg (&err)), 1;
  F.base = ebb_xstrdup (ebb_http_server_base_url (F.srv, 0));
  sd_event_add_signal (F.ev, NULL, SIGTERM, on_term, NULL);
  sd_event_add_signal (F.ev, NULL, SIGINT, on_term, NULL);
  sd_event_add_signal (F.ev, NULL, SIGUSR1, on_usr1, NULL);
  sd_event_add_time_relative (F.ev, NULL, CLOCK_MONOTONIC, 1000, 0, on_tick, NULL);
  printf ("%s\n", F.base);
  fflush (stdout);
  sd_event_loop (F.ev);
  for (size_t i = 0; i < n_clients; i++)
    ebb_http_client_free (clients[i].cli);
  ebb_http_server_free (F.srv);
  return 0;
}
