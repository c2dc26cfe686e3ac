/* Daemon setup and teardown: security checks on the listen addresses and token, the state
 * directory (locked), cgroups and the engine pool, the journal, the loop's sources. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "agent/adopt.h"
#include "agent/api.h"
#include "agent/daemon.h"
#include "agent/heartbeat.h"
#include "agent/logs-kept.h"
#include "agent/reconcile.h"
#include "agent/request.h"
#include "agent/setup.h"
#include "agent/table.h"
#include "lib/conf.h"
#include "lib/file.h"
#include "lib/log.h"
#include "lib/secret.h"
#include "lib/time.h"
#include "lib/util.h"

/* Every TCP listener needs the token, loopback included: any local user can reach
 * loopback, and the API runs commands. A unix socket is guarded by its mode and group. */
static int
check_security (ebb_agent *a, ebb_error **err)
{
  const char *tcp = NULL;
  for (char **l = a->cfg->listen; l && *l; l++)
    if (strncmp (*l, "unix:", 5) != 0)
      tcp = *l;
  if (tcp && !a->cfg->token_file)
    return ebb_error_set (err, EACCES,
                          "--listen %s is a TCP address: --token-file is required (any local "
                          "user can reach TCP, loopback included)",
                          tcp);
  if (!a->cfg->tls_cert != !a->cfg->tls_key)
    return ebb_error_set (err, EINVAL, "--tls-cert and --tls-key go together");
  if (a->cfg->token_file && ebb_agent_url_exposes_token (a->cfg->controller))
    return ebb_error_set (err, EACCES,
                          "--controller %s is plain http: the token would go to whoever holds "
                          "that port (any local user, once the controller stops); use "
                          "--controller unix:/run/ebb/controller.sock on the controller's machine "
                          "(no token needed there) or https:// with --controller-ca",
                          a->cfg->controller);
  if (a->cfg->token_file)
    return ebb_secret_read_token (a->cfg->token_file, &a->token, err);
  return 0;
}

/* mkdir -p of a unix socket's directory (/run/ebb), mode 0755: the socket's own mode and
 * group decide who connects. */
static void
mkdir_socket_dirs (ebb_agent *a)
{
  for (char **l = a->cfg->listen; l && *l; l++)
    {
      if (strncmp (*l, "unix:/", 6) != 0)
        continue;
      cleanup_free char *copy = ebb_xstrdup (*l + 5);
      char *slash = strrchr (copy, '/');
      if (slash && slash != copy)
        *slash = '\0';
      for (char *p = copy + 1;; p++)
        if (*p == '/' || *p == '\0')
          {
            char c = *p;
            *p = '\0';
            mkdir (copy, 0755);
            *p = c;
            if (!c)
              break;
          }
    }
}

static int
mkdir_at (int dirfd, const char *name, ebb_error **err)
{
  if (mkdirat (dirfd, name, 0700) < 0 && errno != EEXIST)
    return ebb_error_set_errno (err, errno, "mkdir %s", name);
  int fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "open %s", name);
  return fd;
}

