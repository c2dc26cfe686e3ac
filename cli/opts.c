/* Option tables to getopt and --help, global options, and the argument parsers. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/ebbctl.h"
#include "lib/conf.h"
#include "lib/util.h"

enum
{
  G_CONTROLLER = 1,
  G_AGENT,
  G_TOKEN_FILE,
  G_CA_FILE,
  G_JSON,
  G_OUTPUT,
  G_HELP,
  G_VERSION,
};

static const ebbctl_opt global_opts[] = {
  { "controller", true, G_CONTROLLER, "URL",
    "controller address: HOST:PORT, http://HOST:PORT, https://HOST:PORT or unix:PATH; "
    "URL,URL...: its replicas (calls follow the leader)" },
  { "agent", true, G_AGENT, "URL",
    "agent address for tasks, task, suspend, resume (default unix:/run/ebb/agent.sock)" },
  { "token-file", true, G_TOKEN_FILE, "FILE",
    "bearer token file (chmod 600; never sent over plain http)" },
  { "ca-file", true, G_CA_FILE, "FILE",
    "PEM CA bundle that verifies an https:// controller or agent (default: the system's)" },
  { "json", false, G_JSON, NULL, "print the API's JSON instead of tables (= -o json)" },
  { "output", true, G_OUTPUT, "json|wide|name",
    "the API's JSON, tables with more columns, or the ids alone (anywhere on the line)" },
  { "help", false, G_HELP, NULL, "show this help (COMMAND --help: the command's)" },
  { "version", false, G_VERSION, NULL, "show the version" },
};

const ebbctl_opt *
ebbctl_global_opts (size_t *n)
{
  *n = EBB_ARRAY_SIZE (global_opts);
  return global_opts;
}

/* getopt's table from ours, plus --help / -h for commands. */
static struct option *
build_longopts (const ebbctl_opt *opts, size_t n, bool add_help)
{
  struct option *lo = ebb_xcalloc (n + 2, sizeof *lo);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    lo[k++] = (struct option){ opts[i].name, opts[i].has_arg ? required_argument : no_argument,
                               NULL, opts[i].val };
  if (add_help)
    lo[k++] = (struct option){ "help", no_argument, NULL, 'h' };
  return lo;
}

static void
opt_synopsis (FILE *out, const ebbctl_opt *o)
{
  if (o->has_arg)
    fprintf (out, " [--%s %s]", o->name, o->arg);
  else
    fprintf (out, " [--%s]", o->name);
}

/* The one-letter forms of commands' options, as kubectl has them: -f for --follow. */
static char
short_of (int val)
{
  return val == EBBCTL_O_FOLLOW ? 'f' : 0;
}

/* An option's left column in a help: "-f, --follow", "--tail N". Returns buf. */
static char *
opt_left (char *buf, size_t size, const ebbctl_opt *o)
{
  char short_form[8] = "";
  if (short_of (o->val))
    snprintf (short_form, sizeof short_form, "-%c, ", short_of (o->val));
  snprintf (buf, size, "%s--%s%s%s", short_form, o->name, o->has_arg ? " " : "",
            o->has_arg ? o->arg : "");
  return buf;
}

static void
print_opt_lines (FILE *out, const ebbctl_opt *opts, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      char left[64];
      /* --output is the global option with a short form. */
      bool o = opts == global_opts && opts[i].val == G_OUTPUT;
      char right[56];
      snprintf (left, sizeof left, "%s%s", o ? "-o, " : "",
                opt_left (right, sizeof right, &opts[i]));
      fprintf (out, "  %-28s %s\n", left, opts[i].help);
    }
}

/* Every command option once, with the commands that take it: the whole program's --help
 * lists every option (the man page's OPTIONS section does the same). */
static void
print_command_opts (FILE *out)
{
  size_t n;
  const ebbctl_cmd *cmds = ebbctl_commands (&n);
  fputs ("\nCommand options (see COMMAND --help):\n", out);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < cmds[i].n_opts; j++)
      {
        const ebbctl_opt *o = &cmds[i].opts[j];
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
          for (size_t l = 0; l < cmds[k].n_opts && !seen; l++)
            seen = strcmp (cmds[k].opts[l].name, o->name) == 0;
        if (seen)
          continue;
        char left[64];
        fprintf (out, "  %-28s", opt_left (left, sizeof left, o));
        const char *sep = " ";
        for (size_t k = i; k < n; k++)
          for (size_t l = 0; l < cmds[k].n_opts; l++)
            if (strcmp (cmds[k].opts[l].name, o->name) == 0)
              {
                fprintf (out, "%s%s: %s", sep, cmds[k].name, cmds[k].opts[l].help);
                sep = "; ";
              }
        fputc ('\n', out);
      }
}

