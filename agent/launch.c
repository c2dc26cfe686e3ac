/* Launching a task: a fresh cgroup under --cgroup-parent with the requested limits, the
 * process joins it before exec (v2 and v1 alike: the child waits on a pipe until the parent
 * has written its PID to cgroup.procs of every hierarchy), output to STATE/logs/ID.log. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/ident.h"
#include "agent/launch.h"
#include "agent/ops.h"
#include "agent/proc.h"
#include "agent/release.h"
#include "agent/table.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "lib/time.h"
#include "lib/util.h"

static const char *
env_path (char *const *env)
{
  for (size_t i = 0; env && env[i]; i++)
    if (strncmp (env[i], "PATH=", 5) == 0)
      return env[i] + 5;
  return EBB_AGENT_DEFAULT_PATH;
}

/* Returns where argv0 may be: the child tries each with execve() after it became the task's
 * user, so the lookup sees only what that user may see (root's would tell whether a file
 * exists in a directory the user cannot enter). An empty PATH entry is the working
 * directory, as for execvp(). */
char **
ebb_agent_exec_candidates (const char *argv0, char *const *env)
{
  if (strchr (argv0, '/'))
    {
      char **one = ebb_xcalloc (2, sizeof *one);
      one[0] = ebb_xstrdup (argv0);
      return one;
    }
  const char *path = env_path (env);
  size_t n = 1;
  for (const char *p = path; *p; p++)
    n += *p == ':';
  char **out = ebb_xcalloc (n + 1, sizeof *out);
  size_t i = 0;
  for (const char *dir = path; i < n; i++)
    {
      size_t len = strcspn (dir, ":");
      out[i] = len ? ebb_xasprintf ("%.*s/%s", (int)len, dir, argv0) : ebb_xstrdup (argv0);
      dir += len + (dir[len] == ':');
    }
  return out;
}

/* Whether a launched task of a has uid. */
static bool
uid_taken (uid_t uid, void *ud)
{
  ebb_agent *a = ud;
  for (size_t i = 0; i < a->n_tasks; i++)
    if (a->tasks[i]->source == EBB_AGENT_SRC_LAUNCHED && a->tasks[i]->uid == (int64_t)uid)
      return true;
  return false;
}

/* Who the task runs as (resolved in the parent: NSS is not async-signal-safe): the user the
 * launch names, from the allowlist; else, with task_uid_range, its job's own user (the one
 * the job's other tasks have); else the task user. */
static int
resolve_ident (ebb_agent *a, const ebb_agent_launch_req *req, ebb_agent_ident *id, ebb_error **err)
{
  uid_t lo, hi, known = (uid_t)-1;
  if (req->user || !ebb_agent_uid_range (a->cfg->task_uid_range, &lo, &hi))
    return ebb_agent_ident_resolve (a->cfg, req->user, req->group, id, err);
  for (size_t i = 0; i < a->n_tasks && known == (uid_t)-1; i++)
    {
      const ebb_agent_task *t = a->tasks[i];
      if (t->source == EBB_AGENT_SRC_LAUNCHED && t->job && strcmp (t->job, req->job) == 0
          && t->uid >= lo && t->uid <= hi)
        known = (uid_t)t->uid;
    }
  int r = ebb_agent_ident_for_job (a->cfg, req->job, known, uid_taken, a, id, err);
  if (r < 0 || !req->group)
    return r;
  return ebb_agent_ident_job_group (a->cfg, req->group, id, err);
}

typedef struct spawn_args
{
  char *const *candidates; /* ebb_agent_exec_candidates() */
  char *const *argv, *const *env;
  const char *cwd;
  int log_fd, go_fd, err_fd;
  const ebb_agent_ident *ident;
} spawn_args;

/* In the child: the task's identity, no capabilities (bounding, ambient, and for a root
 * task the effective and permitted sets too), no way to gain privileges (setuid binaries,
 * file capabilities). Async-signal-safe calls only. */
