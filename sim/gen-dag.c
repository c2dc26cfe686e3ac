/* `ebb-sim gen dag`: synthetic DAG jobs with the shapes Graphene's study of production
 * DAGs names (OSDI 2016, section 2.2, Figure 3): W-shaped joins of several datasets,
 * inverted V (one dataset, several analyses), deep chains, and layered mixtures; stages of
 * 1-16 tasks with durations from under a second to hundreds of seconds and heterogeneous
 * demand vectors (CPU-, memory-, network-heavy or small). Arrivals are Poisson at the rate
 * that offers --load times the cluster's capacity in dominant-share work. Same seed, same
 * bytes. */
#include "config.h"

#include "sim/dag.h"
#include "sim/trace.h"
#include "lib/conf.h"
#include "lib/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <string.h>

#define MAX_STAGES 24
#define MAX_WIDTH  48

/* A job under construction. */
typedef struct gjob
{
  uint32_t nstages;
  uint32_t width[MAX_STAGES], first[MAX_STAGES];
  double mean_dur[MAX_STAGES];
  double prof[MAX_STAGES][EBB_DAG_NRES]; /* shares of a node */
  uint32_t npar[MAX_STAGES], par[MAX_STAGES][4];
} gjob;

static double
uniform (ebb_rng *r, double a, double b)
{
  return a + (b - a) * ebb_rng_double (r);
}

/* One stage: width log-uniform in [1, 16], mean duration log-uniform in [0.5, 300] s, and
 * a demand profile of one of four kinds. */
static uint32_t
add_stage (gjob *g, ebb_rng *r, uint32_t width)
{
  uint32_t s = g->nstages++;
  g->width[s] = width ? width : (uint32_t)floor (exp (uniform (r, 0, log (MAX_WIDTH + 1))));
  if (g->width[s] < 1)
    g->width[s] = 1;
  if (g->width[s] > MAX_WIDTH)
    g->width[s] = MAX_WIDTH;
  g->mean_dur[s] = exp (uniform (r, log (0.5), log (300)));
  double *p = g->prof[s];
  switch (ebb_rng_below (r, 4))
    {
    case 0: /* CPU-heavy */
      p[0] = uniform (r, 0.3, 0.6), p[1] = uniform (r, 0.05, 0.15), p[2] = uniform (r, 0, 0.05);
      break;
    case 1: /* memory-heavy */
      p[0] = uniform (r, 0.05, 0.15), p[1] = uniform (r, 0.3, 0.6), p[2] = uniform (r, 0, 0.05);
      break;
    case 2: /* network-heavy (shuffles, joins) */
      p[0] = uniform (r, 0.05, 0.15), p[1] = uniform (r, 0.05, 0.15), p[2] = uniform (r, 0.3, 0.6);
      break;
    default: /* small, balanced */
      p[0] = uniform (r, 0.05, 0.2), p[1] = uniform (r, 0.05, 0.2), p[2] = uniform (r, 0, 0.2);
      break;
    }
  g->npar[s] = 0;
  return s;
}

static void
stage_link (gjob *g, uint32_t parent, uint32_t child)
{
  if (g->npar[child] < 4)
    g->par[child][g->npar[child]++] = parent;
}

/* The four shapes. */
static void
shape (gjob *g, ebb_rng *r)
{
  g->nstages = 0;
  switch (ebb_rng_below (r, 4))
    {
    case 0:
      { /* W: three datasets, two joins sharing the middle one, a final join */
        uint32_t a = add_stage (g, r, 0), b = add_stage (g, r, 0), c = add_stage (g, r, 0);
        uint32_t j1 = add_stage (g, r, 0), j2 = add_stage (g, r, 0), f = add_stage (g, r, 0);
        stage_link (g, a, j1), stage_link (g, b, j1), stage_link (g, b, j2), stage_link (g, c, j2);
        stage_link (g, j1, f), stage_link (g, j2, f);
        break;
      }
    case 1:
      { /* inverted V: one dataset, 2-4 analyses, some with a follow-up stage */
        uint32_t src = add_stage (g, r, 0), k = 2 + (uint32_t)ebb_rng_below (r, 3);
        for (uint32_t i = 0; i < k; i++)
          {
            uint32_t s = add_stage (g, r, 0);
            stage_link (g, src, s);
            if (ebb_rng_below (r, 2))
              stage_link (g, s, add_stage (g, r, 0));
          }
        break;
      }
    case 2:
      { /* deep chain: 5-12 stages, narrow */
        uint32_t depth = 5 + (uint32_t)ebb_rng_below (r, 8), prev = UINT32_MAX;
        for (uint32_t i = 0; i < depth; i++)
          {
            uint32_t s = add_stage (g, r, 1 + (uint32_t)ebb_rng_below (r, 4));
            if (prev != UINT32_MAX)
              stage_link (g, prev, s);
            prev = s;
          }
        break;
      }
    default:
      { /* layered: 3-5 layers of 1-3 stages, each with 1-2 parents in the layer above */
        uint32_t layers = 3 + (uint32_t)ebb_rng_below (r, 3), prev0 = 0, prevn = 0;
        for (uint32_t l = 0; l < layers; l++)
          {
            uint32_t k = 1 + (uint32_t)ebb_rng_below (r, 3), first = g->nstages;
            for (uint32_t i = 0; i < k; i++)
              {
                uint32_t s = add_stage (g, r, 0);
                for (uint32_t q = 0; l > 0 && q < 1 + ebb_rng_below (r, 2); q++)
                  {
                    uint32_t p = prev0 + (uint32_t)ebb_rng_below (r, prevn);
                    int dup = 0;
                    for (uint32_t z = 0; z < g->npar[s]; z++)
                      dup |= g->par[s][z] == p;
                    if (!dup)
                      stage_link (g, p, s);
                  }
              }
            prev0 = first;
            prevn = k;
          }
        break;
      }
    }
}

