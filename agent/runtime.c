/* A Docker or Podman client over the engine's unix socket: its life (new, free), blocking
 * inspect/list for adoption and the asynchronous lookup. The followed /events stream is in
 * runtime-events.c, what is known of each container (and the inspects and lists that keep it
 * current) in runtime-track.c, the parsers in runtime-parse.c. */
#include "config.h"

#include <curl/curl.h>
#include <string.h>

#include "agent/runtime-internal.h"
#include "lib/log.h"
#include "lib/time.h"

/* ---------------------------------------------------------------------------------- */
/* Public                                                                               */

static void
options_init (ebb_rt_options *o, const ebb_rt_options *given)
{
  if (given)
    *o = *given;
  else
    memset (o, 0, sizeof *o);
  if (!o->backoff_min_usec)
    o->backoff_min_usec = 100 * 1000;
  if (!o->backoff_max_usec)
    o->backoff_max_usec = 2 * 1000 * 1000;
  if (o->backoff_max_usec < o->backoff_min_usec)
    o->backoff_max_usec = o->backoff_min_usec;
  if (!o->request_timeout_ms)
    o->request_timeout_ms = 10000;
}

ebb_rt *
ebb_rt_new (sd_event *event, ebb_rt_kind kind, const char *socket_path, const ebb_rt_options *opts,
            ebb_rt_event_fn fn, void *userdata, ebb_error **err)
{
  if (!event || !socket_path || socket_path[0] != '/' || strlen (socket_path) >= 108
      || (kind != EBB_RT_DOCKER && kind != EBB_RT_PODMAN))
    return ebb_error_set (err, EINVAL,
                          "runtime: need an event loop, an engine kind and an "
                          "absolute socket path (< 108 bytes)"),
           NULL;
  ebb_rt *rt = ebb_xcalloc (1, sizeof *rt);
  rt->event = sd_event_ref (event);
  rt->kind = kind;
  rt->socket_path = ebb_xstrdup (socket_path);
  rt->base = ebb_xasprintf ("unix:%s", socket_path);
  rt->fn = fn;
  rt->userdata = userdata;
  options_init (&rt->opts, opts);
  rt->http = ebb_http_client_new (event, err);
  if (!rt->http || ebb_rt_stream_start (rt, err) < 0)
    {
      ebb_rt_free (rt);
      return NULL;
    }
  return rt;
}

void
ebb_rt_free (ebb_rt *rt)
{
  if (!rt)
    return;
  rt->freeing = true;
  ebb_http_client_free (rt->http); /* its callbacks see rt->freeing and only free */
  ebb_rt_stream_stop (rt);
  while (rt->pending)
    {
      pending *p = rt->pending;
      rt->pending = p->next;
      free (p);
    }
  while (rt->tracked)
    ebb_rt_tracked_drop (rt, rt->tracked);
  sd_event_unref (rt->event);
  free (rt->socket_path);
  free (rt->base);
  free (rt);
}

ebb_rt_kind
ebb_rt_get_kind (const ebb_rt *rt)
{
  return rt->kind;
}

bool
ebb_rt_connected (const ebb_rt *rt)
{
  return rt && rt->connected;
}

/* Blocking GET of path; returns 0 with *res (status 200 or 404 only), or negative. */
static int
blocking_get (ebb_rt *rt, const char *path, ebb_http_result *res, ebb_error **err)
{
  ebb_http_call_opts o;
  if (ebb_http_call ("GET", rt->base, path, NULL, ebb_rt_call_opts (rt, &o), res, err) < 0)
    return ebb_error_wrap (err, "%s %s", ebb_rt_kind_name (rt->kind), rt->socket_path);
  if (res->status == 200 || res->status == 404)
    return 0;
  int r = ebb_error_set (err, EIO, "%s: GET %s: HTTP %ld: %.200s", ebb_rt_kind_name (rt->kind),
                         path, res->status, res->body ? res->body : "");
  ebb_http_result_clear (res);
  return r;
}

/* A running container without ebb labels that the agent looked up (to adopt it by id) is
 * followed from now on like a labeled one, so its death is reported too. Labeled ones are
 * left to the events and re-lists, which report them as STARTED. */
static void
follow (ebb_rt *rt, const ebb_rt_info *info)
{
  if (info->ours || !info->running || ebb_rt_tracked_find (rt, info->id))
    return;
  tracked *t = ebb_xcalloc (1, sizeof *t);
  t->followed = true;
  t->confirmed_usec = ebb_now_usec ();
  t->info.kind = info->kind;
  t->info.id = ebb_xstrdup (info->id);
  t->info.name = ebb_xstrdup (info->name);
  t->info.running = true;
  t->info.pid = info->pid;
  t->next = rt->tracked;
  rt->tracked = t;
}

