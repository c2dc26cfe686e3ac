/* The speculation core shared by hopper and srpt (see policies/spec.h). */
#include "config.h"

#include "policies/spec.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

/* LATE judges a copy only after it ran this share of the job's estimated task duration
 * (and at least one heartbeat): Hopper's example (section 3.1) detects a straggler after
 * 2 time units of tasks that take 10. */
#define SPEC_MIN_RUN_SHARE 0.2
/* LATE's SlowTaskThreshold (Zaharia et al., OSDI 2008): a task is a straggler when its
 * progress rate is among the slowest quarter of its job's running tasks. */
#define SPEC_SLOW_SHARE 0.25

static ebb_spec *
spec_of (ebb_pol *p)
{
  return p->priv;
}

static void
grow_u32 (uint32_t **v, uint32_t *cap, uint32_t need)
{
  if (need <= *cap)
    return;
  uint32_t c = *cap ? *cap : 4;
  while (c < need)
    c *= 2;
  *v = ebb_xrealloc (*v, sizeof **v * c);
  *cap = c;
}

void
ebb_spec_init (ebb_pol *p, ebb_spec *s, const ebb_spec_hooks *hooks)
{
  uint32_t n = p->params.nnodes;
  s->hooks = *hooks;
  s->nnodes = n;
  s->central = p->params.spec_mode == EBB_POL_SPEC_CENTRAL;
  s->idle = ebb_xmalloc (sizeof *s->idle * n);
  s->idle_pos = ebb_xmalloc (sizeof *s->idle_pos * n);
  /* Lowest node id on top of the stack. */
  for (uint32_t i = 0; i < n; i++)
    {
      s->idle[i] = n - 1 - i;
      s->idle_pos[n - 1 - i] = i;
    }
  s->nidle = n;
  if (!s->central)
    {
      s->resv = ebb_xcalloc (n, sizeof *s->resv);
      s->nresv = ebb_xcalloc (n, sizeof *s->nresv);
      s->resv_cap = ebb_xcalloc (n, sizeof *s->resv_cap);
    }
  if (p->params.tick_sec <= 0)
    p->params.tick_sec = p->params.heartbeat_sec;
}

void
ebb_spec_fini (ebb_spec *s)
{
  for (uint32_t j = 0; j < s->jobs_cap; j++)
    {
      free (s->jobs[j].tasks);
      free (s->jobs[j].run);
      free (s->jobs[j].cand);
    }
  free (s->jobs);
  free (s->order);
  free (s->idle);
  free (s->idle_pos);
  if (s->resv)
    for (uint32_t i = 0; i < s->nnodes; i++)
      free (s->resv[i]);
  free (s->resv);
  free (s->scratch);
  free (s->nresv);
  free (s->resv_cap);
}

static void
idle_remove (ebb_spec *s, uint32_t node)
{
  uint32_t pos = s->idle_pos[node];
  if (pos == EBB_POL_NONE)
    return;
  uint32_t last = s->idle[--s->nidle];
  s->idle[pos] = last;
  s->idle_pos[last] = pos;
  s->idle_pos[node] = EBB_POL_NONE;
}

static void
idle_add (ebb_spec *s, uint32_t node)
{
  if (s->idle_pos[node] != EBB_POL_NONE)
    return;
  s->idle_pos[node] = s->nidle;
  s->idle[s->nidle++] = node;
}

/* Moves job toward the front of the order while its predecessor has more tasks left. */
static void
order_bubble (ebb_spec *s, uint32_t job)
{
  uint32_t i = s->jobs[job].opos;
  while (i > 0 && s->jobs[s->order[i - 1]].remaining > s->jobs[job].remaining)
    {
      uint32_t o = s->order[i - 1];
      s->order[i] = o;
      s->jobs[o].opos = i;
      i--;
    }
  s->order[i] = job;
  s->jobs[job].opos = i;
}