static int
open_state (ebb_agent *a, ebb_error **err)
{
  const char *dir = a->cfg->state_dir;
  cleanup_free char *copy = ebb_xstrdup (dir);
  /* mkdir -p */
  for (char *p = copy + 1; *p; p++)
    if (*p == '/')
      {
        *p = '\0';
        mkdir (copy, 0755);
        *p = '/';
      }
  if (mkdir (dir, 0700) < 0 && errno != EEXIST)
    return ebb_error_set_errno (err, errno, "state directory %s", dir);
  a->state_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (a->state_fd < 0)
    return ebb_error_set_errno (err, errno, "state directory %s", dir);
  int lock = openat (a->state_fd, "lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0 || flock (lock, LOCK_EX | LOCK_NB) < 0)
    return ebb_error_set_errno (err, errno == EWOULDBLOCK ? EBUSY : errno,
                                "lock %s/lock (is another ebb-agent using it?)", dir);
  /* The lock fd stays open (and locked) for the daemon's life. */
  if ((a->tasks_fd = mkdir_at (a->state_fd, "tasks", err)) < 0)
    return a->tasks_fd;
  a->syncer = ebb_agent_syncer_new (a->tasks_fd); /* NULL: fsyncs in the loop, as before */
  if ((a->logs_fd = mkdir_at (a->state_fd, "logs", err)) < 0)
    return a->logs_fd;
  return 0;
}

/* mkdir of a directory of --cgroup-parent, remembered when it is new. */
static void
mkdir_cgroup (ebb_agent *a, const char *dir)
{
  if (mkdir (dir, 0755) < 0)
    return;
  a->created_cgroups
      = ebb_xrealloc (a->created_cgroups, (a->n_created_cgroups + 2) * sizeof *a->created_cgroups);
  a->created_cgroups[a->n_created_cgroups++] = ebb_xstrdup (dir);
  a->created_cgroups[a->n_created_cgroups] = NULL;
}

/* Creates --cgroup-parent in each hierarchy when missing, with the missing ancestors. */
static void
mkdir_parents (ebb_agent *a, const char *path)
{
  static const char *const ctl[] = { "cpu", "cpuacct", "memory", "freezer", "pids" };
  bool v2 = ebb_cg_ctx_layout (a->cg_ctx) == EBB_CG_LAYOUT_V2;
  for (size_t i = 0; i < (v2 ? 1 : EBB_ARRAY_SIZE (ctl)); i++)
    {
      const char *mnt = ebb_cg_ctx_mount (a->cg_ctx, ctl[i]);
      if (!mnt)
        continue;
      cleanup_free char *full = ebb_xasprintf ("%s%s", mnt, path);
      for (char *p = full + strlen (mnt) + 1; *p; p++)
        if (*p == '/')
          {
            *p = '\0';
            mkdir_cgroup (a, full);
            *p = '/';
          }
      mkdir_cgroup (a, full);
    }
}

/* See setup.h. */
void
ebb_agent_remove_created_cgroups (ebb_agent *a)
{
  /* Deepest first: a parent is empty only once its children went. A directory that still
   * holds a cgroup (a task left running: --handover, or one the agent did not end) or a
   * process stays, and with it its ancestors. */
  for (size_t i = a->n_created_cgroups; i-- > 0;)
    {
      if (rmdir (a->created_cgroups[i]) == 0)
        ebb_log_info ("removed %s (created at the start)", a->created_cgroups[i]);
      else if (errno != ENOENT)
        ebb_log_info ("kept %s (created at the start): %s", a->created_cgroups[i],
                      strerror (errno));
    }
}

static int
open_cgroups (ebb_agent *a, ebb_error **err)
{
  cleanup_free char *parent = ebb_agent_cgroup_canon (a->cfg->cgroup_parent, err);
  if (!parent)
    return ebb_error_wrap (err, "--cgroup-parent");
  size_t n = ebb_strv_length (a->cfg->adopt_root);
  const char **roots = ebb_xcalloc (n + 2, sizeof *roots);
  roots[0] = parent;
  for (size_t i = 0; i < n; i++)
    roots[i + 1] = a->cfg->adopt_root[i];
  ebb_cg_ctx_config cc;
  ebb_cg_ctx_config_init (&cc);
  cc.allowed_roots = roots;
  if (a->cfg->cgroup_root)
    cc.cgroup_root = a->cfg->cgroup_root;
  /* Failure-injection tests run the agent on a fake tree of plain files: its mountinfo
   * names the layout, and neither libcgroup nor systemd may be asked about the real host. */
  const char *fake_mi = getenv ("EBB_AGENT_TEST_MOUNTINFO");
  if (fake_mi && *fake_mi)
    {
      cc.mountinfo_path = fake_mi;
      cc.use_libcgroup = 0;
      cc.use_systemd = 0;
    }
  int r = ebb_cg_ctx_new (&cc, &a->cg_ctx, err);
  free (roots);
  if (r < 0)
    return ebb_error_wrap (err, "cgroups");
  mkdir_parents (a, parent);
  r = ebb_cg_open_path (a->cg_ctx, parent, EBB_CG_OPEN_FILES_ONLY, &a->parent, err);
  if (r < 0)
    return ebb_error_wrap (err, "--cgroup-parent %s", parent);
  ebb_cg_engine_config_init (&a->engine);
  if (a->cfg->footprint_memory_bytes)
    a->engine.footprint_memory_bytes = a->cfg->footprint_memory_bytes;
  if ((r = ebb_cg_pool_new (2, &a->pool, err)) < 0)
    return r;
  return 0;
}

static void
load_one (ebb_agent_task *t, void *ud)
{
  ebb_agent_reconcile_task (ud, t);
}

static void
write_listen_file (ebb_agent *a)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  for (size_t i = 0; f && i < ebb_http_server_n_listeners (a->http); i++)
    fprintf (f, "%s\n", ebb_http_server_base_url (a->http, i));
  if (f)
    fclose (f);
  cleanup_error ebb_error *e = NULL;
  if (buf && ebb_file_write_atomic (a->state_fd, "listen", buf, &e) < 0)
    ebb_log_warn ("%s", ebb_error_msg (&e));
  free (buf);
}

