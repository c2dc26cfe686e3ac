#include "config.h"
#include "lib/time.h"
#include "tests/cu.h"

static void
test_monotonic_advances (void)
{
  uint64_t a = ebb_now_usec ();
  ebb_sleep_usec (2000);
  uint64_t b = ebb_now_usec ();
  CU_ASSERT (b - a >= 2000);
  CU_ASSERT (ebb_now_nsec () / 1000 >= b);
  CU_ASSERT (ebb_realtime_usec () > 1600000000ULL * EBB_USEC_PER_SEC);
}

static void
test_timespec_round_trip (void)
{
  struct timespec ts = ebb_usec_to_timespec (3500001);
  CU_ASSERT_EQUAL (ts.tv_sec, 3);
  CU_ASSERT_EQUAL (ts.tv_nsec, 500001000);
  CU_ASSERT_EQUAL (ebb_timespec_to_usec (&ts), 3500001);
}

static void
test_parse_duration (void)
{
  uint64_t v = 0;
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("250ms", 1, &v), 0);
  CU_ASSERT_EQUAL (v, 250000);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("3", EBB_USEC_PER_SEC, &v), 0);
  CU_ASSERT_EQUAL (v, 3000000);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("2h", 1, &v), 0);
  CU_ASSERT_EQUAL (v, 7200000000ULL);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("10us", 1, &v), 0);
  CU_ASSERT_EQUAL (v, 10);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("-1s", 1, &v), -1);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("1 s", 1, &v), -1);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("5days", 1, &v), -1);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("", 1, &v), -1);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("99999999999999999999h", 1, &v), -1);
  CU_ASSERT_EQUAL (ebb_parse_duration_usec ("18446744073709551h", 1, &v), -1);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_monotonic_advances),
  EBB_CU_TEST (test_timespec_round_trip),
  EBB_CU_TEST (test_parse_duration),
};
EBB_CU_MAIN ("time", NULL, NULL, tests)
