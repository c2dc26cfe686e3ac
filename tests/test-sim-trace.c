/* The trace reader (good input and every kind of malformed line) and the generators. */
#include "config.h"

#include "sim/trace.h"
#include "tests/cu.h"

#include <math.h>
#include <string.h>

static int
parse (const char *text, ebb_sim_trace **out, ebb_error **err)
{
  FILE *f = fmemopen ((void *)text, strlen (text), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  ebb_sim_trace *t = ebb_sim_trace_new ();
  int r = ebb_sim_trace_read_stream (t, f, "x.tr", err);
  fclose (f);
  if (out)
    *out = t;
  else
    ebb_sim_trace_free (t);
  return r;
}

static void
test_reads_good_trace (void)
{
  ebb_sim_trace *t;
  ebb_error *err = NULL;
  int r = parse ("# comment\n0 2 1.5 1 2\n\n  3.25\t1 7 7\r\n10 3 2 1 2 3", &t, &err);
  CU_ASSERT_EQUAL_FATAL (r, 0);
  CU_ASSERT_EQUAL (t->njobs, 3);
  CU_ASSERT_EQUAL (t->ntasks_total, 6);
  CU_ASSERT_DOUBLE_EQUAL (t->submit_sec[1], 3.25, 1e-12);
  CU_ASSERT_EQUAL (t->ntasks[2], 3);
  CU_ASSERT_DOUBLE_EQUAL (t->dur_sec[t->first_task[2] + 2], 3, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL (t->mean_sec[0], 1.5, 1e-12);
  ebb_sim_trace_truncate (t);
  CU_ASSERT_DOUBLE_EQUAL (t->mean_sec[0], 1, 1e-12);
  ebb_sim_trace_free (t);
}

static void
expect_error (const char *text, const char *needle)
{
  ebb_error *err = NULL;
  CU_ASSERT (parse (text, NULL, &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), EBB_EPARSE);
  const char *msg = ebb_error_msg (&err);
  if (!strstr (msg, needle))
    fprintf (stderr, "message '%s' lacks '%s'\n", msg, needle);
  CU_ASSERT_PTR_NOT_NULL (strstr (msg, needle));
  ebb_error_free (&err);
}

static void
test_rejects_malformed_lines (void)
{
  expect_error ("0 1 1 1\n5 3 2 1 2\n", "x.tr:2: 3 task durations announced, 2 found");
  expect_error ("0 1 1 1 9\n", "x.tr:1: more than the 1 task durations");
  expect_error ("0 1 1 1\n\n1 1 abc 1\n", "x.tr:3: mean task duration 'abc'");
  expect_error ("0 0 1\n", "x.tr:1: number of tasks 0");
  expect_error ("0 1.5 1 1\n", "x.tr:1: number of tasks 1.5");
  expect_error ("-1 1 1 1\n", "x.tr:1: submission time '-1'");
  expect_error ("0 2 1 1 -3\n", "x.tr:1: task duration 2 '-3'");
  expect_error ("0 2 1 1 nan\n", "x.tr:1: task duration 2 'nan'");
  expect_error ("0 1\n", "x.tr:1: missing mean task duration");
  expect_error ("# only a comment\n", "x.tr: no jobs");
}

static void
test_missing_file (void)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_error *err = NULL;
  CU_ASSERT (ebb_sim_trace_read (t, "/nonexistent/trace.tr", &err) < 0);
  CU_ASSERT_EQUAL (ebb_error_code (&err), ENOENT);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "/nonexistent/trace.tr"));
  ebb_error_free (&err);
  ebb_sim_trace_free (t);
}

static void
test_gen_hawk2 (void)
{
  ebb_rng rng;
  ebb_rng_seed (&rng, 3);
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_sim_gen_hawk2 (t, 4000, 50, &rng);
  CU_ASSERT_EQUAL_FATAL (t->njobs, 4000);
  uint32_t nlong = 0;
  for (uint32_t j = 0; j < t->njobs; j++)
    {
      int is_long = t->ntasks[j] == 1000;
      nlong += is_long;
      CU_ASSERT (is_long || t->ntasks[j] == 100);
      CU_ASSERT_DOUBLE_EQUAL (t->mean_sec[j], is_long ? 20000 : 100, 0);
      CU_ASSERT_DOUBLE_EQUAL (t->dur_sec[t->first_task[j]], t->mean_sec[j], 0);
    }
  CU_ASSERT (nlong > 4000 * 0.04 && nlong < 4000 * 0.06);
  double mean_gap = t->submit_sec[t->njobs - 1] / (t->njobs - 1);
  CU_ASSERT (mean_gap > 45 && mean_gap < 55);
  CU_ASSERT (ebb_sim_trace_is_sorted (t));
  ebb_sim_trace_free (t);
}

/* Hetero: durations non-negative, the job's mean is the mean of its tasks, and a written
 * trace reads back the same. */
