/* Operations on tasks: suspend, resume, delete, exit. Every transition is journaled before
 * the cgroup is touched; the cgroup writes run on the engine's worker pool and finish in
 * on_job_done() on the loop thread. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/metrics.h"
#include "agent/ops.h"
#include "agent/proc.h"
#include "agent/release.h"
#include "agent/table.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

/* Answers p (if any) with status and body (owned), remembering the answer under its
 * request id, in the task's journal record too (t may be NULL). Journals t. */
void
ebb_agent_pending_finish (ebb_agent *a, ebb_agent_task *t, ebb_agent_pending *p, unsigned status,
                          const char *code, const char *detail)
{
  json_object *body;
  if (code)
    {
      body = json_object_new_object ();
      ebb_json_add_string (body, "error", code);
      ebb_json_add_string (body, "detail", detail);
    }
  else
    body = ebb_agent_task_to_json (t);
  cleanup_free char *text = ebb_json_to_string (body);
  if (p && p->request_id)
    {
      ebb_agent_idem_add (a->idem, p->request_id, p->key, status, text);
      if (t)
        ebb_agent_task_add_reply (t, p->request_id, p->key, status, text);
    }
  if (t && !t->forget_on_exit)
    ebb_agent_journal (a, t, NULL);
  if (p && p->d)
    {
      ebb_http_reply_json (ebb_http_deferred_response (p->d), status, body);
      ebb_http_deferred_complete (p->d);
    }
  else
    json_object_put (body);
  ebb_agent_pending_free (p);
}

static void
finish_task (ebb_agent *a, ebb_agent_task *t, unsigned status, const char *code, const char *detail)
{
  ebb_agent_pending *p = t->pending;
  t->pending = NULL;
  ebb_agent_pending_finish (a, t, p, status, code, detail);
}

static void on_job_done (ebb_cg *cg, const ebb_cg_job *job, int rc, const ebb_cg_result *res,
                         ebb_error *err, void *userdata);

/* Tells the task it is being suspended or was resumed, when its launch asked for that:
 * each process of its cgroup once (signal_task() would reach the first one twice, and a
 * handler may run for each). */
static void
notify_task (ebb_agent_task *t, const char *what)
{
  if (!t->notify_signal || t->source != EBB_AGENT_SRC_LAUNCHED || !t->cg)
    return;
  ebb_log_info ("task %s: %s, signal %d", t->id, what, t->notify_signal);
  ebb_agent_signal_cgroup (t->owner, t->cgroup, t->notify_signal);
}

/* Puts the state back as it was before a suspend that did not start: not a suspension. */
static void
undo_suspend (ebb_agent_task *t, ebb_agent_state old, ebb_agent_state old_prev, int old_graceful,
              uint64_t old_since, uint64_t old_count)
{
  t->state = old, t->prev_state = old_prev, t->graceful = old_graceful;
  t->suspended_since_usec = old_since, t->suspensions = old_count;
  ebb_agent_task_touch (t);
}

static int
submit (ebb_agent *a, ebb_agent_task *t, ebb_cg_job_kind kind, ebb_error **err)
{
  ebb_cg_job job = { 0 };
  job.kind = kind;
  job.config = a->engine;
  job.step.cpu_cores = (double)t->step_cpu_millis / 1000.0;
  job.step.memory_bytes = t->step_memory_bytes;
  job.step.booked_cores = (double)t->step_booked_cpu_millis / 1000.0;
  job.step.booked_memory_bytes = t->step_booked_memory_bytes;
  job.step.given_cores = (double)t->cpu_millis / 1000.0;
  job.timeout_usec = 1000000;
  return ebb_cg_pool_submit (a->pool, t->cg, &job, on_job_done, t, err);
}

