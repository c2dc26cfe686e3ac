/* Options: one table (lib/conf.h) for /etc/ebb/agent.conf and the command line; the
 * command line wins, a list given there replaces the file's list. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/ident.h"
#include "agent/options.h"
#include "agent/task.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "lib/util.h"

/* True when url is plain http://, loopback included: the token would go to whoever holds
 * that TCP port (after the controller stops, any local user can bind 127.0.0.1:PORT). It goes
 * only over unix:/PATH (a path in /run/ebb a user cannot take) or https:// (verified). */
bool
ebb_agent_url_exposes_token (const char *url)
{
  return url && (strncmp (url, "http://", 7) == 0 || strstr (url, ",http://"));
}

#define DEFAULT_CONFIG SYSCONFDIR "/ebb/agent.conf"

/* http://, https:// or unix:/PATH, printable, no blanks: it goes into JSON and a curl URL. */
static int
validate_url (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  const char *v = value;
  (void)s;
  if (strncmp (v, "http://", 7) != 0 && strncmp (v, "https://", 8) != 0
      && strncmp (v, "unix:/", 6) != 0)
    return ebb_error_set (err, EBB_EPARSE, "must start with http://, https:// or unix:/");
  for (const char *p = v; *p; p++)
    if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
      return ebb_error_set (err, EBB_EPARSE, "must be printable ASCII without blanks");
  return 0;
}

/* URL[,URL...]: the controller's replicas (heartbeats follow the leader), each a URL. */
static int
validate_url_list (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  cleanup_free char *list = ebb_xstrdup (value);
  char *save = NULL;
  for (char *u = strtok_r (list, ",", &save); u; u = strtok_r (NULL, ",", &save))
    if (validate_url (s, u, err) < 0)
      return ebb_error_wrap (err, "%s", u);
  return 0;
}

/* unix:/PATH or HOST:PORT (the server checks the rest when it binds). */
static int
validate_listen (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  const char *v = value;
  (void)s;
  if (strncmp (v, "unix:", 5) == 0 ? v[5] != '/' : !strrchr (v, ':'))
    return ebb_error_set (err, EBB_EPARSE, "must be unix:/PATH or HOST:PORT");
  return 0;
}

/* "none", or "LO-HI" of uids at or above the first regular one. */
static int
validate_uid_range (const ebb_conf_setting *s, const void *value, ebb_error **err)
{
  uid_t lo, hi;
  (void)s;
  if (strcmp (value, "none") == 0 || ebb_agent_uid_range (value, &lo, &hi))
    return 0;
  return ebb_error_set (err, EBB_EPARSE, "must be \"none\" or LO-HI with %d <= LO <= HI < 2^31",
                        EBB_AGENT_FIRST_REGULAR_ID);
}

#define S_STR(n, f, d, v, h)                                                                       \
  {                                                                                                \
    .name = n, .type = EBB_CONF_STRING, .offset = offsetof (ebb_agent_config, f), .umax = 4096,    \
    .def = d, .validate = v, .help = h                                                             \
  }
#define S_DUR(n, f, lo, hi, d, h)                                                                  \
  {                                                                                                \
    .name = n, .type = EBB_CONF_DURATION, .offset = offsetof (ebb_agent_config, f), .umin = lo,    \
    .umax = hi, .def = d, .help = h                                                                \
  }

