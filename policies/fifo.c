/* fifo: one central queue of tasks in submission order; a free node takes the next task.
 * The baseline with perfect knowledge and no queues on the nodes: a task is sent to a node
 * only when the node is free, so the launch costs one network delay. */
#include "config.h"

#include "policies/policy-impl.h"
#include "lib/util.h"

typedef struct fifo_priv
{
  uint32_t *idle; /* stack of idle nodes, lowest id on top */
  uint32_t nidle;
  uint32_t *next_job; /* FIFO of jobs with unlaunched tasks, linked by job id */
  uint32_t next_cap;
  uint32_t head, tail;
} fifo_priv;

static int
fifo_init (ebb_pol *p, ebb_error **err)
{
  fifo_priv *f = p->priv;
  uint32_t n = p->params.nnodes;
  f->idle = ebb_xmalloc (sizeof *f->idle * n);
  for (uint32_t i = 0; i < n; i++)
    f->idle[i] = n - 1 - i;
  f->nidle = n;
  f->head = f->tail = EBB_POL_NONE;
  return 0;
}

static void
fifo_fini (ebb_pol *p)
{
  fifo_priv *f = p->priv;
  free (f->idle);
  free (f->next_job);
}

/* Launches the head job's next task on node; returns 0, or -1 when nothing is waiting. */
static int
fifo_launch_next (ebb_pol *p, double now_sec, uint32_t node)
{
  fifo_priv *f = p->priv;
  if (f->head == EBB_POL_NONE)
    return -1;
  uint32_t job = f->head;
  ebb_pol_bind_task (p, now_sec, node, job, p->params.net_delay_sec);
  ebb_pol_job *j = &p->jobs[job];
  if (j->launched == j->ntasks)
    {
      f->head = f->next_job[job];
      if (f->head == EBB_POL_NONE)
        f->tail = EBB_POL_NONE;
    }
  return 0;
}

static void
fifo_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  fifo_priv *f = p->priv;
  if (job >= f->next_cap)
    {
      uint32_t cap = f->next_cap ? f->next_cap : 1024;
      while (cap <= job)
        cap *= 2;
      f->next_job = ebb_xrealloc (f->next_job, sizeof *f->next_job * cap);
      f->next_cap = cap;
    }
  if (p->jobs[job].ntasks == 0)
    return;
  f->next_job[job] = EBB_POL_NONE;
  if (f->tail == EBB_POL_NONE)
    f->head = job;
  else
    f->next_job[f->tail] = job;
  f->tail = job;
  while (f->nidle > 0 && fifo_launch_next (p, now_sec, f->idle[f->nidle - 1]) == 0)
    f->nidle--;
}

static int
fifo_node_idle (ebb_pol *p, double now_sec, uint32_t node)
{
  fifo_priv *f = p->priv;
  if (fifo_launch_next (p, now_sec, node) < 0)
    f->idle[f->nidle++] = node;
  return 0;
}

const ebb_pol_ops ebb_pol_fifo_ops = {
  .name = "fifo",
  .summary = "central FIFO queue; free nodes take the next task",
  .priv_size = sizeof (fifo_priv),
  .init = fifo_init,
  .fini = fifo_fini,
  .job_arrived = fifo_job_arrived,
  .node_idle = fifo_node_idle,
  /* A job leaves the central queue at its last launch; next_job[] is set again when its id
   * arrives anew. */
  .forgets_jobs = 1,
};
