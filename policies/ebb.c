/* ebb: Hawk's placement with preemption in place of head-of-line waiting. The per-node
 * preemption decisions are the core's (policies/ebb-pre.c); this file holds the policy:
 * placement, the node queues and when each node is served.
 * Resource mode only (a Hawk trace runs on nodes of one slot's capacity; see
 * doc/ebb-policy.md). Every node has a FIFO of short tasks and one of long tasks; short tasks
 * go first, and a short task at the head that does not fit moves to a node with room if it
 * finds one, else preempts long work (the core) instead of waiting behind it.
 * Over 700 lines in one file on purpose: placement, serving a node, stealing, parking what
 * fits nowhere and preempting across tiers all read and write one private state (the node
 * queues, the parked tasks, the per-node preemption books) that no other file should see. */
#include "config.h"

#include "policies/ebb.h"
#include "policies/iheap.h"
#include "lib/util.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* 8 bytes, so that a queue's first entries share its cache line (ebb_queue). A task index
 * takes 31 bits: a job of 2^31 tasks would need 120 GB of the policy core's state. */
typedef struct ebb_qent
{
  uint32_t job;
  uint32_t task : 31;
  uint32_t waiting : 1; /* head short task whose room is being reclaimed */
} ebb_qent;

/* The room a node's queue starts with, in the queue itself, a power of two. */
#define EBB_Q_CAP0 4

/* A ring; its first EBB_Q_CAP0 entries live in the queue (a node's queues are read at every
 * event on it, and a ring of their own was another cache miss each). A queue never moves
 * (it is a node's, in an array allocated once): v may point into it. */
typedef struct ebb_queue
{
  ebb_qent *v;           /* in, or the heap once the queue outgrew it */
  uint32_t head, n, cap; /* cap is a power of two */
  ebb_qent in[EBB_Q_CAP0];
} ebb_queue;

static void
q_init (ebb_queue *q)
{
  q->v = q->in;
  q->head = q->n = 0;
  q->cap = EBB_Q_CAP0;
}

static void
q_fini (ebb_queue *q)
{
  if (q->v != q->in)
    free (q->v);
}

/* Doubles the room (cap a power of two). */
static void
q_grow (ebb_queue *q)
{
  uint32_t cap = 2 * q->cap;
  ebb_qent *v = ebb_xmalloc (cap * sizeof *v);
  for (uint32_t i = 0; i < q->n; i++)
    v[i] = q->v[(q->head + i) & (q->cap - 1)];
  q_fini (q);
  q->v = v;
  q->head = 0;
  q->cap = cap;
}

