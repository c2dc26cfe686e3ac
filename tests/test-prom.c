/* lib/prom: the exact text of each helper, as a scraper reads it. */
#include "config.h"

#include "lib/prom.h"
#include "tests/cu.h"

/* Runs fn on a memory stream and returns what it wrote (free it). */
static char *
text_of (void (*fn) (FILE *))
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  fn (f);
  fclose (f);
  return buf;
}

static void
write_counter (FILE *f)
{
  ebb_prom_counter (f, "x_total", "Things done.", UINT64_MAX);
}

static void
write_gauge (FILE *f)
{
  ebb_prom_gauge (f, "x_bytes", "Bytes held.", 0);
}

static void
write_head (FILE *f)
{
  ebb_prom_head (f, "x_seconds", "Time taken.", "histogram");
}

static void
write_build_info (FILE *f)
{
  ebb_prom_build_info (f, "ebb-test");
}

static void
test_samples (void)
{
  char *t = text_of (write_counter);
  CU_ASSERT_STRING_EQUAL (t, "# HELP x_total Things done.\n# TYPE x_total counter\n"
                             "x_total 18446744073709551615\n");
  free (t);
  t = text_of (write_gauge);
  CU_ASSERT_STRING_EQUAL (t, "# HELP x_bytes Bytes held.\n# TYPE x_bytes gauge\nx_bytes 0\n");
  free (t);
  t = text_of (write_head);
  CU_ASSERT_STRING_EQUAL (t, "# HELP x_seconds Time taken.\n# TYPE x_seconds histogram\n");
  free (t);
}

static void
test_build_info (void)
{
  char *t = text_of (write_build_info);
  CU_ASSERT_STRING_EQUAL (t, "# HELP ebb_build_info The ebb build this program runs (always 1).\n"
                             "# TYPE ebb_build_info gauge\n"
                             "ebb_build_info{program=\"ebb-test\",version=\"" PACKAGE_VERSION
                             "\"} 1\n");
  free (t);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_samples),
  EBB_CU_TEST (test_build_info),
};

EBB_CU_MAIN ("prom", NULL, NULL, tests)
