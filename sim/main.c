/* ebb-sim: trace-driven simulator of libebb-policy. main() parses options and hands over to
 * the engine (sim/engine.c); `ebb-sim gen` writes synthetic traces (sim/trace.c). */
#include "config.h"

#include "lib/conf.h"
#include "lib/error.h"
#include "lib/time.h"
#include "lib/util.h"
#include "policies/policy.h"
#include "sim/engine.h"
#include "sim/report.h"
#include "sim/trace.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>

enum
{
  OPT_CUTOFF = 256,
  OPT_REPORT_CUTOFF,
  OPT_SHORT_PART,
  OPT_PROBE_RATIO,
  OPT_STEAL_CAP,
  OPT_STEAL_LIMIT,
  OPT_NET_DELAY,
  OPT_LAUNCH_DELAY,
  OPT_FINISH_DELAY,
  OPT_SEED,
  OPT_JOBS_CSV,
  OPT_JSON,
  OPT_CANCEL,
  OPT_NO_CANCEL,
  OPT_SAMPLE,
  OPT_TRUNCATE,
  OPT_NO_TRUNCATE,
  OPT_NO_STEAL,
  OPT_NO_PARTITION,
  OPT_NO_CENTRAL,
  OPT_ROTATION_INTERVAL,
  OPT_THRESHOLD_SCALE,
  OPT_NO_ROTATION,
  OPT_LIST,
  OPT_UTIL_CSV,
  OPT_UTIL_INTERVAL,
  OPT_VERSION,
  OPT_MODE,
  OPT_NODE_CPU,
  OPT_NODE_MEM,
  OPT_KILL_ATTEMPTS,
  OPT_RECLAIM,
  OPT_RESUME_COST,
  OPT_FOOT_CPU,
  OPT_FOOT_MEM,
  OPT_BOOK_FOOT,
  OPT_COSTS,
  OPT_SHORT_SHARE,
  OPT_RESERVE_SHARE,
  OPT_ROUND,
  OPT_GP_STEP,
  OPT_RESUME_TRIES,
  OPT_WORKING_SET,
  OPT_NATURAL_TERM,
  OPT_ROUND_CAP,
  OPT_ARRIVAL_PREEMPT,
  OPT_NO_ARRIVAL_PREEMPT,
  OPT_LONG_SHARE,
  OPT_SHARE_WINDOW,
  /* Speculation (hopper, srpt). */
  OPT_HOPPER_MODE,
  OPT_EPSILON,
  OPT_PROBES,
  OPT_REFUSALS,
  OPT_BETA,
  OPT_HEARTBEAT,
  OPT_NODE_NET,
  OPT_KAPPA,
  OPT_QUEUES,
  OPT_GRAPHENE_PRIO,
  OPT_GRAPHENE_BYPASS,
};

/* The one table of ebb-sim's options: the getopt table and --help are built from it (and
 * man/ebb-sim.1 documents every entry). Entries with a NULL help share the previous line. */
typedef struct sim_opt
{
  const char *name;
  int has_arg;
  int val;
  const char *metavar;
  const char *help;
} sim_opt;

