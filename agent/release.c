/* A task's cgroup as a whole, below the task's own process: the first PID in it, a signal
 * to every process in it, and the one release path of its directory (removed for a launched
 * task, retried from a timer while its last processes die; closed for an adopted one). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/context.h"
#include "agent/release.h"
#include "lib/log.h"
#include "lib/util.h"

/* Returns the directory of cgroup path in the hierarchy of controller ctl (v2: the one
 * unified hierarchy), or NULL when it is not mounted. */
static char *
cg_dir (ebb_cg_ctx *ctx, const char *ctl, const char *path)
{
  bool v2 = ebb_cg_ctx_layout (ctx) == EBB_CG_LAYOUT_V2;
  const char *mnt = ebb_cg_ctx_mount (ctx, v2 ? NULL : ctl);
  return mnt && path ? ebb_xasprintf ("%s%s", mnt, path) : NULL;
}

/* Returns the first PID in the cgroup's cgroup.procs (0 when empty or unreadable). */
pid_t
ebb_agent_cgroup_first_pid (ebb_agent *a, const char *cgroup)
{
  cleanup_free char *dir = cg_dir (a->cg_ctx, "memory", cgroup);
  if (!dir)
    return 0;
  cleanup_free char *path = ebb_xasprintf ("%s/cgroup.procs", dir);
  cleanup_fclose FILE *f = fopen (path, "re");
  int pid = 0;
  if (!f || fscanf (f, "%d", &pid) != 1)
    return 0;
  return pid;
}

/* Writes s to dir/name; returns 0 or -errno. No waiting: these are the kernel's own
 * asynchronous controls (cgroup.kill, freeze files). */
static int
put_file (const char *dir, const char *name, const char *s)
{
  if (!dir)
    return -ENOENT;
  cleanup_free char *path = ebb_xasprintf ("%s/%s", dir, name);
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return -errno;
  size_t n = strlen (s);
  return write (fd, s, n) == (ssize_t)n ? 0 : -errno;
}

/* Sends sig to every process of cgroup, those that left the task's session or process
 * group included. SIGKILL: cgroup.kill on v2 (the kernel kills even processes forking
 * meanwhile); otherwise, and on v1, freeze (nothing forks), signal each PID, thaw. */
void
ebb_agent_signal_cgroup (ebb_agent *a, const char *cgroup, int sig)
{
  bool v2 = ebb_cg_ctx_layout (a->cg_ctx) == EBB_CG_LAYOUT_V2;
  cleanup_free char *dir = cg_dir (a->cg_ctx, "memory", cgroup);
  if (!dir)
    return;
  if (sig == SIGKILL && v2 && put_file (dir, "cgroup.kill", "1") == 0)
    return;
  cleanup_free char *fdir = v2 ? ebb_xstrdup (dir) : cg_dir (a->cg_ctx, "freezer", cgroup);
  bool froze = sig == SIGKILL
               && put_file (fdir, v2 ? "cgroup.freeze" : "freezer.state", v2 ? "1" : "FROZEN") == 0;
  cleanup_free char *procs = ebb_xasprintf ("%s/cgroup.procs", dir);
  cleanup_fclose FILE *f = fopen (procs, "re");
  long pid;
  while (f && fscanf (f, "%ld", &pid) == 1)
    if (pid > 1)
      kill ((pid_t)pid, sig);
  if (froze || sig != SIGKILL) /* a stopped or frozen task must run to act on SIGTERM */
    put_file (fdir, v2 ? "cgroup.freeze" : "freezer.state", v2 ? "0" : "THAWED");
}

#define RELEASE_RETRY_USEC 50000ULL
#define RELEASE_TRIES                                                                              \
  200 /* 10 s: an escapee killed in its sleep leaves a child that exits within 1 s, and a loaded   \
         machine reaps late */

/* A cgroup whose last processes are still dying: rmdir retried from a timer, never by
 * waiting in the loop. The timer's source owns it: freed by its destroy callback, whether the
 * retries end or the loop is freed with one pending (agent exit). */
typedef struct release_retry
{
  ebb_agent *a;
  ebb_cg *cg;
  bool kill_rest;
  unsigned tries;
} release_retry;

static void
release_retry_free (void *ud)
{
  release_retry *rr = ud;
  ebb_cg_close (rr->cg);
  free (rr);
}

/* Removes cg; a directory already gone counts as removed (a retry after a partial v1 rmdir). */
static int
remove_cg (ebb_cg *cg, ebb_error **err)
{
  int r = ebb_cg_remove (cg, err);
  return r == -EBB_EGONE ? 0 : r;
}

static int
on_release_retry (sd_event_source *s, uint64_t usec, void *ud)
{
  release_retry *rr = ud;
  cleanup_error ebb_error *e = NULL;
  /* A process forked while the first SIGKILL went out would keep the cgroup busy forever. */
  if (rr->kill_rest)
    ebb_agent_signal_cgroup (rr->a, ebb_cg_path (rr->cg), SIGKILL);
  if (remove_cg (rr->cg, &e) >= 0 || ++rr->tries >= RELEASE_TRIES)
    {
      if (rr->tries >= RELEASE_TRIES)
        ebb_log_warn ("cgroup %s still busy after %u tries: left behind (%s)", ebb_cg_path (rr->cg),
                      rr->tries, ebb_error_msg (&e));
      sd_event_source_disable_unref (s); /* frees rr */
      return 0;
    }
  /* A timer source is one-shot: it fired, so it is off until enabled again. */
  sd_event_source_set_time (s, usec + RELEASE_RETRY_USEC);
  sd_event_source_set_enabled (s, SD_EVENT_ONESHOT);
  return 0;
}

/* The one release path of a task's cgroup: unless the engine still works on it, a launched
 * task's cgroup is emptied (kill_rest: SIGKILL to what remains) and removed, an adopted
 * one only closed; t->cg is NULL afterwards. */
void
ebb_agent_release_cgroup (ebb_agent *a, ebb_agent_task *t, bool kill_rest)
{
  if (!t->cg || (a->pool && ebb_cg_pool_busy (a->pool, t->cg)))
    return;
  ebb_cg *cg = t->cg;
  t->cg = NULL;
  if (t->source != EBB_AGENT_SRC_LAUNCHED)
    {
      ebb_cg_close (cg);
      return;
    }
  if (kill_rest)
    ebb_agent_signal_cgroup (a, t->cgroup, SIGKILL);
  if (remove_cg (cg, NULL) >= 0)
    {
      ebb_cg_close (cg);
      return;
    }
  release_retry *rr = ebb_xcalloc (1, sizeof *rr);
  rr->a = a;
  rr->cg = cg;
  rr->kill_rest = kill_rest;
  sd_event_source *s = NULL;
  int r = sd_event_add_time_relative (a->event, &s, CLOCK_MONOTONIC, RELEASE_RETRY_USEC, 0,
                                      on_release_retry, rr);
  if (r >= 0)
    r = sd_event_source_set_destroy_callback (s, release_retry_free);
  if (r >= 0)
    r = sd_event_source_set_floating (s, true);
  if (r < 0)
    {
      ebb_log_warn ("cgroup %s busy and no retry timer (%s): left behind", ebb_cg_path (cg),
                    strerror (-r));
      if (s && sd_event_source_set_destroy_callback (s, NULL) >= 0)
        sd_event_source_disable_unref (s);
      release_retry_free (rr);
      return;
    }
  sd_event_source_unref (s); /* the loop holds it now (floating) */
}