static void
order_remove (ebb_spec *s, uint32_t job)
{
  uint32_t i = s->jobs[job].opos;
  memmove (&s->order[i], &s->order[i + 1], sizeof *s->order * (s->norder - i - 1));
  s->norder--;
  for (; i < s->norder; i++)
    s->jobs[s->order[i]].opos = i;
}

int
ebb_spec_may_speculate (const ebb_spec *s, const ebb_pol *p, uint32_t job)
{
  const ebb_spec_job *j = &s->jobs[job];
  return j->active && j->next == p->jobs[job].ntasks && j->nrun > 0;
}

static void late_check (ebb_pol *p, uint32_t job, double now_sec);

int
ebb_spec_runnable (ebb_pol *p, uint32_t job, double now_sec)
{
  ebb_spec_job *j = &spec_of (p)->jobs[job];
  if (!j->active)
    return 0;
  if (j->next < p->jobs[job].ntasks)
    return 1;
  ebb_spec *s = spec_of (p);
  if (s->spec_cap && s->live_copies - s->live_tasks >= s->spec_cap)
    return 0;
  /* Drop candidates that finished or got their copies since the heartbeat. */
  while (j->ncand > 0)
    {
      const ebb_spec_task *t = &j->tasks[j->cand[j->ncand - 1]];
      if (!t->done && t->ncopies > 0 && t->ncopies < EBB_SPEC_MAX_COPIES)
        return 1;
      j->ncand--;
    }
  /* LATE looks for a straggler when a slot is offered (with the progress reports as of
   * now), not only at heartbeats; once per job and instant. */
  if (j->checked_at == now_sec)
    return 0;
  late_check (p, job, now_sec);
  return j->ncand > 0;
}

/* Starts a copy of job's next piece of work on node: an original task while any is left,
 * else LATE's most urgent straggler. The caller checked ebb_spec_runnable. */
static void
launch (ebb_pol *p, uint32_t node, uint32_t job, double delay_sec, double now_sec)
{
  ebb_spec *s = spec_of (p);
  ebb_spec_job *j = &s->jobs[job];
  uint32_t task;
  if (j->next < p->jobs[job].ntasks)
    {
      task = j->next++;
      p->jobs[job].launched = j->next;
    }
  else
    {
      task = j->cand[--j->ncand];
      p->stats.speculative_copies++;
    }
  ebb_spec_task *t = &j->tasks[task];
  if (t->ncopies == 0)
    {
      grow_u32 (&j->run, &j->run_cap, j->nrun + 1);
      j->run[j->nrun++] = task;
      s->live_tasks++;
    }
  s->live_copies++;
  for (uint32_t c = 0; c < EBB_SPEC_MAX_COPIES; c++)
    if (t->node[c] == EBB_POL_NONE)
      {
        t->node[c] = node;
        t->start[c] = now_sec + delay_sec;
        break;
      }
  t->ncopies++;
  j->occupied++;
  idle_remove (s, node);
  p->nodes[node].busy = 1;
  ebb_pol_emit (p, EBB_POL_ACT_LAUNCH, node, job, task, delay_sec);
}

void
ebb_spec_resv_drop (ebb_spec *s, uint32_t node, uint32_t i)
{
  ebb_spec_job *j = &s->jobs[s->resv[node][i]];
  if (j->resv_out > 0)
    j->resv_out--;
  s->resv[node][i] = s->resv[node][--s->nresv[node]];
}