static const sim_opt run_opts[] = {
  { "policy", required_argument, 'p', "NAME",
    "fifo, sparrow, hawk, bigc, eagle, peacock, ebb, hopper, srpt; DAG: graphene, cp, tetris, "
    "random" },
  { "nodes", required_argument, 'n', "N", "nodes in the cluster" },
  { "trace", required_argument, 't', "FILE", "Hawk/Eagle trace or JSON lines (\"-\": stdin)" },
  { "cutoff", required_argument, OPT_CUTOFF, "S", "mean task duration >= S: long job (hawk)" },
  { "report-cutoff", required_argument, OPT_REPORT_CUTOFF, "S",
    "class boundary in the report (default: --cutoff)" },
  { "short-partition", required_argument, OPT_SHORT_PART, "P",
    "% of nodes reserved for short jobs (default 2)" },
  { "probe-ratio", required_argument, OPT_PROBE_RATIO, "R", "probes per task (default 2)" },
  { "steal-cap", required_argument, OPT_STEAL_CAP, "K",
    "nodes an idle node contacts to steal (default 10)" },
  { "steal-limit", required_argument, OPT_STEAL_LIMIT, "K",
    "max probes stolen at once (default: no limit)" },
  { "net-delay", required_argument, OPT_NET_DELAY, "S",
    "one-way network delay in seconds (default 0.0005)" },
  { "launch-delay", required_argument, OPT_LAUNCH_DELAY, "S",
    "a task starts S s after its launch decision (default 0)" },
  { "finish-delay", required_argument, OPT_FINISH_DELAY, "S",
    "a task's end is known S s after its work (default 0)" },
  { "seed", required_argument, OPT_SEED, "N", "random seed (default 1)" },
  { "jobs-csv", required_argument, OPT_JOBS_CSV, "FILE", "write one line per job" },
  { "json", no_argument, OPT_JSON, NULL, "print one JSON object instead of the table" },
  { "util-interval", required_argument, OPT_UTIL_INTERVAL, "S",
    "utilization snapshot period (default 100; 0: none)" },
  { "util-csv", required_argument, OPT_UTIL_CSV, "FILE", "write the snapshots (time,utilization)" },
  { "cancel-probes", no_argument, OPT_CANCEL, NULL,
    "cancel surplus probes once a job is launched (default)" },
  { "no-cancel-probes", no_argument, OPT_NO_CANCEL, NULL, "keep surplus probes queued" },
  { "sample", required_argument, OPT_SAMPLE, "with|without",
    "probe targets with or without replacement (default: with)" },
  { "truncate", no_argument, OPT_TRUNCATE, NULL, "truncate durations to whole seconds" },
  { "no-truncate", no_argument, OPT_NO_TRUNCATE, NULL, "keep durations as read (default)" },
  { "no-steal", no_argument, OPT_NO_STEAL, NULL, "Hawk ablation: no work stealing" },
  { "no-partition", no_argument, OPT_NO_PARTITION, NULL, "Hawk ablation: no short partition" },
  { "no-central", no_argument, OPT_NO_CENTRAL, NULL, "Hawk ablation: long jobs probed too" },
  { "rotation-interval", required_argument, OPT_ROTATION_INTERVAL, "S",
    "peacock: period of the ring's rotation rounds (default 1)" },
  { "threshold-scale", required_argument, OPT_THRESHOLD_SCALE, "K",
    "peacock: threshold = arrival + K x average load (default 1)" },
  { "no-rotation", no_argument, OPT_NO_ROTATION, NULL,
    "peacock ablation: probes stay where they land" },
  { "node-cpu-millis", required_argument, OPT_NODE_CPU, "M",
    "CPU of every node in millicores (resource policies)" },
  { "node-memory", required_argument, OPT_NODE_MEM, "SIZE",
    "memory of every node (bytes, or 128G, 512M, ...)" },
  { "mode", required_argument, OPT_MODE, "M", "bigc: fifo, reserve, kill, ip or gp (default gp)" },
  { "kill-attempts", required_argument, OPT_KILL_ATTEMPTS, "K",
    "kills of one task that fail its job (default 4)" },
  { "costs", required_argument, OPT_COSTS, "bigc|ebb-agent",
    "preset of the preemption costs (default bigc)" },
  { "reclaim-sec-per-gib", required_argument, OPT_RECLAIM, "S",
    "memory freed by a suspension, s/GiB (default 3)" },
  { "resume-sec-per-gib", required_argument, OPT_RESUME_COST, "S",
    "memory reloaded by a resumption, s/GiB (default 3)" },
  { "footprint-cpu-millis", required_argument, OPT_FOOT_CPU, "M",
    "CPU a suspended task keeps (default 10)" },
  { "footprint-memory", required_argument, OPT_FOOT_MEM, "SIZE",
    "memory a suspended task keeps (default 64M)" },
  { "book-footprint", required_argument, OPT_BOOK_FOOT, "all|memory|none",
    "what of it the books count as held (default: ebb memory, bigc none)" },
  { "short-share", required_argument, OPT_SHORT_SHARE, "F",
    "bigc: the short queue's share (default 0.95)" },
  { "reserve-share", required_argument, OPT_RESERVE_SHARE, "F",
    "bigc reserve: share kept for short jobs (default 0.6)" },
  { "round-sec", required_argument, OPT_ROUND, "S",
    "bigc: resource monitor period; ebb: round, D's unit (default 3)" },
  { "gp-step", required_argument, OPT_GP_STEP, "U",
    "bigc gp: step in units of <1 CPU, 2 GiB> (default 2)" },
  { "resume-tries", required_argument, OPT_RESUME_TRIES, "D",
    "bigc, ebb: delayed resumption D in rounds (default 3)" },
  { "working-set", required_argument, OPT_WORKING_SET, "F",
    "bigc gp: share of a task's memory it needs (default 0.5)" },
  { "natural-termination", required_argument, OPT_NATURAL_TERM, "F",
    "bigc: authors' damper on p (default 0: off)" },
  { "max-preempt-per-round", required_argument, OPT_ROUND_CAP, "F",
    "bigc: authors' cap per round (default 0: off)" },
  { "arrival-preempt", no_argument, OPT_ARRIVAL_PREEMPT, NULL,
    "bigc: a short job without room preempts at its arrival (default)" },
  { "no-arrival-preempt", no_argument, OPT_NO_ARRIVAL_PREEMPT, NULL,
    "bigc: only the rounds preempt, as in BIG-C's paper" },
  { "long-share", required_argument, OPT_LONG_SHARE, "S",
    "ebb: least share of its demand a long task keeps over the window (default 0.5)" },
  { "share-window", required_argument, OPT_SHARE_WINDOW, "SEC",
    "ebb: the window of --long-share in seconds (default 600)" },
  { "hopper-mode", required_argument, OPT_HOPPER_MODE, "central|decentral",
    "hopper and srpt: one scheduler or Sparrow-style workers (default decentral)" },
  { "epsilon", required_argument, OPT_EPSILON, "E", "hopper: epsilon-fairness (default 0.1)" },
  { "probes", required_argument, OPT_PROBES, "D",
    "hopper decentral: reservations per task, d (default 4)" },
  { "refusals", required_argument, OPT_REFUSALS, "K",
    "hopper decentral: refusals before Guideline 3 (default 2)" },
  { "beta", required_argument, OPT_BETA, "B",
    "hopper, srpt: Pareto shape of task durations (default 1.5)" },
  { "heartbeat", required_argument, OPT_HEARTBEAT, "S",
    "hopper, srpt: period of LATE's straggler check (default 0.1)" },
  { "node-net-mbps", required_argument, OPT_NODE_NET, "M",
    "DAG policies: network of every node in Mbit/s (default 0: not modeled)" },
  { "kappa", required_argument, OPT_KAPPA, "K",
    "graphene: unfairness bound K x cluster capacity, 0 < K <= 1 (default 0.25)" },
  { "queues", required_argument, OPT_QUEUES, "Q",
    "DAG policies: queues sharing evenly, job j in queue j mod Q (default 1)" },
  { "graphene-prio", required_argument, OPT_GRAPHENE_PRIO, "remaining|dag|order",
    "graphene: priScore rank among tasks left (default), all tasks, or plan order kept" },
  { "graphene-bypass", required_argument, OPT_GRAPHENE_BYPASS, "text|single",
    "graphene: skip the offline step for small or chain DAGs (default), or 1-task ones" },
  { "list-policies", no_argument, OPT_LIST, NULL, "list the policies and exit" },
  { "help", no_argument, 'h', NULL, "this text; `ebb-sim gen --help` for generators" },
  { "version", no_argument, OPT_VERSION, NULL, "print the version and exit" },
};

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

