/* srpt: Hopper's baseline (Hopper section 7.1), SRPT with best-effort speculation. A free
 * slot goes to the job with the fewest unfinished tasks that has work for it: an original
 * task, or a copy of a straggler LATE named (speculative copies are ordinary tasks, served
 * whenever a slot is open, within LATE's SpeculativeCap of 10% of the slots). Central: one
 * scheduler sees every job. Decentral: Sparrow-SRPT, batched power of two choices
 * (params.probe_ratio reservations per task, late binding); a free worker serves, among the
 * jobs with a reservation in its queue, the one with the fewest unfinished tasks, and a
 * reservation answered "no task" is spent (Hopper's, in contrast, stay queued). A copy is
 * placed as a task is: when LATE names a straggler, its job's scheduler sends probe_ratio
 * reservations for it, and again while the straggler has no copy once the job's
 * reservations are all used or spent. */
#include "config.h"

#include "policies/spec.h"

static uint32_t
srpt_pick_central (ebb_pol *p, double now_sec, uint32_t node)
{
  (void)node;
  ebb_spec *s = p->priv;
  for (uint32_t i = 0; i < s->norder; i++)
    if (ebb_spec_runnable (p, s->order[i], now_sec))
      return s->order[i];
  return EBB_POL_NONE;
}

/* Sparrow's late binding: the worker asks the job with the fewest unfinished tasks among
 * those queued; a job with nothing to run answers "no task" (a round trip) and that
 * reservation is spent, as in Sparrow; the worker then asks the next. */
static uint32_t
srpt_pick_worker (ebb_pol *p, double now_sec, uint32_t node, double *delay_sec, uint32_t *resv)
{
  ebb_spec *s = p->priv;
  for (;;)
    {
      uint32_t best = EBB_POL_NONE;
      for (uint32_t i = 0; i < s->nresv[node]; i++)
        if (best == EBB_POL_NONE
            || s->jobs[s->resv[node][i]].opos < s->jobs[s->resv[node][best]].opos)
          best = i;
      if (best == EBB_POL_NONE)
        return EBB_POL_NONE;
      if (ebb_spec_runnable (p, s->resv[node][best], now_sec))
        {
          *resv = best;
          return s->resv[node][best];
        }
      ebb_spec_resv_drop (s, node, best);
      p->stats.probes_surplus++;
      *delay_sec += 2 * p->params.net_delay_sec;
    }
}

static int
srpt_init (ebb_pol *p, ebb_error **err)
{
  (void)err;
  static const ebb_spec_hooks hooks = { srpt_pick_central, srpt_pick_worker };
  ebb_spec *s = p->priv;
  ebb_spec_init (p, s, &hooks);
  /* LATE's SpeculativeCap: at most 10% of the slots run speculative copies. */
  s->spec_cap = p->params.nnodes / 10 ? p->params.nnodes / 10 : 1;
  /* Sparrow-SRPT: a copy is placed as a task is, with probe_ratio reservations. */
  if (!s->central)
    s->copy_probes = p->params.probe_ratio;
  return 0;
}

static void
srpt_fini (ebb_pol *p)
{
  ebb_spec_fini (p->priv);
}

static void
srpt_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  ebb_spec_job_arrived (p, now_sec, job, p->params.probe_ratio);
}

const ebb_pol_ops ebb_pol_srpt_ops = {
  .name = "srpt",
  .summary = "SRPT with best-effort LATE speculation (Hopper's baseline)",
  .priv_size = sizeof (ebb_spec),
  .init = srpt_init,
  .fini = srpt_fini,
  .job_arrived = srpt_job_arrived,
  .node_idle = ebb_spec_node_idle,
  .task_finished = ebb_spec_task_finished,
  .tick = ebb_spec_tick,
  .probe_enqueue = ebb_spec_probe_enqueue,
  .speculative = 1,
};