typedef struct gen_dag_opts
{
  uint64_t jobs, nodes, seed;
  double load;
  const char *out;
  int64_t cap[EBB_DAG_NRES];
} gen_dag_opts;

/* Appends one job (at submit 0; arrivals are set afterwards); returns its dominant work. */
static double
gen_job (ebb_sim_trace *t, gjob *g, const gen_dag_opts *o, ebb_rng *r, double **dur, int64_t **dem,
         uint32_t **stage, uint32_t **edges, uint32_t *caps)
{
  shape (g, r);
  uint32_t n = 0, ne = 0;
  for (uint32_t s = 0; s < g->nstages; s++)
    {
      g->first[s] = n;
      n += g->width[s];
    }
  if (n > caps[0])
    {
      caps[0] = n * 2;
      *dur = ebb_xrealloc (*dur, caps[0] * sizeof **dur);
      *dem = ebb_xrealloc (*dem, caps[0] * EBB_DAG_NRES * sizeof **dem);
      *stage = ebb_xrealloc (*stage, caps[0] * sizeof **stage);
    }
  double work = 0;
  for (uint32_t s = 0; s < g->nstages; s++)
    for (uint32_t i = 0; i < g->width[s]; i++)
      {
        uint32_t k = g->first[s] + i;
        (*dur)[k] = round (g->mean_dur[s] * uniform (r, 0.75, 1.25) * 1000) / 1000;
        double dom = 0;
        for (int x = 0; x < EBB_DAG_NRES; x++)
          {
            double share = g->prof[s][x] * uniform (r, 0.9, 1.1);
            if (share > 1)
              share = 1;
            (*dem)[k * EBB_DAG_NRES + x] = (int64_t)floor (share * o->cap[x]);
            if (x == EBB_DAG_CPU && (*dem)[k * EBB_DAG_NRES + x] < 1)
              (*dem)[k * EBB_DAG_NRES + x] = 1;
            if (share > dom)
              dom = share;
          }
        (*stage)[k] = s;
        work += (*dur)[k] * dom;
      }
  /* Edges (most are not barriers, Figure 4): one-to-one between stages of equal width half
   * of the time ("can be local"); all-to-all (a barrier) between narrow stages, at most 256
   * edges; else partitioned, parent a feeding child b when a = b modulo the narrower
   * width (a range partition: max(widths) edges). */
  for (uint32_t s = 0; s < g->nstages; s++)
    for (uint32_t q = 0; q < g->npar[s]; q++)
      {
        uint32_t p = g->par[s][q], wp = g->width[p], wc = g->width[s];
        int local = wp == wc && ebb_rng_below (r, 2);
        int barrier = !local && wp * wc <= 256;
        uint32_t narrow = wp < wc ? wp : wc;
        if (ne + wp * wc > caps[1])
          {
            caps[1] = (ne + wp * wc) * 2;
            *edges = ebb_xrealloc (*edges, caps[1] * 2 * sizeof **edges);
          }
        for (uint32_t a = 0; a < wp; a++)
          for (uint32_t b = 0; b < wc; b++)
            if (barrier || (local ? a == b : a % narrow == b % narrow))
              {
                (*edges)[2 * ne] = g->first[p] + a;
                (*edges)[2 * ne + 1] = g->first[s] + b;
                ne++;
              }
      }
  ebb_sim_dag_add (t, 0, EBB_POL_CLASS_BY_CUTOFF, n, *dur, *dem, *stage, ne, *edges);
  return work;
}

