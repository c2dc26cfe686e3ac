/* Adoption: an existing cgroup (confined to --adopt-root) or a Docker/Podman container
 * (found through agent/runtime.h) becomes a task. Discovery events from the runtimes keep
 * container tasks up to date. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/adopt.h"
#include "agent/ops.h"
#include "agent/proc.h"
#include "agent/release.h"
#include "agent/runtime.h"
#include "agent/table.h"
#include "lib/log.h"
#include "lib/util.h"

/* Returns true when canon is an ancestor of (or is) one of the agent's own cgroups, read from
 * /proc/self/cgroup (v2: one line; v1: one per hierarchy) and set in *own: adopting it would
 * let a caller throttle or freeze the agent itself. */
static bool
covers_own_cgroup (const char *canon, char **own)
{
  cleanup_fclose FILE *f = fopen ("/proc/self/cgroup", "re");
  cleanup_free char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while (f && (n = getline (&line, &cap, f)) > 0)
    {
      line[strcspn (line, "\n")] = '\0';
      char *colon = strchr (line, ':');
      char *path = colon ? strchr (colon + 1, ':') : NULL;
      if (path && path[1] == '/' && ebb_agent_path_under (path + 1, canon))
        {
          *own = ebb_xstrdup (path + 1);
          return true;
        }
    }
  return false;
}

/* Refuses an adopt_root that covers the agent's own cgroup (called at start). */
int
ebb_agent_check_adopt_roots (ebb_agent *a, ebb_error **err)
{
  for (char **r = a->cfg->adopt_root; r && *r; r++)
    {
      cleanup_free char *root = ebb_agent_cgroup_canon (*r, err);
      cleanup_free char *own = NULL;
      if (!root)
        return ebb_error_wrap (err, "adopt_root %s", *r);
      if (covers_own_cgroup (root, &own))
        return ebb_error_set (err, EBB_EREFUSED,
                              "adopt_root %s covers the agent's own cgroup %s: the agent could "
                              "be adopted and throttled; name a subtree without it",
                              root, own);
    }
  return 0;
}

static bool
under_adopt_root (ebb_agent *a, const char *canon)
{
  for (char **r = a->cfg->adopt_root; r && *r; r++)
    {
      cleanup_free char *root = ebb_agent_cgroup_canon (*r, NULL);
      if (root && ebb_agent_path_under (canon, root))
        return true;
    }
  return false;
}

static void
fill_common (ebb_agent_task *t, const ebb_agent_adopt_req *req)
{
  if (req->job)
    {
      free (t->job);
      t->job = ebb_xstrdup (req->job);
    }
  if (req->cls)
    t->long_class = strcmp (req->cls, "long") == 0;
  if (req->generation)
    t->generation = req->generation;
  if (req->cpu_millis)
    t->cpu_millis = req->cpu_millis;
  if (req->memory_bytes)
    t->memory_bytes = req->memory_bytes;
}

static int
open_adopted (ebb_agent *a, const char *canon, ebb_agent_task *t, ebb_error **err)
{
  if (!under_adopt_root (a, canon))
    return ebb_error_set (err, EBB_EREFUSED, "cgroup %s is outside every --adopt-root", canon);
  ebb_cg *cg = NULL;
  int r = ebb_cg_open_path (a->cg_ctx, canon, EBB_CG_OPEN_DEFAULT, &cg, err);
  if (r < 0)
    return r;
  t->cg = cg;
  t->cgroup = ebb_xstrdup (ebb_cg_path (cg));
  t->cgroup_inode = ebb_cg_inode (cg);
  t->pid = ebb_agent_cgroup_first_pid (a, t->cgroup);
  t->pid_starttime = t->pid ? ebb_agent_pid_starttime (t->pid) : 0;
  ebb_cg_read_limits (cg, &t->applied, NULL);
  return 0;
}

static const char *
basename_id (const char *canon)
{
  const char *b = strrchr (canon, '/');
  return b ? b + 1 : canon;
}

/* Adopts a cgroup path. Returns 0 and *out, or negative with *err (EBB_EREFUSED outside
 * --adopt-root or a traversal, EBB_EGONE no such cgroup, EINVAL no usable id). */
