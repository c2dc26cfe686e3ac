/* peacock: probe rotation over a ring with elastic queues (Khelghatdoust and Gramoli,
 * Euro-Par 2018).
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

#include "policies/policy.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct peacock_state
{
  double qsize, load, stamp;
  double pad; /* 32 bytes: a hop indexes two of them */
} peacock_state;

typedef struct peacock_priv
{
  /* The schedulers' aggregate (they exchange every change; modelled as instantaneous). */
  uint64_t active_tasks;
  double active_est;
  peacock_state *seen; /* each worker's copy of the shared state */
  double *run_start, *run_est;
  double *queued_est; /* estimates of the probes in the worker's queue */
  double *threshold;  /* per job */
  uint32_t threshold_cap;
  uint8_t *rotated; /* per probe: it comes from the ring, not from a scheduler */
  uint32_t rotated_cap;
  uint32_t *buf; /* a queue as an array, for the walk from the tail */
  double *ahead; /* estimated start of each queued probe, relative to now */
  uint32_t buf_cap;
  /* Rotations in flight, in the order they were marked: every probe marked in one round
   * arrives at the same instant, so one carrier event per round delivers them all. */
  struct peacock_hop
  {
    uint32_t node, probe;
  } * hops;
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
  uint64_t bypasses;
} peacock_priv;

static int
peacock_init (ebb_pol *p, ebb_error **err)
{
  (void)err;
  peacock_priv *k = p->priv;
  uint32_t n = p->params.nnodes;
  k->seen = ebb_xcalloc (n, sizeof *k->seen);
  for (uint32_t i = 0; i < n; i++)
    k->seen[i].stamp = -INFINITY;
  k->round_of = NAN; /* never equal: the first rotation computes its round */
  k->run_start = ebb_xcalloc (n, sizeof *k->run_start);
  k->run_est = ebb_xcalloc (n, sizeof *k->run_est);
  k->queued_est = ebb_xcalloc (n, sizeof *k->queued_est);
  return 0;
}

