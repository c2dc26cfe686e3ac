/* The preemption core of the ebb policy (policies/ebb.h): per-node decisions of whom to
 * preempt, by how much, and when a preempted task gets its room back. The policy that drives
 * it is policies/ebb.c. */
#include "config.h"

#include "policies/ebb.h"
#include "policies/iheap.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

#define GIB 1073741824.0

void
ebb_pre_params_default (ebb_pre_params *p)
{
  memset (p, 0, sizeof *p);
  p->max_suspends = 2;
  p->suspend_window_sec = 600;
  p->resume_tries = 3;
  p->round_sec = 3;
  p->reclaim_sec_per_gib = 3;
  p->resume_sec_per_gib = 3;
  p->footprint = (ebb_pol_res){ .cpu_millis = 10, .memory_bytes = 64ll << 20 };
}

const char *
ebb_pre_params_check (const ebb_pre_params *p)
{
  if (p->max_suspends < 1 || p->max_suspends > EBB_PRE_MAX_SUSPENDS)
    return "max suspends out of range [1, 8]";
  if (!(p->suspend_window_sec > 0) || !isfinite (p->suspend_window_sec))
    return "suspend window must be > 0";
  if (!(p->round_sec > 0) || !isfinite (p->round_sec))
    return "round must be > 0";
  if (!(p->reclaim_sec_per_gib >= 0) || !isfinite (p->reclaim_sec_per_gib)
      || !(p->resume_sec_per_gib >= 0) || !isfinite (p->resume_sec_per_gib))
    return "reclaim and resume costs must be >= 0";
  if (p->footprint.cpu_millis < 0 || p->footprint.memory_bytes < 0)
    return "footprint must be >= 0";
  return NULL;
}

static inline int64_t
min64 (int64_t a, int64_t b)
{
  return a < b ? a : b;
}

static inline int64_t
pos64 (int64_t a)
{
  return a > 0 ? a : 0;
}

int
ebb_pre_fits (const ebb_pre_node *n, ebb_pol_res v)
{
  return n->used.cpu_millis + v.cpu_millis <= n->cap.cpu_millis
         && n->used.memory_bytes + v.memory_bytes <= n->cap.memory_bytes;
}

int
ebb_pre_is_preempted (const ebb_pre_task *t)
{
  return t->given.cpu_millis < t->demand.cpu_millis
         || t->given.memory_bytes < t->demand.memory_bytes;
}

int
ebb_pre_may_suspend (const ebb_pre_task *t, const ebb_pre_params *p, double now_sec)
{
  if (t->nhist < p->max_suspends)
    return 1;
  /* The ring is full: the oldest of the last M suspensions must have left the window. */
  return t->hist[t->hhead] <= now_sec - p->suspend_window_sec;
}

/* The longest a preemption lasts before the task is given back its room regardless of
 * waiting short work (see ebb.h for the bound it gives). */
static double
max_preempted_sec (const ebb_pre_params *p)
{
  return p->suspend_window_sec / (4.0 * p->max_suspends);
}

/* Returns 1 when t may give (more) now: a new preemption within the bound, or more of its
 * room during a preemption under way that is not overdue. The bound counts preemptions (from
 * the first take until the task has its whole demand back), not takes: a task a first short
 * task took part of may give the rest to a second within the same preemption, whose length
 * W / 4M bounds it all the same. */
static int
may_give (const ebb_pre_task *t, const ebb_pre_params *p, double now_sec)
{
  if (ebb_pre_is_preempted (t))
    return now_sec - t->preempted_sec < max_preempted_sec (p);
  return ebb_pre_may_suspend (t, p, now_sec);
}

/* What the task in slot can give: its holding above the footprint. */
static ebb_pol_res
takeable (const ebb_pre_task *t, const ebb_pre_params *p)
{
  return (ebb_pol_res){ pos64 (t->given.cpu_millis - p->footprint.cpu_millis),
                        pos64 (t->given.memory_bytes - p->footprint.memory_bytes) };
}