static const ebb_conf_setting table[] = {
  { .name = "listen",
    .type = EBB_CONF_STRLIST,
    .offset = offsetof (ebb_agent_config, listen),
    .umax = 4096,
    .def = "unix:/run/ebb/agent.sock",
    .validate = validate_listen,
    .help = "REST API address, HOST:PORT or unix:PATH" },
  S_STR ("state_dir", state_dir, "/var/lib/ebb/agent", ebb_conf_validate_abspath,
         "directory of the journal, task output and lock"),
  S_STR ("cgroup_parent", cgroup_parent, "/ebb", ebb_conf_validate_abspath,
         "cgroup (under each hierarchy root) for launched tasks; created when missing, "
         "removed at a clean exit when the agent created it and it is empty"),
  { .name = "adopt_root",
    .type = EBB_CONF_STRLIST,
    .offset = offsetof (ebb_agent_config, adopt_root),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "subtree whose cgroups may be adopted" },
  S_STR ("controller", controller, NULL, validate_url_list,
         "controller to send heartbeats to: unix:/PATH or https:// (plain http carries no "
         "token); URL,URL...: its replicas, heartbeats follow the leader"),
  S_STR ("token_file", token_file, NULL, ebb_conf_validate_abspath,
         "bearer token file (chmod 600, 16+ characters; TCP listeners want it)"),
  S_STR ("tls_cert", tls_cert, NULL, ebb_conf_validate_abspath,
         "PEM certificate: the TCP listeners speak https (with tls_key)"),
  S_STR ("tls_key", tls_key, NULL, ebb_conf_validate_abspath,
         "PEM private key of tls_cert (not accessible by others)"),
  S_STR ("controller_ca", controller_ca, NULL, ebb_conf_validate_abspath,
         "PEM CA bundle that verifies an https controller (default: the system's)"),
  S_STR ("docker_socket", docker_socket, NULL, ebb_conf_validate_abspath,
         "Docker API socket to discover containers on"),
  S_STR ("podman_socket", podman_socket, NULL, ebb_conf_validate_abspath,
         "Podman API socket to discover containers on"),
  { .name = "node_name",
    .type = EBB_CONF_STRING,
    .offset = offsetof (ebb_agent_config, node_name),
    .umax = 64,
    .validate = ebb_conf_validate_id,
    .help = "node name (default: host name)" },
  { .name = "handover",
    .type = EBB_CONF_BOOL,
    .offset = offsetof (ebb_agent_config, handover),
    .def = "no",
    .help = "on SIGTERM, leave suspended tasks suspended" },
  S_DUR ("heartbeat_interval", heartbeat_usec, 100000, 3600000000ULL, "5s",
         "time between heartbeats"),
  S_DUR ("stats_interval", stats_usec, 100000, 3600000000ULL, "10s",
         "time between usage refreshes"),
  S_DUR ("stop_grace", stop_grace_usec, 0, 600000000ULL, "10s",
         "DELETE: time from SIGTERM to SIGKILL"),
  { .name = "footprint_memory",
    .type = EBB_CONF_BYTES,
    .offset = offsetof (ebb_agent_config, footprint_memory_bytes),
    .umin = 4 << 20,
    .umax = 1ULL << 40,
    .def = "64M",
    .help = "memory a suspended task keeps" },
  S_STR ("cgroup_root", cgroup_root, "/sys/fs/cgroup", ebb_conf_validate_abspath,
         "where cgroup hierarchies are mounted"),
  { .name = "capacity_cpu_millis",
    .type = EBB_CONF_UINT64,
    .offset = offsetof (ebb_agent_config, capacity_cpu_millis),
    .umax = EBB_AGENT_CPU_MILLIS_MAX,
    .help = "CPU capacity reported, in millicores (default: online CPUs)" },
  { .name = "capacity_memory",
    .type = EBB_CONF_BYTES,
    .offset = offsetof (ebb_agent_config, capacity_memory_bytes),
    .umax = EBB_AGENT_MEMORY_BYTES_MAX,
    .help = "memory capacity reported (default: MemTotal)" },
  S_STR ("advertise_url", advertise_url, NULL, validate_url,
         "URL the controller calls this agent on (default: the first listen address)"),
  { .name = "task_log_max",
    .type = EBB_CONF_BYTES,
    .offset = offsetof (ebb_agent_config, task_log_max_bytes),
    .umin = 4096,
    .umax = 1ULL << 40,
    .def = "64M",
    .help = "a task's output log is rotated to ID.log.1 beyond this size" },
  { .name = "keep_logs",
    .type = EBB_CONF_UINT64,
    .offset = offsetof (ebb_agent_config, keep_logs),
    .umax = 100000,
    .def = "100",
    .help = "finished tasks whose output logs are kept (the newest; 0: none)" },
  { .name = "keep_logs_max",
    .type = EBB_CONF_BYTES,
    .offset = offsetof (ebb_agent_config, keep_logs_max_bytes),
    .umax = 1ULL << 40,
    .def = "256M",
    .help = "bytes of the finished tasks' kept logs in all (the oldest go beyond)" },
  { .name = "task_pids_max",
    .type = EBB_CONF_UINT64,
    .offset = offsetof (ebb_agent_config, task_pids_max),
    .umax = 4194304,
    .def = "4096",
    .help = "most processes and threads a launched task may hold (pids.max; 0: no limit)" },
  { .name = "socket_group",
    .type = EBB_CONF_STRING,
    .offset = offsetof (ebb_agent_config, socket_group),
    .umax = 64,
    .validate = ebb_conf_validate_id,
    .help = "group (name or id) of the unix sockets, mode 0660; default root's" },
  { .name = "task_user",
    .type = EBB_CONF_STRING,
    .offset = offsetof (ebb_agent_config, task_user),
    .umax = 64,
    .def = "nobody",
    .validate = ebb_conf_validate_id,
    .help = "user (name or id) tasks run as when a launch names none" },
  { .name = "task_users",
    .type = EBB_CONF_STRLIST,
    .offset = offsetof (ebb_agent_config, task_users),
    .umax = 64,
    .validate = ebb_conf_validate_id,
    .help = "users (name, id or LO-HI) a launch may name besides task_user" },
  { .name = "task_groups",
    .type = EBB_CONF_STRLIST,
    .offset = offsetof (ebb_agent_config, task_groups),
    .umax = 64,
    .validate = ebb_conf_validate_id,
    .help = "groups (name, id or LO-HI) a launch may name besides a user's own" },
  { .name = "task_uid_range",
    .type = EBB_CONF_STRING,
    .offset = offsetof (ebb_agent_config, task_uid_range),
    .umax = 32,
    .def = "61184-65519",
    .validate = validate_uid_range,
    .help = "uids LO-HI: each job's tasks run as a user of their own; none: as task_user" },
  { .name = "allow_root_tasks",
    .type = EBB_CONF_BOOL,
    .offset = offsetof (ebb_agent_config, allow_root_tasks),
    .def = "no",
    .help = "let a launch run its task as root (user or group 0)" },
};