static void
usage (FILE *f)
{
  fprintf (f, "Usage: ebb-sim --policy NAME --nodes N --trace FILE [OPTION...]\n"
              "       ebb-sim gen GENERATOR [GEN-OPTION...]\n"
              "Simulates a scheduling policy of libebb-policy on a Hawk/Eagle or JSON-lines\n"
              "trace.\n\n");
  for (size_t i = 0; i < EBB_ARRAY_SIZE (run_opts); i++)
    {
      const sim_opt *o = &run_opts[i];
      char head[64];
      int n = snprintf (head, sizeof head, "%s--%s%s%s", o->val < 128 ? "" : "    ", o->name,
                        o->metavar ? " " : "", o->metavar ? o->metavar : "");
      if (o->val < 128)
        fprintf (f, "  -%c, %s", o->val, head);
      else
        fprintf (f, "  %s", head);
      if (o->val < 128)
        n += 4;
      if (n < 24)
        fprintf (f, "%*s %s\n", 24 - n, "", o->help);
      else
        fprintf (f, "\n%27s%s\n", "", o->help);
    }
}

static int
parse_double (const char *opt, const char *s, double min, double max, double *out)
{
  char *end;
  errno = 0;
  double v = strtod (s, &end);
  if (end == s || *end || errno || !(v >= min && v <= max))
    {
      fprintf (stderr, "ebb-sim: invalid %s '%s': expected a number in [%g, %g]\n", opt, s, min,
               max);
      return -1;
    }
  *out = v;
  return 0;
}