/* Offers the free node's slot; returns 1 when a copy was launched on it. */
static int
fill_node (ebb_pol *p, double now_sec, uint32_t node)
{
  ebb_spec *s = spec_of (p);
  if (s->central)
    {
      uint32_t job = s->hooks.pick_central (p, now_sec, node);
      if (job == EBB_POL_NONE)
        return 0;
      launch (p, node, job, p->params.net_delay_sec, now_sec);
      return 1;
    }
  /* Reservations of finished jobs leave the queue first. */
  for (uint32_t i = 0; i < s->nresv[node];)
    if (!s->jobs[s->resv[node][i]].active)
      ebb_spec_resv_drop (s, node, i);
    else
      i++;
  if (s->nresv[node] == 0)
    return 0;
  double delay = 2 * p->params.net_delay_sec;
  uint32_t i = EBB_POL_NONE;
  uint32_t job = s->hooks.pick_worker (p, now_sec, node, &delay, &i);
  if (job == EBB_POL_NONE)
    return 0;
  if (i != EBB_POL_NONE)
    ebb_spec_resv_drop (s, node, i);
  launch (p, node, job, delay, now_sec);
  return 1;
}

/* Central: offers the free nodes until the scheduler leaves one free (it would leave the
 * others too: its choice does not depend on the node). */
static void
fill_idle_central (ebb_pol *p, double now_sec)
{
  ebb_spec *s = spec_of (p);
  while (s->nidle > 0 && fill_node (p, now_sec, s->idle[s->nidle - 1]))
    ;
}

void
ebb_spec_job_arrived (ebb_pol *p, double now_sec, uint32_t job, double probe_ratio)
{
  ebb_spec *s = spec_of (p);
  if (job >= s->jobs_cap)
    {
      uint32_t cap = s->jobs_cap ? s->jobs_cap : 1024;
      while (cap <= job)
        cap *= 2;
      s->jobs = ebb_xrealloc (s->jobs, sizeof *s->jobs * cap);
      memset (s->jobs + s->jobs_cap, 0, sizeof *s->jobs * (cap - s->jobs_cap));
      s->jobs_cap = cap;
    }
  uint32_t n = p->jobs[job].ntasks;
  ebb_spec_job *j = &s->jobs[job];
  if (n == 0 || j->active)
    return;
  free (j->tasks);
  j->tasks = ebb_xmalloc (sizeof *j->tasks * n);
  for (uint32_t t = 0; t < n; t++)
    {
      j->tasks[t] = (ebb_spec_task){ .ncopies = 0 };
      for (uint32_t c = 0; c < EBB_SPEC_MAX_COPIES; c++)
        j->tasks[t].node[c] = EBB_POL_NONE;
    }
  j->remaining = n;
  j->next = 0;
  j->occupied = 0;
  j->nrun = j->ncand = 0;
  j->checked_at = -INFINITY;
  j->resv_out = 0;
  j->active = 1;
  s->total_remaining += n;
  grow_u32 (&s->order, &s->order_cap, s->norder + 1);
  s->order[s->norder] = job;
  j->opos = s->norder++;
  order_bubble (s, job);
  s->dirty = 1;
  if (s->central)
    {
      fill_idle_central (p, now_sec);
      return;
    }
  double c = ceil (probe_ratio * n);
  j->resv_out = c < n ? n : (uint32_t)c;
  ebb_pol_send_probes_random (p, job, j->resv_out, 0, p->params.nnodes);
}

void
ebb_spec_probe_enqueue (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe)
{
  (void)now_sec;
  ebb_spec *s = spec_of (p);
  uint32_t job = p->probes[probe].job;
  ebb_pol_probe_release (p, probe);
  if (!s->jobs[job].active)
    {
      if (s->jobs[job].resv_out > 0)
        s->jobs[job].resv_out--;
      return;
    }
  grow_u32 (&s->resv[node], &s->resv_cap[node], s->nresv[node] + 1);
  s->resv[node][s->nresv[node]++] = job;
}

int
ebb_spec_node_idle (ebb_pol *p, double now_sec, uint32_t node)
{
  ebb_spec *s = spec_of (p);
  p->nodes[node].busy = 0;
  idle_add (s, node);
  fill_node (p, now_sec, node);
  return 0;
}