static int
taken (const ebb_pre_take *out, uint32_t nt, uint32_t slot)
{
  for (uint32_t i = 0; i < nt; i++)
    if (out[i].slot == slot)
      return 1;
  return 0;
}

/* Victim order: latest estimated end first, then lower slot. */
static int
victim_before (const ebb_pre_node *n, uint32_t a, uint32_t b)
{
  double ea = n->tasks[a].est_end_sec, eb = n->tasks[b].est_end_sec;
  return ea > eb || (ea == eb && a < b);
}

int
ebb_pre_plan (const ebb_pre_node *n, const ebb_pre_params *p, ebb_pol_res need, double now_sec,
              ebb_pre_take *out, uint32_t max, double *delay_sec)
{
  *delay_sec = 0;
  ebb_pol_res lack = { pos64 (n->used.cpu_millis + need.cpu_millis - n->cap.cpu_millis),
                       pos64 (n->used.memory_bytes + need.memory_bytes - n->cap.memory_bytes) };
  if (lack.cpu_millis == 0 && lack.memory_bytes == 0)
    return 0;
  if (need.cpu_millis > n->cap.cpu_millis || need.memory_bytes > n->cap.memory_bytes)
    return -1;
  /* Selection by repeated scan: a node runs a handful of tasks, so a scan beats sorting and
   * needs no scratch memory. */
  uint32_t nt = 0;
  while ((lack.cpu_millis > 0 || lack.memory_bytes > 0) && nt < max)
    {
      uint32_t best = UINT32_MAX;
      for (uint32_t s = 0; s < n->ntasks; s++)
        {
          const ebb_pre_task *t = &n->tasks[s];
          if (!t->is_long || t->inflight || taken (out, nt, s) || !may_give (t, p, now_sec))
            continue;
          ebb_pol_res tk = takeable (t, p);
          if ((tk.cpu_millis == 0 || lack.cpu_millis == 0)
              && (tk.memory_bytes == 0 || lack.memory_bytes == 0))
            continue; /* nothing it holds is lacking */
          if (best == UINT32_MAX || victim_before (n, s, best))
            best = s;
        }
      if (best == UINT32_MAX)
        return -1;
      ebb_pol_res tk = takeable (&n->tasks[best], p);
      ebb_pol_res amount
          = { min64 (tk.cpu_millis, lack.cpu_millis), min64 (tk.memory_bytes, lack.memory_bytes) };
      double d = amount.memory_bytes / GIB * p->reclaim_sec_per_gib;
      out[nt++] = (ebb_pre_take){ .slot = best, .amount = amount, .delay_sec = d };
      *delay_sec += d;
      lack.cpu_millis -= amount.cpu_millis;
      lack.memory_bytes -= amount.memory_bytes;
    }
  return lack.cpu_millis > 0 || lack.memory_bytes > 0 ? -1 : (int)nt;
}

static void
record_suspension (ebb_pre_task *t, double now_sec, uint32_t max_suspends)
{
  if (t->nhist < max_suspends)
    t->hist[(t->hhead + t->nhist++) % max_suspends] = now_sec;
  else
    {
      t->hist[t->hhead] = now_sec;
      t->hhead = (t->hhead + 1) % max_suspends;
    }
}

void
ebb_pre_apply (ebb_pre_node *n, const ebb_pre_params *p, const ebb_pre_take *takes, uint32_t ntakes,
               double now_sec)
{
  for (uint32_t i = 0; i < ntakes; i++)
    {
      ebb_pre_task *t = &n->tasks[takes[i].slot];
      if (!ebb_pre_is_preempted (t))
        {
          t->preempted_sec = now_sec;
          n->npreempted++;
          record_suspension (t, now_sec, p->max_suspends);
        }
      t->given.cpu_millis -= takes[i].amount.cpu_millis;
      t->given.memory_bytes -= takes[i].amount.memory_bytes;
      n->used.cpu_millis -= takes[i].amount.cpu_millis;
      n->used.memory_bytes -= takes[i].amount.memory_bytes;
      t->has_room = 0;
      t->room_sec = 0;
    }
}

