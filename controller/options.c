/* Options: ONE table (lib/conf.h) gives the config-file keys, the long options (key with
 * '-' for '_') and the --help text. Order: defaults, /etc/ebb/controller.conf and its
 * controller.conf.d drop-ins, then the command line (which wins; a list given there
 * replaces the file's list). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/ctl.h"
#include "controller/store.h"
#include "controller/options.h"
#include "lib/util.h"
#include "policies/param.h"

#define DEFAULT_CONFIG SYSCONFDIR "/ebb/controller.conf"

static int
validate_listen (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  const char *v = value;
  (void)s;
  if (strncmp (v, "unix:/", 6) == 0 || (strchr (v, ':') && v[0] != ':'))
    return 0;
  return ebb_error_set (err, EBB_EPARSE, "expected HOST:PORT or unix:/PATH");
}

static int
validate_policy_opt (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  (void)s;
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  char *one[] = { (char *)value, NULL };
  return ebb_ctl_policy_params (one, &p, err);
}

/* A policy of libebb-policy the controller can run: known (ebb falls back to hawk in a
 * build without it, daemon.c) and not speculative (copies of tasks: ebb-sim only). A policy with
 * timed probes (peacock) runs: the controller delivers them on a timer (sched-timed.c). */
int
ebb_ctl_policy_runnable (const char *name, ebb_error **err)
{
  const ebb_pol_ops *ops = ebb_pol_lookup (name);
  if (!ops && strcmp (name, "ebb") != 0)
    return ebb_error_set (err, EBB_EPARSE, "unknown policy '%s' (ebb-sim --list-policies)", name);
  if (ops && ops->speculative)
    return ebb_error_set (err, EBB_EPARSE,
                          "policy '%s' runs copies of tasks, which only ebb-sim supports so far",
                          name);
  /* A DAG policy (graphene, cp, tetris, random) runs: every batch of a job's tasks goes to
   * it with its graph (controller/sched-dag.c). */
  return 0;
}

/* Checked here so a wrong name is a configuration error (exit 2), in the file or on SIGHUP
 * too. */
static int
validate_policy (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  (void)s;
  return ebb_ctl_policy_runnable (value, err);
}

/* --store: a backend that store.c opens. */
static int
validate_store (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  const char *v = value, *kind = ebb_ctl_store_kind (v);
  if (kind && (strcmp (kind, "postgresql") == 0 || v[7] == '/'))
    return 0;
  return ebb_error_set (err, EINVAL, "%s: %s is neither sqlite:/ABSOLUTE/PATH nor postgresql://...",
                        s->name, v);
}

#define OFF(f) offsetof (ebb_ctl_config, f)