/* "Examples:" and each line of lines indented (nothing when lines is NULL). */
static void
print_examples (FILE *out, const char *lines)
{
  if (!lines)
    return;
  fputs ("\nExamples:\n", out);
  for (const char *p = lines; *p;)
    {
      size_t n = strcspn (p, "\n");
      fprintf (out, "  %.*s\n", (int)n, p);
      p += n + (p[n] == '\n');
    }
}

void
ebbctl_print_help (FILE *out, const ebbctl_cmd *cmd)
{
  if (cmd)
    {
      fprintf (out, "Usage: ebbctl [GLOBAL OPTION]... %s", cmd->name);
      for (size_t i = 0; i < cmd->n_opts; i++)
        opt_synopsis (out, &cmd->opts[i]);
      fprintf (out, "%s%s\n%s\n\nOptions:\n", cmd->args ? " " : "", cmd->args ? cmd->args : "",
               cmd->summary);
      print_opt_lines (out, cmd->opts, cmd->n_opts);
      fprintf (out, "  %-28s %s\n", "-h, --help", "show this help");
      fprintf (out, "  %-28s %s\n", "-o, --output json|wide|name",
               "output format: the API's JSON, more columns, the ids alone");
      bool own_json = false;
      for (size_t i = 0; i < cmd->n_opts; i++)
        own_json |= strcmp (cmd->opts[i].name, "json") == 0;
      if (!own_json)
        fprintf (out, "  %-28s %s\n", "--json", "the same as -o json");
      if (cmd->agent)
        fputs ("\nTalks to the agent given by --agent (or EBB_AGENT).\n", out);
      print_examples (out, cmd->examples);
      return;
    }
  fputs ("Usage: ebbctl [GLOBAL OPTION]... COMMAND [OPTION]... [ARG]...\n"
         "Operate an ebb cluster through its controller (and agents).\n\nGlobal options:\n",
         out);
  print_opt_lines (out, global_opts, EBB_ARRAY_SIZE (global_opts));
  print_command_opts (out);
  fputs ("\nCommands:\n", out);
  size_t n;
  const ebbctl_cmd *cmds = ebbctl_commands (&n);
  for (size_t i = 0; i < n; i++)
    {
      fprintf (out, "  %s", cmds[i].name);
      for (size_t j = 0; j < cmds[i].n_opts; j++)
        opt_synopsis (out, &cmds[i].opts[j]);
      fprintf (out, "%s%s\n      %s\n", cmds[i].args ? " " : "", cmds[i].args ? cmds[i].args : "",
               cmds[i].summary);
    }
  print_examples (out, "ebbctl status\n"
                       "ebbctl jobs --state running -o wide\n"
                       "ebbctl submit --tasks 4 --cpu 500 -- sh -c 'make test'\n"
                       "ebbctl watch 42\n"
                       "ebbctl --controller https://ctl.example:7480 --ca-file ca.pem "
                       "--token-file ~/.ebb-token nodes -o json");
  fputs ("\nEnvironment: EBB_CONTROLLER, EBB_AGENT (addresses when no option is given);\n"
         "EBB_TOKEN_FILE (the token file when --token-file is not given);\n"
         "NO_COLOR (no colour on a terminal).\n"
         "Exit status: 0 ok, 1 failure, 2 usage error, 4 not found.\n"
         "See ebbctl(1).\n",
         out);
}

