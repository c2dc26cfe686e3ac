/* The REST API: the route table over lib/http-server.h. Every mutation is validated
 * completely before anything changes (a 4xx changes nothing); POST /v1/jobs is idempotent
 * through request_id. Errors have the agent's shape {"error", "detail"}. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "controller/api.h"
#include "controller/ctl.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/util.h"

/* GET / is the status page: controller/status-page.c defines this handler; without it the
 * route answers 404. */
int ebb_ctl_status_page (ebb_http_request *req, ebb_http_response *resp, void *ud)
    __attribute__ ((weak));

/* See api.h. */
int
ebb_ctl_api_bad (ebb_ctl *c, ebb_http_response *resp, unsigned status, const char *code,
                 ebb_error **err)
{
  c->m.bad_requests++;
  ebb_http_error (resp, status, code, "%s", ebb_error_msg (err));
  return EBB_HTTP_REPLIED;
}

/* See api.h. */
void
ebb_ctl_api_add_time (json_object *o, const char *k, double t)
{
  if (t > 0)
    ebb_json_add_double (o, k, t);
  else
    json_object_object_add (o, k, NULL);
}

static int
h_root (ebb_http_request *req, ebb_http_response *resp, void *ud)
{
  if (ebb_ctl_status_page)
    return ebb_ctl_status_page (req, resp, ud);
  ebb_http_error (resp, 404, "not_found", "no status page in this build; see /v1/cluster");
  return EBB_HTTP_REPLIED;
}

/* The page is static HTML: a browser can load it without the token, which its script then
 * asks for (or takes from #token=) and sends with every API call. */
static const ebb_http_route root_route = { "GET", "/", h_root, EBB_HTTP_ROUTE_PUBLIC };
static const ebb_http_route logs_route
    = { "GET", "/v1/jobs/{id}/tasks/{k}/logs", ebb_ctl_api_task_logs, 0 };

/* Every route, gathered from the files of their resources (the servers keep a pointer). */
static ebb_http_route routes[32];
static size_t n_routes;

static void
routes_add (const ebb_http_route *v, size_t n)
{
  for (size_t i = 0; i < n && n_routes < EBB_ARRAY_SIZE (routes); i++)
    routes[n_routes++] = v[i];
}

static void
routes_gather (void)
{
  n_routes = 0;
  routes_add (&root_route, 1);
  routes_add (ebb_ctl_api_cluster_routes, ebb_ctl_api_cluster_n_routes);
  routes_add (ebb_ctl_api_jobs_get_routes, ebb_ctl_api_jobs_get_n_routes);
  routes_add (&logs_route, 1);
  routes_add (ebb_ctl_api_jobs_routes, ebb_ctl_api_jobs_n_routes);
  routes_add (ebb_ctl_api_nodes_routes, ebb_ctl_api_nodes_n_routes);
  routes_add (ebb_ctl_api_hold_routes, ebb_ctl_api_hold_n_routes);
}

/* mkdir -p of the directory of a unix socket (the default's /run/ebb outside systemd, whose
 * RuntimeDirectory= makes it otherwise), mode 0755: the socket's own mode decides who
 * connects. A failure shows as the bind's error. */
static void
mkdir_socket_dir (const char *listen)
{
  cleanup_free char *dir = ebb_xstrdup (listen + 5);
  char *slash = strrchr (dir, '/');
  if (!slash || slash == dir)
    return;
  *slash = '\0';
  for (char *p = dir + 1;; p++)
    if (*p == '/' || *p == '\0')
      {
        char c = *p;
        *p = '\0';
        if (mkdir (dir, 0755) < 0 && errno != EEXIST)
          return;
        *p = c;
        if (!c)
          break;
      }
}

/* Splits the listeners: unix sockets (file permissions guard them) and TCP (bearer token
 * always, loopback included). Returns 0, or negative with *err. */
int
ebb_ctl_http_start (ebb_ctl *c, ebb_error **err)
{
  size_t n = ebb_strv_length (c->cfg->listen);
  cleanup_free const char **unix_l = ebb_xcalloc (n + 1, sizeof *unix_l);
  cleanup_free const char **tcp_l = ebb_xcalloc (n + 1, sizeof *tcp_l);
  size_t nu = 0, nt = 0;
  for (size_t i = 0; i < n; i++)
    {
      if (strncmp (c->cfg->listen[i], "unix:", 5) == 0)
        {
          mkdir_socket_dir (c->cfg->listen[i]);
          unix_l[nu++] = c->cfg->listen[i];
        }
      else
        tcp_l[nt++] = c->cfg->listen[i];
    }
  ebb_http_server_config hc = { 0 };
  routes_gather ();
  hc.routes = routes;
  hc.n_routes = n_routes;
  hc.userdata = c;
  hc.gate = ebb_ctl_api_gate; /* a standby sends clients to the leader (api-leader.c) */
  hc.max_body_bytes = EBB_CTL_MAX_BODY_BYTES;
  if (nu)
    {
      hc.listen = unix_l;
      c->http_unix = ebb_http_server_new (c->event, &hc, err);
      if (!c->http_unix)
        return ebb_error_wrap (err, "listen");
    }
  if (nt)
    {
      if (!c->token || !*c->token)
        return ebb_error_set (err, EINVAL, "a TCP listener needs a token (--token-file)");
      hc.listen = tcp_l;
      hc.bearer_token = c->token;
      hc.tls_cert_file = c->cfg->tls_cert; /* https on TCP; the unix socket stays plain */
      hc.tls_key_file = c->cfg->tls_key;
      c->http_tcp = ebb_http_server_new (c->event, &hc, err);
      if (!c->http_tcp)
        return ebb_error_wrap (err, "listen");
    }
  for (size_t i = 0; c->http_unix && i < ebb_http_server_n_listeners (c->http_unix); i++)
    ebb_log_notice ("listening on %s", ebb_http_server_base_url (c->http_unix, i));
  for (size_t i = 0; c->http_tcp && i < ebb_http_server_n_listeners (c->http_tcp); i++)
    ebb_log_notice ("listening on %s (token required)", ebb_http_server_base_url (c->http_tcp, i));
  return 0;
}
