/* bigc: BIG-C's preemptive fair-share scheduler (Chen et al., "Preemptive, Low Latency
 * Datacenter Scheduling via Lightweight Virtualization", USENIX ATC 2017), in five modes:
 *
 *   fifo     one queue in submission order, no preemption
 *   reserve  two queues; long jobs never hold more than 1 - reserve_share of the cluster
 *   kill     two queues shared by DRF, YARN's capacity scheduler: whole containers killed
 *   ip       the same, containers suspended at once to the footprint (immediate preemption)
 *   gp       graceful preemption: steps of min(r_GP, r_c, p) per container per round
 *
 * Over 700 lines in one file on purpose: the five modes share one private state (queues,
 * running list, books) that placement, resumption and Algorithms 1 and 2 all change; split,
 * that state would become a header every piece writes.
 *
 * Short tasks are placed first, then suspended or shrunk long containers are restored on
 * their own node (delayed resumption D), then long tasks take what is left (work-conserving).
 * Every params.tick_sec (3 s, BIG-C's resource monitor) Algorithm 1 computes the vector p to
 * preempt from the long queue and Algorithm 2 picks the containers. With
 * params.arrival_preempt (the default; off for the paper's figures) a short job that finds no
 * room at its arrival runs the two at once instead of waiting for the round; that pass is
 * not a round: it counts no resumption chance.
 *
 * Algorithm 1 (COMPUTEDR), in integer arithmetic. f_l = long share x capacity; a = r_l - f_l;
 * r_s is the pending short demand not covered by free room or reclaims already under way.
 * p = r_s when it fits in a; else the short demand's dominant resource is reclaimed up to a,
 * and the other one only in r_s's ratio, capped by a (no fragmentation, paper section 4.3).
 *
 * Algorithm 2. Long jobs by longest remaining time first (estimated task runtime x tasks not
 * finished); inside a job, containers with the largest allocation (dominant share) first.
 * kill and ip take whole containers, gp one step each per round; stop once p's dominant
 * resource is met.
 *
 * Footprint: not booked by default (book_footprint none: a suspended container holds
 * nothing in the resource manager's books, as in the authors' code); --footprint-* still
 * say what the agent leaves it.
 *
 * Working-set model (gp): a container needs working_set x its memory demand to run without
 * swapping. A step that leaves it below that freezes it, as BIG-C's container monitor does
 * when it sees swapping: the step's memory is taken, its CPU goes (the paper's 1% is not
 * modelled), it keeps the rest of its memory, and it is left out of further rounds until it
 * is restored.
 *
 * Authors' dampers (yncxcw/big-c, ProportionalCapacityPreemptionPolicy), off by default:
 * natural_term scales p (their natural termination factor, 0.2), max_round_share caps p at a
 * share of the cluster per round (their total preemption per round, 10%).
 *
 * Priority tiers (issue 23; only once some job has a non-zero priority): a pass places,
 * restores and preempts tier by tier from the highest, and stops at the first tier with a
 * task that did not fit, so a lower tier never takes a higher one's room. A round first
 * makes room for waiting tasks by taking whole long containers of lower tiers
 * (policies/bigc-tier.c), then runs Algorithms 1 and 2 within each tier.
 *
 * Books kept on change, not rescanned per event (issue 21: 500,000 jobs on 15,000 nodes):
 * the nodes by free CPU and their free total (policies/bigc-books.c), the long containers
 * that may wait to be restored per node and the candidates for resumption, and the long
 * containers' use and reclaims (long_account: per task, what it added, so each change
 * moves the sums by its difference). The decisions are those of the full scans
 * (bench/sim-same.sh); with tiers, long_state and node_reclaiming still scan (a pass reads
 * one tier's sums). */
#include "config.h"

#include "policies/bigc.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

typedef struct bigc_priv
{
  uint32_t *queue; /* jobs with tasks not launched, in arrival order */
  uint32_t nqueue, qcap;
  uint32_t *cursor; /* per job: lowest task index that may be pending */
  uint64_t *rank;   /* per job: its place in the running list (arrival order of long jobs) */
  /* Per job of the running list: per task, what it adds to long_use and long_asked (alloc
   * and pending) and the node it adds pending to in node_asked (3 x ntasks), kept on each
   * change so long_state and node_reclaiming read sums instead of scanning. */
  ebb_pol_res **acct;
  ebb_pol_res long_use, long_asked;
  ebb_pol_res *node_asked;
  uint32_t jcap;
  uint64_t next_rank;
  uint32_t *running; /* long jobs that arrived (candidates for preemption) */
  uint32_t nrunning, rcap;
  ebb_pol_res cap;          /* whole cluster */
  ebb_pol_bigc_nodes nodes; /* by free CPU (policies/bigc-books.c) */
  /* Per node: the long containers there that may wait to be restored (reclaimed or
   * adopted); resumable: those of them whose node had the room they lack when last looked
   * at, by (rank, task); rdirty: the nodes whose free room changed since. */
  ebb_pol_bigc_refs *bynode;
  ebb_pol_bigc_refs resumable;
  uint32_t *rdirty, nrdirty, rcap_seen;
  uint8_t *is_rdirty;
  int in_pass;
  /* Demands no node could take in this pass: free room only shrinks during a pass, so a
   * demand at least as large fails too and needs no scan of the nodes. */
  ebb_pol_res failed[8];
  uint32_t nfailed;
  ebb_pol_res booked_fp; /* ebb_pol_booked_footprint */
  /* Tiers (only once some job has a non-zero priority): a pass or a round works on one tier
   * at a time, highest first; tier_sel says whether `tier` filters the jobs it reads. */
  int tier_sel;
  int32_t tier;
} bigc_priv;

typedef struct victim
{
  uint32_t task;
  __int128 key;
} victim;

static int64_t
min64 (int64_t a, int64_t b)
{
  return a < b ? a : b;
}

static ebb_pol_res
res_clamp0 (ebb_pol_res a)
{
  return (ebb_pol_res){ a.cpu_millis > 0 ? a.cpu_millis : 0,
                        a.memory_bytes > 0 ? a.memory_bytes : 0 };
}

/* 1 when x's CPU share of cap is at least its memory share (CPU dominant). */
static int
cpu_dominant (ebb_pol_res x, ebb_pol_res cap)
{
  if (cap.memory_bytes <= 0)
    return 1;
  if (cap.cpu_millis <= 0)
    return 0;
  return (__int128)x.cpu_millis * cap.memory_bytes >= (__int128)x.memory_bytes * cap.cpu_millis;
}

