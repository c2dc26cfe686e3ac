/* Options: one table (lib/conf.h) for /etc/ebb/agent.conf and the command line; the
 * command line wins, a list given there replaces the file's list. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "lib/util.h"

#define DEFAULT_CONFIG SYSCONFDIR "/ebb/agent.conf"

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
    .def = "127.0.0.1:7470",
    .help = "HOST:PORT or unix:PATH to serve the REST API on" },
  S_STR ("state_dir", state_dir, "/var/lib/ebb/agent", ebb_conf_validate_abspath,
         "journal, task output, lock"),
  S_STR ("cgroup_parent", cgroup_parent, "/ebb", ebb_conf_validate_abspath,
         "cgroup (under each hierarchy root) for launched tasks"),
  { .name = "adopt_root",
    .type = EBB_CONF_STRLIST,
    .offset = offsetof (ebb_agent_config, adopt_root),
    .umax = 4096,
    .validate = ebb_conf_validate_abspath,
    .help = "subtree whose cgroups may be adopted" },
  S_STR ("controller", controller, NULL, NULL, "controller base URL for heartbeats"),
  S_STR ("token_file", token_file, NULL, ebb_conf_validate_abspath,
         "bearer token file (mode 0600)"),
  S_STR ("docker_socket", docker_socket, NULL, ebb_conf_validate_abspath, "Docker API socket"),
  S_STR ("podman_socket", podman_socket, NULL, ebb_conf_validate_abspath, "Podman API socket"),
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
    .help = "on SIGTERM leave suspended tasks suspended" },
  S_DUR ("heartbeat_interval", heartbeat_usec, 100000, 3600000000ULL, "5s",
         "time between heartbeats"),
  S_DUR ("stats_interval", stats_usec, 100000, 3600000000ULL, "10s",
         "time between usage refreshes"),
  S_DUR ("stop_grace", stop_grace_usec, 0, 600000000ULL, "10s", "SIGTERM to SIGKILL on DELETE"),
  { .name = "footprint_memory",
    .type = EBB_CONF_BYTES,
    .offset = offsetof (ebb_agent_config, footprint_memory_bytes),
    .umin = 4 << 20,
    .umax = 1ULL << 40,
    .def = "64M",
    .help = "memory a suspended task keeps" },
  S_STR ("cgroup_root", cgroup_root, "/sys/fs/cgroup", ebb_conf_validate_abspath,
         "where cgroup hierarchies are mounted"),
};

/* Returns the table and its size. */
const ebb_conf_setting *
ebb_agent_conf_table (size_t *n)
{
  *n = EBB_ARRAY_SIZE (table);
  return table;
}

enum
{
  OPT_CONFIG = 1000,
  OPT_HELP,
  OPT_VERSION,
  OPT_HANDOVER,
};

static const struct option long_opts[] = {
  { "config", required_argument, NULL, OPT_CONFIG },
  { "listen", required_argument, NULL, 'l' },
  { "state-dir", required_argument, NULL, 's' },
  { "cgroup-parent", required_argument, NULL, 'p' },
  { "adopt-root", required_argument, NULL, 'a' },
  { "controller", required_argument, NULL, 'c' },
  { "token-file", required_argument, NULL, 't' },
  { "docker-socket", required_argument, NULL, 'D' },
  { "podman-socket", required_argument, NULL, 'P' },
  { "node-name", required_argument, NULL, 'n' },
  { "heartbeat-interval", required_argument, NULL, 'H' },
  { "stats-interval", required_argument, NULL, 'S' },
  { "stop-grace", required_argument, NULL, 'g' },
  { "footprint-memory", required_argument, NULL, 'm' },
  { "cgroup-root", required_argument, NULL, 'R' },
  { "handover", no_argument, NULL, OPT_HANDOVER },
  { "verbose", no_argument, NULL, 'v' },
  { "help", no_argument, NULL, OPT_HELP },
  { "version", no_argument, NULL, OPT_VERSION },
  { NULL, 0, NULL, 0 },
};

static const char *
key_of (int c)
{
  switch (c)
    {
    case 'l':
      return "listen";
    case 's':
      return "state_dir";
    case 'p':
      return "cgroup_parent";
    case 'a':
      return "adopt_root";
    case 'c':
      return "controller";
    case 't':
      return "token_file";
    case 'D':
      return "docker_socket";
    case 'P':
      return "podman_socket";
    case 'n':
      return "node_name";
    case 'H':
      return "heartbeat_interval";
    case 'S':
      return "stats_interval";
    case 'g':
      return "stop_grace";
    case 'm':
      return "footprint_memory";
    case 'R':
      return "cgroup_root";
    default:
      return NULL;
    }
}