static const ebb_conf_setting table[] = {
  { .name = "listen",
    .type = EBB_CONF_STRLIST,
    .offset = OFF (listen),
    .umax = 4096,
    .validate = validate_listen,
    .help = "HOST:PORT or unix:PATH to serve the API on (repeatable; default "
            "unix:/run/ebb/controller.sock and 127.0.0.1:7480); TCP always needs the token" },
  { .name = "state_dir",
    .type = EBB_CONF_STRING,
    .offset = OFF (state_dir),
    .umax = 4096,
    .def = LOCALSTATEDIR "/lib/ebb/controller",
    .validate = ebb_conf_validate_abspath,
    .help = "SQLite database (WAL) and the generated token" },
  { .name = "store",
    .type = EBB_CONF_STRING,
    .offset = OFF (store),
    .umax = 4096,
    .validate = validate_store,
    .help = "sqlite:PATH or postgresql://... (a libpq URI: the shared, fenced store of "
            "replicated controllers); default sqlite:STATE_DIR/controller.db" },
  { .name = "policy",
    .type = EBB_CONF_STRING,
    .offset = OFF (policy),
    .umax = 64,
    .def = "ebb",
    .validate = validate_policy,
    .help = "scheduling policy of libebb-policy (as ebb-sim --policy)" },
  { .name = "policy_opt",
    .type = EBB_CONF_STRLIST,
    .offset = OFF (policy_opt),
    .umax = 256,
    .validate = validate_policy_opt,
    .help = "KEY=VALUE, a policy parameter named as ebb-sim's option, its switches taking "
            "yes or no (repeatable); KEYs:" },
  { .name = "node_timeout",
    .type = EBB_CONF_DURATION,
    .offset = OFF (node_timeout_usec),
    .umin = 100000,
    .umax = 3600000000ULL,
    .def = "15s",
    .help = "a node without heartbeat for this long is lost" },
  { .name = "token_file",
    .type = EBB_CONF_STRING,
    .offset = OFF (token_file),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "bearer token file, chmod 600, 16+ characters (for the TCP listeners and towards "
            "agents); default: STATE_DIR/token, generated at first start" },
  { .name = "tls_cert",
    .type = EBB_CONF_STRING,
    .offset = OFF (tls_cert),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "PEM certificate: the TCP listeners speak https (with tls_key)" },
  { .name = "tls_key",
    .type = EBB_CONF_STRING,
    .offset = OFF (tls_key),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "PEM private key of tls_cert (not accessible by others)" },
  { .name = "agent_ca",
    .type = EBB_CONF_STRING,
    .offset = OFF (agent_ca),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "PEM CA bundle that verifies agents called over https (default: the system's)" },
  { .name = "tick",
    .type = EBB_CONF_DURATION,
    .offset = OFF (tick_usec),
    .umin = 10000,
    .umax = 60000000ULL,
    .def = "1s",
    .help = "period of the policy tick and of the node timeout check" },
  { .name = "retry_max",
    .type = EBB_CONF_DURATION,
    .offset = OFF (retry_max_usec),
    .umin = 10000,
    .umax = 600000000ULL,
    .def = "10s",
    .help = "longest backoff between retries of an agent call" },
  { .name = "keep_finished",
    .type = EBB_CONF_UINT64,
    .offset = OFF (keep_finished),
    .umin = 0,
    .umax = 10000000,
    .def = "100",
    .help = "finished jobs kept in memory (the newest); older ones are answered from the store" },
  { .name = "max_queued_tasks",
    .type = EBB_CONF_UINT64,
    .offset = OFF (max_queued_tasks),
    .umin = 1,
    .umax = 100000000,
    .def = "100000",
    .help = "unfinished tasks of all jobs at most: a submission beyond is refused (429)" },
  { .name = "retain",
    .type = EBB_CONF_DURATION,
    .offset = OFF (retain_usec),
    .umin = 1000000,
    .umax = 87600ULL * 3600000000ULL,
    .def = "168h",
    .help = "finished jobs older than this leave the store, and decisions older than this" },
  { .name = "retain_jobs",
    .type = EBB_CONF_UINT64,
    .offset = OFF (retain_jobs),
    .umin = 0,
    .umax = 1000000000,
    .def = "100000",
    .help = "finished jobs kept in the store at most (the newest); older ones leave it" },
  { .name = "log_followers",
    .type = EBB_CONF_UINT64,
    .offset = OFF (log_followers),
    .umin = 1,
    .umax = 4096,
    .def = "64",
    .help = "task logs followed through the controller at once (each holds an agent connection)" },
  { .name = "etcd",
    .type = EBB_CONF_STRING,
    .offset = OFF (etcd),
    .umax = 4096,
    .help = "URL[,URL...] of etcd members: replicas elect a leader there, the others stand by "
            "(default: none, one controller)" },
  { .name = "etcd_prefix",
    .type = EBB_CONF_STRING,
    .offset = OFF (etcd_prefix),
    .umax = 256,
    .def = "/ebb/",
    .help = "etcd key prefix of the election (one per cluster)" },
  { .name = "lease_ttl",
    .type = EBB_CONF_DURATION,
    .offset = OFF (lease_ttl_usec),
    .umin = 2000000,
    .umax = 600000000ULL,
    .def = "5s",
    .help = "etcd lease of the leader: renewed every fifth of it, lost (exit) after 3/5 of it "
            "without renewal" },
  { .name = "advertise_url",
    .type = EBB_CONF_STRING,
    .offset = OFF (advertise_url),
    .umax = 4096,
    .help = "URL clients and standbys reach this instance at (default: the first TCP "
            "listener's)" },
  { .name = "etcd_ca",
    .type = EBB_CONF_STRING,
    .offset = OFF (etcd_ca),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "PEM CA bundle that verifies https etcd members (default: the system's)" },
  { .name = "etcd_cert",
    .type = EBB_CONF_STRING,
    .offset = OFF (etcd_cert),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "PEM client certificate towards etcd (its --client-cert-auth; with etcd_key)" },
  { .name = "etcd_key",
    .type = EBB_CONF_STRING,
    .offset = OFF (etcd_key),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "PEM private key of etcd_cert" },
  { .name = "etcd_user",
    .type = EBB_CONF_STRING,
    .offset = OFF (etcd_user),
    .umax = 256,
    .help = "etcd user (etcd auth; with etcd_password_file)" },
  { .name = "etcd_password_file",
    .type = EBB_CONF_STRING,
    .offset = OFF (etcd_password_file),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "file holding etcd_user's password (chmod 600)" },
  { .name = "verbose",
    .type = EBB_CONF_INT64,
    .offset = OFF (verbose),
    .min = 0,
    .max = 2,
    .help = "log level: 0 notice, 1 info, 2 debug (-v, -vv)" },
};

/* Returns the table and its size (the tests and the man page check them). */
const ebb_conf_setting *
ebb_ctl_conf_table (size_t *n)
{
  *n = EBB_ARRAY_SIZE (table);
  return table;
}

