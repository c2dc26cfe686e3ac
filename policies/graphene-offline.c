/* Graphene's offline step (OSDI 2016, section 4, Figures 6-8): for one DAG, choose
 * candidate troublesome sets T (long tasks, or tasks of hard-to-pack stages), close T over
 * paths, split the rest into parents P, children C and the unordered S, place T first
 * onto an empty space of machines x resources x time, then the other subsets in each of
 * the four dead-end-free orders (SPC, SCP, CSP, PSC; P only backwards, C only forwards),
 * and keep the most compact schedule. The online step uses the resulting start order.
 * Over 700 lines in one file on purpose: one algorithm with one entry point
 * (ebb_gr_build_schedule), its space of machines x time and the heap it places from all
 * static, so nothing of the representation leaks into policies/graphene.h. */
#include "config.h"

#include "policies/graphene.h"
#include "lib/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

/* One machine's usage over time: a step function, use[k] on [t[k], t[k + 1]); zero before
 * t[0] and after the last breakpoint (the last segment's use is zero). Its arrays are a
 * slice of the space's slab: a task adds at most two breakpoints, so 2 x tasks + 2 is
 * enough and a space is three allocations however many machines it has. */
typedef struct mach
{
  double *t;
  double *use; /* EBB_DAG_NRES per segment */
  uint32_t n;
} mach;

typedef struct space
{
  uint32_t m, ntasks, cap;
  mach *mc;
  double *slab;
  double *start, *end;
  uint8_t *placed;
  double lo, hi; /* first start, last end (lo > hi while empty) */
  int failed;    /* a task could not be placed: a dead end */
} space;

static void
space_init (space *s, uint32_t m, uint32_t n)
{
  s->m = m;
  s->ntasks = n;
  s->cap = 2 * n + 2;
  s->mc = ebb_xcalloc (m, sizeof *s->mc);
  s->slab = ebb_xmalloc ((size_t)m * s->cap * (1 + EBB_DAG_NRES) * sizeof *s->slab);
  for (uint32_t k = 0; k < m; k++)
    {
      s->mc[k].t = s->slab + (size_t)k * s->cap * (1 + EBB_DAG_NRES);
      s->mc[k].use = s->mc[k].t + s->cap;
    }
  s->start = ebb_xcalloc (n, sizeof *s->start);
  s->end = ebb_xcalloc (n, sizeof *s->end);
  s->placed = ebb_xcalloc (n, 1);
  s->lo = INFINITY;
  s->hi = -INFINITY;
  s->failed = 0;
}

static void
space_release (space *s)
{
  free (s->mc);
  free (s->slab);
  free (s->start);
  free (s->end);
  free (s->placed);
  memset (s, 0, sizeof *s);
}

/* The spaces of one DAG all have the same shape (its machines, its tasks), and a search
 * makes thousands of them: a space freed goes back to a pool and the next one reuses its
 * memory (the allocator was a fifth of the offline step's time). */
typedef struct pool
{
  uint32_t m, ntasks;
  space *v;
  uint32_t n, cap;
} pool;

/* An empty space of the pool's shape. */
static void
space_get (pool *pl, space *s)
{
  if (pl->n == 0)
    {
      space_init (s, pl->m, pl->ntasks);
      return;
    }
  *s = pl->v[--pl->n];
  for (uint32_t k = 0; k < s->m; k++)
    s->mc[k].n = 0;
  memset (s->start, 0, s->ntasks * sizeof *s->start);
  memset (s->end, 0, s->ntasks * sizeof *s->end);
  memset (s->placed, 0, s->ntasks);
  s->lo = INFINITY;
  s->hi = -INFINITY;
  s->failed = 0;
}

static void
space_free (pool *pl, space *s)
{
  if (!s->mc)
    return;
  if (pl->n == pl->cap)
    {
      pl->cap = pl->cap ? 2 * pl->cap : 16;
      pl->v = ebb_xrealloc (pl->v, pl->cap * sizeof *pl->v);
    }
  pl->v[pl->n++] = *s;
  memset (s, 0, sizeof *s);
}

