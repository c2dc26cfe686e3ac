/* Helpers for the real-kernel cgroup tests (test-cgroup-v1-host on this host's v1,
 * test-cgroup-v2-live in the VM): the suite's context and test cgroups below this process's
 * own cgroup, child processes that burn CPU or hold memory with a known pattern, and CPU time
 * measured from /proc/PID/stat, independent of the library under test. Every child and test
 * cgroup is recorded so the suite's clean function removes it even after a failed assertion. */
#ifndef EBB_TESTS_CGROUP_LIVE_H
#define EBB_TESTS_CGROUP_LIVE_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup-internal.h"
#include "cgroup/cgroup.h"
#include "lib/time.h"

#define LIVE_MAX_CHILDREN 8
#define LIVE_MAX_CGROUPS  8

typedef struct
{
  pid_t pid;
  int go_fd;    /* parent writes one byte: start */
  int ready_fd; /* child writes one byte: ready */
} live_child;

static pid_t live_pids[LIVE_MAX_CHILDREN];
static ebb_cg *live_cgroups[LIVE_MAX_CGROUPS];
/* The suite's context (cgroupfs backend, no systemd) and this process's own cgroup. */
static __attribute__ ((unused)) ebb_cg_ctx *live_ctx;
static __attribute__ ((unused)) ebb_cg *live_self_cg;

static __attribute__ ((unused)) void
live_track_pid (pid_t pid)
{
  for (int i = 0; i < LIVE_MAX_CHILDREN; i++)
    if (!live_pids[i])
      {
        live_pids[i] = pid;
        return;
      }
}

static __attribute__ ((unused)) void
live_track_cgroup (ebb_cg *cg)
{
  for (int i = 0; i < LIVE_MAX_CGROUPS; i++)
    if (!live_cgroups[i])
      {
        live_cgroups[i] = cg;
        return;
      }
}

/* Kills a child (thawing its cgroup first: a frozen task does not die) and reaps it;
 * returns its wait status, or -1. */
static __attribute__ ((unused)) int
live_kill (pid_t pid)
{
  int st = -1;
  if (pid <= 0)
    return -1;
  kill (pid, SIGKILL);
  for (int i = 0; i < LIVE_MAX_CGROUPS; i++)
    if (live_cgroups[i])
      ebb_cg_set_frozen (live_cgroups[i], 0, 1000000, NULL);
  if (waitpid (pid, &st, 0) < 0)
    st = -1;
  for (int i = 0; i < LIVE_MAX_CHILDREN; i++)
    if (live_pids[i] == pid)
      live_pids[i] = 0;
  return st;
}

/* Kills every tracked child, restores nothing, removes and closes every tracked cgroup. */
static __attribute__ ((unused)) void
live_cleanup_all (void)
{
  for (int i = 0; i < LIVE_MAX_CHILDREN; i++)
    if (live_pids[i])
      live_kill (live_pids[i]);
  for (int i = LIVE_MAX_CGROUPS - 1; i >= 0; i--)
    if (live_cgroups[i])
      {
        ebb_cg_set_frozen (live_cgroups[i], 0, 1000000, NULL);
        for (int k = 0; k < 50 && ebb_cg_remove (live_cgroups[i], NULL) == -EBUSY; k++)
          ebb_sleep_usec (20000); /* killed children leave the cgroup asynchronously */
        ebb_cg_close (live_cgroups[i]);
        live_cgroups[i] = NULL;
      }
}

/* Closes and forgets one tracked cgroup after removing it. Returns ebb_cg_remove's result. */
static __attribute__ ((unused)) int
live_drop_cgroup (ebb_cg *cg)
{
  int r = -1;
  for (int k = 0; k < 50; k++)
    {
      r = ebb_cg_remove (cg, NULL);
      if (r != -EBUSY)
        break;
      ebb_sleep_usec (20000);
    }
  for (int i = 0; i < LIVE_MAX_CGROUPS; i++)
    if (live_cgroups[i] == cg)
      live_cgroups[i] = NULL;
  ebb_cg_close (cg);
  return r;
}