void
ebb_sim_gen_dag (ebb_sim_trace *t, uint32_t njobs, uint32_t nodes, double load, const int64_t *cap,
                 ebb_rng *rng)
{
  gen_dag_opts o = { .jobs = njobs, .nodes = nodes, .load = load };
  memcpy (o.cap, cap, sizeof o.cap);
  gjob g;
  double *dur = NULL;
  int64_t *dem = NULL;
  uint32_t *stage = NULL, *edges = NULL, caps[2] = { 0, 0 };
  double work = 0;
  for (uint32_t j = 0; j < njobs; j++)
    work += gen_job (t, &g, &o, rng, &dur, &dem, &stage, &edges, caps);
  /* Poisson arrivals: mean interarrival = mean dominant work / (load x nodes). */
  double ia = njobs ? work / njobs / (load * nodes) : 1, now = 0;
  for (uint32_t j = 0; j < njobs; j++)
    {
      t->submit_sec[j] = round (now * 1000) / 1000;
      now += ebb_rng_exponential (rng, ia);
    }
  free (dur);
  free (dem);
  free (stage);
  free (edges);
}

static void
usage (FILE *f)
{
  fprintf (f, "Usage: ebb-sim gen dag --jobs N --nodes M --load L [OPTION...]\n"
              "  --jobs N                 DAG jobs to generate (default 1000)\n"
              "  --nodes M                nodes the load refers to (default 100)\n"
              "  --load L                 offered dominant-share work / capacity (default 0.8)\n"
              "  --seed N                 random seed (default 1)\n"
              "  --node-cpu-millis M      a node's CPU (default 16000)\n"
              "  --node-memory SIZE       a node's memory (default 64G)\n"
              "  --node-net-mbps M        a node's network (default 10000)\n"
              "  -o, --output FILE        write here instead of stdout\n");
}

int
ebb_sim_gen_dag_main (int argc, char **argv)
{
  static const struct option opts[] = {
    { "jobs", required_argument, NULL, 'j' },
    { "nodes", required_argument, NULL, 'n' },
    { "load", required_argument, NULL, 'l' },
    { "seed", required_argument, NULL, 's' },
    { "node-cpu-millis", required_argument, NULL, 'c' },
    { "node-memory", required_argument, NULL, 'm' },
    { "node-net-mbps", required_argument, NULL, 'N' },
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  gen_dag_opts o = { .jobs = 1000, .nodes = 100, .seed = 1, .load = 0.8 };
  o.cap[EBB_DAG_CPU] = 16000;
  o.cap[EBB_DAG_MEM] = INT64_C (64) << 30;
  o.cap[EBB_DAG_NET] = 10000;
  int c;
  char *end;
  uint64_t u;
  optind = 1;
  while ((c = getopt_long (argc, argv, "o:h", opts, NULL)) != -1)
    {
      errno = 0;
      switch (c)
        {
        case 'j':
        case 'n':
        case 's':
        case 'c':
        case 'N':
          if (ebb_sim_gen_parse_u64 (optarg, c == 's' ? 0 : 1,
                                     c == 's'               ? UINT64_MAX
                                     : c == 'j' || c == 'n' ? 100000000
                                                            : UINT64_C (1) << 40,
                                     &u)
              < 0)
            return fprintf (stderr, "ebb-sim gen dag: invalid --%s '%s'\n",
                            c == 'j'   ? "jobs"
                            : c == 'n' ? "nodes"
                            : c == 's' ? "seed"
                            : c == 'c' ? "node-cpu-millis"
                                       : "node-net-mbps",
                            optarg),
                   2;
          if (c == 'j')
            o.jobs = u;
          else if (c == 'n')
            o.nodes = u;
          else if (c == 's')
            o.seed = u;
          else
            o.cap[c == 'c' ? EBB_DAG_CPU : EBB_DAG_NET] = (int64_t)u;
          break;
        case 'm':
          if (ebb_conf_parse_bytes (optarg, &u) < 0 || u < 1 || u > (UINT64_C (1) << 56))
            return fprintf (stderr, "ebb-sim gen dag: invalid --node-memory '%s'\n", optarg), 2;
          o.cap[EBB_DAG_MEM] = (int64_t)u;
          break;
        case 'l':
          o.load = strtod (optarg, &end);
          if (*end || errno || !(o.load > 0) || o.load > 100)
            return fprintf (stderr, "ebb-sim gen dag: invalid --load '%s'\n", optarg), 2;
          break;
        case 'o':
          o.out = optarg;
          break;
        case 'h':
          usage (stdout);
          return 0;
        default:
          fprintf (stderr, "Try 'ebb-sim gen dag --help'.\n");
          return 2;
        }
    }
  if (optind < argc)
    return fprintf (stderr, "ebb-sim gen dag: unexpected argument '%s'\n", argv[optind]), 2;
  ebb_rng rng;
  ebb_rng_seed (&rng, o.seed);
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_sim_gen_dag (t, (uint32_t)o.jobs, (uint32_t)o.nodes, o.load, o.cap, &rng);
  return ebb_sim_gen_output (t, o.out, "ebb-sim gen dag");
}