ebb_pol_res
ebb_pol_bigc_computedr (ebb_pol_res rs, ebb_pol_res a, ebb_pol_res cap)
{
  rs = res_clamp0 (rs);
  a = res_clamp0 (a);
  ebb_pol_res p = { 0, 0 };
  if (rs.cpu_millis == 0 && rs.memory_bytes == 0)
    return p;
  if (cpu_dominant (rs, cap))
    {
      p.cpu_millis = min64 (rs.cpu_millis, a.cpu_millis);
      int64_t m = (int64_t)((__int128)p.cpu_millis * rs.memory_bytes / rs.cpu_millis);
      p.memory_bytes = min64 (m, a.memory_bytes);
    }
  else
    {
      p.memory_bytes = min64 (rs.memory_bytes, a.memory_bytes);
      int64_t c = (int64_t)((__int128)p.memory_bytes * rs.cpu_millis / rs.memory_bytes);
      p.cpu_millis = min64 (c, a.cpu_millis);
    }
  return p;
}

ebb_pol_res
ebb_pol_bigc_alg1 (ebb_pol_res rl, ebb_pol_res rs, ebb_pol_res cap, double long_share)
{
  /* f_l in integer arithmetic: the share in parts per million. */
  int64_t ppm = (int64_t)llround (long_share * 1000000.0);
  ebb_pol_res fl = { (int64_t)((__int128)cap.cpu_millis * ppm / 1000000),
                     (int64_t)((__int128)cap.memory_bytes * ppm / 1000000) };
  ebb_pol_res a = rl;
  ebb_pol_res_sub (&a, fl);
  a = res_clamp0 (a);
  rs = res_clamp0 (rs);
  if (rs.cpu_millis == 0 && rs.memory_bytes == 0)
    return rs;
  if (ebb_pol_res_fits (rs, a))
    return rs;
  return ebb_pol_bigc_computedr (rs, a, cap);
}

static int
bigc_init (ebb_pol *p, ebb_error **err)
{
  bigc_priv *b = p->priv;
  if (p->params.bigc_mode > EBB_POL_BIGC_GP)
    return ebb_error_set (err, EBB_ERANGE, "bigc: unknown mode %u", p->params.bigc_mode);
  if (p->params.tick_sec <= 0)
    p->params.tick_sec = 3.0;
  /* BIG-C's resource manager counts a preempted container at what it still holds for YARN:
   * a round takes min(p, min(current used, unit)), down to nothing (yncxcw/big-c,
   * ProportionalCapacityPreemptionPolicy.preemptFrom). The 1% CPU and the pages a suspended
   * container keeps live outside YARN's accounting, so they must not keep room from short
   * tasks: a suspended <8 CPU> container frees room for two <4 CPU> short tasks, and on
   * one-CPU slots (a Hawk trace) a suspended task frees its slot. */
  if (p->params.book_footprint == EBB_POL_BOOK_DEFAULT)
    p->params.book_footprint = EBB_POL_BOOK_NONE;
  b->booked_fp = ebb_pol_booked_footprint (p);
  for (uint32_t i = 0; i < p->params.nnodes; i++)
    ebb_pol_res_add (&b->cap, p->node_cap[i]);
  ebb_pol_bigc_nodes_init (&b->nodes, p);
  b->bynode = ebb_xcalloc (p->params.nnodes, sizeof *b->bynode);
  b->node_asked = ebb_xcalloc (p->params.nnodes, sizeof *b->node_asked);
  b->rdirty = ebb_xmalloc (sizeof *b->rdirty * ((size_t)p->params.nnodes + 1));
  b->is_rdirty = ebb_xcalloc ((size_t)p->params.nnodes + 1, 1);
  b->rcap_seen = p->cap_changes;
  return 0;
}

static void
bigc_fini (ebb_pol *p)
{
  bigc_priv *b = p->priv;
  free (b->queue);
  free (b->cursor);
  free (b->running);
  for (uint32_t i = 0; i < b->jcap; i++)
    free (b->acct[i]);
  free (b->acct);
  free (b->rank);
  for (uint32_t n = 0; b->bynode && n < p->params.nnodes; n++)
    free (b->bynode[n].v);
  free (b->bynode);
  free (b->node_asked);
  free (b->resumable.v);
  free (b->rdirty);
  free (b->is_rdirty);
  ebb_pol_bigc_nodes_fini (&b->nodes);
}

static int
is_short (const ebb_pol *p, uint32_t job)
{
  return p->params.bigc_mode != EBB_POL_BIGC_FIFO && !p->jobs[job].is_long;
}

/* Some job has a non-zero tier (job_prio_cap grows only then): without, no pass pays for
 * tiers and the decisions are BIG-C's alone. */
static int
tiers_on (const ebb_pol *p)
{
  return p->job_prio_cap > 0;
}

/* 1 when job belongs to the tier the pass works on (every job, outside a tiered pass). */
static int
in_sel (const ebb_pol *p, uint32_t job)
{
  const bigc_priv *b = p->priv;
  return !b->tier_sel || ebb_pol_job_priority (p, job) == b->tier;
}

/* Returns a node where demand fits, preferring the node with the most free room of the
 * dominant resource (spreads load as YARN's heartbeat order does on average), or NONE. */
static uint32_t
find_node (ebb_pol *p, ebb_pol_res demand)
{
  bigc_priv *b = p->priv;
  return ebb_pol_bigc_nodes_best (&b->nodes, p, demand);
}

/* 1 when task k of job j is suspended or shrunk: it waits to be restored. */
static int
restorable (const ebb_pol_job *j, const ebb_pol_task *k)
{
  return k->state == EBB_POL_TASK_SUSPENDED
         || (k->state == EBB_POL_TASK_RUNNING && !ebb_pol_res_fits (j->demand, k->alloc));
}

/* 1 when entry r (of a node's list or the candidates) still names a container of a long
 * job of the running list (its id was not reused) that waits to be restored. */
static int
touched_waits (const ebb_pol *p, const ebb_pol_bigc_ref *r)
{
  const bigc_priv *b = p->priv;
  if (r->job >= b->jcap || b->rank[r->job] != r->rank)
    return 0;
  const ebb_pol_job *j = &p->jobs[r->job];
  return r->task < j->ntasks && restorable (j, &j->tasks[r->task]);
}

