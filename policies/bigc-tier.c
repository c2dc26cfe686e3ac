/* Priority tiers in bigc (issue 23): the preemption across tiers of a round. A queued task
 * of tier T that finds no room, and none on its way, takes whole containers of lower tiers'
 * long jobs on one node (the lowest tier first, then the largest), as the ebb policy does:
 * a lower tier's share does not protect it, and a higher tier is never a victim. Within a
 * tier, BIG-C's Algorithms 1 and 2 stay (policies/bigc.c, run per tier after this).
 *
 * Short tasks of a lower tier are not victims: BIG-C preempts only the long queue, and a
 * short task gives its room back within seconds; the lower tier starts nothing new while a
 * higher one waits (bigc.c's schedule stops at the first tier with a task that did not
 * fit). A victim is suspended at once to its footprint (ip and gp: a graceful step would
 * hold a higher tier for several rounds), or killed and queued again in kill mode. */
#include "config.h"

#include "policies/bigc.h"
#include "lib/util.h"

#include <stdlib.h>

typedef struct tier_victim
{
  uint32_t node, job, task;
  int32_t tier;
  ebb_pol_res room; /* what it can still give */
} tier_victim;

ebb_pol_res
ebb_pol_bigc_take_whole (ebb_pol *p, uint32_t job, uint32_t task)
{
  ebb_pol_task *k = &p->jobs[job].tasks[task];
  if (p->params.bigc_mode == EBB_POL_BIGC_KILL)
    {
      ebb_pol_res got = k->alloc;
      ebb_pol_kill (p, job, task);
      /* Until the kill lands: counted as reclaiming, not a victim twice. */
      k->pending = k->alloc;
      k->state = EBB_POL_TASK_SUSPENDING;
      return got;
    }
  return ebb_pol_suspend (p, job, task, EBB_POL_SUSPEND_IMMEDIATE, k->alloc);
}

/* Node first, then the lowest tier, then the largest room (CPU, then memory). */
static int
cmp_victim (const void *x, const void *y)
{
  const tier_victim *a = x, *b = y;
  if (a->node != b->node)
    return a->node < b->node ? -1 : 1;
  if (a->tier != b->tier)
    return a->tier < b->tier ? -1 : 1;
  if (a->room.cpu_millis != b->room.cpu_millis)
    return a->room.cpu_millis > b->room.cpu_millis ? -1 : 1;
  if (a->room.memory_bytes != b->room.memory_bytes)
    return a->room.memory_bytes > b->room.memory_bytes ? -1 : 1;
  return a->job != b->job ? (a->job < b->job ? -1 : 1) : (a->task > b->task) - (a->task < b->task);
}

typedef struct tier_books
{
  ebb_pol_res *avail; /* per node: free room plus reclaims under way, less what is promised */
  tier_victim *v;     /* sorted by cmp_victim */
  uint32_t *start;    /* per node: its first victim in v; start[nnodes]: their number */
} tier_books;

static void
books_fini (tier_books *k)
{
  free (k->avail);
  free (k->v);
  free (k->start);
}

/* Room on its way and the possible victims, from the long jobs' placed containers. */
static void
books_init (ebb_pol *p, const uint32_t *running, uint32_t nrunning, tier_books *k)
{
  uint32_t nn = p->params.nnodes, nv = 0, cap = 0;
  ebb_pol_res fp = ebb_pol_booked_footprint (p);
  k->avail = ebb_xcalloc (nn, sizeof *k->avail);
  k->start = ebb_xcalloc ((size_t)nn + 1, sizeof *k->start);
  k->v = NULL;
  for (uint32_t n = 0; n < nn; n++)
    k->avail[n]
        = (ebb_pol_res){ p->node_free[n].cpu_millis > 0 ? p->node_free[n].cpu_millis : 0,
                         p->node_free[n].memory_bytes > 0 ? p->node_free[n].memory_bytes : 0 };
  for (uint32_t i = 0; i < nrunning; i++)
    {
      const ebb_pol_job *j = &p->jobs[running[i]];
      for (uint32_t t = 0; t < j->ntasks; t++)
        {
          const ebb_pol_task *x = &j->tasks[t];
          if (x->node == EBB_POL_NONE || x->state == EBB_POL_TASK_DONE
              || x->state == EBB_POL_TASK_FAILED)
            continue;
          ebb_pol_res_add (&k->avail[x->node], x->pending);
          ebb_pol_res room = x->alloc;
          ebb_pol_res_sub (&room, x->pending);
          ebb_pol_res_sub (&room, fp);
          if (j->failed || x->state != EBB_POL_TASK_RUNNING
              || (room.cpu_millis <= 0 && room.memory_bytes <= 0))
            continue;
          if (nv == cap)
            {
              cap = (uint32_t)ebb_grow_cap (cap, 64, (size_t)nv + 1);
              k->v = ebb_xrealloc (k->v, sizeof *k->v * cap);
            }
          k->v[nv++]
              = (tier_victim){ x->node, running[i], t, ebb_pol_job_priority (p, running[i]), room };
        }
    }
  if (nv)
    qsort (k->v, nv, sizeof *k->v, cmp_victim);
  for (uint32_t i = 0; i < nv; i++)
    k->start[k->v[i].node + 1]++;
  for (uint32_t n = 0; n < nn; n++)
    k->start[n + 1] += k->start[n];
}