static void
node_name (ebb_agent *a)
{
  char host[256] = "localhost";
  if (a->cfg->node_name)
    a->node_name = ebb_xstrdup (a->cfg->node_name);
  else
    {
      gethostname (host, sizeof host - 1);
      host[sizeof host - 1] = '\0';
      a->node_name = ebb_xstrdup (host);
    }
}

static int
setup (ebb_agent *a, ebb_error **err)
{
  int r;
  a->on_task_change = ebb_agent_heartbeat_push; /* ops and below never call up */
  if ((r = check_security (a, err)) < 0 || (r = open_state (a, err)) < 0
      || (r = ebb_agent_check_adopt_roots (a, err)) < 0 || (r = open_cgroups (a, err)) < 0)
    return r;
  r = ebb_agent_journal_load (a->tasks_fd, load_one, a, err);
  if (r < 0)
    return r;
  ebb_log_notice ("journal: %d tasks reconciled", r);
  if ((r = ebb_agent_logs_kept_load (a, err)) < 0)
    return r;
  mkdir_socket_dirs (a);
  if ((r = ebb_agent_loop_sources (a, err)) < 0 || (r = ebb_agent_runtimes_start (a, err)) < 0
      || (r = ebb_agent_http_start (a, err)) < 0)
    return r;
  write_listen_file (a);
  if (a->cfg->controller)
    {
      ebb_error *e = NULL;
      a->client = ebb_http_client_new (a->event, &e);
      if (!a->client)
        return ebb_agent_pass_error (err, &e);
    }
  return 0;
}

/* Sets the daemon up. */
int
ebb_agent_new (ebb_agent_config *cfg, ebb_agent **out, ebb_error **err)
{
  ebb_agent *a = ebb_xcalloc (1, sizeof *a);
  a->cfg = cfg;
  a->state_fd = a->tasks_fd = a->logs_fd = -1;
  a->crash_at = getenv ("EBB_AGENT_CRASH_AT");
  a->idem = ebb_agent_idem_new (EBB_AGENT_IDEM_MAX);
  node_name (a);
  ebb_agent_detect_capacity (a);
  int r = sd_event_default (&a->event);
  if (r < 0)
    {
      ebb_agent_free (a);
      return ebb_error_set_errno (err, -r, "sd-event");
    }
  if ((r = setup (a, err)) < 0)
    {
      ebb_agent_free (a);
      return r;
    }
  *out = a;
  return 0;
}

/* Runs the loop; returns the exit code. */
int
ebb_agent_run (ebb_agent *a)
{
  sd_notifyf (0, "READY=1\nSTATUS=Managing %zu tasks", a->n_tasks);
  int r = sd_event_loop (a->event);
  if (r < 0)
    {
      ebb_log_err ("event loop: %s", strerror (-r));
      return 1;
    }
  return r;
}

/* Frees everything; launched processes keep running (a restarted agent re-adopts them). */
void
ebb_agent_free (ebb_agent *a)
{
  if (!a)
    return;
  ebb_http_server_free (a->http);
  ebb_http_client_free (a->client);
  ebb_agent_runtimes_stop (a);
  ebb_cg_pool_free (a->pool); /* waits for jobs in flight and runs their callbacks */
  a->pool = NULL;
  ebb_agent_syncer_free (a->syncer); /* flushes first */
  for (size_t i = 0; i < a->n_tasks; i++)
    ebb_agent_task_destroy (a->tasks[i]);
  free (a->tasks);
  ebb_agent_loop_sources_free (a);
  /* Before the cgroup context: a cgroup removal still being retried is freed with the loop
   * (its timer's destroy callback closes the handle). */
  sd_event_unref (a->event);
  ebb_cg_close (a->parent);
  ebb_cg_ctx_free (a->cg_ctx);
  ebb_agent_idem_free (a->idem);
  if (a->state_fd >= 0)
    close (a->state_fd);
  if (a->tasks_fd >= 0)
    close (a->tasks_fd);
  if (a->logs_fd >= 0)
    close (a->logs_fd);
  ebb_agent_logs_kept_free (a);
  ebb_strv_free (a->created_cgroups);
  free (a->token);
  free (a->controller_leader);
  free (a->node_name);
  free (a);
}
