/* ebb: Hawk's placement with preemption in place of head-of-line waiting. This file holds the
 * preemption core (policies/ebb.h); the placement is Hawk's (policies/hawk.c). */
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
          if (!t->is_long || t->inflight || taken (out, nt, s)
              || !ebb_pre_may_suspend (t, p, now_sec))
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
        }
      t->given.cpu_millis -= takes[i].amount.cpu_millis;
      t->given.memory_bytes -= takes[i].amount.memory_bytes;
      n->used.cpu_millis -= takes[i].amount.cpu_millis;
      n->used.memory_bytes -= takes[i].amount.memory_bytes;
      t->chances = 0;
      record_suspension (t, now_sec, p->max_suspends);
    }
}

/* The longest a preemption lasts before the task is given back its room regardless of
 * waiting short work (see ebb.h for the bound it gives). */
static double
max_preempted_sec (const ebb_pre_params *p)
{
  return p->suspend_window_sec / (4.0 * p->max_suspends);
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
      if (!ebb_pre_fits (n, back) || (short_pending && !overdue))
        continue;
      if (!spare && !overdue && t->chances < p->resume_tries)
        {
          t->chances++; /* D: a chance with room, let pass */
          continue;
        }
      out[k++] = (ebb_pre_take){ .slot = slot,
                                 .amount = back,
                                 .delay_sec = back.memory_bytes / GIB * p->resume_sec_per_gib };
      t->est_end_sec += now_sec - t->preempted_sec;
      t->given = t->demand;
      n->used.cpu_millis += back.cpu_millis;
      n->used.memory_bytes += back.memory_bytes;
      t->chances = 0;
      n->npreempted--;
    }
  return k;
}

