#include "config.h"
#include "lib/time.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint64_t
clock_usec (clockid_t id)
{
  struct timespec ts;
  clock_gettime (id, &ts);
  return ebb_timespec_to_usec (&ts);
}

uint64_t
ebb_now_usec (void)
{
  return clock_usec (CLOCK_MONOTONIC);
}

uint64_t
ebb_now_nsec (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t
ebb_realtime_usec (void)
{
  return clock_usec (CLOCK_REALTIME);
}

uint64_t
ebb_timespec_to_usec (const struct timespec *ts)
{
  return (uint64_t)ts->tv_sec * EBB_USEC_PER_SEC + (uint64_t)ts->tv_nsec / EBB_NSEC_PER_USEC;
}

struct timespec
ebb_usec_to_timespec (uint64_t usec)
{
  struct timespec ts = { .tv_sec = (time_t)(usec / EBB_USEC_PER_SEC),
                         .tv_nsec = (long)((usec % EBB_USEC_PER_SEC) * EBB_NSEC_PER_USEC) };
  return ts;
}

int
ebb_sleep_usec (uint64_t usec)
{
  struct timespec ts = ebb_usec_to_timespec (usec);
  while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
    ;
  return 0;
}

int
ebb_parse_duration_usec (const char *s, uint64_t unit_usec, uint64_t *out_usec)
{
  static const struct
  {
    const char *suffix;
    uint64_t usec;
  } units[] = { { "us", 1 },       { "ms", 1000 },      { "s", 1000000 },
                { "m", 60000000 }, { "min", 60000000 }, { "h", 3600000000ULL } };
  if (!s || !*s || *s == '-' || *s == '+')
    return -1;
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull (s, &end, 10);
  if (errno || end == s)
    return -1;
  uint64_t mult = unit_usec;
  if (*end)
    {
      mult = 0;
      for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp (end, units[i].suffix) == 0)
          mult = units[i].usec;
      if (!mult)
        return -1;
    }
  if (mult && v > UINT64_MAX / mult)
    return -1;
  *out_usec = v * mult;
  return 0;
}
