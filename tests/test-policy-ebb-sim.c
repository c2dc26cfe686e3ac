/* The ebb policy through the ebb-sim engine on small generated traces of both kinds (slots
 * and resource vectors): every job completes, none fails, the same seed gives the same run,
 * and short jobs do better than under Hawk on the same trace. Budget: under 5 s with
 * sanitizers. */
#include "config.h"

#include "sim/engine.h"
#include "sim/trace.h"
#include "tests/cu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CUTOFF 100.0
#define GIB    (1ll << 30)

/* 300 jobs on 80 slots, load about 0.7: mostly short jobs of 10 s tasks, a tenth long jobs
 * of 500 s tasks that hold nodes for a long time. */
static ebb_sim_trace *
make_trace (uint64_t seed, int resources)
{
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_rng rng;
  ebb_rng_seed (&rng, seed);
  const ebb_sim_gen_class classes[] = { { 0.9, 10, 10 }, { 0.1, 20, 500 } };
  ebb_sim_gen_hetero (t, 300, 20, classes, 2, &rng);
  if (resources)
    for (uint32_t j = 0; j < t->njobs; j++)
      {
        int is_long = t->mean_sec[j] >= CUTOFF;
        ebb_sim_trace_set_res (t, j, is_long ? 8000 : 4000, is_long ? 16 * GIB : 4 * GIB,
                               is_long ? EBB_POL_CLASS_LONG : EBB_POL_CLASS_SHORT);
      }
  return t;
}

static void
config (ebb_sim_config *c, const char *policy, uint64_t seed, int resources)
{
  memset (c, 0, sizeof *c);
  c->policy = policy;
  ebb_pol_params_default (&c->pol);
  c->pol.seed = seed;
  c->pol.cutoff_sec = CUTOFF;
  c->pol.cancel_probes = 1;
  ebb_sim_config_costs_bigc (c);
  if (resources)
    {
      /* 10 nodes of 32 CPU / 128 GiB hold 80 short or 40 long tasks by CPU. */
      c->pol.nnodes = 10;
      c->pol.node_cap = (ebb_pol_res){ 32000, 128 * GIB };
    }
  else if (strcmp (policy, "ebb") == 0)
    {
      c->pol.nnodes = 80;
      c->pol.node_cap = (ebb_pol_res){ 1000, 0 }; /* one slot */
    }
  else
    c->pol.nnodes = 80;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double
short_p90 (const ebb_sim_trace *t, const ebb_sim_result *r)
{
  double *v = malloc (t->njobs * sizeof *v);
  uint32_t n = 0;
  for (uint32_t j = 0; j < t->njobs; j++)
    if (t->mean_sec[j] < CUTOFF)
      v[n++] = r->runtime_sec[j];
  qsort (v, n, sizeof *v, cmp_double);
  double x = n ? v[(uint32_t)ceil (0.9 * n) - 1] : 0;
  free (v);
  return x;
}

/* Runs ebb on the trace and checks what must hold of any run. */
static void
run_checked (const ebb_sim_trace *t, uint64_t seed, int resources, ebb_sim_result *r)
{
  ebb_sim_config c;
  config (&c, "ebb", seed, resources);
  ebb_error *err = NULL;
  int rc = ebb_sim_run (&c, t, r, &err);
  if (rc < 0)
    fprintf (stderr, "ebb_sim_run: %s\n", ebb_error_msg (&err));
  CU_ASSERT_EQUAL_FATAL (rc, 0);
  CU_ASSERT_EQUAL (r->tasks >= t->ntasks_total, 1);
  for (uint32_t j = 0; j < t->njobs; j++)
    {
      CU_ASSERT_EQUAL (r->failed ? r->failed[j] : 0, 0);
      /* No job beats its longest task (preemption must never shorten work). */
      double longest = 0;
      for (uint32_t k = 0; k < t->ntasks[j]; k++)
        if (t->dur_sec[t->first_task[j] + k] > longest)
          longest = t->dur_sec[t->first_task[j] + k];
      CU_ASSERT (r->runtime_sec[j] >= longest - 1e-6);
    }
  CU_ASSERT_EQUAL (r->pol.failed_jobs, 0);
  CU_ASSERT_EQUAL (r->pol.kills, 0);
}

static void
test_slots_complete_and_beat_hawk (void)
{
  double ebb_sum = 0, hawk_sum = 0;
  for (uint64_t seed = 1; seed <= 3; seed++)
    {
      ebb_sim_trace *t = make_trace (seed, 0);
      ebb_sim_result r, h;
      run_checked (t, seed, 0, &r);
      CU_ASSERT (r.pol.suspends > 0);
      CU_ASSERT (r.pol.resumes > 0);
      ebb_sim_config c;
      config (&c, "hawk", seed, 0);
      ebb_error *err = NULL;
      CU_ASSERT_EQUAL_FATAL (ebb_sim_run (&c, t, &h, &err), 0);
      ebb_sum += short_p90 (t, &r);
      hawk_sum += short_p90 (t, &h);
      ebb_sim_result_clear (&r);
      ebb_sim_result_clear (&h);
      ebb_sim_trace_free (t);
    }
  fprintf (stderr, "short p90 summed over seeds 1-3: ebb %.1f s, hawk %.1f s\n", ebb_sum, hawk_sum);
  CU_ASSERT (ebb_sum < hawk_sum);
}

static void
test_resources_complete (void)
{
  ebb_sim_trace *t = make_trace (7, 1);
  ebb_sim_result r;
  run_checked (t, 7, 1, &r);
  CU_ASSERT (r.pol.suspends > 0);
  ebb_sim_result_clear (&r);
  ebb_sim_trace_free (t);
}

static void
test_same_seed_same_run (void)
{
  for (int resources = 0; resources <= 1; resources++)
    {
      ebb_sim_trace *t = make_trace (3, resources);
      ebb_sim_result a, b;
      run_checked (t, 3, resources, &a);
      run_checked (t, 3, resources, &b);
      CU_ASSERT_EQUAL (memcmp (a.runtime_sec, b.runtime_sec, t->njobs * sizeof (double)), 0);
      CU_ASSERT_EQUAL (a.events, b.events);
      CU_ASSERT_EQUAL (a.pol.suspends, b.pol.suspends);
      ebb_sim_result_clear (&a);
      ebb_sim_result_clear (&b);
      ebb_sim_trace_free (t);
    }
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_slots_complete_and_beat_hawk),
  EBB_CU_TEST (test_resources_complete),
  EBB_CU_TEST (test_same_seed_same_run),
};

EBB_CU_MAIN ("policy-ebb-sim", NULL, NULL, tests)
