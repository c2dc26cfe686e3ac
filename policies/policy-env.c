/* What the environments (ebb-sim, ebb-controller) read and take of a policy instance, whose
 * struct is theirs to hold but not to look into (policies/policy-impl.h). */
#include "config.h"

#include <string.h>

#include "policies/policy-impl.h"

/* See policy.h. */
int
ebb_pol_has_resources (const ebb_pol *p)
{
  return p->node_cap != NULL;
}

/* See policy.h. */
const ebb_pol_action *
ebb_pol_actions (const ebb_pol *p, size_t *n)
{
  *n = p->nacts;
  return p->acts;
}

/* See policy.h. */
void
ebb_pol_clear_actions (ebb_pol *p)
{
  p->nacts = 0;
}

/* See policy.h. */
size_t
ebb_pol_take_actions (ebb_pol *p, ebb_pol_action *buf, size_t max)
{
  size_t m = p->nacts < max ? p->nacts : max;
  memcpy (buf, p->acts, m * sizeof *buf);
  memmove (p->acts, p->acts + m, (p->nacts - m) * sizeof *p->acts);
  p->nacts -= m;
  return m;
}

/* See policy.h. */
const ebb_pol_ops *
ebb_pol_ops_of (const ebb_pol *p)
{
  return p->ops;
}

/* See policy.h. */
const ebb_pol_params *
ebb_pol_params_of (const ebb_pol *p)
{
  return &p->params;
}

/* See policy.h. */
const ebb_pol_stats *
ebb_pol_stats_of (const ebb_pol *p)
{
  return &p->stats;
}

/* See policy.h. */
ebb_pol_res
ebb_pol_node_cap (const ebb_pol *p, uint32_t node)
{
  return p->node_cap && node < p->params.nnodes ? p->node_cap[node] : (ebb_pol_res){ 0, 0 };
}

/* See policy.h. */
const ebb_pol_job *
ebb_pol_job_of (const ebb_pol *p, uint32_t job)
{
  return job < p->jobs_seen ? &p->jobs[job] : NULL;
}