char *
ebbctl_normalize_url (const char *s, ebb_error **err)
{
  if (!s || !*s || strpbrk (s, " \t\r\n"))
    goto bad;
  if (strncmp (s, "unix:", 5) == 0)
    {
      if (s[5] != '/')
        goto bad;
      return ebb_xstrdup (s);
    }
  /* https: the controller or agent with --tls-cert (verified against --ca-file). */
  size_t scheme = strncmp (s, "http://", 7) == 0 ? 7 : strncmp (s, "https://", 8) == 0 ? 8 : 0;
  if (scheme)
    {
      if (!s[scheme] || s[scheme] == '/')
        goto bad;
      return ebb_xstrdup (s);
    }
  if (strstr (s, "://"))
    goto bad;
  const char *colon = strrchr (s, ':');
  if (!colon || colon == s || !colon[1] || strspn (colon + 1, "0123456789") != strlen (colon + 1))
    goto bad;
  if (s[0] == '[' && colon[-1] != ']')
    goto bad;
  if (s[0] != '[' && memchr (s, ':', (size_t)(colon - s)))
    goto bad; /* a bare IPv6 address needs brackets */
  return ebb_xasprintf ("http://%s", s);
bad:
  ebb_error_set (err, EINVAL,
                 "bad address '%s' (want HOST:PORT, http[s]://HOST:PORT or unix:/PATH)",
                 s ? s : "");
  return NULL;
}

int
ebbctl_parse_output (const char *s, ebbctl_output *out, ebb_error **err)
{
  static const char *const names[] = { "table", "json", "wide", "name" };
  for (size_t i = 0; s && i < EBB_ARRAY_SIZE (names); i++)
    if (strcmp (s, names[i]) == 0)
      {
        *out = (ebbctl_output)i;
        return 0;
      }
  const char *near = s ? ebbctl_suggest (s, names, EBB_ARRAY_SIZE (names)) : NULL;
  return ebb_error_set (err, EINVAL, "--output: want json, wide or name, got '%s'%s%s%s",
                        s ? s : "", near ? "; did you mean '" : "", near ? near : "",
                        near ? "'?" : "");
}

/* True when cmd has an option called name. */
static const ebbctl_opt *
cmd_opt (const ebbctl_cmd *cmd, const char *name, size_t len)
{
  for (size_t i = 0; i < cmd->n_opts; i++)
    if (strlen (cmd->opts[i].name) == len && strncmp (cmd->opts[i].name, name, len) == 0)
      return &cmd->opts[i];
  return NULL;
}

int
ebbctl_take_output_opts (ebbctl_ctx *ctx, const ebbctl_cmd *cmd, int *argc, char **argv,
                         ebb_error **err)
{
  int w = 1, r = 1;
  while (r < *argc)
    {
      const char *a = argv[r], *fmt = NULL;
      int take = 0;
      if (strcmp (a, "--") == 0)
        break;
      if (strcmp (a, "--json") == 0 && !cmd_opt (cmd, "json", 4))
        fmt = "json", take = 1;
      else if (strcmp (a, "-o") == 0 || strcmp (a, "--output") == 0)
        {
          if (r + 1 >= *argc)
            return ebb_error_set (err, EINVAL, "missing value for '%s'", a);
          fmt = argv[r + 1], take = 2;
        }
      else if (strncmp (a, "-o", 2) == 0 && a[2] != '-')
        fmt = a + 2, take = 1;
      else if (strncmp (a, "--output=", 9) == 0)
        fmt = a + 9, take = 1;
      if (take)
        {
          if (ebbctl_parse_output (fmt, &ctx->output, err) < 0)
            return -EINVAL;
          ctx->json = ctx->output == EBBCTL_OUT_JSON;
          r += take;
          continue;
        }
      /* "--name -o": "-o" is the name, not ours (getopt would take it so too). */
      const ebbctl_opt *o = strncmp (a, "--", 2) == 0 && !strchr (a, '=')
                                ? cmd_opt (cmd, a + 2, strlen (a + 2))
                                : NULL;
      argv[w++] = argv[r++];
      if (o && o->has_arg && r < *argc)
        argv[w++] = argv[r++];
    }
  while (r < *argc)
    argv[w++] = argv[r++];
  *argc = w;
  argv[w] = NULL;
  return 0;
}

/* Edit distance of a and b (Levenshtein), capped: short words only. */
static size_t
distance (const char *a, const char *b)
{
  size_t la = strlen (a), lb = strlen (b);
  if (la > 63 || lb > 63)
    return SIZE_MAX;
  size_t row[64];
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++)
    {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= lb; j++)
        {
          size_t up = row[j];
          size_t best = diag + (a[i - 1] != b[j - 1]);
          if (up + 1 < best)
            best = up + 1;
          if (row[j - 1] + 1 < best)
            best = row[j - 1] + 1;
          row[j] = best;
          diag = up;
        }
    }
  return row[lb];
}