/* node's free room changed: its key in the heap and its containers' room to resume. */
static void
node_changed (bigc_priv *b, uint32_t node)
{
  ebb_pol_bigc_nodes_mark (&b->nodes, node);
  if (!b->is_rdirty[node])
    {
      b->is_rdirty[node] = 1;
      b->rdirty[b->nrdirty++] = node;
    }
}

/* Container task of job (on its node) may wait to be restored from now on. */
static void
touched_add (bigc_priv *b, const ebb_pol *p, uint32_t job, uint32_t task)
{
  uint32_t node = p->jobs[job].tasks[task].node;
  ebb_pol_bigc_refs_add (&b->bynode[node], b->rank[job], job, task);
  node_changed (b, node);
}

/* 1 when a long container of the pass's tier or above waits to be restored on node (new
 * long work keeps off it). */
static int
node_waiting (const ebb_pol *p, uint32_t node)
{
  const bigc_priv *b = p->priv;
  const ebb_pol_bigc_refs *l = &b->bynode[node];
  for (uint32_t i = 0; i < l->n; i++)
    {
      const ebb_pol_bigc_ref *r = &l->v[i];
      if (touched_waits (p, r) && p->jobs[r->job].tasks[r->task].node == node
          && (!b->tier_sel || ebb_pol_job_priority (p, r->job) >= b->tier))
        return 1;
    }
  return 0;
}

/* The room a container lacks (its demand less what it holds) is free on its node. */
static int
lack_fits (const ebb_pol *p, uint32_t job, uint32_t task)
{
  const ebb_pol_job *j = &p->jobs[job];
  const ebb_pol_task *k = &j->tasks[task];
  ebb_pol_res lack = j->demand;
  ebb_pol_res_sub (&lack, k->alloc);
  return ebb_pol_res_fits (lack, p->node_free[k->node]);
}

/* Looks again at the containers of the nodes whose room changed (after a change of
 * capacity: of every node): those that wait to be restored, with no reclaim under way and
 * the room they lack free, become candidates; the others leave the node's list unless they
 * still wait. A container not looked at did not change, nor did its node's room: it would
 * fail resume_pass's checks as it did. Tiers change nothing here: a candidate of another
 * tier than the pass's stays one, unchecked. */
static void
resumable_refresh (ebb_pol *p)
{
  bigc_priv *b = p->priv;
  if (b->rcap_seen != p->cap_changes)
    {
      b->rcap_seen = p->cap_changes;
      for (uint32_t n = 0; n < p->params.nnodes; n++)
        node_changed (b, n);
    }
  for (uint32_t i = 0; i < b->nrdirty; i++)
    {
      uint32_t n = b->rdirty[i], w = 0;
      ebb_pol_bigc_refs *l = &b->bynode[n];
      b->is_rdirty[n] = 0;
      for (uint32_t e = 0; e < l->n; e++)
        {
          const ebb_pol_bigc_ref r = l->v[e];
          if (!touched_waits (p, &r) || p->jobs[r.job].tasks[r.task].node != n)
            continue;
          l->v[w++] = r;
          if (!p->jobs[r.job].tasks[r.task].inflight && lack_fits (p, r.job, r.task))
            ebb_pol_bigc_refs_add (&b->resumable, r.rank, r.job, r.task);
        }
      l->n = w;
    }
  b->nrdirty = 0;
}

/* Container task of job changed (placed, given back, restored, ended): its part of
 * long_use and long_asked follows. Jobs outside the running list have no part. */
static void
long_account (ebb_pol *p, uint32_t job, uint32_t task)
{
  bigc_priv *b = p->priv;
  if (job >= b->jcap || !b->acct[job])
    return;
  const ebb_pol_task *k = &p->jobs[job].tasks[task];
  ebb_pol_res a = { 0, 0 }, q = { 0, 0 };
  uint32_t node = EBB_POL_NONE;
  if (k->node != EBB_POL_NONE && k->state != EBB_POL_TASK_DONE && k->state != EBB_POL_TASK_FAILED)
    a = k->alloc, q = k->pending, node = k->node;
  ebb_pol_res *was = &b->acct[job][1 + 3 * (size_t)task];
  ebb_pol_res_sub (&b->long_use, was[0]);
  ebb_pol_res_sub (&b->long_asked, was[1]);
  if (was[2].cpu_millis != EBB_POL_NONE)
    ebb_pol_res_sub (&b->node_asked[was[2].cpu_millis], was[1]);
  ebb_pol_res_add (&b->long_use, a);
  ebb_pol_res_add (&b->long_asked, q);
  if (node != EBB_POL_NONE)
    ebb_pol_res_add (&b->node_asked[node], q);
  was[0] = a, was[1] = q, was[2].cpu_millis = node;
}

/* job leaves the running list (or its id is used again): its part goes. acct[job][0]
 * holds the number of tasks it was made for. */
static void
long_release (bigc_priv *b, uint32_t job)
{
  if (job >= b->jcap || !b->acct[job])
    return;
  ebb_pol_res *v = b->acct[job];
  for (int64_t t = 0; t < v[0].cpu_millis; t++)
    {
      ebb_pol_res_sub (&b->long_use, v[1 + 3 * t]);
      ebb_pol_res_sub (&b->long_asked, v[2 + 3 * t]);
      if (v[3 + 3 * t].cpu_millis != EBB_POL_NONE)
        ebb_pol_res_sub (&b->node_asked[v[3 + 3 * t].cpu_millis], v[2 + 3 * t]);
    }
  free (v);
  b->acct[job] = NULL;
}

/* job joins the running list: its parts, all zero until accounted. */
static void
long_track (ebb_pol *p, uint32_t job)
{
  bigc_priv *b = p->priv;
  long_release (b, job);
  uint32_t n = p->jobs[job].ntasks;
  b->acct[job] = ebb_xcalloc (1 + 3 * (size_t)n, sizeof *b->acct[job]);
  b->acct[job][0].cpu_millis = n;
  for (uint32_t t = 0; t < n; t++)
    b->acct[job][3 + 3 * (size_t)t].cpu_millis = EBB_POL_NONE;
}

/* Sums over the long jobs' placed containers of the pass's tier: what they hold (use) and
 * what was asked from them and is not free yet (reclaiming); asked_all (may be NULL): that
 * over every tier. */
