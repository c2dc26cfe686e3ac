/* Fixtures shared by the ebb-sim suites that read traces from text and compare runs by
 * their bytes: a trace read from a string, its error message, a trace written back to
 * text, and a run's JSON report. Header-only, like cu.h. */
#ifndef EBB_TESTS_SIM_FIXTURE_H
#define EBB_TESTS_SIM_FIXTURE_H

#include "sim/engine.h"
#include "sim/report.h"
#include "sim/trace.h"
#include "tests/cu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads text as a trace named "t"; returns the error message ("" on success), to free.
 * With out, a trace read whole is handed there (the caller frees it). */
static inline char *
simfix_read_text (const char *text, ebb_sim_trace **out)
{
  FILE *f = fmemopen ((void *)text, strlen (text), "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL (f);
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_error *err = NULL;
  int r = ebb_sim_trace_read_stream (t, f, "t", &err);
  fclose (f);
  char *msg = strdup (r < 0 ? ebb_error_msg (&err) : "");
  ebb_error_free (&err);
  if (out && r == 0)
    *out = t;
  else
    ebb_sim_trace_free (t);
  return msg;
}

/* Reading text fails with a message containing want. */
static inline void
simfix_expect_error (const char *text, const char *want)
{
  char *msg = simfix_read_text (text, NULL);
  if (!strstr (msg, want))
    fprintf (stderr, "got '%s', want '%s'\n", msg, want);
  CU_ASSERT_PTR_NOT_NULL (strstr (msg, want));
  free (msg);
}

/* t written as a trace file, to free. */
static inline char *
simfix_trace_text (const ebb_sim_trace *t)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  CU_ASSERT_EQUAL (ebb_sim_trace_write (t, f, NULL), 0);
  fclose (f);
  return buf;
}

/* Runs cfg on t and returns the JSON report, to free. With keep, the result is handed
 * there (the caller clears it); without, it is cleared here. */
static inline char *
simfix_json_of (const ebb_sim_config *cfg, const ebb_sim_trace *t, ebb_sim_result *keep)
{
  ebb_sim_result res;
  ebb_error *err = NULL;
  CU_ASSERT_EQUAL_FATAL (ebb_sim_run (cfg, t, &res, &err), 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  ebb_sim_report rep = { .cfg = cfg, .trace = t, .res = &res, .report_cutoff_sec = INFINITY };
  ebb_sim_print_json (f, &rep, 0);
  fclose (f);
  if (keep)
    *keep = res;
  else
    ebb_sim_result_clear (&res);
  return buf;
}

#endif