static int
drop_privileges (const ebb_agent_ident *id)
{
  for (int cap = 0; cap < 64; cap++)
    if (prctl (PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
      return -1;
  if (setgroups ((size_t)id->n_groups, id->groups) < 0 || setgid (id->gid) < 0
      || setuid (id->uid) < 0)
    return -1;
  prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct data[2];
  memset (data, 0, sizeof data);
  if (syscall (SYS_capset, &hdr, data) < 0)
    return -1;
  return prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/* What the child reports on its error pipe when it cannot exec: the step and errno. */
enum
{
  CHILD_SETUP = 0,
  CHILD_CWD,
  CHILD_EXEC
};

/* In the child, as the task's user: execve() of each candidate in turn, as execvp() does
 * (a missing file or directory moves on; EACCES is remembered and wins over a later
 * ENOENT; any other error is this file's). Returns only on failure, errno set. */
static void
exec_first (const spawn_args *s)
{
  bool denied = false;
  for (char *const *c = s->candidates; *c; c++)
    {
      execve (*c, s->argv, s->env);
      if (errno == EACCES)
        denied = true;
      else if (errno != ENOENT && errno != ENOTDIR)
        return;
    }
  if (denied)
    errno = EACCES;
}

/* In the child, after fork: async-signal-safe calls only. */
static _Noreturn void
child_exec (const spawn_args *s)
{
  char c;
  int e[2] = { CHILD_SETUP, 0 };
  if (read (s->go_fd, &c, 1) != 1)
    _exit (127); /* the parent gave up before we joined the cgroup */
  sigset_t all;
  sigemptyset (&all);
  for (int sig = 1; sig < NSIG; sig++)
    signal (sig, SIG_DFL);
  sigprocmask (SIG_SETMASK, &all, NULL);
  setsid ();
  /* O_CLOEXEC: only the dup2() copy, standard input, reaches the task. */
  int null = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0 || dup2 (null, 0) < 0 || dup2 (s->log_fd, 1) < 0 || dup2 (s->log_fd, 2) < 0)
    goto fail;
  /* Nothing else reaches the task: not the agent's descriptors, not what the agent itself
   * inherited from whoever started it (the error pipe closes at exec). */
  if (close_range (3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    for (int fd = 3; fd < 4096; fd++)
      fcntl (fd, F_SETFD, FD_CLOEXEC);
  if (drop_privileges (s->ident) < 0)
    goto fail;
  /* As the task's user: a directory it may not enter is refused like an exec it may not do. */
  e[0] = CHILD_CWD;
  if (chdir (s->cwd ? s->cwd : "/") < 0)
    goto fail;
  e[0] = CHILD_EXEC;
  exec_first (s);
fail:
  e[1] = errno;
  if (write (s->err_fd, e, sizeof e) < 0)
    _exit (126);
  _exit (127);
}

/* The error of a child that did not exec: which step, as the task's user. */
static int
child_failed (const spawn_args *s, const int child_err[2], ebb_error **err)
{
  if (child_err[0] == CHILD_CWD)
    return ebb_error_set_errno (err, child_err[1], "cwd %s (as the task's user)",
                                s->cwd ? s->cwd : "/");
  if (child_err[0] == CHILD_EXEC)
    return ebb_error_set_errno (err, child_err[1], "argv[0] %s (as the task's user%s)", s->argv[0],
                                strchr (s->argv[0], '/') ? "" : ", in PATH");
  return ebb_error_set_errno (err, child_err[1], "start the task as its user");
}

/* Forks the child, joins it to cg, lets it exec. Returns the PID or negative with *err.
 * at[0..2]: when the fork returned, the child was attached, its exec was done. */
static pid_t
spawn (ebb_cg *cg, spawn_args *s, uint64_t at[3], ebb_error **err)
{
  int go[2], ep[2];
  if (pipe2 (go, O_CLOEXEC) < 0)
    return ebb_error_set_errno (err, errno, "pipe");
  if (pipe2 (ep, O_CLOEXEC) < 0)
    {
      close (go[0]), close (go[1]);
      return ebb_error_set_errno (err, errno, "pipe");
    }
  s->go_fd = go[0];
  s->err_fd = ep[1];
  pid_t pid = fork ();
  if (pid == 0)
    child_exec (s);
  at[0] = ebb_now_usec ();
  close (go[0]);
  close (ep[1]);
  if (pid < 0)
    {
      close (go[1]), close (ep[0]);
      return ebb_error_set_errno (err, errno, "fork");
    }
  int r = ebb_cg_attach_pid (cg, pid, err);
  at[1] = ebb_now_usec ();
  if (r >= 0 && write (go[1], "g", 1) != 1)
    r = ebb_error_set_errno (err, errno, "start the child");
  close (go[1]);
  int child_err[2] = { 0, 0 };
  ssize_t n = r >= 0 ? read (ep[0], child_err, sizeof child_err) : 0;
  at[2] = ebb_now_usec ();
  close (ep[0]);
  if (r >= 0 && n == (ssize_t)sizeof child_err)
    r = child_failed (s, child_err, err);
  if (r < 0)
    {
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      return r;
    }
  return pid;
}

static int
on_child (sd_event_source *src, const siginfo_t *si, void *ud)
{
  ebb_agent_task *t = ud;
  (void)src;
  ebb_agent_task_exited (t->owner, t, si->si_code, si->si_status);
  return 0;
}

/* pids.max where the hierarchy exists (v2 with the pids controller, v1 with a pids
 * hierarchy): a fork bomb in one task then stops at its own limit. */
static int
set_pids_max (ebb_agent *a, ebb_cg *cg, ebb_error **err)
{
  if (!a->cfg->task_pids_max)
    return 0;
  ebb_error *e = NULL;
  int r = ebb_cg_set_pids_max (cg, a->cfg->task_pids_max, &e);
  if (r == -ENOTSUP)
    {
      ebb_log_debug ("task_pids_max not applied: %s", ebb_error_msg (&e));
      ebb_error_free (&e);
      return 0;
    }
  return r < 0 ? ebb_agent_pass_error (err, &e) : 0;
}

static int
set_limits (ebb_agent *a, ebb_cg *cg, const ebb_agent_launch_req *req, ebb_error **err)
{
  int r = ebb_cg_set_cpu (cg, req->cpu_millis * (EBB_AGENT_CPU_PERIOD_USEC / 1000),
                          EBB_AGENT_CPU_PERIOD_USEC, err);
  if (r >= 0)
    r = ebb_cg_set_memory_max (cg, req->memory_bytes, err);
  if (r >= 0)
    r = set_pids_max (a, cg, err);
  return r < 0 ? ebb_error_wrap (err, "set limits") : 0;
}

static ebb_agent_task *
task_from_req (const ebb_agent_launch_req *req)
{
  ebb_agent_task *t = ebb_agent_task_new (req->id);
  t->job = ebb_xstrdup (req->job);
  t->long_class = strcmp (req->cls, "long") == 0;
  t->generation = req->generation;
  t->source = EBB_AGENT_SRC_LAUNCHED;
  t->cpu_millis = req->cpu_millis;
  t->memory_bytes = req->memory_bytes;
  t->time_limit_sec = req->time_limit_sec;
  t->notify_signal = req->notify_signal;
  return t;
}

static int
open_log (ebb_agent *a, const char *id, ebb_error **err)
{
  cleanup_free char *name = ebb_xasprintf ("%s.log", id);
  int fd = openat (a->logs_fd, name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0)
    return ebb_error_set_errno (err, errno, "open log %s", name);
  return fd;
}

/* Launches req into a new cgroup; on failure nothing is left behind. */
int
ebb_agent_launch (ebb_agent *a, const ebb_agent_launch_req *req, ebb_agent_task **out,
                  ebb_error **err)
{
  ebb_agent_ident ident;
  int r = resolve_ident (a, req, &ident, err);
  if (r < 0)
    return r;
  /* Where a launch's time goes (logged at -v): the cgroup, its limits, the journal, the
   * log file, fork, attach, exec. */
  uint64_t at[8] = { ebb_now_usec () };
  ebb_cg *cg = NULL;
  r = ebb_cg_create_child (a->parent, req->id, &cg, err);
  at[1] = ebb_now_usec ();
  if (r < 0)
    return r;
  ebb_agent_task *t = task_from_req (req);
  t->uid = (int64_t)ident.uid;
  t->gid = (int64_t)ident.gid;
  t->owner = a;
  t->cg = cg;
  t->cgroup = ebb_xstrdup (ebb_cg_path (cg));
  t->cgroup_inode = ebb_cg_inode (cg);
  cleanup_close int log_fd = -1;
  r = set_limits (a, cg, req, err);
  at[2] = ebb_now_usec ();
  /* Journal before the process exists: a crash from here on leaves a record to reconcile. */
  if (r >= 0)
    r = ebb_agent_journal (a, t, err);
  at[3] = ebb_now_usec ();
  if (r >= 0)
    r = log_fd = open_log (a, req->id, err);
  at[4] = ebb_now_usec ();
  char **env = ebb_agent_task_env (req);
  char **candidates = ebb_agent_exec_candidates (req->argv[0], env);
  spawn_args s = { candidates, req->argv, env, req->cwd, log_fd, -1, -1, &ident };
  pid_t pid = r >= 0 ? spawn (cg, &s, at + 5, err) : -1;
  ebb_strv_free (candidates);
  ebb_strv_free (env);
  if (pid > 0)
    r = sd_event_add_child (a->event, &t->exit_src, pid, WEXITED, on_child, t);
  if (pid > 0 && r < 0)
    {
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      r = ebb_error_set_errno (err, -r, "watch the child");
    }
  if (pid < 0 || r < 0)
    {
      ebb_agent_journal_remove (a->tasks_fd, t->id, NULL);
      ebb_agent_release_cgroup (a, t, true);
      ebb_agent_task_destroy (t);
      return pid < 0 ? pid : r;
    }
  t->pid = pid;
  t->is_child = true;
  t->pid_starttime = ebb_agent_pid_starttime (pid);
  ebb_cg_read_limits (cg, &t->applied, NULL);
  uint64_t end = ebb_now_usec ();
  ebb_log_info ("task %s: launch %.1f ms: cgroup %.1f, limits %.1f, journal %.1f, log %.1f,"
                " fork %.1f, attach %.1f, exec %.1f, read back %.1f",
                t->id, (double)(end - at[0]) / 1e3, (double)(at[1] - at[0]) / 1e3,
                (double)(at[2] - at[1]) / 1e3, (double)(at[3] - at[2]) / 1e3,
                (double)(at[4] - at[3]) / 1e3, (double)(at[5] - at[4]) / 1e3,
                (double)(at[6] - at[5]) / 1e3, (double)(at[7] - at[6]) / 1e3,
                (double)(end - at[7]) / 1e3);
  *out = t;
  return 0;
}

/* Rotates t's log when it outgrew --task-log-max: its content moves to ID.log.1 (replacing
 * the previous one) and ID.log is truncated in place; the task writes with O_APPEND, so it
 * goes on at the start. A task's output thus takes at most twice the cap; what it writes
 * between the copy and the truncation is lost. */
void
ebb_agent_rotate_log (ebb_agent *a, ebb_agent_task *t)
{
  if (t->source != EBB_AGENT_SRC_LAUNCHED || a->logs_fd < 0)
    return;
  char name[EBB_AGENT_ID_MAX + 8], old[EBB_AGENT_ID_MAX + 8];
  snprintf (name, sizeof name, "%s.log", t->id);
  snprintf (old, sizeof old, "%s.log.1", t->id);
  cleanup_close int fd = openat (a->logs_fd, name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)
      || (uint64_t)st.st_size <= a->cfg->task_log_max_bytes)
    return;
  cleanup_close int out
      = openat (a->logs_fd, old, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (out < 0)
    {
      ebb_log_warn ("task %s: rotate log: %s: %s", t->id, old, strerror (errno));
      return;
    }
  off_t in_off = 0;
  while (in_off < st.st_size)
    {
      ssize_t n = copy_file_range (fd, &in_off, out, NULL, (size_t)(st.st_size - in_off), 0);
      if (n <= 0)
        break;
    }
  if (ftruncate (fd, 0) < 0)
    ebb_log_warn ("task %s: truncate log: %s", t->id, strerror (errno));
  else
    ebb_log_info ("task %s: log rotated at %lld bytes", t->id, (long long)st.st_size);
}
