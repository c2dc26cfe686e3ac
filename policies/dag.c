/* Graph helpers of the DAG policies. */
#include "config.h"

#include "policies/dag.h"
#include "lib/util.h"

#include <stdlib.h>
#include <string.h>

void
ebb_dag_graph_free (ebb_dag_graph *g)
{
  free (g->par_off);
  free (g->par);
  free (g->chi_off);
  free (g->chi);
  free (g->topo);
  memset (g, 0, sizeof *g);
}

/* Counting sort of the edges by one end into CSR arrays. */
static void
csr (uint32_t n, const uint32_t *edges, uint32_t nedges, int by, uint32_t **off_out,
     uint32_t **adj_out)
{
  uint32_t *off = ebb_xcalloc ((size_t)n + 1, sizeof *off);
  uint32_t *adj = ebb_xmalloc ((nedges ? nedges : 1) * sizeof *adj);
  for (uint32_t e = 0; e < nedges; e++)
    off[edges[2 * e + by] + 1]++;
  for (uint32_t t = 0; t < n; t++)
    off[t + 1] += off[t];
  uint32_t *pos = ebb_xmalloc (((size_t)n + 1) * sizeof *pos);
  memcpy (pos, off, ((size_t)n + 1) * sizeof *pos);
  for (uint32_t e = 0; e < nedges; e++)
    adj[pos[edges[2 * e + by]]++] = edges[2 * e + 1 - by];
  free (pos);
  *off_out = off;
  *adj_out = adj;
}

int
ebb_dag_graph_build (ebb_dag_graph *g, uint32_t n, const uint32_t *edges, uint32_t nedges,
                     uint32_t *bad)
{
  memset (g, 0, sizeof *g);
  for (uint32_t e = 0; e < nedges; e++)
    if (edges[2 * e] >= n || edges[2 * e + 1] >= n)
      {
        *bad = e;
        return -1;
      }
  g->n = n;
  csr (n, edges, nedges, 1, &g->par_off, &g->par);
  csr (n, edges, nedges, 0, &g->chi_off, &g->chi);
  /* Kahn's algorithm, lowest index first among the ready (a FIFO over index order keeps it
   * deterministic and linear). */
  g->topo = ebb_xmalloc ((n ? n : 1) * sizeof *g->topo);
  uint32_t *indeg = ebb_xmalloc ((n ? n : 1) * sizeof *indeg);
  uint32_t head = 0, tail = 0;
  for (uint32_t t = 0; t < n; t++)
    if ((indeg[t] = g->par_off[t + 1] - g->par_off[t]) == 0)
      g->topo[tail++] = t;
  while (head < tail)
    {
      uint32_t t = g->topo[head++];
      for (uint32_t k = g->chi_off[t]; k < g->chi_off[t + 1]; k++)
        if (--indeg[g->chi[k]] == 0)
          g->topo[tail++] = g->chi[k];
    }
  if (tail < n)
    {
      /* Tasks left with parents are on a cycle or below one; walk parents among them from
       * the lowest until a task repeats: that walk is inside a cycle. */
      uint32_t t = 0;
      while (indeg[t] == 0)
        t++;
      uint8_t *seen = ebb_xcalloc (n, 1);
      while (!seen[t])
        {
          seen[t] = 1;
          uint32_t k = g->par_off[t];
          while (indeg[g->par[k]] == 0)
            k++;
          t = g->par[k];
        }
      /* t is on the cycle the same walk follows: report its lowest member. */
      uint32_t low = t, u = t;
      do
        {
          uint32_t k = g->par_off[u];
          while (indeg[g->par[k]] == 0)
            k++;
          u = g->par[k];
          if (u < low)
            low = u;
        }
      while (u != t);
      free (seen);
      free (indeg);
      ebb_dag_graph_free (g);
      *bad = low;
      return -2;
    }
  free (indeg);
  return 0;
}

void
ebb_dag_cp_length (const ebb_dag_graph *g, const double *dur_sec, double *cp)
{
  for (uint32_t i = g->n; i-- > 0;)
    {
      uint32_t t = g->topo[i];
      double best = 0;
      for (uint32_t k = g->chi_off[t]; k < g->chi_off[t + 1]; k++)
        if (cp[g->chi[k]] > best)
          best = cp[g->chi[k]];
      cp[t] = dur_sec[t] + best;
    }
}