uint32_t
ebb_pre_chance (ebb_pre_node *n, const ebb_pre_params *p, double now_sec, int short_pending,
                int spare, ebb_pre_take *out, uint32_t max)
{
  /* Candidates in out, longest preempted first, so the bound on a preemption's length holds
   * for each task when room is short. */
  uint32_t nc = 0;
  if (n->npreempted == 0)
    return 0;
  for (uint32_t s = 0; s < n->ntasks && nc < max; s++)
    {
      if (!ebb_pre_is_preempted (&n->tasks[s]) || n->tasks[s].inflight)
        continue;
      uint32_t i = nc++;
      while (i > 0 && n->tasks[out[i - 1].slot].preempted_sec > n->tasks[s].preempted_sec)
        out[i] = out[i - 1], i--;
      out[i].slot = s;
    }
  uint32_t k = 0;
  for (uint32_t i = 0; i < nc; i++)
    {
      uint32_t slot = out[i].slot;
      ebb_pre_task *t = &n->tasks[slot];
      ebb_pol_res back = { t->demand.cpu_millis - t->given.cpu_millis,
                           t->demand.memory_bytes - t->given.memory_bytes };
      int overdue = now_sec - t->preempted_sec >= max_preempted_sec (p);
      int fits = ebb_pre_fits (n, back);
      /* D: the room seen at the last chance lasted until this one (see ebb.h). */
      if (t->has_room)
        t->room_sec += now_sec - t->last_chance_sec;
      t->has_room = fits && !short_pending;
      t->last_chance_sec = now_sec;
      if (!fits || (short_pending && !overdue))
        continue;
      if (!spare && !overdue && t->room_sec < p->resume_tries * p->round_sec)
        continue; /* D: room, but not for D rounds yet */
      out[k++] = (ebb_pre_take){ .slot = slot,
                                 .amount = back,
                                 .delay_sec = back.memory_bytes / GIB * p->resume_sec_per_gib };
      t->est_end_sec += now_sec - t->preempted_sec;
      t->given = t->demand;
      n->used.cpu_millis += back.cpu_millis;
      n->used.memory_bytes += back.memory_bytes;
      t->has_room = 0;
      t->room_sec = 0;
      n->npreempted--;
    }
  return k;
}

void
ebb_pre_node_reserve (ebb_pre_node *n, uint32_t cap)
{
  if (cap <= n->tasks_cap)
    return;
  n->tasks_cap = cap;
  n->tasks = ebb_xrealloc (n->tasks, n->tasks_cap * sizeof *n->tasks);
}

uint32_t
ebb_pre_add (ebb_pre_node *n, const ebb_pre_task *t)
{
  if (n->ntasks == n->tasks_cap)
    ebb_pre_node_reserve (n, n->tasks_cap ? n->tasks_cap * 2 : EBB_PRE_NODE_TASKS0);
  ebb_pre_task *x = &n->tasks[n->ntasks];
  *x = *t;
  x->given = x->demand;
  x->has_room = 0;
  x->room_sec = 0;
  n->used.cpu_millis += x->demand.cpu_millis;
  n->used.memory_bytes += x->demand.memory_bytes;
  return n->ntasks++;
}

void
ebb_pre_remove (ebb_pre_node *n, uint32_t slot)
{
  ebb_pre_task *t = &n->tasks[slot];
  if (ebb_pre_is_preempted (t))
    n->npreempted--;
  n->used.cpu_millis -= t->given.cpu_millis;
  n->used.memory_bytes -= t->given.memory_bytes;
  n->tasks[slot] = n->tasks[--n->ntasks];
}

uint32_t
ebb_pre_find (const ebb_pre_node *n, uint32_t job, uint32_t task)
{
  for (uint32_t s = 0; s < n->ntasks; s++)
    if (n->tasks[s].job == job && n->tasks[s].task == task)
      return s;
  return UINT32_MAX;
}

void
ebb_pre_node_fini (ebb_pre_node *n)
{
  free (n->tasks);
  memset (n, 0, sizeof *n);
}