static void
usage (FILE *f)
{
  fputs ("Usage: ebb-agent [OPTIONS]\n"
         "The ebb node agent: launches, adopts, suspends and resumes tasks (see ebb-agent(8)).\n"
         "\n"
         "  --config FILE             configuration file (default " DEFAULT_CONFIG ")\n"
         "  --listen HOST:PORT|unix:PATH  REST API address, repeatable (default 127.0.0.1:7470)\n"
         "  --state-dir DIR           journal and task output (default /var/lib/ebb/agent)\n"
         "  --cgroup-parent PATH      cgroup for launched tasks (default /ebb)\n"
         "  --adopt-root PATH         subtree whose cgroups may be adopted, repeatable\n"
         "  --controller URL          controller to send heartbeats to\n"
         "  --token-file FILE         bearer token (required for non-loopback --listen)\n"
         "  --docker-socket PATH      Docker API socket to discover containers on\n"
         "  --podman-socket PATH      Podman API socket to discover containers on\n"
         "  --node-name NAME          node name (default: host name)\n"
         "  --heartbeat-interval DUR  time between heartbeats (default 5s)\n"
         "  --stats-interval DUR      time between usage refreshes (default 10s)\n"
         "  --stop-grace DUR          DELETE: SIGTERM to SIGKILL (default 10s)\n"
         "  --footprint-memory BYTES  memory a suspended task keeps (default 64M)\n"
         "  --cgroup-root DIR         where cgroups are mounted (default /sys/fs/cgroup)\n"
         "  --handover                on SIGTERM, leave suspended tasks suspended\n"
         "  -v, --verbose             more logging (repeat for debug)\n"
         "  --help, --version\n"
         "\nExit status: 0 clean stop, 1 runtime failure, 2 usage or configuration error.\n",
         f);
}

/* First pass: --config, -v, --help, --version. Returns 1 when done (help/version), 0, or
 * negative on a usage error. */
static int
first_pass (int argc, char **argv, ebb_agent_config *cfg, const char **config,
            bool *explicit_config, ebb_error **err)
{
  opterr = 0;
  optind = 0; /* 0: glibc re-initializes getopt (the arguments are parsed again on SIGHUP) */
  int c;
  while ((c = getopt_long (argc, argv, "v", long_opts, NULL)) != -1)
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
      case 'v':
        cfg->verbose++;
        break;
      case '?':
        return ebb_error_set (err, EINVAL, "unknown or incomplete option %s (see --help)",
                              argv[optind - 1]);
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
  bool cleared_listen = false, cleared_adopt = false;
  optind = 0;
  int c, idx = 0;
  while ((c = getopt_long (argc, argv, "v", long_opts, &idx)) != -1)
    {
      const char *key = key_of (c);
      if (c == OPT_HANDOVER)
        cfg->handover = true;
      if (!key)
        continue;
      /* A list on the command line replaces the file's. */
      if ((c == 'l' && !cleared_listen) || (c == 'a' && !cleared_adopt))
        {
          ebb_conf_set (table, EBB_ARRAY_SIZE (table), cfg, key, "", NULL, NULL);
          *(c == 'l' ? &cleared_listen : &cleared_adopt) = true;
        }
      cleanup_free char *where = ebb_xasprintf ("--%s", long_opts[idx].name);
      for (const struct option *o = long_opts; o->name; o++)
        if (o->val == c)
          {
            free (where);
            where = ebb_xasprintf ("--%s", o->name);
          }
      if (ebb_conf_set (table, EBB_ARRAY_SIZE (table), cfg, key, optarg, where, err) < 0)
        return -ebb_error_code (err);
    }
  return 0;
}

/* Parses options and the config file. */
int
ebb_agent_parse_args (int argc, char **argv, ebb_agent_config *cfg, ebb_error **err)
{
  const char *config = DEFAULT_CONFIG;
  bool explicit_config = false;
  int r = first_pass (argc, argv, cfg, &config, &explicit_config, err);
  if (r != 0)
    return r;
  if (ebb_conf_defaults (table, EBB_ARRAY_SIZE (table), cfg, err) < 0)
    return -ebb_error_code (err);
  if (ebb_conf_load (table, EBB_ARRAY_SIZE (table), cfg, config,
                     explicit_config ? 0 : EBB_CONF_OPTIONAL, err)
      < 0)
    return -ebb_error_code (err);
  cfg->config_path = ebb_xstrdup (config);
  if (second_pass (argc, argv, cfg, err) < 0)
    return -ebb_error_code (err);
  if (!cfg->listen || !cfg->listen[0])
    return ebb_error_set (err, EINVAL, "no --listen address");
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
      || !same_str (n.cgroup_root, cfg->cgroup_root))
    ebb_log_warn ("reload: listen, state_dir, cgroup_parent, adopt_root, token_file, sockets, "
                  "node_name and cgroup_root take effect only after a restart");
  swap_str (&cfg->controller, &n.controller);
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
  ebb_conf_free (table, EBB_ARRAY_SIZE (table), cfg);
  free (cfg->config_path);
  cfg->config_path = NULL;
}
