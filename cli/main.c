/* ebbctl: global options, then the command from the table. */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "cli/ebbctl.h"

int
main (int argc, char **argv)
{
  cleanup_error ebb_error *err = NULL;
  ebbctl_ctx ctx = { .out = stdout };
  int i = ebbctl_parse_global (&ctx, argc, argv, &err);
  int rc;
  if (i == -1)
    rc = EBBCTL_EXIT_OK;
  else if (i < 0)
    rc = ebbctl_fail (NULL, &err);
  else if (i >= argc)
    {
      fputs ("ebbctl: no command given\nTry 'ebbctl --help'.\n", stderr);
      rc = EBBCTL_EXIT_USAGE;
    }
  else
    {
      const ebbctl_cmd *cmd = ebbctl_command_find (argv[i]);
      int cmd_argc = argc - i;
      if (!cmd)
        {
          const char *near = ebbctl_suggest_command (argv[i]);
          fprintf (stderr, "ebbctl: unknown command '%s'%s%s%s\nTry 'ebbctl --help'.\n", argv[i],
                   near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
          rc = EBBCTL_EXIT_USAGE;
        }
      else if (ebbctl_take_output_opts (&ctx, cmd, &cmd_argc, argv + i, &err) < 0)
        rc = ebbctl_fail (cmd, &err);
      else
        {
          ctx.color = ebbctl_want_color (&ctx, STDOUT_FILENO);
          rc = cmd->run (&ctx, cmd, cmd_argc, argv + i);
        }
    }
  ebbctl_ctx_clear (&ctx);
  return rc;
}
