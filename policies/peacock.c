/* peacock: probe rotation over a ring with elastic queues (Khelghatdoust and Gramoli,
 * Euro-Par 2018).
 * Over 700 lines in one file on purpose: the round delivery (deliver_round() and its
 * helpers) is the hot path and repeats place()'s decisions inline; kept static beside them
 * it stays inlined and next to the code it must agree with.
 *  - One probe per task, sent to distinct random workers (or with replacement, --sample).
 *  - Workers form a ring (node i's successor is i + 1 mod n). A worker rotates a probe to
 *    its successor in rounds every rotation_interval_sec: a probe marked at t leaves at the
 *    next round boundary and arrives one network delay later.
 *  - Shared state <queue size, average load>: the schedulers keep the aggregate over the
 *    probes not finished (count, sum of estimates) and divide by the number of workers;
 *    queue size counts only the probes beyond one per worker. Workers hold their own, maybe
 *    stale, copy, refreshed only by piggybacking: on a probe from a scheduler, on a task
 *    handed out by a scheduler, and on a rotation from the predecessor (if newer).
 *  - Elastic queue: while a worker holds more probes than its queue size, or more estimated
 *    work than the average load, it marks its last probe for rotation.
 *  - Threshold: every probe of a job carries arrival + scale x average load at scheduling.
 *  - Reordering (the paper's Algorithm 1): a probe entering a busy worker's queue walks from
 *    the tail. Past a probe of a job that arrived earlier only if it is shorter and the
 *    passed probe still starts before its threshold; past a probe of a later job unless
 *    that one is shorter and the newcomer still starts before its own threshold. A probe
 *    whose place makes it start after its threshold is rotated instead, unless its place is
 *    the head or its threshold has already passed (then nobody may bypass it: no
 *    starvation).
 * Ablation (the paper's Fig. 6): no_rotation keeps every probe where it lands. */
#include "config.h"

#include "policies/policy-impl.h"
#include "lib/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct peacock_state
{
  double qsize, load, stamp;
} peacock_state;

/* What peacock keeps of a worker, in one 64-byte line (the array aligned on lines): a hop
 * reads it all, and arrays of their own would each cost a cache line and a base register
 * more in the hop loop. */
typedef struct peacock_node
{
  peacock_state seen; /* the worker's copy of the shared state */
  double queued_est;  /* estimates of the probes in the worker's queue */
  double run_start, run_est;
  double pad[2];
} peacock_node;

/* What Algorithm 1 reads of a job, together for the same reason; submit and est are
 * copies of the job's, fixed when it arrives. */
typedef struct peacock_job
{
  double submit, est;
  double threshold;
  double pad;
} peacock_job;

/* A probe on its way to a node: the node in the low 32 bits, the probe in the high ones.
 * One integer, so that the hop loop passes a probe on to the next node by adding 1 (or, at
 * the end of the ring, taking the node off), without taking it apart. */
typedef uint64_t peacock_hop;

static inline peacock_hop
hop_make (uint32_t node, uint32_t probe)
{
  return (uint64_t)probe << 32 | node;
}

static inline uint32_t
hop_node (peacock_hop h)
{
  return (uint32_t)h;
}

static inline uint32_t
hop_probe (peacock_hop h)
{
  return (uint32_t)(h >> 32);
}

typedef struct peacock_priv
{
  /* The schedulers' aggregate (they exchange every change; modelled as instantaneous). */
  uint64_t active_tasks;
  double active_est;
  peacock_node *node;
  peacock_job *job;
  uint32_t job_cap;
  uint8_t *rotated; /* per probe: it comes from the ring, not from a scheduler */
  uint32_t rotated_cap;
  uint32_t *buf; /* a queue as an array, for the walk from the tail */
  double *ahead; /* estimated start of each queued probe, relative to now */
  uint32_t *rot; /* the probes a placement rotates, in order (buf_cap + 1) */
  uint32_t buf_cap;
  /* Rotations in flight, in the order they were marked: every probe marked in one round
   * arrives at the same instant, so one carrier event per round delivers them all. */
  peacock_hop *hops;
  size_t hops_head, hops_len, hops_cap; /* a ring buffer; hops_cap a power of two */
  /* The rounds of the hops, in order: count hops from the head are bound for round. */
  struct peacock_round
  {
    uint64_t round;
    size_t count;
  } * rounds;
  size_t rounds_head, rounds_len, rounds_cap; /* a ring buffer too */
  uint64_t last_round;
  int have_round;
  double round_of; /* the instant whose next round boundary is cached in next_round */
  uint64_t next_round;
} peacock_priv;

static int
peacock_init (ebb_pol *p, ebb_error **err)
{
  (void)err;
  peacock_priv *k = p->priv;
  uint32_t n = p->params.nnodes;
  k->node = aligned_alloc (64, n * sizeof *k->node);
  if (!k->node)
    abort ();
  memset (k->node, 0, n * sizeof *k->node);
  for (uint32_t i = 0; i < n; i++)
    k->node[i].seen.stamp = -INFINITY;
  k->round_of = NAN; /* never equal: the first rotation computes its round */
  return 0;
}

