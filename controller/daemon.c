/* The daemon: state dir and token, the store, the sd-event loop (signals, one periodic
 * timer for the policy tick, node timeouts and the watchdog), the HTTP servers and the
 * async agent client; Type=notify readiness and SIGHUP reload. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "controller/ctl.h"
#include "controller/api.h"
#include "controller/daemon.h"
#include "controller/leader.h"
#include "controller/sched.h"
#include "controller/outbox.h"
#include "controller/store.h"
#include "controller/options.h"
#include "lib/log.h"
#include "lib/secret.h"
#include "lib/time.h"
#include "lib/util.h"

/* <state-dir>/token: read it, or create it (0600, 32 random bytes in hex) at first start. */
static int
state_token (ebb_ctl *c, ebb_error **err)
{
  cleanup_free char *path = ebb_xasprintf ("%s/token", c->cfg->state_dir);
  if (access (path, F_OK) == 0)
    return ebb_secret_read_token (path, &c->token, err);
  unsigned char rnd[32];
  if (getrandom (rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
    return ebb_error_set_errno (err, errno, "getrandom");
  char hex[2 * sizeof rnd + 2];
  for (size_t i = 0; i < sizeof rnd; i++)
    snprintf (hex + 2 * i, 3, "%02x", rnd[i]);
  strcat (hex, "\n");
  cleanup_close int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "create %s", path);
  if (write (fd, hex, strlen (hex)) != (ssize_t)strlen (hex) || fsync (fd) < 0)
    return ebb_error_set_errno (err, errno, "write %s", path);
  ebb_log_notice ("generated the API token in %s", path);
  hex[strlen (hex) - 1] = '\0';
  c->token = ebb_xstrdup (hex);
  return 0;
}

static int
on_tick (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_ctl *c = ud;
  if (c->watchdog_usec)
    sd_notify (0, "WATCHDOG=1");
  if (ebb_ctl_leading (c)) /* a standby only answers where the leader is */
    ebb_ctl_sched_tick (c);
  ebb_ctl_flush (c);
  ebb_ctl_evict (c); /* after the commit: the rows of what leaves memory are written */
  ebb_ctl_prune (c);
  ebb_ctl_store_checkpoint (c);
  uint64_t next = c->cfg->tick_usec;
  if (c->watchdog_usec && c->watchdog_usec / 2 < next)
    next = c->watchdog_usec / 2;
  sd_event_source_set_time (s, usec + next);
  return 0;
}

static int
on_signal (sd_event_source *s, const struct signalfd_siginfo *si, void *ud)
{
  ebb_ctl *c = ud;
  (void)s;
  if (si->ssi_signo == SIGHUP)
    {
      cleanup_error ebb_error *e = NULL;
      if (ebb_ctl_reload_config (c->cfg, &e) < 0)
        ebb_log_err ("SIGHUP: configuration not reloaded: %s", ebb_error_msg (&e));
      else
        {
          ebb_log_set_level (c->cfg->verbose >= 2   ? LOG_DEBUG
                             : c->cfg->verbose == 1 ? LOG_INFO
                                                    : LOG_NOTICE);
          ebb_log_notice ("SIGHUP: configuration reloaded");
        }
      return 0;
    }
  ebb_log_notice ("%s: exiting (the store keeps every job; agents keep their tasks)",
                  strsignal ((int)si->ssi_signo));
  bool again = c->stopping; /* a second signal does not wait for etcd */
  c->stopping = true;
  sd_notify (0, "STOPPING=1");
  if (again || !ebb_ctl_leader_resign (c))
    sd_event_exit (c->event, 0);
  return 0;
}

/* After the sources of one loop iteration ran: commit, then send what they decided. */
static int
on_post (sd_event_source *s, void *ud)
{
  (void)s;
  ebb_ctl_flush (ud);
  return 0;
}

static int
loop_sources (ebb_ctl *c, ebb_error **err)
{
  static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
  int r = 0;
  for (size_t i = 0; r >= 0 && i < EBB_ARRAY_SIZE (sigs); i++)
    r = sd_event_add_signal (c->event, &c->sig_src[i], sigs[i], on_signal, c);
  if (r < 0)
    return ebb_error_set_errno (err, -r, "signal sources");
  uint64_t wd = 0;
  if (sd_watchdog_enabled (0, &wd) > 0)
    c->watchdog_usec = wd;
  r = sd_event_add_time_relative (c->event, &c->timer_src, CLOCK_MONOTONIC, 10000, 0, on_tick, c);
  if (r >= 0)
    r = sd_event_source_set_enabled (c->timer_src, SD_EVENT_ON);
  if (r < 0)
    return ebb_error_set_errno (err, -r, "timer");
  r = sd_event_add_post (c->event, &c->post_src, on_post, c);
  return r < 0 ? ebb_error_set_errno (err, -r, "post source") : 0;
}

static int
policy_setup (ebb_ctl *c, ebb_error **err)
{
  ebb_pol_params_default (&c->params);
  c->params.nnodes = 1;
  if (!ebb_pol_lookup (c->cfg->policy))
    {
      if (strcmp (c->cfg->policy, "ebb") != 0)
        return ebb_error_set (err, EINVAL, "unknown policy '%s' (ebb-sim --list-policies)",
                              c->cfg->policy);
      /* The default policy is not in every build yet: say so and use hawk, the closest. */
      ebb_log_warn ("policy ebb is not in this build of libebb-policy: using hawk instead");
      free (c->cfg->policy);
      c->cfg->policy = ebb_xstrdup ("hawk");
    }
  if (ebb_ctl_policy_runnable (c->cfg->policy, err) < 0)
    return -EINVAL;
  if (ebb_ctl_policy_params (c->cfg->policy_opt, &c->params, err) < 0)
    return -EINVAL;
  c->res_mode = ebb_pol_lookup (c->cfg->policy)->needs_resources;
  /* Validate the parameters once with a throw-away instance (resource mode: over a node of
   * one CPU; the real capacities come from the heartbeats). */
  ebb_pol_params probe = c->params;
  if (c->res_mode)
    probe.node_cap = (ebb_pol_res){ 1000, 1LL << 30 };
  ebb_pol_job none = { 0 };
  ebb_pol *p = ebb_pol_new (c->cfg->policy, &probe, &none, err);
  if (!p)
    return ebb_error_wrap (err, "policy %s", c->cfg->policy);
  ebb_pol_free (p);
  return 0;
}

/* See ctl.h. */
int
ebb_ctl_new (ebb_ctl_config *cfg, ebb_ctl **out, ebb_error **err)
{
  ebb_ctl *c = ebb_xcalloc (1, sizeof *c);
  c->cfg = cfg;
  c->start_at = ebb_ctl_now ();
  ebb_ctl_metrics_init (c);
  *out = c;
  if (!cfg->listen || !cfg->listen[0])
    {
      ebb_strv_free (cfg->listen);
      cfg->listen = ebb_xcalloc (3, sizeof *cfg->listen);
      cfg->listen[0] = ebb_xstrdup ("unix:/run/ebb/controller.sock");
      cfg->listen[1] = ebb_xstrdup ("127.0.0.1:7480");
    }
  ebb_ctl_sched_calls_route (c);
  /* With --etcd the store is opened and loaded when this instance wins (leader.c). */
  if (policy_setup (c, err) < 0 || (!cfg->etcd && ebb_ctl_store_open (c, err) < 0))
    return -EINVAL;
  /* The token and the epoch live there whatever the store (a PostgreSQL store makes none). */
  if (mkdir (cfg->state_dir, 0700) < 0 && errno != EEXIST)
    return ebb_error_set_errno (err, errno, "create %s", cfg->state_dir);
  if (cfg->token_file ? ebb_secret_read_token (cfg->token_file, &c->token, err) < 0
                      : state_token (c, err) < 0)
    return -EINVAL;
  /* Without an election, each start is a new leader: its epoch (leader.c) is claimed in the
   * store before the load, so that no transaction of the process this one replaces commits
   * after what this one reads (a shared store; SQLite holds none). */
  if (!cfg->etcd && (ebb_ctl_leader_single (c, err) < 0 || ebb_ctl_store_load (c, err) < 0))
    return -EIO;
  /* The preemption counters count since the store was created, not since this start. */
  ebb_ctl_store_preemptions pre;
  if (ebb_ctl_store_preemptions_get (c, &pre) == 0)
    {
      c->m.suspends = pre.suspends;
      c->m.resumes = pre.resumes;
      c->m.preempt_kills = pre.preempt_kills;
    }
  int r = sd_event_new (&c->event);
  if (r < 0)
    return ebb_error_set_errno (err, -r, "sd_event_new");
  c->client = ebb_http_client_new (c->event, err);
  if (!c->client || loop_sources (c, err) < 0 || ebb_ctl_http_start (c, err) < 0)
    return -EIO;
  /* A burst of decisions (a big job, a rebuild) is thousands of calls at once: they share
   * kept-alive connections instead of opening a socket each (file descriptors, the agents'
   * per-address connection limit). */
  ebb_http_client_limit (c->client, 0, EBB_CTL_CALLS_MAX);
  if (ebb_ctl_leader_start (c, err) < 0)
    return -EIO;
  if (cfg->etcd)
    return 0;
  ebb_log_notice ("%zu jobs and %zu nodes from the store; policy %s", c->n_jobs, c->n_nodes,
                  cfg->policy);
  ebb_ctl_sched_resume_starting (c);
  return 0;
}

/* See ctl.h. */
int
ebb_ctl_run (ebb_ctl *c)
{
  sd_notify (0, "READY=1\nSTATUS=Scheduling");
  int r = sd_event_loop (c->event);
  /* EBB_CTL_EXIT_STORE when a commit failed (ebb_ctl_flush) */
  return c->deposed ? EBB_CTL_EXIT_DEPOSED : r < 0 ? 1 : r;
}

/* See ctl.h. */
void
ebb_ctl_free (ebb_ctl *c)
{
  if (!c)
    return;
  c->stopping = true;
  ebb_http_server_free (c->http_unix);
  ebb_http_server_free (c->http_tcp);
  ebb_ctl_leader_free (c);
  ebb_http_client_free (c->client);
  ebb_http_client_free (c->log_client);
  c->timer_src = sd_event_source_disable_unref (c->timer_src);
  c->post_src = sd_event_source_disable_unref (c->post_src);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (c->sig_src); i++)
    c->sig_src[i] = sd_event_source_disable_unref (c->sig_src[i]);
  ebb_ctl_sched_free (c);
  ebb_ctl_store_close (c);
  sd_event_unref (c->event);
  free (c->token);
  free (c);
}