int
ebb_agent_adopt_cgroup (ebb_agent *a, const ebb_agent_adopt_req *req, ebb_agent_task **out,
                        ebb_error **err)
{
  ebb_error *e = NULL;
  cleanup_free char *canon = ebb_agent_cgroup_canon (req->cgroup, &e);
  if (!canon)
    return ebb_agent_pass_error (err, &e);
  /* Confinement first: a path outside --adopt-root learns nothing else about the host. */
  if (!under_adopt_root (a, canon))
    return ebb_error_set (err, EBB_EREFUSED, "cgroup %s is outside every --adopt-root", canon);
  cleanup_free char *own = NULL;
  if (covers_own_cgroup (canon, &own))
    return ebb_error_set (err, EBB_EREFUSED, "cgroup %s holds the agent's own cgroup %s", canon,
                          own);
  const char *id = req->id ? req->id : basename_id (canon);
  if (!ebb_id_is_valid (id, EBB_AGENT_ID_MAX))
    return ebb_error_set (err, EINVAL, "cgroup name %s is not a valid task id: pass \"id\"", id);
  if (ebb_agent_find (a, id))
    return ebb_error_set (err, EEXIST, "task %s exists", id);
  for (size_t i = 0; i < a->n_tasks; i++)
    if (a->tasks[i]->cgroup && strcmp (a->tasks[i]->cgroup, canon) == 0
        && a->tasks[i]->state != EBB_AGENT_EXITED)
      return ebb_error_set (err, EEXIST, "cgroup %s is task %s already", canon, a->tasks[i]->id);
  ebb_agent_task *t = ebb_agent_task_new (id);
  t->owner = a;
  t->source = EBB_AGENT_SRC_CGROUP;
  fill_common (t, req);
  int r = open_adopted (a, canon, t, err);
  if (r < 0)
    {
      ebb_agent_task_free (t);
      return r;
    }
  *out = t;
  return 0;
}

static const char *
info_cgroup (const ebb_rt_info *info)
{
  if (info->cgroups.memory)
    return info->cgroups.memory;
  return info->cgroups.unified;
}

static ebb_agent_task *
task_from_info (ebb_agent *a, const ebb_rt_info *info, const char *id, ebb_error **err)
{
  const char *cgpath = info_cgroup (info);
  if (!info->running || !cgpath)
    return ebb_error_set (err, EBB_EGONE, "container %s is not running", info->id), NULL;
  cleanup_free char *canon = ebb_agent_cgroup_canon (cgpath, err);
  if (!canon)
    return NULL;
  ebb_agent_task *t = ebb_agent_task_new (id);
  t->owner = a;
  t->source = info->kind == EBB_RT_PODMAN ? EBB_AGENT_SRC_PODMAN : EBB_AGENT_SRC_DOCKER;
  t->container = ebb_xstrdup (info->id);
  t->job = info->job ? ebb_xstrdup (info->job) : NULL;
  t->long_class = info->cls == EBB_RT_CLASS_LONG;
  t->cpu_millis = info->cpu_millis;
  t->memory_bytes = info->memory_bytes;
  if (open_adopted (a, canon, t, err) < 0)
    {
      ebb_agent_task_free (t);
      return NULL;
    }
  t->pid = info->pid;
  t->pid_starttime = ebb_agent_pid_starttime (info->pid);
  return t;
}

static const char *
container_task_id (const ebb_rt_info *info)
{
  if (info->name && ebb_id_is_valid (info->name, EBB_AGENT_ID_MAX))
    return info->name;
  return info->id;
}

/* A container adoption in flight: the engines are asked in turn, without blocking. */
typedef struct adopt_ctx
{
  ebb_agent *a;
  ebb_agent_adopt_req req; /* copies */
  ebb_agent_pending *pending;
  int next_rt;
  int last; /* the last engine's failure */
  char *last_msg;
} adopt_ctx;

static void adopt_try (adopt_ctx *c);

static void
adopt_ctx_free (adopt_ctx *c)
{
  free (c->req.container), free (c->req.id), free (c->req.job), free (c->req.cls);
  free (c->req.runtime);
  free (c->last_msg);
  free (c);
}