/* Removes the copy on node from the task's live copies; returns 1 when it was there. */
static int
copy_remove (ebb_spec_task *t, uint32_t node)
{
  for (uint32_t c = 0; c < EBB_SPEC_MAX_COPIES; c++)
    if (t->node[c] == node)
      {
        t->node[c] = EBB_POL_NONE;
        t->ncopies--;
        return 1;
      }
  return 0;
}

static void
run_remove (ebb_spec_job *j, uint32_t task)
{
  for (uint32_t i = 0; i < j->nrun; i++)
    if (j->run[i] == task)
      {
        j->run[i] = j->run[--j->nrun];
        return;
      }
}

/* A finished job's per-task state goes once its last copy is off its node (a loser's KILL
 * may still be on its way when the job's last task finishes). */
static void
job_release (ebb_spec_job *j)
{
  if (j->active || j->occupied > 0)
    return;
  free (j->tasks);
  free (j->run);
  free (j->cand);
  j->tasks = NULL;
  j->run = j->cand = NULL;
  j->run_cap = j->cand_cap = 0;
}

void
ebb_spec_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_spec *s = spec_of (p);
  ebb_spec_job *j = &s->jobs[job];
  ebb_spec_task *t = &j->tasks[task];
  if (t->done || !copy_remove (t, node))
    abort (); /* the environment reports the first copy to finish only */
  t->done = 1;
  j->occupied--;
  run_remove (j, task);
  s->live_copies--;
  s->live_tasks--;
  /* The first copy won: the others are killed (their slots stay taken until then). */
  for (uint32_t c = 0; c < EBB_SPEC_MAX_COPIES; c++)
    if (t->node[c] != EBB_POL_NONE)
      {
        p->stats.kills++;
        ebb_pol_emit (p, EBB_POL_ACT_KILL, t->node[c], job, task, p->params.net_delay_sec);
      }
  j->remaining--;
  s->total_remaining--;
  s->dirty = 1;
  if (j->remaining == 0)
    {
      j->active = 0;
      order_remove (s, job);
      job_release (j);
    }
  else
    order_bubble (s, job);
  /* The core calls node_idle next: the winner's node is offered there. A central scheduler
   * also sees the change at once: nodes it kept free may have a taker now. */
  if (s->central)
    fill_idle_central (p, now_sec);
}

void
ebb_pol_copy_killed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_spec *s = spec_of (p);
  ebb_spec_job *j = &s->jobs[job];
  ebb_spec_task *t = &j->tasks[task];
  if (!copy_remove (t, node))
    abort ();
  j->occupied--;
  s->live_copies--;
  if (!t->done && t->ncopies == 0)
    {
      /* Not the policies' own doing (they kill losers only), but keep the books right. */
      run_remove (j, task);
      s->live_tasks--;
    }
  job_release (j);
  if (p->ops->task_killed)
    p->ops->task_killed (p, now_sec, node, job, task);
  ebb_spec_node_idle (p, now_sec, node);
}

double
ebb_spec_time_left (ebb_pol *p, uint32_t job, uint32_t task, double now_sec)
{
  const ebb_spec_task *t = &spec_of (p)->jobs[job].tasks[task];
  double min_run = SPEC_MIN_RUN_SHARE * p->jobs[job].est_task_sec;
  if (min_run < p->params.heartbeat_sec)
    min_run = p->params.heartbeat_sec;
  double best = INFINITY;
  for (uint32_t c = 0; c < EBB_SPEC_MAX_COPIES; c++)
    {
      if (t->node[c] == EBB_POL_NONE)
        continue;
      double elapsed = now_sec - t->start[c];
      if (elapsed < min_run)
        return -1;
      double prog = p->params.progress ? p->params.progress (p->params.progress_ctx, t->node[c],
                                                             job, task, now_sec)
                                       : 0;
      if (!(prog > 0))
        return -1;
      /* LATE: progress rate = progress / elapsed; time left = (1 - progress) / rate. */
      double left = (1 - prog) * elapsed / prog;
      if (left < best)
        best = left;
    }
  return best;
}

