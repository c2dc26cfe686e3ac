/* Fenwick tree of counts (see fenwick.h). Counts are unsigned and deltas wrap modulo 2^32:
 * every partial sum is a sum of non-negative counts, so the wrapped arithmetic gives it
 * exactly. */
#include "config.h"

#include "policies/fenwick.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

void
ebb_pol_fenwick_init (ebb_pol_fenwick *f, uint32_t n, const uint32_t *count)
{
  f->n = n;
  f->t = ebb_xcalloc ((size_t)n + 1, sizeof *f->t);
  if (!count)
    return;
  /* Linear build: each node passes its sum on to the one node that covers it next. */
  memcpy (f->t + 1, count, (size_t)n * sizeof *count);
  for (uint32_t i = 1; i <= n; i++)
    {
      uint32_t up = i + (i & -i);
      if (up <= n)
        f->t[up] += f->t[i];
    }
}

void
ebb_pol_fenwick_fini (ebb_pol_fenwick *f)
{
  free (f->t);
  f->t = NULL;
  f->n = 0;
}

void
ebb_pol_fenwick_add (ebb_pol_fenwick *f, uint32_t pos, int32_t delta)
{
  for (uint32_t i = pos + 1; i <= f->n; i += i & -i)
    f->t[i] += (uint32_t)delta;
}

uint32_t
ebb_pol_fenwick_prefix (const ebb_pol_fenwick *f, uint32_t end)
{
  uint32_t sum = 0;
  for (uint32_t i = end; i > 0; i -= i & -i)
    sum += f->t[i];
  return sum;
}
