/* The tasks of bench/peer-slurm.sh, the same program under Slurm and under ebb so that both
 * are timed the same way. A C program, not a script: it starts in about a millisecond, where
 * an interpreter's start-up would add to every short job's delay.
 *
 *   peer-task short FILE SECONDS   writes the wall clock (unix seconds) to FILE first, then
 *                                  spins until it has used SECONDS of CPU time, exits 0
 *   peer-task long FILE MIB        touches MIB MiB and keeps them, then spins forever; every
 *                                  100 ms replaces FILE with "PID WORK", WORK the spin rounds
 *                                  done so far (a round is a fixed amount of arithmetic)
 *
 * Exits 2 on bad usage, 1 when FILE cannot be written. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUND_ITERATIONS 200000UL
#define REPORT_NSEC      100000000LL

static double
clock_sec (clockid_t id)
{
  struct timespec ts;
  clock_gettime (id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One round of arithmetic the compiler cannot drop; returns the running value. */
static uint64_t
spin_round (uint64_t x)
{
  for (unsigned long i = 0; i < ROUND_ITERATIONS; i++)
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  return x;
}

/* Replaces path with text through a temporary file, so a reader never sees half a line.
 * Returns 0, -1 with errno. */
static int
write_atomic (const char *path, const char *text)
{
  char tmp[4096];
  if (snprintf (tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
    return errno = ENAMETOOLONG, -1;
  FILE *f = fopen (tmp, "we");
  if (!f)
    return -1;
  int rc = fputs (text, f) < 0 ? -1 : 0;
  if (fclose (f) != 0)
    rc = -1;
  return rc < 0 ? -1 : rename (tmp, path);
}

static int
run_short (const char *path, double cpu_sec)
{
  char line[64];
  snprintf (line, sizeof line, "%.6f\n", clock_sec (CLOCK_REALTIME));
  if (write_atomic (path, line) < 0)
    {
      fprintf (stderr, "peer-task: %s: %s\n", path, strerror (errno));
      return 1;
    }
  volatile uint64_t sink = 0;
  double until = clock_sec (CLOCK_PROCESS_CPUTIME_ID) + cpu_sec;
  while (clock_sec (CLOCK_PROCESS_CPUTIME_ID) < until)
    sink = spin_round (sink);
  return 0;
}

static int
run_long (const char *path, unsigned long mib)
{
  size_t bytes = (size_t)mib << 20;
  unsigned char *mem = bytes ? malloc (bytes) : NULL;
  if (bytes && !mem)
    {
      fprintf (stderr, "peer-task: cannot allocate %lu MiB\n", mib);
      return 1;
    }
  /* Touch every page so the memory is resident (and counted) from the start. */
  for (size_t i = 0; i < bytes; i += 4096)
    mem[i] = (unsigned char)i;
  volatile uint64_t sink = 0;
  unsigned long long work = 0;
  double next = 0;
  for (;;)
    {
      sink = spin_round (sink);
      work++;
      double now = clock_sec (CLOCK_MONOTONIC);
      if (now < next)
        continue;
      next = now + (double)REPORT_NSEC / 1e9;
      char line[64];
      snprintf (line, sizeof line, "%ld %llu\n", (long)getpid (), work);
      if (write_atomic (path, line) < 0)
        {
          fprintf (stderr, "peer-task: %s: %s\n", path, strerror (errno));
          return 1;
        }
    }
}

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: peer-task short FILE SECONDS | peer-task long FILE MIB\n");
      return 2;
    }
  char *end;
  errno = 0;
  double n = strtod (argv[3], &end);
  if (errno || *end || n < 0 || n > 1e6)
    {
      fprintf (stderr, "peer-task: bad number '%s'\n", argv[3]);
      return 2;
    }
  if (strcmp (argv[1], "short") == 0)
    return run_short (argv[2], n);
  if (strcmp (argv[1], "long") == 0)
    return run_long (argv[2], (unsigned long)n);
  fprintf (stderr, "peer-task: unknown kind '%s'\n", argv[1]);
  return 2;
}
