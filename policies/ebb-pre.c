/* The preemption core of the ebb policy (policies/ebb.h): per-node decisions of whom to
 * preempt, by how much, and when a preempted task gets its room back. The policy that drives
 * it is policies/ebb.c. */
#include "config.h"

#include "policies/ebb.h"
#include "policies/iheap.h"
#include "lib/util.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

void
ebb_pre_params_default (ebb_pre_params *p)
{
  memset (p, 0, sizeof *p);
  p->long_share = 0.5;
  p->share_window_sec = 600;
  p->resume_tries = 3;
  p->round_sec = 3;
  p->reclaim_sec_per_gib = 3;
  p->resume_sec_per_gib = 3;
  p->footprint = (ebb_pol_res){ .cpu_millis = 10, .memory_bytes = 64ll << 20 };
}

const char *
ebb_pre_params_check (const ebb_pre_params *p)
{
  if (!(p->long_share >= 0 && p->long_share <= 1))
    return "long share out of range [0, 1]";
  if (!(p->share_window_sec > 0) || !isfinite (p->share_window_sec))
    return "share window must be > 0";
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
  return !t->held
         && (t->given.cpu_millis < t->demand.cpu_millis
             || t->given.memory_bytes < t->demand.memory_bytes);
}

/* The share's accounting: the window W in EBB_PRE_BUCKETS - 1 parts of W / (B - 1) seconds,
 * plus the part under way, each holding the demand-seconds (as a share of the demand) the
 * task lost in it. Any W seconds ending now lie in the B latest parts, so their sum bounds
 * what the task lost in any window ending now (over by at most one part's worth). */
static double
bucket_sec (const ebb_pre_params *p)
{
  return p->share_window_sec / (EBB_PRE_BUCKETS - 1);
}

double
ebb_pre_taken_frac (const ebb_pre_task *t)
{
  double f = 0;
  if (t->demand.cpu_millis > 0)
    f = (double)(t->demand.cpu_millis - t->given.cpu_millis) / t->demand.cpu_millis;
  if (t->demand.memory_bytes > 0)
    {
      double m = (double)(t->demand.memory_bytes - t->given.memory_bytes) / t->demand.memory_bytes;
      f = m > f ? m : f;
    }
  return f > 0 ? f : 0;
}

/* The fields of t from last_chance_sec on, zero until their first use (ebb.h). */
static inline void
acct_ready (ebb_pre_task *t)
{
  if (t->acct_ready)
    return;
  memset ((char *)t + offsetof (ebb_pre_task, last_chance_sec), 0,
          sizeof *t - offsetof (ebb_pre_task, last_chance_sec));
  t->acct_ready = 1;
}

/* Makes part i the one under way, emptying the parts that left the window. */
static void
roll_to (ebb_pre_task *t, int64_t i)
{
  if (i <= t->bucket)
    return;
  int64_t from = i - t->bucket > EBB_PRE_BUCKETS ? i - EBB_PRE_BUCKETS : t->bucket;
  for (int64_t k = from + 1; k <= i; k++)
    t->lost[k % EBB_PRE_BUCKETS] = 0;
  t->bucket = i;
}

void
ebb_pre_account (ebb_pre_task *t, const ebb_pre_params *p, double now_sec)
{
  acct_ready (t);
  double bs = bucket_sec (p), f = ebb_pre_taken_frac (t), from = t->acct_sec;
  if (now_sec <= from)
    return;
  /* Older than the B parts: outside every window from now on. */
  if (now_sec - from > EBB_PRE_BUCKETS * bs)
    from = now_sec - EBB_PRE_BUCKETS * bs;
  while (f > 0 && from < now_sec)
    {
      int64_t i = (int64_t)floor (from / bs);
      double end = (double)(i + 1) * bs;
      end = end < now_sec ? end : now_sec;
      roll_to (t, i);
      t->lost[i % EBB_PRE_BUCKETS] += f * (end - from);
      from = end > from ? end : now_sec; /* float: never stall */
    }
  roll_to (t, (int64_t)floor (now_sec / bs));
  t->acct_sec = now_sec;
}

