/* ebb-sim in resource mode: the JSON-lines trace reader (bad lines name their line), the
 * BIG-C generators and runs (same seed, same bytes), and the progress model (suspended tasks
 * stop, reclaim and resume costs per GiB). */
#include "config.h"

#include "sim/engine.h"
#include "sim/report.h"
#include "sim/trace.h"
#include "tests/cu.h"
#include "tests/sim-fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GIB (INT64_C (1) << 30)

#define GOOD "{\"submit\":1,\"cpu_millis\":4000,\"memory_bytes\":1024,\"durations\":[3,5]}\n"

static void
test_json_trace_good (void)
{
  ebb_sim_trace *t = NULL;
  char *msg
      = simfix_read_text ("# comment\n" GOOD "\n{\"id\":\"j2\",\"submit\":2.5,\"cpu_millis\":8000,"
                          "\"memory_bytes\":17179869184,\"durations\":[10],\"est\":12,"
                          "\"class\":\"long\"}\n",
                          &t);
  CU_ASSERT_STRING_EQUAL (msg, "");
  free (msg);
  CU_ASSERT_PTR_NOT_NULL_FATAL (t);
  CU_ASSERT_EQUAL (t->njobs, 2);
  CU_ASSERT (ebb_sim_trace_has_res (t));
  CU_ASSERT_DOUBLE_EQUAL (t->mean_sec[0], 4.0, 1e-12); /* est defaults to the mean */
  CU_ASSERT_DOUBLE_EQUAL (t->mean_sec[1], 12.0, 1e-12);
  CU_ASSERT_EQUAL (t->cpu_millis[1], 8000);
  CU_ASSERT_EQUAL (t->memory_bytes[1], 16 * GIB);
  CU_ASSERT_EQUAL (t->klass[0], EBB_POL_CLASS_BY_CUTOFF);
  CU_ASSERT_EQUAL (t->klass[1], EBB_POL_CLASS_LONG);
  ebb_sim_trace_free (t);
}

static void
test_json_trace_bad_lines (void)
{
  simfix_expect_error (
      GOOD "{\"submit\":1,\"cpu_millis\":1,\"memory_bytes\":0,\"durations\":[1],\"x\":1}\n",
      "t:2: unknown key 'x'");
  simfix_expect_error (GOOD GOOD "{\"cpu_millis\":1,\"memory_bytes\":0,\"durations\":[1]}\n",
                       "t:3: submit is required");
  simfix_expect_error ("{\"submit\":1,\"cpu_millis\":0,\"memory_bytes\":0,\"durations\":[1]}\n",
                       "t:1: ");
  simfix_expect_error ("{\"submit\":1,\"cpu_millis\":1,\"memory_bytes\":0,\"durations\":[]}\n",
                       "t:1: durations must be a non-empty array");
  simfix_expect_error (
      "{\"submit\":1,\"cpu_millis\":1,\"memory_bytes\":0,\"durations\":[1,\"a\"]}\n",
      "t:1: duration 2 is not a number");
  simfix_expect_error ("{\"submit\":1,\"cpu_millis\":1,\"memory_bytes\":0,\"durations\":[-1]}\n",
                       "t:1: duration 1 out of range");
  simfix_expect_error (GOOD "{\"submit\":1,\"cpu_millis\":1,\"memory_bytes\":0,\"durations\":[1],"
                            "\"class\":\"medium\"}\n",
                       "t:2: class must be");
  simfix_expect_error (GOOD "{\"submit\":1,\n", "t:2: ");
  simfix_expect_error (GOOD "[1,2]\n", "t:2: ");
  simfix_expect_error (GOOD "1 1 1 1\n", "t:2: Hawk-format line in a JSON-lines trace");
  simfix_expect_error ("1 1 1 1\n" GOOD, "t:2: JSON line in a Hawk-format trace");
  simfix_expect_error (
      "{\"submit\":1,\"submit\":2,\"cpu_millis\":1,\"memory_bytes\":0,\"durations\":[1]}\n",
      "t:1: ");
}

static void
config (ebb_sim_config *cfg, const char *mode, uint32_t nodes, ebb_pol_res cap)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->policy = "bigc";
  ebb_pol_params_default (&cfg->pol);
  cfg->pol.nnodes = nodes;
  cfg->pol.node_cap = cap;
  static const char *const modes[] = { "fifo", "reserve", "kill", "ip", "gp" };
  for (uint32_t i = 0; i < 5; i++)
    if (strcmp (mode, modes[i]) == 0)
      cfg->pol.bigc_mode = i;
  cfg->util_interval_sec = 100;
  ebb_sim_config_costs_bigc (cfg);
}

/* Same seed: the same file and the same report, in every mode; another seed differs. The
 * written trace reads back to the same text. */
