/* ebb-agent: parses options and hands over to the daemon (agent/setup.c). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "agent/options.h"
#include "agent/setup.h"
#include "lib/log.h"
#include "lib/util.h"

int
main (int argc, char **argv)
{
  /* Before any thread exists (the engine pool, curl): sd-event takes these signals from a
   * signalfd and child exits from pidfds, so every thread must have them blocked. */
  ebb_daemon_block_signals (1);
  ebb_log_set_ident ("ebb-agent");

  ebb_agent_config cfg = { 0 };
  cfg.argc = argc;
  cfg.argv = argv;
  cleanup_error ebb_error *err = NULL;
  int r = ebb_agent_parse_args (argc, argv, &cfg, &err);
  if (r != 0)
    {
      if (r < 0)
        fprintf (stderr, "ebb-agent: %s\n", ebb_error_msg (&err));
      ebb_agent_config_free (&cfg);
      return r < 0 ? 2 : 0;
    }
  ebb_log_set_level (cfg.verbose >= 2 ? LOG_DEBUG : cfg.verbose == 1 ? LOG_INFO : LOG_NOTICE);

  ebb_agent *a = NULL;
  if (ebb_agent_new (&cfg, &a, &err) < 0)
    {
      ebb_log_err ("%s", ebb_error_msg (&err));
      ebb_agent_config_free (&cfg);
      return 1;
    }
  r = ebb_agent_run (a);
  if (r == 0)
    ebb_agent_remove_created_cgroups (a);
  ebb_agent_free (a);
  ebb_agent_config_free (&cfg);
  ebb_log_notice ("exiting (status %d)", r);
  return r;
}
