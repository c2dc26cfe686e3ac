/* lib/prom: the exact text of each helper, as a scraper reads it. */
#include "config.h"

#include <sys/stat.h>
#include <time.h>

#include "lib/prom.h"
#include "tests/cu.h"

/* Runs fn on a memory stream and returns what it wrote (free it). Not inlined: gcc -O2 then
 * takes the returned buffer for the local whose address open_memstream got
 * (-Wdangling-pointer, a false positive that -Werror turns into a build failure). */
__attribute__ ((noinline)) static char *
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

static const double two_bounds[] = { 1, 5 };
static ebb_prom_hist cur_hist;

static void
write_hist (FILE *f)
{
  ebb_prom_histogram (f, "x_seconds", "Time taken.", &cur_hist);
}

/* Buckets are cumulative, an observation on a bound counts in it, +Inf holds everything. */
static void
test_histogram (void)
{
  ebb_prom_hist_init (&cur_hist, two_bounds, 2);
  char *t = text_of (write_hist);
  CU_ASSERT_STRING_EQUAL (t, "# HELP x_seconds Time taken.\n# TYPE x_seconds histogram\n"
                             "x_seconds_bucket{le=\"1\"} 0\nx_seconds_bucket{le=\"5\"} 0\n"
                             "x_seconds_bucket{le=\"+Inf\"} 0\nx_seconds_sum 0.000000\n"
                             "x_seconds_count 0\n");
  free (t);
  ebb_prom_hist_observe (&cur_hist, 0.5);
  ebb_prom_hist_observe (&cur_hist, 1);
  ebb_prom_hist_observe (&cur_hist, 4);
  ebb_prom_hist_observe (&cur_hist, 60);
  t = text_of (write_hist);
  CU_ASSERT_STRING_EQUAL (t, "# HELP x_seconds Time taken.\n# TYPE x_seconds histogram\n"
                             "x_seconds_bucket{le=\"1\"} 2\nx_seconds_bucket{le=\"5\"} 3\n"
                             "x_seconds_bucket{le=\"+Inf\"} 4\nx_seconds_sum 65.500000\n"
                             "x_seconds_count 4\n");
  free (t);
  CU_ASSERT_DOUBLE_EQUAL (ebb_prom_hist_quantile (&cur_hist, 0.5), 1, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL (ebb_prom_hist_quantile (&cur_hist, 0.75), 5, 1e-12);
  CU_ASSERT (ebb_prom_hist_quantile (&cur_hist, 1.0) > 1e6);
}

/* A zeroed histogram has the 16 latency buckets, 100 us to 10 s. */
static void
test_histogram_default (void)
{
  cur_hist = (ebb_prom_hist){ 0 };
  CU_ASSERT_DOUBLE_EQUAL (ebb_prom_hist_quantile (&cur_hist, 0.5), 0, 1e-12);
  ebb_prom_hist_observe (&cur_hist, 0.0008);
  char *t = text_of (write_hist);
  CU_ASSERT_PTR_NOT_NULL (strstr (t, "x_seconds_bucket{le=\"0.0001\"} 0\n"
                                     "x_seconds_bucket{le=\"0.00025\"} 0\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (t, "x_seconds_bucket{le=\"0.001\"} 1\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (t, "x_seconds_bucket{le=\"10\"} 1\n"
                                     "x_seconds_bucket{le=\"+Inf\"} 1\n"));
  CU_ASSERT_EQUAL (cur_hist.counts[3], 1);
  free (t);
  CU_ASSERT_DOUBLE_EQUAL (ebb_prom_hist_quantile (&cur_hist, 0.5), 0.001, 1e-12);
}

static const char *cur_proc;
static int cur_families;

static void
write_process (FILE *f)
{
  cur_families = ebb_prom_process (f, cur_proc);
}

static void
put_file (const char *dir, const char *rel, const char *text)
{
  char path[512];
  snprintf (path, sizeof path, "%s/%s", dir, rel);
  FILE *f = fopen (path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  fputs (text, f);
  fclose (f);
}

/* A fake procfs whose command name holds ") 1 2 (": the fields are counted from the last
 * ')', and the values are the ones written, converted with the clock tick and page size. */
static void
test_process_fake (void)
{
  char dir[] = "/tmp/ebb-prom-XXXXXX", sub[600];
  CU_ASSERT_PTR_NOT_NULL_FATAL (mkdtemp (dir));
  snprintf (sub, sizeof sub, "%s/self", dir);
  CU_ASSERT_EQUAL_FATAL (mkdir (sub, 0700), 0);
  snprintf (sub, sizeof sub, "%s/self/fd", dir);
  CU_ASSERT_EQUAL_FATAL (mkdir (sub, 0700), 0);
  put_file (dir, "self/fd/0", "");
  put_file (dir, "self/fd/7", "");
  long tck = sysconf (_SC_CLK_TCK), page = sysconf (_SC_PAGESIZE);
  char stat[512];
  /* utime 3 s, stime 1 s, start 10 s after boot, vsize 123456789, rss 1000 pages */
  snprintf (stat, sizeof stat,
            "42 (a) 1 2 (b) S 1 42 42 0 -1 4194560 100 0 0 0 %ld %ld 0 0 20 0 1 0 %ld "
            "123456789 1000 18446744073709551615\n",
            3 * tck, 1 * tck, 10 * tck);
  put_file (dir, "self/stat", stat);
  put_file (dir, "stat", "cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n");
  cur_proc = dir;
  char *t = text_of (write_process);
  CU_ASSERT_PTR_NOT_NULL (strstr (t, "# TYPE process_cpu_seconds_total counter\n"
                                     "process_cpu_seconds_total 4.00\n"));
  char want[128];
  snprintf (want, sizeof want, "\nprocess_resident_memory_bytes %ld\n", 1000 * page);
  CU_ASSERT_PTR_NOT_NULL (strstr (t, want));
  CU_ASSERT_PTR_NOT_NULL (strstr (t, "\nprocess_virtual_memory_bytes 123456789\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (t, "\nprocess_start_time_seconds 1700000010.00\n"));
  CU_ASSERT_PTR_NOT_NULL (strstr (t, "\nprocess_open_fds 2\n"));
  CU_ASSERT (cur_families >= 5);
  free (t);
  /* Without /proc/stat's btime the start time is left out rather than made up. */
  put_file (dir, "stat", "cpu 1 2 3\n");
  t = text_of (write_process);
  CU_ASSERT_PTR_NULL (strstr (t, "process_start_time_seconds"));
  CU_ASSERT_PTR_NOT_NULL (strstr (t, "process_cpu_seconds_total 4.00\n"));
  free (t);
  char cmd[600];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  CU_ASSERT_EQUAL (system (cmd), 0);
}

/* The real /proc: this process has stdin..stderr open, some memory, and started before now. */
static void
test_process_real (void)
{
  cur_proc = "/proc";
  char *t = text_of (write_process);
  unsigned long long rss = 0, fds = 0;
  double start = 0;
  const char *p = strstr (t, "\nprocess_resident_memory_bytes ");
  CU_ASSERT (p && sscanf (p, "\nprocess_resident_memory_bytes %llu", &rss) == 1 && rss > 4096);
  p = strstr (t, "\nprocess_open_fds ");
  CU_ASSERT (p && sscanf (p, "\nprocess_open_fds %llu", &fds) == 1 && fds >= 3);
  p = strstr (t, "\nprocess_start_time_seconds ");
  CU_ASSERT (p && sscanf (p, "\nprocess_start_time_seconds %lf", &start) == 1);
  CU_ASSERT (start > 1.6e9 && start <= (double)time (NULL) + 1);
  CU_ASSERT (cur_families == 6);
  free (t);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_samples),      EBB_CU_TEST (test_build_info),
  EBB_CU_TEST (test_histogram),    EBB_CU_TEST (test_histogram_default),
  EBB_CU_TEST (test_process_fake), EBB_CU_TEST (test_process_real),
};

EBB_CU_MAIN ("prom", NULL, NULL, tests)