double
ebb_pre_lost_sec (const ebb_pre_task *t, const ebb_pre_params *p, double now_sec)
{
  ebb_pre_task c = *t;
  ebb_pre_account (&c, p, now_sec);
  double sum = 0;
  for (int i = 0; i < EBB_PRE_BUCKETS; i++)
    sum += c.lost[i];
  return sum;
}

/* What a task may lose in any window: (1 - S) W demand-seconds. */
static double
budget_sec (const ebb_pre_params *p)
{
  return (1 - p->long_share) * p->share_window_sec;
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

/* Victim order: the lowest tier first; then the one that lost least in its window first
 * (preemptions spread over the long tasks, so they progress evenly), then the latest estimated end
 * (most slack), then the lower slot. */
static int
victim_before (const ebb_pre_node *n, double lost_a, double lost_b, uint32_t a, uint32_t b)
{
  if (n->tasks[a].tier != n->tasks[b].tier)
    return n->tasks[a].tier < n->tasks[b].tier;
  if (lost_a != lost_b)
    return lost_a < lost_b;
  double ea = n->tasks[a].est_end_sec, eb = n->tasks[b].est_end_sec;
  return ea > eb || (ea == eb && a < b);
}

/* The share of its demand t would be without after taking `amount` from it. */
static double
frac_after (const ebb_pre_task *t, ebb_pol_res amount)
{
  ebb_pre_task c = *t;
  c.given.cpu_millis -= amount.cpu_millis;
  c.given.memory_bytes -= amount.memory_bytes;
  return ebb_pre_taken_frac (&c);
}

/* Whether the asker may take from t at all, and whether t's share protects it. */
static int
may_take (const ebb_pre_task *t, const ebb_pre_asker *a, int *shared)
{
  *shared = t->tier == a->tier;
  if (t->tier != a->tier)
    return t->tier < a->tier;
  return t->is_long && !a->is_long;
}

int
ebb_pre_plan (const ebb_pre_node *n, const ebb_pre_params *p, ebb_pol_res need, double hold_sec,
              double now_sec, ebb_pre_take *out, uint32_t max, double *delay_sec)
{
  const ebb_pre_asker a = { .tier = 0, .is_long = 0 };
  return ebb_pre_plan_for (n, p, &a, need, hold_sec, now_sec, out, max, delay_sec);
}

int
ebb_pre_plan_for (const ebb_pre_node *n, const ebb_pre_params *p, const ebb_pre_asker *a,
                  ebb_pol_res need, double hold_sec, double now_sec, ebb_pre_take *out,
                  uint32_t max, double *delay_sec)
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
      double best_lost = 0;
      ebb_pol_res best_amount = { 0, 0 };
      for (uint32_t s = 0; s < n->ntasks; s++)
        {
          const ebb_pre_task *t = &n->tasks[s];
          int shared;
          if (!may_take (t, a, &shared) || t->inflight || t->held || taken (out, nt, s))
            continue;
          ebb_pol_res tk = takeable (t, p);
          if ((tk.cpu_millis == 0 || lack.cpu_millis == 0)
              && (tk.memory_bytes == 0 || lack.memory_bytes == 0))
            continue; /* nothing it holds is lacking */
          ebb_pol_res amount = { min64 (tk.cpu_millis, lack.cpu_millis),
                                 min64 (tk.memory_bytes, lack.memory_bytes) };
          double lost = ebb_pre_lost_sec (t, p, now_sec);
          if (shared && lost + frac_after (t, amount) * hold_sec > budget_sec (p) + 1e-9)
            continue; /* the share protects it */
          if (best == UINT32_MAX || victim_before (n, lost, best_lost, s, best))
            best = s, best_lost = lost, best_amount = amount;
        }
      if (best == UINT32_MAX)
        return -1;
      double d = best_amount.memory_bytes / GIB * p->reclaim_sec_per_gib;
      out[nt++] = (ebb_pre_take){ .slot = best, .amount = best_amount, .delay_sec = d };
      *delay_sec += d;
      lack.cpu_millis -= best_amount.cpu_millis;
      lack.memory_bytes -= best_amount.memory_bytes;
    }
  return lack.cpu_millis > 0 || lack.memory_bytes > 0 ? -1 : (int)nt;
}