static int
parse_u64 (const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
  char *end;
  errno = 0;
  if (*s == '-' || *s == '\0')
    goto bad;
  unsigned long long v = strtoull (s, &end, 10);
  if (*end || errno || v < min || v > max)
    goto bad;
  *out = v;
  return 0;
bad:
  fprintf (stderr, "ebb-sim: invalid %s '%s': expected an integer in [%llu, %llu]\n", opt, s,
           (unsigned long long)min, (unsigned long long)max);
  return -1;
}

/* parse_u64 into a narrower field of the parameters (max fits it); 0 or -1. */
#define PARSE_INTO(opt, s, min, max, field)                                                        \
  ({                                                                                               \
    uint64_t u_;                                                                                   \
    int r_ = parse_u64 (opt, s, min, max, &u_);                                                    \
    if (r_ == 0)                                                                                   \
      (field) = (__typeof__ (field))u_;                                                            \
    r_;                                                                                            \
  })

/* Returns the index of arg in names[0..n), or -1 after "invalid OPT 'arg': expected a, b
 * or c" on stderr. */
static int
parse_choice (const char *opt, const char *arg, const char *const *names, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (arg, names[i]) == 0)
      return (int)i;
  fprintf (stderr, "ebb-sim: invalid %s '%s': expected ", opt, arg);
  for (size_t i = 0; i < n; i++)
    fprintf (stderr, "%s%s", names[i], i + 2 < n ? ", " : i + 1 < n ? " or " : "\n");
  return -1;
}

/* parse_choice into a field of the parameters: the index of arg in names (a static array)
 * plus base; 0 or -1. */
#define CHOOSE_INTO(opt, arg, names, base, field)                                                  \
  ({                                                                                               \
    int i_ = parse_choice (opt, arg, names, EBB_ARRAY_SIZE (names));                               \
    if (i_ >= 0)                                                                                   \
      (field) = (__typeof__ (field))(i_ + (base));                                                 \
    i_ < 0 ? -1 : 0;                                                                               \
  })

