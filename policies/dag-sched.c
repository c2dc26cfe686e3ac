/* The online matching shared by the DAG policies (see dag-sched.h). Each event (a job
 * arrives, a task ends) makes tasks runnable or frees a node; a pass then fills every node
 * that may take a task now: the node that freed resources, and the nodes a newly runnable
 * task fits. A node is filled by repeatedly launching the task its policy scores best
 * among every runnable task that fits, until none fits: work conserving, like all the
 * schedulers the paper compares. */
#include "config.h"

#include "policies/dag-sched.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

static ebb_dag_sched *
sched_of (ebb_pol *p)
{
  return p->priv;
}

int
ebb_dag_sched_init (ebb_pol *p, const ebb_dag_hooks *hooks, ebb_error **err)
{
  (void)err;
  ebb_dag_sched *s = sched_of (p);
  uint32_t n = p->params.nnodes;
  s->hooks = hooks;
  s->cap[EBB_DAG_CPU] = (double)p->params.node_cap.cpu_millis;
  s->cap[EBB_DAG_MEM] = (double)p->params.node_cap.memory_bytes;
  s->cap[EBB_DAG_NET] = (double)p->params.node_net_mbps;
  s->free = ebb_xmalloc ((size_t)n * EBB_DAG_NRES * sizeof *s->free);
  for (size_t i = 0; i < (size_t)n * EBB_DAG_NRES; i++)
    s->free[i] = 1;
  s->open = ebb_xcalloc (n, 1);
  s->kappa_cap = p->params.dag_kappa * n;
  s->ngroups = p->params.dag_queues;
  s->groups = ebb_xcalloc (s->ngroups, sizeof *s->groups);
  return 0;
}

static void
job_release (ebb_dag_job *j)
{
  ebb_dag_graph_free (&j->g);
  free (j->waiting);
  free (j->runnable);
  free (j->prio);
  free (j->dem);
  free (j->rank);
  j->rank = NULL;
  ebb_pol_fenwick_fini (&j->unlaunched);
  j->waiting = j->runnable = NULL;
  j->prio = j->dem = NULL;
  j->live = 0;
}

void
ebb_dag_sched_fini (ebb_pol *p)
{
  ebb_dag_sched *s = sched_of (p);
  for (uint32_t i = 0; i < s->jobs_cap; i++)
    if (s->jobs[i].live)
      job_release (&s->jobs[i]);
  free (s->jobs);
  free (s->active);
  free (s->free);
  free (s->fresh);
  free (s->open);
  free (s->groups);
}

static double
dominant (const double *dem)
{
  double d = 0;
  for (int r = 0; r < EBB_DAG_NRES; r++)
    if (dem[r] > d)
      d = dem[r];
  return d;
}

static int
fits (const double *dem, const double *free_)
{
  for (int r = 0; r < EBB_DAG_NRES; r++)
    if (dem[r] > free_[r] + EPS)
      return 0;
  return 1;
}

static void
activate (ebb_dag_sched *s, uint32_t job)
{
  ebb_dag_job *j = &s->jobs[job];
  if (j->pos != EBB_POL_NONE)
    return;
  j->pos = s->nactive;
  s->active[s->nactive++] = job;
  ebb_dag_group *g = &s->groups[j->group];
  if (g->active_jobs++ == 0)
    {
      /* A group joining the competition starts with a zero deficit (a queue with no
       * demand accumulates none, as in deficit round robin). */
      g->base = s->credit;
      g->consumed = 0;
      s->active_groups++;
    }
}

static void
deactivate (ebb_dag_sched *s, uint32_t job)
{
  ebb_dag_job *j = &s->jobs[job];
  uint32_t last = s->active[--s->nactive];
  s->active[j->pos] = last;
  s->jobs[last].pos = j->pos;
  j->pos = EBB_POL_NONE;
  if (--s->groups[j->group].active_jobs == 0)
    s->active_groups--;
}

