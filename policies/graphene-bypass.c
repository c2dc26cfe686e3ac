/* Which DAGs skip Graphene's offline step. Section 4.4: "jobs that are short-lived, or only
 * use a small amount of resources, or do not have complex DAG structures, will bypass the
 * offline portion". The text gives no threshold; the two clauses taken here need none (see
 * doc/graphene-fidelity.md): a DAG whose tasks all fit on one node at once (no order among
 * them can matter once a node is free), and a DAG whose stages form a chain (no branches
 * whose long tasks a plan could overlap: the structure of the paper's simple job, the
 * map-reduce it compares its DAGs with). "Short-lived" would need a duration of ours. */
#include "config.h"

#include "policies/graphene.h"
#include "lib/util.h"

#include <stdlib.h>

#define EPS 1e-9

/* Every resource's demands summed over the DAG fit in one machine. */
static int
fits_one_machine (const ebb_gr_dag *d)
{
  for (int r = 0; r < EBB_DAG_NRES; r++)
    {
      double sum = 0;
      for (uint32_t t = 0; t < d->n; t++)
        sum += d->dem[(size_t)t * EBB_DAG_NRES + r];
      if (sum > 1 + EPS)
        return 0;
    }
  return 1;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Sorts n values and drops repeats; returns how many remain. */
static size_t
sort_unique (uint64_t *v, size_t n)
{
  qsort (v, n, sizeof *v, cmp_u64);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (k == 0 || v[i] != v[k - 1])
      v[k++] = v[i];
  return k;
}

/* Distinct pairs (key << 32 | other), sorted: no key with two others. */
static int
single_valued (const uint64_t *pair, size_t n)
{
  for (size_t i = 1; i < n; i++)
    if (pair[i] >> 32 == pair[i - 1] >> 32)
      return 0;
  return 1;
}

/* The stages form one path: no stage has two parent stages or two child stages (edges inside
 * a stage aside), and they are connected (stages - 1 distinct stage edges), so an edgeless
 * DAG of several stages, whose stages run side by side, is not a chain. */
static int
stage_chain (const ebb_gr_dag *d)
{
  const ebb_dag_graph *g = d->g;
  size_t ne = g->par_off[d->n], k = 0;
  uint64_t *up = ebb_xmalloc ((ne ? ne : 1) * sizeof *up);
  uint64_t *down = ebb_xmalloc ((ne ? ne : 1) * sizeof *down);
  uint64_t *st = ebb_xmalloc (d->n * sizeof *st);
  for (uint32_t t = 0; t < d->n; t++)
    {
      st[t] = d->stage ? d->stage[t] : t;
      for (uint32_t i = g->par_off[t]; i < g->par_off[t + 1]; i++)
        {
          uint64_t sp = d->stage ? d->stage[g->par[i]] : g->par[i];
          if (sp == st[t])
            continue;
          up[k] = st[t] << 32 | sp;
          down[k++] = sp << 32 | st[t];
        }
    }
  size_t nst = sort_unique (st, d->n), nup = sort_unique (up, k);
  size_t ndown = sort_unique (down, k);
  int chain = nup + 1 == nst && single_valued (up, nup) && single_valued (down, ndown);
  free (up);
  free (down);
  free (st);
  return chain;
}

int
ebb_gr_bypass (const ebb_gr_dag *d)
{
  if (fits_one_machine (d))
    return EBB_GR_BYPASS_SMALL;
  if (stage_chain (d))
    return EBB_GR_BYPASS_CHAIN;
  return EBB_GR_BYPASS_NONE;
}