static void
long_state (ebb_pol *p, ebb_pol_res *use, ebb_pol_res *reclaiming, ebb_pol_res *asked_all)
{
  bigc_priv *b = p->priv;
  if (!tiers_on (p))
    {
      /* Every job is of the pass's tier: the sums kept by long_account. */
      *use = b->long_use;
      *reclaiming = b->long_asked;
      if (asked_all)
        *asked_all = b->long_asked;
      return;
    }
  ebb_pol_res all = { 0, 0 };
  *use = *reclaiming = (ebb_pol_res){ 0, 0 };
  for (uint32_t i = 0; i < b->nrunning; i++)
    {
      const ebb_pol_job *j = &p->jobs[b->running[i]];
      int sel = in_sel (p, b->running[i]);
      for (uint32_t t = 0; t < j->ntasks; t++)
        {
          const ebb_pol_task *k = &j->tasks[t];
          if (k->node == EBB_POL_NONE || k->state == EBB_POL_TASK_DONE
              || k->state == EBB_POL_TASK_FAILED)
            continue;
          if (sel)
            {
              ebb_pol_res_add (use, k->alloc);
              ebb_pol_res_add (reclaiming, k->pending);
            }
          ebb_pol_res_add (&all, k->pending);
        }
    }
  if (asked_all)
    *asked_all = all;
}

/* Launches what fits of job's pending tasks; returns 1 when some task did not fit. */
static int
place_job (ebb_pol *p, uint32_t job, int is_long_pass, ebb_pol_res *long_room)
{
  bigc_priv *b = p->priv;
  ebb_pol_job *j = &p->jobs[job];
  if (j->failed)
    return 0;
  for (uint32_t t = b->cursor[job]; t < j->ntasks; t++)
    {
      ebb_pol_task *k = &j->tasks[t];
      if (k->state != EBB_POL_TASK_PENDING)
        {
          if (t == b->cursor[job])
            b->cursor[job]++;
          continue;
        }
      if (long_room && !ebb_pol_res_fits (j->demand, *long_room))
        return 1;
      uint32_t node = EBB_POL_NONE;
      int known_fail = 0;
      for (uint32_t f = 0; f < b->nfailed && !known_fail; f++)
        known_fail = ebb_pol_res_fits (b->failed[f], j->demand);
      if (!known_fail)
        {
          node = find_node (p, j->demand);
          if (node == EBB_POL_NONE && b->nfailed < EBB_ARRAY_SIZE (b->failed))
            b->failed[b->nfailed++] = j->demand;
        }
      if (node != EBB_POL_NONE && is_long_pass && p->params.bigc_mode >= EBB_POL_BIGC_KILL
          && node_waiting (p, node))
        node = EBB_POL_NONE; /* keep the room for the container suspended there */
      if (node == EBB_POL_NONE)
        return 1;
      ebb_pol_launch_res (p, node, job, t, p->params.net_delay_sec);
      node_changed (b, node);
      long_account (p, job, t);
      if (long_room)
        ebb_pol_res_sub (long_room, j->demand);
      if (t == b->cursor[job])
        b->cursor[job]++;
    }
  return 0;
}

static void
queue_compact (bigc_priv *b, const ebb_pol *p)
{
  uint32_t w = 0;
  for (uint32_t i = 0; i < b->nqueue; i++)
    {
      const ebb_pol_job *j = &p->jobs[b->queue[i]];
      if (!j->failed && j->launched < j->ntasks)
        b->queue[w++] = b->queue[i];
    }
  b->nqueue = w;
}

/* Total demand of short tasks not launched yet. */
static ebb_pol_res
short_pending (const ebb_pol *p)
{
  const bigc_priv *b = p->priv;
  ebb_pol_res s = { 0, 0 };
  for (uint32_t i = 0; i < b->nqueue; i++)
    {
      const ebb_pol_job *j = &p->jobs[b->queue[i]];
      if (is_short (p, b->queue[i]) && in_sel (p, b->queue[i]) && !j->failed
          && j->launched < j->ntasks)
        {
          s.cpu_millis += j->demand.cpu_millis * (int64_t)(j->ntasks - j->launched);
          s.memory_bytes += j->demand.memory_bytes * (int64_t)(j->ntasks - j->launched);
        }
    }
  return s;
}

/* The demand of the first short job with tasks not launched yet (none: zero). */
static ebb_pol_res
short_head (const ebb_pol *p)
{
  const bigc_priv *b = p->priv;
  for (uint32_t i = 0; i < b->nqueue; i++)
    {
      const ebb_pol_job *j = &p->jobs[b->queue[i]];
      if (is_short (p, b->queue[i]) && in_sel (p, b->queue[i]) && !j->failed
          && j->launched < j->ntasks)
        return j->demand;
    }
  return (ebb_pol_res){ 0, 0 };
}

/* What the long containers on node are still asked to give (reclaims under way). */
static ebb_pol_res
node_reclaiming (const ebb_pol *p, uint32_t node)
{
  const bigc_priv *b = p->priv;
  if (!tiers_on (p))
    return b->node_asked[node]; /* kept by long_account */
  ebb_pol_res r = { 0, 0 };
  for (uint32_t i = 0; i < b->nrunning; i++)
    {
      const ebb_pol_job *j = &p->jobs[b->running[i]];
      for (uint32_t t = 0; t < j->ntasks; t++)
        {
          const ebb_pol_task *k = &j->tasks[t];
          if (k->node == node && k->state != EBB_POL_TASK_DONE && k->state != EBB_POL_TASK_FAILED)
            ebb_pol_res_add (&r, k->pending);
        }
    }
  return r;
}

/* Tops one component of a step up so that the victim's node holds a short task's `unit`
 * after it: what the node has free, plus what is asked there already, plus the step; never
 * above `cap` (the victim's room, and r_GP). Only a component the step takes at all. */
static int64_t
step_topup (int64_t step, int64_t unit, int64_t node_free, int64_t asked, int64_t cap)
{
  if (step <= 0 || step >= cap)
    return step;
  int64_t have = (node_free > 0 ? node_free : 0) + asked + step;
  if (have >= unit)
    return step;
  return min64 (step + (unit - have), cap);
}