/* Applies one KEY=VALUE to p, by the table of policy parameters (policies/param.h). */
static int
policy_param (const char *item, ebb_pol_params *p, ebb_error **err)
{
  const char *eq = strchr (item, '=');
  if (!eq)
    return ebb_error_set (err, EBB_EPARSE, "policy option '%s': expected KEY=VALUE", item);
  cleanup_free char *key = strndup (item, (size_t)(eq - item));
  const ebb_pol_param *d = ebb_pol_param_find (key, EBB_POL_PARAM_CTL);
  if (!d)
    {
      size_t n;
      const ebb_pol_param *t = ebb_pol_param_table (&n);
      cleanup_free char *known = NULL;
      for (size_t i = 0; i < n; i++)
        if (t[i].where & EBB_POL_PARAM_CTL)
          {
            char *more = ebb_xasprintf ("%s%s%s", known ? known : "", known ? ", " : "", t[i].name);
            free (known);
            known = more;
          }
      return ebb_error_set (err, EBB_EPARSE, "unknown policy option '%s' (known: %s)", key, known);
    }
  cleanup_error ebb_error *why = NULL;
  int r = ebb_pol_param_set (d, p, eq + 1, &why);
  if (r < 0)
    return ebb_error_set (err, -r, "policy option %s: invalid '%s': %s", key, eq + 1,
                          ebb_error_msg (&why));
  return 0;
}

/* See ctl.h. */
int
ebb_ctl_policy_params (char *const *opts, ebb_pol_params *p, ebb_error **err)
{
  for (size_t i = 0; opts && opts[i]; i++)
    if (policy_param (opts[i], p, err) < 0)
      return -EBB_EPARSE;
  return 0;
}

enum
{
  OPT_CONFIG = 1000,
  OPT_HELP,
  OPT_VERSION,
  OPT_BASE, /* setting i is OPT_BASE + i */
};

/* The keys of --policy-opt, one a line under it: from the table of policy parameters. */
static void
usage_policy_params (FILE *f)
{
  size_t n;
  const ebb_pol_param *t = ebb_pol_param_table (&n);
  for (size_t i = 0; i < n; i++)
    if (t[i].where & EBB_POL_PARAM_CTL)
      {
        bool sw = t[i].type == EBB_POL_PARAM_SWITCH;
        cleanup_free char *kv = ebb_xasprintf ("%s=%s", t[i].name, sw ? "yes|no" : t[i].metavar);
        fprintf (f, "%6s%-26s ", "", kv);
        ebb_pol_param_print_help (&t[i], f, true);
        fputc ('\n', f);
      }
}

static void
usage (FILE *f)
{
  fprintf (f,
           "Usage: ebb-controller [OPTION...]\n"
           "The ebb cluster controller: takes jobs over REST, runs a libebb-policy\n"
           "scheduling policy in real time and drives the ebb-agents.\n\n"
           "  --config FILE   configuration file (default " DEFAULT_CONFIG ", then FILE.d/*.conf)\n"
           "  -v              more logging (-vv: debug)\n"
           "  -h, --help      this text\n"
           "  --version       the version\n\n"
           "Settings (--NAME VALUE on the command line, NAME = VALUE in the file;\n"
           "'-' and '_' are the same on the command line):\n");
  for (size_t i = 0; i < EBB_ARRAY_SIZE (table); i++)
    {
      cleanup_free char *opt = ebb_xstrdup (table[i].name);
      for (char *p = opt; *p; p++)
        if (*p == '_')
          *p = '-';
      fprintf (f, "  --%-14s %s%s%s%s\n", opt, table[i].help, table[i].def ? " (default " : "",
               table[i].def ? table[i].def : "", table[i].def ? ")" : "");
      if (table[i].offset == OFF (policy_opt))
        usage_policy_params (f);
    }
}

