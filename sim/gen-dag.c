/* `ebb-sim gen dag`: synthetic DAG jobs after Graphene's study of production DAGs (OSDI 2016,
 * section 2.2, Figures 3-4): W-shaped joins of several datasets, inverted V (one dataset,
 * several analyses), complex shapes (several datasets, several outputs) and deep chains;
 * depth (median 5, a quarter above 10) and tens of stages; wide input stages and narrower
 * downstream ones (data reductive); most edges not barriers; self-joins; durations from
 * under a second to hundreds of seconds across stages; maps use no network, shuffles are
 * network-heavy. Arrivals are Poisson at the rate that offers --load times the cluster's
 * capacity in dominant-share work. Same seed, same bytes. */
#include "config.h"

#include "sim/dag.h"
#include "sim/trace.h"
#include "lib/conf.h"
#include "lib/util.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <string.h>

#define MAX_STAGES 64

/* A job under construction. */
typedef struct gjob
{
  uint32_t max_width; /* widest input stage */
  uint32_t nstages;
  uint32_t width[MAX_STAGES], first[MAX_STAGES];
  double mean_dur[MAX_STAGES];
  double prof[MAX_STAGES][EBB_DAG_NRES]; /* shares of a node */
  uint32_t npar[MAX_STAGES], par[MAX_STAGES][4];
  uint8_t kind[MAX_STAGES][4]; /* per parent: EDGE_* */
} gjob;

/* How a stage reads a parent (section 2.2, Figure 4: "most of the edges are not barriers"). */
enum
{
  EDGE_LOCAL,     /* one-to-one, "can be local": no data crosses the network */
  EDGE_PARTITION, /* a (range) partition: each task reads a slice of the parent's outputs */
  EDGE_BARRIER,   /* all-to-all: every parent task finishes before any child task starts */
};

static double
uniform (ebb_rng *r, double a, double b)
{
  return a + (b - a) * ebb_rng_double (r);
}

static double
log_uniform (ebb_rng *r, double a, double b)
{
  return exp (uniform (r, log (a), log (b)));
}

/* A stage's CPU and memory: one of three kinds (CPU-heavy, memory-heavy, small), drawn per
 * stage so the stages of a DAG do not co-pack alike. Its network demand is set by
 * stage_link: tasks that read their input from the file system (maps) use none; those that
 * shuffle (reduce, join) are network-heavy (section 5.2: "reduce and join tasks are
 * network-heavy as opposed to map tasks which have no network usage"). */
static uint32_t
add_stage (gjob *g, ebb_rng *r, uint32_t width)
{
  if (g->nstages == MAX_STAGES)
    return UINT32_MAX;
  uint32_t s = g->nstages++;
  g->width[s] = width < 1 ? 1 : width;
  /* Task durations vary from sub-second to hundreds of seconds across stages (section 1);
   * the tasks of one stage have similar durations (section 5.2, and NewLB's premise). */
  g->mean_dur[s] = log_uniform (r, 0.5, 300);
  double *p = g->prof[s];
  switch (ebb_rng_below (r, 3))
    {
    case 0: /* CPU-heavy */
      p[0] = uniform (r, 0.3, 0.6), p[1] = uniform (r, 0.05, 0.15);
      break;
    case 1: /* memory-heavy */
      p[0] = uniform (r, 0.05, 0.15), p[1] = uniform (r, 0.3, 0.6);
      break;
    default: /* small, balanced */
      p[0] = uniform (r, 0.05, 0.2), p[1] = uniform (r, 0.05, 0.2);
      break;
    }
  p[2] = 0;
  g->npar[s] = 0;
  return s;
}

/* child reads parent: local when the widths match half of the time, a barrier a quarter of
 * the time (at most 1024 task edges), else a partition. A stage reading across the network gets its
 * shuffle demand. */
static void
stage_link (gjob *g, ebb_rng *r, uint32_t parent, uint32_t child)
{
  if (parent == UINT32_MAX || child == UINT32_MAX || g->npar[child] >= 4)
    return;
  for (uint32_t q = 0; q < g->npar[child]; q++)
    if (g->par[child][q] == parent)
      return;
  uint32_t wp = g->width[parent], wc = g->width[child];
  int kind = wp == wc && ebb_rng_below (r, 2)               ? EDGE_LOCAL
             : ebb_rng_below (r, 4) == 0 && wp * wc <= 1024 ? EDGE_BARRIER
                                                            : EDGE_PARTITION;
  g->kind[child][g->npar[child]] = (uint8_t)kind;
  g->par[child][g->npar[child]++] = parent;
  if (kind != EDGE_LOCAL && g->prof[child][2] == 0)
    g->prof[child][2] = uniform (r, 0.2, 0.6);
}

