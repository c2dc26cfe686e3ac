/* Whether this instance acts, and the end of a deposed one (doc/ha.md "Controllers"). */
#include "config.h"

#include "controller/ctl.h"
#include "lib/etcd-election.h"
#include "lib/log.h"

/* See ctl.h. */
bool
ebb_ctl_leading (const ebb_ctl *c)
{
  if (!c->leading || c->deposed)
    return false;
  return !c->election || ebb_election_is_leader (c->election);
}

/* See ctl.h. */
void
ebb_ctl_depose (ebb_ctl *c, const char *why)
{
  if (c->deposed)
    return;
  ebb_log_err ("no longer the leader at epoch %llu: %s; exiting to start again as a standby",
               (unsigned long long)c->epoch, why);
  c->deposed = true;
  c->leading = false;
  if (c->event)
    sd_event_exit (c->event, EBB_CTL_EXIT_DEPOSED);
}
