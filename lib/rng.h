/* A seeded, reproducible random number generator for policies and the simulator:
 * xoshiro256** (Blackman & Vigna), seeded through splitmix64. Same seed, same sequence, on
 * every machine: policies must never use rand() or the wall clock. */
#ifndef EBB_RNG_H
#define EBB_RNG_H

#include <stdint.h>

typedef struct ebb_rng
{
  uint64_t s[4];
} ebb_rng;

void ebb_rng_seed (ebb_rng *r, uint64_t seed);
/* Returns the next 64 random bits. */
uint64_t ebb_rng_next (ebb_rng *r);
/* Returns a uniform integer in [0, n), without modulo bias; n == 0 returns 0. */
uint64_t ebb_rng_below (ebb_rng *r, uint64_t n);
/* Returns a uniform double in [0, 1). */
double ebb_rng_double (ebb_rng *r);
/* Returns an exponential variate with the given mean. */
double ebb_rng_exponential (ebb_rng *r, double mean);
/* Returns a normal variate (Box-Muller; no cached second value, so state stays 4 words). */
double ebb_rng_normal (ebb_rng *r, double mean, double sd);

#endif
