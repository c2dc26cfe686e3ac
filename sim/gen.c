/* `ebb-sim gen`: synthetic traces in the Hawk/Eagle format.
 *   hawk2   the scenario of Hawk §2: 95% short jobs (100 tasks x 100 s), 5% long
 *           (1000 tasks x 20000 s), Poisson arrivals.
 *   hetero  the method of Hawk §4: per class, task count and mean task duration exponential
 *           around a centroid; task durations Gaussian with sd = 2 x mean, negatives redrawn.
 *           --preset google gives two classes in the Google 2011 proportions Hawk §2 reports
 *           (top 10% of jobs: ~84% of task-seconds, 28% of tasks). */
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
  double interarrival_sec;
  const char *out;
  ebb_sim_gen_class classes[GEN_MAX_CLASSES];
  size_t nclasses;
} gen_opts;

static void
gen_usage (FILE *f)
{
  fprintf (f, "Usage: ebb-sim gen hawk2|hetero [OPTION...]\n"
              "       ebb-sim gen pareto --nodes M [--jobs N | --from-trace FILE] [--load L]\n"
              "                          [--beta B] [--seed N]\n"
              "       ebb-sim gen bigc-google [--seed N] [-o FILE]\n"
              "       ebb-sim gen bigc-pattern low|high|multi [--seed N] [-o FILE]\n"
              "       ebb-sim gen dag --jobs N --nodes M --load L (see gen dag --help)\n"
              "  --jobs N                 jobs to generate (default 1000)\n"
              "  --interarrival S         mean of the exponential interarrival (default 50)\n"
              "  --seed N                 random seed (default 1)\n"
              "  --class SHARE:TASKS:DUR  hetero: a class (share of jobs, mean tasks per job,\n"
              "                           mean task duration in s); repeatable\n"
              "  --preset google          hetero: 90%%:35:175 and 10%%:122:2700\n"
              "  -o, --output FILE        write here instead of stdout\n");
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

/* Returns 0, 1 after --help, -1 on a bad option (message printed). */
static int
parse_gen_args (gen_opts *o, int argc, char **argv)
{
  static const struct option opts[] = {
    { "jobs", required_argument, NULL, 'j' },   { "interarrival", required_argument, NULL, 'i' },
    { "seed", required_argument, NULL, 's' },   { "class", required_argument, NULL, 'c' },
    { "preset", required_argument, NULL, 'P' }, { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
  };
  int c;
  char *end;
  while ((c = getopt_long (argc, argv, "o:h", opts, NULL)) != -1)
    {
      errno = 0;
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
          gen_usage (stdout);
          return 1;
        default:
          fprintf (stderr, "Try 'ebb-sim gen --help'.\n");
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
      if (argc >= 2 && strcmp (argv[1], "--help") == 0)
        return gen_usage (stdout), 0;
      fprintf (stderr, "ebb-sim gen: which generator? hawk2 or hetero\n");
      gen_usage (stderr);
      return 2;
    }
  const char *kind = argv[1];
  if (strcmp (kind, "pareto") == 0)
    return ebb_sim_gen_pareto_main (argc - 1, argv + 1);
  const char *pattern = NULL;
  if (strcmp (kind, "bigc-pattern") == 0)
    {
      if (argc < 3 || argv[2][0] == '-')
        return fprintf (stderr, "ebb-sim gen bigc-pattern: which? low, high or multi\n"), 2;
      pattern = argv[2];
      argc--, argv++;
    }
  int r = parse_gen_args (&o, argc - 1, argv + 1);
  if (r != 0)
    return r < 0 ? 2 : 0;
  if (optind < argc - 1)
    return fprintf (stderr, "ebb-sim gen: unexpected argument '%s'\n", argv[optind + 1]), 2;
  int hawk2 = strcmp (kind, "hawk2") == 0;
  int bigc = pattern || strcmp (kind, "bigc-google") == 0;
  if (!hawk2 && !bigc && strcmp (kind, "hetero") != 0)
    return fprintf (stderr, "ebb-sim gen: unknown generator '%s'\n", kind), 2;
  if (!hawk2 && !bigc && o.nclasses == 0)
    return fprintf (stderr, "ebb-sim gen hetero: give --class or --preset\n"), 2;
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