static void
pool_fini (pool *pl)
{
  for (uint32_t i = 0; i < pl->n; i++)
    space_release (&pl->v[i]);
  free (pl->v);
  memset (pl, 0, sizeof *pl);
}

static void
space_copy (pool *pl, space *dst, const space *src)
{
  space_get (pl, dst);
  for (uint32_t k = 0; k < src->m; k++)
    {
      const mach *a = &src->mc[k];
      mach *b = &dst->mc[k];
      b->n = a->n;
      memcpy (b->t, a->t, a->n * sizeof *b->t);
      memcpy (b->use, a->use, (size_t)a->n * EBB_DAG_NRES * sizeof *b->use);
    }
  memcpy (dst->start, src->start, src->ntasks * sizeof *dst->start);
  memcpy (dst->end, src->end, src->ntasks * sizeof *dst->end);
  memcpy (dst->placed, src->placed, src->ntasks);
  dst->lo = src->lo;
  dst->hi = src->hi;
  dst->failed = src->failed;
}

static double
makespan (const space *s)
{
  if (s->failed)
    return INFINITY;
  return s->hi >= s->lo ? s->hi - s->lo : 0;
}

/* Index of the segment holding time x (the last k with t[k] <= x), or -1 before t[0]. */
static int64_t
seg_at (const mach *m, double x)
{
  /* Branch-free halving (the search is a tenth of a Graphene run): base[0] <= x < the
   * element past the window, whenever such elements exist. */
  uint32_t n = m->n;
  if (n == 0)
    return -1;
  const double *base = m->t;
  while (n > 1)
    {
      uint32_t half = n / 2;
      base = base[half] <= x ? base + half : base;
      n -= half;
    }
  return (int64_t)(base - m->t) + (*base <= x) - 1;
}

static int
over (const double *use, const double *dem)
{
  for (int r = 0; r < EBB_DAG_NRES; r++)
    if (use[r] + dem[r] > 1 + EPS)
      return 1;
  return 0;
}

/* Makes x a breakpoint of m. */
static void
split_at (mach *m, double x)
{
  int64_t k = seg_at (m, x);
  if (k >= 0 && m->t[k] == x)
    return;
  uint32_t at = (uint32_t)(k + 1);
  memmove (m->t + at + 1, m->t + at, (m->n - at) * sizeof *m->t);
  memmove (m->use + (size_t)(at + 1) * EBB_DAG_NRES, m->use + (size_t)at * EBB_DAG_NRES,
           (size_t)(m->n - at) * EBB_DAG_NRES * sizeof *m->use);
  m->t[at] = x;
  for (int r = 0; r < EBB_DAG_NRES; r++)
    m->use[(size_t)at * EBB_DAG_NRES + r] = k >= 0 ? m->use[(size_t)k * EBB_DAG_NRES + r] : 0;
  m->n++;
}

static void
put (space *s, uint32_t mi, uint32_t task, double a, double b, const double *dem)
{
  s->placed[task] = 1;
  s->start[task] = a;
  s->end[task] = b;
  if (a < s->lo)
    s->lo = a;
  if (b > s->hi)
    s->hi = b;
  if (b <= a)
    return;
  mach *m = &s->mc[mi];
  split_at (m, a);
  split_at (m, b);
  for (int64_t k = seg_at (m, a); k < m->n && m->t[k] < b; k++)
    for (int r = 0; r < EBB_DAG_NRES; r++)
      m->use[(size_t)k * EBB_DAG_NRES + r] += dem[r];
}

/* Earliest start >= lb on machine m with the end <= ub (and before cutoff, the best other
 * machines offer); INFINITY when none. One sweep: a conflicting segment moves the candidate
 * start to its end and the scan goes on from there. */