/* Starts a suspension: originals recorded and journaled first, then the pool job. */
int
ebb_agent_op_suspend (ebb_agent *a, ebb_agent_task *t, const ebb_agent_step *step,
                      ebb_agent_pending *pending, ebb_error **err)
{
  bool graceful = step != NULL;
  if (!t->cg)
    return ebb_error_set (err, EBB_EGONE, "task %s has no cgroup", t->id);
  int r;
  bool fresh = !t->orig.recorded;
  if (fresh && (r = ebb_cg_record_original (t->cg, &t->orig, err)) < 0)
    return r;
  ebb_agent_state old = t->state, old_prev = t->prev_state;
  int old_graceful = t->graceful;
  uint64_t old_since = t->suspended_since_usec, old_count = t->suspensions;
  if (ebb_agent_task_apply (t, EBB_AGENT_EV_SUSPEND, err) < 0)
    return -EBUSY;
  /* Journaled as if every recorded limit were about to change: after a crash, the resume
   * then restores all of them (the engine's own record only lists those it changed). */
  t->orig.changed |= t->orig.limits.valid;
  t->graceful = graceful;
  t->step_cpu_millis = graceful ? step->cpu_millis : 0;
  t->step_memory_bytes = graceful ? step->memory_bytes : 0;
  t->step_booked_cpu_millis = graceful ? step->booked_cpu_millis : 0;
  t->step_booked_memory_bytes = graceful ? step->booked_memory_bytes : 0;
  if ((r = ebb_agent_journal (a, t, err)) < 0)
    {
      /* Nothing changed: forget originals recorded just now, as the journal never had them. */
      undo_suspend (t, old, old_prev, old_graceful, old_since, old_count);
      if (fresh)
        {
          memset (&t->orig, 0, sizeof t->orig);
          ebb_cg_set_original (t->cg, &t->orig);
        }
      return r;
    }
  ebb_agent_crash_point (a, "suspend-journaled");
  /* Told while it still has its CPU, before the pool lowers it (a further graceful step is
   * no new suspension). Should the submit fail, the task was told of a suspension that did
   * not happen: a rare failure, and the signal asks it to look, not to act blindly. */
  if (old == EBB_AGENT_RUNNING)
    notify_task (t, "suspending");
  t->op_start_usec = ebb_now_usec ();
  if ((r = submit (a, t, graceful ? EBB_CG_JOB_STEP : EBB_CG_JOB_SUSPEND, err)) < 0)
    {
      undo_suspend (t, old, old_prev, old_graceful, old_since, old_count);
      ebb_agent_journal (a, t, NULL);
      return r;
    }
  t->pending = pending;
  return 0;
}

/* Starts a resume: journaled, then the pool restores the originals. */
int
ebb_agent_op_resume (ebb_agent *a, ebb_agent_task *t, ebb_agent_pending *pending, ebb_error **err)
{
  if (!t->cg)
    return ebb_error_set (err, EBB_EGONE, "task %s has no cgroup", t->id);
  if (ebb_agent_task_apply (t, EBB_AGENT_EV_RESUME, err) < 0)
    return -EBUSY;
  int r = ebb_agent_journal (a, t, err);
  if (r < 0)
    {
      t->state = t->prev_state;
      return r;
    }
  ebb_agent_crash_point (a, "resume-journaled");
  if (t->orig.recorded)
    ebb_cg_set_original (t->cg, &t->orig);
  t->op_start_usec = ebb_now_usec ();
  if ((r = submit (a, t, EBB_CG_JOB_RESUME, err)) < 0)
    {
      t->state = t->prev_state;
      ebb_agent_journal (a, t, NULL);
      return r;
    }
  t->pending = pending;
  return 0;
}

static void
suspend_done (ebb_agent *a, ebb_agent_task *t, int rc, const ebb_cg_result *res, ebb_error *err)
{
  if (rc < 0)
    {
      /* Roll back to the originals: raising limits does not reclaim, so this is quick. */
      ebb_cg_result r2;
      cleanup_error ebb_error *e2 = NULL;
      ebb_agent_count_error (a, EBB_AGENT_ERR_CGROUP);
      free (t->error);
      if (ebb_cg_resume (t->cg, &a->engine, &r2, &e2) >= 0)
        {
          t->error = NULL;
          memset (&t->orig, 0, sizeof t->orig);
          ebb_agent_task_apply (t, EBB_AGENT_EV_FAILED, NULL);
          ebb_log_err ("suspend %s: %s (rolled back)", t->id, ebb_error_msg (&err));
        }
      else
        {
          /* The limits are somewhere between the originals and the target: the task counts
           * as suspended and keeps its recorded originals (journaled below), so a resume,
           * or the next agent after a crash, restores them. Forgetting them would leave it
           * throttled for good. */
          t->error = ebb_xasprintf ("suspend failed (%s); rollback failed (%s): the original "
                                    "limits are kept, resume to restore them",
                                    ebb_error_msg (&err), ebb_error_msg (&e2));
          ebb_agent_task_apply (t, EBB_AGENT_EV_SUSPENDED, NULL);
          ebb_log_err ("suspend %s: %s", t->id, t->error);
        }
      finish_task (a, t, 500, "cgroup", t->error ? t->error : ebb_error_msg (&err));
      ebb_agent_task_changed (a);
      return;
    }
  free (t->error);
  t->error = NULL;
  ebb_cg_get_original (t->cg, &t->orig);
  t->reclaimed_bytes = res->reclaimed_bytes;
  t->held_bytes = res->held_bytes;
  ebb_agent_task_apply (t, EBB_AGENT_EV_SUSPENDED, NULL);
  ebb_agent_hist_observe (&a->m.suspend, ebb_now_usec () - t->op_start_usec);
  a->m.suspends++;
  finish_task (a, t, 200, NULL, NULL);
  ebb_agent_task_changed (a);
}