static void
q_push (ebb_queue *q, ebb_qent e)
{
  if (q->n == q->cap)
    q_grow (q);
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

/* What serving a node reads and writes, in one place: the node's queues (with their first
 * entries), its preemption books and its set memberships, a cache line each, where
 * separate arrays and rings cost a cache miss each at every event on a node (15,000
 * nodes' state does not stay in cache). nshort stays a dense array: placement, stealing
 * and relocation read it on random nodes. */
typedef struct ebb_node
{
  ebb_queue sq;   /* short tasks, FIFO */
  uint32_t epos;  /* its index in empty, UINT32_MAX when not empty */
  uint8_t idle;   /* general node with no task and no queued work */
  uint8_t listed; /* in plist (has preempted tasks to look after at rounds) */
  ebb_pre_node pn __attribute__ ((aligned (64)));
  ebb_queue lq __attribute__ ((aligned (64))); /* long tasks, FIFO */
} __attribute__ ((aligned (64))) ebb_node;
_Static_assert(sizeof (ebb_node) == 192, "a node's state is three cache lines");

typedef struct ebb_priv
{
  ebb_pre_params pre;
  uint32_t first_general;
  ebb_node *nd;       /* in nd_mem */
  ebb_pre_task *room; /* the nodes' first room for tasks (lent), in room_mem */
  void *nd_mem, *room_mem;
  double *wait_sec; /* central placement: estimated long work assigned, unfinished */
  uint32_t *nlong;
  uint32_t *wpos;
  ebb_pol_iheap wq;
  uint32_t *plist, nplist; /* the nodes listed (ebb_node.listed) */
  /* Each node's short queue length, dense (the queues themselves are a cache miss away):
   * placement samples random nodes' lengths, and stealing and relocation probe random nodes
   * for short work and mostly find none. */
  uint32_t *nshort;
  uint32_t nshort_general; /* general nodes among them */
  uint32_t nidle;
  /* Empty nodes (nothing running, nothing queued), any partition, as a set to draw from: a
   * short task that does not fit where it was placed goes to one of them before it
   * preempts anything (see serve). */
  uint32_t *empty, nempty;
  ebb_pre_take *takes;
  uint32_t takes_cap;
  /* Tasks no node could hold at their arrival (demand over every node's capacity): kept
   * here, never in a node's queue where they would block the work behind them, and tried
   * again at every round (capacities change as nodes come, go and drain). */
  ebb_qent *parked;
  uint32_t nparked, parked_cap;
} ebb_priv;

/* n zeroed elements of size bytes on a cache-line boundary, every page touched (a cost paid
 * at init, see ebb_init); *mem is what to free. */
static void *
lines_alloc (size_t n, size_t size, void **mem)
{
  *mem = ebb_xmalloc (n * size + 63);
  memset (*mem, 0, n * size + 63);
  return (void *)(((uintptr_t)*mem + 63) & ~(uintptr_t)63);
}

static int
ebb_init (ebb_pol *p, ebb_error **err)
{
  ebb_priv *e = p->priv;
  const ebb_pol_params *pp = &p->params;
  uint32_t n = pp->nnodes;
  ebb_pre_params_default (&e->pre);
  /* By default the CPU footprint is not booked (BIG-C's books keep none either): a
   * suspended task's 1% competes for CPU under the kernel's shares instead of holding room,
   * or a suspended 8-CPU task would leave room for one 4-CPU short task, not two, and the
   * second would spend another task's suspension (doc/ebb-policy.md). The memory footprint
   * is booked: it is resident. Nodes without memory are slots (a Hawk trace): a suspended
   * task is swapped out whole, or its footprint would keep the slot from ever fitting a
   * short task, so nothing is booked. */
  if (p->params.book_footprint == EBB_POL_BOOK_DEFAULT)
    p->params.book_footprint
        = pp->node_cap.memory_bytes == 0 ? EBB_POL_BOOK_NONE : EBB_POL_BOOK_MEMORY;
  e->pre.footprint = ebb_pol_booked_footprint (p);
  e->pre.resume_tries = pp->resume_tries;
  e->pre.long_share = pp->long_share;
  if (pp->share_window_sec > 0)
    e->pre.share_window_sec = pp->share_window_sec;
  /* D is counted in rounds of time (ebb.h says why), seen at chances: without other events
   * on a node, a round gives one. */
  if (p->params.tick_sec <= 0)
    p->params.tick_sec = 3;
  e->pre.round_sec = p->params.tick_sec;
  const char *bad = ebb_pre_params_check (&e->pre);
  if (bad)
    return ebb_error_set (err, EBB_ERANGE, "ebb: %s", bad);
  if (!pp->no_partition)
    e->first_general = (uint32_t)floor (pp->short_part_pct * n / 100.0);
  if (e->first_general >= n)
    return ebb_error_set (err, EBB_ERANGE, "the short partition leaves no general node");
  /* Every node's tasks and queues get their first room now: a fixed cost known when the
   * policy starts (about 1,000 bytes a node, 10 MB at 10,000 nodes), not heap that grows
   * with the nodes a job stream has reached so far. Short tasks may go to any node, long
   * ones only to the general nodes. The tasks' room is one block, node i's at a known place
   * (ebb_prefetch_node asks for it without reading the node). */
  e->nd = lines_alloc (n, sizeof *e->nd, &e->nd_mem);
  e->room = lines_alloc ((size_t)n * EBB_PRE_NODE_TASKS0, sizeof *e->room, &e->room_mem);
  for (uint32_t i = 0; i < n; i++)
    {
      e->nd[i].pn.cap = p->node_cap[i];
      ebb_pre_node_lend (&e->nd[i].pn, &e->room[(size_t)i * EBB_PRE_NODE_TASKS0],
                         EBB_PRE_NODE_TASKS0);
      q_init (&e->nd[i].sq);
      q_init (&e->nd[i].lq);
    }
  e->wait_sec = ebb_xcalloc (n, sizeof *e->wait_sec);
  e->nlong = ebb_xcalloc (n, sizeof *e->nlong);
  e->wpos = ebb_xmalloc (n * sizeof *e->wpos);
  for (uint32_t i = 0; i < n; i++)
    e->wpos[i] = UINT32_MAX;
  ebb_pol_iheap_init (&e->wq, n, e->wpos);
  for (uint32_t i = e->first_general; i < n; i++)
    ebb_pol_iheap_push (&e->wq, i, 0);
  e->plist = ebb_xmalloc (n * sizeof *e->plist);
  e->nshort = ebb_xcalloc (n, sizeof *e->nshort);
  for (uint32_t i = e->first_general; i < n; i++)
    e->nd[i].idle = 1;
  e->nidle = n - e->first_general;
  e->empty = ebb_xmalloc (n * sizeof *e->empty);
  for (uint32_t i = 0; i < n; i++)
    e->empty[i] = i, e->nd[i].epos = i;
  e->nempty = n;
  e->takes_cap = 16;
  e->takes = ebb_xmalloc (e->takes_cap * sizeof *e->takes);
  return 0;
}

static void
ebb_fini (ebb_pol *p)
{
  ebb_priv *e = p->priv;
  for (uint32_t i = 0; e->nd && i < p->params.nnodes; i++)
    {
      ebb_pre_node_fini (&e->nd[i].pn);
      q_fini (&e->nd[i].sq);
      q_fini (&e->nd[i].lq);
    }
  free (e->nd_mem);
  free (e->room_mem);
  free (e->wait_sec);
  free (e->nlong);
  free (e->wpos);
  ebb_pol_iheap_fini (&e->wq);
  free (e->plist);
  free (e->nshort);
  free (e->empty);
  free (e->takes);
  free (e->parked);
}

/* An event on node is about to read its state: its three lines are asked for at once, so
 * that their cache misses overlap instead of coming one after the other as the code
 * reaches each. A hint only. */
static inline void
node_prefetch (const ebb_pol *p, uint32_t node)
{
  const ebb_priv *e = p->priv;
  __builtin_prefetch (&e->nd[node].sq);
  __builtin_prefetch (&e->nd[node].pn);
  __builtin_prefetch (&e->nd[node].lq);
  __builtin_prefetch (&p->node_free[node]);
  __builtin_prefetch (&p->node_cap[node]);
}

/* ebb_pol_prefetch_node: an event on node comes next (a task's end, mostly, which looks
 * its task up in the node's list): the first line of the node's lent room for tasks too,
 * at an address known without waiting for the node's line (a node that outgrew that room
 * has its list elsewhere: the hint is wasted, nothing else). */
static void
ebb_prefetch_node (const ebb_pol *p, uint32_t node)
{
  const ebb_priv *e = p->priv;
  node_prefetch (p, node);
  __builtin_prefetch (&e->room[(size_t)node * EBB_PRE_NODE_TASKS0]);
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
  uint8_t idle = e->nd[node].pn.ntasks == 0 && e->nd[node].sq.n == 0 && e->nd[node].lq.n == 0;
  if (idle != (e->nd[node].epos != UINT32_MAX))
    {
      if (idle)
        {
          e->nd[node].epos = e->nempty;
          e->empty[e->nempty++] = node;
        }
      else
        {
          uint32_t last = e->empty[--e->nempty];
          e->empty[e->nd[node].epos] = last;
          e->nd[last].epos = e->nd[node].epos;
          e->nd[node].epos = UINT32_MAX;
        }
    }
  if (node < e->first_general)
    return;
  if (idle != e->nd[node].idle)
    {
      e->nidle += idle ? 1 : (uint32_t)-1;
      e->nd[node].idle = idle;
    }
}

/* Keeps nshort and nshort_general in step with node's short queue: called after every
 * change to it. */
static void
short_changed (ebb_priv *e, uint32_t node)
{
  uint32_t n = e->nd[node].sq.n;
  uint8_t has = n > 0, had = e->nshort[node] > 0;
  e->nshort[node] = n;
  if (has == had)
    return;
  if (node >= e->first_general)
    e->nshort_general += has ? 1 : (uint32_t)-1;
}

static void
launch (ebb_pol *p, uint32_t node, ebb_qent q, double now_sec)
{
  ebb_priv *e = p->priv;
  ebb_pol_job *j = &p->jobs[q.job];
  j->wait = EBB_POL_WAIT_NONE;
  /* The probe's delay and the late-binding round trip. */
  ebb_pol_launch_res (p, node, q.job, q.task, 3 * p->params.net_delay_sec);
  ebb_pre_task t = { .job = q.job,
                     .task = q.task,
                     .is_long = j->is_long,
                     .tier = ebb_pol_job_priority (p, q.job),
                     .demand = j->demand,
                     .est_end_sec = now_sec + j->est_task_sec };
  ebb_pre_add (&e->nd[node].pn, &t);
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

/* Who asks for room for a task of job: its tier and class (ebb_pre_plan_for). */
static ebb_pre_asker
asker (const ebb_pol *p, uint32_t job)
{
  return (ebb_pre_asker){ .tier = ebb_pol_job_priority (p, job), .is_long = p->jobs[job].is_long };
}

/* After a plan found no room: EBB_POL_WAIT_SHARE when long work without its share bound
 * could have made it (the environment tells the job's waiting so), else NONE. The same
 * plan with an unbounded budget: only on this path, where nothing is preempted. */
static uint8_t
share_blocks (const ebb_pre_node *pn, const ebb_pre_params *pre, const ebb_pre_asker *a,
              const ebb_pol_job *j, double now_sec, ebb_pre_take *takes, uint32_t max)
{
  ebb_pre_params unbounded = *pre;
  unbounded.long_share = -INFINITY;
  double delay;
  return ebb_pre_plan_for (pn, &unbounded, a, j->demand, j->est_task_sec, now_sec, takes, max,
                           &delay)
                 > 0
             ? EBB_POL_WAIT_SHARE
             : EBB_POL_WAIT_NONE;
}

/* The head task (short; or long, of a tier above work on the node) does not fit: make room
 * by preemption. Returns 1 when room is made or already promised, 0 when the node has
 * nothing it may take (the bound, short work, or work of its tier or above). */
static int
preempt_for (ebb_pol *p, uint32_t node, ebb_qent *head, double now_sec)
{
  ebb_priv *e = p->priv;
  ebb_pre_node *pn = &e->nd[node].pn;
  ensure_takes (e, pn->ntasks + 1);
  double delay;
  const ebb_pol_job *j = &p->jobs[head->job];
  ebb_pre_asker a = asker (p, head->job);
  int k = ebb_pre_plan_for (pn, &e->pre, &a, j->demand, j->est_task_sec, now_sec, e->takes,
                            e->takes_cap, &delay);
  if (k < 0)
    p->jobs[head->job].wait = share_blocks (pn, &e->pre, &a, j, now_sec, e->takes, e->takes_cap);
  if (k <= 0)
    return k == 0; /* 0: room already promised (a reclaim under way) */
  ebb_pre_apply (pn, &e->pre, e->takes, (uint32_t)k, now_sec);
  for (int i = 0; i < k; i++)
    {
      ebb_pre_task *t = &pn->tasks[e->takes[i].slot];
      /* t->given is what the take leaves it (ebb_pre_apply lowered it). */
      int all = ebb_pol_take_suspends (p, t->given);
      t->inflight = 1;
      ebb_pol_suspend (p, t->job, t->task,
                       all ? EBB_POL_SUSPEND_IMMEDIATE : EBB_POL_SUSPEND_GRACEFUL,
                       e->takes[i].amount);
    }
  head->waiting = 1;
  p->jobs[head->job].wait = EBB_POL_WAIT_NONE;
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
  e->nd[node].pn.cap = p->node_cap[node]; /* as serve does: a drained node makes no room */
  ensure_takes (e, e->nd[node].pn.ntasks + 1);
  double delay;
  ebb_pre_asker a = asker (p, job);
  return ebb_pre_plan_for (&e->nd[node].pn, &e->pre, &a, p->jobs[job].demand,
                           p->jobs[job].est_task_sec, now_sec, e->takes, e->takes_cap, &delay)
         > 0;
}

/* Moves the head short task of node `from` to the tail of node `to`'s short queue (a
 * stolen probe: it waits there afresh). */
static void
move_head (ebb_pol *p, uint32_t from, uint32_t to)
{
  ebb_priv *e = p->priv;
  ebb_qent x = q_pop (&e->nd[from].sq);
  x.waiting = 0;
  q_push (&e->nd[to].sq, x);
  short_changed (e, from);
  short_changed (e, to);
  p->stats.probes_stolen++;
}

/* The head short task can neither start nor preempt here (the share protects the long
 * work, or short tasks hold the node): rather than wait behind them, it moves to the
 * first of up to steal_cap random nodes with no short queue that could start it now, as
 * Hawk's stealing moves short work away from long work, pushed instead of pulled. */
static uint32_t
relocate (ebb_pol *p, uint32_t node, double now_sec)
{
  ebb_priv *e = p->priv;
  uint32_t n = p->params.nnodes, job = q_front (&e->nd[node].sq)->job;
  for (uint32_t a = 0; a < p->params.steal_cap; a++)
    {
      uint32_t to = (uint32_t)ebb_rng_below (&p->rng, n);
      if (to == node || e->nshort[to] > 0 || !can_start (p, to, job, now_sec))
        continue;
      move_head (p, node, to);
      return to;
    }
  return EBB_POL_NONE;
}

/* The head short task of node does not fit there: before it preempts long work, it moves
 * to an empty node, where it starts at once and suspends nothing. Without this, short tasks
 * sampled onto busy general nodes preempt long work there while the short partition's nodes
 * sit idle, and long work loses the capacity short work leaves unused (doc/ebb-policy.md).
 * Returns the node it moved to, or EBB_POL_NONE. */
static uint32_t
move_to_empty (ebb_pol *p, uint32_t node)
{
  ebb_priv *e = p->priv;
  uint32_t job = q_front (&e->nd[node].sq)->job;
  while (e->nempty > 0)
    {
      uint32_t to = e->empty[ebb_rng_below (&p->rng, e->nempty)];
      /* The set is refreshed when a node is served; a node filled since is dropped here. */
      refresh_idle (e, to);
      if (e->nd[to].epos == UINT32_MAX)
        continue;
      if (to == node || !ebb_pol_res_fits (p->jobs[job].demand, p->node_free[to]))
        return EBB_POL_NONE;
      move_head (p, node, to);
      refresh_idle (e, to);
      return to;
    }
  return EBB_POL_NONE;
}

/* The head short task of node fits on no empty node; before it preempts, it moves to the
 * first of up to steal_cap random nodes with no short queue where it fits now. A task that
 * needs a whole node (a Hawk trace's slot) fits only on an empty node, where move_to_empty
 * has looked: the probes are skipped. Returns the node it moved to, or EBB_POL_NONE. */
static uint32_t
move_to_room (ebb_pol *p, uint32_t node)
{
  ebb_priv *e = p->priv;
  uint32_t n = p->params.nnodes, job = q_front (&e->nd[node].sq)->job;
  ebb_pol_res d = p->jobs[job].demand, cap = p->params.node_cap;
  if (d.cpu_millis >= cap.cpu_millis && d.memory_bytes >= cap.memory_bytes)
    return EBB_POL_NONE;
  for (uint32_t a = 0; a < p->params.steal_cap; a++)
    {
      uint32_t to = (uint32_t)ebb_rng_below (&p->rng, n);
      if (to == node || e->nshort[to] > 0
          || !ebb_pol_res_fits (p->jobs[job].demand, p->node_free[to]))
        continue;
      move_head (p, node, to);
      return to;
    }
  return EBB_POL_NONE;
}

/* Gives preempted tasks their chance; returns 1 when one is still preempted. */
static int
resume_chance (ebb_pol *p, uint32_t node, double now_sec)
{
  ebb_priv *e = p->priv;
  ebb_pre_node *pn = &e->nd[node].pn;
  if (pn->npreempted == 0)
    return 0;
  ensure_takes (e, pn->ntasks + 1);
  /* A long task of a higher tier whose room is being made is short work waiting, as far as
   * the preempted go: they do not take the room back from it. */
  int pending
      = e->nd[node].sq.n > 0 || (e->nd[node].lq.n > 0 && q_front (&e->nd[node].lq)->waiting);
  uint32_t k = ebb_pre_chance (pn, &e->pre, now_sec, pending, e->nidle > 0, e->takes, e->takes_cap);
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

/* Queued long tasks start where they fit, unless tasks are preempted on the node (their
 * room comes back first), except the head a preemption was made for. A head that does not
 * fit preempts the work of lower tiers on the node (tiers: ebb_pre_plan_for). */
static void
serve_long (ebb_pol *p, uint32_t node, int preempted, double now_sec)
{
  ebb_priv *e = p->priv;
  ebb_queue *lq = &e->nd[node].lq;
  while (lq->n > 0)
    {
      ebb_qent *h = q_front (lq);
      if (ebb_pol_res_fits (p->jobs[h->job].demand, p->node_free[node]))
        {
          if (preempted && !h->waiting)
            return;
          launch (p, node, q_pop (lq), now_sec);
          continue;
        }
      /* job_prio_cap: some job has a non-zero tier; without any, a long task preempts
       * nothing and the plan is not worth its scan. */
      if (!h->waiting && p->job_prio_cap > 0)
        preempt_for (p, node, h, now_sec);
      return;
    }
}

/* Everything a node does when something changed on it: short tasks first (preempting long
 * work for the head one, or moving it to a node that can start it), then chances for preempted long
 * tasks, then queued long tasks, then stealing when it has nothing queued. */
static void
serve (ebb_pol *p, uint32_t node, double now_sec)
{
  ebb_priv *e = p->priv;
  ebb_queue *sq = &e->nd[node].sq, *lq = &e->nd[node].lq;
  /* The environment changes capacities without telling the policy (a node registering,
   * draining or lost: 0): the core plans with the node's current one, so nothing is
   * preempted on a node whose room no task may use. */
  e->nd[node].pn.cap = p->node_cap[node];
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
              short_changed (e, node);
              continue;
            }
          if (h->waiting)
            break;
          uint32_t to = move_to_empty (p, node);
          if (to == EBB_POL_NONE)
            to = move_to_room (p, node);
          if (to != EBB_POL_NONE)
            {
              serve (p, to, now_sec);
              continue;
            }
          if (preempt_for (p, node, h, now_sec))
            break;
          to = relocate (p, node, now_sec);
          if (to == EBB_POL_NONE)
            break;
          serve (p, to, now_sec);
        }
      int preempted = resume_chance (p, node, now_sec);
      if (sq->n == 0)
        serve_long (p, node, preempted, now_sec);
      if (round > 0 || sq->n > 0 || lq->n > 0 || p->params.no_steal
          || steal (p, node, now_sec) == 0)
        break;
    }
  refresh_idle (e, node);
  /* Rounds are only needed where nothing else will happen: a preempted task that fits back,
   * waiting out its D rounds on a node with no short work queued (a short task's start or
   * finish, or a reclaim or resume report, brings the next chance itself). */
  if (!e->nd[node].listed && sq->n == 0 && wants_round (&e->nd[node].pn))
    {
      e->nd[node].listed = 1;
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
  if (e->nshort_general == 0)
    {
      /* No general node has short work queued: every attempt would find nothing, so
       * none is drawn (the draws were 17% of ebb's instructions at 10,000 nodes). */
      p->stats.steal_attempts += p->params.steal_cap;
      return 0;
    }
  for (uint32_t a = 0; a < p->params.steal_cap; a++)
    {
      uint32_t victim = g + (uint32_t)ebb_rng_below (&p->rng, n - g);
      p->stats.steal_attempts++;
      if (victim == thief || e->nshort[victim] == 0)
        continue;
      ebb_queue *vq = &e->nd[victim].sq;
      /* Keep the victim's head when its room is being made. */
      uint32_t keep = q_front (vq)->waiting ? 1 : 0, got = 0;
      if (vq->n <= keep)
        continue; /* only that head: the queue would be rebuilt as it is */
      uint32_t limit = p->params.steal_limit;
      /* Rebuilt in place: each entry is taken off the front before one is put back. */
      for (uint32_t i = 0, len = vq->n; i < len; i++)
        {
          ebb_qent x = q_pop (vq);
          if (keep > 0)
            keep--, q_push (vq, x);
          else if (got < limit)
            got++, q_push (&e->nd[thief].sq, x);
          else
            q_push (vq, x);
        }
      short_changed (e, victim);
      short_changed (e, thief);
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
      uint64_t score = 2 * (uint64_t)e->nshort[node]
                       + !ebb_pol_res_fits (p->jobs[job].demand, p->node_free[node]);
      p->stats.probes_sent++;
      if (score < best_score)
        best = node, best_score = score;
    }
  return best;
}

/* Returns 1 when a task of demand d could ever run on node: it fits its capacity. */
static int
holds (const ebb_pol *p, uint32_t node, ebb_pol_res d)
{
  return d.cpu_millis <= p->node_cap[node].cpu_millis
         && d.memory_bytes <= p->node_cap[node].memory_bytes;
}

/* The node for a task of job whose usual node cannot hold it (a heterogeneous or shrunk
 * cluster; rare, so a scan): the one with the least estimated long work (long) or the
 * fewest queued short tasks (short) among those that can. EBB_POL_NONE: none can. */
static uint32_t
holder (ebb_pol *p, uint32_t job)
{
  ebb_priv *e = p->priv;
  const ebb_pol_job *j = &p->jobs[job];
  uint32_t best = EBB_POL_NONE;
  double best_key = 0;
  for (uint32_t i = j->is_long ? e->first_general : 0; i < p->params.nnodes; i++)
    {
      double key = j->is_long ? e->wait_sec[i] : e->nd[i].sq.n;
      if (holds (p, i, j->demand) && (best == EBB_POL_NONE || key < best_key))
        best = i, best_key = key;
    }
  return best;
}

/* Places task k of job (short: sampled; long: central) and serves its node; returns 0 when
 * no node can hold it, leaving it to the caller. */
static int
place_task (ebb_pol *p, double now_sec, uint32_t job, uint32_t k)
{
  ebb_priv *e = p->priv;
  ebb_pol_job *j = &p->jobs[job];
  uint32_t node = j->is_long ? e->wq.s[0].id : pick_short (p, job);
  if (!holds (p, node, j->demand))
    node = holder (p, job);
  if (node == EBB_POL_NONE)
    return 0;
  node_prefetch (p, node);
  if (!j->is_long)
    {
      q_push (&e->nd[node].sq, (ebb_qent){ .job = job, .task = k });
      short_changed (e, node);
    }
  else
    {
      e->wait_sec[node] += j->est_task_sec;
      e->nlong[node]++;
      ebb_pol_iheap_set (&e->wq, node, e->wait_sec[node]);
      q_push (&e->nd[node].lq, (ebb_qent){ .job = job, .task = k });
    }
  serve (p, node, now_sec);
  return 1;
}

static void
park (ebb_priv *e, uint32_t job, uint32_t k)
{
  if (e->nparked == e->parked_cap)
    {
      e->parked_cap = e->parked_cap ? 2 * e->parked_cap : 4;
      e->parked = ebb_xrealloc (e->parked, e->parked_cap * sizeof *e->parked);
    }
  e->parked[e->nparked++] = (ebb_qent){ .job = job, .task = k };
}

/* Parked tasks a node can hold now go to it. */
static void
unpark (ebb_pol *p, double now_sec)
{
  ebb_priv *e = p->priv;
  for (uint32_t i = 0; i < e->nparked;)
    {
      ebb_qent q = e->parked[i];
      if (place_task (p, now_sec, q.job, q.task))
        e->parked[i] = e->parked[--e->nparked];
      else
        i++;
    }
}

static void
ebb_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  ebb_priv *e = p->priv;
  for (uint32_t k = 0; k < p->jobs[job].ntasks; k++)
    if (!place_task (p, now_sec, job, k))
      park (e, job, k);
}

