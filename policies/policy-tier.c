/* Priority tiers of jobs (ebb_pol_job_set_priority): kept by job id beside the job array,
 * not in ebb_pol_job, which stays 72 bytes a job for the policies' hot loops (as
 * job_probes in policy.c). Only the policies with ops->tiers read them. */
#include "config.h"

#include "policies/policy-impl.h"
#include "lib/util.h"

#include <string.h>

void
ebb_pol_job_set_priority (ebb_pol *p, uint32_t job, int32_t priority)
{
  if (job >= p->job_prio_cap)
    {
      if (priority == 0)
        return; /* the default: nothing to keep */
      uint32_t cap = (uint32_t)ebb_grow_cap (p->job_prio_cap, 1024, (size_t)job + 1);
      p->job_prio = ebb_xrealloc (p->job_prio, cap * sizeof *p->job_prio);
      memset (p->job_prio + p->job_prio_cap, 0, (cap - p->job_prio_cap) * sizeof *p->job_prio);
      p->job_prio_cap = cap;
    }
  p->job_prio[job] = priority;
}

int32_t
ebb_pol_job_priority (const ebb_pol *p, uint32_t job)
{
  return job < p->job_prio_cap ? p->job_prio[job] : 0;
}
