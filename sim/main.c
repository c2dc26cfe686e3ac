/* ebb-sim: trace-driven simulator of libebb-policy. main() parses options and hands over to
 * the engine (sim/engine.c); `ebb-sim gen` writes synthetic traces (sim/trace.c). */
#include "config.h"

#include "lib/error.h"
#include "lib/time.h"
#include "lib/util.h"
#include "policies/param.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/report.h"
#include "sim/trace.h"

#include <getopt.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>

/* ebb-sim's own settings, parsed by the same descriptors as the policy parameters
 * (policies/param.h) into struct sim_opts. */
typedef struct sim_opts
{
  ebb_sim_config cfg;
  const char *trace;
  const char *jobs_csv;
  const char *util_csv;
  double report_cutoff_sec;
  int have_report_cutoff;
  int json;
  int truncate;
} sim_opts;

#define S(field) .offset = offsetof (sim_opts, field), .size = sizeof (((sim_opts *)0)->field)

static const ebb_pol_param sim_settings[] = {
  { "nodes", EBB_POL_PARAM_UINT, EBB_POL_PARAM_SIM, S (cfg.pol.nnodes), 1, 100000000,
    .metavar = "N", .help = "nodes in the cluster" },
  { "report-cutoff", EBB_POL_PARAM_DOUBLE, EBB_POL_PARAM_SIM, S (report_cutoff_sec), 0, INFINITY,
    .metavar = "S", .help = "class boundary in the report (default: --cutoff)" },
  { "launch-delay", EBB_POL_PARAM_DOUBLE, EBB_POL_PARAM_SIM, S (cfg.launch_delay_sec), 0, 3600,
    .metavar = "S", .help = "a task starts S s after its launch decision", .def = "0" },
  { "finish-delay", EBB_POL_PARAM_DOUBLE, EBB_POL_PARAM_SIM, S (cfg.finish_delay_sec), 0, 3600,
    .metavar = "S", .help = "a task's end is known S s after its work", .def = "0" },
  { "util-interval", EBB_POL_PARAM_DOUBLE, EBB_POL_PARAM_SIM, S (cfg.util_interval_sec), 0, 1e9,
    .metavar = "S", .help = "utilization snapshot period, 0: none", .def = "100" },
  { "reclaim-sec-per-gib", EBB_POL_PARAM_DOUBLE, EBB_POL_PARAM_SIM, S (cfg.reclaim_sec_per_gib), 0,
    3600, .metavar = "S", .help = "memory freed by a suspension, s/GiB", .def = "3" },
  { "resume-sec-per-gib", EBB_POL_PARAM_DOUBLE, EBB_POL_PARAM_SIM, S (cfg.resume_sec_per_gib), 0,
    3600, .metavar = "S", .help = "memory reloaded by a resumption, s/GiB", .def = "3" },
  { "json", EBB_POL_PARAM_SWITCH, EBB_POL_PARAM_SIM, S (json),
    .help = "print one JSON object instead of the table" },
  { "truncate", EBB_POL_PARAM_SWITCH, EBB_POL_PARAM_SIM, S (truncate),
    .help = "truncate durations to whole seconds", .off_help = "keep durations as read (default)" },
};

enum
{
  OPT_JOBS_CSV = 256,
  OPT_UTIL_CSV,
  OPT_COSTS,
  OPT_LIST,
  OPT_VERSION,
  /* Then one per descriptor, its --no-NAME next to it: OPT_SETTING + 2 * k (+ 1), k
   * counting sim_settings, then the table of policy parameters. */
  OPT_SETTING = 512,
};

/* ebb-sim's other options, parsed by hand. Entries with a NULL help share the previous line. */
typedef struct sim_opt
{
  const char *name;
  int has_arg;
  int val;
  const char *metavar;
  const char *help;
} sim_opt;

static const sim_opt head_opts[] = {
  { "policy", required_argument, 'p', "NAME",
    "fifo, sparrow, hawk, bigc, eagle, peacock, ebb, hopper, srpt; DAG: graphene, cp, tetris, "
    "random" },
  { "trace", required_argument, 't', "FILE", "Hawk/Eagle trace or JSON lines (\"-\": stdin)" },
  { "jobs-csv", required_argument, OPT_JOBS_CSV, "FILE", "write one line per job" },
  { "util-csv", required_argument, OPT_UTIL_CSV, "FILE", "write the snapshots (time,utilization)" },
  { "costs", required_argument, OPT_COSTS, "bigc|ebb-agent",
    "preset of the preemption costs (default bigc)" },
};