const char *
ebbctl_suggest (const char *word, const char *const *cands, size_t n)
{
  const char *best = NULL, *prefixed = NULL;
  size_t best_d = SIZE_MAX, n_prefixed = 0, len = strlen (word);
  for (size_t i = 0; i < n; i++)
    {
      size_t d = distance (word, cands[i]);
      if (d < best_d)
        best_d = d, best = cands[i];
      if (len && strncmp (cands[i], word, len) == 0)
        n_prefixed++, prefixed = cands[i];
    }
  if (best && best_d <= 2 && best_d * 2 < len)
    return best;
  return n_prefixed == 1 ? prefixed : NULL;
}

const char *
ebbctl_suggest_command (const char *name)
{
  size_t n;
  const ebbctl_cmd *cmds = ebbctl_commands (&n);
  const char *names[64];
  for (size_t i = 0; i < n && i < EBB_ARRAY_SIZE (names); i++)
    names[i] = cmds[i].name;
  return ebbctl_suggest (name, names, n < EBB_ARRAY_SIZE (names) ? n : EBB_ARRAY_SIZE (names));
}

/* The usage error for an unknown option arg, with the closest of opts (and --help, -o,
 * --output) when one is close. Returns -EINVAL. */
static int
unknown_option (const char *arg, const ebbctl_opt *opts, size_t n, ebb_error **err)
{
  const char *a = arg ? arg : "";
  const char *names[64];
  size_t k = 0;
  for (size_t i = 0; i < n && k < EBB_ARRAY_SIZE (names) - 3; i++)
    names[k++] = opts[i].name;
  names[k++] = "help", names[k++] = "output", names[k++] = "json";
  char word[64];
  snprintf (word, sizeof word, "%s", a + strspn (a, "-"));
  word[strcspn (word, "=")] = '\0';
  const char *near = strncmp (a, "--", 2) == 0 ? ebbctl_suggest (word, names, k) : NULL;
  if (near)
    return ebb_error_set (err, EINVAL, "unknown option '%s'; did you mean '--%s'?", a, near);
  return ebb_error_set (err, EINVAL, "unknown option '%s'", a);
}

/* URL[,URL...] (the controller's replicas): ctx->controller is the first, ctx->controllers
 * all of them when there are several. Returns 0, or negative with *err. */
static int
set_controllers (ebbctl_ctx *ctx, const char *value, ebb_error **err)
{
  cleanup_free char *list = ebb_xstrdup (value);
  char **v = NULL, *save = NULL;
  size_t n = 0;
  for (char *u = strtok_r (list, ",", &save); u; u = strtok_r (NULL, ",", &save))
    {
      char *url = ebbctl_normalize_url (u, err);
      if (!url)
        {
          ebb_strv_free (v);
          return -EINVAL;
        }
      v = ebb_xrealloc (v, (n + 2) * sizeof *v);
      v[n++] = url;
      v[n] = NULL;
    }
  if (!n)
    return ebbctl_normalize_url (value, err) ? 0 : -EINVAL;
  free (ctx->controller);
  ebb_strv_free (ctx->controllers);
  ctx->controller = ebb_xstrdup (v[0]);
  ctx->controllers = n > 1 ? v : NULL;
  if (n == 1)
    ebb_strv_free (v);
  return 0;
}

static char *
default_controller (ebbctl_ctx *ctx)
{
  const char *env = getenv ("EBB_CONTROLLER");
  if (env && *env)
    {
      if (set_controllers (ctx, env, NULL) < 0)
        return NULL;
      char *first = ctx->controller; /* the caller sets it again */
      ctx->controller = NULL;
      return first;
    }
  /* The socket only: never a TCP address on our own (once the controller stops, anyone
   * can hold 127.0.0.1:7480); a missing socket is then said as such. */
  return ebb_xstrdup ("unix:" EBBCTL_DEFAULT_CONTROLLER_SOCKET);
}

static int
set_url (char **slot, const char *opt, const char *value, ebb_error **err)
{
  char *u = ebbctl_normalize_url (value, err);
  if (!u)
    return ebb_error_wrap (err, "--%s", opt);
  free (*slot);
  *slot = u;
  return 0;
}