static void
push_fresh (ebb_dag_sched *s, uint32_t job, uint32_t task)
{
  if (s->nfresh + 2 > s->fresh_cap)
    {
      s->fresh_cap = s->fresh_cap ? s->fresh_cap * 2 : 256;
      s->fresh = ebb_xrealloc (s->fresh, s->fresh_cap * sizeof *s->fresh);
    }
  s->fresh[s->nfresh++] = job;
  s->fresh[s->nfresh++] = task;
}

static void
make_runnable (ebb_dag_sched *s, uint32_t job, uint32_t task)
{
  ebb_dag_job *j = &s->jobs[job];
  j->runnable[j->nrunnable++] = task;
  push_fresh (s, job, task);
  activate (s, job);
}

/* The chosen (job, index in its runnable list); job EBB_POL_NONE when nothing fits. */
typedef struct pick
{
  uint32_t job, idx;
} pick;

/* Graphene and Tetris: best perfScore = pScore x priScore - eta x srpt over the runnable
 * tasks that fit, of the jobs of group `only` (every active job when only is
 * EBB_POL_NONE). Updates eta from the averages it saw. */
static pick
pick_scored (ebb_pol *p, const double *free_, uint32_t only, int use_prio)
{
  ebb_dag_sched *s = sched_of (p);
  pick best = { EBB_POL_NONE, 0 };
  double best_score = -INFINITY, sum_pack = 0, sum_srpt = 0;
  uint32_t npack = 0, njobs = 0;
  for (uint32_t a = 0; a < s->nactive; a++)
    {
      uint32_t job = s->active[a];
      const ebb_dag_job *j = &s->jobs[job];
      int any = 0;
      if (only != EBB_POL_NONE && j->group != only)
        continue;
      /* ORDER: the job's earliest task in its preferred schedule among those that fit
       * (highest prio, whatever the reading: both fall with the rank). */
      double first = -INFINITY;
      for (uint32_t i = 0; use_prio && p->params.dag_prio == EBB_DAG_PRIO_ORDER && i < j->nrunnable;
           i++)
        {
          uint32_t t = j->runnable[i];
          if (j->prio[t] > first && fits (j->dem + (size_t)t * EBB_DAG_NRES, free_))
            first = j->prio[t];
        }
      for (uint32_t i = 0; i < j->nrunnable; i++)
        {
          uint32_t t = j->runnable[i];
          const double *dem = j->dem + (size_t)t * EBB_DAG_NRES;
          if (!fits (dem, free_) || j->prio[t] < first)
            continue;
          double pack = 0;
          for (int r = 0; r < EBB_DAG_NRES; r++)
            pack += dem[r] * free_[r];
          sum_pack += pack; /* eta follows the average pScore, priScore aside */
          if (use_prio)
            pack *= s->hooks->prio (j, t, p->params.dag_prio);
          double score = pack - s->eta * j->srpt;
          npack++;
          any = 1;
          if (score > best_score
              || (score == best_score
                  && (job < best.job || (job == best.job && t < s->jobs[job].runnable[best.idx]))))
            {
              best_score = score;
              best = (pick){ job, i };
            }
        }
      if (any)
        {
          sum_srpt += j->srpt;
          njobs++;
        }
    }
  /* eta weighs srpt so that both terms have the same average over what was considered
   * (the paper: "automatically updated based on the average srpt and pScore"). */
  if (npack && sum_srpt > 0 && sum_pack > 0)
    s->eta = (sum_pack / npack) / (sum_srpt / njobs);
  return best;
}

/* cp: the job furthest below its share (least dominant share held; the Capacity
 * Scheduler's choice), then its runnable task with the longest critical path. */