static void
test_bigc_determinism (void)
{
  char *text[3];
  for (int i = 0; i < 3; i++)
    {
      ebb_rng rng;
      ebb_rng_seed (&rng, i < 2 ? 7 : 8);
      ebb_sim_trace *t = ebb_sim_trace_new ();
      CU_ASSERT_EQUAL (ebb_sim_gen_bigc_pattern (t, "high", &rng), 0);
      text[i] = simfix_trace_text (t);
      ebb_sim_trace_free (t);
    }
  CU_ASSERT_STRING_EQUAL (text[0], text[1]);
  CU_ASSERT_STRING_NOT_EQUAL (text[0], text[2]);
  ebb_sim_trace *t = NULL;
  char *msg = simfix_read_text (text[0], &t);
  CU_ASSERT_STRING_EQUAL (msg, "");
  free (msg);
  CU_ASSERT_PTR_NOT_NULL_FATAL (t);
  char *again = simfix_trace_text (t);
  CU_ASSERT_STRING_EQUAL (again, text[0]);
  free (again);
  static const char *const modes[] = { "fifo", "reserve", "kill", "ip", "gp" };
  for (int m = 0; m < 5; m++)
    {
      ebb_sim_config cfg;
      config (&cfg, modes[m], 26, (ebb_pol_res){ 32000, 128 * GIB });
      char *a = simfix_json_of (&cfg, t, NULL), *b = simfix_json_of (&cfg, t, NULL);
      CU_ASSERT_STRING_EQUAL (a, b);
      CU_ASSERT_PTR_NOT_NULL (strstr (a, "\"util_above_80_share\":"));
      free (a);
      free (b);
    }
  ebb_sim_trace_free (t);
  for (int i = 0; i < 3; i++)
    free (text[i]);
  ebb_rng rng;
  ebb_rng_seed (&rng, 1);
  t = ebb_sim_trace_new ();
  ebb_sim_gen_bigc_google (t, &rng);
  CU_ASSERT_EQUAL (t->njobs, 2202);
  uint32_t nlong = 0;
  for (uint32_t j = 0; j < t->njobs; j++)
    nlong += t->klass[j] == EBB_POL_CLASS_LONG;
  CU_ASSERT_EQUAL (nlong, 182);
  ebb_sim_trace_free (t);
}

/* One node <8 CPU, 16 GiB>: a long task <8 CPU, 8 GiB> of 100 s from 0, a short task
 * <4 CPU, 4 GiB> of 20 s at 10 s. ip, D = 0: the round at 12 s (with arrival_preempt: the
 * short task's arrival at 10 s) suspends the long task (its CPU one network delay later),
 * the short task starts one delay after that and runs 20 s; the long task's 8 GiB (bigc
 * books no footprint) take 3 s/GiB to reclaim and as long to reload, then it runs its
 * remaining 100 s less what it ran before the suspension. */
static void
test_progress_and_costs (void)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  double dl = 100, ds = 20;
  uint32_t j0 = ebb_sim_trace_add (t, 0, dl, 1, &dl);
  uint32_t j1 = ebb_sim_trace_add (t, 10, ds, 1, &ds);
  ebb_sim_trace_set_res (t, j0, 8000, 8 * GIB, EBB_POL_CLASS_LONG);
  ebb_sim_trace_set_res (t, j1, 4000, 4 * GIB, EBB_POL_CLASS_SHORT);
  ebb_sim_config cfg;
  ebb_sim_result res;
  ebb_error *err = NULL;
  for (int arrival = 1; arrival >= 0; arrival--)
    {
      config (&cfg, "ip", 1, (ebb_pol_res){ 8000, 16 * GIB });
      cfg.pol.resume_tries = 0;
      cfg.pol.arrival_preempt = arrival;
      CU_ASSERT_EQUAL_FATAL (ebb_sim_run (&cfg, t, &res, &err), 0);
      double decided = arrival ? 10 : 12;
      double d = 0.0005, susp = decided + d;
      double gib = 8.0;
      CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[1], susp + d + ds - 10, 1e-6);
      /* The reclaim completes at susp + 3 x gib; the RESUME leaves then and the task runs
       * again after one delay and the reload. */
      double resumed = susp + 3 * gib + d + 3 * gib;
      /* It started one delay after its arrival at 0. */
      CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[0], resumed + (dl - (susp - d)), 1e-6);
      CU_ASSERT_EQUAL (res.pol.suspends, 1);
      CU_ASSERT_EQUAL (res.pol.resumes, 1);
      /* The preemption, decision to decision: the suspension to the RESUME. */
      CU_ASSERT_EQUAL_FATAL (res.npreempt, 1);
      CU_ASSERT_DOUBLE_EQUAL (res.preempt_sec[0], susp + 3 * gib - decided, 1e-6);
      ebb_sim_result_clear (&res);
    }
  /* Without costs the long task only loses the time it stood still. */
  cfg.reclaim_sec_per_gib = cfg.resume_sec_per_gib = 0;
  CU_ASSERT_EQUAL_FATAL (ebb_sim_run (&cfg, t, &res, &err), 0);
  CU_ASSERT (res.runtime_sec[0] < 100 + 20 + 1);
  CU_ASSERT (res.runtime_sec[0] > 100 + 20 - 1);
  ebb_sim_result_clear (&res);
  /* A node too small for a task is an error, not a hang. */
  config (&cfg, "gp", 1, (ebb_pol_res){ 4000, 16 * GIB });
  CU_ASSERT (ebb_sim_run (&cfg, t, &res, &err) < 0);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "more than a node has"));
  ebb_error_free (&err);
  ebb_sim_trace_free (t);
}