/* The values of the choice options, each in the order of its field's constants. */
static const char *const bigc_modes[] = { "fifo", "reserve", "kill", "ip", "gp" }; /* BIGC_* */
static const char *const books[] = { "all", "memory", "none" }; /* EBB_POL_BOOK_ALL.. */
static const char *const graphene_prios[] = { "remaining", "dag", "order" }; /* EBB_DAG_PRIO_* */
static const char *const graphene_bypasses[] = { "text", "single" };         /* EBB_DAG_BYPASS_* */

/* The options of the speculative policies (hopper, srpt). */
static int
handle_spec_opt (ebb_pol_params *p, int c, const char *arg)
{
  switch (c)
    {
    case OPT_HOPPER_MODE:
      {
        static const char *const modes[] = { "central", "decentral" };
        int i = parse_choice ("--hopper-mode", arg, modes, EBB_ARRAY_SIZE (modes));
        if (i < 0)
          return -1;
        p->spec_mode = i == 0 ? EBB_POL_SPEC_CENTRAL : EBB_POL_SPEC_DECENTRAL;
        return 0;
      }
    case OPT_EPSILON:
      return parse_double ("--epsilon", arg, 0, 1, &p->epsilon);
    case OPT_PROBES:
      return parse_double ("--probes", arg, 1, 1000, &p->hopper_probes);
    case OPT_REFUSALS:
      return PARSE_INTO ("--refusals", arg, 0, 1000, p->refusals);
    case OPT_BETA:
      if (parse_double ("--beta", arg, 1, 100, &p->spec_beta) < 0)
        return -1;
      if (p->spec_beta <= 1)
        {
          fprintf (stderr, "ebb-sim: invalid --beta '%s': must be > 1\n", arg);
          return -1;
        }
      return 0;
    default:
      return parse_double ("--heartbeat", arg, 1e-6, 1e6, &p->heartbeat_sec);
    }
}

