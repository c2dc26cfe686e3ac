/* The Docker/Podman client's knowledge of containers (agent/runtime-internal.h): a small list
 * (tracked) so that events are reported once per change (STARTED when a container is first
 * seen running or its PID changed, DIED when a running one stops, REMOVED when it goes away),
 * kept current by non-blocking inspects and lists on lib's ebb_http_client. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/runtime-internal.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

/* ---------------------------------------------------------------------------------- */
/* Reporting                                                                            */

void
ebb_rt_emit (ebb_rt *rt, ebb_rt_event_type type, const ebb_rt_info *info, int exit_code,
             const char *detail)
{
  ebb_rt_event ev = {
    .type = type,
    .id = info ? info->id : NULL,
    .info = info,
    .exit_code = exit_code,
    .detail = detail,
  };
  if (rt->fn)
    rt->fn (rt, &ev, rt->userdata);
}

tracked *
ebb_rt_tracked_find (ebb_rt *rt, const char *id)
{
  for (tracked *t = rt->tracked; t; t = t->next)
    if (strcmp (t->info.id, id) == 0)
      return t;
  return NULL;
}

void
ebb_rt_tracked_drop (ebb_rt *rt, tracked *t)
{
  for (tracked **pp = &rt->tracked; *pp; pp = &(*pp)->next)
    if (*pp == t)
      {
        *pp = t->next;
        break;
      }
  ebb_rt_info_clear (&t->info);
  free (t);
}

/* The container is gone from the engine: DIED (if it was running) then REMOVED. */
void
ebb_rt_report_removed (ebb_rt *rt, tracked *t, int exit_code)
{
  if (t->info.running)
    {
      t->info.running = false;
      t->info.pid = 0;
      t->info.exit_code = exit_code;
      ebb_rt_emit (rt, EBB_RT_CONTAINER_DIED, &t->info, exit_code, NULL);
    }
  ebb_rt_emit (rt, EBB_RT_CONTAINER_REMOVED, &t->info, exit_code, NULL);
  ebb_rt_tracked_drop (rt, t);
}

/* Resolves the cgroups of a running container; a process that just exited leaves them empty
 * (the die event follows). */
void
ebb_rt_resolve_cgroups (ebb_rt *rt, ebb_rt_info *info)
{
  cleanup_error ebb_error *err = NULL;
  ebb_rt_cgroups_clear (&info->cgroups);
  if (!info->running || info->pid <= 0)
    return;
  if (ebb_rt_read_proc_cgroup (rt->opts.proc_root, info->pid, &info->cgroups, &err) < 0
      && ebb_error_code (&err) != EBB_EGONE)
    ebb_log_warn ("%s container %.12s: %s", ebb_rt_kind_name (rt->kind), info->id,
                  ebb_error_msg (&err));
}

/* Merges a fresh inspect result (owned; consumed) into what is known and reports changes. */
static void
apply_inspect (ebb_rt *rt, ebb_rt_info *info, uint64_t started_usec, bool want_update)
{
  tracked *t = ebb_rt_tracked_find (rt, info->id);
  if (!info->ours && !(t && t->followed))
    {
      if (t)
        ebb_rt_tracked_drop (rt, t);
      ebb_rt_info_clear (info);
      return;
    }
  bool was_running = t && t->info.running;
  pid_t old_pid = t ? t->info.pid : 0;
  if (!t && !info->running)
    {
      ebb_rt_info_clear (info); /* never seen running: nothing to report */
      return;
    }
  if (!t)
    {
      t = ebb_xcalloc (1, sizeof *t);
      t->next = rt->tracked;
      rt->tracked = t;
    }
  ebb_rt_info_clear (&t->info);
  t->info = *info;
  memset (info, 0, sizeof *info);
  t->confirmed_usec = started_usec;
  if (t->info.running && (!was_running || old_pid != t->info.pid))
    ebb_rt_emit (rt, EBB_RT_CONTAINER_STARTED, &t->info, -1, NULL);
  else if (t->info.running && want_update)
    ebb_rt_emit (rt, EBB_RT_CONTAINER_UPDATED, &t->info, -1, NULL);
  else if (!t->info.running && was_running)
    ebb_rt_emit (rt, EBB_RT_CONTAINER_DIED, &t->info, t->info.exit_code, NULL);
}

/* ---------------------------------------------------------------------------------- */
/* Non-blocking inspect and list                                                        */

typedef struct
{
  ebb_rt *rt;
  char id[65]; /* empty for a list */
  uint64_t started_usec;
} request;

const ebb_http_call_opts *
ebb_rt_call_opts (ebb_rt *rt, ebb_http_call_opts *o)
{
  memset (o, 0, sizeof *o);
  o->timeout_ms = rt->opts.request_timeout_ms;
  return o;
}

pending *
ebb_rt_pending_find (ebb_rt *rt, const char *id, pending ***prevp)
{
  for (pending **pp = &rt->pending; *pp; pp = &(*pp)->next)
    if (strcmp ((*pp)->id, id) == 0)
      {
        if (prevp)
          *prevp = pp;
        return *pp;
      }
  return NULL;
}

static void on_inspect_done (ebb_http_result *res, const ebb_error *err, void *userdata);