/* A long task of job placed on node (centrally, counted in its estimated long work) is over
 * there: its estimate leaves the node's. */
static void
long_work_done (ebb_pol *p, uint32_t node, uint32_t job)
{
  ebb_priv *e = p->priv;
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
forget_task (ebb_pol *p, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_priv *e = p->priv;
  uint32_t s = ebb_pre_find (&e->nd[node].pn, job, task);
  if (s != UINT32_MAX)
    ebb_pre_remove (&e->nd[node].pn, s);
  long_work_done (p, node, job);
}

/* Takes job's entries off q (the others keep their order); returns how many. */
static uint32_t
q_drop_job (ebb_queue *q, uint32_t job)
{
  uint32_t n = q->n, dropped = 0;
  for (uint32_t i = 0; i < n; i++)
    {
      ebb_qent x = q_pop (q);
      if (x.job == job)
        dropped++;
      else
        q_push (q, x);
    }
  return dropped;
}

/* job failed: its tasks still queued will never run, so they leave every node's queues now
 * (the long ones' estimates with them, as at their end); with its placed tasks gone too,
 * nothing of ebb names the job (ops.forgets_failed_jobs). */
static void
drop_failed (ebb_pol *p, uint32_t job)
{
  ebb_priv *e = p->priv;
  for (uint32_t node = 0; node < p->params.nnodes; node++)
    {
      if (e->nd[node].sq.n == 0 && e->nd[node].lq.n == 0)
        continue;
      q_drop_job (&e->nd[node].sq, job);
      for (uint32_t k = q_drop_job (&e->nd[node].lq, job); k > 0; k--)
        long_work_done (p, node, job);
      short_changed (e, node);
      refresh_idle (e, node);
    }
}

static void
ebb_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  node_prefetch (p, node);
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
      uint32_t s = ebb_pre_find (&e->nd[node].pn, job, task);
      if (s != UINT32_MAX)
        {
          /* Trust what was freed (memory may not be reclaimable): the core's holding. */
          ebb_pre_task *t = &e->nd[node].pn.tasks[s];
          const ebb_pol_task *ct = &p->jobs[job].tasks[task];
          ebb_pre_account (t, &e->pre, now_sec);
          e->nd[node].pn.used.cpu_millis += ct->alloc.cpu_millis - t->given.cpu_millis;
          e->nd[node].pn.used.memory_bytes += ct->alloc.memory_bytes - t->given.memory_bytes;
          int was = ebb_pre_is_preempted (t);
          t->given = ct->alloc;
          e->nd[node].pn.npreempted += ebb_pre_is_preempted (t) - was;
          t->inflight = 0;
        }
      if (e->nd[node].sq.n > 0)
        q_front (&e->nd[node].sq)->waiting = 0;
    }
  serve (p, node, now_sec);
}