static void
resume_done (ebb_agent *a, ebb_agent_task *t, int rc, ebb_error *err)
{
  if (rc < 0)
    {
      /* The originals stay recorded and journaled: a later resume retries. */
      ebb_agent_task_apply (t, EBB_AGENT_EV_FAILED, NULL);
      ebb_agent_count_error (a, EBB_AGENT_ERR_CGROUP);
      free (t->error);
      t->error = ebb_xasprintf ("resume failed (%s): the original limits are kept, resume "
                                "again to restore them",
                                ebb_error_msg (&err));
      ebb_log_err ("resume %s: %s", t->id, ebb_error_msg (&err));
      finish_task (a, t, 500, "cgroup", ebb_error_msg (&err));
      ebb_agent_task_changed (a);
      return;
    }
  memset (&t->orig, 0, sizeof t->orig);
  free (t->error);
  t->error = NULL;
  t->reclaimed_bytes = 0;
  t->held_bytes = 0;
  t->graceful = 0;
  ebb_agent_task_apply (t, EBB_AGENT_EV_RESUMED, NULL);
  notify_task (t, "resumed");
  ebb_agent_hist_observe (&a->m.resume, ebb_now_usec () - t->op_start_usec);
  a->m.resumes++;
  ebb_agent_task_changed (a);
  if (t->forget_on_exit)
    {
      finish_task (a, t, 200, NULL, NULL);
      ebb_agent_journal_remove (a->tasks_fd, t->id, NULL);
      ebb_agent_drop_task (a, t);
      return;
    }
  finish_task (a, t, 200, NULL, NULL);
}

static void
on_job_done (ebb_cg *cg, const ebb_cg_job *job, int rc, const ebb_cg_result *res, ebb_error *err,
             void *userdata)
{
  ebb_agent_task *t = userdata;
  ebb_agent *a = t->owner;
  (void)cg;
  bool suspend = job->kind == EBB_CG_JOB_SUSPEND || job->kind == EBB_CG_JOB_STEP;
  ebb_agent_crash_point (a, suspend ? "suspend-applied" : "resume-applied");
  if (t->state == EBB_AGENT_EXITED || rc == -EBB_EGONE)
    {
      if (t->state != EBB_AGENT_EXITED)
        ebb_agent_task_exited (a, t, -1, 0);
      ebb_agent_release_cgroup (a, t, t->deleting);
      finish_task (a, t, 410, "gone", "the task exited during the operation");
    }
  else
    {
      ebb_agent_refresh_task (a, t);
      if (suspend)
        suspend_done (a, t, rc, res, err);
      else
        resume_done (a, t, rc, err); /* may free t (an adopted task being deleted) */
    }
  if (a->stopping)
    ebb_agent_check_stop (a);
}

/* Re-reads t's applied limits and usage (not while the pool owns its handle). */
void
ebb_agent_refresh_task (ebb_agent *a, ebb_agent_task *t)
{
  if (!t || !t->cg || t->state == EBB_AGENT_EXITED || ebb_cg_pool_busy (a->pool, t->cg))
    return;
  ebb_agent_task_touch (t);
  cleanup_error ebb_error *e = NULL;
  if (ebb_cg_read_limits (t->cg, &t->applied, &e) == -EBB_EGONE
      || ebb_cg_read_stats (t->cg, &t->stats, &e) == -EBB_EGONE)
    {
      if (t->source != EBB_AGENT_SRC_LAUNCHED)
        ebb_agent_task_exited (a, t, -1, 0); /* an adopted cgroup vanished */
    }
}

