/* libFuzzer target: the HTTP request path in process, without a network. Each input is the
 * raw bytes a client sends on one connection (request line, headers, body; pipelined
 * requests too). They go through one end of a socketpair handed to the real server
 * (libmicrohttpd via MHD_add_connection, then our routing, bearer auth, percent-decoding,
 * body cap, JSON body parsing) with the agent's route table, whose handlers parse and
 * validate every route's body with the agent's own request parsers (agent/request.c) and
 * check task ids and cgroup paths as the agent does. The agent's state changes (cgroups,
 * processes) are not run here: they have their own tests.
 *
 * Inputs that send the token use "Bearer fuzz-token" (see corpus/fuzz-http). */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "agent/request.h"
#include "lib/http-internal.h"
#include "lib/json.h"
#include "lib/log.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

static json_object *
body_of (ebb_http_request *req, ebb_http_response *resp, bool *bad)
{
  size_t len = 0;
  const char *body = ebb_http_request_body (req, &len);
  *bad = false;
  if (len == 0 || body[strspn (body, " \t\r\n")] == '\0')
    return NULL;
  ebb_error *err = NULL;
  json_object *o = ebb_json_parse (body, len, 0, &err);
  if (!o)
    {
      *bad = true;
      ebb_http_error (resp, 400, "bad_request", "%s", ebb_error_msg (&err));
    }
  ebb_error_free (&err);
  return o;
}

static int
answer (ebb_http_response *resp, int r, ebb_error **err)
{
  if (r < 0)
    ebb_http_error (resp, 400, "bad_request", "%s", ebb_error_msg (err));
  else
    ebb_http_reply_json (resp, 200, json_object_new_object ());
  ebb_error_free (err);
  return EBB_HTTP_REPLIED;
}

static bool
id_ok (ebb_http_request *req, ebb_http_response *resp)
{
  const char *id = ebb_http_request_capture (req, "id");
  if (id && ebb_id_is_valid (id, EBB_AGENT_ID_MAX))
    return true;
  ebb_http_error (resp, 400, "bad_request", "bad id");
  return false;
}

static int
h_get (ebb_http_request *req, ebb_http_response *resp, void *ud EBB_UNUSED)
{
  const char *q = ebb_http_request_query (req, "state");
  json_object *o = json_object_new_object ();
  if (q)
    json_object_object_add (o, "state", json_object_new_string (q));
  const char *ua = ebb_http_request_header (req, "User-Agent");
  if (ua)
    json_object_object_add (o, "ua", json_object_new_string (ua));
  ebb_http_reply_json (resp, 200, o);
  return EBB_HTTP_REPLIED;
}

static int
h_task (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  if (!id_ok (req, resp))
    return EBB_HTTP_REPLIED;
  return h_get (req, resp, ud);
}

static int
h_launch (ebb_http_request *req, ebb_http_response *resp, void *ud EBB_UNUSED)
{
  bool bad;
  json_object *body = body_of (req, resp, &bad);
  if (bad)
    return EBB_HTTP_REPLIED;
  ebb_error *err = NULL;
  ebb_agent_launch_req lr;
  int r = ebb_agent_parse_launch (body, &lr, &err);
  json_object_put (body);
  ebb_agent_launch_req_clear (&lr); /* as the agent does: after a failure too */
  return answer (resp, r, &err);
}

static int
h_adopt (ebb_http_request *req, ebb_http_response *resp, void *ud EBB_UNUSED)
{
  bool bad;
  json_object *body = body_of (req, resp, &bad);
  if (bad)
    return EBB_HTTP_REPLIED;
  ebb_error *err = NULL;
  ebb_agent_adopt_req ar;
  int r = ebb_agent_parse_adopt (body, &ar, &err);
  json_object_put (body);
  if (r >= 0 && ar.cgroup)
    {
      char *canon = ebb_agent_cgroup_canon (ar.cgroup, &err);
      if (canon)
        ebb_agent_path_under (canon, "/ebb");
      free (canon);
      ebb_error_free (&err);
    }
  ebb_agent_adopt_req_clear (&ar);
  return answer (resp, r, &err);
}