static void
start_inspect_request (ebb_rt *rt, const char *id)
{
  ebb_http_call_opts o;
  cleanup_error ebb_error *err = NULL;
  request *req = ebb_xcalloc (1, sizeof *req);
  req->rt = rt;
  snprintf (req->id, sizeof req->id, "%s", id);
  req->started_usec = ebb_now_usec ();
  cleanup_free char *path = ebb_xasprintf (API "/containers/%s/json", id);
  if (ebb_http_client_start (rt->http, "GET", rt->base, path, NULL, ebb_rt_call_opts (rt, &o),
                             on_inspect_done, req, &err)
      < 0)
    {
      ebb_log_warn ("%s: inspect %.12s: %s", ebb_rt_kind_name (rt->kind), id, ebb_error_msg (&err));
      pending **pp = NULL;
      pending *p = ebb_rt_pending_find (rt, id, &pp);
      if (p)
        {
          *pp = p->next;
          free (p);
        }
      free (req);
    }
}

/* Asks for an inspect of id unless one is in flight, in which case that one is repeated
 * when it returns (its answer may predate the event). */
void
ebb_rt_request_inspect (ebb_rt *rt, const char *id, bool want_update)
{
  pending *p = ebb_rt_pending_find (rt, id, NULL);
  if (p)
    {
      p->again = true;
      p->want_update |= want_update;
      return;
    }
  p = ebb_xcalloc (1, sizeof *p);
  snprintf (p->id, sizeof p->id, "%s", id);
  p->want_update = want_update;
  p->next = rt->pending;
  rt->pending = p;
  start_inspect_request (rt, id);
}

static void
handle_inspect_result (ebb_rt *rt, request *req, ebb_http_result *res, const ebb_error *err,
                       bool want_update)
{
  const char *kind = ebb_rt_kind_name (rt->kind);
  if (err)
    {
      ebb_log_info ("%s: inspect %.12s: %s", kind, req->id, err->msg);
      return;
    }
  tracked *t = ebb_rt_tracked_find (rt, req->id);
  if (res->status == 404)
    {
      if (t)
        ebb_rt_report_removed (rt, t, -1);
      return;
    }
  cleanup_error ebb_error *perr = NULL;
  ebb_rt_info info;
  if (res->status != 200 || ebb_rt_parse_inspect (rt->kind, res->json, &info, &perr) < 0)
    {
      ebb_log_warn ("%s: inspect %.12s: HTTP %ld %s", kind, req->id, res->status,
                    perr ? ebb_error_msg (&perr) : "");
      return;
    }
  ebb_rt_resolve_cgroups (rt, &info);
  apply_inspect (rt, &info, req->started_usec, want_update);
}

static void
on_inspect_done (ebb_http_result *res, const ebb_error *err, void *userdata)
{
  request *req = userdata;
  ebb_rt *rt = req->rt;
  if (rt->freeing)
    {
      free (req);
      return;
    }
  pending **pp = NULL;
  pending *p = ebb_rt_pending_find (rt, req->id, &pp);
  if (p && p->again)
    {
      /* An event arrived meanwhile: this answer may be stale, ask again. */
      p->again = false;
      start_inspect_request (rt, req->id);
      free (req);
      return;
    }
  bool want_update = p && p->want_update;
  if (p)
    {
      *pp = p->next;
      free (p);
    }
  handle_inspect_result (rt, req, res, err, want_update);
  free (req);
}

/* The answer to GET /containers/json?all=1 after a (re)connect: inspect every container of
 * ours, and report those known before that are no longer listed. */
static void
handle_list (ebb_rt *rt, json_object *list, uint64_t started_usec)
{
  size_t n = json_object_array_length (list);
  for (size_t i = 0; i < n; i++)
    {
      ebb_rt_info info;
      if (ebb_rt_parse_list_entry (rt->kind, json_object_array_get_idx (list, i), &info, NULL) < 0)
        continue;
      tracked *t = ebb_rt_tracked_find (rt, info.id);
      if (t)
        t->confirmed_usec = started_usec;
      if ((info.ours && info.running) || t)
        ebb_rt_request_inspect (rt, info.id, false);
      ebb_rt_info_clear (&info);
    }
  /* Known, confirmed before the list was asked for, and not in it: removed while we were away. */
  tracked *next;
  for (tracked *t = rt->tracked; t; t = next)
    {
      next = t->next;
      if (t->confirmed_usec < started_usec)
        ebb_rt_report_removed (rt, t, -1);
    }
}

static void
on_list_done (ebb_http_result *res, const ebb_error *err, void *userdata)
{
  request *req = userdata;
  ebb_rt *rt = req->rt;
  if (!rt->freeing)
    {
      if (err)
        ebb_log_info ("%s: list: %s", ebb_rt_kind_name (rt->kind), err->msg);
      else if (res->status != 200 || !json_object_is_type (res->json, json_type_array))
        ebb_log_warn ("%s: list: HTTP %ld, not a list", ebb_rt_kind_name (rt->kind), res->status);
      else
        handle_list (rt, res->json, req->started_usec);
    }
  free (req);
}

void
ebb_rt_request_list (ebb_rt *rt)
{
  ebb_http_call_opts o;
  cleanup_error ebb_error *err = NULL;
  request *req = ebb_xcalloc (1, sizeof *req);
  req->rt = rt;
  req->started_usec = ebb_now_usec ();
  if (ebb_http_client_start (rt->http, "GET", rt->base, API "/containers/json?all=1", NULL,
                             ebb_rt_call_opts (rt, &o), on_list_done, req, &err)
      < 0)
    {
      ebb_log_warn ("%s: list: %s", ebb_rt_kind_name (rt->kind), ebb_error_msg (&err));
      free (req);
    }
}
