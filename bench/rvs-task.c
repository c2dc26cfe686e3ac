/* The task of bench/real-vs-sim.sh: needs SECONDS of progress and progresses only while it is
 * not throttled, as a task does in ebb-sim (no progress while suspended). Each round sleeps
 * 50 ms, then spins 3 ms of its own CPU time; a round counts as progress only when it took
 * under 150 ms. Under a suspension's 1% quota (1 ms per 100 ms period) the spin alone takes
 * 200 ms, so a suspended task stalls; running, it costs about 6% of a CPU, so the cluster's
 * 6 CPUs of capacity fit on a small shared machine. A C program, not a script: it starts in
 * about a millisecond, where an interpreter's start-up would add to every short job.
 *
 *   rvs-task SECONDS        exit 0 after SECONDS of progress, 2 on bad usage */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
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
  double got = 0;
  while (got < need)
    {
      double t0 = clock_sec (CLOCK_MONOTONIC);
      struct timespec nap = { 0, ROUND_SLEEP_NSEC };
      nanosleep (&nap, NULL);
      double c0 = clock_sec (CLOCK_THREAD_CPUTIME_ID);
      while (clock_sec (CLOCK_THREAD_CPUTIME_ID) - c0 < ROUND_SPIN_SEC)
        ;
      double dt = clock_sec (CLOCK_MONOTONIC) - t0;
      if (dt < ROUND_MAX_SEC)
        got += dt;
    }
  return 0;
}