/* Handles one option; returns 0, 1 to exit successfully (help), -1 on a bad value. */
static int
handle_opt (sim_opts *o, int c, const char *arg)
{
  ebb_pol_params *p = &o->cfg.pol;
  uint64_t u;
  switch (c)
    {
    case 'p':
      o->cfg.policy = arg;
      return 0;
    case 'n':
      return PARSE_INTO ("--nodes", arg, 1, 100000000, p->nnodes);
    case 't':
      o->trace = arg;
      return 0;
    case OPT_CUTOFF:
      return parse_double ("--cutoff", arg, 0, INFINITY, &p->cutoff_sec);
    case OPT_REPORT_CUTOFF:
      o->have_report_cutoff = 1;
      return parse_double ("--report-cutoff", arg, 0, INFINITY, &o->report_cutoff_sec);
    case OPT_SHORT_PART:
      return parse_double ("--short-partition", arg, 0, 99.999, &p->short_part_pct);
    case OPT_PROBE_RATIO:
      return parse_double ("--probe-ratio", arg, 1, 1000, &p->probe_ratio);
    case OPT_STEAL_CAP:
      return PARSE_INTO ("--steal-cap", arg, 0, 1000000, p->steal_cap);
    case OPT_STEAL_LIMIT:
      return PARSE_INTO ("--steal-limit", arg, 1, UINT32_MAX - 1, p->steal_limit);
    case OPT_NET_DELAY:
      return parse_double ("--net-delay", arg, 0, 3600, &p->net_delay_sec);
    case OPT_LAUNCH_DELAY:
      return parse_double ("--launch-delay", arg, 0, 3600, &o->cfg.launch_delay_sec);
    case OPT_FINISH_DELAY:
      return parse_double ("--finish-delay", arg, 0, 3600, &o->cfg.finish_delay_sec);
    case OPT_SEED:
      return parse_u64 ("--seed", arg, 0, UINT64_MAX, &p->seed);
    case OPT_JOBS_CSV:
      o->jobs_csv = arg;
      return 0;
    case OPT_JSON:
      o->json = 1;
      return 0;
    case OPT_UTIL_CSV:
      o->util_csv = arg;
      return 0;
    case OPT_UTIL_INTERVAL:
      return parse_double ("--util-interval", arg, 0, 1e9, &o->cfg.util_interval_sec);
    case OPT_CANCEL:
    case OPT_NO_CANCEL:
      p->cancel_probes = c == OPT_CANCEL;
      return 0;
    case OPT_SAMPLE:
      {
        static const char *const kinds[] = { "with", "without" };
        int i = parse_choice ("--sample", arg, kinds, EBB_ARRAY_SIZE (kinds));
        if (i < 0)
          return -1;
        p->sample_replacement = i == 0;
        return 0;
      }
    case OPT_TRUNCATE:
    case OPT_NO_TRUNCATE:
      o->truncate = c == OPT_TRUNCATE;
      return 0;
    case OPT_NO_STEAL:
      p->no_steal = 1;
      return 0;
    case OPT_NO_PARTITION:
      p->no_partition = 1;
      return 0;
    case OPT_NO_CENTRAL:
      p->no_central = 1;
      return 0;
    case OPT_ROTATION_INTERVAL:
      return parse_double ("--rotation-interval", arg, 1e-6, 1e6, &p->rotation_interval_sec);
    case OPT_THRESHOLD_SCALE:
      return parse_double ("--threshold-scale", arg, 0, 1e6, &p->threshold_scale);
    case OPT_NO_ROTATION:
      p->no_rotation = 1;
      return 0;
    case OPT_MODE:
      return CHOOSE_INTO ("--mode", arg, bigc_modes, 0, p->bigc_mode);
    case OPT_NODE_CPU:
      return PARSE_INTO ("--node-cpu-millis", arg, 1, UINT64_C (1) << 40, p->node_cap.cpu_millis);
    case OPT_NODE_MEM:
    case OPT_FOOT_MEM:
      if (ebb_conf_parse_bytes (arg, &u) < 0 || u > (UINT64_C (1) << 56))
        {
          fprintf (stderr, "ebb-sim: invalid %s '%s': expected a size like 128G\n",
                   c == OPT_NODE_MEM ? "--node-memory" : "--footprint-memory", arg);
          return -1;
        }
      if (c == OPT_NODE_MEM)
        p->node_cap.memory_bytes = (int64_t)u;
      else
        p->footprint.memory_bytes = (int64_t)u;
      return 0;
    case OPT_FOOT_CPU:
      return PARSE_INTO ("--footprint-cpu-millis", arg, 0, 1000000, p->footprint.cpu_millis);
    case OPT_BOOK_FOOT: /* 0 stays the policy's default */
      return CHOOSE_INTO ("--book-footprint", arg, books, EBB_POL_BOOK_ALL, p->book_footprint);
    case OPT_KILL_ATTEMPTS:
      return PARSE_INTO ("--kill-attempts", arg, 1, 65535, p->kill_attempts);
    case OPT_RECLAIM:
      return parse_double ("--reclaim-sec-per-gib", arg, 0, 3600, &o->cfg.reclaim_sec_per_gib);
    case OPT_RESUME_COST:
      return parse_double ("--resume-sec-per-gib", arg, 0, 3600, &o->cfg.resume_sec_per_gib);
    case OPT_COSTS:
      {
        static const char *const presets[] = { "bigc", "ebb-agent" };
        int i = parse_choice ("--costs", arg, presets, EBB_ARRAY_SIZE (presets));
        if (i < 0)
          return -1;
        (i == 0 ? ebb_sim_config_costs_bigc : ebb_sim_config_costs_ebb_agent) (&o->cfg);
        return 0;
      }
    case OPT_SHORT_SHARE:
      return parse_double ("--short-share", arg, 0, 1, &p->short_share);
    case OPT_RESERVE_SHARE:
      return parse_double ("--reserve-share", arg, 0, 0.999, &p->reserve_share);
    case OPT_ROUND:
      return parse_double ("--round-sec", arg, 0.001, 3600, &p->tick_sec);
    case OPT_GP_STEP:
      if (parse_u64 ("--gp-step", arg, 1, 1024, &u) < 0)
        return -1;
      p->gp_step = (ebb_pol_res){ .cpu_millis = (int64_t)u * 1000,
                                  .memory_bytes = (int64_t)u * (INT64_C (2) << 30) };
      return 0;
    case OPT_LONG_SHARE:
      return parse_double ("--long-share", arg, 0, 1, &p->long_share);
    case OPT_SHARE_WINDOW:
      return parse_double ("--share-window", arg, 1e-3, 1e9, &p->share_window_sec);
    case OPT_NODE_NET:
      return PARSE_INTO ("--node-net-mbps", arg, 0, UINT64_C (1) << 40, p->node_net_mbps);
    case OPT_KAPPA:
      return parse_double ("--kappa", arg, 1e-6, 1, &p->dag_kappa);
    case OPT_GRAPHENE_PRIO:
      return CHOOSE_INTO ("--graphene-prio", arg, graphene_prios, 0, p->dag_prio);
    case OPT_GRAPHENE_BYPASS:
      return CHOOSE_INTO ("--graphene-bypass", arg, graphene_bypasses, 0, p->dag_bypass);
    case OPT_QUEUES:
      return PARSE_INTO ("--queues", arg, 1, 1000000, p->dag_queues);
    case OPT_RESUME_TRIES:
      return PARSE_INTO ("--resume-tries", arg, 0, 1000000, p->resume_tries);
    case OPT_WORKING_SET:
      return parse_double ("--working-set", arg, 0, 1, &p->working_set);
    case OPT_NATURAL_TERM:
      return parse_double ("--natural-termination", arg, 0, 1, &p->natural_term);
    case OPT_ROUND_CAP:
      return parse_double ("--max-preempt-per-round", arg, 0, 1, &p->max_round_share);
    case OPT_ARRIVAL_PREEMPT:
    case OPT_NO_ARRIVAL_PREEMPT:
      p->arrival_preempt = c == OPT_ARRIVAL_PREEMPT;
      return 0;
    case OPT_HOPPER_MODE:
    case OPT_EPSILON:
    case OPT_PROBES:
    case OPT_REFUSALS:
    case OPT_BETA:
    case OPT_HEARTBEAT:
      return handle_spec_opt (p, c, arg);
    }
  return -1;
}

