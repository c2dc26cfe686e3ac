/* The daemon's loop sources: signals (SIGTERM/SIGINT stop, SIGHUP reloads), the periodic
 * timer (usage refresh, log rotation, heartbeats, watchdog) and the pool's eventfd. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "agent/daemon.h"
#include "agent/heartbeat.h"
#include "agent/launch.h"
#include "agent/ops.h"
#include "agent/table.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

#define TICK_USEC 1000000ULL

/* The periodic refresh reads usage only: limits change through the agent (re-read after
 * every operation and on GET /v1/tasks/ID), and idle CPU matters with hundreds of tasks. */
static void
refresh_usage (ebb_agent *a, ebb_agent_task *t)
{
  if (!t->cg || ebb_cg_pool_busy (a->pool, t->cg))
    return;
  cleanup_error ebb_error *e = NULL;
  ebb_cg_stats st;
  int r = ebb_cg_read_stats (t->cg, &st, &e);
  if (r == -EBB_EGONE && t->source != EBB_AGENT_SRC_LAUNCHED)
    ebb_agent_task_exited (a, t, -1, 0); /* an adopted cgroup vanished */
  else if (r >= 0 && memcmp (&st, &t->stats, sizeof st) != 0)
    {
      t->stats = st;
      ebb_agent_task_touch (t);
    }
}

/* Usage is refreshed a few tasks per loop iteration (a defer source), so a refresh of
 * hundreds of cgroups never holds up HTTP requests for more than a few file reads. */
#define REFRESH_BATCH 8

static int
on_refresh (sd_event_source *s, void *ud)
{
  ebb_agent *a = ud;
  size_t end = a->refresh_cursor + REFRESH_BATCH;
  for (; a->refresh_cursor < end && a->refresh_cursor < a->n_tasks; a->refresh_cursor++)
    {
      ebb_agent_task *t = a->tasks[a->refresh_cursor];
      if (t->state == EBB_AGENT_RUNNING || t->state == EBB_AGENT_SUSPENDED)
        {
          refresh_usage (a, t);
          ebb_agent_rotate_log (a, t);
        }
    }
  if (a->refresh_cursor >= a->n_tasks)
    sd_event_source_set_enabled (s, SD_EVENT_OFF);
  return 0;
}

static void
refresh_all (ebb_agent *a)
{
  a->refresh_cursor = 0;
  if (!a->refresh_src && sd_event_add_defer (a->event, &a->refresh_src, on_refresh, a) < 0)
    return;
  sd_event_source_set_enabled (a->refresh_src, SD_EVENT_ON);
}

static int
on_tick (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_agent *a = ud;
  uint64_t now = ebb_now_usec ();
  if (a->watchdog_usec)
    sd_notify (0, "WATCHDOG=1");
  if (now - a->last_stats_usec >= a->cfg->stats_usec)
    {
      refresh_all (a);
      a->last_stats_usec = now;
    }
  ebb_agent_heartbeat_tick (a, now);
  ebb_agent_check_limits (a, ebb_realtime_usec ());
  uint64_t next = TICK_USEC;
  if (a->watchdog_usec && a->watchdog_usec / 2 < next)
    next = a->watchdog_usec / 2;
  sd_event_source_set_time (s, usec + next);
  return 0;
}

static int
on_pool (sd_event_source *s, int fd, uint32_t revents, void *ud)
{
  ebb_agent *a = ud;
  (void)s, (void)fd, (void)revents;
  ebb_cg_pool_dispatch (a->pool);
  return 0;
}

static void
reload (ebb_agent *a)
{
  cleanup_error ebb_error *e = NULL;
  if (ebb_agent_reload_config (a->cfg, &e) < 0)
    {
      ebb_log_err ("SIGHUP: configuration not reloaded: %s", ebb_error_msg (&e));
      return;
    }
  a->engine.footprint_memory_bytes = a->cfg->footprint_memory_bytes;
  if (a->cfg->controller && !a->client)
    {
      a->client = ebb_http_client_new (a->event, &e);
      if (!a->client)
        ebb_log_err ("SIGHUP: heartbeat client: %s", ebb_error_msg (&e));
    }
  a->next_heartbeat_usec = 0;
  a->heartbeat_backoff_usec = 0;
  ebb_log_notice ("SIGHUP: configuration reloaded (%zu tasks, %zu suspended)", a->n_tasks,
                  ebb_agent_count_state (a, EBB_AGENT_SUSPENDED));
}

static int
on_signal (sd_event_source *s, const struct signalfd_siginfo *si, void *ud)
{
  ebb_agent *a = ud;
  (void)s;
  if (si->ssi_signo == SIGHUP)
    {
      reload (a);
      return 0;
    }
  if (a->stopping)
    return 0;
  ebb_log_notice ("%s: %s", strsignal ((int)si->ssi_signo),
                  a->cfg->handover ? "handing over (suspended tasks stay suspended)"
                                   : "resuming suspended tasks, then exiting");
  a->stopping = true;
  sd_notify (0, "STOPPING=1\nSTATUS=Stopping");
  ebb_agent_check_stop (a);
  return 0;
}

/* Adds the pool's eventfd, the signals and the periodic timer to the loop. */
int
ebb_agent_loop_sources (ebb_agent *a, ebb_error **err)
{
  static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
  int r = sd_event_add_io (a->event, &a->pool_src, ebb_cg_pool_fd (a->pool), EPOLLIN, on_pool, a);
  for (size_t i = 0; r >= 0 && i < EBB_ARRAY_SIZE (sigs); i++)
    r = sd_event_add_signal (a->event, &a->sig_src[i], sigs[i], on_signal, a);
  if (r < 0)
    return ebb_error_set_errno (err, -r, "event sources");
  uint64_t wd = 0;
  if (sd_watchdog_enabled (0, &wd) > 0)
    a->watchdog_usec = wd;
  r = sd_event_add_time_relative (a->event, &a->timer_src, CLOCK_MONOTONIC, TICK_USEC / 10, 0,
                                  on_tick, a);
  if (r >= 0)
    r = sd_event_source_set_enabled (a->timer_src, SD_EVENT_ON);
  return r < 0 ? ebb_error_set_errno (err, -r, "timer") : 0;
}

/* Releases the sources ebb_agent_loop_sources() added. */
void
ebb_agent_loop_sources_free (ebb_agent *a)
{
  a->pool_src = sd_event_source_disable_unref (a->pool_src);
  a->timer_src = sd_event_source_disable_unref (a->timer_src);
  a->refresh_src = sd_event_source_disable_unref (a->refresh_src);
  a->push_src = sd_event_source_disable_unref (a->push_src);
  a->stop_timer = sd_event_source_disable_unref (a->stop_timer);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (a->sig_src); i++)
    a->sig_src[i] = sd_event_source_disable_unref (a->sig_src[i]);
}
