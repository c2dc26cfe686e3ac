/* Time helpers. Durations are always in the unit their name says; the monotonic clock is
 * used for every interval, the realtime clock only for timestamps shown to people. */
#ifndef EBB_TIME_H
#define EBB_TIME_H

#include <stdint.h>
#include <time.h>

#define EBB_USEC_PER_SEC  1000000ULL
#define EBB_USEC_PER_MSEC 1000ULL
#define EBB_NSEC_PER_USEC 1000ULL

/* Returns CLOCK_MONOTONIC in microseconds. */
uint64_t ebb_now_usec (void);
/* Returns CLOCK_MONOTONIC in nanoseconds (benchmarks). */
uint64_t ebb_now_nsec (void);
/* Returns CLOCK_REALTIME in microseconds since the epoch. */
uint64_t ebb_realtime_usec (void);
/* Sleeps for usec, restarting after signals; returns 0. */
int ebb_sleep_usec (uint64_t usec);

uint64_t ebb_timespec_to_usec (const struct timespec *ts);
struct timespec ebb_usec_to_timespec (uint64_t usec);

/* Parses a duration: a number with an optional unit us, ms, s, m, h (default unit_usec per
 * bare number). Returns 0 and *out_usec, or -1 on malformed input or overflow. */
int ebb_parse_duration_usec (const char *s, uint64_t unit_usec, uint64_t *out_usec);

#endif