uint32_t
ebb_pre_add (ebb_pre_node *n, const ebb_pre_task *t)
{
  if (n->ntasks == n->tasks_cap)
    {
      n->tasks_cap = n->tasks_cap ? n->tasks_cap * 2 : 4;
      n->tasks = ebb_xrealloc (n->tasks, n->tasks_cap * sizeof *n->tasks);
    }
  ebb_pre_task *x = &n->tasks[n->ntasks];
  *x = *t;
  x->given = x->demand;
  x->chances = 0;
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

/* ---- The policy ---------------------------------------------------------------------------
 * Resource mode only (a Hawk trace runs on nodes of one slot's capacity; see
 * doc/ebb-policy.md). Every node has a FIFO of short tasks and one of long tasks; short tasks
 * go first, and a short task at the head that does not fit preempts long work (the core
 * above) instead of waiting behind it. */

typedef struct ebb_qent
{
  uint32_t job, task;
  uint8_t waiting; /* head short task whose room is being reclaimed */
  uint8_t pad[3];
} ebb_qent;

typedef struct ebb_queue
{
  ebb_qent *v;
  uint32_t head, n, cap; /* a ring; cap is a power of two */
} ebb_queue;

static void
q_push (ebb_queue *q, ebb_qent e)
{
  if (q->n == q->cap)
    {
      uint32_t cap = q->cap ? q->cap * 2 : 4;
      ebb_qent *v = ebb_xmalloc (cap * sizeof *v);
      for (uint32_t i = 0; i < q->n; i++)
        v[i] = q->v[(q->head + i) & (q->cap - 1)];
      free (q->v);
      q->v = v;
      q->head = 0;
      q->cap = cap;
    }
  q->v[(q->head + q->n++) & (q->cap - 1)] = e;
}

static inline ebb_qent *
q_front (ebb_queue *q)
{
  return &q->v[q->head];
}

static inline ebb_qent
q_pop (ebb_queue *q)
{
  ebb_qent e = q->v[q->head];
  q->head = (q->head + 1) & (q->cap - 1);
  q->n--;
  return e;
}

typedef struct ebb_priv
{
  ebb_pre_params pre;
  uint32_t first_general;
  ebb_pre_node *pn;
  ebb_queue *shortq, *longq;
  double *wait_sec; /* central placement: estimated long work assigned, unfinished */
  uint32_t *nlong;
  uint32_t *wpos;
  ebb_pol_iheap wq;
  uint8_t *listed; /* node is in plist (has preempted tasks to look after at ticks) */
  uint32_t *plist, nplist;
  uint8_t *idle; /* general node with no task and no queued work */
  uint32_t nidle;
  ebb_pre_take *takes;
  uint32_t takes_cap;
} ebb_priv;

static int
ebb_init (ebb_pol *p, ebb_error **err)
{
  ebb_priv *e = p->priv;
  const ebb_pol_params *pp = &p->params;
  uint32_t n = pp->nnodes;
  ebb_pre_params_default (&e->pre);
  /* Nodes without memory are slots (a Hawk trace): a suspended task is swapped out whole,
   * otherwise its footprint would keep the slot from ever fitting a short task. */
  if (pp->node_cap.memory_bytes == 0)
    p->params.footprint = (ebb_pol_res){ 0, 0 };
  e->pre.footprint = p->params.footprint;
  e->pre.resume_tries = pp->resume_tries;
  if (pp->max_suspends)
    e->pre.max_suspends = pp->max_suspends;
  if (pp->suspend_window_sec > 0)
    e->pre.suspend_window_sec = pp->suspend_window_sec;
  const char *bad = ebb_pre_params_check (&e->pre);
  if (bad)
    return ebb_error_set (err, EBB_ERANGE, "ebb: %s", bad);
  if (!pp->no_partition)
    e->first_general = (uint32_t)floor (pp->short_part_pct * n / 100.0);
  if (e->first_general >= n)
    return ebb_error_set (err, EBB_ERANGE, "the short partition leaves no general node");
  /* D counts chances with room; without other events on a node, a round gives one. */
  if (p->params.tick_sec <= 0)
    p->params.tick_sec = 3;
  e->pn = ebb_xcalloc (n, sizeof *e->pn);
  for (uint32_t i = 0; i < n; i++)
    e->pn[i].cap = p->node_cap[i];
  e->shortq = ebb_xcalloc (n, sizeof *e->shortq);
  e->longq = ebb_xcalloc (n, sizeof *e->longq);
  e->wait_sec = ebb_xcalloc (n, sizeof *e->wait_sec);
  e->nlong = ebb_xcalloc (n, sizeof *e->nlong);
  e->wpos = ebb_xmalloc (n * sizeof *e->wpos);
  for (uint32_t i = 0; i < n; i++)
    e->wpos[i] = UINT32_MAX;
  ebb_pol_iheap_init (&e->wq, n, e->wpos);
  for (uint32_t i = e->first_general; i < n; i++)
    ebb_pol_iheap_push (&e->wq, i, 0);
  e->listed = ebb_xcalloc (n, 1);
  e->plist = ebb_xmalloc (n * sizeof *e->plist);
  e->idle = ebb_xcalloc (n, 1);
  for (uint32_t i = e->first_general; i < n; i++)
    e->idle[i] = 1;
  e->nidle = n - e->first_general;
  e->takes_cap = 16;
  e->takes = ebb_xmalloc (e->takes_cap * sizeof *e->takes);
  return 0;
}

static void
ebb_fini (ebb_pol *p)
{
  ebb_priv *e = p->priv;
  for (uint32_t i = 0; e->pn && i < p->params.nnodes; i++)
    {
      ebb_pre_node_fini (&e->pn[i]);
      free (e->shortq[i].v);
      free (e->longq[i].v);
    }
  free (e->pn);
  free (e->shortq);
  free (e->longq);
  free (e->wait_sec);
  free (e->nlong);
  free (e->wpos);
  ebb_pol_iheap_fini (&e->wq);
  free (e->listed);
  free (e->plist);
  free (e->idle);
  free (e->takes);
}

static void
ensure_takes (ebb_priv *e, uint32_t n)
{
  if (n <= e->takes_cap)
    return;
  while (e->takes_cap < n)
    e->takes_cap *= 2;
  e->takes = ebb_xrealloc (e->takes, e->takes_cap * sizeof *e->takes);
}

static void
refresh_idle (ebb_priv *e, uint32_t node)
{
  if (node < e->first_general)
    return;
  uint8_t idle = e->pn[node].ntasks == 0 && e->shortq[node].n == 0 && e->longq[node].n == 0;
  if (idle != e->idle[node])
    {
      e->nidle += idle ? 1 : (uint32_t)-1;
      e->idle[node] = idle;
    }
}

static void
launch (ebb_pol *p, uint32_t node, ebb_qent q, double now_sec)
{
  ebb_priv *e = p->priv;
  const ebb_pol_job *j = &p->jobs[q.job];
  /* The probe's delay and the late-binding round trip. */
  ebb_pol_launch_res (p, node, q.job, q.task, 3 * p->params.net_delay_sec);
  ebb_pre_task t = { .job = q.job,
                     .task = q.task,
                     .is_long = j->is_long,
                     .demand = j->demand,
                     .est_end_sec = now_sec + j->est_task_sec };
  ebb_pre_add (&e->pn[node], &t);
}

static inline int
has_preempted (const ebb_pre_node *n)
{
  return n->npreempted > 0;
}

/* Returns 1 when a preempted task on n could take its room back now: only then does a
 * round bring it a chance. */
static int
wants_round (const ebb_pre_node *n)
{
  if (n->npreempted == 0)
    return 0;
  for (uint32_t s = 0; s < n->ntasks; s++)
    {
      const ebb_pre_task *t = &n->tasks[s];
      if (!t->inflight && ebb_pre_is_preempted (t)
          && ebb_pre_fits (n, (ebb_pol_res){ t->demand.cpu_millis - t->given.cpu_millis,
                                             t->demand.memory_bytes - t->given.memory_bytes }))
        return 1;
    }
  return 0;
}

/* The head short task does not fit: make room by preemption. Returns 1 when room is made
 * or already promised, 0 when the node has nothing it may take (the bound, or short work). */
static int
preempt_for (ebb_pol *p, uint32_t node, ebb_qent *head, double now_sec)
{
  ebb_priv *e = p->priv;
  ebb_pre_node *pn = &e->pn[node];
  ensure_takes (e, pn->ntasks + 1);
  double delay;
  int k = ebb_pre_plan (pn, &e->pre, p->jobs[head->job].demand, now_sec, e->takes, e->takes_cap,
                        &delay);
  if (k <= 0)
    return k == 0; /* 0: room already promised (a reclaim under way) */
  ebb_pre_apply (pn, &e->pre, e->takes, (uint32_t)k, now_sec);
  for (int i = 0; i < k; i++)
    {
      ebb_pre_task *t = &pn->tasks[e->takes[i].slot];
      ebb_pol_res above
          = { t->given.cpu_millis + e->takes[i].amount.cpu_millis - p->params.footprint.cpu_millis,
              t->given.memory_bytes + e->takes[i].amount.memory_bytes
                  - p->params.footprint.memory_bytes };
      int all = e->takes[i].amount.cpu_millis >= above.cpu_millis
                && e->takes[i].amount.memory_bytes >= above.memory_bytes;
      t->inflight = 1;
      ebb_pol_suspend (p, t->job, t->task,
                       all ? EBB_POL_SUSPEND_IMMEDIATE : EBB_POL_SUSPEND_GRACEFUL,
                       e->takes[i].amount);
    }
  head->waiting = 1;
  return 1;
}

/* Returns 1 when node could start a short task of job now: it fits, or the node's long work
 * may be preempted for it. */
static int
can_start (ebb_pol *p, uint32_t node, uint32_t job, double now_sec)
{
  ebb_priv *e = p->priv;
  if (ebb_pol_res_fits (p->jobs[job].demand, p->node_free[node]))
    return 1;
  ensure_takes (e, e->pn[node].ntasks + 1);
  double delay;
  return ebb_pre_plan (&e->pn[node], &e->pre, p->jobs[job].demand, now_sec, e->takes, e->takes_cap,
                       &delay)
         > 0;
}

/* The head short task can neither start nor preempt here (the suspend bound protects the
 * long work, or short tasks hold the node): rather than wait behind them, it moves to the
 * first of up to steal_cap random nodes with no short queue that could start it now, as
 * Hawk's stealing moves short work away from long work, pushed instead of pulled. */
static uint32_t
relocate (ebb_pol *p, uint32_t node, double now_sec)
{
  ebb_priv *e = p->priv;
  uint32_t n = p->params.nnodes, job = q_front (&e->shortq[node])->job;
  for (uint32_t a = 0; a < p->params.steal_cap; a++)
    {
      uint32_t to = (uint32_t)ebb_rng_below (&p->rng, n);
      if (to == node || e->shortq[to].n > 0 || !can_start (p, to, job, now_sec))
        continue;
      ebb_qent x = q_pop (&e->shortq[node]);
      x.waiting = 0;
      q_push (&e->shortq[to], x);
      p->stats.probes_stolen++;
      return to;
    }
  return EBB_POL_NONE;
}

/* Gives preempted tasks their chance; returns 1 when one is still preempted. */
static int
resume_chance (ebb_pol *p, uint32_t node, double now_sec)
{
  ebb_priv *e = p->priv;
  ebb_pre_node *pn = &e->pn[node];
  if (pn->npreempted == 0)
    return 0;
  ensure_takes (e, pn->ntasks + 1);
  uint32_t k = ebb_pre_chance (pn, &e->pre, now_sec, e->shortq[node].n > 0, e->nidle > 0, e->takes,
                               e->takes_cap);
  for (uint32_t i = 0; i < k; i++)
    {
      ebb_pre_task *t = &pn->tasks[e->takes[i].slot];
      t->inflight = 1;
      ebb_pol_resume (p, t->job, t->task);
    }
  return has_preempted (pn);
}

static uint32_t steal (ebb_pol *p, uint32_t thief, double now_sec);
static void serve (ebb_pol *p, uint32_t node, double now_sec);

/* Everything a node does when something changed on it: short tasks first (preempting long
 * work for the head one, or moving it to a node that can start it), then chances for preempted long
 * tasks, then queued long tasks, then stealing when it has nothing queued. */
static void
serve (ebb_pol *p, uint32_t node, double now_sec)
{
  ebb_priv *e = p->priv;
  ebb_queue *sq = &e->shortq[node], *lq = &e->longq[node];
  for (int round = 0; round < 2; round++)
    {
      /* An overdue preempted task takes its room back before the next short task can. */
      if (sq->n > 0)
        resume_chance (p, node, now_sec);
      while (sq->n > 0)
        {
          ebb_qent *h = q_front (sq);
          if (ebb_pol_res_fits (p->jobs[h->job].demand, p->node_free[node]))
            {
              launch (p, node, q_pop (sq), now_sec);
              continue;
            }
          if (h->waiting || preempt_for (p, node, h, now_sec))
            break;
          uint32_t to = relocate (p, node, now_sec);
          if (to == EBB_POL_NONE)
            break;
          serve (p, to, now_sec);
        }
      int preempted = resume_chance (p, node, now_sec);
      while (!preempted && sq->n == 0 && lq->n > 0
             && ebb_pol_res_fits (p->jobs[q_front (lq)->job].demand, p->node_free[node]))
        launch (p, node, q_pop (lq), now_sec);
      if (round > 0 || sq->n > 0 || lq->n > 0 || p->params.no_steal
          || steal (p, node, now_sec) == 0)
        break;
    }
  refresh_idle (e, node);
  /* Rounds are only needed where nothing else will happen: a preempted task that fits back,
   * waiting for D chances on a node with no short work queued (a short task's start or
   * finish, or a reclaim or resume report, brings the next chance itself). */
  if (!e->listed[node] && sq->n == 0 && wants_round (&e->pn[node]))
    {
      e->listed[node] = 1;
      e->plist[e->nplist++] = node;
    }
}

/* Randomized stealing (Hawk): a node with nothing queued contacts up to steal_cap random
 * general nodes and takes, from the first that has some, the short tasks queued there that
 * no preemption is under way for. */
static uint32_t
steal (ebb_pol *p, uint32_t thief, double now_sec)
{
  ebb_priv *e = p->priv;
  uint32_t g = e->first_general, n = p->params.nnodes;
  (void)now_sec;
  for (uint32_t a = 0; a < p->params.steal_cap; a++)
    {
      uint32_t victim = g + (uint32_t)ebb_rng_below (&p->rng, n - g);
      p->stats.steal_attempts++;
      ebb_queue *vq = &e->shortq[victim];
      if (victim == thief || vq->n == 0)
        continue;
      /* Keep the victim's head when its room is being made. */
      uint32_t keep = q_front (vq)->waiting ? 1 : 0, got = 0;
      uint32_t limit = p->params.steal_limit;
      ebb_queue rest = { 0 };
      while (vq->n > 0)
        {
          ebb_qent x = q_pop (vq);
          if (keep > 0)
            keep--, q_push (&rest, x);
          else if (got < limit)
            got++, q_push (&e->shortq[thief], x);
          else
            q_push (&rest, x);
        }
      free (vq->v);
      *vq = rest;
      refresh_idle (e, victim);
      if (got > 0)
        {
          p->stats.steals++;
          p->stats.probes_stolen += got;
          ebb_pol_emit (p, EBB_POL_ACT_STEAL, thief, victim, got, 0);
          return got;
        }
    }
  return 0;
}

/* Short placement: each task goes to the least loaded of d sampled nodes (d = the probe
 * ratio, Sparrow's power of d choices): fewest queued short tasks, then room now. */
static uint32_t
pick_short (ebb_pol *p, uint32_t job)
{
  ebb_priv *e = p->priv;
  uint32_t d = (uint32_t)ceil (p->params.probe_ratio), n = p->params.nnodes, best = 0;
  uint64_t best_score = UINT64_MAX;
  for (uint32_t i = 0; i < d; i++)
    {
      uint32_t node = (uint32_t)ebb_rng_below (&p->rng, n);
      uint64_t score = 2 * (uint64_t)e->shortq[node].n
                       + !ebb_pol_res_fits (p->jobs[job].demand, p->node_free[node]);
      p->stats.probes_sent++;
      if (score < best_score)
        best = node, best_score = score;
    }
  return best;
}

static void
ebb_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  ebb_priv *e = p->priv;
  ebb_pol_job *j = &p->jobs[job];
  for (uint32_t k = 0; k < j->ntasks; k++)
    {
      uint32_t node;
      if (!j->is_long)
        {
          node = pick_short (p, job);
          q_push (&e->shortq[node], (ebb_qent){ .job = job, .task = k });
        }
      else
        {
          /* Central: the general node with the least estimated long work. */
          node = e->wq.s[0].id;
          e->wait_sec[node] += j->est_task_sec;
          e->nlong[node]++;
          ebb_pol_iheap_set (&e->wq, node, e->wait_sec[node]);
          q_push (&e->longq[node], (ebb_qent){ .job = job, .task = k });
        }
      serve (p, node, now_sec);
    }
}

