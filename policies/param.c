/* The one table of policy parameters (see param.h) and the parsing of a value by it. The
 * bounds are ebb-sim's (the controller had clamped some integers instead: steal-cap,
 * steal-limit, kill-attempts, gp-step; they are refused now, as ebb-sim refuses them). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/conf.h"
#include "lib/util.h"
#include "policies/param.h"

#define F(field)                                                                                   \
  .offset = offsetof (ebb_pol_params, field), .size = sizeof (((ebb_pol_params *)0)->field)

/* The names of the choices, each in the order of its field's constants. */
static const char *const samples[] = { "with", "without", NULL };
static const int sample_values[] = { 1, 0 }; /* sample_replacement */
static const char *const bigc_modes[] = { "fifo", "reserve", "kill", "ip", "gp", NULL };
static const char *const books[] = { "all", "memory", "none", NULL }; /* EBB_POL_BOOK_ALL.. */
static const char *const spec_modes[] = { "central", "decentral", NULL };
static const int spec_mode_values[] = { EBB_POL_SPEC_CENTRAL, EBB_POL_SPEC_DECENTRAL };
static const char *const dag_prios[] = { "remaining", "dag", "order", NULL }; /* EBB_DAG_PRIO_ */
static const char *const dag_bypasses[] = { "text", "single", NULL };         /* EBB_DAG_BYPASS_ */

#define BOTH   EBB_POL_PARAM_BOTH
#define SIM    EBB_POL_PARAM_SIM
#define DBL    EBB_POL_PARAM_DOUBLE
#define UINT   EBB_POL_PARAM_UINT
#define SWITCH EBB_POL_PARAM_SWITCH
#define CHOICE EBB_POL_PARAM_CHOICE
#define BYTES  EBB_POL_PARAM_BYTES

