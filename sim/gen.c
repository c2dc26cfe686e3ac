/* `ebb-sim gen`: synthetic traces in the Hawk/Eagle format.
 *   hawk2   the scenario of Hawk §2: 95% short jobs (100 tasks x 100 s), 5% long
 *           (1000 tasks x 20000 s), Poisson arrivals.
 *   hetero  the method of Hawk §4: per class, task count and mean task duration exponential
 *           around a centroid; task durations Gaussian with sd = 2 x mean, negatives redrawn.
 *           --preset google gives two classes in the Google 2011 proportions Hawk §2 reports
 *           (top 10% of jobs: ~84% of task-seconds, 28% of tasks). Arrivals: Poisson with
 *           a given mean interarrival, or (--load, --nodes) at the rate that offers a load
 *           counted from the task-seconds drawn, which are about twice the centroids'. */
#include "config.h"

#include "sim/dag.h"
#include "sim/trace.h"
#include "lib/util.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#define GEN_MAX_CLASSES 16

typedef struct gen_opts
{
  uint64_t jobs, seed;
  double interarrival_sec, load;
  uint64_t nodes;
  int has_interarrival;
  const char *out;
  ebb_sim_gen_class classes[GEN_MAX_CLASSES];
  size_t nclasses;
} gen_opts;

/* The options of the generators of this file: each one's --help lists exactly those it takes,
 * and an option a generator would ignore is refused (see gen_takes). */
enum
{
  GEN_JOBS = 1 << 0,
  GEN_IAT = 1 << 1,
  GEN_SEED = 1 << 2,
  GEN_CLASS = 1 << 3,
  GEN_PRESET = 1 << 4,
  GEN_OUT = 1 << 5,
  GEN_HELP = 1 << 6,
  GEN_LOAD = 1 << 7,
  GEN_NODES = 1 << 8,
};

static const struct
{
  int val;
  unsigned bit;
  const char *name, *help;
} gen_opt_help[] = {
  { 'j', GEN_JOBS, "jobs", "  --jobs N                 jobs to generate (default 1000)\n" },
  { 'i', GEN_IAT, "interarrival",
    "  --interarrival S         mean of the exponential interarrival in s (default 50)\n" },
  { 'L', GEN_LOAD, "load",
    "  --load L                 instead of --interarrival: Poisson arrivals offering L,\n"
    "                           the task-seconds drawn over M x the span of the\n"
    "                           arrivals (the mean gap is a job's mean task-seconds\n"
    "                           over L x M); needs --nodes\n" },
  { 'n', GEN_NODES, "nodes",
    "  --nodes M                single-slot nodes the --load refers to\n" },
  { 's', GEN_SEED, "seed", "  --seed N                 random seed (default 1)\n" },
  { 'c', GEN_CLASS, "class",
    "  --class SHARE:TASKS:DUR  a class (share of jobs, mean tasks per job, mean task\n"
    "                           duration in s); repeatable\n" },
  { 'P', GEN_PRESET, "preset",
    "  --preset google          the classes 90%:35:175 and 10%:122:2700\n" },
  { 'o', GEN_OUT, "output", "  -o, --output FILE        write here instead of stdout\n" },
  { 'h', GEN_HELP, "help", "  -h, --help               this text\n" },
};

/* Returns the options KIND takes (0: not a generator of this file). */
static unsigned
gen_takes (const char *kind)
{
  if (strcmp (kind, "hawk2") == 0)
    return GEN_JOBS | GEN_IAT | GEN_SEED | GEN_OUT | GEN_HELP;
  if (strcmp (kind, "hetero") == 0)
    return GEN_JOBS | GEN_IAT | GEN_LOAD | GEN_NODES | GEN_SEED | GEN_CLASS | GEN_PRESET | GEN_OUT
           | GEN_HELP;
  if (strcmp (kind, "bigc-google") == 0 || strcmp (kind, "bigc-pattern") == 0)
    return GEN_SEED | GEN_OUT | GEN_HELP;
  return 0;
}