/* A context on the cgroupfs backend (no systemd). Returns 0, or negative with *err. */
static __attribute__ ((unused)) int
live_ctx_new (ebb_cg_ctx **ctx, ebb_error **err)
{
  ebb_cg_ctx_config cfg;
  ebb_cg_ctx_config_init (&cfg);
  cfg.use_systemd = 0;
  return ebb_cg_ctx_new (&cfg, ctx, err);
}

/* CUnit suite init: live_ctx and live_self_cg. Returns 0, or 1 after printing why. */
static __attribute__ ((unused)) int
live_suite_init (void)
{
  ebb_error *err = NULL;
  if (live_ctx_new (&live_ctx, &err) < 0
      || ebb_cg_open_pid (live_ctx, 0, EBB_CG_OPEN_FILES_ONLY, &live_self_cg, &err) < 0)
    {
      fprintf (stderr, "init: %s\n", ebb_error_msg (&err));
      ebb_error_free (&err);
      return 1;
    }
  return 0;
}

/* CUnit suite clean: every tracked child and cgroup, then the context. Returns 0. */
static __attribute__ ((unused)) int
live_suite_clean (void)
{
  live_cleanup_all ();
  ebb_cg_close (live_self_cg);
  ebb_cg_ctx_free (live_ctx);
  return 0;
}

/* A fresh test cgroup below our own, tracked for cleanup; NULL (reason printed) on failure. */
static __attribute__ ((unused)) ebb_cg *
live_test_cgroup (const char *tag)
{
  char name[64];
  snprintf (name, sizeof name, "ebb-test-%d-%s", (int)getpid (), tag);
  ebb_cg *cg = NULL;
  ebb_error *err = NULL;
  if (ebb_cg_create_child (live_self_cg, name, &cg, &err) < 0)
    {
      printf ("create %s: %s\n", name, ebb_error_msg (&err));
      ebb_error_free (&err);
      return NULL;
    }
  live_track_cgroup (cg);
  return cg;
}

/* Moves pid into cg. Returns ebb_cg_attach_pid's result (reason printed on failure). */
static __attribute__ ((unused)) int
live_attach (ebb_cg *cg, pid_t pid)
{
  ebb_error *err = NULL;
  int r = ebb_cg_attach_pid (cg, pid, &err);
  if (r < 0)
    printf ("attach: %s\n", ebb_error_msg (&err));
  ebb_error_free (&err);
  return r;
}

/* The first line of file `name` under the directory dirfd, read raw (the test's own view,
 * not the library's) into buf; "" when unreadable. Returns buf. */
static __attribute__ ((unused)) const char *
live_raw_at (int dirfd, const char *name, char *buf, size_t n)
{
  char *s = NULL;
  buf[0] = '\0';
  if (ebb_cg_read_at (dirfd, name, &s, NULL) == 0)
    {
      snprintf (buf, n, "%s", s);
      buf[strcspn (buf, "\n")] = '\0';
    }
  free (s);
  return buf;
}

/* The pattern word at index i of a holder's buffer. */
static inline uint64_t
live_pattern (size_t i)
{
  return (uint64_t)i * 0x9E3779B97F4A7C15ULL ^ 0x5DEECE66DULL;
}

static volatile sig_atomic_t live_verify_requested;

static __attribute__ ((unused)) void
live_on_usr1 (int sig)
{
  (void)sig;
  live_verify_requested = 1;
}

/* Body of a memory holder: fills `bytes` of anonymous memory with the pattern, reports
 * ready, sleeps until SIGUSR1, verifies every word and exits 0 (intact) or 3 (lost data). */
static __attribute__ ((noreturn, unused)) void
live_holder_main (size_t bytes, int ready_fd)
{
  signal (SIGUSR1, live_on_usr1);
  size_t n = bytes / sizeof (uint64_t);
  uint64_t *buf = mmap (NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED)
    _exit (2);
  for (size_t i = 0; i < n; i++)
    buf[i] = live_pattern (i);
  if (write (ready_fd, "r", 1) != 1)
    _exit (2);
  while (!live_verify_requested)
    pause ();
  for (size_t i = 0; i < n; i++)
    if (buf[i] != live_pattern (i))
      _exit (3);
  _exit (0);
}

