/* hopper: speculation-aware scheduling after Hopper (SIGCOMM 2015). A job's virtual size
 * V = (2 / beta) x its unfinished tasks is the number of slots past which an extra slot is
 * worth little (section 4.1); slots are allotted by Pseudocode 1 with epsilon-fairness
 * (ebb_hopper_allocate) and used for originals first, then for copies of the stragglers
 * LATE names (policies/spec.c).
 *
 * Central (params.spec_mode EBB_POL_SPEC_CENTRAL): a free slot goes to the smallest job
 * below its allotment that has work; when none has work, jobs below their allotment that
 * still run tasks that may straggle keep free slots up to what they are owed (the budget
 * of Figure 2); any other free slot goes to the smallest job below its virtual size that
 * has work (Guideline 1), and only when none is below it, to the smallest job with work.
 *
 * Decentral: every job sends params.hopper_probes reservations per task (power of many
 * choices, section 5.1) and keeps them after its tasks are placed (section 6.1). A free
 * worker runs Pseudocode 3: refusable offers to the jobs in its queue by ascending virtual
 * size, each costing a round trip; a job's scheduler accepts while it holds fewer slots
 * than its virtual size or its fair share (Pseudocode 2) and has work, else refuses. After
 * params.refusals refusals the worker gives a non-refusable offer to the smallest
 * unsatisfied job the refusing schedulers named (job j belongs to scheduler j mod 10, the
 * prototype's 10 schedulers); when none named one, it takes the system to be not
 * slot-constrained and draws a job in proportion to virtual sizes (Guideline 3). Jobs below
 * their epsilon-fair share are offered first. */
#include "config.h"

#include "policies/hopper.h"
#include "policies/spec.h"
#include "lib/util.h"

#include <math.h>
#include <string.h>

typedef struct hopper_priv
{
  ebb_spec s; /* first: the speculation core reads it from p->priv */
  double *v;
  uint32_t *alloc;
  uint8_t *raised;
  uint32_t cap;
} hopper_priv;

/* Guideline 2 or 3 over the jobs not raised, with `slots`. */
static void
guideline (const double *v, uint32_t n, double slots, const uint8_t *raised, uint32_t *alloc)
{
  double total = 0;
  for (uint32_t i = 0; i < n; i++)
    if (!raised || !raised[i])
      total += v[i];
  if (slots < total)
    {
      double left = slots;
      for (uint32_t i = 0; i < n; i++)
        {
          if (raised && raised[i])
            continue;
          double a = floor (fmin (left, v[i]));
          alloc[i] = (uint32_t)a;
          left = fmax (left - a, 0);
        }
      return;
    }
  for (uint32_t i = 0; i < n; i++)
    if (!raised || !raised[i])
      alloc[i] = (uint32_t)floor (v[i] / total * slots);
}

static void
allocate (const double *v, uint32_t n, uint32_t slots, double epsilon, uint32_t *alloc,
          uint8_t *raised)
{
  if (n == 0)
    return;
  guideline (v, n, slots, NULL, alloc);
  uint32_t fair = (uint32_t)floor ((1 - epsilon) * slots / n);
  if (fair == 0)
    return;
  memset (raised, 0, n);
  uint32_t nraised = 0;
  for (;;)
    {
      uint32_t more = 0;
      for (uint32_t i = 0; i < n; i++)
        if (!raised[i] && alloc[i] < fair)
          {
            raised[i] = 1;
            alloc[i] = fair;
            more++;
          }
      if (more == 0)
        return;
      nraised += more;
      if (nraised == n)
        return;
      guideline (v, n, (double)slots - (double)nraised * fair, raised, alloc);
    }
}

void
ebb_hopper_allocate (const double *v, uint32_t n, uint32_t slots, double epsilon, uint32_t *alloc)
{
  uint8_t *raised = ebb_xmalloc (n ? n : 1);
  allocate (v, n, slots, epsilon, alloc, raised);
  free (raised);
}

/* Recomputes every active job's allotment after remaining counts changed. */
static void
refresh_alloc (ebb_pol *p)
{
  hopper_priv *h = p->priv;
  ebb_spec *s = &h->s;
  if (!s->dirty)
    return;
  s->dirty = 0;
  uint32_t n = s->norder;
  if (n > h->cap)
    {
      h->cap = n * 2;
      h->v = ebb_xrealloc (h->v, sizeof *h->v * h->cap);
      h->alloc = ebb_xrealloc (h->alloc, sizeof *h->alloc * h->cap);
      h->raised = ebb_xrealloc (h->raised, h->cap);
    }
  for (uint32_t i = 0; i < n; i++)
    h->v[i] = ebb_spec_virtual_size (p->params.spec_beta, s->jobs[s->order[i]].remaining);
  allocate (h->v, n, p->params.nnodes, p->params.epsilon, h->alloc, h->raised);
  for (uint32_t i = 0; i < n; i++)
    s->jobs[s->order[i]].alloc = h->alloc[i];
}