static int
h_suspend (ebb_http_request *req, ebb_http_response *resp, void *ud EBB_UNUSED)
{
  if (!id_ok (req, resp))
    return EBB_HTTP_REPLIED;
  bool bad;
  json_object *body = body_of (req, resp, &bad);
  if (bad)
    return EBB_HTTP_REPLIED;
  ebb_error *err = NULL;
  ebb_agent_suspend_req sr;
  int r = ebb_agent_parse_suspend (body, &sr, &err);
  json_object_put (body);
  ebb_agent_suspend_req_clear (&sr);
  return answer (resp, r, &err);
}

/* resume and delete: an optional body. */
static int
h_simple (ebb_http_request *req, ebb_http_response *resp, void *ud EBB_UNUSED)
{
  if (!id_ok (req, resp))
    return EBB_HTTP_REPLIED;
  bool bad;
  json_object *body = body_of (req, resp, &bad);
  if (bad)
    return EBB_HTTP_REPLIED;
  ebb_error *err = NULL;
  ebb_agent_simple_req sr;
  int r = ebb_agent_parse_simple (body, &sr, &err);
  json_object_put (body);
  ebb_agent_simple_req_clear (&sr);
  return answer (resp, r, &err);
}

static int
h_metrics (ebb_http_request *req EBB_UNUSED, ebb_http_response *resp, void *ud EBB_UNUSED)
{
  ebb_http_reply_text (resp, 200, "text/plain; version=0.0.4", "ebb_up 1\n");
  return EBB_HTTP_REPLIED;
}

/* The agent's table (agent/api.c), same methods and patterns. */
static const ebb_http_route routes[] = {
  { "GET", "/v1/health", h_get, 0 },
  { "GET", "/v1/node", h_get, 0 },
  { "GET", "/metrics", h_metrics, 0 },
  { "GET", "/v1/tasks", h_get, 0 },
  { "POST", "/v1/tasks", h_launch, 0 },
  { "POST", "/v1/tasks/adopt", h_adopt, 0 },
  { "GET", "/v1/tasks/{id}", h_task, 0 },
  { "DELETE", "/v1/tasks/{id}", h_simple, 0 },
  { "POST", "/v1/tasks/{id}/suspend", h_suspend, 0 },
  { "POST", "/v1/tasks/{id}/resume", h_simple, 0 },
};

static sd_event *event;
static ebb_http_server *server;

int
LLVMFuzzerInitialize (int *argc EBB_UNUSED, char ***argv EBB_UNUSED)
{
  ebb_log_set_level (LOG_CRIT);
  char dir[] = "/tmp/ebb-fuzz-http-XXXXXX";
  if (!mkdtemp (dir))
    abort ();
  char spec[128];
  snprintf (spec, sizeof spec, "unix:%s/s", dir);
  const char *const listen[] = { spec, NULL };
  ebb_http_server_config cfg = { .listen = listen,
                                 .routes = routes,
                                 .n_routes = EBB_ARRAY_SIZE (routes),
                                 .bearer_token = "fuzz-token",
                                 .max_body_bytes = 64 * 1024 };
  ebb_error *err = NULL;
  if (sd_event_new (&event) < 0 || !(server = ebb_http_server_new (event, &cfg, &err)))
    abort ();
  /* The listening socket is not needed: connections are handed in directly. Its file goes
   * now so no run leaves one behind. */
  unlink (spec + 5);
  rmdir (dir);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  int sv[2];
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
    abort ();
  /* A socketpair buffers a few hundred KiB: the whole input fits (max_len is 64 KiB). */
  int big = 1 << 20;
  setsockopt (sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  ebb_http_listener *l = &server->listeners[0];
  struct sockaddr_un peer = { .sun_family = AF_UNIX };
  if (MHD_add_connection (l->mhd, sv[0], (struct sockaddr *)&peer, sizeof peer) != MHD_YES)
    {
      close (sv[0]);
      close (sv[1]);
      return 0;
    }
  for (size_t off = 0; off < size;)
    {
      ssize_t n = send (sv[1], data + off, size - off, MSG_NOSIGNAL);
      if (n <= 0)
        break;
      off += (size_t)n;
    }
  shutdown (sv[1], SHUT_WR);
  /* Run the server until it closes the connection (or gives up on it). */
  char buf[65536];
  for (int i = 0; i < 200; i++)
    {
      ebb_http_server_run_mhd (l);
      ssize_t n = read (sv[1], buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EAGAIN))
        break;
    }
  close (sv[1]);
  /* Lets MHD notice the close and free the connection. */
  ebb_http_server_run_mhd (l);
  return 0;
}