static pick
pick_cp (ebb_pol *p, const double *free_)
{
  ebb_dag_sched *s = sched_of (p);
  pick best = { EBB_POL_NONE, 0 };
  double best_alloc = INFINITY, best_cp = -INFINITY;
  for (uint32_t a = 0; a < s->nactive; a++)
    {
      uint32_t job = s->active[a];
      const ebb_dag_job *j = &s->jobs[job];
      if (j->alloc > best_alloc + EPS)
        continue;
      for (uint32_t i = 0; i < j->nrunnable; i++)
        {
          uint32_t t = j->runnable[i];
          if (!fits (j->dem + (size_t)t * EBB_DAG_NRES, free_))
            continue;
          /* Lexicographic: least held share, longest critical path, lowest ids. */
          int better = best.job == EBB_POL_NONE || j->alloc < best_alloc - EPS;
          if (!better && j->alloc <= best_alloc + EPS)
            better = j->prio[t] > best_cp
                     || (j->prio[t] == best_cp
                         && (job < best.job
                             || (job == best.job && t < s->jobs[job].runnable[best.idx])));
          if (better)
            {
              best = (pick){ job, i };
              best_alloc = j->alloc;
              best_cp = j->prio[t];
            }
        }
    }
  return best;
}

/* random: uniform over the runnable tasks that fit (reservoir sampling, seeded). */
static pick
pick_random (ebb_pol *p, const double *free_)
{
  ebb_dag_sched *s = sched_of (p);
  pick best = { EBB_POL_NONE, 0 };
  uint64_t seen = 0;
  for (uint32_t a = 0; a < s->nactive; a++)
    {
      uint32_t job = s->active[a];
      const ebb_dag_job *j = &s->jobs[job];
      for (uint32_t i = 0; i < j->nrunnable; i++)
        if (fits (j->dem + (size_t)j->runnable[i] * EBB_DAG_NRES, free_)
            && ebb_rng_below (&p->rng, ++seen) == 0)
          best = (pick){ job, i };
    }
  return best;
}

/* EBB_DAG_PICK_FAIR (graphene's choice): the best perfScore over all jobs; but once the most
 * deprived group's deficit passed kappa x C, the best among that group's tasks only, and none when
 * none of them fits here (*held: the node waits for it, which is what bounds the unfairness). */
static pick
pick_fair (ebb_pol *p, const double *free_, int *held)
{
  ebb_dag_sched *s = sched_of (p);
  uint32_t unfair = EBB_POL_NONE;
  double worst = -INFINITY;
  for (uint32_t k = 0; s->ngroups > 1 && k < s->ngroups; k++)
    if (s->groups[k].active_jobs > 0 && ebb_dag_deficit (s, &s->groups[k]) > worst)
      worst = ebb_dag_deficit (s, &s->groups[k]), unfair = k;
  if (unfair != EBB_POL_NONE && worst / p->params.nnodes > p->stats.dag_max_deficit)
    p->stats.dag_max_deficit = worst / p->params.nnodes;
  if (unfair != EBB_POL_NONE && worst > s->kappa_cap)
    {
      pick x = pick_scored (p, free_, unfair, s->hooks->prio != NULL);
      if (x.job != EBB_POL_NONE)
        p->stats.dag_unfair_picks++;
      else
        *held = 1;
      return x;
    }
  return pick_scored (p, free_, EBB_POL_NONE, s->hooks->prio != NULL);
}

static void
launch (ebb_pol *p, uint32_t node, pick x)
{
  ebb_dag_sched *s = sched_of (p);
  ebb_dag_job *j = &s->jobs[x.job];
  uint32_t t = j->runnable[x.idx];
  j->runnable[x.idx] = j->runnable[--j->nrunnable];
  j->launched++;
  if (j->rank)
    ebb_pol_fenwick_add (&j->unlaunched, j->rank[t], -1);
  const double *dem = j->dem + (size_t)t * EBB_DAG_NRES;
  double *fr = s->free + (size_t)node * EBB_DAG_NRES, sum = 0;
  for (int r = 0; r < EBB_DAG_NRES; r++)
    {
      fr[r] -= dem[r];
      sum += dem[r];
    }
  const ebb_pol_dag *d = p->jobs[x.job].dag;
  j->srpt -= d->dur_sec[t] * sum;
  if (j->srpt < 0)
    j->srpt = 0;
  double f = dominant (dem);
  j->alloc += f;
  /* Deficit counters (section 5, DRF's factor: the dominant share): the group given the
   * task moves by f x (share - 1), every other competing group by f x share. */
  s->credit += f / s->active_groups;
  s->groups[j->group].consumed += f;
  if (j->nrunnable == 0)
    deactivate (s, x.job);
  const int64_t *raw = d->demand + (size_t)t * EBB_DAG_NRES;
  ebb_pol_launch_task (
      p, node, x.job, t,
      (ebb_pol_res){ .cpu_millis = raw[EBB_DAG_CPU], .memory_bytes = raw[EBB_DAG_MEM] },
      p->params.net_delay_sec);
}