static void
peacock_fini (ebb_pol *p)
{
  peacock_priv *k = p->priv;
  free (k->node);
  free (k->job);
  free (k->rotated);
  free (k->buf);
  free (k->ahead);
  free (k->rot);
  free (k->hops);
  free (k->rounds);
}

static peacock_state
global_state (const ebb_pol *p, const peacock_priv *k, double now_sec)
{
  double n = p->params.nnodes;
  double waiting = (double)k->active_tasks - n;
  return (peacock_state){ .qsize = waiting > 0 ? waiting / n : 0,
                          .load = k->active_est / n,
                          .stamp = now_sec };
}

/* rotated_flag() when the flags do not reach probe yet. */
static __attribute__ ((noinline)) void
rotated_grow (peacock_priv *k, const ebb_pol *p, uint32_t probe)
{
  uint32_t cap = p->probes_cap > probe ? p->probes_cap : probe + 1;
  k->rotated = ebb_xrealloc (k->rotated, cap);
  for (uint32_t i = k->rotated_cap; i < cap; i++)
    k->rotated[i] = 0;
  k->rotated_cap = cap;
}

/* Inline, its growth out of line: every rotation sets a flag. */
static inline uint8_t *
rotated_flag (peacock_priv *k, const ebb_pol *p, uint32_t probe)
{
  if (probe >= k->rotated_cap)
    rotated_grow (k, p, probe);
  return &k->rotated[probe];
}

static void
peacock_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  peacock_priv *k = p->priv;
  ebb_pol_job *j = &p->jobs[job];
  if (job >= k->job_cap)
    {
      uint32_t cap = k->job_cap ? k->job_cap : 1024;
      while (cap <= job)
        cap *= 2;
      k->job = ebb_xrealloc (k->job, cap * sizeof *k->job);
      k->job_cap = cap;
    }
  if (j->ntasks == 0)
    return;
  /* The threshold: the load seen when the job is scheduled, before its own tasks count. */
  k->job[job]
      = (peacock_job){ .submit = j->submit_sec,
                       .est = j->est_task_sec,
                       .threshold
                       = now_sec + p->params.threshold_scale * global_state (p, k, now_sec).load };
  k->active_tasks += j->ntasks;
  k->active_est += j->ntasks * j->est_task_sec;
  size_t first = p->nacts;
  ebb_pol_send_probes_random (p, job, j->ntasks, 0, p->params.nnodes);
  for (size_t i = first; i < p->nacts; i++)
    *rotated_flag (k, p, p->acts[i].arg) = 0;
}

/* Doubles a full ring buffer of *cap elements of size sz whose first is at head: the part
 * that wrapped around moves behind the old end, so that position (head + i) & (cap - 1) of
 * every element holds under the new capacity. */
static void *
ring_grow (void *ring, size_t *cap, size_t head, size_t sz)
{
  size_t old = *cap, cap2 = old ? 2 * old : 1024;
  char *r = ebb_xrealloc (ring, cap2 * sz);
  memcpy (r + old * sz, r, head * sz);
  *cap = cap2;
  return r;
}

/* count_round() for a round not yet counted last. */
static void
count_new_round (peacock_priv *k, uint64_t round, size_t n)
{
  if (k->rounds_len == k->rounds_cap)
    k->rounds = ring_grow (k->rounds, &k->rounds_cap, k->rounds_head, sizeof *k->rounds);
  k->rounds[(k->rounds_head + k->rounds_len++) & (k->rounds_cap - 1)]
      = (struct peacock_round){ .round = round, .count = n };
}

/* Counts n more hops, the last ones pushed, as bound for round. Inline: called for every
 * rotation, and nearly always the round is the last one counted. */
static inline void
count_round (peacock_priv *k, uint64_t round, size_t n)
{
  if (k->rounds_len > 0)
    {
      struct peacock_round *last
          = &k->rounds[(k->rounds_head + k->rounds_len - 1) & (k->rounds_cap - 1)];
      if (last->round == round)
        {
          last->count += n;
          return;
        }
    }
  count_new_round (k, round, n);
}

static inline void
push_hop (peacock_priv *k, uint64_t round, uint32_t node, uint32_t probe)
{
  if (k->hops_len == k->hops_cap)
    k->hops = ring_grow (k->hops, &k->hops_cap, k->hops_head, sizeof *k->hops);
  k->hops[(k->hops_head + k->hops_len++) & (k->hops_cap - 1)] = hop_make (node, probe);
  count_round (k, round, 1);
}

/* rotate()'s rare cases: the first rotation at a new instant computes its round (one
 * division per instant: rotations come in bursts), and the first probe of a round carries
 * the round's message. */
static __attribute__ ((noinline)) void
rotate_new_round (ebb_pol *p, peacock_priv *k, double now_sec)
{
  k->round_of = now_sec;
  k->next_round = (uint64_t)floor (now_sec / p->params.rotation_interval_sec) + 1;
}

static __attribute__ ((noinline)) void
rotate_carrier (ebb_pol *p, peacock_priv *k, double now_sec, uint32_t next, uint32_t probe)
{
  uint64_t round = k->next_round;
  k->have_round = 1;
  k->last_round = round;
  ebb_pol_emit (p, EBB_POL_ACT_PROBE, next, p->probes[probe].job, probe,
                round * p->params.rotation_interval_sec - now_sec + p->params.net_delay_sec);
}