/* Restores suspended or shrunk long containers on their own node after D chances there with
 * room (a chance: one round of the resource monitor, BIG-C's node heartbeat). D is skipped
 * when the cluster has spare room: no short task waits and the free room on the other nodes
 * could take the container's demand, so resuming it cannot make a short task wait. `count`
 * says whether this pass is a round (counts chances) or a placement after an event. */
static void
resume_pass (ebb_pol *p, int count, int short_waiting)
{
  bigc_priv *b = p->priv;
  ebb_pol_res free_all = { 0, 0 };
  int have_free_all = 0; /* summed over the nodes only when a container could resume */
  /* The candidates only (resumable_refresh), in the running list's order; one that fails a
   * check now leaves them until its node's room changes. */
  resumable_refresh (p);
  uint32_t w = 0;
  for (uint32_t i = 0; i < b->resumable.n; i++)
    {
      ebb_pol_bigc_ref r = b->resumable.v[i];
      uint32_t job = r.job, t = r.task;
      if (!touched_waits (p, &r))
        continue;
      ebb_pol_job *j = &p->jobs[job];
      ebb_pol_task *k = &j->tasks[t];
      if (!in_sel (p, job))
        {
          b->resumable.v[w++] = r;
          continue;
        }
      if (k->inflight || k->held || !lack_fits (p, job, t))
        continue; /* a reclaim under way, the operator's (ebb_pol_task_hold: its release
                   * resumes it), or no room */
      if (!have_free_all)
        {
          free_all = ebb_pol_bigc_nodes_free (&b->nodes, p);
          have_free_all = 1;
        }
      ebb_pol_res elsewhere = free_all;
      ebb_pol_res_sub (&elsewhere, res_clamp0 (p->node_free[k->node]));
      int spare = !short_waiting && ebb_pol_res_fits (j->demand, elsewhere);
      if (!spare && k->tries < p->params.resume_tries)
        {
          if (count)
            k->tries++;
          b->resumable.v[w++] = r;
          continue;
        }
      ebb_pol_res lack = j->demand;
      ebb_pol_res_sub (&lack, k->alloc);
      ebb_pol_res_sub (&free_all, lack);
      ebb_pol_resume (p, job, t);
      node_changed (b, k->node);
      long_account (p, job, t);
    }
  b->resumable.n = w;
}

/* One scheduling pass over the jobs of the pass's tier (every job without tiers): short
 * tasks first, then restorations, then long tasks. Returns 1 when a task of the tier did not
 * fit: lower tiers then neither start nor resume (their room is the tier's). */
static int
schedule_tier (ebb_pol *p, int count)
{
  bigc_priv *b = p->priv;
  uint32_t mode = p->params.bigc_mode;
  int blocked = 0;
  if (mode == EBB_POL_BIGC_FIFO)
    {
      for (uint32_t i = 0; i < b->nqueue; i++)
        if (in_sel (p, b->queue[i]))
          blocked |= place_job (p, b->queue[i], 0, NULL);
      return blocked;
    }
  int short_blocked = 0;
  for (uint32_t i = 0; i < b->nqueue; i++)
    if (is_short (p, b->queue[i]) && in_sel (p, b->queue[i]))
      short_blocked |= place_job (p, b->queue[i], 0, NULL);
  if (mode >= EBB_POL_BIGC_KILL)
    resume_pass (p, count, short_blocked);
  if (short_blocked)
    return 1;
  ebb_pol_res room = { INT64_MAX, INT64_MAX }, use, reclaiming;
  if (mode == EBB_POL_BIGC_RESERVE)
    {
      long_state (p, &use, &reclaiming, NULL);
      /* Long jobs keep to 1 - reserve_share of the cluster. */
      double ls = 1.0 - p->params.reserve_share;
      room.cpu_millis = (int64_t)(b->cap.cpu_millis * ls) - use.cpu_millis;
      room.memory_bytes = (int64_t)(b->cap.memory_bytes * ls) - use.memory_bytes;
    }
  for (uint32_t i = 0; i < b->nqueue; i++)
    if (!is_short (p, b->queue[i]) && in_sel (p, b->queue[i]))
      blocked |= place_job (p, b->queue[i], 1, mode == EBB_POL_BIGC_RESERVE ? &room : NULL);
  return blocked;
}

static int
cmp_tier_desc (const void *x, const void *y)
{
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return a > b ? -1 : a < b;
}

/* The tiers of the queued and the running jobs, highest first, each once; their number in
 * *n. The caller frees the array. */
static int32_t *
tiers_desc (const ebb_pol *p, uint32_t *n)
{
  const bigc_priv *b = p->priv;
  int32_t *v = ebb_xmalloc (sizeof *v * ((size_t)b->nqueue + b->nrunning + 1));
  uint32_t m = 0, w = 0;
  for (uint32_t i = 0; i < b->nqueue; i++)
    v[m++] = ebb_pol_job_priority (p, b->queue[i]);
  for (uint32_t i = 0; i < b->nrunning; i++)
    v[m++] = ebb_pol_job_priority (p, b->running[i]);
  qsort (v, m, sizeof *v, cmp_tier_desc);
  for (uint32_t i = 0; i < m; i++)
    if (w == 0 || v[w - 1] != v[i])
      v[w++] = v[i];
  *n = w;
  return v;
}

/* One scheduling pass: with tiers, tier by tier from the highest, down to the first tier
 * with a task that did not fit. */
static void
schedule (ebb_pol *p, int count)
{
  bigc_priv *b = p->priv;
  if (b->in_pass)
    return;
  b->in_pass = 1;
  b->nfailed = 0;
  if (!tiers_on (p))
    schedule_tier (p, count);
  else
    {
      uint32_t nt;
      cleanup_free int32_t *tiers = tiers_desc (p, &nt);
      b->tier_sel = 1;
      for (uint32_t i = 0; i < nt; i++)
        {
          b->tier = tiers[i];
          if (schedule_tier (p, count))
            break;
        }
      b->tier_sel = 0;
    }
  queue_compact (b, p);
  b->in_pass = 0;
}

/* Makes room for job's cursor (the next task to place). */
static void
cursor_reserve (bigc_priv *b, uint32_t job)
{
  if (job >= b->jcap)
    {
      uint32_t cap = (uint32_t)ebb_grow_cap (b->jcap, 1024, (uint64_t)job + 1);
      b->cursor = ebb_xrealloc (b->cursor, sizeof *b->cursor * cap);
      b->rank = ebb_xrealloc (b->rank, sizeof *b->rank * cap);
      memset (b->rank + b->jcap, 0, sizeof *b->rank * (cap - b->jcap));
      b->acct = ebb_xrealloc (b->acct, sizeof *b->acct * cap);
      memset (b->acct + b->jcap, 0, sizeof *b->acct * (cap - b->jcap));
      b->jcap = cap;
    }
}