/* The list of generators (KIND NULL), or KIND's usage and options. */
static void
gen_usage (FILE *f, const char *kind)
{
  if (!kind)
    {
      fprintf (
          f, "Usage: ebb-sim gen GENERATOR [OPTION...]\n"
             "Writes a synthetic trace (see ebb-sim(1), GENERATORS).\n\n"
             "Generators (GENERATOR --help: its options):\n"
             "  hawk2 [--jobs N] [--interarrival S] [--seed N] [-o FILE]\n"
             "      Hawk section 2: 95%% short jobs, 5%% long, Poisson arrivals\n"
             "  hetero --class SHARE:TASKS:DUR...|--preset google [--jobs N]\n"
             "         [--interarrival S | --load L --nodes M] [--seed N] [-o FILE]\n"
             "      Hawk section 4: classes of jobs around centroids\n"
             "  bigc-google [--seed N] [-o FILE]\n"
             "      BIG-C section 5.5: the Google replay for 26 nodes, JSON lines\n"
             "  bigc-pattern low|high|multi [--seed N] [-o FILE]\n"
             "      BIG-C section 5.2: long jobs and a burst of short ones, JSON lines\n"
             "  pareto --nodes M [--jobs N | --from-trace FILE] [--load L] [--beta B] [--seed N]\n"
             "         [-o FILE]\n"
             "      Hopper: Pareto task durations, heavy-tailed job sizes\n"
             "  dag --jobs N --nodes M --load L [OPTION...]\n"
             "      Graphene: DAG jobs, JSON lines\n");
      return;
    }
  if (strcmp (kind, "hetero") == 0)
    fprintf (f,
             "Usage: ebb-sim gen hetero --class SHARE:TASKS:DUR...|--preset google [OPTION...]\n");
  else if (strcmp (kind, "bigc-pattern") == 0)
    fprintf (f, "Usage: ebb-sim gen bigc-pattern low|high|multi [OPTION...]\n");
  else
    fprintf (f, "Usage: ebb-sim gen %s [OPTION...]\n", kind);
  unsigned takes = gen_takes (kind);
  for (size_t i = 0; i < EBB_ARRAY_SIZE (gen_opt_help); i++)
    if (takes & gen_opt_help[i].bit)
      fputs (gen_opt_help[i].help, f);
}

static int
parse_class (const char *s, ebb_sim_gen_class *c)
{
  char *end;
  errno = 0;
  c->share = strtod (s, &end);
  if (*end != ':' || errno || !(c->share > 0))
    return -1;
  c->mean_tasks = strtod (end + 1, &end);
  if (*end != ':' || errno || !(c->mean_tasks >= 1))
    return -1;
  c->mean_dur_sec = strtod (end + 1, &end);
  if (*end || errno || !(c->mean_dur_sec > 0) || c->mean_dur_sec > 1e9)
    return -1;
  return 0;
}

static int
add_preset (gen_opts *o, const char *name)
{
  if (strcmp (name, "google") != 0 || o->nclasses + 2 > GEN_MAX_CLASSES)
    return -1;
  o->classes[o->nclasses++] = (ebb_sim_gen_class){ 0.9, 35, 175 };
  o->classes[o->nclasses++] = (ebb_sim_gen_class){ 0.1, 122, 2700 };
  return 0;
}