static void
ebb_task_resumed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_priv *e = p->priv;
  uint32_t s = ebb_pre_find (&e->nd[node].pn, job, task);
  if (s != UINT32_MAX)
    e->nd[node].pn.tasks[s].inflight = 0;
  serve (p, node, now_sec);
}

/* The operator held the task (its SUSPEND is out: its holding follows the reclaim, as for
 * the policy's own) or released it (its RESUME is out: it holds its demand again, left
 * alone until the agent answers). A held task is neither a victim nor preempted. */
static void
ebb_task_held (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task, int held)
{
  ebb_priv *e = p->priv;
  ebb_pre_node *pn = &e->nd[node].pn;
  uint32_t s = ebb_pre_find (pn, job, task);
  if (s != UINT32_MAX)
    {
      ebb_pre_task *t = &pn->tasks[s];
      ebb_pre_account (t, &e->pre, now_sec);
      int was = ebb_pre_is_preempted (t);
      t->held = (uint8_t)held;
      if (!held)
        {
          pn->used.cpu_millis += t->demand.cpu_millis - t->given.cpu_millis;
          pn->used.memory_bytes += t->demand.memory_bytes - t->given.memory_bytes;
          t->given = t->demand;
          t->inflight = 1; /* until ebb_task_resumed */
        }
      pn->npreempted += ebb_pre_is_preempted (t) - was;
    }
  serve (p, node, now_sec);
}