/* The process ended: record how, journal, answer a waiting DELETE. */
void
ebb_agent_task_exited (ebb_agent *a, ebb_agent_task *t, int code, int status)
{
  if (t->state == EBB_AGENT_EXITED)
    return;
  ebb_agent_task_close_runtime (t);
  if (code == CLD_EXITED)
    t->exit_status = status;
  else if (code == CLD_KILLED || code == CLD_DUMPED)
    {
      t->exit_status = 128 + status;
      t->exit_signal = status;
    }
  ebb_agent_task_apply (t, EBB_AGENT_EV_EXIT, NULL);
  t->exited = true;
  a->m.exits++;
  ebb_log_info ("task %s exited (status %d)", t->id, t->exit_status);
  ebb_agent_task_changed (a);
  /* A deleted task leaves nothing: what it started in its cgroup, setsid() or not, goes too. */
  ebb_agent_release_cgroup (a, t, t->deleting);
  if (t->deleting)
    finish_task (a, t, 200, NULL, NULL);
  else
    ebb_agent_journal (a, t, NULL);
}

static int
on_pidfd (sd_event_source *s, int fd, uint32_t revents, void *ud)
{
  ebb_agent_task *t = ud;
  (void)s, (void)fd, (void)revents;
  /* Not our child (an agent restart happened): the status is unknown. */
  ebb_agent_task_exited (t->owner, t, -1, 0);
  return 0;
}

/* Watches a process that is not our child through a pidfd. */
int
ebb_agent_watch_pid (ebb_agent *a, ebb_agent_task *t, ebb_error **err)
{
  int fd = (int)syscall (SYS_pidfd_open, t->pid, 0);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "pidfd_open %d", (int)t->pid);
  int r = sd_event_add_io (a->event, &t->exit_src, fd, EPOLLIN, on_pidfd, t);
  if (r < 0)
    {
      close (fd);
      return ebb_error_set_errno (err, -r, "watch pid %d", (int)t->pid);
    }
  t->pidfd = fd;
  return 0;
}

/* Returns true while t->pid is still the process we know (its start time unchanged). */
static bool
process_is_ours (const ebb_agent_task *t)
{
  return ebb_agent_pid_is (t->pid, t->pid_starttime);
}

static void
signal_task (ebb_agent_task *t, int sig)
{
  /* Re-check before a destructive act: the PID must still be the process we started. */
  if (process_is_ours (t))
    {
      if (t->pidfd >= 0)
        syscall (SYS_pidfd_send_signal, t->pidfd, sig, NULL, 0);
      else
        kill (t->pid, sig);
    }
  /* Everything else in its cgroup too: a process that called setsid() is still in there. */
  if (t->cg && t->source == EBB_AGENT_SRC_LAUNCHED)
    ebb_agent_signal_cgroup (t->owner, t->cgroup, sig);
}

static int
on_kill_timer (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_agent_task *t = ud;
  (void)s, (void)usec;
  ebb_log_notice ("task %s: grace period over, SIGKILL", t->id);
  signal_task (t, SIGKILL);
  return 0;
}

/* Ends a launched task that is alive: a suspended one gets its CPU back (a frozen one is
 * thawed by signal_task(), no waiting in the loop) so its SIGTERM handler can run within
 * the grace period (raising a CPU limit does not block); SIGKILL when the grace is over. */
static void
terminate (ebb_agent *a, ebb_agent_task *t, uint64_t grace_usec)
{
  if (t->cg && t->state == EBB_AGENT_SUSPENDED && (t->orig.limits.valid & EBB_CG_LIM_CPU))
    ebb_cg_set_cpu (t->cg, t->orig.limits.cpu_quota_usec, t->orig.limits.cpu_period_usec, NULL);
  signal_task (t, SIGTERM);
  /* Never two grace timers (one would outlive the task's pointer to it). */
  t->kill_timer = sd_event_source_disable_unref (t->kill_timer);
  int r = sd_event_add_time_relative (a->event, &t->kill_timer, CLOCK_MONOTONIC, grace_usec, 0,
                                      on_kill_timer, t);
  if (r < 0)
    ebb_log_warn ("task %s: no grace timer (%s): it gets no SIGKILL", t->id, strerror (-r));
}

