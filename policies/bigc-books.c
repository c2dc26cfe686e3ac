/* bigc's books kept up to date on change instead of rescanned per event (issue 21: at
 * 15,000 nodes a rescan per event never ends):
 *
 * - the nodes by free CPU, and the sum of their free room (negative counted as 0): an indexed heap
 * (policies/iheap.c) ordered by (-free CPU, node), whose top is the node find_node would pick among
 * all nodes (the most free CPU, the lowest id of equals). A node whose free room changed is marked
 * and its key set before the next pick: bigc marks the nodes of its own launches and resumptions
 * and of the events it is told (finished, reclaimed, killed, adopted); a change of capacity (no
 *   event of its own) is seen by p->cap_changes and re-keys every node.
 * - per node, the containers there that were given back (reclaimed) or adopted: the only
 *   ones that can be suspended or shrunk, so the only ones "a container waits to be restored
 *   on this node" needs to look at; and the candidates for resumption, those whose node had
 *   the room they lack when last looked at, in the running list's order (arrival rank, then
 *   task) as the full scan went (bigc.c: resume_pass). */
#include "config.h"

#include "policies/bigc.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

static ebb_pol_res
clamp0 (ebb_pol_res a)
{
  return (ebb_pol_res){ a.cpu_millis > 0 ? a.cpu_millis : 0,
                        a.memory_bytes > 0 ? a.memory_bytes : 0 };
}

void
ebb_pol_bigc_nodes_init (ebb_pol_bigc_nodes *m, const ebb_pol *p)
{
  uint32_t nn = p->params.nnodes;
  memset (m, 0, sizeof *m);
  m->pos = ebb_xmalloc (sizeof *m->pos * ((size_t)nn + 1));
  for (uint32_t n = 0; n < nn; n++)
    m->pos[n] = UINT32_MAX;
  ebb_pol_iheap_init (&m->heap, nn, m->pos);
  for (uint32_t n = 0; n < nn; n++)
    ebb_pol_iheap_push (&m->heap, n, -(double)p->node_free[n].cpu_millis);
  m->seen = ebb_xcalloc ((size_t)nn + 1, sizeof *m->seen);
  for (uint32_t n = 0; n < nn; n++)
    {
      m->seen[n] = p->node_free[n];
      ebb_pol_res_add (&m->free_sum, clamp0 (m->seen[n]));
    }
  m->dirty = ebb_xmalloc (sizeof *m->dirty * ((size_t)nn + 1));
  m->is_dirty = ebb_xcalloc ((size_t)nn + 1, 1);
  m->cap_seen = p->cap_changes;
}

void
ebb_pol_bigc_nodes_fini (ebb_pol_bigc_nodes *m)
{
  ebb_pol_iheap_fini (&m->heap);
  free (m->pos);
  free (m->seen);
  free (m->dirty);
  free (m->is_dirty);
}

void
ebb_pol_bigc_nodes_mark (ebb_pol_bigc_nodes *m, uint32_t node)
{
  if (!m->is_dirty[node])
    {
      m->is_dirty[node] = 1;
      m->dirty[m->ndirty++] = node;
    }
}

static void
nodes_flush (ebb_pol_bigc_nodes *m, const ebb_pol *p)
{
  if (m->cap_seen != p->cap_changes)
    {
      m->cap_seen = p->cap_changes;
      for (uint32_t n = 0; n < p->params.nnodes; n++)
        ebb_pol_bigc_nodes_mark (m, n);
    }
  for (uint32_t i = 0; i < m->ndirty; i++)
    {
      uint32_t n = m->dirty[i];
      m->is_dirty[n] = 0;
      ebb_pol_res_sub (&m->free_sum, clamp0 (m->seen[n]));
      m->seen[n] = p->node_free[n];
      ebb_pol_res_add (&m->free_sum, clamp0 (m->seen[n]));
      ebb_pol_iheap_set (&m->heap, n, -(double)p->node_free[n].cpu_millis);
    }
  m->ndirty = 0;
}

ebb_pol_res
ebb_pol_bigc_nodes_free (ebb_pol_bigc_nodes *m, const ebb_pol *p)
{
  nodes_flush (m, p);
  return m->free_sum;
}

uint32_t
ebb_pol_bigc_nodes_best (ebb_pol_bigc_nodes *m, const ebb_pol *p, ebb_pol_res demand)
{
  nodes_flush (m, p);
  if (m->heap.n == 0)
    return EBB_POL_NONE;
  uint32_t top = m->heap.s[0].id;
  if (demand.cpu_millis > p->node_free[top].cpu_millis)
    return EBB_POL_NONE; /* no node has the CPU */
  if (ebb_pol_res_fits (demand, p->node_free[top]))
    return top;
  /* The node with the most CPU lacks memory: the best fitting one, by the full scan. */
  uint32_t best = EBB_POL_NONE;
  for (uint32_t n = 0; n < p->params.nnodes; n++)
    if (ebb_pol_res_fits (demand, p->node_free[n])
        && (best == EBB_POL_NONE || p->node_free[n].cpu_millis > p->node_free[best].cpu_millis))
      best = n;
  return best;
}

static int
ref_before (const ebb_pol_bigc_ref *a, uint64_t rank, uint32_t task)
{
  return a->rank < rank || (a->rank == rank && a->task < task);
}

void
ebb_pol_bigc_refs_add (ebb_pol_bigc_refs *t, uint64_t rank, uint32_t job, uint32_t task)
{
  /* Binary search for the first entry not before (rank, task). */
  uint32_t lo = 0, hi = t->n;
  while (lo < hi)
    {
      uint32_t mid = lo + (hi - lo) / 2;
      if (ref_before (&t->v[mid], rank, task))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < t->n && t->v[lo].rank == rank && t->v[lo].task == task)
    return;
  if (t->n == t->cap)
    {
      t->cap = (uint32_t)ebb_grow_cap (t->cap, 64, (uint64_t)t->n + 1);
      t->v = ebb_xrealloc (t->v, sizeof *t->v * t->cap);
    }
  memmove (t->v + lo + 1, t->v + lo, sizeof *t->v * (t->n - lo));
  t->v[lo] = (ebb_pol_bigc_ref){ rank, job, task };
  t->n++;
}