/* Marks probe for rotation: it leaves at the next round and reaches the successor one
 * network delay later, in the same message as every probe marked in that round. Inline
 * with its rare cases out of line: 6 million calls a run from the walks and shrinks. */
static inline __attribute__ ((always_inline)) void
rotate (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe)
{
  peacock_priv *k = p->priv;
  if (now_sec != k->round_of)
    rotate_new_round (p, k, now_sec);
  uint64_t round = k->next_round;
  uint32_t next = node + 1 == p->params.nnodes ? 0 : node + 1;
  *rotated_flag (k, p, probe) = 1;
  p->stats.rotations++;
  push_hop (k, round, next, probe);
  if (!k->have_round || round != k->last_round)
    rotate_carrier (p, k, now_sec, next, probe);
}

/* Unlinks cur, the last probe of node's queue; prev is the one before it (NONE: cur is the
 * only one). */
static inline void
unlink_tail (ebb_pol *p, uint32_t node, uint32_t prev, uint32_t cur)
{
  ebb_pol_node *v = &p->nodes[node];
  if (prev == EBB_POL_NONE)
    v->head = EBB_POL_NONE;
  else
    p->probes[prev].next = EBB_POL_NONE;
  v->tail = prev;
  v->qlen--;
  v->qlong -= p->jobs[p->probes[cur].job].is_long;
}

/* Removes the last probe of node's queue (a singly linked list: walk to it). */
static uint32_t
pop_tail (ebb_pol *p, uint32_t node)
{
  uint32_t prev = EBB_POL_NONE, cur = p->nodes[node].head;
  while (p->probes[cur].next != EBB_POL_NONE)
    prev = cur, cur = p->probes[cur].next;
  unlink_tail (p, node, prev, cur);
  return cur;
}

/* Sends probe id, just taken off node's queue, on around the ring. */
static inline void
rotate_out (ebb_pol *p, double now_sec, uint32_t node, uint32_t id)
{
  peacock_priv *k = p->priv;
  k->node[node].queued_est -= k->job[p->probes[id].job].est;
  if (p->nodes[node].qlen == 0)
    k->node[node].queued_est = 0; /* no float drift on an empty queue */
  rotate (p, now_sec, node, id);
}

/* The elastic queue: rotate from the tail until the queue fits the worker's copy of the
 * shared state. */
static void
shrink (ebb_pol *p, double now_sec, uint32_t node)
{
  peacock_priv *k = p->priv;
  const peacock_node *pn = &k->node[node];
  ebb_pol_node *v = &p->nodes[node];
  if (p->params.no_rotation)
    return;
  while (v->qlen > 0 && ((double)v->qlen > pn->seen.qsize || pn->queued_est > pn->seen.load + 1e-9))
    {
      rotate_out (p, now_sec, node, pop_tail (p, node));
    }
}

/* shrink() for a queue listed in order in k->buf[0, len): the tail's predecessor is at
 * hand, no walk down the list. The probes taken off are not rotated but appended to
 * k->rot[n...] in order; returns the new n. */
static uint32_t
shrink_listed (ebb_pol *p, uint32_t node, uint32_t len, uint32_t n)
{
  peacock_priv *k = p->priv;
  peacock_node *pn = &k->node[node];
  ebb_pol_node *v = &p->nodes[node];
  if (p->params.no_rotation)
    return n;
  if (len != v->qlen)
    abort (); /* buf does not list this queue */
  while (v->qlen > 0 && ((double)v->qlen > pn->seen.qsize || pn->queued_est > pn->seen.load + 1e-9))
    {
      uint32_t id = k->buf[--len];
      unlink_tail (p, node, len ? k->buf[len - 1] : EBB_POL_NONE, id);
      /* rotate_out()'s bookkeeping */
      pn->queued_est -= k->job[p->probes[id].job].est;
      if (v->qlen == 0)
        pn->queued_est = 0;
      k->rot[n++] = id;
    }
  return n;
}

static void
learn (peacock_priv *k, uint32_t node, peacock_state s)
{
  if (s.stamp >= k->node[node].seen.stamp)
    k->node[node].seen = s;
}

/* Estimated remaining time of the task in node's slot. */
static double
remaining (const ebb_pol *p, const peacock_priv *k, double now_sec, uint32_t node)
{
  if (!p->nodes[node].busy)
    return 0;
  double r = k->node[node].run_est - (now_sec - k->node[node].run_start);
  return r > 0 ? r : 0;
}

static inline void
insert_at (ebb_pol *p, uint32_t node, uint32_t pos, uint32_t probe)
{
  peacock_priv *k = p->priv;
  ebb_pol_node *v = &p->nodes[node];
  if (pos == v->qlen)
    ebb_pol_queue_append (p, node, probe);
  else
    {
      uint32_t before = pos == 0 ? EBB_POL_NONE : k->buf[pos - 1];
      p->probes[probe].next = k->buf[pos];
      if (before == EBB_POL_NONE)
        v->head = probe;
      else
        p->probes[before].next = probe;
      v->qlen++;
      v->qlong += p->jobs[p->probes[probe].job].is_long;
    }
  k->node[node].queued_est += k->job[p->probes[probe].job].est;
}