static uint32_t
hopper_pick_central (ebb_pol *p, double now_sec, uint32_t node)
{
  (void)node;
  hopper_priv *h = p->priv;
  ebb_spec *s = &h->s;
  refresh_alloc (p);
  for (uint32_t i = 0; i < s->norder; i++)
    {
      uint32_t job = s->order[i];
      if (s->jobs[job].occupied < s->jobs[job].alloc && ebb_spec_runnable (p, job, now_sec))
        return job;
    }
  /* The budget of Figure 2: a job below its allotment whose originals are all out keeps
   * free slots for the copies it may need, up to its allotment and its virtual size, and
   * no more: every free slot past what the budgets are owed goes to a job with work
   * (Figure 1b's fixed pool, which leaves slots fallow, is what Hopper avoids). */
  uint32_t owed = 0;
  for (uint32_t i = 0; i < s->norder; i++)
    {
      uint32_t job = s->order[i];
      const ebb_spec_job *j = &s->jobs[job];
      if (!ebb_spec_may_speculate (s, p, job))
        continue;
      double v = ceil (ebb_spec_virtual_size (p->params.spec_beta, j->remaining));
      uint32_t lim = (double)j->alloc < v ? j->alloc : (uint32_t)v;
      if (j->occupied < lim)
        owed += lim - j->occupied;
    }
  if (s->nidle <= owed)
    return EBB_POL_NONE; /* kept for the stragglers (the offered node is one of nidle) */
  /* Guideline 1: a slot no allotment claims goes first to a job still below its desired
   * allocation V, the smallest with work (as a decentralized worker's non-refusable offer
   * goes to the smallest unsatisfied job, section 5.2), and not to a copy of a job that holds
   * V already: epsilon-fairness raises small jobs past V, and their unused share would
   * otherwise feed copies past V while larger jobs' originals wait. */
  for (uint32_t i = 0; i < s->norder; i++)
    {
      uint32_t job = s->order[i];
      const ebb_spec_job *j = &s->jobs[job];
      if (j->occupied < ebb_spec_virtual_size (p->params.spec_beta, j->remaining)
          && ebb_spec_runnable (p, job, now_sec))
        return job;
    }
  /* Every job with work holds V: the slots are not short (Guideline 3's regime). */
  for (uint32_t i = 0; i < s->norder; i++)
    if (ebb_spec_runnable (p, s->order[i], now_sec))
      return s->order[i];
  return EBB_POL_NONE;
}

/* Pseudocode 2: the job's scheduler takes a refusable offer while the job holds fewer
 * slots than its virtual size (or its epsilon-fair share) and has work for the slot. */
static int
scheduler_accepts (ebb_pol *p, uint32_t job, double fair, double now_sec)
{
  const ebb_spec_job *j = &((ebb_spec *)p->priv)->jobs[job];
  double v = ebb_spec_virtual_size (p->params.spec_beta, j->remaining);
  return (j->occupied < v || j->occupied < fair) && ebb_spec_runnable (p, job, now_sec);
}

/* Schedulers of the decentralized mode: job j belongs to scheduler j mod 10 (the paper's
 * prototype runs 10, section 6.1). */
#define HOPPER_SCHEDULERS 10

/* The smallest job of job's scheduler that would take the slot (what a refusal carries),
 * not counting jobs this worker already asked; EBB_POL_NONE if none. */
static uint32_t
unsatisfied_of (ebb_pol *p, uint32_t job, double fair, double now_sec)
{
  ebb_spec *s = p->priv;
  for (uint32_t i = 0; i < s->norder; i++)
    {
      uint32_t o = s->order[i];
      if (o % HOPPER_SCHEDULERS == job % HOPPER_SCHEDULERS && !s->jobs[o].refused
          && scheduler_accepts (p, o, fair, now_sec))
        return o;
    }
  return EBB_POL_NONE;
}

/* The reservation of q (nq of them) a worker offers itself to next: a job not yet refusing,
 * below its fair share first, then the earliest in job order; EBB_POL_NONE when every job
 * has refused. */
static uint32_t
next_offer (const ebb_spec *s, const uint32_t *q, uint32_t nq, double fair)
{
  uint32_t best = EBB_POL_NONE;
  int best_starved = 0;
  for (uint32_t i = 0; i < nq; i++)
    {
      const ebb_spec_job *j = &s->jobs[q[i]];
      if (j->refused)
        continue;
      int starved = j->occupied < fair;
      if (best == EBB_POL_NONE || starved > best_starved
          || (starved == best_starved && j->opos < s->jobs[q[best]].opos))
        best = i, best_starved = starved;
    }
  return best;
}