static void
forget_task (ebb_pol *p, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_priv *e = p->priv;
  uint32_t s = ebb_pre_find (&e->pn[node], job, task);
  if (s != UINT32_MAX)
    ebb_pre_remove (&e->pn[node], s);
  if (p->jobs[job].is_long && node >= e->first_general)
    {
      /* Exact by count, so float drift never hides an empty node. */
      if (--e->nlong[node] == 0)
        e->wait_sec[node] = 0;
      else
        e->wait_sec[node] -= p->jobs[job].est_task_sec;
      ebb_pol_iheap_set (&e->wq, node, e->wait_sec[node]);
    }
}

static void
ebb_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  forget_task (p, node, job, task);
  serve (p, node, now_sec);
}

static void
ebb_task_reclaimed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task,
                    ebb_pol_res freed, int done)
{
  ebb_priv *e = p->priv;
  (void)freed;
  if (done)
    {
      uint32_t s = ebb_pre_find (&e->pn[node], job, task);
      if (s != UINT32_MAX)
        {
          /* Trust what was freed (memory may not be reclaimable): the core's holding. */
          ebb_pre_task *t = &e->pn[node].tasks[s];
          const ebb_pol_task *ct = &p->jobs[job].tasks[task];
          e->pn[node].used.cpu_millis += ct->alloc.cpu_millis - t->given.cpu_millis;
          e->pn[node].used.memory_bytes += ct->alloc.memory_bytes - t->given.memory_bytes;
          int was = ebb_pre_is_preempted (t);
          t->given = ct->alloc;
          e->pn[node].npreempted += ebb_pre_is_preempted (t) - was;
          t->inflight = 0;
        }
      if (e->shortq[node].n > 0)
        q_front (&e->shortq[node])->waiting = 0;
    }
  serve (p, node, now_sec);
}

