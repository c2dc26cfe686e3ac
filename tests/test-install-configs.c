/* Every configuration example ebb ships parses with the program's own option and settings
 * table: the installed example (contrib/ebb/agent.conf.example, built from its .in) and the
 * EXAMPLE section of ebb.conf(5). A broken copy must fail and name its line, so the check
 * can fail too. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/options.h"
#include "lib/conf.h"
#include "lib/error.h"
#include "lib/util.h"
#include "tests/cu.h"

static const char *
dir_env (const char *name)
{
  const char *d = getenv (name);
  return d ? d : ".";
}

/* Parses path as the agent would with --config path; returns 0 or negative with *err. */
static int
parse_agent (const char *path, ebb_agent_config *cfg, ebb_error **err)
{
  char *argv[] = { "ebb-agent", "--config", (char *)path, NULL };
  memset (cfg, 0, sizeof *cfg);
  return ebb_agent_parse_args (3, argv, cfg, err);
}

static void
test_agent_example (void)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/contrib/ebb/agent.conf.example", dir_env ("EBB_TOP_BUILDDIR"));
  CU_ASSERT_EQUAL_FATAL (access (path, R_OK), 0);
  ebb_agent_config cfg;
  cleanup_error ebb_error *err = NULL;
  int r = parse_agent (path, &cfg, &err);
  if (r < 0)
    fprintf (stderr, "\n  %s\n", ebb_error_msg (&err));
  CU_ASSERT_EQUAL (r, 0);
  /* what the example sets is what the agent got */
  CU_ASSERT_EQUAL (ebb_strv_length (cfg.listen), 1);
  CU_ASSERT_TRUE (cfg.listen && strcmp (cfg.listen[0], "unix:/run/ebb/agent.sock") == 0);
  CU_ASSERT_EQUAL (cfg.footprint_memory_bytes, 64ULL << 20);
  CU_ASSERT_PTR_NOT_NULL (cfg.state_dir);
  CU_ASSERT_TRUE (cfg.state_dir && strstr (cfg.state_dir, "/lib/ebb/agent") != NULL);
  ebb_agent_config_free (&cfg);
}

/* Writes the .nf/.fi block of ebb.conf(5)'s EXAMPLE section to a temporary file (roff
 * escapes \e and \- undone). Returns its path (free it) or NULL. */
static char *
man_example (void)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/man/ebb.conf.5", dir_env ("EBB_TOP_SRCDIR"));
  FILE *in = fopen (path, "re");
  if (!in)
    return NULL;
  char *tmp = ebb_xstrdup ("/tmp/ebb-conf-example-XXXXXX");
  int fd = mkstemp (tmp);
  FILE *out = fd >= 0 ? fdopen (fd, "w") : NULL;
  char line[1024];
  int state = 0; /* 0 before EXAMPLE, 1 in the section, 2 inside .nf, 3 done */
  unsigned lines = 0;
  while (out && state < 3 && fgets (line, sizeof line, in))
    {
      if (state == 0 && strncmp (line, ".SH EXAMPLE", 11) == 0)
        state = 1;
      else if (state == 1 && strncmp (line, ".nf", 3) == 0)
        state = 2;
      else if (state == 2 && strncmp (line, ".fi", 3) == 0)
        state = 3;
      else if (state == 2)
        {
          for (const char *p = line; *p; p++)
            if (p[0] == '\\' && (p[1] == 'e' || p[1] == '-'))
              fputc (*++p == 'e' ? '\\' : '-', out);
            else
              fputc (*p, out);
          lines++;
        }
    }
  fclose (in);
  if (out)
    fclose (out);
  if (state != 3 || lines == 0)
    {
      unlink (tmp);
      free (tmp);
      return NULL;
    }
  return tmp;
}

static void
test_man_example (void)
{
  char *path = man_example ();
  CU_ASSERT_PTR_NOT_NULL_FATAL (path);
  ebb_agent_config cfg;
  cleanup_error ebb_error *err = NULL;
  int r = parse_agent (path, &cfg, &err);
  if (r < 0)
    fprintf (stderr, "\n  ebb.conf(5) EXAMPLE: %s\n", ebb_error_msg (&err));
  CU_ASSERT_EQUAL (r, 0);
  ebb_agent_config_free (&cfg);
  unlink (path);
  free (path);
}

/* The same parse refuses a copy with an unknown key and names the line. */
static void
test_broken_copy_fails (void)
{
  char tmp[] = "/tmp/ebb-conf-bad-XXXXXX";
  int fd = mkstemp (tmp);
  CU_ASSERT_TRUE_FATAL (fd >= 0);
  FILE *f = fdopen (fd, "w");
  fputs ("listen = 127.0.0.1:7470\nsuspend_memory_footprint = 64M\n", f);
  fclose (f);
  ebb_agent_config cfg;
  cleanup_error ebb_error *err = NULL;
  CU_ASSERT_TRUE (parse_agent (tmp, &cfg, &err) < 0);
  CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), ":2:"));
  ebb_agent_config_free (&cfg);
  unlink (tmp);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_agent_example),
  EBB_CU_TEST (test_man_example),
  EBB_CU_TEST (test_broken_copy_fails),
};

EBB_CU_MAIN ("install-configs", NULL, NULL, tests)