/* Forks a child that waits for "go" and then spins (holder_bytes 0) or holds memory.
 * Returns 0 and *c; -1 on failure. */
static __attribute__ ((unused)) int
live_spawn (live_child *c, size_t holder_bytes)
{
  int go[2], ready[2];
  if (pipe (go) < 0 || pipe (ready) < 0)
    return -1;
  pid_t pid = fork ();
  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      char b;
      close (go[1]);
      close (ready[0]);
      if (read (go[0], &b, 1) != 1)
        _exit (2);
      if (holder_bytes)
        live_holder_main (holder_bytes, ready[1]);
      if (write (ready[1], "r", 1) != 1)
        _exit (2);
      for (volatile uint64_t x = 0;; x++)
        ;
    }
  close (go[0]);
  close (ready[1]);
  live_track_pid (pid);
  *c = (live_child){ .pid = pid, .go_fd = go[1], .ready_fd = ready[0] };
  return 0;
}

/* Starts the child and waits (up to 60 s) until it reports ready. Returns 0 or -1. */
static __attribute__ ((unused)) int
live_start (live_child *c)
{
  char b = 'g';
  if (write (c->go_fd, &b, 1) != 1)
    return -1;
  close (c->go_fd);
  c->go_fd = -1;
  int r = read (c->ready_fd, &b, 1) == 1 ? 0 : -1;
  close (c->ready_fd);
  c->ready_fd = -1;
  return r;
}

/* Has a holder verify its buffer (SIGUSR1), reaps it and returns 1 when it exited 0:
 * nothing lost. */
static __attribute__ ((unused)) int
live_holder_intact (live_child *h)
{
  kill (h->pid, SIGUSR1);
  int wst = 0;
  pid_t w = waitpid (h->pid, &wst, 0);
  for (int i = 0; i < LIVE_MAX_CHILDREN; i++)
    if (live_pids[i] == h->pid)
      live_pids[i] = 0;
  if (w != h->pid)
    return 0;
  if (!WIFEXITED (wst))
    printf ("holder died of signal %d\n", WIFSIGNALED (wst) ? WTERMSIG (wst) : -1);
  return WIFEXITED (wst) && WEXITSTATUS (wst) == 0;
}

/* utime + stime of pid in microseconds from /proc/PID/stat, or -1. */
static __attribute__ ((unused)) int64_t
live_cpu_usec (pid_t pid)
{
  char path[64], buf[1024];
  snprintf (path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen (path, "r");
  if (!f)
    return -1;
  size_t n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  char *p = strrchr (buf, ')'); /* comm may contain spaces and parentheses */
  if (!p)
    return -1;
  unsigned long long ut = 0, stt = 0;
  /* after ") ": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
   * utime(14) stime(15) */
  if (sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &stt) != 2)
    return -1;
  long hz = sysconf (_SC_CLK_TCK);
  return (int64_t)((ut + stt) * 1000000ULL / (unsigned long long)(hz > 0 ? hz : 100));
}

/* CPU share (1.0 = one full CPU) of each pid over window_usec, measured together. */
static __attribute__ ((unused)) void
live_cpu_share (const pid_t *pids, double *share, int n, uint64_t window_usec)
{
  int64_t a[LIVE_MAX_CHILDREN], b[LIVE_MAX_CHILDREN];
  uint64_t t0 = ebb_now_usec ();
  for (int i = 0; i < n; i++)
    a[i] = live_cpu_usec (pids[i]);
  ebb_sleep_usec (window_usec);
  uint64_t t1 = ebb_now_usec ();
  for (int i = 0; i < n; i++)
    {
      b[i] = live_cpu_usec (pids[i]);
      share[i] = a[i] < 0 || b[i] < 0 ? -1.0 : (double)(b[i] - a[i]) / (double)(t1 - t0);
    }
}

/* 1 while pid is alive and not reaped (it was not killed). */
static __attribute__ ((unused)) int
live_alive (pid_t pid)
{
  int st;
  return waitpid (pid, &st, WNOHANG) == 0;
}

#endif
