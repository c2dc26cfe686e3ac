#include "config.h"
#include "lib/rng.h"

#include <math.h>

static uint64_t
splitmix64 (uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static inline uint64_t
rotl (uint64_t x, int k)
{
  return (x << k) | (x >> (64 - k));
}

void
ebb_rng_seed (ebb_rng *r, uint64_t seed)
{
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64 (&x);
}

uint64_t
ebb_rng_next (ebb_rng *r)
{
  uint64_t *s = r->s;
  uint64_t result = rotl (s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl (s[3], 45);
  return result;
}

uint64_t
ebb_rng_below (ebb_rng *r, uint64_t n)
{
  if (n == 0)
    return 0;
  /* Lemire's multiply-and-reject: unbiased and almost never loops. */
  __uint128_t m = (__uint128_t)ebb_rng_next (r) * n;
  uint64_t low = (uint64_t)m;
  if (low < n)
    {
      uint64_t threshold = -n % n;
      while (low < threshold)
        {
          m = (__uint128_t)ebb_rng_next (r) * n;
          low = (uint64_t)m;
        }
    }
  return (uint64_t)(m >> 64);
}

double
ebb_rng_double (ebb_rng *r)
{
  return (double)(ebb_rng_next (r) >> 11) * 0x1.0p-53;
}

double
ebb_rng_exponential (ebb_rng *r, double mean)
{
  return -mean * log1p (-ebb_rng_double (r));
}

double
ebb_rng_normal (ebb_rng *r, double mean, double sd)
{
  double u1 = 1.0 - ebb_rng_double (r); /* (0, 1]: log is finite */
  double u2 = ebb_rng_double (r);
  return mean + sd * sqrt (-2.0 * log (u1)) * cos (2.0 * M_PI * u2);
}