/* A stage downstream of stages of width w: data reductive (section 2.2: stages that read
 * from the file system reduce the data, so there are fewer downstream tasks), mostly. */
static uint32_t
child_width (ebb_rng *r, uint32_t w)
{
  double f = ebb_rng_below (r, 5) == 0 ? uniform (r, 1, 2) : log_uniform (r, 0.2, 1);
  return (uint32_t)lround (w * f);
}

static uint32_t
input_stage (gjob *g, ebb_rng *r)
{
  return add_stage (g, r, (uint32_t)floor (log_uniform (r, 1, g->max_width + 1.0)));
}

/* len stages after from (a chain, each reading the previous one); returns the last. */
static uint32_t
chain (gjob *g, ebb_rng *r, uint32_t from, uint32_t len)
{
  for (uint32_t i = 0; i < len && from != UINT32_MAX; i++)
    {
      uint32_t s = add_stage (g, r, child_width (r, g->width[from]));
      stage_link (g, r, from, s);
      if (s == UINT32_MAX)
        break;
      from = s;
    }
  return from;
}

/* join of a and b (then its own width from the wider one). */
static uint32_t
join (gjob *g, ebb_rng *r, uint32_t a, uint32_t b)
{
  if (a == UINT32_MAX || b == UINT32_MAX)
    return a == UINT32_MAX ? b : a;
  uint32_t w = g->width[a] > g->width[b] ? g->width[a] : g->width[b];
  uint32_t s = add_stage (g, r, child_width (r, w));
  stage_link (g, r, a, s);
  stage_link (g, r, b, s);
  return s;
}

/* The DAG's depth in edges (a map-reduce job has depth 1): section 2.2 gives the median DAG
 * a depth of five and a quarter of them a depth above ten. Log-normal with median 5 and
 * sigma 1.03 (P[depth > 10] = 1/4). */
static uint32_t
draw_depth (ebb_rng *r)
{
  double d = lround (exp (ebb_rng_normal (r, log (5), 1.03)));
  return d < 1 ? 1 : d > 24 ? 24 : (uint32_t)d;
}

/* The shapes of Figure 3: W (joins of datasets), inverted V (analyses of one dataset),
 * complex (several datasets, several outputs) and chains; each with 1/4, built to depth D.
 * Self-joins (a stage read by two branches that meet again) give the undirected cycles the
 * study notes. */
static void
shape (gjob *g, ebb_rng *r)
{
  g->nstages = 0;
  uint32_t depth = draw_depth (r);
  switch (ebb_rng_below (r, 4))
    {
    case 0:
      { /* W: three datasets, two joins sharing the middle one, a final join, a tail */
        uint32_t pre = depth >= 4 ? (depth - 2) / 2 : 0;
        uint32_t a = chain (g, r, input_stage (g, r), (uint32_t)ebb_rng_below (r, pre + 1));
        uint32_t b = chain (g, r, input_stage (g, r), (uint32_t)ebb_rng_below (r, pre + 1));
        uint32_t c = chain (g, r, input_stage (g, r), pre);
        uint32_t f = join (g, r, join (g, r, a, b), join (g, r, b, c));
        chain (g, r, f, depth > pre + 2 ? depth - pre - 2 : 0);
        break;
      }
    case 1:
      { /* inverted V: one dataset, 2-4 analyses of it; half the time two of them are
         * joined again (a self-join) */
        uint32_t pre = (uint32_t)ebb_rng_below (r, depth / 2 + 1),
                 k = 2 + (uint32_t)ebb_rng_below (r, 3);
        uint32_t src = chain (g, r, input_stage (g, r), pre), ends[4];
        for (uint32_t i = 0; i < k; i++)
          {
            uint32_t len = i == 0 ? depth - pre : 1 + (uint32_t)ebb_rng_below (r, depth - pre);
            ends[i] = chain (g, r, src, len > 0 ? len : 1);
          }
        if (ebb_rng_below (r, 2))
          join (g, r, ends[k - 2], ends[k - 1]);
        break;
      }
    case 2:
      { /* deep: a chain of depth D (narrow: chains rarely read big inputs), half the time
         * with a side branch that rejoins it (a self-join) */
        uint32_t src = add_stage (g, r, 1 + (uint32_t)ebb_rng_below (r, 8));
        uint32_t mid = chain (g, r, src, depth / 2);
        uint32_t end = chain (g, r, mid, depth - depth / 2);
        if (ebb_rng_below (r, 2) && depth >= 3)
          {
            uint32_t side = chain (g, r, src, 1);
            stage_link (g, r, side, end);
          }
        break;
      }
    default:
      { /* complex: 2-4 datasets, each processed by a chain; every later dataset is joined
         * with one before it, and some intermediate results are outputs of their own */
        uint32_t k = 2 + (uint32_t)ebb_rng_below (r, 3), pre = depth / 2, cur = UINT32_MAX;
        for (uint32_t i = 0; i < k; i++)
          {
            uint32_t x = chain (g, r, input_stage (g, r), (uint32_t)ebb_rng_below (r, pre + 1));
            cur = join (g, r, cur, x);
            if (i > 0 && ebb_rng_below (r, 2))
              chain (g, r, cur, 1 + (uint32_t)ebb_rng_below (r, 2)); /* another output */
          }
        /* the joins count in the depth */
        chain (g, r, cur, depth > pre + k ? depth - pre - k + 1 : 1);
        break;
      }
    }
}