/* Every option but --config, --print-config, -v, --help and --version is a row of table:
 * its long option is the key with dashes (state_dir is --state-dir), a boolean takes no
 * argument (it sets yes), the argument's name comes from the type and validator, and the
 * help line from the row. Nothing else lists the agent's options. */
enum
{
  OPT_CONFIG = 1000,
  OPT_PRINT_CONFIG,
  OPT_HELP,
  OPT_VERSION,
  OPT_SETTING = 2000, /* + the row's index */
};

#define N_SETTINGS   EBB_ARRAY_SIZE (table)
#define OPT_NAME_MAX 64

static char opt_names[N_SETTINGS][OPT_NAME_MAX];
static struct option long_opts[N_SETTINGS + 6];

static const char *
metavar (const ebb_conf_setting *s)
{
  switch (s->type)
    {
    case EBB_CONF_BOOL:
      return NULL;
    case EBB_CONF_DURATION:
      return "DURATION";
    case EBB_CONF_BYTES:
      return "BYTES";
    case EBB_CONF_UINT64:
    case EBB_CONF_INT64:
      return "N";
    default:
      break;
    }
  if (s->validate == validate_url)
    return "URL";
  if (s->validate == validate_listen)
    return "ADDR";
  if (s->validate == ebb_conf_validate_id)
    return "NAME";
  if (s->validate == ebb_conf_validate_abspath)
    return "PATH";
  return "VALUE";
}

/* Fills long_opts from the table (idempotent). */
static void
build_long_opts (void)
{
  size_t k = 0;
  for (size_t i = 0; i < N_SETTINGS; i++)
    {
      snprintf (opt_names[i], OPT_NAME_MAX, "%s", table[i].name);
      for (char *p = opt_names[i]; *p; p++)
        if (*p == '_')
          *p = '-';
      long_opts[k++]
          = (struct option){ opt_names[i],
                             table[i].type == EBB_CONF_BOOL ? no_argument : required_argument, NULL,
                             OPT_SETTING + (int)i };
    }
  long_opts[k++] = (struct option){ "config", required_argument, NULL, OPT_CONFIG };
  long_opts[k++] = (struct option){ "print-config", no_argument, NULL, OPT_PRINT_CONFIG };
  long_opts[k++] = (struct option){ "verbose", no_argument, NULL, 'v' };
  long_opts[k++] = (struct option){ "help", no_argument, NULL, OPT_HELP };
  long_opts[k++] = (struct option){ "version", no_argument, NULL, OPT_VERSION };
  long_opts[k] = (struct option){ NULL, 0, NULL, 0 };
}

static void
usage_line (FILE *f, const char *opt, const char *arg, const char *help)
{
  char left[96];
  snprintf (left, sizeof left, "%s%s%s", opt, arg ? " " : "", arg ? arg : "");
  fprintf (f, "  %-30s %s\n", left, help);
}