int
ebbctl_parse_global (ebbctl_ctx *ctx, int argc, char **argv, ebb_error **err)
{
  cleanup_free struct option *lo
      = build_longopts (global_opts, EBB_ARRAY_SIZE (global_opts), false);
  bool help = false, version = false;
  int c;
  optind = 0; /* glibc: full re-initialisation (tests parse several command lines) */
  opterr = 0;
  /* "+": stop at the command name; its options are the command's. ":": a missing value
   * comes back as ':', told apart from an unknown option. */
  while ((c = getopt_long (argc, argv, "+:ho:", lo, NULL)) != -1)
    switch (c)
      {
      case 'o':
      case G_OUTPUT:
        if (ebbctl_parse_output (optarg, &ctx->output, err) < 0)
          return -EINVAL;
        ctx->json = ctx->output == EBBCTL_OUT_JSON;
        break;
      case G_CONTROLLER:
        if (set_controllers (ctx, optarg, err) < 0)
          return ebb_error_wrap (err, "--controller");
        break;
      case G_AGENT:
        if (set_url (&ctx->agent, "agent", optarg, err) < 0)
          return -EINVAL;
        break;
      case G_TOKEN_FILE:
        if (!*optarg)
          return ebb_error_set (err, EINVAL, "--token-file: empty file name");
        free (ctx->token_file);
        ctx->token_file = ebb_xstrdup (optarg);
        break;
      case G_CA_FILE:
        if (!*optarg)
          return ebb_error_set (err, EINVAL, "--ca-file: empty file name");
        free (ctx->ca_file);
        ctx->ca_file = ebb_xstrdup (optarg);
        break;
      case G_JSON:
        ctx->json = true;
        ctx->output = EBBCTL_OUT_JSON;
        break;
      case G_HELP:
      case 'h':
        help = true;
        break;
      case G_VERSION:
        version = true;
        break;
      case ':':
        return ebb_error_set (err, EINVAL, "missing value for '%s'",
                              argv[optind - 1] ? argv[optind - 1] : "");
      default:
        return unknown_option (argv[optind - 1], global_opts, EBB_ARRAY_SIZE (global_opts), err);
      }
  if (help || version)
    {
      if (help)
        ebbctl_print_help (ctx->out ? ctx->out : stdout, NULL);
      else
        fprintf (ctx->out ? ctx->out : stdout, "ebbctl %s\n", PACKAGE_VERSION);
      return -1;
    }
  ctx->controller_default
      = !ctx->controller && !(getenv ("EBB_CONTROLLER") && *getenv ("EBB_CONTROLLER"));
  if (!ctx->controller && !(ctx->controller = default_controller (ctx)))
    return ebb_error_set (err, EINVAL, "EBB_CONTROLLER: bad address '%s'",
                          getenv ("EBB_CONTROLLER"));
  const char *env_agent = getenv ("EBB_AGENT");
  if (!ctx->agent && env_agent && *env_agent
      && !(ctx->agent = ebbctl_normalize_url (env_agent, err)))
    return ebb_error_wrap (err, "EBB_AGENT");
  ctx->agent_given = ctx->agent != NULL;
  /* The agent's default address, when this node runs one. */
  struct stat st;
  if (!ctx->agent && stat (EBBCTL_DEFAULT_AGENT_SOCKET, &st) == 0 && S_ISSOCK (st.st_mode))
    ctx->agent = ebb_xstrdup ("unix:" EBBCTL_DEFAULT_AGENT_SOCKET);
  return optind;
}

void
ebbctl_ctx_clear (ebbctl_ctx *ctx)
{
  free (ctx->controller);
  ebb_strv_free (ctx->controllers);
  ctx->controllers = NULL;
  free (ctx->agent);
  free (ctx->token_file);
  free (ctx->ca_file);
  ctx->controller = ctx->agent = ctx->token_file = ctx->ca_file = NULL;
}

