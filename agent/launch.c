/* Launching a task: a fresh cgroup under --cgroup-parent with the requested limits, the
 * process joins it before exec (v2 and v1 alike: the child waits on a pipe until the parent
 * has written its PID to cgroup.procs of every hierarchy), output to STATE/logs/ID.log. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/daemon.h"
#include "lib/log.h"
#include "lib/util.h"

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

static const char *
env_path (char *const *env)
{
  for (size_t i = 0; env && env[i]; i++)
    if (strncmp (env[i], "PATH=", 5) == 0)
      return env[i] + 5;
  return DEFAULT_PATH;
}

/* Returns the executable for argv0 (absolute, or found in PATH), or NULL with *err. */
char *
ebb_agent_find_exec (const char *argv0, char *const *env, ebb_error **err)
{
  if (strchr (argv0, '/'))
    {
      if (access (argv0, X_OK) < 0)
        return ebb_error_set_errno (err, errno, "argv[0] %s", argv0), NULL;
      return ebb_xstrdup (argv0);
    }
  cleanup_free char *path = ebb_xstrdup (env_path (env));
  char *save = NULL;
  for (char *dir = strtok_r (path, ":", &save); dir; dir = strtok_r (NULL, ":", &save))
    {
      char *cand = ebb_xasprintf ("%s/%s", dir, argv0);
      struct stat st;
      if (stat (cand, &st) == 0 && S_ISREG (st.st_mode) && access (cand, X_OK) == 0)
        return cand;
      free (cand);
    }
  return ebb_error_set (err, ENOENT, "argv[0] %s: not found in PATH", argv0), NULL;
}

/* Returns field 22 of /proc/PID/stat (start time in clock ticks), 0 when gone. */
uint64_t
ebb_agent_pid_starttime (pid_t pid)
{
  char path[64], buf[1024];
  snprintf (path, sizeof path, "/proc/%d/stat", (int)pid);
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  ssize_t n = read (fd, buf, sizeof buf - 1);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  /* The command name may hold spaces and ')': fields restart after the last ')'. */
  char *p = strrchr (buf, ')');
  if (!p)
    return 0;
  unsigned long long v = 0;
  /* After ')': state is field 3, so the start time is the 20th field from there. */
  if (sscanf (p + 2,
              "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
              "%*d %llu",
              &v)
      != 1)
    return 0;
  return v;
}

typedef struct spawn_args
{
  const char *exe;
  char *const *argv, *const *env;
  const char *cwd;
  int log_fd, go_fd, err_fd;
} spawn_args;

/* In the child, after fork: async-signal-safe calls only. */
static _Noreturn void
child_exec (const spawn_args *s)
{
  char c;
  int e;
  if (read (s->go_fd, &c, 1) != 1)
    _exit (127); /* the parent gave up before we joined the cgroup */
  sigset_t all;
  sigemptyset (&all);
  for (int sig = 1; sig < NSIG; sig++)
    signal (sig, SIG_DFL);
  sigprocmask (SIG_SETMASK, &all, NULL);
  setsid ();
  int null = open ("/dev/null", O_RDONLY);
  if (null < 0 || dup2 (null, 0) < 0 || dup2 (s->log_fd, 1) < 0 || dup2 (s->log_fd, 2) < 0)
    goto fail;
  if (s->cwd && chdir (s->cwd) < 0)
    goto fail;
  execve (s->exe, s->argv, s->env);
fail:
  e = errno;
  if (write (s->err_fd, &e, sizeof e) < 0)
    _exit (126);
  _exit (127);
}

/* Forks the child, joins it to cg, lets it exec. Returns the PID or negative with *err. */
static pid_t
spawn (ebb_cg *cg, spawn_args *s, ebb_error **err)
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
  close (go[0]);
  close (ep[1]);
  if (pid < 0)
    {
      close (go[1]), close (ep[0]);
      return ebb_error_set_errno (err, errno, "fork");
    }
  int r = ebb_cg_attach_pid (cg, pid, err);
  if (r >= 0 && write (go[1], "g", 1) != 1)
    r = ebb_error_set_errno (err, errno, "start the child");
  close (go[1]);
  int child_errno = 0;
  ssize_t n = r >= 0 ? read (ep[0], &child_errno, sizeof child_errno) : 0;
  close (ep[0]);
  if (r >= 0 && n == (ssize_t)sizeof child_errno)
    r = ebb_error_set_errno (err, child_errno, "exec %s", s->exe);
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

static int
set_limits (ebb_cg *cg, const ebb_agent_launch_req *req, ebb_error **err)
{
  int r = ebb_cg_set_cpu (cg, req->cpu_millis * (EBB_AGENT_CPU_PERIOD_USEC / 1000),
                          EBB_AGENT_CPU_PERIOD_USEC, err);
  if (r >= 0)
    r = ebb_cg_set_memory_max (cg, req->memory_bytes, err);
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
  static char *const default_env[] = { "PATH=" DEFAULT_PATH, "HOME=/", NULL };
  char *const *env = req->env ? req->env : default_env;
  ebb_error *e = NULL;
  cleanup_free char *exe = ebb_agent_find_exec (req->argv[0], env, &e);
  if (!exe)
    return ebb_agent_pass_error (err, &e);
  ebb_cg *cg = NULL;
  int r = ebb_cg_create_child (a->parent, req->id, &cg, err);
  if (r < 0)
    return r;
  ebb_agent_task *t = task_from_req (req);
  t->owner = a;
  t->cg = cg;
  t->cgroup = ebb_xstrdup (ebb_cg_path (cg));
  t->cgroup_inode = ebb_cg_inode (cg);
  cleanup_close int log_fd = -1;
  r = set_limits (cg, req, err);
  /* Journal before the process exists: a crash from here on leaves a record to reconcile. */
  if (r >= 0)
    r = ebb_agent_journal (a, t, err);
  if (r >= 0)
    r = log_fd = open_log (a, req->id, err);
  spawn_args s = { exe, req->argv, env, req->cwd, log_fd, -1, -1 };
  pid_t pid = r >= 0 ? spawn (cg, &s, err) : -1;
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
      ebb_cg_remove (cg, NULL);
      ebb_cg_close (cg);
      t->cg = NULL;
      ebb_agent_task_free (t);
      return pid < 0 ? pid : r;
    }
  t->pid = pid;
  t->is_child = true;
  t->pid_starttime = ebb_agent_pid_starttime (pid);
  ebb_cg_read_limits (cg, &t->applied, NULL);
  *out = t;
  return 0;
}