/* Algorithm 1's test: may a newcomer of job nj move ahead of queued probe cur, whose task
 * is expected to end `end` seconds from now? Past a probe of an earlier job only if shorter
 * and that probe still starts before its threshold; past a probe of a later (or the same)
 * job unless that one is shorter and the newcomer, staying behind it, still starts before
 * its own threshold. */
static inline int
passes (const ebb_pol *p, const peacock_priv *k, double now_sec, uint32_t cur, double end,
        const peacock_job *nj)
{
  const peacock_job *c = &k->job[p->probes[cur].job];
  double start = now_sec + end - c->est;
  if (nj->submit > c->submit)
    return nj->est < c->est && start + nj->est < c->threshold;
  return !(c->est < nj->est && start + c->est < nj->threshold);
}

/* passes() without a branch, for the hop loop's test at the tail (20 million a run): every
 * comparison made and combined with & and |, as their outcomes follow the data and the
 * branches on them were mispredicted (time -5%, instructions +4%). */
static inline int
passes_nb (const ebb_pol_probe *probes, const peacock_job *jobs, double now_sec, uint32_t cur,
           double end, const peacock_job *nj)
{
  const peacock_job *c = &jobs[probes[cur].job];
  double start = now_sec + end - c->est;
  int later = nj->submit > c->submit;
  int past_earlier = (nj->est < c->est) & (start + nj->est < c->threshold);
  int stay_behind = (c->est < nj->est) & (start + c->est < nj->threshold);
  return (later & past_earlier) | (!later & !stay_behind);
}

/* Algorithm 1's walk of busy node's queue from the tail, for the place of a probe of job nj;
 * the node's running task is expected to end rem seconds from now. tail_passes: the probe
 * is known to pass the last probe (the caller tested it). Lists the queue in k->buf and the
 * estimated start of each probe (and of one more at the end) in k->ahead, and returns the
 * place: how many probes stay ahead. Changes nothing else: the hop loop calls it, and goes
 * on at once when the probe is then rotated with the queue left as it was. */
static uint32_t
walk_queue (const ebb_pol *p, peacock_priv *k, double now_sec, uint32_t node, const peacock_job *nj,
            double rem, int tail_passes)
{
  const ebb_pol_node *v = &p->nodes[node];
  const peacock_job *jobs = k->job;
  if (v->qlen + 1 > k->buf_cap)
    {
      k->buf_cap = (v->qlen + 1) * 2;
      k->buf = ebb_xrealloc (k->buf, k->buf_cap * sizeof *k->buf);
      k->ahead = ebb_xrealloc (k->ahead, (k->buf_cap + 1) * sizeof *k->ahead);
      k->rot = ebb_xrealloc (k->rot, (k->buf_cap + 1) * sizeof *k->rot);
    }
  /* In locals: the stores to buf and ahead do not touch them. */
  uint32_t *buf = k->buf;
  double *ahead = k->ahead;
  const ebb_pol_probe *probes = p->probes;
  uint32_t len = 0;
  double t = rem;
  for (uint32_t c = v->head; c != EBB_POL_NONE; c = probes[c].next)
    {
      buf[len] = c;
      ahead[len++] = t;
      t += jobs[probes[c].job].est;
    }
  ahead[len] = t;
  uint32_t i = len;
  if (tail_passes && len > 0)
    i--;
  while (i-- > 0)
    if (!passes (p, k, now_sec, buf[i], ahead[i + 1], nj))
      return i + 1;
  return 0;
}

/* Whether a probe of job nj placed at pos by walk_queue() stays there: at the head, or
 * starting before its threshold, or past it (else it is rotated). */
static inline int
walk_stays (const ebb_pol *p, const peacock_priv *k, double now_sec, uint32_t pos,
            const peacock_job *nj)
{
  double thr = nj->threshold;
  return pos == 0 || now_sec + k->ahead[pos] < thr || thr < now_sec || p->params.no_rotation;
}

/* Puts probe at the place walk_queue() found in node's queue (listed in k->buf), or not
 * (!stays), then shrinks the queue. The probes to rotate, the probe itself first if it does
 * not stay, are left in k->rot (at most the queue's length + 1); returns how many. The
 * caller rotates them: the hop loop writes them among its hops. */
static uint32_t
place_listed (ebb_pol *p, uint32_t node, uint32_t probe, uint32_t pos, int stays)
{
  peacock_priv *k = p->priv;
  uint32_t *buf = k->buf, len = p->nodes[node].qlen, n = 0;
  if (stays)
    {
      insert_at (p, node, pos, probe);
      /* buf follows the queue: the probe at pos, the rest one further. */
      for (uint32_t j = len; j > pos; j--)
        buf[j] = buf[j - 1];
      buf[pos] = probe;
      len++;
    }
  else
    k->rot[n++] = probe;
  return shrink_listed (p, node, len, n);
}

