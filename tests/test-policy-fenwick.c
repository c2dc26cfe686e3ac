/* The Fenwick tree of counts (policies/fenwick.c) against brute-force prefix sums: built
 * from counts and from nothing, over sizes around powers of two, through random additions
 * and removals (graphene's exact rank among a job's unlaunched tasks rests on it). */
#include "config.h"

#include "policies/fenwick.h"
#include "lib/rng.h"
#include "tests/cu.h"

#include <stdlib.h>

/* Every prefix of f equals the brute-force sum of count. */
static void
check_prefixes (const ebb_pol_fenwick *f, const uint32_t *count, uint32_t n)
{
  uint32_t sum = 0;
  for (uint32_t end = 0; end <= n; end++)
    {
      CU_ASSERT_EQUAL_FATAL (ebb_pol_fenwick_prefix (f, end), sum);
      if (end < n)
        sum += count[end];
    }
}

/* A hand case: ranks 0, 0, 2, 3 (two tasks tied first) as counts 2, 0, 1, 1; removing one
 * of the tied first leaves 1 before rank 2, removing the rank-3 one changes no prefix
 * below it. */
static void
test_fenwick_by_hand (void)
{
  uint32_t count[] = { 2, 0, 1, 1 };
  ebb_pol_fenwick f;
  ebb_pol_fenwick_init (&f, 4, count);
  CU_ASSERT_EQUAL (ebb_pol_fenwick_prefix (&f, 0), 0);
  CU_ASSERT_EQUAL (ebb_pol_fenwick_prefix (&f, 2), 2);
  CU_ASSERT_EQUAL (ebb_pol_fenwick_prefix (&f, 3), 3);
  CU_ASSERT_EQUAL (ebb_pol_fenwick_prefix (&f, 4), 4);
  ebb_pol_fenwick_add (&f, 0, -1);
  CU_ASSERT_EQUAL (ebb_pol_fenwick_prefix (&f, 2), 1);
  ebb_pol_fenwick_add (&f, 3, -1);
  CU_ASSERT_EQUAL (ebb_pol_fenwick_prefix (&f, 3), 2);
  CU_ASSERT_EQUAL (ebb_pol_fenwick_prefix (&f, 4), 2);
  ebb_pol_fenwick_fini (&f);
  ebb_pol_fenwick_init (&f, 0, NULL); /* an empty tree counts nothing */
  CU_ASSERT_EQUAL (ebb_pol_fenwick_prefix (&f, 0), 0);
  ebb_pol_fenwick_fini (&f);
}

/* Random counts and updates (removals never below 0), every prefix checked after each. */
static void
test_fenwick_matches_brute_force (void)
{
  static const uint32_t sizes[] = { 1, 2, 3, 7, 8, 9, 31, 32, 33, 100 };
  ebb_rng r;
  ebb_rng_seed (&r, 7);
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    {
      uint32_t n = sizes[k];
      uint32_t *count = calloc (n, sizeof *count);
      CU_ASSERT_PTR_NOT_NULL_FATAL (count);
      ebb_pol_fenwick f;
      if (k % 2)
        {
          for (uint32_t i = 0; i < n; i++)
            count[i] = (uint32_t)ebb_rng_below (&r, 4);
          ebb_pol_fenwick_init (&f, n, count);
        }
      else
        ebb_pol_fenwick_init (&f, n, NULL);
      check_prefixes (&f, count, n);
      for (int step = 0; step < 300; step++)
        {
          uint32_t pos = (uint32_t)ebb_rng_below (&r, n);
          int32_t delta
              = count[pos] > 0 && ebb_rng_below (&r, 2) ? -1 : 1 + (int32_t)ebb_rng_below (&r, 3);
          ebb_pol_fenwick_add (&f, pos, delta);
          count[pos] += (uint32_t)delta;
          check_prefixes (&f, count, n);
        }
      ebb_pol_fenwick_fini (&f);
      free (count);
    }
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_fenwick_by_hand),
  EBB_CU_TEST (test_fenwick_matches_brute_force),
};

EBB_CU_MAIN ("policy-fenwick", NULL, NULL, tests)