/* Adds a long job to the candidates for preemption, with its rank (1, 2, ...: 0 is none). */
static void
running_add (ebb_pol *p, uint32_t job)
{
  bigc_priv *b = p->priv;
  b->rank[job] = ++b->next_rank;
  long_track (p, job);
  if (b->nrunning == b->rcap)
    {
      b->rcap = b->rcap ? b->rcap * 2 : 256;
      b->running = ebb_xrealloc (b->running, sizeof *b->running * b->rcap);
    }
  b->running[b->nrunning++] = job;
}

static void drop_done_long (ebb_pol *p);
static void preempt_pass (ebb_pol *p);

static void
bigc_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  (void)now_sec;
  bigc_priv *b = p->priv;
  cursor_reserve (b, job);
  b->cursor[job] = 0;
  b->rank[job] = 0;
  long_release (b, job);
  if (p->jobs[job].ntasks == 0)
    return;
  if (b->nqueue == b->qcap)
    {
      b->qcap = b->qcap ? b->qcap * 2 : 256;
      b->queue = ebb_xrealloc (b->queue, sizeof *b->queue * b->qcap);
    }
  b->queue[b->nqueue++] = job;
  if (p->jobs[job].is_long)
    running_add (p, job);
  schedule (p, 0);
  /* BIG-C decides preemption only in the resource monitor's rounds, so a short job that
   * found no room waits for the next one (1.5 s on average at 3 s). With arrival_preempt
   * its arrival runs the round's preemption at once, without the round's schedule: it
   * gives no resumption chance (D counts rounds only). */
  const ebb_pol_job *j = &p->jobs[job];
  int urgent = is_short (p, job) || (tiers_on (p) && ebb_pol_job_priority (p, job) != 0);
  if (p->params.arrival_preempt && urgent && !j->failed && j->launched < j->ntasks)
    {
      drop_done_long (p);
      preempt_pass (p);
    }
}

/* Containers that ran before the environment restarted: all launched; a long job is a
 * candidate for preemption like one that arrived. */
static void
bigc_job_adopted (ebb_pol *p, double now_sec, uint32_t job)
{
  (void)now_sec;
  bigc_priv *b = p->priv;
  cursor_reserve (b, job);
  b->cursor[job] = p->jobs[job].ntasks;
  b->rank[job] = 0;
  long_release (b, job);
  if (p->jobs[job].is_long && p->jobs[job].ntasks > 0)
    running_add (p, job);
  const ebb_pol_job *j = &p->jobs[job];
  for (uint32_t t = 0; t < j->ntasks; t++)
    if (j->tasks[t].node != EBB_POL_NONE)
      {
        long_account (p, job, t);
        /* The environment may set what it found (suspended, shrunk) after this. */
        if (j->is_long)
          touched_add (b, p, job, t);
        else
          node_changed (b, j->tasks[t].node);
      }
}

static void
drop_done_long (ebb_pol *p)
{
  bigc_priv *b = p->priv;
  uint32_t w = 0;
  for (uint32_t i = 0; i < b->nrunning; i++)
    {
      const ebb_pol_job *j = &p->jobs[b->running[i]];
      uint32_t was = w;
      if (j->finished < j->ntasks && !j->failed)
        b->running[w++] = b->running[i];
      else if (j->failed)
        {
          /* A failed job's containers still running are ended: the job will not complete. */
          for (uint32_t t = 0; t < j->ntasks; t++)
            if (j->tasks[t].node != EBB_POL_NONE && j->tasks[t].state != EBB_POL_TASK_DONE
                && j->tasks[t].state != EBB_POL_TASK_FAILED)
              b->running[w++] = b->running[i], t = j->ntasks;
        }
      if (w == was)
        long_release (b, b->running[i]);
    }
  b->nrunning = w;
}

/* Removes job from the list v of n jobs (order kept); returns the new count. */
static uint32_t
list_remove (uint32_t *v, uint32_t n, uint32_t job)
{
  uint32_t w = 0;
  for (uint32_t i = 0; i < n; i++)
    if (v[i] != job)
      v[w++] = v[i];
  return w;
}

/* Its last task finished, or it failed and nothing of it is placed any more: the job leaves
 * the queue and the running list now rather than at the next pass or round (such a job
 * changes nothing they decide), so nothing of bigc reads it any more and the environment
 * may forget it (ops.forgets_jobs, ops.forgets_failed_jobs). */
static void
drop_if_over (ebb_pol *p, uint32_t job)
{
  bigc_priv *b = p->priv;
  const ebb_pol_job *j = &p->jobs[job];
  if (j->finished >= j->ntasks || (j->failed && ebb_pol_job_placed (p, job) == 0))
    {
      b->nrunning = list_remove (b->running, b->nrunning, job);
      b->nqueue = list_remove (b->queue, b->nqueue, job);
      long_release (b, job);
    }
}

static void
bigc_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  (void)now_sec, (void)task;
  bigc_priv *b = p->priv;
  node_changed (b, node);
  long_account (p, job, task);
  drop_if_over (p, job);
  schedule (p, 0);
}

/* Sorting keys: longest remaining time first; largest allocation first. */
static int
cmp_victim (const void *x, const void *y)
{
  const victim *a = x, *b = y;
  if (a->key != b->key)
    return a->key > b->key ? -1 : 1;
  return a->task < b->task ? -1 : a->task > b->task;
}

/* The running long jobs that can give resources back, longest remaining time first; their
 * number in *n. The caller frees the array. */
static victim *
jobs_by_remaining (const ebb_pol *p, uint32_t *n)
{
  const bigc_priv *b = p->priv;
  victim *jobs = ebb_xmalloc (sizeof *jobs * (b->nrunning + 1));
  uint32_t nj = 0;
  for (uint32_t i = 0; i < b->nrunning; i++)
    {
      const ebb_pol_job *j = &p->jobs[b->running[i]];
      if (j->failed || !in_sel (p, b->running[i]))
        continue;
      /* Remaining time: estimated task runtime x tasks not finished, in milliseconds. */
      jobs[nj++] = (victim){ .task = b->running[i],
                             .key = (__int128)llround (j->est_task_sec * 1000.0)
                                    * (j->ntasks - j->finished) };
    }
  qsort (jobs, nj, sizeof *jobs, cmp_victim);
  *n = nj;
  return jobs;
}