/* DELETE of a launched task: thaw, SIGTERM, SIGKILL after the grace period; the answer
 * comes when it exited. An adopted task is resumed to its originals and forgotten. */
int
ebb_agent_op_delete (ebb_agent *a, ebb_agent_task *t, uint64_t grace_usec,
                     ebb_agent_pending *pending, ebb_error **err)
{
  if (t->source != EBB_AGENT_SRC_LAUNCHED)
    {
      t->forget_on_exit = true;
      if (t->state == EBB_AGENT_SUSPENDED)
        return ebb_agent_op_resume (a, t, pending, err);
      ebb_agent_pending_finish (a, t, pending, 200, NULL, NULL);
      ebb_agent_journal_remove (a->tasks_fd, t->id, NULL);
      ebb_agent_drop_task (a, t);
      return 0;
    }
  t->deleting = true;
  t->pending = pending;
  if (!process_is_ours (t))
    {
      /* The process is gone (or its PID was reused): nothing to signal. */
      ebb_agent_task_exited (a, t, -1, 0);
      return 0;
    }
  terminate (a, t, grace_usec);
  (void)err;
  return 0;
}

/* Ends each launched task that ran past its time limit (SIGTERM, --stop-grace, SIGKILL),
 * the reason journaled first. Not while an operation is under way: a suspension stops its
 * running time, a resume is checked at the next tick. After a restart, a task still
 * alive past its limit is ended again (its grace timer was lost with the old agent). */
void
ebb_agent_check_limits (ebb_agent *a, uint64_t now_usec)
{
  for (size_t i = 0; i < a->n_tasks; i++)
    {
      ebb_agent_task *t = a->tasks[i];
      if (t->source != EBB_AGENT_SRC_LAUNCHED || t->deleting || t->kill_timer
          || (t->state != EBB_AGENT_RUNNING && t->state != EBB_AGENT_SUSPENDED)
          || !ebb_agent_task_over_limit (t, now_usec) || !process_is_ours (t))
        continue;
      ebb_log_notice ("task %s: time limit of %llu s reached, ending it", t->id,
                      (unsigned long long)t->time_limit_sec);
      if (!t->end_reason)
        {
          t->end_reason = ebb_xstrdup (EBB_AGENT_END_TIME_LIMIT);
          ebb_agent_task_touch (t);
          ebb_agent_journal (a, t, NULL);
          ebb_agent_task_changed (a);
        }
      /* Ended as a DELETE ends it: what it left in its cgroup is killed at its exit, and a
       * suspend, resume or DELETE meanwhile is busy (409). It stays in the list. */
      t->deleting = true;
      terminate (a, t, a->cfg->stop_grace_usec);
    }
}

static int
on_stop_timeout (sd_event_source *s, uint64_t usec, void *ud)
{
  ebb_agent *a = ud;
  (void)s, (void)usec;
  ebb_log_err ("shutdown: tasks still busy after the timeout; exiting anyway");
  a->exit_code = 1;
  return sd_event_exit (a->event, a->exit_code);
}

/* Shutdown: resume suspended tasks (unless --handover), exit once nothing is busy. */
void
ebb_agent_check_stop (ebb_agent *a)
{
  size_t busy = 0;
  for (size_t i = 0; i < a->n_tasks; i++)
    {
      ebb_agent_task *t = a->tasks[i];
      if (!a->cfg->handover && t->state == EBB_AGENT_SUSPENDED)
        {
          cleanup_error ebb_error *e = NULL;
          if (ebb_agent_op_resume (a, t, NULL, &e) < 0)
            ebb_log_err ("shutdown: resume %s: %s", t->id, ebb_error_msg (&e));
        }
      if (t->state == EBB_AGENT_SUSPENDING || t->state == EBB_AGENT_RESUMING)
        busy++;
    }
  if (busy == 0)
    {
      sd_event_exit (a->event, a->exit_code);
      return;
    }
  if (!a->stop_timer)
    sd_event_add_time_relative (a->event, &a->stop_timer, CLOCK_MONOTONIC, 60 * 1000000ULL, 0,
                                on_stop_timeout, a);
}