/* Answers the request (status from the error code) and frees c. */
static void
adopt_fail (adopt_ctx *c, int code, const char *msg)
{
  static const struct
  {
    int code;
    unsigned status;
    const char *name;
  } map[] = {
    { ENOENT, 404, "not_found" },       { EINVAL, 400, "bad_request" },
    { EEXIST, 409, "conflict" },        { EBB_EGONE, 410, "gone" },
    { EBB_EREFUSED, 403, "forbidden" }, { ENOTSUP, 422, "unsupported" },
  };
  unsigned status = 500;
  const char *name = "internal";
  for (size_t i = 0; i < EBB_ARRAY_SIZE (map); i++)
    if (map[i].code == code)
      status = map[i].status, name = map[i].name;
  ebb_agent_count_error (c->a, status == 404   ? EBB_AGENT_ERR_NOT_FOUND
                               : status == 409 ? EBB_AGENT_ERR_CONFLICT
                                               : EBB_AGENT_ERR_BAD_REQUEST);
  /* Not remembered under its request id: a retry, once the container exists, must work. */
  free (c->pending->request_id);
  c->pending->request_id = NULL;
  ebb_agent_pending_finish (c->a, NULL, c->pending, status, name, msg);
  adopt_ctx_free (c);
}

static void
on_inspected (ebb_rt_info *info, const ebb_error *err, void *ud)
{
  adopt_ctx *c = ud;
  ebb_agent *a = c->a;
  if (err)
    {
      c->last = -err->code;
      free (c->last_msg);
      c->last_msg = ebb_xstrdup (err->msg);
      if (err->code == ENOENT && !a->stopping)
        adopt_try (c); /* maybe the other engine has it */
      else
        adopt_fail (c, err->code, err->msg);
      return;
    }
  const char *id = c->req.id ? c->req.id : container_task_id (info);
  cleanup_error ebb_error *e = NULL;
  ebb_agent_task *t = NULL;
  if (ebb_agent_find (a, id))
    ebb_error_set (&e, EEXIST, "task %s exists", id);
  else if ((t = task_from_info (a, info, id, &e)))
    {
      fill_common (t, &c->req);
      if (ebb_agent_journal (a, t, &e) < 0)
        {
          ebb_agent_task_destroy (t);
          t = NULL;
        }
    }
  if (!t)
    {
      adopt_fail (c, e ? e->code : EIO, ebb_error_msg (&e));
      return;
    }
  ebb_agent_add_task (a, t);
  a->m.adoptions++;
  ebb_log_info ("adopted container %s as task %s", t->container, t->id);
  ebb_agent_pending_finish (a, t, c->pending, 201, NULL, NULL);
  adopt_ctx_free (c);
}

/* Asks the next configured engine; when none is left, answers with the last failure. */
static void
adopt_try (adopt_ctx *c)
{
  ebb_agent *a = c->a;
  while (c->next_rt < 2)
    {
      int i = c->next_rt++;
      ebb_rt *rt = a->rt[i];
      /* rt[0] is Docker's, rt[1] Podman's (ebb_agent_runtimes_start). */
      if (!rt || (c->req.runtime && strcmp (c->req.runtime, i == 0 ? "docker" : "podman") != 0))
        continue;
      cleanup_error ebb_error *e = NULL;
      if (ebb_rt_inspect_async (rt, c->req.container, on_inspected, c, &e) >= 0)
        return;
      c->last = -ebb_error_code (&e);
      free (c->last_msg);
      c->last_msg = ebb_xstrdup (ebb_error_msg (&e));
    }
  adopt_fail (c, c->last ? -c->last : ENOENT,
              c->last_msg ? c->last_msg : "no container runtime has it");
}

/* Adopts a container by id or name through the engines configured, asynchronously: p is
 * answered (201 and the task, or the error) from the loop once an engine has answered. */