static const ebb_pol_param table[] = {
  { "cutoff", DBL, BOTH, F (cutoff_sec), 0, INFINITY, .metavar = "S",
    .help = "mean task duration >= S: long job (default: none, every job short; hawk needs "
            "it)" },
  { "short-partition", DBL, BOTH, F (short_part_pct), 0, 99.999, .metavar = "P",
    .policies = "hawk, eagle, ebb", .help = "% of nodes reserved for short jobs", .def = "2" },
  { "probe-ratio", DBL, BOTH, F (probe_ratio), 1, 1000, .metavar = "R", .help = "probes per task",
    .def = "2" },
  { "steal-cap", UINT, BOTH, F (steal_cap), 0, 1000000, .metavar = "K", .policies = "hawk, ebb",
    .help = "nodes an idle node contacts to steal", .def = "10" },
  { "steal-limit", UINT, BOTH, F (steal_limit), 1, UINT32_MAX - 1, .metavar = "K",
    .policies = "hawk, ebb", .help = "max probes stolen at once (default: no limit)" },
  { "net-delay", DBL, BOTH, F (net_delay_sec), 0, 3600, .metavar = "S",
    .help = "one-way network delay in seconds", .def = "0.0005" },
  { "seed", UINT, BOTH, F (seed), 0, (double)UINT64_MAX, .metavar = "N", .help = "random seed",
    .def = "1" },
  { "cancel-probes", SWITCH, BOTH, F (cancel_probes),
    .help = "cancel surplus probes once a job is launched (default in ebb-sim; in the "
            "controller: no)",
    .off_help = "keep surplus probes queued" },
  { "sample", CHOICE, BOTH, F (sample_replacement), .choices = samples, .values = sample_values,
    .metavar = "with|without", .help = "probe targets with or without replacement", .def = "with" },
  { "no-steal", SWITCH, BOTH, F (no_steal), .policies = "hawk, ebb",
    .help = "ablation: no work stealing", .def = "no" },
  { "no-partition", SWITCH, BOTH, F (no_partition), .policies = "hawk, eagle, ebb",
    .help = "ablation: no short partition", .def = "no" },
  { "no-central", SWITCH, BOTH, F (no_central), .policies = "hawk",
    .help = "ablation: long jobs probed too", .def = "no" },
  { "rotation-interval", DBL, BOTH, F (rotation_interval_sec), 1e-6, 1e6, .metavar = "S",
    .policies = "peacock", .help = "period of the ring's rotation rounds", .def = "1" },
  { "threshold-scale", DBL, BOTH, F (threshold_scale), 0, 1e6, .metavar = "K",
    .policies = "peacock", .help = "threshold = arrival + K x average load", .def = "1" },
  { "no-rotation", SWITCH, BOTH, F (no_rotation), .policies = "peacock",
    .help = "ablation: probes stay where they land", .def = "no" },
  { "node-cpu-millis", UINT, SIM, F (node_cap.cpu_millis), 1, (double)(UINT64_C (1) << 40),
    .metavar = "M", .policies = "resource policies", .help = "CPU of every node in millicores" },
  { "node-memory", BYTES, SIM, F (node_cap.memory_bytes), 0, (double)(UINT64_C (1) << 56),
    .metavar = "SIZE", .policies = "resource policies",
    .help = "memory of every node (bytes, or 128G, 512M, ...)" },
  { "mode", CHOICE, BOTH, F (bigc_mode), .choices = bigc_modes, .metavar = "M", .policies = "bigc",
    .help = "fifo, reserve, kill, ip or gp", .def = "gp" },
  { "kill-attempts", UINT, BOTH, F (kill_attempts), 1, 65535, .metavar = "K",
    .policies = "bigc, ebb", .help = "kills of one task that fail its job", .def = "4" },
  { "footprint-cpu-millis", UINT, BOTH, F (footprint.cpu_millis), 0, 1000000, .metavar = "M",
    .policies = "bigc, ebb", .help = "CPU a suspended task keeps", .def = "10" },
  { "footprint-memory", BYTES, BOTH, F (footprint.memory_bytes), 0, (double)(UINT64_C (1) << 56),
    .metavar = "SIZE", .policies = "bigc, ebb", .help = "memory a suspended task keeps",
    .def = "64M" },
  { "book-footprint", CHOICE, BOTH, F (book_footprint), .choices = books, .base = EBB_POL_BOOK_ALL,
    .metavar = "all|memory|none", .policies = "bigc, ebb",
    .help = "what of it the books count as held (default: ebb memory, bigc none)" },
  { "short-share", DBL, BOTH, F (short_share), 0, 1, .metavar = "F", .policies = "bigc",
    .help = "the short queue's share", .def = "0.95" },
  { "reserve-share", DBL, BOTH, F (reserve_share), 0, 0.999, .metavar = "F", .policies = "bigc",
    .help = "reserve mode: share kept for short jobs", .def = "0.6" },
  { "round-sec", DBL, BOTH, F (tick_sec), 0.001, 3600, .metavar = "S", .policies = "bigc, ebb",
    .help = "bigc's resource monitor period; ebb's round, D's unit (default 3)" },
  { "gp-step", EBB_POL_PARAM_GP_STEP, BOTH, F (gp_step), 1, 1024, .metavar = "U",
    .policies = "bigc", .help = "gp mode: step in units of <1 CPU, 2 GiB>", .def = "2" },
  { "resume-tries", UINT, BOTH, F (resume_tries), 0, 1000000, .metavar = "D",
    .policies = "bigc, ebb", .help = "delayed resumption D in rounds", .def = "3" },
  { "working-set", DBL, BOTH, F (working_set), 0, 1, .metavar = "F", .policies = "bigc",
    .help = "gp mode: share of a task's memory it needs", .def = "0.5" },
  { "natural-termination", DBL, BOTH, F (natural_term), 0, 1, .metavar = "F", .policies = "bigc",
    .help = "authors' damper on p, 0: off", .def = "0" },
  { "max-preempt-per-round", DBL, BOTH, F (max_round_share), 0, 1, .metavar = "F",
    .policies = "bigc", .help = "authors' cap per round, 0: off", .def = "0" },
  { "arrival-preempt", SWITCH, BOTH, F (arrival_preempt), .policies = "bigc",
    .help = "a short job without room preempts at its arrival", .def = "yes",
    .off_help = "only the rounds preempt, as in BIG-C's paper" },
  { "long-share", DBL, BOTH, F (long_share), 0, 1, .metavar = "S", .policies = "ebb",
    .help = "least share of its demand a long task keeps over the window (default 0.5)" },
  { "share-window", DBL, BOTH, F (share_window_sec), 1e-3, 1e9, .metavar = "SEC", .policies = "ebb",
    .help = "the window of long-share in seconds (default 600)" },
  { "hopper-mode", CHOICE, SIM, F (spec_mode), .choices = spec_modes, .values = spec_mode_values,
    .metavar = "central|decentral", .policies = "hopper, srpt",
    .help = "one scheduler or Sparrow-style workers", .def = "decentral" },
  { "epsilon", DBL, SIM, F (epsilon), 0, 1, .metavar = "E", .policies = "hopper",
    .help = "epsilon-fairness", .def = "0.1" },
  { "probes", DBL, SIM, F (hopper_probes), 1, 1000, .metavar = "D", .policies = "hopper",
    .help = "decentral mode: reservations per task, d", .def = "4" },
  { "refusals", UINT, SIM, F (refusals), 0, 1000, .metavar = "K", .policies = "hopper",
    .help = "decentral mode: refusals before Guideline 3", .def = "2" },
  { "beta", DBL, SIM, F (spec_beta), 1, 100, .min_open = true, .metavar = "B",
    .policies = "hopper, srpt", .help = "Pareto shape of task durations", .def = "1.5" },
  { "heartbeat", DBL, SIM, F (heartbeat_sec), 1e-6, 1e6, .metavar = "S", .policies = "hopper, srpt",
    .help = "period of LATE's straggler check", .def = "0.1" },
  { "node-net-mbps", UINT, SIM, F (node_net_mbps), 0, (double)(UINT64_C (1) << 40), .metavar = "M",
    .policies = "DAG policies", .help = "network of every node in Mbit/s, 0: not modeled",
    .def = "0" },
  { "kappa", DBL, BOTH, F (dag_kappa), 1e-6, 1, .metavar = "K", .policies = "graphene",
    .help = "unfairness bound K x cluster capacity", .def = "0.25" },
  { "queues", UINT, BOTH, F (dag_queues), 1, 1000000, .metavar = "Q", .policies = "graphene",
    .help = "queues sharing evenly, job j in queue j mod Q", .def = "1" },
  { "graphene-prio", CHOICE, BOTH, F (dag_prio), .choices = dag_prios,
    .metavar = "remaining|dag|order", .policies = "graphene",
    .help = "priScore rank among tasks left, all tasks, or plan order kept", .def = "remaining" },
  { "graphene-bypass", CHOICE, BOTH, F (dag_bypass), .choices = dag_bypasses,
    .metavar = "text|single", .policies = "graphene",
    .help = "skip the offline step for small or chain DAGs, or 1-task ones", .def = "text" },
};