/* Returns the tasks launched on node; *held set when graphene's fairness left it waiting. */
static uint32_t
fill (ebb_pol *p, uint32_t node, int *held)
{
  ebb_dag_sched *s = sched_of (p);
  uint32_t launched = 0;
  const double *fr = s->free + (size_t)node * EBB_DAG_NRES;
  while (s->nactive > 0)
    {
      pick x;
      switch (s->hooks->pick)
        {
        case EBB_DAG_PICK_FAIR:
          x = pick_fair (p, fr, held);
          break;
        case EBB_DAG_PICK_SCORED:
          x = pick_scored (p, fr, EBB_POL_NONE, 0);
          break;
        case EBB_DAG_PICK_LEAST_SERVED:
          x = pick_cp (p, fr);
          break;
        default:
          x = pick_random (p, fr);
          break;
        }
      if (x.job == EBB_POL_NONE)
        return launched;
      launch (p, node, x);
      launched++;
    }
  return launched;
}

static void
pass (ebb_pol *p)
{
  ebb_dag_sched *s = sched_of (p);
  uint32_t n = p->params.nnodes;
  for (uint32_t node = 0; node < n && s->nfresh; node++)
    {
      const double *fr = s->free + (size_t)node * EBB_DAG_NRES;
      for (uint32_t k = 0; k < s->nfresh && !s->open[node]; k += 2)
        {
          const ebb_dag_job *j = &s->jobs[s->fresh[k]];
          s->open[node] = fits (j->dem + (size_t)s->fresh[k + 1] * EBB_DAG_NRES, fr);
        }
    }
  s->nfresh = 0;
  /* A node held for a deprived group stays open: it is filled again at the next event, and
   * in this pass again while other nodes' launches move the deficits. */
  uint32_t progress;
  int any_held;
  do
    {
      progress = 0;
      any_held = 0;
      for (uint32_t node = 0; node < n; node++)
        if (s->open[node])
          {
            int held = 0;
            progress += fill (p, node, &held);
            s->open[node] = (uint8_t)held;
            any_held |= held;
            p->stats.dag_fair_holds += (uint64_t)held;
          }
    }
  while (progress && any_held);
}