/* Runs t under cfg with the given fixed costs; returns the job's runtime (FATAL on error). */
static double
runtime_with (ebb_sim_config *cfg, const ebb_sim_trace *t, uint32_t job, double launch,
              double finish, uint32_t *npreempt)
{
  cfg->launch_delay_sec = launch;
  cfg->finish_delay_sec = finish;
  ebb_sim_result res;
  ebb_error *err = NULL;
  int r = ebb_sim_run (cfg, t, &res, &err);
  if (r < 0)
    fprintf (stderr, "%s\n", ebb_error_msg (&err));
  CU_ASSERT_EQUAL_FATAL (r, 0);
  double v = res.runtime_sec[job];
  if (npreempt)
    *npreempt = res.npreempt;
  ebb_sim_result_clear (&res);
  return v;
}

/* --launch-delay and --finish-delay: a lone task's runtime grows by exactly their sum, in
 * slot mode (fifo) and resource mode (ebb); the finish delay holds the room (a second task
 * that needs the whole node starts after it), and a suspension decided while the finish is
 * on its way does not delay it (the task has exited). */
static void
test_launch_finish_delays (void)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  double d10 = 10, d5 = 5;
  ebb_sim_trace_add (t, 0, d10, 1, &d10);
  ebb_sim_config cfg;
  memset (&cfg, 0, sizeof cfg);
  cfg.policy = "fifo";
  ebb_pol_params_default (&cfg.pol);
  cfg.pol.nnodes = 1;
  double base = runtime_with (&cfg, t, 0, 0, 0, NULL);
  CU_ASSERT_DOUBLE_EQUAL (runtime_with (&cfg, t, 0, 0.3, 0.2, NULL) - base, 0.5, 1e-9);
  /* Resource mode: two long jobs that each need the whole node, the second at 1 s. */
  ebb_sim_trace_add (t, 1, d5, 1, &d5);
  ebb_sim_trace_set_res (t, 0, 2000, 64 << 20, EBB_POL_CLASS_LONG);
  ebb_sim_trace_set_res (t, 1, 2000, 64 << 20, EBB_POL_CLASS_LONG);
  cfg.policy = "ebb";
  cfg.pol.node_cap = (ebb_pol_res){ 2000, 1 * GIB };
  double b0 = runtime_with (&cfg, t, 0, 0, 0, NULL), b1 = runtime_with (&cfg, t, 1, 0, 0, NULL);
  CU_ASSERT_DOUBLE_EQUAL (runtime_with (&cfg, t, 0, 0.3, 0.2, NULL) - b0, 0.5, 1e-9);
  /* The second waits for the first's finish to be known, then pays both delays itself. */
  CU_ASSERT_DOUBLE_EQUAL (runtime_with (&cfg, t, 1, 0.3, 0.2, NULL) - b1, 1.0, 1e-9);
  ebb_sim_trace_free (t);

  /* A short job arriving at 10.5 s, after the long task's work (ends 10 s + 3 network
   * delays) and before its end is known (1 s later): it suspends the long task, which still
   * ends when its report arrives, not when it would be resumed. */
  t = ebb_sim_trace_new ();
  double d1 = 1;
  ebb_sim_trace_add (t, 0, d10, 1, &d10);
  ebb_sim_trace_add (t, 10.5, d1, 1, &d1);
  ebb_sim_trace_set_res (t, 0, 2000, 64 << 20, EBB_POL_CLASS_LONG);
  ebb_sim_trace_set_res (t, 1, 1500, 64 << 20, EBB_POL_CLASS_SHORT);
  uint32_t np = 99;
  double r0 = runtime_with (&cfg, t, 0, 0, 1, &np);
  CU_ASSERT_DOUBLE_EQUAL (r0, 3 * cfg.pol.net_delay_sec + 10 + 1, 1e-9);
  CU_ASSERT_EQUAL (np, 0); /* suspended, never resumed: it ended */
  ebb_sim_trace_free (t);

  /* Negative delays are refused; hopper and srpt do not model them. */
  ebb_sim_result res;
  ebb_error *err = NULL;
  cfg.finish_delay_sec = -1;
  CU_ASSERT (ebb_sim_run (&cfg, t = ebb_sim_trace_new (), &res, &err) < 0);
  ebb_error_free (&err);
  ebb_sim_trace_add (t, 0, d10, 1, &d10);
  cfg.finish_delay_sec = 0.5;
  cfg.policy = "srpt";
  cfg.pol.node_cap = (ebb_pol_res){ 0, 0 };
  CU_ASSERT (ebb_sim_run (&cfg, t, &res, &err) < 0);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "not modelled"));
  ebb_error_free (&err);
  ebb_sim_trace_free (t);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_json_trace_good),      EBB_CU_TEST (test_json_trace_bad_lines),
  EBB_CU_TEST (test_bigc_determinism),     EBB_CU_TEST (test_progress_and_costs),
  EBB_CU_TEST (test_launch_finish_delays),
};

EBB_CU_MAIN ("sim-resources", NULL, NULL, tests)
