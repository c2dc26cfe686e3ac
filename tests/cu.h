/* A tiny harness over CUnit's basic interface shared by every suite: one call registers a
 * table of tests, runs them verbosely and turns the result into an Automake exit code
 * (0 pass, 1 fail, 77 skip, 99 hard error). */
#ifndef EBB_TESTS_CU_H
#define EBB_TESTS_CU_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct
{
  const char *name;
  void (*fn) (void);
} ebb_cu_test;

#define EBB_CU_TEST(f)                                                                             \
  {                                                                                                \
#f, f                                                                                          \
  }

/* Exit code for a test that cannot run here: 77 (skip), or a failure when EBB_TEST_STRICT
 * is set, as CI does: a real-kernel test that did not run is not a pass. */
static inline int
ebb_cu_skip (const char *why)
{
  const char *strict = getenv ("EBB_TEST_STRICT");
  fprintf (stderr, "SKIP: %s\n", why);
  if (strict && *strict && strcmp (strict, "0") != 0)
    {
      fprintf (stderr, "EBB_TEST_STRICT is set: a skip counts as a failure\n");
      return 1;
    }
  return 77;
}

/* Runs one suite; returns the exit status for main(). */
static inline int
ebb_cu_run (const char *suite_name, int (*init) (void), int (*clean) (void),
            const ebb_cu_test *tests, size_t n)
{
  if (CU_initialize_registry () != CUE_SUCCESS)
    return 99;
  CU_pSuite s = CU_add_suite (suite_name, init, clean);
  if (!s)
    return 99;
  for (size_t i = 0; i < n; i++)
    if (!CU_add_test (s, tests[i].name, tests[i].fn))
      return 99;
  CU_basic_set_mode (CU_BRM_VERBOSE);
  CU_basic_run_tests ();
  unsigned failed = CU_get_number_of_failures () + CU_get_number_of_suites_failed ();
  unsigned ran = CU_get_number_of_tests_run ();
  CU_cleanup_registry ();
  printf ("\n");
  if (ran == 0)
    return 99; /* a suite that ran nothing must not look like a pass */
  return failed ? 1 : 0;
}

#define EBB_CU_MAIN(name, init, clean, table)                                                      \
  int main (void)                                                                                  \
  {                                                                                                \
    return ebb_cu_run (name, init, clean, table, sizeof (table) / sizeof ((table)[0]));            \
  }

#endif