/* The running, unfrozen containers of job j with room to give (above what they already
 * give back and the footprint) on a node that can hold `unit` (the short head's demand),
 * largest allocation first; their number in *n. The caller frees the array. */
static victim *
containers_by_share (const ebb_pol *p, const ebb_pol_job *j, ebb_pol_res unit, uint32_t *n)
{
  const bigc_priv *b = p->priv;
  victim *cs = ebb_xmalloc (sizeof *cs * (j->ntasks + 1));
  uint32_t nc = 0;
  for (uint32_t t = 0; t < j->ntasks; t++)
    {
      const ebb_pol_task *k = &j->tasks[t];
      if (k->state != EBB_POL_TASK_RUNNING || k->frozen)
        continue;
      /* A node that cannot hold the short task (draining or lost: the environment set its
       * capacity to 0) takes no short work: the room would go unused (issue 21). */
      if (!ebb_pol_res_fits (unit, p->node_cap[k->node]))
        continue;
      ebb_pol_res room = k->alloc;
      ebb_pol_res_sub (&room, k->pending);
      ebb_pol_res_sub (&room, b->booked_fp);
      if (room.cpu_millis <= 0 && room.memory_bytes <= 0)
        continue;
      /* Dominant share of the allocation, in a common scale. */
      __int128 c = (__int128)k->alloc.cpu_millis * (b->cap.memory_bytes ? b->cap.memory_bytes : 1);
      __int128 m = (__int128)k->alloc.memory_bytes * (b->cap.cpu_millis ? b->cap.cpu_millis : 1);
      cs[nc++] = (victim){ .task = t, .key = c > m ? c : m };
    }
  qsort (cs, nc, sizeof *cs, cmp_victim);
  *n = nc;
  return cs;
}

/* gp: one graceful step of min(r_GP, r_c, p) from container t of job `job` (`unit`: the
 * short head's demand); returns what it gives back. */
static ebb_pol_res
graceful_step (ebb_pol *p, uint32_t job, uint32_t t, ebb_pol_res need, ebb_pol_res unit)
{
  const bigc_priv *b = p->priv;
  const ebb_pol_job *j = &p->jobs[job];
  ebb_pol_task *k = &p->jobs[job].tasks[t];
  ebb_pol_res step = p->params.gp_step;
  ebb_pol_res nn = res_clamp0 (need);
  step.cpu_millis = min64 (step.cpu_millis, nn.cpu_millis);
  step.memory_bytes = min64 (step.memory_bytes, nn.memory_bytes);
  /* p is a cluster-wide amount, split over victims on different nodes: with no
   * footprint booked, a first victim gives all it holds (<1000>, more than a
   * <990> short task) and the last only what is left of p (<980>), a room no short
   * task fits, while the cluster's free total covers the demand, so the later rounds
   * preempt nothing and the task waits for a resumption to reshuffle the books.
   * The last step of a node is topped up to one short task, within its room. */
  ebb_pol_res room = k->alloc;
  ebb_pol_res_sub (&room, k->pending);
  ebb_pol_res_sub (&room, b->booked_fp);
  const ebb_pol_res *nf = &p->node_free[k->node];
  ebb_pol_res asked = node_reclaiming (p, k->node);
  step.cpu_millis = step_topup (step.cpu_millis, unit.cpu_millis, nf->cpu_millis, asked.cpu_millis,
                                min64 (room.cpu_millis, p->params.gp_step.cpu_millis));
  step.memory_bytes
      = step_topup (step.memory_bytes, unit.memory_bytes, nf->memory_bytes, asked.memory_bytes,
                    min64 (room.memory_bytes, p->params.gp_step.memory_bytes));
  int64_t ws = (int64_t)(j->demand.memory_bytes * p->params.working_set);
  int64_t mem_after = k->alloc.memory_bytes - k->pending.memory_bytes - step.memory_bytes;
  if (step.memory_bytes > 0 && mem_after < ws)
    {
      /* Below its working set it swaps: BIG-C's container monitor freezes it (CPU to
       * 1%, paper section 3.3) and it leaves the later rounds. The step's memory is
       * taken; the rest stays with the container (frozen, not suspended). */
      k->frozen = 1;
      p->stats.frozen++;
      ebb_pol_res fz = { k->alloc.cpu_millis - k->pending.cpu_millis, step.memory_bytes };
      return ebb_pol_suspend (p, job, t, EBB_POL_SUSPEND_GRACEFUL, fz);
    }
  return ebb_pol_suspend (p, job, t, EBB_POL_SUSPEND_GRACEFUL, step);
}

/* Takes from container t of job `job` what the mode takes (kill: all of it; ip: down to the
 * footprint at once; gp: one graceful step); returns what it gives back. */
static ebb_pol_res
reclaim_container (ebb_pol *p, uint32_t job, uint32_t t, ebb_pol_res need, ebb_pol_res unit)
{
  switch (p->params.bigc_mode)
    {
    case EBB_POL_BIGC_KILL:
      return ebb_pol_bigc_take_whole (p, job, t);
    case EBB_POL_BIGC_IP:
      return ebb_pol_suspend (p, job, t, EBB_POL_SUSPEND_IMMEDIATE, need);
    default:
      return graceful_step (p, job, t, need, unit);
    }
}

/* Algorithm 2: picks containers from long jobs until p's dominant resource is met. */
static void
preempt (ebb_pol *p, ebb_pol_res need)
{
  bigc_priv *b = p->priv;
  int cpu_dom = cpu_dominant (need, b->cap);
  ebb_pol_res unit = short_head (p);
  uint32_t nj;
  cleanup_free victim *jobs = jobs_by_remaining (p, &nj);
  for (uint32_t v = 0; v < nj; v++)
    {
      if ((cpu_dom ? need.cpu_millis : need.memory_bytes) <= 0)
        return;
      uint32_t job = jobs[v].task;
      uint32_t nc;
      cleanup_free victim *cs = containers_by_share (p, &p->jobs[job], unit, &nc);
      for (uint32_t c = 0; c < nc; c++)
        {
          if ((cpu_dom ? need.cpu_millis : need.memory_bytes) <= 0)
            return;
          ebb_pol_res_sub (&need, reclaim_container (p, job, cs[c].task, need, unit));
          long_account (p, job, cs[c].task);
        }
    }
}

