/* `ebb-sim gen bigc-google` and `ebb-sim gen bigc-pattern low|high|multi`: JSON-lines traces
 * shaped after the workloads of BIG-C's evaluation (Chen et al., USENIX ATC 2017, sections
 * 5.2 and 5.5), for a cluster of 26 nodes of 32 CPUs and 128 GiB. The paper gives the shapes
 * (counts, container sizes, load levels, the spike); the distributions inside them are ours
 * and are stated at each generator. Seeded: the same seed gives the same file. */
#include "config.h"

#include "sim/trace.h"
#include "lib/util.h"
#include "policies/policy.h"

#include <math.h>
#include <string.h>

#define GIB (INT64_C (1) << 30)

typedef struct gen_job
{
  double submit;
  uint32_t ntasks;
  uint8_t is_long;
  double mean;  /* the job's mean task duration */
  uint64_t seq; /* creation order: ties keep it */
} gen_job;

static int
cmp_gen_job (const void *a, const void *b)
{
  const gen_job *x = a, *y = b;
  if (x->submit != y->submit)
    return x->submit < y->submit ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Appends the jobs in submission order; each task's duration is the job's mean times a
 * Gaussian factor N(1, spread), kept in [0.5, 1.5]. */
static void
emit (ebb_sim_trace *t, gen_job *jobs, uint32_t n, double spread, ebb_rng *rng)
{
  qsort (jobs, n, sizeof *jobs, cmp_gen_job);
  cleanup_free double *d = NULL;
  uint32_t dcap = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      if (jobs[i].ntasks > dcap)
        {
          dcap = jobs[i].ntasks;
          d = ebb_xrealloc (d, dcap * sizeof *d);
        }
      double sum = 0;
      for (uint32_t k = 0; k < jobs[i].ntasks; k++)
        {
          double f = ebb_rng_normal (rng, 1.0, spread);
          f = f < 0.5 ? 0.5 : f > 1.5 ? 1.5 : f;
          d[k] = round (jobs[i].mean * f * 1000.0) / 1000.0;
          sum += d[k];
        }
      uint32_t j = ebb_sim_trace_add (t, round (jobs[i].submit * 1000.0) / 1000.0,
                                      sum / jobs[i].ntasks, jobs[i].ntasks, d);
      if (jobs[i].is_long)
        ebb_sim_trace_set_res (t, j, 8000, 16 * GIB, EBB_POL_CLASS_LONG);
      else
        ebb_sim_trace_set_res (t, j, 4000, 4 * GIB, EBB_POL_CLASS_SHORT);
    }
}

/* Google replay (section 5.5): 2202 jobs, 2020 short <4 CPU, 4 GiB> and 182 long <8 CPU,
 * 16 GiB>, about 3.8 h. Long jobs: 6-14 tasks, mean task duration exponential (mean 600 s)
 * kept in [120, 3000] s, arrivals uniform over the first 12500 s: about 75% of the cluster
 * when run alone (the paper: 75%). Short jobs: 1-8 tasks, mean task duration 10 s plus an
 * exponential of mean 40 s, kept below 300 s; 1870 arrive uniformly over 13680 s and a spike
 * of 150 jobs of 6-10 tasks arrives in [8000, 8300] s, which alone asks about 95% of the
 * cluster (the paper: a spike to 95% at 8000 s); short work alone is about 17% (the paper:
 * 17%). Long jobs are ~8% of jobs and ~80% of CPU-seconds (Google 2011: top 10% of jobs,
 * more than 80% of task time). */
void
ebb_sim_gen_bigc_google (ebb_sim_trace *t, ebb_rng *rng)
{
  enum
  {
    NLONG = 182,
    NSHORT = 1870,
    NSPIKE = 150
  };
  gen_job *jobs = ebb_xcalloc (NLONG + NSHORT + NSPIKE, sizeof *jobs);
  uint32_t n = 0;
  for (uint32_t i = 0; i < NLONG; i++, n++)
    {
      double m = ebb_rng_exponential (rng, 600);
      jobs[n] = (gen_job){ .submit = ebb_rng_double (rng) * 12500,
                           .ntasks = 6 + (uint32_t)ebb_rng_below (rng, 9),
                           .is_long = 1,
                           .mean = m < 120    ? 120
                                   : m > 3000 ? 3000
                                              : m,
                           .seq = n };
    }
  for (uint32_t i = 0; i < NSHORT + NSPIKE; i++, n++)
    {
      int spike = i >= NSHORT;
      double m = 10 + ebb_rng_exponential (rng, 40);
      jobs[n] = (gen_job){ .submit = spike ? 8000 + ebb_rng_double (rng) * 300
                                           : ebb_rng_double (rng) * 13680,
                           .ntasks = spike ? 6 + (uint32_t)ebb_rng_below (rng, 5)
                                           : 1 + (uint32_t)ebb_rng_below (rng, 8),
                           .mean = m > 300 ? 300 : m,
                           .seq = n };
    }
  emit (t, jobs, n, 0.1, rng);
  free (jobs);
}

/* Patterns (section 5.2), 900 s: 21 long jobs of 4 tasks of about 700 s submitted in the
 * first 20 s hold about 80% of the cluster; short jobs of 4 tasks of about 30 s arrive as a
 * Poisson stream asking about 20% of the cluster, and in [300, 700) s a burst raises the
 * short demand to about 40% (low), about 90% (high), or to above 80% in two peaks [300, 400)
 * and [550, 650) (multi). */
int
ebb_sim_gen_bigc_pattern (ebb_sim_trace *t, const char *kind, ebb_rng *rng)
{
  int which = strcmp (kind, "low") == 0     ? 0
              : strcmp (kind, "high") == 0  ? 1
              : strcmp (kind, "multi") == 0 ? 2
                                            : -1;
  if (which < 0)
    return -1;
  /* Short containers the cluster holds: 26 x 8 = 208. A share s of the cluster for tasks
   * of 30 s, 4 per job: s x 208 / 30 / 4 jobs per second. */
  const double per_share = 208.0 / 30.0 / 4.0;
  size_t cap = 4096, n = 0;
  gen_job *jobs = ebb_xcalloc (cap, sizeof *jobs);
  for (uint32_t i = 0; i < 21; i++, n++)
    jobs[n] = (gen_job){
      .submit = ebb_rng_double (rng) * 20, .ntasks = 4, .is_long = 1, .mean = 700, .seq = n
    };
  double now = 0;
  for (;;)
    {
      double share = 0.2;
      if (now >= 300 && now < 700)
        {
          if (which == 0)
            share = 0.4;
          else if (which == 1)
            share = 0.9;
          else if (now < 400 || (now >= 550 && now < 650))
            share = 0.85;
        }
      now += ebb_rng_exponential (rng, 1.0 / (share * per_share));
      if (now >= 900)
        break;
      if (n == cap)
        jobs = ebb_xrealloc (jobs, (cap *= 2) * sizeof *jobs);
      jobs[n] = (gen_job){ .submit = now, .ntasks = 4, .mean = 30, .seq = n };
      n++;
    }
  emit (t, jobs, (uint32_t)n, 0.1, rng);
  free (jobs);
  return 0;
}