/* place_listed(), then the rotations. */
static void
place_at (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe, uint32_t pos, int stays)
{
  peacock_priv *k = p->priv;
  uint32_t n = place_listed (p, node, probe, pos, stays);
  for (uint32_t i = 0; i < n; i++)
    rotate (p, now_sec, node, k->rot[i]);
}

/* place() past the tail: walk, place, shrink. */
static int
place_walk (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe, double rem, int tail_passes)
{
  peacock_priv *k = p->priv;
  const peacock_job *nj = &k->job[p->probes[probe].job];
  uint32_t pos = walk_queue (p, k, now_sec, node, nj, rem, tail_passes);
  place_at (p, now_sec, node, probe, pos, walk_stays (p, k, now_sec, pos, nj));
  return 0;
}

/* Where a probe reaching busy node goes: its place in the queue, or on along the ring.
 * Returns 1 when it was rotated from the tail and the queue is as it was: then another probe
 * of the same job arriving next, with nothing else changed, is turned away the same way. */
static int
place (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe)
{
  peacock_priv *k = p->priv;
  ebb_pol_node *v = &p->nodes[node];
  const peacock_node *pn = &k->node[node];
  if (!p->params.no_rotation && v->qlen == 0 && pn->seen.qsize < 1)
    {
      /* The queue may hold nothing: the walk and the shrink would rotate the probe at once. */
      rotate (p, now_sec, node, probe);
      return 1;
    }
  const peacock_job *nj = &k->job[p->probes[probe].job];
  double thr = nj->threshold;
  double rem = remaining (p, k, now_sec, node);
  if (!p->params.no_rotation && v->qlen > 0
      && !passes (p, k, now_sec, v->tail, rem + pn->queued_est, nj))
    {
      /* The common case, decided at the tail without walking the queue: the probe's place
       * is last. It stays only if it starts before its threshold (or that has passed) and
       * the shrink would not take it straight back off the tail. */
      const peacock_state *s = &pn->seen;
      int keep = now_sec + rem + pn->queued_est < thr || thr < now_sec;
      if (keep && ((double)(v->qlen + 1) > s->qsize || pn->queued_est + nj->est > s->load + 1e-9))
        keep = 0;
      uint32_t qlen = v->qlen;
      if (keep)
        insert_at (p, node, v->qlen, probe);
      else
        rotate (p, now_sec, node, probe);
      shrink (p, now_sec, node);
      return !keep && v->qlen == qlen;
    }
  return place_walk (p, now_sec, node, probe, rem, !p->params.no_rotation && v->qlen > 0);
}

/* The worker reads the shared state the message carries: a scheduler's, or for a rotation
 * its predecessor's copy. */
static void
learn_from_message (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe)
{
  peacock_priv *k = p->priv;
  uint8_t *rot = rotated_flag (k, p, probe);
  if (*rot)
    learn (k, node, k->node[node == 0 ? p->params.nnodes - 1 : node - 1].seen);
  else
    learn (k, node, global_state (p, k, now_sec));
  *rot = 0;
}

/* A rotated probe reaching a worker that is not busy: it asks for the task at once (what
 * the core does for the carrier's own node). */
static void
hop_to_idle (ebb_pol *p, peacock_priv *k, double now_sec, uint32_t node, uint32_t probe)
{
  uint32_t job = p->probes[probe].job;
  ebb_pol_probe_release (p, probe);
  k->node[node].queued_est += k->job[job].est; /* task_bound takes it off again */
  if (ebb_pol_bind_task (p, now_sec, node, job, 2 * p->params.net_delay_sec) < 0)
    {
      p->stats.probes_surplus++;
      p->nodes[node].busy = 1;
      ebb_pol_emit (p, EBB_POL_ACT_WAKE, node, job, 0, 2 * p->params.net_delay_sec);
    }
}

/* The first hop to node in [h, end), or end. The scan of message_head(): 45 million hops
 * a run (a round holds some 1,600), 1 in 40 to the node; with SSE2 four at a time, the
 * node of each hop being its low 32 bits, its first 4 bytes on x86 (little-endian). */
static peacock_hop *
find_hop (peacock_hop *h, peacock_hop *end, uint32_t node)
{
#ifdef __SSE2__
  const __m128 want = _mm_castsi128_ps (_mm_set1_epi32 ((int)node));
  for (; end - h >= 4; h += 4)
    {
      __m128 a = _mm_loadu_ps ((const float *)h), b = _mm_loadu_ps ((const float *)(h + 2));
      /* The nodes of the four hops (lanes 0 and 2 of each pair), compared at once. */
      __m128 nodes = _mm_shuffle_ps (a, b, _MM_SHUFFLE (2, 0, 2, 0));
      if (_mm_movemask_ps (_mm_castsi128_ps (
              _mm_cmpeq_epi32 (_mm_castps_si128 (nodes), _mm_castps_si128 (want)))))
        break;
    }
#endif
  while (h < end && hop_node (*h) != node)
    h++;
  return h;
}

/* A round's rotations reach a worker as one message, and the worker places every probe of
 * it by Algorithm 1 before it asks for a task (the authors' node monitor adds the message's
 * probes to its queue one by one, then runs the head): an idle worker runs the probe that
 * Algorithm 1 puts first among them, not the first one marked. probe is the first of them
 * to arrive; the others are the hops of this round to node still ahead in the buffer. The
 * one chosen swaps places with probe, which goes on to be placed like the rest. Only hops
 * to an idle worker pay for the scan, at most one per task launched. */