static const sim_opt tail_opts[] = {
  { "list-policies", no_argument, OPT_LIST, NULL, "list the policies and exit" },
  { "help", no_argument, 'h', NULL, "this text; `ebb-sim gen --help` for generators" },
  { "version", no_argument, OPT_VERSION, NULL, "print the version and exit" },
};

/* The descriptor of option value v (>= OPT_SETTING) and whether it is the --no- form;
 * *pol says whether it is a policy parameter (else one of sim_settings). */
static const ebb_pol_param *
setting_of (int v, bool *off, bool *pol)
{
  size_t k = (size_t)(v - OPT_SETTING) / 2, n;
  const ebb_pol_param *t = ebb_pol_param_table (&n);
  *off = (v - OPT_SETTING) % 2;
  *pol = k >= EBB_ARRAY_SIZE (sim_settings);
  return *pol ? &t[k - EBB_ARRAY_SIZE (sim_settings)] : &sim_settings[k];
}

/* Calls fn for each descriptor offered to ebb-sim, with its option value. */
static void
each_setting (void (*fn) (const ebb_pol_param *d, int val, void *ud), void *ud)
{
  size_t n;
  const ebb_pol_param *t = ebb_pol_param_table (&n);
  size_t ns = EBB_ARRAY_SIZE (sim_settings);
  for (size_t k = 0; k < ns + n; k++)
    {
      const ebb_pol_param *d = k < ns ? &sim_settings[k] : &t[k - ns];
      if (d->where & EBB_POL_PARAM_SIM)
        fn (d, OPT_SETTING + 2 * (int)k, ud);
    }
}

/* Writes one option's line of --help: the option, then its text (from column 28). */
static void
print_head (FILE *f, int shortc, const char *name, const char *metavar)
{
  char head[64];
  int n = snprintf (head, sizeof head, "%s--%s%s%s", shortc ? "" : "    ", name, metavar ? " " : "",
                    metavar ? metavar : "");
  if (shortc)
    n += fprintf (f, "  -%c, ", shortc) - 2;
  else
    fprintf (f, "  ");
  fputs (head, f);
  if (n < 24)
    fprintf (f, "%*s ", 24 - n, "");
  else
    fprintf (f, "\n%27s", "");
}

static void
print_sim_opts (FILE *f, const sim_opt *o, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      print_head (f, o[i].val < 128 ? o[i].val : 0, o[i].name, o[i].metavar);
      fprintf (f, "%s\n", o[i].help);
    }
}

static void
print_setting (const ebb_pol_param *d, int val, void *ud)
{
  FILE *f = ud;
  (void)val;
  print_head (f, strcmp (d->name, "nodes") == 0 ? 'n' : 0, d->name, d->metavar);
  ebb_pol_param_print_help (d, f, d->type != EBB_POL_PARAM_SWITCH);
  fputc ('\n', f);
  if (d->off_help)
    {
      cleanup_free char *no = ebb_xasprintf ("no-%s", d->name);
      print_head (f, 0, no, NULL);
      fprintf (f, "%s%s%s\n", d->policies ? d->policies : "", d->policies ? ": " : "", d->off_help);
    }
}

static void
usage (FILE *f)
{
  fprintf (f,
           "Usage: ebb-sim --policy NAME --nodes N --trace FILE [OPTION...]\n"
           "       ebb-sim gen GENERATOR [GEN-OPTION...]\n"
           "Simulates a scheduling policy of libebb-policy on a Hawk/Eagle or JSON-lines\n"
           "trace. The policy parameters, from --cutoff to --graphene-bypass, are also the\n"
           "keys of ebb-controller's policy options (ebb-controller(8), POLICY PARAMETERS).\n\n");
  print_sim_opts (f, head_opts, EBB_ARRAY_SIZE (head_opts));
  each_setting (print_setting, f);
  print_sim_opts (f, tail_opts, EBB_ARRAY_SIZE (tail_opts));
}

/* Handles a descriptor's option; returns 0, or -1 after the error on stderr. */
static int
handle_setting (sim_opts *o, int c, const char *arg)
{
  bool off, pol;
  const ebb_pol_param *d = setting_of (c, &off, &pol);
  if (d->type == EBB_POL_PARAM_SWITCH)
    arg = off ? "no" : "yes";
  cleanup_error ebb_error *err = NULL;
  if (ebb_pol_param_set (d, pol ? (void *)&o->cfg.pol : (void *)o, arg, &err) < 0)
    {
      fprintf (stderr, "ebb-sim: invalid --%s '%s': %s\n", d->name, arg, ebb_error_msg (&err));
      return -1;
    }
  if (!pol && strcmp (d->name, "report-cutoff") == 0)
    o->have_report_cutoff = 1;
  return 0;
}