/* ebb never kills; a task lost on its node is queued again there (or dropped when its job
 * failed, with the job's other queued tasks). */
static void
ebb_task_killed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  ebb_priv *e = p->priv;
  uint32_t s = ebb_pre_find (&e->nd[node].pn, job, task);
  if (s != UINT32_MAX)
    ebb_pre_remove (&e->nd[node].pn, s);
  if (!p->jobs[job].failed)
    {
      q_push (p->jobs[job].is_long ? &e->nd[node].lq : &e->nd[node].sq,
              (ebb_qent){ .job = job, .task = task });
      short_changed (e, node);
    }
  else
    {
      if (p->jobs[job].is_long)
        forget_task (p, node, job, task);
      drop_failed (p, job);
    }
  serve (p, node, now_sec);
}

/* Tasks already running (from before the environment restarted, or work it adopted): on
 * their nodes as if launched there now, victims for short tasks like launched long work,
 * long ones counted in their node's estimated long work like a queued long task. */
static void
ebb_job_adopted (ebb_pol *p, double now_sec, uint32_t job)
{
  ebb_priv *e = p->priv;
  const ebb_pol_job *j = &p->jobs[job];
  for (uint32_t k = 0; k < j->ntasks; k++)
    {
      uint32_t node = j->tasks[k].node;
      if (node == EBB_POL_NONE)
        continue;
      if (j->is_long && node >= e->first_general)
        {
          e->wait_sec[node] += j->est_task_sec;
          e->nlong[node]++;
          ebb_pol_iheap_set (&e->wq, node, e->wait_sec[node]);
        }
      ebb_pre_task t = { .job = job,
                         .task = k,
                         .is_long = j->is_long,
                         .tier = ebb_pol_job_priority (p, job),
                         .demand = j->demand,
                         .est_end_sec = now_sec + j->est_task_sec };
      ebb_pre_add (&e->nd[node].pn, &t);
      refresh_idle (e, node);
    }
}

