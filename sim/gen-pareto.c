/* `ebb-sim gen pareto`: Hopper's workloads (Hopper, SIGCOMM 2015, sections 4.1 and 7.1):
 * task durations Pareto with shape beta and mean 1 s (scale (beta - 1) / beta), job sizes
 * heavy-tailed (number of tasks bounded Pareto, shape 1.1 on [5, 1000]: about 8% of jobs
 * over 50 tasks, under 1% over 500, as in the job bins of Figure 7), Poisson arrivals at the
 * rate that makes the offered work `load` times the capacity of `nodes` single-slot nodes.
 * The offered work is the originals' as drawn (Sparrow's load, which Hopper section 7.1
 * says its loads follow); Hopper reports the measured utilization instead, which is lower:
 * a copy that beats a straggler saves the rest of its work, and how much depends on the
 * policy (on 3200 nodes, load 1.0 keeps about 72% of the slots busy under srpt, 81% under
 * hopper). The rate comes from the work actually drawn, so a trace's load is what was asked
 * whatever the tail gave.
 * With --from-trace the jobs are a trace's instead (Hopper section 7.1 replays production
 * traces: "we retain the inter-arrival times of jobs, their input sizes and number of tasks"
 * and speeds the trace up to a utilization): each job keeps its number of tasks and its
 * place in the arrival order, the durations are drawn as above, and every gap is scaled by
 * one factor so that the offered work is `load` times the capacity, by the same definition
 * as the Poisson arrivals' (the mean gap is a job's mean work over load x nodes). */
#include "config.h"

#include "sim/trace.h"
#include "lib/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <string.h>

#define PARETO_TASK_MEAN_SEC 1.0
#define PARETO_JOB_SHAPE     1.1
#define PARETO_JOB_MIN       5.0
#define PARETO_JOB_MAX       1000.0

static void
pareto_usage (FILE *f)
{
  fprintf (f, "Usage: ebb-sim gen pareto --nodes M [OPTION...]\n"
              "  --jobs N          jobs to generate (default 1000)\n"
              "  --from-trace FILE the jobs of a trace instead (Hawk/Eagle format or JSON\n"
              "                    lines, in arrival order): each keeps its number of tasks\n"
              "                    and arrival order, durations are drawn, every gap is\n"
              "                    scaled by one factor to offer --load (no --jobs)\n"
              "  --nodes M         single-slot nodes the load refers to (required)\n"
              "  --load L          offered work of the originals / capacity of M nodes\n"
              "                    (default 0.7; copies save work: the measured\n"
              "                    utilization is lower)\n"
              "  --beta B          Pareto shape of task durations, > 1 (default 1.5)\n"
              "  --seed N          random seed (default 1)\n"
              "  -o, --output FILE write here instead of stdout\n"
              "  -h, --help        this text\n");
}

/* Draws from the Pareto distribution with shape a and scale xm, truncated to at most hi by
 * inversion of the bounded distribution (hi = INFINITY: unbounded). */
static double
pareto_draw (ebb_rng *rng, double a, double xm, double hi)
{
  double u = ebb_rng_double (rng); /* [0, 1) */
  double tail = isfinite (hi) ? pow (xm / hi, a) : 0;
  return xm / pow (1 - u * (1 - tail), 1 / a);
}

/* Draws n task durations (shape beta, mean 1 s) into dur; returns their sum. */
static double
pareto_durations (ebb_rng *rng, double beta, uint64_t n, double *dur)
{
  double xm = PARETO_TASK_MEAN_SEC * (beta - 1) / beta;
  double work = 0;
  for (uint64_t i = 0; i < n; i++)
    {
      /* Written with 3 decimals: round here so the rate below sees the written work. */
      dur[i] = round (pareto_draw (rng, beta, xm, INFINITY) * 1000) / 1000;
      work += dur[i];
    }
  return work;
}

/* The mean gap between arrivals that makes njobs jobs of this total work offer `load` x the
 * capacity of `nodes` slots. */
static double
pareto_interarrival (double work, uint32_t njobs, uint32_t nodes, double load)
{
  return work / ((double)njobs * load * nodes);
}

void
ebb_sim_gen_pareto (ebb_sim_trace *t, uint32_t njobs, uint32_t nodes, double load, double beta,
                    ebb_rng *rng)
{
  uint32_t *ntasks = ebb_xmalloc (sizeof *ntasks * njobs);
  uint64_t total = 0;
  for (uint32_t j = 0; j < njobs; j++)
    {
      ntasks[j] = (uint32_t)floor (
          pareto_draw (rng, PARETO_JOB_SHAPE, PARETO_JOB_MIN, PARETO_JOB_MAX + 1));
      if (ntasks[j] > PARETO_JOB_MAX)
        ntasks[j] = (uint32_t)PARETO_JOB_MAX;
      total += ntasks[j];
    }
  double *dur = ebb_xmalloc (sizeof *dur * (total ? total : 1));
  double work = pareto_durations (rng, beta, total, dur);
  double interarrival = pareto_interarrival (work, njobs, nodes, load);
  double now = 0;
  uint64_t k = 0;
  for (uint32_t j = 0; j < njobs; j++)
    {
      ebb_sim_trace_add (t, now, PARETO_TASK_MEAN_SEC, ntasks[j], dur + k);
      k += ntasks[j];
      now += ebb_rng_exponential (rng, interarrival);
    }
  free (dur);
  free (ntasks);
}