/* Handles one option; returns 0, or -1 on a bad value. */
static int
handle_opt (sim_opts *o, int c, const char *arg)
{
  static const char *const presets[] = { "bigc", "ebb-agent" };
  switch (c)
    {
    case 'p':
      o->cfg.policy = arg;
      return 0;
    case 't':
      o->trace = arg;
      return 0;
    case OPT_JOBS_CSV:
      o->jobs_csv = arg;
      return 0;
    case OPT_UTIL_CSV:
      o->util_csv = arg;
      return 0;
    case OPT_COSTS:
      for (size_t i = 0; i < EBB_ARRAY_SIZE (presets); i++)
        if (strcmp (arg, presets[i]) == 0)
          {
            (i == 0 ? ebb_sim_config_costs_bigc : ebb_sim_config_costs_ebb_agent) (&o->cfg);
            return 0;
          }
      fprintf (stderr, "ebb-sim: invalid --costs '%s': expected bigc or ebb-agent\n", arg);
      return -1;
    }
  return c >= OPT_SETTING ? handle_setting (o, c, arg) : -1;
}

typedef struct longopts
{
  struct option *v;
  size_t n;
} longopts;

static void
add_sim_opts (longopts *l, const sim_opt *o, size_t n)
{
  for (size_t i = 0; i < n; i++)
    l->v[l->n++] = (struct option){ o[i].name, o[i].has_arg, NULL, o[i].val };
}

static void
add_setting (const ebb_pol_param *d, int val, void *ud)
{
  longopts *l = ud;
  bool sw = d->type == EBB_POL_PARAM_SWITCH;
  l->v[l->n++] = (struct option){ d->name, sw ? no_argument : required_argument, NULL, val };
  if (d->off_help)
    l->v[l->n++] = (struct option){ ebb_xasprintf ("no-%s", d->name), no_argument, NULL, val + 1 };
}

/* The getopt table: the options parsed by hand, then every descriptor's. */
static struct option *
long_options (void)
{
  size_t n;
  ebb_pol_param_table (&n);
  n = 2 * (n + EBB_ARRAY_SIZE (sim_settings)) + EBB_ARRAY_SIZE (head_opts)
      + EBB_ARRAY_SIZE (tail_opts) + 1;
  longopts l = { ebb_xcalloc (n, sizeof *l.v), 0 };
  add_sim_opts (&l, head_opts, EBB_ARRAY_SIZE (head_opts));
  add_sim_opts (&l, tail_opts, EBB_ARRAY_SIZE (tail_opts));
  each_setting (add_setting, &l);
  return l.v;
}

static void
long_options_free (struct option *o)
{
  for (size_t i = 0; o[i].name; i++)
    if (o[i].val >= OPT_SETTING && (o[i].val - OPT_SETTING) % 2)
      free ((char *)o[i].name); /* a --no-NAME */
  free (o);
}

/* Answers --help, --version and --list-policies: 1, else 0. */
static int
answer (int c)
{
  if (c == 'h')
    usage (stdout);
  else if (c == OPT_VERSION)
    printf ("ebb-sim %s\n", PACKAGE_VERSION);
  else if (c == OPT_LIST)
    for (const ebb_pol_ops *const *l = ebb_pol_list (); *l; l++)
      printf ("%-10s %s\n", (*l)->name, (*l)->summary);
  else
    return 0;
  return 1;
}

/* What must hold after the options: -1 after a message on stderr, else 0. */
static int
check_run_args (sim_opts *o)
{
  const char *missing = !o->cfg.policy ? "--policy" : !o->trace ? "--trace" : NULL;
  if (missing)
    {
      fprintf (stderr, "ebb-sim: %s is required\nTry 'ebb-sim --help'.\n", missing);
      return -1;
    }
  if (!ebb_pol_lookup (o->cfg.policy))
    {
      fprintf (stderr, "ebb-sim: unknown policy '%s' (try --list-policies)\n", o->cfg.policy);
      return -1;
    }
  if (strcmp (o->cfg.policy, "hawk") == 0 && isinf (o->cfg.pol.cutoff_sec))
    {
      fprintf (stderr, "ebb-sim: policy hawk needs --cutoff\n");
      return -1;
    }
  return 0;
}

