/* The controller's histograms (GET /metrics): a short job's start delay and a task's time
 * suspended, observed where a task's state changes (model-index.c), and a job's decision
 * time (outbox.c). Histograms, not summaries, so Prometheus aggregates them over time and
 * over controllers. */
#include "config.h"

#include "controller/ctl.h"
#include "lib/util.h"

/* Submission to running: the product's promise is milliseconds to seconds for short work. */
static const double start_delay_bounds_sec[]
    = { 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300 };
/* Suspended to resumed (or ended): a short job's length up to the policy's patience. */
static const double suspended_bounds_sec[]
    = { 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600 };

/* See ctl.h. */
void
ebb_ctl_metrics_init (ebb_ctl *c)
{
  ebb_prom_hist_init (&c->hist.start_delay, start_delay_bounds_sec,
                      EBB_ARRAY_SIZE (start_delay_bounds_sec));
  ebb_prom_hist_init (&c->hist.suspended, suspended_bounds_sec,
                      EBB_ARRAY_SIZE (suspended_bounds_sec));
  ebb_prom_hist_init (&c->hist.decision, NULL, 0);
}

/* See ctl.h. */
void
ebb_ctl_metrics_task_moved (ebb_ctl *c, ebb_ctl_task *t, ebb_ctl_task_state from)
{
  if (from == t->state)
    return;
  double now = ebb_ctl_now ();
  /* A task loaded as suspended after a restart (it comes from the load's placeholder
   * state) has no start of its suspension: not observed rather than observed wrong. */
  if (from == TASK_SUSPENDED && t->suspended_at > 0)
    {
      ebb_prom_hist_observe (&c->hist.suspended, now > t->suspended_at ? now - t->suspended_at : 0);
      t->suspended_at = 0;
    }
  if (t->state == TASK_SUSPENDED && (from == TASK_RUNNING || from == TASK_STARTING))
    t->suspended_at = now;
  /* The first start only: a task started again after its node was lost is not a new
   * promise. A task loaded as running was observed before the restart. */
  if (from == TASK_STARTING && t->state == TASK_RUNNING && !t->start_seen)
    {
      t->start_seen = true;
      double d = now - t->job->submitted_at;
      if (t->job->cls == CLS_SHORT && t->job->submitted_at > 0)
        ebb_prom_hist_observe (&c->hist.start_delay, d > 0 ? d : 0);
    }
}