int
ebb_sim_gen_pareto_replay (ebb_sim_trace *t, const ebb_sim_trace *src, uint32_t nodes, double load,
                           double beta, ebb_rng *rng, ebb_error **err)
{
  if (src->njobs < 2)
    return ebb_error_set (err, EINVAL, "%u job, no gap to scale: give 2 or more", src->njobs);
  if (!ebb_sim_trace_is_sorted (src))
    return ebb_error_set (err, EINVAL, "jobs are not in arrival order");
  double first = src->submit_sec[0];
  double span = src->submit_sec[src->njobs - 1] - first;
  if (!(span > 0))
    return ebb_error_set (err, EINVAL, "every job arrives at %g s: no gaps to scale", first);
  double *dur = ebb_xmalloc (sizeof *dur * src->ntasks_total);
  double work = pareto_durations (rng, beta, src->ntasks_total, dur);
  /* The trace's mean gap becomes the Poisson generator's mean interarrival. */
  double scale = pareto_interarrival (work, src->njobs, nodes, load) / (span / (src->njobs - 1));
  uint64_t k = 0;
  for (uint32_t j = 0; j < src->njobs; j++)
    {
      ebb_sim_trace_add (t, (src->submit_sec[j] - first) * scale, PARETO_TASK_MEAN_SEC,
                         src->ntasks[j], dur + k);
      k += src->ntasks[j];
    }
  free (dur);
  return 0;
}

int
ebb_sim_gen_pareto_main (int argc, char **argv)
{
  static const struct option opts[] = {
    { "jobs", required_argument, NULL, 'j' },
    { "nodes", required_argument, NULL, 'n' },
    { "load", required_argument, NULL, 'l' },
    { "beta", required_argument, NULL, 'b' },
    { "seed", required_argument, NULL, 's' },
    { "output", required_argument, NULL, 'o' },
    { "from-trace", required_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  uint64_t jobs = 1000, nodes = 0, seed = 1;
  double load = 0.7, beta = 1.5;
  const char *out = NULL, *from = NULL;
  int jobs_given = 0;
  int c;
  char *end;
  optind = 1;
  while ((c = getopt_long (argc, argv, "o:h", opts, NULL)) != -1)
    {
      errno = 0;
      switch (c)
        {
        case 'j':
        case 'n':
        case 's':
          {
            uint64_t v;
            if (ebb_sim_gen_parse_u64 (optarg, c == 's' ? 0 : 1, c == 's' ? UINT64_MAX : 100000000,
                                       &v)
                < 0)
              return fprintf (stderr, "ebb-sim gen pareto: invalid --%s '%s'\n",
                              c == 'j'   ? "jobs"
                              : c == 'n' ? "nodes"
                                         : "seed",
                              optarg),
                     2;
            *(c == 'j' ? &jobs : c == 'n' ? &nodes : &seed) = v;
            jobs_given |= c == 'j';
            break;
          }
        case 'l':
        case 'b':
          {
            double v = strtod (optarg, &end);
            int ok = !*end && !errno && end != optarg
                     && (c == 'l' ? v > 0 && v <= 100 : v > 1 && v <= 100);
            if (!ok)
              return fprintf (stderr, "ebb-sim gen pareto: invalid --%s '%s'%s\n",
                              c == 'l' ? "load" : "beta", optarg,
                              c == 'b' ? " (expected > 1: the mean must be finite)" : ""),
                     2;
            *(c == 'l' ? &load : &beta) = v;
            break;
          }
        case 'o':
          out = optarg;
          break;
        case 'f':
          from = optarg;
          break;
        case 'h':
          pareto_usage (stdout);
          return 0;
        default:
          fprintf (stderr, "Try 'ebb-sim gen pareto --help'.\n");
          return 2;
        }
    }
  if (optind < argc)
    return fprintf (stderr, "ebb-sim gen pareto: unexpected argument '%s'\n", argv[optind]), 2;
  if (nodes == 0)
    return fprintf (stderr, "ebb-sim gen pareto: --nodes is required\n"), 2;
  if (from && jobs_given)
    return fprintf (stderr, "ebb-sim gen pareto: --jobs and --from-trace exclude each other (the "
                            "trace gives the jobs)\n"),
           2;
  ebb_rng rng;
  ebb_rng_seed (&rng, seed);
  ebb_sim_trace *t = ebb_sim_trace_new ();
  if (from)
    {
      cleanup_error ebb_error *err = NULL;
      ebb_sim_trace *src = ebb_sim_trace_new ();
      int r = ebb_sim_trace_read (src, from, &err);
      if (r == 0 && ebb_sim_gen_pareto_replay (t, src, (uint32_t)nodes, load, beta, &rng, &err) < 0)
        r = ebb_error_wrap (&err, "%s", from);
      ebb_sim_trace_free (src);
      if (r < 0)
        {
          ebb_sim_trace_free (t);
          return fprintf (stderr, "ebb-sim gen pareto: %s\n", ebb_error_msg (&err)), 1;
        }
    }
  else
    ebb_sim_gen_pareto (t, (uint32_t)jobs, (uint32_t)nodes, load, beta, &rng);
  return ebb_sim_gen_output (t, out, "ebb-sim gen pareto");
}