int
ebb_agent_adopt_container_start (ebb_agent *a, const ebb_agent_adopt_req *req, ebb_agent_pending *p,
                                 ebb_error **err)
{
  if (!a->rt[0] && !a->rt[1])
    return ebb_error_set (err, ENOTSUP,
                          "no container runtime configured "
                          "(--docker-socket, --podman-socket)");
  if (req->runtime && !a->rt[strcmp (req->runtime, "docker") == 0 ? 0 : 1])
    return ebb_error_set (err, ENOTSUP, "runtime %s is not configured (--%s-socket)", req->runtime,
                          req->runtime);
  adopt_ctx *c = ebb_xcalloc (1, sizeof *c);
  c->a = a;
  c->pending = p;
  c->req = *req;
  c->req.container = ebb_xstrdup (req->container);
  c->req.id = req->id ? ebb_xstrdup (req->id) : NULL;
  c->req.job = req->job ? ebb_xstrdup (req->job) : NULL;
  c->req.cls = req->cls ? ebb_xstrdup (req->cls) : NULL;
  c->req.runtime = req->runtime ? ebb_xstrdup (req->runtime) : NULL;
  c->req.cgroup = c->req.request_id = NULL;
  adopt_try (c);
  return 0;
}

static ebb_agent_task *
find_container (ebb_agent *a, const char *cid)
{
  for (size_t i = 0; i < a->n_tasks; i++)
    if (a->tasks[i]->container && strcmp (a->tasks[i]->container, cid) == 0)
      return a->tasks[i];
  return NULL;
}

static void
container_started (ebb_agent *a, const ebb_rt_info *info)
{
  ebb_agent_task *t = find_container (a, info->id);
  if (t && t->state != EBB_AGENT_EXITED && t->pid == info->pid)
    return; /* known and unchanged (a re-list after a reconnect) */
  if (t)
    {
      /* Restarted: a new process and maybe a new cgroup; the old record is replaced. */
      ebb_agent_journal_remove (a->tasks_fd, t->id, NULL);
      ebb_agent_drop_task (a, t);
    }
  if (!info->managed)
    {
      ebb_log_warn ("container %s has ebb labels but is not managed: %s", info->id,
                    info->reason ? info->reason : "?");
      return;
    }
  cleanup_error ebb_error *e = NULL;
  const char *id = container_task_id (info);
  if (ebb_agent_find (a, id))
    id = info->id;
  t = task_from_info (a, info, id, &e);
  if (!t)
    {
      ebb_log_warn ("container %s: %s", info->id, ebb_error_msg (&e));
      return;
    }
  if (ebb_agent_journal (a, t, &e) < 0)
    {
      ebb_agent_task_destroy (t);
      return;
    }
  ebb_agent_add_task (a, t);
  a->m.adoptions++;
  ebb_log_info ("discovered %s container %s as task %s", ebb_rt_kind_name (info->kind), info->id,
                t->id);
}

static void
on_rt_event (ebb_rt *rt, const ebb_rt_event *ev, void *ud)
{
  ebb_agent *a = ud;
  ebb_agent_task *t;
  switch (ev->type)
    {
    case EBB_RT_CONTAINER_STARTED:
      container_started (a, ev->info);
      break;
    case EBB_RT_CONTAINER_DIED:
    case EBB_RT_CONTAINER_REMOVED:
      t = find_container (a, ev->id);
      if (t && t->state != EBB_AGENT_EXITED)
        ebb_agent_task_exited (a, t, ev->exit_code >= 0 ? CLD_EXITED : -1, ev->exit_code);
      break;
    case EBB_RT_ENGINE_DISCONNECTED:
      ebb_log_debug ("%s: disconnected: %s", ebb_rt_kind_name (ebb_rt_get_kind (rt)),
                     ev->detail ? ev->detail : "");
      break;
    default:
      break;
    }
}

/* Starts the runtime clients named in the configuration. */
int
ebb_agent_runtimes_start (ebb_agent *a, ebb_error **err)
{
  const char *socks[2] = { a->cfg->docker_socket, a->cfg->podman_socket };
  for (int i = 0; i < 2; i++)
    {
      if (!socks[i] || !*socks[i])
        continue;
      ebb_error *e = NULL;
      a->rt[i] = ebb_rt_new (a->event, i == 0 ? EBB_RT_DOCKER : EBB_RT_PODMAN, socks[i], NULL,
                             on_rt_event, a, &e);
      if (!a->rt[i])
        return ebb_agent_pass_error (err, &e);
    }
  return 0;
}

/* Stops the runtime clients. */
void
ebb_agent_runtimes_stop (ebb_agent *a)
{
  for (int i = 0; i < 2; i++)
    {
      ebb_rt_free (a->rt[i]);
      a->rt[i] = NULL;
    }
}