static void
usage (FILE *f)
{
  fputs ("Usage: ebb-agent [OPTIONS]\n"
         "The ebb node agent: launches, adopts, suspends and resumes tasks (see ebb-agent(8)).\n"
         "Every option but the first and the last four is also a setting of the configuration\n"
         "file, named in brackets (see ebb.conf(5)); the command line wins.\n\n",
         f);
  usage_line (f, "--config", "FILE", "configuration file (default " DEFAULT_CONFIG ")");
  for (size_t i = 0; i < N_SETTINGS; i++)
    {
      const ebb_conf_setting *s = &table[i];
      char opt[OPT_NAME_MAX + 2], help[512];
      snprintf (opt, sizeof opt, "--%.*s", OPT_NAME_MAX - 1, opt_names[i]);
      snprintf (help, sizeof help, "%s%s%s%s [%s]", s->help,
                s->type == EBB_CONF_STRLIST ? "; repeatable" : "",
                s->def && *s->def ? "; default " : "", s->def && *s->def ? s->def : "", s->name);
      usage_line (f, opt, metavar (s), help);
    }
  usage_line (f, "--print-config", NULL, "print the effective configuration and exit");
  usage_line (f, "-v, --verbose", NULL, "more logging (repeat for debug)");
  usage_line (f, "--help", NULL, "this help");
  usage_line (f, "--version", NULL, "the version");
  fputs ("\nExit status: 0 clean stop, 1 runtime failure, 2 usage or configuration error.\n", f);
}

/* First pass: --config, -v, --help, --version, --print-config. Returns 1 when done
 * (help/version), 0, or negative on a usage error. */
static int
first_pass (int argc, char **argv, ebb_agent_config *cfg, const char **config,
            bool *explicit_config, bool *print, ebb_error **err)
{
  opterr = 0;
  optind = 0; /* 0: glibc re-initializes getopt (the arguments are parsed again on SIGHUP) */
  int c;
  /* ":" first: a missing value comes back as ':', told apart from an unknown option. */
  while ((c = getopt_long (argc, argv, ":v", long_opts, NULL)) != -1)
    switch (c)
      {
      case OPT_HELP:
        usage (stdout);
        return 1;
      case OPT_VERSION:
        printf ("ebb-agent %s\n", PACKAGE_VERSION);
        return 1;
      case OPT_CONFIG:
        *config = optarg;
        *explicit_config = true;
        break;
      case OPT_PRINT_CONFIG:
        *print = true;
        break;
      case 'v':
        cfg->verbose++;
        break;
      case ':':
        return ebb_error_set (err, EINVAL, "missing value for '%s' (see --help)", argv[optind - 1]);
      case '?':
        return ebb_error_set (err, EINVAL, "unknown option '%s' (see --help)", argv[optind - 1]);
      default:
        break;
      }
  if (optind < argc)
    return ebb_error_set (err, EINVAL, "unexpected argument %s", argv[optind]);
  return 0;
}

static int
second_pass (int argc, char **argv, ebb_agent_config *cfg, ebb_error **err)
{
  bool cleared[N_SETTINGS] = { false };
  optind = 0;
  int c;
  while ((c = getopt_long (argc, argv, ":v", long_opts, NULL)) != -1)
    {
      if (c < OPT_SETTING || c >= OPT_SETTING + (int)N_SETTINGS)
        continue;
      size_t i = (size_t)(c - OPT_SETTING);
      const ebb_conf_setting *s = &table[i];
      /* A list on the command line replaces the file's. */
      if (s->type == EBB_CONF_STRLIST && !cleared[i])
        {
          ebb_conf_set (table, N_SETTINGS, cfg, s->name, "", NULL, NULL);
          cleared[i] = true;
        }
      cleanup_free char *where = ebb_xasprintf ("--%s", opt_names[i]);
      int r = ebb_conf_set (table, N_SETTINGS, cfg, s->name,
                            s->type == EBB_CONF_BOOL ? "yes" : optarg, where, err);
      if (r < 0)
        return r;
    }
  return 0;
}

/* Parses options and the config file. */
int
ebb_agent_parse_args (int argc, char **argv, ebb_agent_config *cfg, ebb_error **err)
{
  const char *config = DEFAULT_CONFIG;
  bool explicit_config = false, print = false;
  build_long_opts ();
  int r = first_pass (argc, argv, cfg, &config, &explicit_config, &print, err);
  if (r != 0)
    return r;
  if ((r = ebb_conf_defaults (table, N_SETTINGS, cfg, err)) < 0
      || (r = ebb_conf_load (table, N_SETTINGS, cfg, config,
                             explicit_config ? 0 : EBB_CONF_OPTIONAL, err))
             < 0)
    return r;
  cfg->config_path = ebb_xstrdup (config);
  if ((r = second_pass (argc, argv, cfg, err)) < 0)
    return r;
  if (!cfg->listen || !cfg->listen[0])
    return ebb_error_set (err, EINVAL, "no --listen address");
  if (print)
    {
      r = ebb_conf_dump (table, N_SETTINGS, cfg, stdout, err);
      return r < 0 ? r : 1;
    }
  return 0;
}

