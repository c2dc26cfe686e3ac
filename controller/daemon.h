/* The daemon (daemon.c): builds the controller from its settings, runs the loop, frees it. */
#ifndef EBB_CTL_DAEMON_H
#define EBB_CTL_DAEMON_H

#include "controller/ctl.h"

int ebb_ctl_new (ebb_ctl_config *cfg, ebb_ctl **out, ebb_error **err);
int ebb_ctl_run (ebb_ctl *c);
void ebb_ctl_free (ebb_ctl *c);

#endif