static void
test_gen_hetero_roundtrip (void)
{
  ebb_rng rng;
  ebb_rng_seed (&rng, 5);
  ebb_sim_gen_class c[2] = { { 0.8, 10, 50 }, { 0.2, 40, 1000 } };
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_sim_gen_hetero (t, 500, 10, c, 2, &rng);
  for (uint32_t j = 0; j < t->njobs; j++)
    {
      double sum = 0;
      for (uint32_t i = 0; i < t->ntasks[j]; i++)
        {
          double d = t->dur_sec[t->first_task[j] + i];
          CU_ASSERT (d >= 0);
          sum += d;
        }
      CU_ASSERT_DOUBLE_EQUAL (t->mean_sec[j], sum / t->ntasks[j], 1e-6);
    }
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_sim_trace_write (t, f, &err), 0);
  fclose (f);
  ebb_sim_trace *back;
  CU_ASSERT_EQUAL_FATAL (parse (buf, &back, &err), 0);
  CU_ASSERT_EQUAL (back->njobs, t->njobs);
  CU_ASSERT_EQUAL (back->ntasks_total, t->ntasks_total);
  CU_ASSERT_DOUBLE_EQUAL (back->dur_sec[7], t->dur_sec[7], 1e-3);
  free (buf);
  ebb_sim_trace_free (back);
  ebb_sim_trace_free (t);
}

/* Hetero at a load: the jobs --interarrival draws with the same seed, the arrivals scaled by
 * one factor, the mean gap a job's mean task-seconds over load x nodes; over 4000 jobs the
 * offered load (task-seconds over nodes x span) is the one asked within a few %, though the
 * classes' centroids would say about half of it. */
static void
test_gen_hetero_load (void)
{
  ebb_sim_gen_class c[2] = { { 0.9, 7, 175 }, { 0.1, 24, 2700 } };
  ebb_rng rng;
  ebb_rng_seed (&rng, 3);
  ebb_sim_trace *unit = ebb_sim_trace_new ();
  ebb_sim_gen_hetero (unit, 4000, 1, c, 2, &rng);
  ebb_rng_seed (&rng, 3);
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_sim_gen_hetero_load (t, 4000, 200, 0.8, c, 2, &rng);
  CU_ASSERT_EQUAL_FATAL (t->njobs, unit->njobs);
  CU_ASSERT_EQUAL_FATAL (t->ntasks_total, unit->ntasks_total);
  CU_ASSERT_EQUAL (memcmp (t->dur_sec, unit->dur_sec, t->ntasks_total * sizeof (double)), 0);
  double work = 0;
  for (uint64_t i = 0; i < t->ntasks_total; i++)
    work += t->dur_sec[i];
  double gap = work / (4000 * 0.8 * 200);
  int scaled = 1;
  for (uint32_t j = 0; j < t->njobs; j++)
    scaled &= t->ntasks[j] == unit->ntasks[j] && t->mean_sec[j] == unit->mean_sec[j]
              && fabs (t->submit_sec[j] - unit->submit_sec[j] * gap) <= 1e-6 * gap * (j + 1);
  CU_ASSERT (scaled);
  double span = t->submit_sec[t->njobs - 1] - t->submit_sec[0];
  double load = work / (200 * span);
  CU_ASSERT (load > 0.8 * 0.96 && load < 0.8 * 1.04);
  double nominal = 4000 * (0.9 * 7 * 175 + 0.1 * 24 * 2700) / (200 * span);
  CU_ASSERT (nominal < 0.6 * load);
  ebb_sim_trace_free (unit);
  ebb_sim_trace_free (t);
}

/* The generators' integer options: digits only, within the bounds. */
static void
test_gen_parse_u64 (void)
{
  uint64_t v = 7;
  CU_ASSERT (ebb_sim_gen_parse_u64 ("12", 1, 100, &v) == 0 && v == 12);
  CU_ASSERT (ebb_sim_gen_parse_u64 ("0", 0, UINT64_MAX, &v) == 0 && v == 0);
  CU_ASSERT (ebb_sim_gen_parse_u64 ("18446744073709551615", 0, UINT64_MAX, &v) == 0
             && v == UINT64_MAX);
  v = 7;
  static const char *const bad[] = { "", "-1", "x", "12x", "0", "101", "18446744073709551616" };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (bad); i++)
    CU_ASSERT_EQUAL (ebb_sim_gen_parse_u64 (bad[i], 1, 100, &v), -1);
  CU_ASSERT_EQUAL (v, 7);
}

/* ebb_sim_gen_output writes what ebb_sim_trace_write writes, and fails with 1 on a path
 * it cannot open. */
static void
test_gen_output (void)
{
  ebb_rng rng;
  ebb_rng_seed (&rng, 2);
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_sim_gen_hawk2 (t, 20, 50, &rng);
  char dir[] = "/tmp/test-sim-trace.XXXXXX";
  CU_ASSERT_PTR_NOT_NULL_FATAL (mkdtemp (dir));
  char path[64];
  snprintf (path, sizeof path, "%s/t.tr", dir);
  CU_ASSERT_EQUAL (ebb_sim_gen_output (t, path, "test"), 0);
  ebb_sim_trace *back = ebb_sim_trace_new ();
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL (ebb_sim_trace_read (back, path, &err), 0);
  CU_ASSERT_EQUAL (back->njobs, 20);
  ebb_sim_trace_free (back);
  unlink (path);
  snprintf (path, sizeof path, "%s/no/t.tr", dir);
  CU_ASSERT_EQUAL (ebb_sim_gen_output (ebb_sim_trace_new (), path, "test"), 1);
  rmdir (dir);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_gen_parse_u64),        EBB_CU_TEST (test_gen_output),
  EBB_CU_TEST (test_reads_good_trace),     EBB_CU_TEST (test_rejects_malformed_lines),
  EBB_CU_TEST (test_missing_file),         EBB_CU_TEST (test_gen_hawk2),
  EBB_CU_TEST (test_gen_hetero_roundtrip), EBB_CU_TEST (test_gen_hetero_load),
};

EBB_CU_MAIN ("sim-trace", NULL, NULL, tests)