typedef struct spec_cand
{
  double key;
  double left;
  uint32_t task;
} spec_cand;

static int
cmp_cand (const void *a, const void *b)
{
  const spec_cand *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->task > y->task) - (x->task < y->task);
}

/* LATE at one heartbeat, for a job whose originals are all launched: among its running
 * tasks with a single copy old enough to judge, the slowest quarter by progress rate are
 * stragglers; they get a copy longest estimated time left first. */
static void
late_check (ebb_pol *p, uint32_t job, double now_sec)
{
  ebb_spec *s = spec_of (p);
  ebb_spec_job *j = &s->jobs[job];
  j->ncand = 0;
  j->checked_at = now_sec;
  if (j->next < p->jobs[job].ntasks || j->nrun == 0)
    return;
  if (j->nrun > s->scratch_cap)
    {
      s->scratch_cap = j->nrun * 2;
      s->scratch = ebb_xrealloc (s->scratch, sizeof (spec_cand) * s->scratch_cap);
    }
  spec_cand *c = s->scratch;
  uint32_t n = 0;
  for (uint32_t i = 0; i < j->nrun; i++)
    {
      uint32_t task = j->run[i];
      const ebb_spec_task *t = &j->tasks[task];
      if (t->ncopies != 1)
        continue;
      double left = ebb_spec_time_left (p, job, task, now_sec);
      if (left < 0)
        continue; /* too young to judge */
      uint32_t k = t->node[0] != EBB_POL_NONE ? 0 : 1;
      double elapsed = now_sec - t->start[k];
      /* Progress rate = progress / elapsed = elapsed / (elapsed + left) / elapsed. */
      c[n++] = (spec_cand){ .key = 1.0 / (elapsed + left), .left = left, .task = task };
    }
  if (n == 0)
    return;
  qsort (c, n, sizeof *c, cmp_cand);
  uint32_t slow = (uint32_t)ceil (SPEC_SLOW_SHARE * n);
  for (uint32_t i = 0; i < slow; i++)
    c[i].key = c[i].left;
  qsort (c, slow, sizeof *c, cmp_cand);
  grow_u32 (&j->cand, &j->cand_cap, slow);
  for (uint32_t i = 0; i < slow; i++)
    j->cand[i] = c[i].task;
  j->ncand = slow;
  if (s->central || !(s->copy_probes > 0))
    return;
  /* Best effort in a Sparrow scheduler: the copy LATE asks for is a task like any other,
   * so the job's scheduler places reservations for it; without them the copy could only
   * use a reservation still queued, and an idle worker spends those at once on a "no task"
   * answer. Once per straggler, and again while it still has no copy once every
   * reservation of its job is used or spent (a worker that found LATE's SpeculativeCap
   * reached answered "no task"): LATE keeps asking for a straggler it named, and without a
   * reservation the copy would never start, leaving the job to the straggler's whole
   * Pareto tail. */
  uint32_t want = (uint32_t)ceil (s->copy_probes);
  int renew = j->resv_out == 0;
  for (uint32_t i = 0; i < slow; i++)
    {
      ebb_spec_task *t = &j->tasks[c[i].task];
      if (t->probed && !renew)
        continue;
      t->probed = 1;
      j->resv_out += want;
      ebb_pol_send_probes_random (p, job, want, 0, p->params.nnodes);
    }
}

void
ebb_spec_tick (ebb_pol *p, double now_sec)
{
  ebb_spec *s = spec_of (p);
  for (uint32_t i = 0; i < s->norder; i++)
    late_check (p, s->order[i], now_sec);
  if (s->central)
    {
      fill_idle_central (p, now_sec);
      return;
    }
  for (uint32_t i = 0; i < s->nidle;)
    {
      uint32_t node = s->idle[i];
      if (s->nresv[node] > 0 && fill_node (p, now_sec, node))
        continue; /* node left the idle set: another one moved to i */
      i++;
    }
}