/* What the victims of tiers below `tier` on node can still give. */
static ebb_pol_res
lower_room (const tier_books *k, uint32_t node, int32_t tier)
{
  ebb_pol_res r = { 0, 0 };
  for (uint32_t i = k->start[node]; i < k->start[node + 1] && k->v[i].tier < tier; i++)
    ebb_pol_res_add (&r, k->v[i].room);
  return r;
}

/* Room for one task of `demand` and tier: promised from what is free or on its way, else
 * taken from lower tiers on the first node where that makes it fit. 0: nowhere. */
static int
room_for (ebb_pol *p, tier_books *k, ebb_pol_res demand, int32_t tier)
{
  uint32_t nn = p->params.nnodes, at = EBB_POL_NONE;
  for (uint32_t n = 0; n < nn && at == EBB_POL_NONE; n++)
    if (ebb_pol_res_fits (demand, k->avail[n]))
      at = n;
  for (uint32_t n = 0; n < nn && at == EBB_POL_NONE; n++)
    {
      ebb_pol_res could = k->avail[n];
      ebb_pol_res_add (&could, lower_room (k, n, tier));
      if (ebb_pol_res_fits (demand, could) && ebb_pol_res_fits (demand, p->node_cap[n]))
        at = n;
    }
  if (at == EBB_POL_NONE)
    return 0;
  for (uint32_t i = k->start[at];
       i < k->start[at + 1] && k->v[i].tier < tier && !ebb_pol_res_fits (demand, k->avail[at]); i++)
    {
      tier_victim *v = &k->v[i];
      if (v->room.cpu_millis <= 0 && v->room.memory_bytes <= 0)
        continue; /* taken already */
      ebb_pol_res_add (&k->avail[at], ebb_pol_bigc_take_whole (p, v->job, v->task));
      v->room = (ebb_pol_res){ 0, 0 };
    }
  ebb_pol_res_sub (&k->avail[at], demand);
  return 1;
}

typedef struct queued
{
  int32_t tier;
  uint32_t job;
} queued;

/* The highest tier first; arrival order (job id) within a tier. */
static int
cmp_queued (const void *x, const void *y)
{
  const queued *a = x, *b = y;
  if (a->tier != b->tier)
    return a->tier > b->tier ? -1 : 1;
  return a->job < b->job ? -1 : a->job > b->job;
}

void
ebb_pol_bigc_tier_preempt (ebb_pol *p, const uint32_t *running, uint32_t nrunning,
                           const uint32_t *queue, uint32_t nqueue)
{
  cleanup_free queued *order = ebb_xmalloc (sizeof *order * ((size_t)nqueue + 1));
  uint32_t nw = 0;
  for (uint32_t i = 0; i < nqueue; i++)
    {
      const ebb_pol_job *j = &p->jobs[queue[i]];
      if (!j->failed && j->launched < j->ntasks)
        order[nw++] = (queued){ ebb_pol_job_priority (p, queue[i]), queue[i] };
    }
  if (nw == 0)
    return;
  qsort (order, nw, sizeof *order, cmp_queued);
  tier_books k;
  books_init (p, running, nrunning, &k);
  for (uint32_t i = 0; i < nw; i++)
    {
      const ebb_pol_job *j = &p->jobs[order[i].job];
      for (uint32_t t = j->launched; t < j->ntasks; t++)
        if (!room_for (p, &k, j->demand, order[i].tier))
          break;
    }
  books_fini (&k);
}