/* See param.h. */
const ebb_pol_param *
ebb_pol_param_table (size_t *n)
{
  *n = EBB_ARRAY_SIZE (table);
  return table;
}

/* See param.h. */
const ebb_pol_param *
ebb_pol_param_find (const char *name, unsigned where)
{
  for (size_t i = 0; i < EBB_ARRAY_SIZE (table); i++)
    if ((table[i].where & where) && strcmp (table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

/* The largest integer of d (its max, which may be 2^64 as a double). */
static uint64_t
umax_of (const ebb_pol_param *d)
{
  return d->max >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d->max;
}

static int
parse_double (const ebb_pol_param *d, const char *s, double *out, ebb_error **err)
{
  char *end;
  errno = 0;
  double v = strtod (s, &end);
  if (end == s || *end || errno || !(v >= d->min && v <= d->max) || (d->min_open && v == d->min))
    return ebb_error_set (err, EBB_ERANGE, "expected a number in %c%g, %g]",
                          d->min_open ? '(' : '[', d->min, d->max);
  *out = v;
  return 0;
}

static int
parse_uint (const ebb_pol_param *d, const char *s, uint64_t *out, ebb_error **err)
{
  char *end;
  errno = 0;
  unsigned long long v = 0;
  if (*s != '-' && *s != '\0')
    v = strtoull (s, &end, 10);
  if (*s == '-' || *s == '\0' || *end || errno || v < (uint64_t)d->min || v > umax_of (d))
    return ebb_error_set (err, EBB_ERANGE, "expected an integer in [%llu, %llu]",
                          (unsigned long long)d->min, (unsigned long long)umax_of (d));
  *out = v;
  return 0;
}

static int
parse_choice (const ebb_pol_param *d, const char *s, int *out, ebb_error **err)
{
  size_t n = 0;
  while (d->choices[n])
    n++;
  for (size_t i = 0; i < n; i++)
    if (strcmp (s, d->choices[i]) == 0)
      {
        *out = d->values ? d->values[i] : (int)i + d->base;
        return 0;
      }
  cleanup_free char *list = ebb_xstrdup ("");
  for (size_t i = 0; i < n; i++)
    {
      char *more = ebb_xasprintf ("%s%s%s", list, d->choices[i],
                                  i + 2 < n   ? ", "
                                  : i + 1 < n ? " or "
                                              : "");
      free (list);
      list = more;
    }
  return ebb_error_set (err, EBB_EPARSE, "expected %s", list);
}

/* Stores an integer into the 4- or 8-byte field at f (the tables use no other size). */
static void
store_int (void *f, size_t size, uint64_t v)
{
  if (size == 8)
    memcpy (f, &v, 8);
  else
    {
      uint32_t w = (uint32_t)v;
      memcpy (f, &w, 4);
    }
}

/* See param.h. */
int
ebb_pol_param_set (const ebb_pol_param *d, void *obj, const char *value, ebb_error **err)
{
  char *f = (char *)obj + d->offset;
  /* Set by the parsers on success only: zero so gcc -O2 sees no use before a value. */
  double x = 0;
  uint64_t u = 0;
  int i = 0;
  bool b = false;
  switch (d->type)
    {
    case EBB_POL_PARAM_DOUBLE:
      if (parse_double (d, value, &x, err) < 0)
        return -EBB_ERANGE;
      memcpy (f, &x, sizeof x);
      return 0;
    case EBB_POL_PARAM_UINT:
      if (parse_uint (d, value, &u, err) < 0)
        return -EBB_ERANGE;
      store_int (f, d->size, u);
      return 0;
    case EBB_POL_PARAM_SWITCH:
      if (ebb_conf_parse_bool (value, &b) < 0)
        return ebb_error_set (err, EBB_EPARSE, "expected yes or no");
      store_int (f, d->size, b);
      return 0;
    case EBB_POL_PARAM_CHOICE:
      if (parse_choice (d, value, &i, err) < 0)
        return -EBB_EPARSE;
      store_int (f, d->size, (uint64_t)(uint32_t)i);
      return 0;
    case EBB_POL_PARAM_BYTES:
      if (ebb_conf_parse_bytes (value, &u) < 0 || u > umax_of (d))
        return ebb_error_set (err, EBB_ERANGE, "expected a size like 128G");
      store_int (f, d->size, u);
      return 0;
    case EBB_POL_PARAM_GP_STEP:
      if (parse_uint (d, value, &u, err) < 0)
        return -EBB_ERANGE;
      ebb_pol_res step
          = { .cpu_millis = (int64_t)u * 1000, .memory_bytes = (int64_t)u * (INT64_C (2) << 30) };
      memcpy (f, &step, sizeof step);
      return 0;
    }
  return ebb_error_set (err, EBB_EPARSE, "unknown parameter type %d", (int)d->type);
}

/* See param.h. */
void
ebb_pol_param_print_help (const ebb_pol_param *d, FILE *f, bool with_def)
{
  with_def = with_def && d->def;
  fprintf (f, "%s%s%s%s%s%s", d->policies ? d->policies : "", d->policies ? ": " : "", d->help,
           with_def ? " (default " : "", with_def ? d->def : "", with_def ? ")" : "");
}