static double
earliest (const mach *m, double lb, double ub, double dur, const double *dem, double cutoff)
{
  double a = lb;
  if (a + dur > ub + EPS || a >= cutoff)
    return INFINITY;
  int64_t k = m->n && dur > 0 ? seg_at (m, a) : m->n;
  if (k < 0)
    k = 0;
  for (;;)
    {
      if (a + dur > ub + EPS || a >= cutoff)
        return INFINITY;
      int conflict = 0;
      for (int64_t i = k; i < m->n && m->t[i] < a + dur; i++)
        {
          double seg_end = i + 1 < m->n ? m->t[i + 1] : INFINITY;
          if (seg_end <= a)
            continue;
          if (over (m->use + (size_t)i * EBB_DAG_NRES, dem))
            {
              a = seg_end;
              k = i + 1;
              conflict = 1;
              break;
            }
        }
      if (!conflict)
        return a;
    }
}

/* Latest end <= ub on machine m with the start >= lb (and after cutoff); -INFINITY when
 * none. The same sweep, backwards. */
static double
latest (const mach *m, double lb, double ub, double dur, const double *dem, double cutoff)
{
  double b = ub;
  if (b - dur < lb - EPS || b <= cutoff)
    return -INFINITY;
  int64_t k = m->n && dur > 0 ? seg_at (m, b) : -1;
  for (;;)
    {
      if (b - dur < lb - EPS || b <= cutoff)
        return -INFINITY;
      int conflict = 0;
      for (int64_t i = k; i >= 0; i--)
        {
          double seg_end = i + 1 < m->n ? m->t[i + 1] : INFINITY;
          if (m->t[i] >= b)
            continue;
          if (seg_end <= b - dur)
            break;
          if (over (m->use + (size_t)i * EBB_DAG_NRES, dem))
            {
              b = m->t[i];
              k = i - 1;
              conflict = 1;
              break;
            }
        }
      if (!conflict)
        return b;
    }
}

/* A max-heap of tasks by duration (ties: lower index first), the ready set of a pass. */
typedef struct rheap
{
  uint32_t *v;
  uint32_t n;
  const double *dur;
} rheap;

static int
rh_before (const rheap *h, uint32_t a, uint32_t b)
{
  return h->dur[a] > h->dur[b] || (h->dur[a] == h->dur[b] && a < b);
}