static uint32_t
message_head (ebb_pol *p, peacock_priv *k, double now_sec, uint64_t round, uint32_t node,
              uint32_t probe)
{
  if (k->rounds_len == 0 || k->rounds[k->rounds_head].round != round)
    return probe; /* it was the round's last hop */
  size_t n = k->rounds[k->rounds_head].count;
  /* The round's hops ahead, in the ring buffer: [head, end) then, wrapped, [0, rest). */
  peacock_hop *h = &k->hops[k->hops_head], *end = h + n, *best_at = NULL;
  peacock_hop *wrap = &k->hops[k->hops_cap];
  size_t rest = 0;
  if (end > wrap)
    rest = end - wrap, end = wrap;
  uint32_t best = probe;
  for (int part = 0; part < 2; part++)
    {
      for (; (h = find_hop (h, end, node)) != end; h++)
        {
          /* Algorithm 1 with best at the head of an idle worker's queue: it starts now. */
          uint32_t c = hop_probe (*h), cj = p->probes[c].job;
          if (passes (p, k, now_sec, best, k->job[p->probes[best].job].est, &k->job[cj]))
            best = c, best_at = h;
        }
      h = k->hops, end = h + rest;
    }
  if (best_at == NULL)
    return probe;
  *best_at = hop_make (node, probe);
  *rotated_flag (k, p, probe) = 1; /* still in the message: placed when its hop comes */
  *rotated_flag (k, p, best) = 0;
  return best;
}

/* deliver_round's pass over the hops of one round up to a slow one: where it is in the hop
 * buffer, what it wrote, and what it remembers from hop to hop. */
typedef struct hop_run
{
  size_t head0, len; /* the buffer's head and length when the pass began */
  size_t head, out;  /* the next hop taken off; the next one written */
  /* Hops written beyond those taken off, by placements in the loop (n rotations for the
   * one hop taken). */
  ptrdiff_t extra;
  peacock_hop h; /* the last hop taken: the slow one when the pass stops early */
  /* Not NONE: the slow hop's place in its queue, walked (walk_queue()); walk_stay, whether
   * it stays there. */
  uint32_t walk_pos;
  int walk_stay;
  /* The hop just before, when it was turned away at the tail leaving node and queue as they
   * were: a probe of the same job at the same node right after it is turned away alike;
   * full_node: a worker with no room at all. Kept from pass to pass. */
  uint32_t away_node, away_job, full_node;
} hop_run;

/* What becomes of a hop at a busy worker with a queue. */
typedef enum hop_fate
{
  HOP_PASS,   /* turned away: on to the next node */
  HOP_PLACED, /* placed here inline, its rotations written among the hops */
  HOP_SLOW,   /* left to place() and the slow path */
} hop_fate;

/* Places the hop h at pos of its worker's queue (as place_at() does) and writes the probes
 * this rotates among the hops, to the next node; the caller checked there is room. */
static void
place_rotating (ebb_pol *p, peacock_priv *k, peacock_hop h, uint32_t pos, int stay, hop_run *r)
{
  const size_t mask = k->hops_cap - 1;
  uint32_t node = hop_node (h);
  uint32_t n = place_listed (p, node, hop_probe (h), pos, stay);
  if (stay)
    *rotated_flag (k, p, hop_probe (h)) = 0;
  uint32_t next = node + 1 == p->params.nnodes ? 0 : node + 1;
  for (uint32_t i = 0; i < n; i++)
    {
      uint32_t id = k->rot[i];
      *rotated_flag (k, p, id) = 1;
      k->hops[r->out] = hop_make (next, id);
      r->out = (r->out + 1) & mask;
    }
  r->extra += (ptrdiff_t)n - 1;
}

/* place()'s decision for hop h at a busy worker with a queue, whose state as the probe has
 * learnt it is st, and shrink()'s test after it. */