static void
ebb_task_resumed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_priv *e = p->priv;
  uint32_t s = ebb_pre_find (&e->pn[node], job, task);
  if (s != UINT32_MAX)
    e->pn[node].tasks[s].inflight = 0;
  serve (p, node, now_sec);
}

/* ebb never kills; a task lost on its node is queued again there (or dropped when its job
 * failed). */
static void
ebb_task_killed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_priv *e = p->priv;
  uint32_t s = ebb_pre_find (&e->pn[node], job, task);
  if (s != UINT32_MAX)
    ebb_pre_remove (&e->pn[node], s);
  if (!p->jobs[job].failed)
    q_push (p->jobs[job].is_long ? &e->longq[node] : &e->shortq[node],
            (ebb_qent){ .job = job, .task = task });
  else if (p->jobs[job].is_long)
    forget_task (p, node, job, task);
  serve (p, node, now_sec);
}

/* A task that already runs on node (adopted by the environment) is long work there like one
 * this policy launched: a victim for short tasks, counted in the central placement's wait. */
static void
ebb_task_adopted (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_priv *e = p->priv;
  const ebb_pol_job *j = &p->jobs[job];
  ebb_pre_task t = { .job = job,
                     .task = task,
                     .is_long = j->is_long,
                     .demand = j->demand,
                     .est_end_sec = now_sec + j->est_task_sec };
  ebb_pre_add (&e->pn[node], &t);
  if (j->is_long && node >= e->first_general)
    {
      e->wait_sec[node] += j->est_task_sec;
      e->nlong[node]++;
      ebb_pol_iheap_set (&e->wq, node, e->wait_sec[node]);
    }
  refresh_idle (e, node);
}

/* A round: every listed node gets a chance (D counts them). */
static void
ebb_tick (ebb_pol *p, double now_sec)
{
  ebb_priv *e = p->priv;
  for (uint32_t i = 0; i < e->nplist;)
    {
      uint32_t node = e->plist[i];
      serve (p, node, now_sec);
      if (e->shortq[node].n == 0 && wants_round (&e->pn[node]))
        i++;
      else
        {
          e->listed[node] = 0;
          e->plist[i] = e->plist[--e->nplist];
        }
    }
}

const ebb_pol_ops ebb_pol_ebb_ops = {
  .name = "ebb",
  .summary = "Hawk's placement; a short task preempts running long work instead of waiting "
             "(suspend bound, delayed resumption)",
  .priv_size = sizeof (ebb_priv),
  .init = ebb_init,
  .fini = ebb_fini,
  .job_arrived = ebb_job_arrived,
  .task_finished = ebb_task_finished,
  .tick = ebb_tick,
  .needs_resources = 1,
  .task_reclaimed = ebb_task_reclaimed,
  .task_resumed = ebb_task_resumed,
  .task_killed = ebb_task_killed,
  .task_adopted = ebb_task_adopted,
};