static void
peacock_fini (ebb_pol *p)
{
  peacock_priv *k = p->priv;
  free (k->seen);
  free (k->run_start);
  free (k->run_est);
  free (k->queued_est);
  free (k->threshold);
  free (k->rotated);
  free (k->buf);
  free (k->ahead);
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

static uint8_t *
rotated_flag (peacock_priv *k, const ebb_pol *p, uint32_t probe)
{
  if (probe >= k->rotated_cap)
    {
      uint32_t cap = p->probes_cap > probe ? p->probes_cap : probe + 1;
      k->rotated = ebb_xrealloc (k->rotated, cap);
      for (uint32_t i = k->rotated_cap; i < cap; i++)
        k->rotated[i] = 0;
      k->rotated_cap = cap;
    }
  return &k->rotated[probe];
}

static void
peacock_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  peacock_priv *k = p->priv;
  ebb_pol_job *j = &p->jobs[job];
  if (job >= k->threshold_cap)
    {
      uint32_t cap = k->threshold_cap ? k->threshold_cap : 1024;
      while (cap <= job)
        cap *= 2;
      k->threshold = ebb_xrealloc (k->threshold, cap * sizeof *k->threshold);
      k->threshold_cap = cap;
    }
  if (j->ntasks == 0)
    return;
  /* The load seen when the job is scheduled, before its own tasks count. */
  k->threshold[job] = now_sec + p->params.threshold_scale * global_state (p, k, now_sec).load;
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

static void
push_hop (peacock_priv *k, uint64_t round, uint32_t node, uint32_t probe)
{
  if (k->hops_len == k->hops_cap)
    k->hops = ring_grow (k->hops, &k->hops_cap, k->hops_head, sizeof *k->hops);
  k->hops[(k->hops_head + k->hops_len++) & (k->hops_cap - 1)]
      = (struct peacock_hop){ .node = node, .probe = probe };
  count_round (k, round, 1);
}

/* Marks probe for rotation: it leaves at the next round and reaches the successor one
 * network delay later, in the same message as every probe marked in that round. */
static void
rotate (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe)
{
  peacock_priv *k = p->priv;
  double iv = p->params.rotation_interval_sec;
  if (now_sec != k->round_of)
    {
      /* Rotations come in bursts at one instant: one division per instant. */
      k->round_of = now_sec;
      k->next_round = (uint64_t)floor (now_sec / iv) + 1;
    }
  uint64_t round = k->next_round;
  uint32_t next = node + 1 == p->params.nnodes ? 0 : node + 1;
  *rotated_flag (k, p, probe) = 1;
  p->stats.rotations++;
  push_hop (k, round, next, probe);
  if (!k->have_round || round != k->last_round)
    {
      /* The first probe of a round carries the round's message. */
      k->have_round = 1;
      k->last_round = round;
      ebb_pol_emit (p, EBB_POL_ACT_PROBE, next, p->probes[probe].job, probe,
                    round * iv - now_sec + p->params.net_delay_sec);
    }
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
  k->queued_est[node] -= p->jobs[p->probes[id].job].est_task_sec;
  if (p->nodes[node].qlen == 0)
    k->queued_est[node] = 0; /* no float drift on an empty queue */
  rotate (p, now_sec, node, id);
}

/* The elastic queue: rotate from the tail until the queue fits the worker's copy of the
 * shared state. */
static void
shrink (ebb_pol *p, double now_sec, uint32_t node)
{
  peacock_priv *k = p->priv;
  const peacock_state *s = &k->seen[node];
  ebb_pol_node *v = &p->nodes[node];
  if (p->params.no_rotation)
    return;
  while (v->qlen > 0 && ((double)v->qlen > s->qsize || k->queued_est[node] > s->load + 1e-9))
    {
      rotate_out (p, now_sec, node, pop_tail (p, node));
    }
}

/* shrink() for a queue listed in order in k->buf[0, len): the tail's predecessor is at
 * hand, no walk down the list. */
static void
shrink_listed (ebb_pol *p, double now_sec, uint32_t node, uint32_t len)
{
  peacock_priv *k = p->priv;
  const peacock_state *s = &k->seen[node];
  ebb_pol_node *v = &p->nodes[node];
  if (p->params.no_rotation)
    return;
  if (len != v->qlen)
    abort (); /* buf does not list this queue */
  while (v->qlen > 0 && ((double)v->qlen > s->qsize || k->queued_est[node] > s->load + 1e-9))
    {
      uint32_t id = k->buf[--len];
      unlink_tail (p, node, len ? k->buf[len - 1] : EBB_POL_NONE, id);
      rotate_out (p, now_sec, node, id);
    }
}

static void
learn (peacock_priv *k, uint32_t node, peacock_state s)
{
  if (s.stamp >= k->seen[node].stamp)
    k->seen[node] = s;
}

/* Estimated remaining time of the task in node's slot. */
static double
remaining (const ebb_pol *p, const peacock_priv *k, double now_sec, uint32_t node)
{
  if (!p->nodes[node].busy)
    return 0;
  double r = k->run_est[node] - (now_sec - k->run_start[node]);
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
  k->queued_est[node] += p->jobs[p->probes[probe].job].est_task_sec;
}

/* Algorithm 1's test: may a newcomer of job nj (threshold thr) move ahead of queued probe
 * cur, whose task is expected to end `end` seconds from now? Past a probe of an earlier job
 * only if shorter and that probe still starts before its threshold; past a probe of a
 * later (or the same) job unless that one is shorter and the newcomer, staying behind it,
 * still starts before its own threshold. */
static inline int
passes (const ebb_pol *p, const peacock_priv *k, double now_sec, uint32_t cur, double end,
        const ebb_pol_job *nj, double thr)
{
  uint32_t cj = p->probes[cur].job;
  const ebb_pol_job *c = &p->jobs[cj];
  double start = now_sec + end - c->est_task_sec;
  if (nj->submit_sec > c->submit_sec)
    return nj->est_task_sec < c->est_task_sec && start + nj->est_task_sec < k->threshold[cj];
  return !(c->est_task_sec < nj->est_task_sec && start + c->est_task_sec < thr);
}

/* place() past the tail: walk busy node's queue from the tail for the probe's place; the
 * node's running task is expected to end rem seconds from now. tail_passes: the probe is
 * known to pass the last probe (the caller tested it). */
static int
place_walk (ebb_pol *p, double now_sec, uint32_t node, uint32_t probe, double rem, int tail_passes)
{
  peacock_priv *k = p->priv;
  ebb_pol_node *v = &p->nodes[node];
  const ebb_pol_job *jobs = p->jobs;
  uint32_t job = p->probes[probe].job;
  const ebb_pol_job *nj = &jobs[job];
  double thr = k->threshold[job];
  if (v->qlen + 1 > k->buf_cap)
    {
      k->buf_cap = (v->qlen + 1) * 2;
      k->buf = ebb_xrealloc (k->buf, k->buf_cap * sizeof *k->buf);
      k->ahead = ebb_xrealloc (k->ahead, (k->buf_cap + 1) * sizeof *k->ahead);
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
      t += jobs[probes[c].job].est_task_sec;
    }
  ahead[len] = t;
  uint32_t pos = 0, i = len;
  uint64_t bypasses = k->bypasses;
  if (tail_passes && len > 0)
    {
      i--;
      bypasses++;
    }
  while (i-- > 0)
    {
      if (!passes (p, k, now_sec, buf[i], ahead[i + 1], nj, thr))
        {
          pos = i + 1;
          break;
        }
      bypasses++;
    }
  k->bypasses = bypasses;
  if (pos == 0 || now_sec + ahead[pos] < thr || thr < now_sec || p->params.no_rotation)
    {
      insert_at (p, node, pos, probe);
      /* buf follows the queue: the probe at pos, the rest one further. */
      for (uint32_t j = len; j > pos; j--)
        buf[j] = buf[j - 1];
      buf[pos] = probe;
      len++;
    }
  else
    rotate (p, now_sec, node, probe);
  shrink_listed (p, now_sec, node, len);
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
  const ebb_pol_job *jobs = p->jobs;
  uint32_t job = p->probes[probe].job;
  if (!p->params.no_rotation && v->qlen == 0 && k->seen[node].qsize < 1)
    {
      /* The queue may hold nothing: the walk and the shrink would rotate the probe at once. */
      rotate (p, now_sec, node, probe);
      return 1;
    }
  const ebb_pol_job *nj = &jobs[job];
  double thr = k->threshold[job];
  double rem = remaining (p, k, now_sec, node);
  if (!p->params.no_rotation && v->qlen > 0
      && !passes (p, k, now_sec, v->tail, rem + k->queued_est[node], nj, thr))
    {
      /* The common case, decided at the tail without walking the queue: the probe's place
       * is last. It stays only if it starts before its threshold (or that has passed) and
       * the shrink would not take it straight back off the tail. */
      const peacock_state *s = &k->seen[node];
      int keep = now_sec + rem + k->queued_est[node] < thr || thr < now_sec;
      if (keep
          && ((double)(v->qlen + 1) > s->qsize
              || k->queued_est[node] + nj->est_task_sec > s->load + 1e-9))
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
    learn (k, node, k->seen[node == 0 ? p->params.nnodes - 1 : node - 1]);
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
  k->queued_est[node] += p->jobs[job].est_task_sec; /* task_bound takes it off again */
  if (ebb_pol_bind_task (p, now_sec, node, job, 2 * p->params.net_delay_sec) < 0)
    {
      p->stats.probes_surplus++;
      p->nodes[node].busy = 1;
      ebb_pol_emit (p, EBB_POL_ACT_WAKE, node, job, 0, 2 * p->params.net_delay_sec);
    }
}

/* Delivers every rotation of the round at the front of the hops, in the order they were
 * marked. Most hops end at a busy worker that turns the probe away at once; those are
 * decided inline, with the buffer's indices in locals, and everything else goes through
 * place() as a probe from a scheduler does. Every decision is the one place() and shrink()
 * would take, in the same order: the hop costs less, the run is the same. */
static void
deliver_round (ebb_pol *p, peacock_priv *k, double now_sec)
{
  const uint32_t nnodes = p->params.nnodes;
  uint64_t round = k->rounds[k->rounds_head].round;
  /* As rotate() computes it (the carrier arrives a delay after its round's boundary, so
   * this is the next round). */
  uint64_t next_round = (uint64_t)floor (now_sec / p->params.rotation_interval_sec) + 1;
  double carry_delay
      = (double)next_round * p->params.rotation_interval_sec - now_sec + p->params.net_delay_sec;
  /* The hop just before, when it was turned away at the tail leaving node and queue as they
   * were: a probe of the same job at the same node right after it is turned away alike. */
  uint32_t away_node = EBB_POL_NONE, away_job = EBB_POL_NONE, full_node = EBB_POL_NONE;
  while (k->rounds_len > 0 && k->rounds[k->rounds_head].round == round)
    {
      /* Each inline hop takes one entry and puts back one: no growth inside, and the
       * buffer's length stays as it is. The arrays in locals: the compiler cannot tell that
       * the hop stores leave them alone. Few locals: the loop is tight on registers. */
      const ebb_pol_job *jobs = p->jobs;
      const ebb_pol_probe *probes = p->probes;
      const ebb_pol_node *nodes = p->nodes;
      peacock_state *seen = k->seen;
      const double *queued_est = k->queued_est, *threshold = k->threshold;
      const double *run_est = k->run_est, *run_start = k->run_start;
      struct peacock_hop *hops = k->hops;
      const size_t mask = k->hops_cap - 1, len = k->hops_len, head0 = k->hops_head;
      const size_t todo = k->rounds[k->rounds_head].count;
      /* The first probe passed on carries the next round's message, unless one went before.
       * It is the first pushed: at head0 + len. */
      size_t head = head0, left = todo, out = (head0 + len) & mask;
      struct peacock_hop h = { 0 };
      int slow = 0;
      double walk_rem = -1; /* >= 0: the slow hop may pass the tail; rem of its worker */
      for (; left > 0; left--)
        {
          h = hops[head];
          head = (head + 1) & mask;
          uint32_t node = h.node;
          if (node == full_node)
            goto pass; /* right behind a probe this worker had no room for at all */
          full_node = EBB_POL_NONE;
          peacock_state *st = &seen[node];
          const peacock_state *from = node == 0 ? &seen[nnodes - 1] : st - 1;
          if (from->stamp >= st->stamp)
            *st = *from; /* learn(), without copying the state when it is not newer */
          const ebb_pol_node *v = &nodes[node];
          if (node != away_node)
            away_node = EBB_POL_NONE;
          if (!v->busy)
            goto slow;
          if (v->qlen == 0)
            {
              if (st->qsize >= 1)
                goto slow;
              /* No room at all: on in the next round, and so for the probes right behind
               * it (learning the same copy again changes nothing). */
              full_node = node;
            }
          else if (node != away_node || probes[h.probe].job != away_job)
            {
              /* (The probe's job is read only here: the probes array is large, and the
               * hops above need not touch it.) */
              uint32_t job = probes[h.probe].job;
              /* place()'s decision at the tail, and shrink()'s test after it. */
              const ebb_pol_job *nj = &jobs[job];
              double thr = threshold[job];
              /* remaining(), for a busy worker */
              double rem = run_est[node] - (now_sec - run_start[node]);
              rem = rem > 0 ? rem : 0;
              double end = rem + queued_est[node];
              if (passes (p, k, now_sec, v->tail, end, nj, thr))
                {
                  walk_rem = rem;
                  goto slow;
                }
              double qe = queued_est[node], qn = (double)v->qlen;
              int keep = (now_sec + end < thr || thr < now_sec)
                         && !(qn + 1 > st->qsize || qe + nj->est_task_sec > st->load + 1e-9);
              if (keep || qn > st->qsize || qe > st->load + 1e-9)
                goto slow;
              away_node = node, away_job = job;
            }
        pass:
          hops[out].node = node + 1 == nnodes ? 0 : node + 1;
          hops[out].probe = h.probe;
          out = (out + 1) & mask;
        }
      goto end;
    slow:
      slow = 1;
    end:;
      /* left counts the hops not taken off, the slow one included. */
      size_t done = todo - left + slow, passed = todo - left;
      k->hops_head = head;
      k->hops_len = len - slow;
      if ((k->rounds[k->rounds_head].count -= done) == 0)
        {
          k->rounds_head = (k->rounds_head + 1) & (k->rounds_cap - 1);
          k->rounds_len--;
        }
      if (passed)
        {
          p->stats.rotations += passed;
          count_round (k, next_round, passed);
          if (!k->have_round || next_round != k->last_round)
            {
              struct peacock_hop first = hops[(head0 + len) & mask];
              k->have_round = 1;
              k->last_round = next_round;
              ebb_pol_emit (p, EBB_POL_ACT_PROBE, first.node, p->probes[first.probe].job,
                            first.probe, carry_delay);
            }
        }
      if (!slow)
        continue;
      away_node = full_node = EBB_POL_NONE;
      *rotated_flag (k, p, h.probe) = 0;
      if (walk_rem >= 0)
        place_walk (p, now_sec, h.node, h.probe, walk_rem, 1); /* place() would, after its tests */
      else if (!p->nodes[h.node].busy)
        hop_to_idle (p, k, now_sec, h.node, h.probe);
      else if (place (p, now_sec, h.node, h.probe))
        away_node = h.node, away_job = p->probes[h.probe].job;
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
  if (k->hops_len == 0 || k->hops[k->hops_head].probe != probe)
    abort (); /* a rotation always arrives as the first of its round */
  deliver_round (p, k, now_sec);
}

static void
peacock_task_bound (ebb_pol *p, double now_sec, uint32_t node, uint32_t job)
{
  peacock_priv *k = p->priv;
  k->run_start[node] = now_sec;
  k->run_est[node] = p->jobs[job].est_task_sec;
  k->queued_est[node] -= p->jobs[job].est_task_sec;
  if (p->nodes[node].qlen == 0)
    k->queued_est[node] = 0;
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
  /* threshold[job] is read only through the job's probes (queued or rotating, counted by
   * the core) and set again when the id arrives anew; the aggregate lost the job's tasks as
   * they finished. The hop loop does not count anything: a hop moves a probe, it neither
   * makes nor frees one. */
  .forgets_jobs = 1,
};