static struct option *
long_options (void)
{
  size_t n = EBB_ARRAY_SIZE (table);
  struct option *o = ebb_xcalloc (n * 2 + 5, sizeof *o);
  size_t k = 0;
  o[k++] = (struct option){ "config", required_argument, NULL, OPT_CONFIG };
  o[k++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
  o[k++] = (struct option){ "version", no_argument, NULL, OPT_VERSION };
  for (size_t i = 0; i < n; i++)
    {
      char *dash = ebb_xstrdup (table[i].name);
      for (char *p = dash; *p; p++)
        if (*p == '_')
          *p = '-';
      o[k++] = (struct option){ dash, required_argument, NULL, (int)(OPT_BASE + i) };
      if (strchr (table[i].name, '_'))
        o[k++] = (struct option){ ebb_xstrdup (table[i].name), required_argument, NULL,
                                  (int)(OPT_BASE + i) };
    }
  return o;
}

static void
long_options_free (struct option *o)
{
  for (size_t i = 3; o[i].name; i++)
    free ((char *)o[i].name);
  free (o);
}

/* Pass 1 finds --config and answers --help/--version; pass 2 applies the settings after the
 * file was read. Lists given on the command line replace the file's (cleared once). */
static int
parse (int argc, char **argv, ebb_ctl_config *cfg, int pass, ebb_error **err)
{
  struct option *lo = long_options ();
  bool cleared[EBB_ARRAY_SIZE (table)] = { false };
  int verbose = 0, c, r = 0;
  optind = 0;
  opterr = 0;
  while (r == 0 && (c = getopt_long (argc, argv, ":vh", lo, NULL)) != -1)
    {
      if (c == 'v')
        verbose++;
      else if (c == 'h' || c == OPT_HELP)
        r = pass == 1 ? (usage (stdout), 1) : 0;
      else if (c == OPT_VERSION)
        r = pass == 1 ? (printf ("ebb-controller %s\n", PACKAGE_VERSION), 1) : 0;
      else if (c == OPT_CONFIG)
        {
          if (pass == 1)
            {
              free (cfg->config_path);
              cfg->config_path = ebb_xstrdup (optarg);
              cfg->config_explicit = true;
            }
        }
      else if (c >= OPT_BASE && pass == 2)
        {
          size_t i = (size_t)(c - OPT_BASE);
          cleanup_free char *where = ebb_xasprintf ("--%s", lo[0].name ? table[i].name : "");
          for (char *p = where; *p; p++)
            if (*p == '_')
              *p = '-';
          if (table[i].type == EBB_CONF_STRLIST && !cleared[i])
            {
              ebb_conf_set (table, EBB_ARRAY_SIZE (table), cfg, table[i].name, "", NULL, NULL);
              cleared[i] = true;
            }
          r = ebb_conf_set (table, EBB_ARRAY_SIZE (table), cfg, table[i].name, optarg, where, err);
        }
      else if (c == '?' || c == ':')
        r = ebb_error_set (err, EINVAL, "%s '%s' (see --help)",
                           c == ':' ? "missing value for" : "unknown option",
                           argv[optind - 1] ? argv[optind - 1] : "");
    }
  if (r == 0 && optind < argc)
    r = ebb_error_set (err, EINVAL, "unexpected argument '%s'", argv[optind]);
  if (r == 0 && pass == 2 && verbose)
    cfg->verbose = verbose > 2 ? 2 : verbose;
  long_options_free (lo);
  return r;
}

static int
load (ebb_ctl_config *cfg, ebb_error **err)
{
  if (ebb_conf_defaults (table, EBB_ARRAY_SIZE (table), cfg, err) < 0)
    return -EINVAL;
  if (ebb_conf_load (table, EBB_ARRAY_SIZE (table), cfg, cfg->config_path,
                     cfg->config_explicit ? 0 : EBB_CONF_OPTIONAL, err)
      < 0)
    return -EBB_EPARSE;
  return parse (cfg->argc, cfg->argv, cfg, 2, err);
}

/* See ctl.h. */
int
ebb_ctl_parse_args (int argc, char **argv, ebb_ctl_config *cfg, ebb_error **err)
{
  cfg->argc = argc;
  cfg->argv = argv;
  cfg->config_path = ebb_xstrdup (DEFAULT_CONFIG);
  int r = parse (argc, argv, cfg, 1, err);
  if (r != 0)
    return r;
  return load (cfg, err);
}

/* See ctl.h. */
int
ebb_ctl_reload_config (ebb_ctl_config *cfg, ebb_error **err)
{
  ebb_ctl_config n = { 0 };
  n.argc = cfg->argc;
  n.argv = cfg->argv;
  n.config_path = ebb_xstrdup (cfg->config_path);
  n.config_explicit = cfg->config_explicit;
  if (load (&n, err) < 0)
    {
      ebb_ctl_config_free (&n);
      return -EBB_EPARSE;
    }
  /* Only what can change at run time: the rest (listeners, state dir, policy, token) needs
   * a restart, as ebb-controller(8) says. */
  cfg->node_timeout_usec = n.node_timeout_usec;
  cfg->retry_max_usec = n.retry_max_usec;
  cfg->keep_finished = n.keep_finished;
  cfg->max_queued_tasks = n.max_queued_tasks;
  cfg->retain_usec = n.retain_usec;
  cfg->retain_jobs = n.retain_jobs;
  cfg->verbose = n.verbose;
  ebb_ctl_config_free (&n);
  return 0;
}

/* See ctl.h. */
void
ebb_ctl_config_free (ebb_ctl_config *cfg)
{
  ebb_conf_free (table, EBB_ARRAY_SIZE (table), cfg);
  free (cfg->config_path);
  cfg->config_path = NULL;
}