static hop_fate
hop_at_queue (ebb_pol *p, peacock_priv *k, double now_sec, peacock_hop h, const peacock_state *st,
              hop_run *r)
{
  uint32_t node = hop_node (h);
  const ebb_pol_node *v = &p->nodes[node];
  const peacock_node *pn = &k->node[node];
  /* (The probe's job is read only here: the probes array is large, and the hops that do
   * not come here need not touch it.) */
  uint32_t job = p->probes[hop_probe (h)].job;
  const peacock_job *nj = &k->job[job];
  double thr = nj->threshold;
  /* remaining(), for a busy worker */
  double rem = pn->run_est - (now_sec - pn->run_start);
  rem = rem > 0 ? rem : 0;
  double end = rem + pn->queued_est;
  double qe = pn->queued_est, qn = (double)v->qlen;
  if (passes_nb (p->probes, k->job, now_sec, v->tail, end, nj))
    {
      /* Past the tail: the walk. A probe it rotates from a queue that fits, left as it was,
       * goes on here, and as one turned away at the tail, so do the probes of its job right
       * behind it. Else the slow path places it where the walk found. */
      uint32_t pos = walk_queue (p, k, now_sec, node, nj, rem, 1);
      int stay = walk_stays (p, k, now_sec, pos, nj);
      if (!(stay || qn > st->qsize || qe > st->load + 1e-9))
        {
          r->away_node = node, r->away_job = job;
          return HOP_PASS;
        }
      /* The queue changes: placed here too, with the rotations written among the hops,
       * when the buffer has room for them all (at most the queue's length + 1, for the hop
       * taken). */
      if (r->len + r->extra + v->qlen > (k->hops_cap - 1) + 1)
        {
          r->walk_pos = pos, r->walk_stay = stay;
          return HOP_SLOW;
        }
      place_rotating (p, k, h, pos, stay, r);
      r->away_node = EBB_POL_NONE;
      return HOP_PLACED;
    }
  int keep = (now_sec + end < thr || thr < now_sec)
             && !(qn + 1 > st->qsize || qe + nj->est > st->load + 1e-9);
  if (keep || qn > st->qsize || qe > st->load + 1e-9)
    return HOP_SLOW;
  r->away_node = node, r->away_job = job;
  return HOP_PASS;
}

/* Takes up to todo hops off the buffer and decides them inline, until one needs the slow
 * path; returns how many hops were not taken off, the slow one included (0: none was slow).
 * Each inline hop takes one entry and puts back one, or, for a placement in the loop, as many
 * as it rotates once hop_at_queue() has checked there is room: the buffer does not grow
 * inside. */
static size_t
take_hops (ebb_pol *p, peacock_priv *k, double now_sec, size_t todo, hop_run *r)
{
  const uint32_t nnodes = p->params.nnodes;
  /* The arrays and the positions in locals: the compiler cannot tell that the hop stores
   * leave them (and *r) alone. They go back to *r around hop_at_queue() and at the end. */
  const ebb_pol_probe *probes = p->probes;
  const ebb_pol_node *nodes = p->nodes;
  peacock_node *pnodes = k->node;
  peacock_hop *hops = k->hops;
  const size_t mask = k->hops_cap - 1;
  size_t head = r->head, out = r->out, left = todo;
  uint32_t full_node = r->full_node, away_node = r->away_node;
  peacock_hop h = r->h;
  for (; left > 0; left--)
    {
      h = hops[head];
      head = (head + 1) & mask;
      uint32_t node = hop_node (h);
      /* Right behind a probe this worker had no room for at all: passed on. */
      if (node != full_node)
        {
          full_node = EBB_POL_NONE;
          peacock_node *pn = &pnodes[node];
          peacock_state *st = &pn->seen;
          const peacock_state *from = &(node == 0 ? &pnodes[nnodes - 1] : pn - 1)->seen;
          if (from->stamp >= st->stamp)
            *st = *from; /* learn(), without copying the state when it is not newer */
          const ebb_pol_node *v = &nodes[node];
          if (node != away_node)
            away_node = EBB_POL_NONE;
          if (!v->busy)
            break;
          if (v->qlen == 0)
            {
              if (st->qsize >= 1)
                break;
              /* No room at all: on in the next round, and so for the probes right behind
               * it (learning the same copy again changes nothing). */
              full_node = node;
            }
          else if (node != away_node || probes[hop_probe (h)].job != r->away_job)
            {
              r->out = out, r->away_node = away_node;
              hop_fate f = hop_at_queue (p, k, now_sec, h, st, r);
              out = r->out, away_node = r->away_node;
              if (f == HOP_SLOW)
                break;
              if (f == HOP_PLACED)
                continue;
            }
        }
      hops[out] = node + 1 == nnodes ? h - node : h + 1; /* the same probe, next node */
      out = (out + 1) & mask;
    }
  r->head = head, r->out = out, r->h = h;
  r->full_node = full_node, r->away_node = away_node;
  return left;
}

/* After take_hops(): the buffer's head and length, the round's count, the rotations, and
 * the next round's message, carried by the first probe passed on unless one went before. */
static void
settle_hops (ebb_pol *p, peacock_priv *k, const hop_run *r, size_t todo, size_t left,
             uint64_t next_round, double carry_delay)
{
  const size_t mask = k->hops_cap - 1;
  int slow = left > 0;
  size_t done = todo - left + slow, pushed = todo - left + r->extra;
  k->hops_head = r->head;
  k->hops_len = r->len + r->extra - slow;
  if ((k->rounds[k->rounds_head].count -= done) == 0)
    {
      k->rounds_head = (k->rounds_head + 1) & (k->rounds_cap - 1);
      k->rounds_len--;
    }
  if (!pushed)
    return;
  p->stats.rotations += pushed;
  count_round (k, next_round, pushed);
  if (!k->have_round || next_round != k->last_round)
    {
      /* The first pushed: at head0 + len. */
      peacock_hop first = k->hops[(r->head0 + r->len) & mask];
      k->have_round = 1;
      k->last_round = next_round;
      ebb_pol_emit (p, EBB_POL_ACT_PROBE, hop_node (first), p->probes[hop_probe (first)].job,
                    hop_probe (first), carry_delay);
    }
}