int
ebbctl_parse_cmd (const ebbctl_cmd *cmd, int argc, char **argv,
                  int (*on_opt) (int val, const char *arg, void *data, ebb_error **err), void *data,
                  FILE *out, ebb_error **err)
{
  cleanup_free struct option *lo = build_longopts (cmd->opts, cmd->n_opts, true);
  int c;
  optind = 0;
  opterr = 0;
  /* A command taking a program's argv stops at the first non-option ("+"), so nothing of
   * that argv is ever taken for ours; the others accept options after their arguments too
   * ("suspend ID --mode graceful"). */
  char shortopts[64];
  size_t k = (size_t)snprintf (shortopts, sizeof shortopts, "%s",
                               cmd->args && strstr (cmd->args, "--") ? "+:h" : ":h");
  for (size_t i = 0; i < cmd->n_opts && k + 3 < sizeof shortopts; i++)
    if (short_of (cmd->opts[i].val))
      {
        shortopts[k++] = short_of (cmd->opts[i].val);
        if (cmd->opts[i].has_arg)
          shortopts[k++] = ':';
        shortopts[k] = '\0';
      }
  while ((c = getopt_long (argc, argv, shortopts, lo, NULL)) != -1)
    {
      /* A short form stands for its option. */
      for (size_t i = 0; c != 'h' && i < cmd->n_opts; i++)
        if (short_of (cmd->opts[i].val) && c == short_of (cmd->opts[i].val))
          c = cmd->opts[i].val;
      if (c == 'h')
        {
          ebbctl_print_help (out ? out : stdout, cmd);
          return -1;
        }
      if (c == ':')
        return ebb_error_set (err, EINVAL, "missing value for '%s'",
                              argv[optind - 1] ? argv[optind - 1] : "");
      if (c == '?')
        return unknown_option (argv[optind - 1], cmd->opts, cmd->n_opts, err);
      if (on_opt (c, optarg, data, err) < 0)
        return -EINVAL;
    }
  return optind;
}

int
ebbctl_parse_uint (const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                   ebb_error **err)
{
  char *end = NULL;
  errno = 0;
  unsigned long long v = s && isdigit ((unsigned char)*s) ? strtoull (s, &end, 10) : 0;
  if (!s || !isdigit ((unsigned char)*s) || errno || *end || v < min || v > max)
    return ebb_error_set (err, EINVAL, "%s: want an integer in [%llu, %llu], got '%s'", what,
                          (unsigned long long)min, (unsigned long long)max, s ? s : "");
  *out = v;
  return 0;
}

int
ebbctl_parse_size (const char *what, const char *s, uint64_t *out_bytes, ebb_error **err)
{
  uint64_t v = 0;
  if (ebb_conf_parse_bytes (s, &v) < 0 || v == 0 || v > (1ULL << 50))
    return ebb_error_set (err, EINVAL, "%s: want a size like 512M or 2G (1 byte to 1P), got '%s'",
                          what, s ? s : "");
  *out_bytes = v;
  return 0;
}

int
ebbctl_want_args (const ebbctl_cmd *cmd, int argc, int first, int n, ebb_error **err)
{
  if (argc - first != n)
    return ebb_error_set (err, EINVAL, "want %d argument%s (%s), got %d", n, n == 1 ? "" : "s",
                          cmd->args ? cmd->args : "none", argc - first);
  return 0;
}

int
ebbctl_check_id (const char *what, const char *s, ebb_error **err)
{
  if (!ebb_id_is_valid (s, 128))
    return ebb_error_set (err, EINVAL, "%s must be 1-128 characters of [A-Za-z0-9._-], got '%s'",
                          what, s);
  return 0;
}

static int
no_opt (int val, const char *arg, void *data, ebb_error **err)
{
  (void)val, (void)arg, (void)data;
  return ebb_error_set (err, EINVAL, "no options");
}

int
ebbctl_simple_args (const ebbctl_cmd *cmd, int argc, char **argv, int n, FILE *out, ebb_error **err)
{
  int first = ebbctl_parse_cmd (cmd, argc, argv, no_opt, NULL, out, err);
  if (first < 0)
    return first;
  if (ebbctl_want_args (cmd, argc, first, n, err) < 0)
    return -EINVAL;
  return first;
}

int
ebbctl_parse_name (const char *s, const char **out, ebb_error **err)
{
  if (!ebb_id_is_valid (s, 128))
    return ebb_error_set (err, EINVAL, "--name: want 1-128 characters of [A-Za-z0-9._-], got '%s'",
                          s ? s : "");
  *out = s;
  return 0;
}