/* The environment killed job: nothing of it is launched again (failed, as far as the
 * policy goes: its killed tasks are not queued again, and ebb_pol_job_forget takes it once
 * nothing of it is placed), and its queued and parked tasks go now, each node that lost
 * some served at once so the work queued behind them starts. */
static void
ebb_job_cancelled (ebb_pol *p, double now_sec, uint32_t job)
{
  ebb_priv *e = p->priv;
  p->jobs[job].failed = 1;
  for (uint32_t i = 0; i < e->nparked;)
    if (e->parked[i].job == job)
      e->parked[i] = e->parked[--e->nparked];
    else
      i++;
  for (uint32_t node = 0; node < p->params.nnodes; node++)
    {
      if (e->nd[node].sq.n == 0 && e->nd[node].lq.n == 0)
        continue;
      uint32_t k = q_drop_job (&e->nd[node].sq, job), kl = q_drop_job (&e->nd[node].lq, job);
      for (uint32_t i = 0; i < kl; i++)
        long_work_done (p, node, job);
      if (k + kl == 0)
        continue;
      short_changed (e, node);
      serve (p, node, now_sec);
    }
}

/* A round: parked tasks are tried again, and every listed node gets a chance (D counts
 * them). */
static void
ebb_tick (ebb_pol *p, double now_sec)
{
  ebb_priv *e = p->priv;
  if (e->nparked > 0)
    unpark (p, now_sec);
  for (uint32_t i = 0; i < e->nplist;)
    {
      uint32_t node = e->plist[i];
      serve (p, node, now_sec);
      if (e->nd[node].sq.n == 0 && wants_round (&e->nd[node].pn))
        i++;
      else
        {
          e->nd[node].listed = 0;
          e->plist[i] = e->plist[--e->nplist];
        }
    }
}

const ebb_pol_ops ebb_pol_ebb_ops = {
  .name = "ebb",
  .summary = "Hawk's placement; a short task preempts running long work instead of waiting "
             "(a bounded share kept by long work, delayed resumption where memory was taken)",
  .priv_size = sizeof (ebb_priv),
  .init = ebb_init,
  .fini = ebb_fini,
  .job_arrived = ebb_job_arrived,
  .task_finished = ebb_task_finished,
  .tick = ebb_tick,
  .needs_resources = 1,
  .tiers = 1,
  .task_reclaimed = ebb_task_reclaimed,
  .task_resumed = ebb_task_resumed,
  .task_killed = ebb_task_killed,
  .task_held = ebb_task_held,
  .job_adopted = ebb_job_adopted,
  .job_cancelled = ebb_job_cancelled,
  /* A task leaves the queues when launched and its node's list when it ends
   * (forget_task): a finished job is nowhere. */
  .forgets_jobs = 1,
  .forgets_failed_jobs = 1, /* drop_failed */
  .prefetch_node = ebb_prefetch_node,
};