static bool
same_str (const char *x, const char *y)
{
  return (!x && !y) || (x && y && strcmp (x, y) == 0);
}

static bool
same_strv (char **x, char **y)
{
  size_t n = ebb_strv_length (x);
  if (n != ebb_strv_length (y))
    return false;
  for (size_t i = 0; i < n; i++)
    if (strcmp (x[i], y[i]) != 0)
      return false;
  return true;
}

static void
swap_str (char **x, char **y)
{
  char *t = *x;
  *x = *y;
  *y = t;
}

static void
swap_strv (char ***x, char ***y)
{
  char **t = *x;
  *x = *y;
  *y = t;
}

/* Re-reads the command line and the config file into a fresh copy and takes over the
 * settings that can change while running. */
int
ebb_agent_reload_config (ebb_agent_config *cfg, ebb_error **err)
{
  ebb_agent_config n = { 0 };
  n.argc = cfg->argc;
  n.argv = cfg->argv;
  int r = ebb_agent_parse_args (cfg->argc, cfg->argv, &n, err);
  if (r != 0)
    {
      ebb_agent_config_free (&n);
      return r < 0 ? r : ebb_error_set (err, EINVAL, "unexpected --help/--version");
    }
  if (!same_strv (n.listen, cfg->listen) || !same_str (n.state_dir, cfg->state_dir)
      || !same_str (n.cgroup_parent, cfg->cgroup_parent)
      || !same_strv (n.adopt_root, cfg->adopt_root) || !same_str (n.token_file, cfg->token_file)
      || !same_str (n.docker_socket, cfg->docker_socket)
      || !same_str (n.podman_socket, cfg->podman_socket) || !same_str (n.node_name, cfg->node_name)
      || !same_str (n.cgroup_root, cfg->cgroup_root)
      || !same_str (n.socket_group, cfg->socket_group) || !same_str (n.tls_cert, cfg->tls_cert)
      || !same_str (n.tls_key, cfg->tls_key))
    ebb_log_warn ("reload: listen, state_dir, cgroup_parent, adopt_root, token_file, sockets, "
                  "node_name, cgroup_root, socket_group, tls_cert and tls_key take effect only "
                  "after a restart");
  if (cfg->token_file && ebb_agent_url_exposes_token (n.controller))
    {
      ebb_agent_config_free (&n);
      return ebb_error_set (err, EACCES,
                            "controller %s is plain http: the token goes only over unix:/PATH "
                            "or https://",
                            n.controller);
    }
  swap_str (&cfg->controller, &n.controller);
  swap_str (&cfg->controller_ca, &n.controller_ca);
  swap_str (&cfg->task_user, &n.task_user);
  swap_strv (&cfg->task_users, &n.task_users);
  swap_strv (&cfg->task_groups, &n.task_groups);
  swap_str (&cfg->task_uid_range, &n.task_uid_range);
  cfg->allow_root_tasks = n.allow_root_tasks;
  cfg->task_log_max_bytes = n.task_log_max_bytes;
  cfg->keep_logs = n.keep_logs; /* the bounds apply at the next task forgotten */
  cfg->keep_logs_max_bytes = n.keep_logs_max_bytes;
  cfg->task_pids_max = n.task_pids_max;
  swap_str (&cfg->advertise_url, &n.advertise_url);
  cfg->capacity_cpu_millis = n.capacity_cpu_millis;
  cfg->capacity_memory_bytes = n.capacity_memory_bytes;
  cfg->handover = n.handover;
  cfg->heartbeat_usec = n.heartbeat_usec;
  cfg->stats_usec = n.stats_usec;
  cfg->stop_grace_usec = n.stop_grace_usec;
  cfg->footprint_memory_bytes = n.footprint_memory_bytes;
  ebb_agent_config_free (&n);
  return 0;
}

/* Frees what the config owns. */
void
ebb_agent_config_free (ebb_agent_config *cfg)
{
  ebb_conf_free (table, N_SETTINGS, cfg);
  free (cfg->config_path);
  cfg->config_path = NULL;
}
