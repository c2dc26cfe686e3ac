/* The task of bench/real-vs-sim.sh: needs SECONDS of progress and makes none while the kernel
 * throttles it, as a task in ebb-sim makes none while suspended. Each round sleeps 50 ms and
 * spins 3 ms of its own CPU time; its wall time counts as progress unless the task's cgroup
 * was throttled meanwhile (nr_throttled of its cpu.stat grew: a suspension's 1% quota, 1 ms
 * per 100 ms period, throttles every spin). Host load only makes rounds slower, not lost, so
 * the cluster's 6 CPUs of capacity can run on a small shared machine: the task costs about
 * 6% of a CPU. Without a readable cpu.stat, a round counts when it took under 150 ms (the
 * throttled spin alone takes 200 ms). A C program, not a script: it starts in about a
 * millisecond, where an interpreter's start-up would add to every short job.
 *
 *   rvs-task SECONDS        exit 0 after SECONDS of progress, 2 on bad usage */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUND_SLEEP_NSEC 50000000L
#define ROUND_SPIN_SEC   0.003
#define ROUND_MAX_SEC    0.15

static double
clock_sec (clockid_t id)
{
  struct timespec ts;
  clock_gettime (id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Finds the cpu.stat of this process's cgroup (v2: the unified line; v1: the hierarchy whose
 * controllers include cpu) into path. Returns 0, or -1 when there is none. */
static int
find_cpu_stat (char *path, size_t len)
{
  FILE *f = fopen ("/proc/self/cgroup", "re");
  if (!f)
    return -1;
  char line[4096];
  int found = -1;
  while (found < 0 && fgets (line, sizeof line, f))
    {
      line[strcspn (line, "\n")] = '\0';
      char *ctrl = strchr (line, ':');
      char *cg = ctrl ? strchr (ctrl + 1, ':') : NULL;
      if (!cg)
        continue;
      *cg++ = '\0';
      ctrl++;
      if (*ctrl == '\0')
        snprintf (path, len, "/sys/fs/cgroup%s/cpu.stat", cg);
      else
        {
          char list[256];
          snprintf (list, sizeof list, ",%s,", ctrl);
          if (!strstr (list, ",cpu,"))
            continue;
          snprintf (path, len, "/sys/fs/cgroup/%s%s/cpu.stat", ctrl, cg);
          FILE *t = fopen (path, "re");
          if (!t)
            snprintf (path, len, "/sys/fs/cgroup/cpu%s/cpu.stat", cg);
          else
            fclose (t);
        }
      FILE *t = fopen (path, "re");
      if (t)
        {
          fclose (t);
          found = 0;
        }
    }
  fclose (f);
  return found;
}

/* Returns nr_throttled from the cpu.stat at path, or -1. */
static long long
nr_throttled (const char *path)
{
  FILE *f = fopen (path, "re");
  if (!f)
    return -1;
  char key[64];
  long long v, r = -1;
  while (fscanf (f, "%63s %lld", key, &v) == 2)
    if (strcmp (key, "nr_throttled") == 0)
      r = v;
  fclose (f);
  return r;
}

int
main (int argc, char **argv)
{
  char *end = NULL;
  double need = argc == 2 ? strtod (argv[1], &end) : -1;
  if (argc != 2 || !end || *end || !(need >= 0 && need < 1e6))
    {
      fprintf (stderr, "usage: rvs-task SECONDS\n");
      return 2;
    }
  char stat[4096];
  int have_stat = find_cpu_stat (stat, sizeof stat) == 0 && nr_throttled (stat) >= 0;
  double got = 0;
  while (got < need)
    {
      long long th0 = have_stat ? nr_throttled (stat) : 0;
      double t0 = clock_sec (CLOCK_MONOTONIC);
      struct timespec nap = { 0, ROUND_SLEEP_NSEC };
      nanosleep (&nap, NULL);
      double c0 = clock_sec (CLOCK_THREAD_CPUTIME_ID);
      while (clock_sec (CLOCK_THREAD_CPUTIME_ID) - c0 < ROUND_SPIN_SEC)
        ;
      double dt = clock_sec (CLOCK_MONOTONIC) - t0;
      if (have_stat ? nr_throttled (stat) == th0 : dt < ROUND_MAX_SEC)
        got += dt;
    }
  return 0;
}