/* Returns 0, 1 after --help, -1 on a bad option or one KIND does not take (message printed). */
static int
parse_gen_args (gen_opts *o, const char *kind, int argc, char **argv)
{
  static const struct option opts[] = {
    { "jobs", required_argument, NULL, 'j' },   { "interarrival", required_argument, NULL, 'i' },
    { "seed", required_argument, NULL, 's' },   { "class", required_argument, NULL, 'c' },
    { "preset", required_argument, NULL, 'P' }, { "output", required_argument, NULL, 'o' },
    { "load", required_argument, NULL, 'L' },   { "nodes", required_argument, NULL, 'n' },
    { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
  };
  int c;
  char *end;
  unsigned takes = gen_takes (kind);
  while ((c = getopt_long (argc, argv, "o:h", opts, NULL)) != -1)
    {
      errno = 0;
      for (size_t i = 0; i < EBB_ARRAY_SIZE (gen_opt_help); i++)
        if (gen_opt_help[i].val == c && !(takes & gen_opt_help[i].bit))
          return fprintf (stderr, "ebb-sim gen %s: --%s does not apply\n", kind,
                          gen_opt_help[i].name),
                 -1;
      switch (c)
        {
        case 'j':
          o->jobs = strtoull (optarg, &end, 10);
          if (*end || errno || o->jobs < 1 || o->jobs > 100000000 || *optarg == '-')
            return fprintf (stderr, "ebb-sim gen: invalid --jobs '%s'\n", optarg), -1;
          break;
        case 'i':
          o->interarrival_sec = strtod (optarg, &end);
          if (*end || errno || !(o->interarrival_sec > 0) || o->interarrival_sec > 1e9)
            return fprintf (stderr, "ebb-sim gen: invalid --interarrival '%s'\n", optarg), -1;
          o->has_interarrival = 1;
          break;
        case 'L':
          o->load = strtod (optarg, &end);
          if (*end || errno || !(o->load > 0) || o->load > 1e6)
            return fprintf (stderr, "ebb-sim gen: invalid --load '%s'\n", optarg), -1;
          break;
        case 'n':
          if (ebb_sim_gen_parse_u64 (optarg, 1, UINT32_MAX, &o->nodes) < 0)
            return fprintf (stderr, "ebb-sim gen: invalid --nodes '%s'\n", optarg), -1;
          break;
        case 's':
          o->seed = strtoull (optarg, &end, 10);
          if (*end || errno || *optarg == '-')
            return fprintf (stderr, "ebb-sim gen: invalid --seed '%s'\n", optarg), -1;
          break;
        case 'c':
          if (o->nclasses == GEN_MAX_CLASSES || parse_class (optarg, &o->classes[o->nclasses]) < 0)
            return fprintf (stderr, "ebb-sim gen: invalid --class '%s'\n", optarg), -1;
          o->nclasses++;
          break;
        case 'P':
          if (add_preset (o, optarg) < 0)
            return fprintf (stderr, "ebb-sim gen: unknown --preset '%s'\n", optarg), -1;
          break;
        case 'o':
          o->out = optarg;
          break;
        case 'h':
          gen_usage (stdout, kind);
          return 1;
        default:
          fprintf (stderr, "Try 'ebb-sim gen %s --help'.\n", kind);
          return -1;
        }
    }
  return 0;
}

int
ebb_sim_gen_main (int argc, char **argv)
{
  gen_opts o = { .jobs = 1000, .seed = 1, .interarrival_sec = 50 };
  if (argc >= 2 && strcmp (argv[1], "dag") == 0)
    return ebb_sim_gen_dag_main (argc - 1, argv + 1); /* sim/gen-dag.c */
  if (argc < 2 || argv[1][0] == '-')
    {
      if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
        return gen_usage (stdout, NULL), 0;
      fprintf (stderr, "ebb-sim gen: which generator?\n");
      gen_usage (stderr, NULL);
      return 2;
    }
  const char *kind = argv[1];
  if (strcmp (kind, "pareto") == 0)
    return ebb_sim_gen_pareto_main (argc - 1, argv + 1);
  if (!gen_takes (kind))
    return fprintf (stderr, "ebb-sim gen: unknown generator '%s'; try 'ebb-sim gen --help'\n",
                    kind),
           2;
  const char *pattern = NULL;
  if (strcmp (kind, "bigc-pattern") == 0)
    {
      /* Its help needs no pattern. */
      if (argc >= 3 && (strcmp (argv[2], "--help") == 0 || strcmp (argv[2], "-h") == 0))
        return gen_usage (stdout, kind), 0;
      if (argc < 3 || argv[2][0] == '-')
        return fprintf (stderr, "ebb-sim gen bigc-pattern: which? low, high or multi\n"), 2;
      pattern = argv[2];
      argc--, argv++;
    }
  int r = parse_gen_args (&o, kind, argc - 1, argv + 1);
  if (r != 0)
    return r < 0 ? 2 : 0;
  if (optind < argc - 1)
    return fprintf (stderr, "ebb-sim gen: unexpected argument '%s'\n", argv[optind + 1]), 2;
  int hawk2 = strcmp (kind, "hawk2") == 0;
  int bigc = pattern || strcmp (kind, "bigc-google") == 0;
  if (!hawk2 && !bigc && o.nclasses == 0)
    return fprintf (stderr, "ebb-sim gen hetero: give --class or --preset\n"), 2;
  if (o.load > 0 && o.has_interarrival)
    return fprintf (stderr, "ebb-sim gen %s: --load and --interarrival exclude each other\n", kind),
           2;
  if ((o.load > 0) != (o.nodes > 0))
    return fprintf (stderr, "ebb-sim gen %s: --load and --nodes go together\n", kind), 2;
  ebb_rng rng;
  ebb_rng_seed (&rng, o.seed);
  ebb_sim_trace *t = ebb_sim_trace_new ();
  if (pattern)
    {
      if (ebb_sim_gen_bigc_pattern (t, pattern, &rng) < 0)
        {
          ebb_sim_trace_free (t);
          return fprintf (stderr, "ebb-sim gen bigc-pattern: unknown pattern '%s'\n", pattern), 2;
        }
    }
  else if (bigc)
    ebb_sim_gen_bigc_google (t, &rng);
  else if (hawk2)
    ebb_sim_gen_hawk2 (t, (uint32_t)o.jobs, o.interarrival_sec, &rng);
  else if (o.load > 0)
    ebb_sim_gen_hetero_load (t, (uint32_t)o.jobs, (uint32_t)o.nodes, o.load, o.classes, o.nclasses,
                             &rng);
  else
    ebb_sim_gen_hetero (t, (uint32_t)o.jobs, o.interarrival_sec, o.classes, o.nclasses, &rng);
  return ebb_sim_gen_output (t, o.out, "ebb-sim gen");
}

int
ebb_sim_gen_output (ebb_sim_trace *t, const char *path, const char *prog)
{
  cleanup_error ebb_error *err = NULL;
  FILE *f = path ? fopen (path, "we") : stdout;
  if (!f)
    ebb_error_set_errno (&err, errno, "open %s", path);
  else if (ebb_sim_trace_write (t, f, &err) < 0)
    ebb_error_wrap (&err, "%s", path ? path : "<stdout>");
  if (f && f != stdout && fclose (f) != 0 && !err)
    ebb_error_set_errno (&err, errno, "close %s", path);
  ebb_sim_trace_free (t);
  if (err)
    {
      fprintf (stderr, "%s: %s\n", prog, ebb_error_msg (&err));
      return 1;
    }
  return 0;
}

int
ebb_sim_gen_parse_u64 (const char *arg, uint64_t lo, uint64_t hi, uint64_t *out)
{
  char *end;
  errno = 0;
  if (*arg == '-' || *arg == '\0')
    return -1;
  unsigned long long v = strtoull (arg, &end, 10);
  if (*end || errno || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}