/* Inspects what the engine itself resolves: a full id, an id prefix, an exact name. */
static int
inspect_exact (ebb_rt *rt, const char *ref, ebb_rt_info *info, ebb_error **err)
{
  cleanup_free char *path = ebb_xasprintf (API "/containers/%s/json", ref);
  ebb_http_result res = { 0 };
  int r = blocking_get (rt, path, &res, err);
  if (r < 0)
    return r;
  if (res.status == 404)
    r = ebb_error_set (err, ENOENT, "%s: no container %s", ebb_rt_kind_name (rt->kind), ref);
  else if (ebb_rt_parse_inspect (rt->kind, res.json, info, err) < 0)
    r = ebb_error_wrap (err, "%s: inspect %s", ebb_rt_kind_name (rt->kind), ref);
  ebb_http_result_clear (&res);
  return r;
}

/* Finds the one container whose name starts with prefix. Returns 1 with id_out, 0 when none,
 * or negative with *err (EINVAL when several match). */
static int
find_name_prefix (ebb_rt *rt, const char *prefix, char id_out[65], ebb_error **err)
{
  ebb_http_result res = { 0 };
  int r = blocking_get (rt, API "/containers/json?all=1", &res, err);
  if (r < 0)
    return r;
  size_t n
      = json_object_is_type (res.json, json_type_array) ? json_object_array_length (res.json) : 0;
  int found = 0;
  for (size_t i = 0; i < n; i++)
    {
      ebb_rt_info entry;
      if (ebb_rt_parse_list_entry (rt->kind, json_object_array_get_idx (res.json, i), &entry, NULL)
          < 0)
        continue;
      if (strncmp (entry.name, prefix, strlen (prefix)) == 0 && found++ == 0)
        snprintf (id_out, 65, "%s", entry.id);
      ebb_rt_info_clear (&entry);
    }
  ebb_http_result_clear (&res);
  if (found > 1)
    return ebb_error_set (err, EINVAL, "%s: %d containers have names starting with %s",
                          ebb_rt_kind_name (rt->kind), found, prefix);
  return found;
}

int
ebb_rt_inspect (ebb_rt *rt, const char *ref, ebb_rt_info *info, ebb_error **err)
{
  memset (info, 0, sizeof *info);
  if (!rt || !ref || !ebb_id_is_valid (ref, 128))
    return ebb_error_set (err, EINVAL,
                          "container reference must be an id or name of "
                          "[A-Za-z0-9._-]{1,128}");
  cleanup_error ebb_error *first = NULL;
  int r = inspect_exact (rt, ref, info, &first);
  if (r == -ENOENT)
    {
      /* Not an id, id prefix or name the engine knows: maybe the start of a name. */
      char id[65];
      int found = find_name_prefix (rt, ref, id, err);
      if (found <= 0)
        return found < 0 ? found : ebb_error_set (err, ENOENT, "%s", ebb_error_msg (&first));
      r = inspect_exact (rt, id, info, err);
    }
  else if (r < 0)
    {
      ebb_error_set (err, ebb_error_code (&first), "%s", ebb_error_msg (&first));
      return r;
    }
  if (r < 0)
    return r;
  ebb_rt_resolve_cgroups (rt, info);
  follow (rt, info);
  return 0;
}

/* ---- Asynchronous lookup: exact inspect, else a name prefix from the list, then inspect */

typedef struct lookup
{
  ebb_rt *rt;
  char *ref;
  int step; /* 0 exact inspect, 1 list, 2 inspect of the prefix match */
  ebb_rt_inspect_fn done;
  void *userdata;
} lookup;

static void on_lookup (ebb_http_result *res, const ebb_error *err, void *ud);

static int
lookup_get (lookup *l, const char *path, ebb_error **err)
{
  ebb_http_call_opts o;
  return ebb_http_client_start (l->rt->http, "GET", l->rt->base, path, NULL,
                                ebb_rt_call_opts (l->rt, &o), on_lookup, l, err);
}

static void
lookup_finish (lookup *l, ebb_rt_info *info, ebb_error *e)
{
  l->done (info, e, l->userdata);
  ebb_error_free (&e);
  free (l->ref);
  free (l);
}