static int
parse_run_args (sim_opts *o, int argc, char **argv)
{
  int c;
  struct option longopts[EBB_ARRAY_SIZE (run_opts) + 1];
  for (size_t i = 0; i < EBB_ARRAY_SIZE (run_opts); i++)
    longopts[i] = (struct option){ run_opts[i].name, run_opts[i].has_arg, NULL, run_opts[i].val };
  longopts[EBB_ARRAY_SIZE (run_opts)] = (struct option){ NULL, 0, NULL, 0 };
  while ((c = getopt_long (argc, argv, "p:n:t:h", longopts, NULL)) != -1)
    {
      if (c == 'h')
        {
          usage (stdout);
          return 1;
        }
      if (c == OPT_VERSION)
        {
          printf ("ebb-sim %s\n", PACKAGE_VERSION);
          return 1;
        }
      if (c == OPT_LIST)
        {
          for (const ebb_pol_ops *const *l = ebb_pol_list (); *l; l++)
            printf ("%-10s %s\n", (*l)->name, (*l)->summary);
          return 1;
        }
      if (c == '?' || handle_opt (o, c, optarg) < 0)
        {
          fprintf (stderr, "Try 'ebb-sim --help'.\n");
          return -1;
        }
    }
  if (optind < argc)
    {
      fprintf (stderr, "ebb-sim: unexpected argument '%s'\nTry 'ebb-sim --help'.\n", argv[optind]);
      return -1;
    }
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