static void
rh_push (rheap *h, uint32_t x)
{
  uint32_t i = h->n++;
  while (i > 0 && rh_before (h, x, h->v[(i - 1) / 2]))
    {
      h->v[i] = h->v[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  h->v[i] = x;
}

static uint32_t
rh_pop (rheap *h)
{
  uint32_t top = h->v[0], x = h->v[--h->n], i = 0;
  for (;;)
    {
      uint32_t c = 2 * i + 1;
      if (c >= h->n)
        break;
      if (c + 1 < h->n && rh_before (h, h->v[c + 1], h->v[c]))
        c++;
      if (!rh_before (h, h->v[c], x))
        break;
      h->v[i] = h->v[c];
      i = c;
    }
  if (h->n)
    h->v[i] = x;
  return top;
}

/* The machine that starts a task of duration dur and demands dem earliest, at or after lb
 * and ending by ub, in *best_m (left as it was when none can); returns that start. */
static double
earliest_machine (const space *s, double lb, double ub, double dur, const double *dem,
                  uint32_t *best_m)
{
  double best = INFINITY;
  /* Machine e is idle from lb on, so it starts the task at lb and no machine after it can
   * win (ties keep the first): those before it only matter if they start it at lb too,
   * which a cutoff just above lb checks without a full search. */
  uint32_t e = s->m;
  for (uint32_t m = 0; m < s->m && e == s->m; m++)
    if (s->mc[m].n == 0 || s->mc[m].t[s->mc[m].n - 1] <= lb)
      e = m;
  double cut = e < s->m ? nextafter (lb, INFINITY) : INFINITY;
  for (uint32_t m = 0; m <= e && m < s->m; m++)
    {
      double a = earliest (&s->mc[m], lb, ub, dur, dem, m < e && cut < best ? cut : best);
      if (a < best)
        best = a, *best_m = m;
      if (best <= lb)
        break; /* no machine starts it earlier, and ties keep the first */
    }
  return best;
}

/* The mirror of earliest_machine(): the machine that ends the task latest, by ub and
 * starting at or after lb; returns that end. */
static double
latest_machine (const space *s, double lb, double ub, double dur, const double *dem,
                uint32_t *best_m)
{
  double best = -INFINITY;
  /* The mirror: machine e is idle until ub. */
  uint32_t e = s->m;
  for (uint32_t m = 0; m < s->m && e == s->m; m++)
    if (s->mc[m].n == 0 || s->mc[m].t[0] >= ub)
      e = m;
  double cut = e < s->m ? nextafter (ub, -INFINITY) : -INFINITY;
  for (uint32_t m = 0; m <= e && m < s->m; m++)
    {
      double b = latest (&s->mc[m], lb, ub, dur, dem, m < e && cut > best ? cut : best);
      if (b > best)
        best = b, *best_m = m;
      if (best >= ub)
        break; /* no machine ends it later, and ties keep the first */
    }
  return best;
}

/* Places the tasks of subset `in` (in[t] != 0) onto s: forwards (each after its last
 * finishing placed parent, at the earliest time it fits) or backwards (each before its
 * first starting placed child, at the latest). Dependencies on tasks outside `in` that are
 * not placed yet are ignored: the subset orders place those later on the other side.
 * nodeps: ignore the edges altogether (the greedy packer of FragScore). */
static void
place (space *s, const ebb_gr_dag *d, const uint8_t *in, int forward, int nodeps, uint32_t *need,
       rheap *h)
{
  const ebb_dag_graph *g = d->g;
  h->n = 0;
  for (uint32_t t = 0; t < d->n; t++)
    {
      if (!in[t] || s->placed[t])
        continue;
      need[t] = 0;
      const uint32_t *off = forward ? g->par_off : g->chi_off, *adj = forward ? g->par : g->chi;
      for (uint32_t k = off[t]; !nodeps && k < off[t + 1]; k++)
        if (in[adj[k]] && !s->placed[adj[k]])
          need[t]++;
      if (need[t] == 0)
        rh_push (h, t);
    }
  double anchor = s->hi >= s->lo ? s->hi : 0;
  while (h->n && !s->failed)
    {
      uint32_t t = rh_pop (h);
      double lb = -INFINITY, ub = INFINITY;
      for (uint32_t k = g->par_off[t]; !nodeps && k < g->par_off[t + 1]; k++)
        if (s->placed[g->par[k]] && s->end[g->par[k]] > lb)
          lb = s->end[g->par[k]];
      for (uint32_t k = g->chi_off[t]; !nodeps && k < g->chi_off[t + 1]; k++)
        if (s->placed[g->chi[k]] && s->start[g->chi[k]] < ub)
          ub = s->start[g->chi[k]];
      const double *dem = d->dem + (size_t)t * EBB_DAG_NRES;
      double dur = d->dur[t];
      uint32_t best_m = UINT32_MAX;
      double best;
      if (forward)
        {
          if (lb == -INFINITY)
            lb = s->hi >= s->lo ? s->lo : 0; /* a source: from the start of the space */
          best = earliest_machine (s, lb, ub, dur, dem, &best_m);
        }
      else
        {
          if (ub == INFINITY)
            ub = anchor; /* a sink: ends by the current end of the space */
          best = latest_machine (s, lb, ub, dur, dem, &best_m);
        }
      if (best_m == UINT32_MAX)
        {
          s->failed = 1; /* a dead end: the orders of section 4.3 never get here */
          break;
        }
      double a = forward ? best : best - dur;
      put (s, best_m, t, a, a + dur, dem);
      const uint32_t *off = forward ? g->chi_off : g->par_off, *adj = forward ? g->chi : g->par;
      for (uint32_t k = off[t]; !nodeps && k < off[t + 1]; k++)
        if (in[adj[k]] && !s->placed[adj[k]] && --need[adj[k]] == 0)
          rh_push (h, adj[k]);
    }
  for (uint32_t t = 0; t < d->n && !s->failed; t++)
    if (in[t] && !s->placed[t])
      s->failed = 1;
}

/* Scratch shared by the placements of one DAG. */
typedef struct work
{
  const ebb_gr_dag *d;
  uint32_t *need;
  rheap h;
  pool pl;
} work;

/* PlaceTasksF / PlaceTasksB onto a copy of src, into out. */
static void
place_copy (work *w, const space *src, const uint8_t *in, int forward, space *out)
{
  space_copy (&w->pl, out, src);
  place (out, w->d, in, forward, 0, w->need, &w->h);
}

/* PlaceTasks: the more compact of the forwards and backwards placements. */
static void
place_best (work *w, const space *src, const uint8_t *in, space *out)
{
  space f, b;
  place_copy (w, src, in, 1, &f);
  place_copy (w, src, in, 0, &b);
  if (makespan (&b) < makespan (&f))
    {
      *out = b;
      space_free (&w->pl, &f);
    }
  else
    {
      *out = f;
      space_free (&w->pl, &b);
    }
}

/* TrySubsetOrders (Figure 8): the four orders after T, the most compact one in *best.
 * Returns the index of the order kept. */
static uint32_t
try_orders (work *w, const space *st, const uint8_t *S, const uint8_t *P, const uint8_t *C,
            space *best)
{
  space sp[EBB_GR_NORDERS], tmp, tmp2;
  /* SPC and SCP share PlaceTasks(S). */
  space s_first;
  place_best (w, st, S, &s_first);
  place_copy (w, &s_first, P, 0, &tmp);
  place_copy (w, &tmp, C, 1, &sp[EBB_GR_ORDER_SPC]);
  space_free (&w->pl, &tmp);
  place_copy (w, &s_first, C, 1, &tmp);
  place_copy (w, &tmp, P, 0, &sp[EBB_GR_ORDER_SCP]);
  space_free (&w->pl, &tmp);
  space_free (&w->pl, &s_first);
  place_copy (w, st, C, 1, &tmp);
  place_copy (w, &tmp, S, 0, &tmp2);
  place_copy (w, &tmp2, P, 0, &sp[EBB_GR_ORDER_CSP]);
  space_free (&w->pl, &tmp);
  space_free (&w->pl, &tmp2);
  place_copy (w, st, P, 0, &tmp);
  place_copy (w, &tmp, S, 1, &tmp2);
  place_copy (w, &tmp2, C, 1, &sp[EBB_GR_ORDER_PSC]);
  space_free (&w->pl, &tmp);
  space_free (&w->pl, &tmp2);
  uint32_t k = 0;
  for (uint32_t i = 1; i < EBB_GR_NORDERS; i++)
    if (makespan (&sp[i]) < makespan (&sp[k]))
      k = i;
  for (uint32_t i = 0; i < EBB_GR_NORDERS; i++)
    if (i != k)
      space_free (&w->pl, &sp[i]);
  *best = sp[k];
  return k;
}

uint32_t
ebb_gr_space_machines (const ebb_gr_dag *d, uint32_t nnodes)
{
  double sum = 0;
  for (uint32_t t = 0; t < d->n; t++)
    {
      double dom = 0;
      for (int r = 0; r < EBB_DAG_NRES; r++)
        if (d->dem[(size_t)t * EBB_DAG_NRES + r] > dom)
          dom = d->dem[(size_t)t * EBB_DAG_NRES + r];
      sum += dom;
    }
  double m = ceil (sum - EPS);
  if (m < 1)
    m = 1;
  return m < nnodes ? (uint32_t)m : nnodes;
}

/* FragScore of every stage (section 4.1): the stage's work bound over the time a greedy
 * packer takes to run it alone on the space. The bound is max(TWork, longest task): TWork
 * alone (work / capacity) would call a stage narrower than the space hard to pack. */
static void
frag_scores (work *w, double *frag_of_task)
{
  const ebb_gr_dag *d = w->d;
  uint8_t *in = ebb_xcalloc (d->n, 1), *done = ebb_xcalloc (d->n, 1);
  for (uint32_t t0 = 0; t0 < d->n; t0++)
    {
      if (done[t0])
        continue;
      uint32_t st = d->stage ? d->stage[t0] : t0;
      double work_r[EBB_DAG_NRES] = { 0 }, longest = 0;
      memset (in, 0, d->n);
      for (uint32_t t = t0; t < d->n; t++)
        if ((d->stage ? d->stage[t] : t) == st)
          {
            in[t] = 1;
            done[t] = 1;
            for (int r = 0; r < EBB_DAG_NRES; r++)
              work_r[r] += d->dur[t] * d->dem[(size_t)t * EBB_DAG_NRES + r];
            if (d->dur[t] > longest)
              longest = d->dur[t];
          }
      double bound = longest;
      for (int r = 0; r < EBB_DAG_NRES; r++)
        if (work_r[r] / d->machines > bound)
          bound = work_r[r] / d->machines;
      space s;
      space_get (&w->pl, &s);
      place (&s, d, in, 1, 1, w->need, &w->h);
      double exec = makespan (&s);
      space_free (&w->pl, &s);
      double score = exec > 0 ? bound / exec : 1;
      for (uint32_t t = t0; t < d->n; t++)
        if (in[t])
          frag_of_task[t] = score;
    }
  free (in);
  free (done);
}

/* Closure of T over paths (a task both below and above T is in T); then P = ancestors of
 * T, C = descendants of T, S = the rest. */
static void
split_sets (const ebb_gr_dag *d, uint8_t *T, uint8_t *S, uint8_t *P, uint8_t *C)
{
  const ebb_dag_graph *g = d->g;
  uint8_t *anc = ebb_xcalloc (d->n, 1), *desc = ebb_xcalloc (d->n, 1);
  /* desc: below some T task (strictly); anc: above some T task (strictly). */
  for (uint32_t i = 0; i < d->n; i++)
    {
      uint32_t t = g->topo[i];
      for (uint32_t k = g->par_off[t]; k < g->par_off[t + 1]; k++)
        if (T[g->par[k]] || desc[g->par[k]])
          desc[t] = 1;
    }
  for (uint32_t i = d->n; i-- > 0;)
    {
      uint32_t t = g->topo[i];
      for (uint32_t k = g->chi_off[t]; k < g->chi_off[t + 1]; k++)
        if (T[g->chi[k]] || anc[g->chi[k]])
          anc[t] = 1;
    }
  for (uint32_t t = 0; t < d->n; t++)
    {
      if (anc[t] && desc[t])
        T[t] = 1;
      P[t] = !T[t] && anc[t];
      C[t] = !T[t] && desc[t];
      S[t] = !T[t] && !P[t] && !C[t];
    }
  free (anc);
  free (desc);
}

static int
cmp_start (const void *a, const void *b, void *arg)
{
  const double *st = arg;
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  if (st[x] != st[y])
    return st[x] < st[y] ? -1 : 1;
  return x < y ? -1 : x > y;
}

/* Schedules the candidate trouble set T (nt tasks; S, P, C the rest, split_sets()) in
 * every order; keeps the schedule in *best and plan's ntrouble and order when its makespan
 * is below *best_ms. */
static void
try_candidate (work *w, const uint8_t *T, const uint8_t *S, const uint8_t *P, const uint8_t *C,
               uint32_t nt, ebb_gr_plan *plan, space *best, double *best_ms)
{
  /* Every set pruned: the whole DAG is S (T empty), placed both ways. */
  space empty, st, sched;
  space_get (&w->pl, &empty);
  place_best (w, &empty, T, &st);
  uint32_t order = try_orders (w, &st, S, P, C, &sched);
  space_free (&w->pl, &empty);
  space_free (&w->pl, &st);
  plan->candidates++;
  plan->schedules += EBB_GR_NORDERS;
  if (makespan (&sched) < *best_ms)
    {
      *best_ms = makespan (&sched);
      space_free (&w->pl, best);
      *best = sched;
      plan->ntrouble = nt;
      plan->order = order;
    }
  else
    space_free (&w->pl, &sched);
}

/* The plan of the best schedule (makespan best_ms) of n tasks: each task's start from the
 * schedule's beginning and its rank. */
static void
rank_by_start (ebb_gr_plan *plan, const space *best, double best_ms, uint32_t n)
{
  plan->makespan = best_ms;
  uint32_t *idx = ebb_xmalloc ((n ? n : 1) * sizeof *idx);
  for (uint32_t t = 0; t < n; t++)
    {
      idx[t] = t;
      plan->start[t] = best->start[t] - best->lo;
    }
  qsort_r (idx, n, sizeof *idx, cmp_start, plan->start);
  /* Ranked by start time (section 5): tasks the schedule starts together share a rank, the
   * number of tasks that start before them; the schedule does not order them, and an order
   * by task id would put a stage's last tasks far behind its first. */
  for (uint32_t i = 0; i < n; i++)
    plan->rank[idx[i]] = i > 0 && plan->start[idx[i]] - plan->start[idx[i - 1]] <= EBB_GR_SAME_START
                             ? plan->rank[idx[i - 1]]
                             : i;
  free (idx);
}

/* Thresholds: l and f on the grid delta, 2 delta, ... 1 (Figure 7), delta = 1/4. */
#define GR_STEPS 4
/* A T covering more than this share of the tasks is pruned (section 4.4: placing most of
 * the DAG first cannot leave holes for the rest). */
#define GR_MAX_T_SHARE 0.75

int
ebb_gr_build_schedule (const ebb_gr_dag *d, ebb_gr_plan *plan)
{
  uint32_t n = d->n;
  work w = { .d = d, .pl = { .m = d->machines, .ntasks = n } };
  w.need = ebb_xmalloc ((n ? n : 1) * sizeof *w.need);
  w.h.v = ebb_xmalloc ((n ? n : 1) * sizeof *w.h.v);
  w.h.dur = d->dur;
  double *frag = ebb_xmalloc ((n ? n : 1) * sizeof *frag);
  frag_scores (&w, frag);
  double dmax = 0;
  for (uint32_t t = 0; t < n; t++)
    if (d->dur[t] > dmax)
      dmax = d->dur[t];
  size_t ncand = 0, cand_cap = GR_STEPS * (GR_STEPS + 1) + 1;
  uint8_t *cands = ebb_xcalloc (cand_cap * (n ? n : 1), 1);
  uint8_t *T = ebb_xmalloc (n ? n : 1), *S = ebb_xmalloc (n ? n : 1);
  uint8_t *P = ebb_xmalloc (n ? n : 1), *C = ebb_xmalloc (n ? n : 1);
  space best = { 0 };
  double best_ms = INFINITY;
  plan->candidates = plan->schedules = 0;
  /* f = 0 stands for "no stage is hard to pack": T from LongScore alone. */
  for (int pass = 0; pass < 2; pass++)
    for (int li = GR_STEPS; li >= 1; li--)
      for (int fi = 0; fi <= GR_STEPS; fi++)
        {
          if (pass == 1 && !(li == GR_STEPS && fi == 0))
            continue; /* the fallback below runs once */
          if (pass == 1 && ncand > 0)
            continue;
          double l = (double)li / GR_STEPS, f = (double)fi / GR_STEPS;
          uint32_t nt = 0;
          for (uint32_t t = 0; t < n; t++)
            {
              double ls = dmax > 0 ? d->dur[t] / dmax : 1;
              T[t] = pass == 1 ? 0 : (ls >= l - EPS || frag[t] <= f - EPS);
            }
          split_sets (d, T, S, P, C);
          for (uint32_t t = 0; t < n; t++)
            nt += T[t];
          if (pass == 0 && (nt == 0 || nt > GR_MAX_T_SHARE * n))
            continue;
          int dup = 0;
          for (size_t c = 0; c < ncand && !dup; c++)
            dup = memcmp (cands + c * n, T, n) == 0;
          if (dup)
            continue;
          memcpy (cands + ncand++ * n, T, n);
          try_candidate (&w, T, S, P, C, nt, plan, &best, &best_ms);
        }
  int r = 0;
  if (best_ms == INFINITY)
    r = -1;
  else
    rank_by_start (plan, &best, best_ms, n);
  space_free (&w.pl, &best);
  free (cands);
  free (T);
  free (S);
  free (P);
  free (C);
  free (frag);
  free (w.need);
  free (w.h.v);
  pool_fini (&w.pl);
  return r;
}