static int
parse_run_args (sim_opts *o, int argc, char **argv)
{
  int c, r = 0;
  struct option *lo = long_options ();
  const int nodes_val = OPT_SETTING; /* sim_settings[0] */
  while (r == 0 && (c = getopt_long (argc, argv, "p:n:t:h", lo, NULL)) != -1)
    {
      if (answer (c))
        r = 1;
      else if (c == '?' || handle_opt (o, c == 'n' ? nodes_val : c, optarg) < 0)
        {
          fprintf (stderr, "Try 'ebb-sim --help'.\n");
          r = -1;
        }
    }
  long_options_free (lo);
  if (r != 0)
    return r;
  if (optind < argc)
    {
      fprintf (stderr, "ebb-sim: unexpected argument '%s'\nTry 'ebb-sim --help'.\n", argv[optind]);
      return -1;
    }
  return check_run_args (o);
}

static long
peak_rss_bytes (void)
{
  struct rusage ru;
  if (getrusage (RUSAGE_SELF, &ru) < 0)
    return -1;
  return ru.ru_maxrss * 1024L;
}

static int
run_main (int argc, char **argv)
{
  uint64_t t0 = ebb_now_usec ();
  sim_opts o = { .cfg.policy = NULL };
  ebb_pol_params_default (&o.cfg.pol);
  o.cfg.pol.cancel_probes = 1;
  o.cfg.util_interval_sec = 100;
  o.cfg.pol.nnodes = 0;
  ebb_sim_config_costs_bigc (&o.cfg);
  int r = parse_run_args (&o, argc, argv);
  if (r != 0)
    return r < 0 ? 2 : 0;
  if (o.cfg.pol.nnodes == 0)
    {
      fprintf (stderr, "ebb-sim: --nodes is required\nTry 'ebb-sim --help'.\n");
      return 2;
    }
  cleanup_error ebb_error *err = NULL;
  ebb_sim_trace *t = ebb_sim_trace_new ();
  ebb_sim_result res;
  if (ebb_sim_trace_read (t, o.trace, &err) < 0)
    goto fail;
  if (o.truncate)
    ebb_sim_trace_truncate (t);
  const ebb_pol_ops *ops = ebb_pol_lookup (o.cfg.policy);
  ebb_pol_res *cap = &o.cfg.pol.node_cap;
  if (ops->needs_resources && (cap->cpu_millis == 0 || cap->memory_bytes == 0))
    {
      if (ebb_sim_trace_has_res (t))
        {
          fprintf (stderr,
                   "ebb-sim: policy %s on a JSON-lines trace needs --node-cpu-millis "
                   "and --node-memory\n",
                   o.cfg.policy);
          ebb_sim_trace_free (t);
          return 2;
        }
      if (cap->cpu_millis == 0)
        cap->cpu_millis = 1000; /* one slot: one task of <1 CPU, 0 bytes> */
    }
  else if (!ops->needs_resources && (cap->cpu_millis || cap->memory_bytes))
    {
      fprintf (stderr,
               "ebb-sim: policy %s has single-slot nodes: --node-cpu-millis and "
               "--node-memory do not apply\n",
               o.cfg.policy);
      ebb_sim_trace_free (t);
      return 2;
    }
  if (ebb_sim_run (&o.cfg, t, &res, &err) < 0)
    goto fail;
  ebb_sim_report rep = { .cfg = &o.cfg,
                         .trace = t,
                         .res = &res,
                         .trace_name = o.trace,
                         .truncate = o.truncate,
                         .peak_rss_bytes = peak_rss_bytes (),
                         .wall_seconds = (ebb_now_usec () - t0) / 1e6 };
  rep.report_cutoff_sec = o.have_report_cutoff ? o.report_cutoff_sec : o.cfg.pol.cutoff_sec;
  if (o.json)
    ebb_sim_print_json (stdout, &rep, 1);
  else
    ebb_sim_print_table (stdout, &rep);
  if ((o.jobs_csv && ebb_sim_write_jobs_csv (o.jobs_csv, &rep, &err) < 0)
      || (o.util_csv && ebb_sim_write_util_csv (o.util_csv, &rep, &err) < 0))
    {
      ebb_sim_result_clear (&res);
      goto fail;
    }
  ebb_sim_result_clear (&res);
  ebb_sim_trace_free (t);
  return 0;
fail:
  fprintf (stderr, "ebb-sim: %s\n", ebb_error_msg (&err));
  ebb_sim_trace_free (t);
  return 1;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "gen") == 0)
    return ebb_sim_gen_main (argc - 1, argv + 1);
  /* getopt names argv[0] in its messages: "ebb-sim:", as ours, however it was started. */
  argv[0] = (char *)"ebb-sim";
  return run_main (argc, argv);
}