/* The hop take_hops() stopped at, through the slow path: as place() would. */
static void
slow_hop (ebb_pol *p, peacock_priv *k, double now_sec, uint64_t round, hop_run *r)
{
  peacock_hop h = r->h;
  r->away_node = r->full_node = EBB_POL_NONE;
  *rotated_flag (k, p, hop_probe (h)) = 0;
  if (r->walk_pos != EBB_POL_NONE)
    place_at (p, now_sec, hop_node (h), hop_probe (h), r->walk_pos, r->walk_stay);
  else if (!p->nodes[hop_node (h)].busy)
    hop_to_idle (p, k, now_sec, hop_node (h),
                 message_head (p, k, now_sec, round, hop_node (h), hop_probe (h)));
  else if (place (p, now_sec, hop_node (h), hop_probe (h)))
    r->away_node = hop_node (h), r->away_job = p->probes[hop_probe (h)].job;
}

/* Delivers every rotation of the round at the front of the hops, in the order they were
 * marked. Most hops end at a busy worker that turns the probe away at once; those are
 * decided inline (take_hops()), with the buffer's indices in locals, and everything else goes
 * through place() as a probe from a scheduler does. Every decision is the one place() and
 * shrink() would take, in the same order: the hop costs less, the run is the same. */
static void
deliver_round (ebb_pol *p, peacock_priv *k, double now_sec)
{
  uint64_t round = k->rounds[k->rounds_head].round;
  /* As rotate() computes it (the carrier arrives a delay after its round's boundary, so
   * this is the next round). */
  uint64_t next_round = (uint64_t)floor (now_sec / p->params.rotation_interval_sec) + 1;
  double carry_delay
      = (double)next_round * p->params.rotation_interval_sec - now_sec + p->params.net_delay_sec;
  hop_run r = { .away_node = EBB_POL_NONE, .away_job = EBB_POL_NONE, .full_node = EBB_POL_NONE };
  while (k->rounds_len > 0 && k->rounds[k->rounds_head].round == round)
    {
      const size_t todo = k->rounds[k->rounds_head].count;
      r.head0 = r.head = k->hops_head;
      r.len = k->hops_len;
      /* The first probe passed on carries the next round's message, unless one went before.
       * It is the first pushed: at head0 + len. */
      r.out = (r.head0 + r.len) & (k->hops_cap - 1);
      r.extra = 0;
      r.h = 0;
      r.walk_pos = EBB_POL_NONE;
      r.walk_stay = 0;
      size_t left = take_hops (p, k, now_sec, todo, &r);
      settle_hops (p, k, &r, todo, left, next_round, carry_delay);
      if (left > 0)
        slow_hop (p, k, now_sec, round, &r);
    }
}

static void
peacock_probe_enqueue (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe)
{
  peacock_priv *k = p->priv;
  if (!*rotated_flag (k, p, probe))
    {
      learn_from_message (p, now_sec, node, probe);
      if (!p->nodes[node].busy)
        insert_at (p, node, p->nodes[node].qlen, probe); /* the core runs it at once */
      else
        place (p, now_sec, node, probe);
      return;
    }
  /* The carrier of a round's rotations: deliver every probe of that round. */
  if (k->hops_len == 0 || hop_probe (k->hops[k->hops_head]) != probe)
    abort (); /* a rotation always arrives as the first of its round */
  deliver_round (p, k, now_sec);
}

static void
peacock_task_bound (ebb_pol *p, double now_sec, uint32_t node, uint32_t job)
{
  peacock_priv *k = p->priv;
  peacock_node *pn = &k->node[node];
  pn->run_start = now_sec;
  pn->run_est = k->job[job].est;
  pn->queued_est -= k->job[job].est;
  if (p->nodes[node].qlen == 0)
    pn->queued_est = 0;
  /* The task's data comes from a scheduler, with the shared state. */
  learn (k, node, global_state (p, k, now_sec));
  shrink (p, now_sec, node);
}

static void
peacock_task_finished (ebb_pol *p, double now_sec, uint32_t node, uint32_t job, uint32_t task)
{
  (void)now_sec, (void)node, (void)task;
  peacock_priv *k = p->priv;
  k->active_tasks--;
  k->active_est -= p->jobs[job].est_task_sec;
  if (k->active_tasks == 0)
    k->active_est = 0;
}

const ebb_pol_ops ebb_pol_peacock_ops = {
  .name = "peacock",
  .summary = "probe rotation on a ring, elastic queues from piggybacked shared state, "
             "threshold-bounded reordering by estimated runtime",
  .priv_size = sizeof (peacock_priv),
  .init = peacock_init,
  .fini = peacock_fini,
  .job_arrived = peacock_job_arrived,
  .task_bound = peacock_task_bound,
  .task_finished = peacock_task_finished,
  .probe_enqueue = peacock_probe_enqueue,
  .timed_probes = 1,
  /* threshold[job] is read only through the job's probes (queued or rotating, counted by
   * the core) and set again when the id arrives anew; the aggregate lost the job's tasks as
   * they finished. The hop loop does not count anything: a hop moves a probe, it neither
   * makes nor frees one. */
  .forgets_jobs = 1,
};