/* Builds the state of job (graph, shares, priorities) with no task runnable yet. */
static ebb_dag_job *
job_setup (ebb_pol *p, uint32_t job)
{
  ebb_dag_sched *s = sched_of (p);
  const ebb_pol_dag *d = p->jobs[job].dag;
  if (!d || d->ntasks != p->jobs[job].ntasks)
    abort (); /* the environment gives every job its DAG */
  if (job >= s->jobs_cap)
    {
      uint32_t cap = s->jobs_cap ? s->jobs_cap : 1024;
      while (cap <= job)
        cap *= 2;
      s->jobs = ebb_xrealloc (s->jobs, cap * sizeof *s->jobs);
      memset (s->jobs + s->jobs_cap, 0, (cap - s->jobs_cap) * sizeof *s->jobs);
      s->active = ebb_xrealloc (s->active, cap * sizeof *s->active);
      s->jobs_cap = cap;
    }
  ebb_dag_job *j = &s->jobs[job];
  if (j->live)
    job_release (j);
  memset (j, 0, sizeof *j);
  j->pos = EBB_POL_NONE;
  j->group = job % s->ngroups;
  uint32_t n = d->ntasks, bad;
  if (ebb_dag_graph_build (&j->g, n, d->edges, d->nedges, &bad) < 0)
    abort (); /* the trace reader refuses cycles */
  j->live = 1;
  s->live_jobs++;
  j->left = n;
  j->waiting = ebb_xmalloc ((n ? n : 1) * sizeof *j->waiting);
  j->runnable = ebb_xmalloc ((n ? n : 1) * sizeof *j->runnable);
  j->prio = ebb_xcalloc (n ? n : 1, sizeof *j->prio);
  j->dem = ebb_xmalloc ((size_t)(n ? n : 1) * EBB_DAG_NRES * sizeof *j->dem);
  for (uint32_t t = 0; t < n; t++)
    {
      double sum = 0;
      for (int r = 0; r < EBB_DAG_NRES; r++)
        {
          double v
              = s->cap[r] > 0 ? (double)d->demand[(size_t)t * EBB_DAG_NRES + r] / s->cap[r] : 0;
          j->dem[(size_t)t * EBB_DAG_NRES + r] = v;
          sum += v;
        }
      j->srpt += d->dur_sec[t] * sum;
      j->waiting[t] = j->g.par_off[t + 1] - j->g.par_off[t];
    }
  if (s->hooks->prepare)
    s->hooks->prepare (p, job, j);
  return j;
}

void
ebb_dag_sched_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  (void)now_sec;
  ebb_dag_sched *s = sched_of (p);
  ebb_dag_job *j = job_setup (p, job);
  for (uint32_t t = 0; t < j->g.n; t++)
    if (j->waiting[t] == 0)
      make_runnable (s, job, t);
  pass (p);
}

void
ebb_dag_sched_job_adopted (ebb_pol *p, double now_sec, uint32_t job)
{
  (void)now_sec;
  ebb_dag_sched *s = sched_of (p);
  ebb_dag_job *j = job_setup (p, job);
  const ebb_pol_dag *d = p->jobs[job].dag;
  for (uint32_t t = 0; t < j->g.n; t++)
    {
      const ebb_pol_task *pt = &p->jobs[job].tasks[t];
      if (pt->state != EBB_POL_TASK_RUNNING)
        continue;
      /* It runs where the environment says: it holds its share of that node, as launch()
       * counts it, and never becomes runnable again (its parents' ends cannot release it). */
      j->waiting[t] = UINT32_MAX;
      j->launched++;
      if (j->rank)
        ebb_pol_fenwick_add (&j->unlaunched, j->rank[t], -1);
      const double *dem = j->dem + (size_t)t * EBB_DAG_NRES;
      double *fr = s->free + (size_t)pt->node * EBB_DAG_NRES, sum = 0;
      for (int r = 0; r < EBB_DAG_NRES; r++)
        {
          fr[r] -= dem[r];
          sum += dem[r];
        }
      j->srpt -= d->dur_sec[t] * sum;
      if (j->srpt < 0)
        j->srpt = 0;
      j->alloc += dominant (dem);
    }
  for (uint32_t t = 0; t < j->g.n; t++)
    if (j->waiting[t] == 0)
      make_runnable (s, job, t);
  pass (p);
}

void
ebb_dag_sched_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  (void)now_sec;
  ebb_dag_sched *s = sched_of (p);
  ebb_dag_job *j = &s->jobs[job];
  const double *dem = j->dem + (size_t)task * EBB_DAG_NRES;
  double *fr = s->free + (size_t)node * EBB_DAG_NRES;
  for (int r = 0; r < EBB_DAG_NRES; r++)
    fr[r] += dem[r];
  j->alloc -= dominant (dem);
  s->open[node] = 1;
  for (uint32_t k = j->g.chi_off[task]; k < j->g.chi_off[task + 1]; k++)
    if (--j->waiting[j->g.chi[k]] == 0)
      make_runnable (s, job, j->g.chi[k]);
  if (--j->left == 0)
    {
      job_release (j);
      s->live_jobs--;
    }
  pass (p);
}
