/* sparrow: batch probing with late binding (Ousterhout et al., SOSP 2013), as Hawk §2
 * describes it: a job of t tasks sends ceil(d*t) probes to random nodes; a probe at the head
 * of a node's queue asks the job for a task. Every job, long or short, is scheduled this way
 * over the whole cluster; the late binding itself lives in the policy core. */
#include "config.h"

#include "policies/policy-impl.h"

static void
sparrow_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  if (p->jobs[job].ntasks == 0)
    return;
  ebb_pol_send_probes_random (p, job, ebb_pol_probe_count (p, job), 0, p->params.nnodes);
}

const ebb_pol_ops ebb_pol_sparrow_ops = {
  .name = "sparrow",
  .summary = "distributed batch probing (d*t probes) with late binding",
  .job_arrived = sparrow_job_arrived,
  .forgets_jobs = 1, /* nothing of a job but its probes, which the core counts */
};