static void
on_lookup (ebb_http_result *res, const ebb_error *err, void *ud)
{
  lookup *l = ud;
  ebb_rt *rt = l->rt;
  const char *kind = ebb_rt_kind_name (rt->kind);
  ebb_error *e = NULL;
  if (err)
    {
      ebb_error_set (&e, err->code, "%s %s: %s", kind, rt->socket_path, err->msg);
      lookup_finish (l, NULL, e);
      return;
    }
  if (res->status != 200 && res->status != 404)
    {
      ebb_error_set (&e, EIO, "%s: HTTP %ld: %.200s", kind, res->status,
                     res->body ? res->body : "");
      lookup_finish (l, NULL, e);
      return;
    }
  if (l->step == 1)
    {
      size_t n = json_object_is_type (res->json, json_type_array)
                     ? json_object_array_length (res->json)
                     : 0;
      int found = 0;
      char id[65] = "";
      for (size_t i = 0; i < n; i++)
        {
          ebb_rt_info entry;
          if (ebb_rt_parse_list_entry (rt->kind, json_object_array_get_idx (res->json, i), &entry,
                                       NULL)
              < 0)
            continue;
          if (strncmp (entry.name, l->ref, strlen (l->ref)) == 0 && found++ == 0)
            snprintf (id, sizeof id, "%s", entry.id);
          ebb_rt_info_clear (&entry);
        }
      if (found != 1)
        {
          if (found > 1)
            ebb_error_set (&e, EINVAL, "%s: %d containers have names starting with %s", kind, found,
                           l->ref);
          else
            ebb_error_set (&e, ENOENT, "%s: no container %s", kind, l->ref);
          lookup_finish (l, NULL, e);
          return;
        }
      l->step = 2;
      cleanup_free char *path = ebb_xasprintf (API "/containers/%s/json", id);
      if (lookup_get (l, path, &e) < 0)
        lookup_finish (l, NULL, e);
      return;
    }
  if (res->status == 404)
    {
      if (l->step == 0)
        {
          /* Not an id, id prefix or name the engine knows: maybe the start of a name. */
          l->step = 1;
          if (lookup_get (l, API "/containers/json?all=1", &e) < 0)
            lookup_finish (l, NULL, e);
          return;
        }
      ebb_error_set (&e, ENOENT, "%s: no container %s", kind, l->ref);
      lookup_finish (l, NULL, e);
      return;
    }
  ebb_rt_info *info = ebb_xcalloc (1, sizeof *info);
  if (ebb_rt_parse_inspect (rt->kind, res->json, info, &e) < 0)
    {
      ebb_error_wrap (&e, "%s: inspect %s", kind, l->ref);
      free (info);
      lookup_finish (l, NULL, e);
      return;
    }
  ebb_rt_resolve_cgroups (rt, info);
  follow (rt, info);
  l->done (info, NULL, l->userdata);
  ebb_rt_info_clear (info);
  free (info);
  free (l->ref);
  free (l);
}

int
ebb_rt_inspect_async (ebb_rt *rt, const char *ref, ebb_rt_inspect_fn done, void *userdata,
                      ebb_error **err)
{
  if (!rt || !ref || !ebb_id_is_valid (ref, 128))
    return ebb_error_set (err, EINVAL,
                          "container reference must be an id or name of "
                          "[A-Za-z0-9._-]{1,128}");
  lookup *l = ebb_xcalloc (1, sizeof *l);
  l->rt = rt;
  l->ref = ebb_xstrdup (ref);
  l->done = done;
  l->userdata = userdata;
  cleanup_free char *path = ebb_xasprintf (API "/containers/%s/json", ref);
  int r = lookup_get (l, path, err);
  if (r < 0)
    {
      free (l->ref);
      free (l);
    }
  return r;
}

void
ebb_rt_info_array_free (ebb_rt_info *infos, size_t n)
{
  for (size_t i = 0; infos && i < n; i++)
    ebb_rt_info_clear (&infos[i]);
  free (infos);
}

int
ebb_rt_list (ebb_rt *rt, bool all, ebb_rt_info **out, ebb_error **err)
{
  *out = NULL;
  ebb_http_result res = { 0 };
  int r = blocking_get (rt, all ? API "/containers/json?all=1" : API "/containers/json", &res, err);
  if (r < 0)
    return r;
  if (res.status != 200 || !json_object_is_type (res.json, json_type_array))
    {
      ebb_http_result_clear (&res);
      return ebb_error_set (err, EBB_EPARSE, "%s: container list is not a list",
                            ebb_rt_kind_name (rt->kind));
    }
  size_t n = json_object_array_length (res.json), count = 0;
  ebb_rt_info *infos = ebb_xcalloc (n ? n : 1, sizeof *infos);
  for (size_t i = 0; i < n; i++)
    {
      ebb_rt_info entry;
      if (ebb_rt_parse_list_entry (rt->kind, json_object_array_get_idx (res.json, i), &entry, NULL)
          < 0)
        continue;
      /* A container removed between list and inspect is skipped, not an error. */
      if (entry.ours && ebb_rt_inspect (rt, entry.id, &infos[count], NULL) == 0
          && infos[count].ours)
        count++;
      else
        ebb_rt_info_clear (&infos[count]);
      ebb_rt_info_clear (&entry);
    }
  ebb_http_result_clear (&res);
  *out = infos;
  return (int)count;
}
