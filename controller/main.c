/* ebb-controller: parses options and hands over to the daemon (controller/daemon.c). */
#include "config.h"

#include <stdio.h>

#include "controller/ctl.h"
#include "controller/daemon.h"
#include "controller/options.h"
#include "lib/log.h"
#include "lib/util.h"

int
main (int argc, char **argv)
{
  /* sd-event takes these from a signalfd: every thread must have them blocked. */
  ebb_daemon_block_signals (0);
  ebb_log_set_ident ("ebb-controller");

  ebb_ctl_config cfg = { 0 };
  cleanup_error ebb_error *err = NULL;
  int r = ebb_ctl_parse_args (argc, argv, &cfg, &err);
  if (r != 0)
    {
      if (r < 0)
        fprintf (stderr, "ebb-controller: %s\n", ebb_error_msg (&err));
      ebb_ctl_config_free (&cfg);
      return r < 0 ? 2 : 0;
    }
  ebb_log_set_level (cfg.verbose >= 2 ? LOG_DEBUG : cfg.verbose == 1 ? LOG_INFO : LOG_NOTICE);
  ebb_ctl *c = NULL;
  if (ebb_ctl_new (&cfg, &c, &err) < 0)
    {
      ebb_log_err ("%s", ebb_error_msg (&err));
      ebb_ctl_free (c);
      ebb_ctl_config_free (&cfg);
      return 1;
    }
  r = ebb_ctl_run (c);
  ebb_ctl_free (c);
  ebb_ctl_config_free (&cfg);
  return r;
}
