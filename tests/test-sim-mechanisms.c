/* ebb-sim on hand-built tiny clusters, with job runtimes computed by hand. d is the one-way
 * network delay (0.5 ms); a task bound at time b finishes at b + 2d + duration. */
#include "config.h"

#include "sim/engine.h"
#include "sim/report.h"
#include "tests/cu.h"

#include <math.h>

#define D 0.0005

static void
setup (ebb_sim_config *cfg, const char *policy, uint32_t nnodes)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->policy = policy;
  cfg->util_interval_sec = 1;
  ebb_pol_params_default (&cfg->pol);
  cfg->pol.nnodes = nnodes;
  cfg->pol.net_delay_sec = D;
}

static void
add (ebb_sim_trace *t, double submit, uint32_t n, double dur)
{
  double d[8];
  for (uint32_t i = 0; i < n; i++)
    d[i] = dur;
  ebb_sim_trace_add (t, submit, dur, n, d);
}

static void
run (const ebb_sim_config *cfg, const ebb_sim_trace *t, ebb_sim_result *res)
{
  ebb_error *err = NULL;
  int r = ebb_sim_run (cfg, t, res, &err);
  CU_ASSERT_EQUAL_FATAL (r, 0);
}

/* One node. Job A (1 task, 10 s) at 0 sends 2 probes to it; job B (1 task, 5 s) at 1.
 * A's task is bound at d and ends at 10 + 3d; A's surplus probe is then at the head.
 * Cancelled: B binds at once and ends at 15 + 5d (runtime 14 + 5d).
 * Not cancelled: the surplus probe costs a round trip, B ends at 15 + 7d. */
static void
test_late_binding_cancels_surplus_probes (void)
{
  for (int cancel = 0; cancel <= 1; cancel++)
    {
      ebb_sim_trace *t = ebb_sim_trace_new ();
      add (t, 0, 1, 10);
      add (t, 1, 1, 5);
      ebb_sim_config cfg;
      setup (&cfg, "sparrow", 1);
      cfg.pol.cancel_probes = cancel;
      ebb_sim_result res;
      run (&cfg, t, &res);
      CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[0], 10 + 3 * D, 1e-9);
      CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[1], cancel ? 14 + 5 * D : 14 + 7 * D, 1e-9);
      CU_ASSERT_EQUAL (res.pol.probes_sent, 4);
      CU_ASSERT_EQUAL (res.pol.probes_cancelled, cancel ? 2 : 0);
      CU_ASSERT_EQUAL (res.pol.probes_surplus, cancel ? 0 : 2);
      ebb_sim_result_clear (&res);
      ebb_sim_trace_free (t);
    }
}

/* Three nodes, all long. J1 (200 s) at 0 -> node 0, J2 (100 s) at 0.5 -> node 1, J3 (100 s)
 * at 1 -> node 2 (empty nodes in ascending id). At 50 the estimated waits are 150 + 3d,
 * 50.5 + 3d and 51 + 3d: J4 (100 s) must go to node 1, where J2 ends at 100.5 + 3d, so J4
 * ends at 200.5 + 5d: runtime 150.5 + 5d (node 2 would give 151 + 5d, node 0 250 + 5d). */
static void
test_central_placement_least_waiting (void)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  add (t, 0, 1, 200);
  add (t, 0.5, 1, 100);
  add (t, 1, 1, 100);
  add (t, 50, 1, 100);
  ebb_sim_config cfg;
  setup (&cfg, "hawk", 3);
  cfg.pol.cutoff_sec = 10;
  cfg.pol.short_part_pct = 0;
  ebb_sim_result res;
  run (&cfg, t, &res);
  CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[0], 200 + 3 * D, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[1], 100 + 3 * D, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[2], 100 + 3 * D, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[3], 150.5 + 5 * D, 1e-9);
  CU_ASSERT_EQUAL (res.pol.probes_sent, 4); /* central: one probe per task */
  /* One snapshot per second from 0 to the last finish (200.5 + 5d): 201 of them; at 10 s
   * three nodes run, at 150 s two (J1 and J4), at 200.6 none. */
  CU_ASSERT_EQUAL_FATAL (res.nutil, 201);
  CU_ASSERT_DOUBLE_EQUAL (res.util_samples[10], 1.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL (res.util_samples[150], 2.0 / 3, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL (res.util_samples[0], 0.0, 1e-12);
  ebb_sim_result_clear (&res);
  ebb_sim_trace_free (t);
}

/* Waiting times are estimates: a long task that overruns its estimate counts as finishing
 * "now" (W + 2d - est). Two nodes, all long. J1 (estimate 50 s, really 300 s) at 0 -> node 0,
 * bound at d; J2 (100 s) at 1 -> node 1, ends 101 + 3d. At 60 node 0 has overrun: wait 2d;
 * node 1: 2d + 100 - (59 - d) = 41 + 3d. J3 (10 s) goes to node 0 and waits for the real end of
 * J1 (300 + 3d): it ends 310 + 5d, runtime 250 + 5d (node 1 would have given 51 + 5d). */
static void
test_central_placement_uses_estimates (void)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  double d300 = 300, d100 = 100, d10 = 10;
  ebb_sim_trace_add (t, 0, 50, 1, &d300);
  ebb_sim_trace_add (t, 1, 100, 1, &d100);
  ebb_sim_trace_add (t, 60, 100, 1, &d10);
  ebb_sim_config cfg;
  setup (&cfg, "hawk", 2);
  cfg.pol.cutoff_sec = 10;
  cfg.pol.short_part_pct = 0;
  ebb_sim_result res;
  run (&cfg, t, &res);
  CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[0], 300 + 3 * D, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[1], 100 + 3 * D, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[2], 250 + 5 * D, 1e-9);
  ebb_sim_result_clear (&res);
  ebb_sim_trace_free (t);
}