typedef struct gen_dag_opts
{
  uint64_t jobs, nodes, seed, max_width;
  double load;
  const char *out;
  int64_t cap[EBB_DAG_NRES];
} gen_dag_opts;

/* Appends one job (at submit 0; arrivals are set afterwards); returns its dominant work. */
static double
gen_job (ebb_sim_trace *t, gjob *g, const gen_dag_opts *o, ebb_rng *r, double **dur, int64_t **dem,
         uint32_t **stage, uint32_t **edges, uint32_t *caps)
{
  g->max_width = (uint32_t)o->max_width;
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
  /* Task edges: one-to-one for a local edge; all-to-all for a barrier; a partition feeds
   * child b from parent a when a = b modulo the narrower width (max(widths) edges). */
  for (uint32_t s = 0; s < g->nstages; s++)
    for (uint32_t q = 0; q < g->npar[s]; q++)
      {
        uint32_t p = g->par[s][q], wp = g->width[p], wc = g->width[s], kind = g->kind[s][q];
        uint32_t narrow = wp < wc ? wp : wc;
        if (ne + wp * wc > caps[1])
          {
            caps[1] = (ne + wp * wc) * 2;
            *edges = ebb_xrealloc (*edges, caps[1] * 2 * sizeof **edges);
          }
        for (uint32_t a = 0; a < wp; a++)
          for (uint32_t b = 0; b < wc; b++)
            if (kind == EDGE_BARRIER || (kind == EDGE_LOCAL ? a == b : a % narrow == b % narrow))
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
                 uint32_t max_width, ebb_rng *rng)
{
  gen_dag_opts o = { .jobs = njobs, .nodes = nodes, .load = load, .max_width = max_width };
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
              "  --max-width W            widest input stage, in tasks (default 48)\n"
              "  --node-cpu-millis M      a node's CPU (default 16000)\n"
              "  --node-memory SIZE       a node's memory (default 64G)\n"
              "  --node-net-mbps M        a node's network (default 10000)\n"
              "  -o, --output FILE        write here instead of stdout\n"
              "  -h, --help               this text\n");
}

int
ebb_sim_gen_dag_main (int argc, char **argv)
{
  static const struct option opts[] = {
    { "jobs", required_argument, NULL, 'j' },
    { "nodes", required_argument, NULL, 'n' },
    { "load", required_argument, NULL, 'l' },
    { "seed", required_argument, NULL, 's' },
    { "max-width", required_argument, NULL, 'w' },
    { "node-cpu-millis", required_argument, NULL, 'c' },
    { "node-memory", required_argument, NULL, 'm' },
    { "node-net-mbps", required_argument, NULL, 'N' },
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  gen_dag_opts o
      = { .jobs = 1000, .nodes = 100, .seed = 1, .load = 0.8, .max_width = EBB_SIM_DAG_MAX_WIDTH };
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
        case 'w':
          if (ebb_sim_gen_parse_u64 (optarg, c == 's' ? 0 : 1,
                                     c == 's'               ? UINT64_MAX
                                     : c == 'j' || c == 'n' ? 100000000
                                     : c == 'w'             ? 4096
                                                            : UINT64_C (1) << 40,
                                     &u)
              < 0)
            return fprintf (stderr, "ebb-sim gen dag: invalid --%s '%s'\n",
                            c == 'j'   ? "jobs"
                            : c == 'n' ? "nodes"
                            : c == 's' ? "seed"
                            : c == 'c' ? "node-cpu-millis"
                            : c == 'w' ? "max-width"
                                       : "node-net-mbps",
                            optarg),
                   2;
          if (c == 'j')
            o.jobs = u;
          else if (c == 'n')
            o.nodes = u;
          else if (c == 's')
            o.seed = u;
          else if (c == 'w')
            o.max_width = u;
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
  ebb_sim_gen_dag (t, (uint32_t)o.jobs, (uint32_t)o.nodes, o.load, o.cap, (uint32_t)o.max_width,
                   &rng);
  return ebb_sim_gen_output (t, o.out, "ebb-sim gen dag");
}