/* No unsatisfied job heard of: the system is not slot-constrained; Guideline 3, a
 * non-refusable offer drawn in proportion to virtual sizes among the jobs that have work
 * (each job once, however many reservations it has here). Returns the job, or EBB_POL_NONE
 * when none has work; marks the jobs seen (refused 2 and 3), which the caller clears. */
static uint32_t
offer_by_virtual_size (ebb_pol *p, double now_sec, const uint32_t *q, uint32_t nq,
                       double *delay_sec, uint32_t *resv)
{
  ebb_spec *s = p->priv;
  uint32_t job = EBB_POL_NONE;
  double total = 0;
  for (uint32_t i = 0; i < nq; i++)
    {
      ebb_spec_job *j = &s->jobs[q[i]];
      if (j->refused == 2 || !ebb_spec_runnable (p, q[i], now_sec))
        continue;
      j->refused = 2;
      total += ebb_spec_virtual_size (p->params.spec_beta, j->remaining);
    }
  if (total > 0)
    {
      double x = ebb_rng_double (&p->rng) * total;
      for (uint32_t i = 0; i < nq; i++)
        {
          ebb_spec_job *j = &s->jobs[q[i]];
          if (j->refused != 2)
            continue;
          j->refused = 3; /* counted once */
          job = q[i];
          *resv = i;
          x -= ebb_spec_virtual_size (p->params.spec_beta, j->remaining);
          if (x < 0)
            break;
        }
      *delay_sec += 2 * p->params.net_delay_sec;
    }
  return job;
}

/* Pseudocode 3 at a free worker; refused marks are cleared before returning. */
static uint32_t
hopper_pick_worker (ebb_pol *p, double now_sec, uint32_t node, double *delay_sec, uint32_t *resv)
{
  ebb_spec *s = p->priv;
  const uint32_t *q = s->resv[node];
  uint32_t nq = s->nresv[node];
  /* The fair share of section 4.3 with the count of active jobs, which the schedulers
   * learn from the messages they exchange anyway. */
  double fair = (1 - p->params.epsilon) * p->params.nnodes / (s->norder ? s->norder : 1);
  uint32_t pick = EBB_POL_NONE, refused = 0, unsat = EBB_POL_NONE;
  while (refused < p->params.refusals)
    {
      uint32_t best = next_offer (s, q, nq, fair);
      if (best == EBB_POL_NONE)
        break;
      if (scheduler_accepts (p, q[best], fair, now_sec))
        {
          pick = best;
          break;
        }
      s->jobs[q[best]].refused = 1;
      refused++;
      *delay_sec += 2 * p->params.net_delay_sec;
      /* The refusal names the scheduler's smallest unsatisfied job, if it has one. */
      uint32_t u = unsatisfied_of (p, q[best], fair, now_sec);
      if (u != EBB_POL_NONE && (unsat == EBB_POL_NONE || s->jobs[u].opos < s->jobs[unsat].opos))
        unsat = u;
    }
  uint32_t job = EBB_POL_NONE;
  if (pick != EBB_POL_NONE)
    {
      job = q[pick];
      *resv = pick;
    }
  else if (unsat != EBB_POL_NONE)
    {
      /* A non-refusable offer to the scheduler whose unsatisfied job is the smallest. */
      job = unsat;
      *delay_sec += 2 * p->params.net_delay_sec;
      for (uint32_t i = 0; i < nq; i++)
        if (q[i] == unsat)
          {
            *resv = i;
            break;
          }
    }
  else
    job = offer_by_virtual_size (p, now_sec, q, nq, delay_sec, resv);
  for (uint32_t i = 0; i < nq; i++)
    s->jobs[q[i]].refused = 0;
  return job;
}

static int
hopper_init (ebb_pol *p, ebb_error **err)
{
  (void)err;
  static const ebb_spec_hooks hooks = { hopper_pick_central, hopper_pick_worker };
  ebb_spec_init (p, p->priv, &hooks);
  return 0;
}

static void
hopper_fini (ebb_pol *p)
{
  hopper_priv *h = p->priv;
  ebb_spec_fini (&h->s);
  free (h->v);
  free (h->alloc);
  free (h->raised);
}

static void
hopper_job_arrived (ebb_pol *p, double now_sec, uint32_t job)
{
  ebb_spec_job_arrived (p, now_sec, job, p->params.hopper_probes);
}

const ebb_pol_ops ebb_pol_hopper_ops = {
  .name = "hopper",
  .summary = "speculation-aware: virtual sizes, Hopper's guidelines, epsilon-fairness",
  .priv_size = sizeof (hopper_priv),
  .init = hopper_init,
  .fini = hopper_fini,
  .job_arrived = hopper_job_arrived,
  .node_idle = ebb_spec_node_idle,
  .task_finished = ebb_spec_task_finished,
  .tick = ebb_spec_tick,
  .probe_enqueue = ebb_spec_probe_enqueue,
  .speculative = 1,
};