/* Two nodes: node 0 is the short partition, node 1 general. Probe ratio 1 without
 * replacement, so a 2-task job probes both nodes whatever the seed.
 *   L  (1 x 1000 s) at 0 -> node 1, ends 1000 + 3d.
 *   S1 (2 x 100 s) at 1: task 0 on node 0 (ends 101 + 3d), its other probe behind L.
 *   S2 (2 x 10 s) at 2: task 0 on node 0 after S1 (ends 111 + 5d), other probe behind L.
 * At 111 + 5d node 0 is idle and steals both short probes queued after L on node 1:
 *   S1 task 1 ends 211 + 7d (runtime 210 + 7d), S2 task 1 ends 221 + 9d (runtime 219 + 9d).
 * Without stealing they wait for L: S1 ends 1100 + 5d, S2 1110 + 7d. */
static void
test_idle_node_steals_short_task_behind_long (void)
{
  for (int steal = 0; steal <= 1; steal++)
    {
      ebb_sim_trace *t = ebb_sim_trace_new ();
      add (t, 0, 1, 1000);
      add (t, 1, 2, 100);
      add (t, 2, 2, 10);
      ebb_sim_config cfg;
      setup (&cfg, "hawk", 2);
      cfg.pol.cutoff_sec = 500;
      cfg.pol.short_part_pct = 50;
      cfg.pol.probe_ratio = 1;
      cfg.pol.sample_replacement = 0;
      cfg.pol.cancel_probes = 1;
      cfg.pol.no_steal = !steal;
      ebb_sim_result res;
      run (&cfg, t, &res);
      CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[0], 1000 + 3 * D, 1e-9);
      if (steal)
        {
          CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[1], 210 + 7 * D, 1e-9);
          CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[2], 219 + 9 * D, 1e-9);
          CU_ASSERT_EQUAL (res.pol.steals, 1);
          CU_ASSERT_EQUAL (res.pol.probes_stolen, 2);
        }
      else
        {
          CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[1], 1099 + 5 * D, 1e-9);
          CU_ASSERT_DOUBLE_EQUAL (res.runtime_sec[2], 1108 + 7 * D, 1e-9);
          CU_ASSERT_EQUAL (res.pol.steals, 0);
        }
      ebb_sim_result_clear (&res);
      ebb_sim_trace_free (t);
    }
}

static char *
json_of (const ebb_sim_trace *t, uint64_t seed, const char *policy)
{
  ebb_sim_config cfg;
  setup (&cfg, policy, 40);
  cfg.pol.cutoff_sec = 60;
  cfg.pol.seed = seed;
  ebb_sim_result res;
  run (&cfg, t, &res);
  ebb_sim_report rep = { .cfg = &cfg, .trace = t, .res = &res, .report_cutoff_sec = 60 };
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream (&buf, &len);
  ebb_sim_print_json (f, &rep, 0);
  fclose (f);
  ebb_sim_result_clear (&res);
  return buf;
}

/* Same trace, parameters and seed: byte-identical JSON; another seed: different. */
static void
test_deterministic (void)
{
  ebb_rng rng;
  ebb_rng_seed (&rng, 7);
  ebb_sim_gen_class classes[2] = { { 0.9, 5, 20 }, { 0.1, 20, 300 } };
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_sim_gen_hetero (t, 300, 4, classes, 2, &rng);
  const char *pols[] = { "hawk", "sparrow", "fifo" };
  for (size_t i = 0; i < 3; i++)
    {
      char *a = json_of (t, 1, pols[i]), *b = json_of (t, 1, pols[i]);
      char *c = json_of (t, 2, pols[i]);
      CU_ASSERT_STRING_EQUAL (a, b);
      if (i < 2) /* fifo uses no randomness */
        CU_ASSERT (strcmp (a, c) != 0);
      CU_ASSERT_PTR_NOT_NULL (strstr (a, "\"short\":{\"count\":"));
      CU_ASSERT_PTR_NULL (strstr (a, "wall_seconds"));
      free (a);
      free (b);
      free (c);
    }
  ebb_sim_trace_free (t);
}

/* Nearest rank, as the reports use it: the smallest value with p% at or below it. */
static void
test_percentile (void)
{
  double v[] = { 5, 1, 4, 2, 3, 10, 9, 8, 7, 6 };
  qsort (v, 10, sizeof *v, ebb_sim_cmp_double);
  CU_ASSERT_EQUAL (v[0], 1);
  CU_ASSERT_EQUAL (v[9], 10);
  CU_ASSERT_EQUAL (ebb_sim_percentile (v, 10, 50), 5);
  CU_ASSERT_EQUAL (ebb_sim_percentile (v, 10, 51), 6);
  CU_ASSERT_EQUAL (ebb_sim_percentile (v, 10, 90), 9);
  CU_ASSERT_EQUAL (ebb_sim_percentile (v, 10, 100), 10);
  CU_ASSERT_EQUAL (ebb_sim_percentile (v, 10, 0), 1);
  CU_ASSERT_EQUAL (ebb_sim_percentile (v, 0, 50), 0);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_percentile),
  EBB_CU_TEST (test_late_binding_cancels_surplus_probes),
  EBB_CU_TEST (test_central_placement_least_waiting),
  EBB_CU_TEST (test_central_placement_uses_estimates),
  EBB_CU_TEST (test_idle_node_steals_short_task_behind_long),
  EBB_CU_TEST (test_deterministic),
};

EBB_CU_MAIN ("sim-mechanisms", NULL, NULL, tests)