void
ebb_pre_apply (ebb_pre_node *n, const ebb_pre_params *p, const ebb_pre_take *takes, uint32_t ntakes,
               double now_sec)
{
  for (uint32_t i = 0; i < ntakes; i++)
    {
      ebb_pre_task *t = &n->tasks[takes[i].slot];
      ebb_pre_account (t, p, now_sec);
      if (!ebb_pre_is_preempted (t))
        {
          t->preempted_sec = now_sec;
          n->npreempted++;
        }
      t->given.cpu_millis -= takes[i].amount.cpu_millis;
      t->given.memory_bytes -= takes[i].amount.memory_bytes;
      n->used.cpu_millis -= takes[i].amount.cpu_millis;
      n->used.memory_bytes -= takes[i].amount.memory_bytes;
      t->has_room = 0;
      acct_ready (t);
      t->room_sec = 0;
    }
}

uint32_t
ebb_pre_chance (ebb_pre_node *n, const ebb_pre_params *p, double now_sec, int short_pending,
                int spare, ebb_pre_take *out, uint32_t max)
{
  /* Candidates in out, longest preempted first, so that when room is short the task that
   * has waited longest gets it. */
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
      acct_ready (t);
      ebb_pol_res back = { t->demand.cpu_millis - t->given.cpu_millis,
                           t->demand.memory_bytes - t->given.memory_bytes };
      /* Overdue: it has lost its whole budget (a short task outran its estimate). */
      int overdue = ebb_pre_lost_sec (t, p, now_sec) >= budget_sec (p) - 1e-9;
      int fits = ebb_pre_fits (n, back);
      /* D: the room seen at the last chance lasted until this one (see ebb.h). */
      if (t->has_room)
        t->room_sec += now_sec - t->last_chance_sec;
      t->has_room = fits && !short_pending;
      t->last_chance_sec = now_sec;
      if (!fits || (short_pending && !overdue))
        continue;
      /* D only where memory was taken: paging it back costs seconds a GiB, while CPU
       * given back is one cpu.max write, so a CPU-only preemption ends with its short work. */
      if (back.memory_bytes > 0 && !spare && !overdue
          && t->room_sec < p->resume_tries * p->round_sec)
        continue; /* D: room, but not for D rounds yet */
      ebb_pre_account (t, p, now_sec);
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

/* n's tasks move to room (their copy made): the old room is freed unless it was lent. */
static void
set_room (ebb_pre_node *n, ebb_pre_task *room, uint32_t cap, uint8_t lent)
{
  if (!n->tasks_lent)
    free (n->tasks);
  n->tasks = room;
  n->tasks_cap = cap;
  n->tasks_lent = lent;
}

void
ebb_pre_node_reserve (ebb_pre_node *n, uint32_t cap)
{
  if (cap <= n->tasks_cap)
    return;
  /* Aligned (ebb_pre_task): realloc would not keep that. */
  void *v = NULL;
  if (posix_memalign (&v, _Alignof(ebb_pre_task), cap * sizeof *n->tasks) != 0)
    {
      fprintf (stderr, "<2>ebb: out of memory allocating %zu bytes\n", cap * sizeof *n->tasks);
      abort ();
    }
  if (n->ntasks > 0)
    memcpy (v, n->tasks, n->ntasks * sizeof *n->tasks);
  set_room (n, v, cap, 0);
}

void
ebb_pre_node_lend (ebb_pre_node *n, ebb_pre_task *room, uint32_t cap)
{
  set_room (n, room, cap, 1);
}

uint32_t
ebb_pre_add (ebb_pre_node *n, const ebb_pre_task *t)
{
  if (n->ntasks == n->tasks_cap)
    ebb_pre_node_reserve (n, n->tasks_cap ? n->tasks_cap * 2 : EBB_PRE_NODE_TASKS0);
  ebb_pre_task *x = &n->tasks[n->ntasks];
  memcpy (x, t, offsetof (ebb_pre_task, last_chance_sec));
  x->given = x->demand;
  x->has_room = 0;
  x->acct_ready = 0;
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
  /* The last slot moves only when it is another: a task is 3 cache lines, and copying a
   * slot onto itself would fetch the two its removal never reads. */
  if (slot != --n->ntasks)
    n->tasks[slot] = n->tasks[n->ntasks];
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
  if (!n->tasks_lent)
    free (n->tasks);
  memset (n, 0, sizeof *n);
}
