/* Fixtures shared by the ebb-sim suites that read traces from text and compare runs by
 * their bytes: a trace read from a string, its error message, a trace written back to
 * text, a run's JSON report, and a policy's runs under two seeds. Header-only, like cu.h. */
#ifndef EBB_TESTS_SIM_FIXTURE_H
#define EBB_TESTS_SIM_FIXTURE_H

#include "lib/rng.h"
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

/* A hetero trace of njobs jobs, interarrival_sec apart, from seed: 90% short jobs (20 tasks
 * of 20 s on average), 10% long ones (60 tasks of 300 s). */
static inline ebb_sim_trace *
simfix_hetero_trace (uint64_t seed, uint32_t njobs, double interarrival_sec)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_rng rng;
  ebb_rng_seed (&rng, seed);
  ebb_sim_gen_class cls[2] = { { .share = 0.9, .mean_tasks = 20, .mean_dur_sec = 20 },
                               { .share = 0.1, .mean_tasks = 60, .mean_dur_sec = 300 } };
  ebb_sim_gen_hetero (t, njobs, interarrival_sec, cls, 2, &rng);
  return t;
}

/* Runs policy on t over nnodes nodes (cutoff_sec when > 0) with seeds 1, 1 and 2 into r: the
 * same seed must give the same job runtimes, the other seed some other one. The caller
 * clears r. */
static inline void
simfix_seed_runs (const char *policy, const ebb_sim_trace *t, uint32_t nnodes, double cutoff_sec,
                  ebb_sim_result r[3])
{
  for (int i = 0; i < 3; i++)
    {
      ebb_sim_config cfg = { .policy = policy };
      ebb_pol_params_default (&cfg.pol);
      cfg.pol.nnodes = nnodes;
      if (cutoff_sec > 0)
        cfg.pol.cutoff_sec = cutoff_sec;
      cfg.pol.seed = i < 2 ? 1 : 2;
      ebb_error *err = NULL;
      CU_ASSERT_EQUAL_FATAL (ebb_sim_run (&cfg, t, &r[i], &err), 0);
    }
  int same = 1, differ = 0;
  for (uint32_t j = 0; j < r[0].njobs; j++)
    {
      same &= r[0].runtime_sec[j] == r[1].runtime_sec[j];
      differ |= r[0].runtime_sec[j] != r[2].runtime_sec[j];
    }
  CU_ASSERT (same);
  CU_ASSERT (differ);
}

#endif