/* Algorithms 1 and 2 over the short demand of the pass's tier still pending. */
static void
preempt_tier (ebb_pol *p)
{
  bigc_priv *b = p->priv;
  ebb_pol_res rs = short_pending (p);
  if (rs.cpu_millis == 0 && rs.memory_bytes == 0)
    return;
  /* What is already free or on its way does not need preempting. */
  ebb_pol_res free_all = ebb_pol_bigc_nodes_free (&b->nodes, p), use, reclaiming;
  ebb_pol_res asked_all;
  long_state (p, &use, &reclaiming, &asked_all);
  ebb_pol_res_sub (&rs, free_all);
  ebb_pol_res_sub (&rs, asked_all); /* with tiers, also what lower tiers give back */
  rs = res_clamp0 (rs);
  /* What is being reclaimed already left the long queue's share. */
  ebb_pol_res_sub (&use, reclaiming);
  ebb_pol_res need = ebb_pol_bigc_alg1 (use, rs, b->cap, 1.0 - p->params.short_share);
  if (p->params.natural_term > 0)
    {
      need.cpu_millis = (int64_t)(need.cpu_millis * p->params.natural_term);
      need.memory_bytes = (int64_t)(need.memory_bytes * p->params.natural_term);
    }
  if (p->params.max_round_share > 0)
    {
      need.cpu_millis
          = min64 (need.cpu_millis, (int64_t)(b->cap.cpu_millis * p->params.max_round_share));
      need.memory_bytes
          = min64 (need.memory_bytes, (int64_t)(b->cap.memory_bytes * p->params.max_round_share));
    }
  if (need.cpu_millis > 0 || need.memory_bytes > 0)
    preempt (p, need);
}

/* The preemption part of a round, also run when a short job (or, with tiers, a job of a
 * non-zero tier) arrives without room (params.arrival_preempt). With tiers: room across
 * tiers first (policies/bigc-tier.c), then Algorithms 1 and 2 within each tier, the highest
 * first. Counts nothing per round itself: resumption chances are counted by the round's
 * schedule (bigc_tick). */
static void
preempt_pass (ebb_pol *p)
{
  bigc_priv *b = p->priv;
  if (p->params.bigc_mode < EBB_POL_BIGC_KILL)
    return;
  if (!tiers_on (p))
    {
      preempt_tier (p);
      return;
    }
  ebb_pol_bigc_tier_preempt (p, b->running, b->nrunning, b->queue, b->nqueue);
  uint32_t nt;
  cleanup_free int32_t *tiers = tiers_desc (p, &nt);
  b->tier_sel = 1;
  for (uint32_t i = 0; i < nt; i++)
    {
      b->tier = tiers[i];
      preempt_tier (p);
    }
  b->tier_sel = 0;
}

/* The resource monitor's round: the only pass that counts resumption chances. */
static void
bigc_tick (ebb_pol *p, double now_sec)
{
  (void)now_sec;
  drop_done_long (p);
  schedule (p, 1);
  preempt_pass (p);
}

static void
bigc_task_reclaimed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task,
                     ebb_pol_res freed, int done)
{
  (void)now_sec, (void)done, (void)freed;
  bigc_priv *b = p->priv;
  node_changed (b, node);
  long_account (p, job, task);
  /* It may be suspended or shrunk now: a container resume_pass looks at. */
  if (p->jobs[job].is_long && job < b->jcap && b->rank[job] != 0)
    touched_add (b, p, job, task);
  schedule (p, 0);
}

static void
bigc_task_resumed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  (void)now_sec, (void)node, (void)job, (void)task;
  schedule (p, 0);
}

static void
bigc_task_killed (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  (void)now_sec;
  bigc_priv *b = p->priv;
  ebb_pol_job *j = &p->jobs[job];
  node_changed (b, node);
  long_account (p, job, task);
  /* YARN re-queues a killed container at once. */
  if (task < b->cursor[job])
    b->cursor[job] = task;
  if (!j->failed)
    {
      uint32_t i = 0;
      while (i < b->nqueue && b->queue[i] != job)
        i++;
      if (i == b->nqueue)
        {
          if (b->nqueue == b->qcap)
            {
              b->qcap = b->qcap ? b->qcap * 2 : 256;
              b->queue = ebb_xrealloc (b->queue, sizeof *b->queue * b->qcap);
            }
          /* Keep arrival order: insert before the first job that arrived later. */
          uint32_t at = 0;
          while (at < b->nqueue && b->queue[at] < job)
            at++;
          memmove (b->queue + at + 1, b->queue + at, sizeof *b->queue * (b->nqueue - at));
          b->queue[at] = job;
          b->nqueue++;
        }
    }
  else
    {
      /* The job failed: end its other containers so they free the cluster. */
      for (uint32_t t = 0; t < j->ntasks; t++)
        if (j->tasks[t].state == EBB_POL_TASK_RUNNING)
          {
            ebb_pol_kill (p, job, t);
            j->tasks[t].pending = j->tasks[t].alloc;
            j->tasks[t].state = EBB_POL_TASK_SUSPENDING;
            long_account (p, job, t);
          }
      drop_if_over (p, job);
    }
  schedule (p, 0);
}

const ebb_pol_ops ebb_pol_bigc_ops = {
  .name = "bigc",
  .summary = "BIG-C: preemptive DRF over short/long queues (modes fifo|reserve|kill|ip|gp)",
  .priv_size = sizeof (bigc_priv),
  .init = bigc_init,
  .fini = bigc_fini,
  .job_arrived = bigc_job_arrived,
  .task_finished = bigc_task_finished,
  .tick = bigc_tick,
  .needs_resources = 1,
  .task_reclaimed = bigc_task_reclaimed,
  .task_resumed = bigc_task_resumed,
  .task_killed = bigc_task_killed,
  .job_adopted = bigc_job_adopted,
  .tiers = 1,               /* a higher tier suspends a lower one's long containers */
  .forgets_jobs = 1,        /* a job whose tasks all finished leaves its lists at once */
  .forgets_failed_jobs = 1, /* so does a failed one with nothing placed (drop_if_over) */
};
