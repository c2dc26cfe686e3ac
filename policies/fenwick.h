/* A Fenwick (binary indexed) tree of counts over positions [0, n): O(log n) to add to one
 * position and to count the positions before one. Graphene's online step uses one per job
 * over its tasks' offline ranks, to give a task its rank among the job's tasks not launched
 * yet (a launch removes its rank; the rank is the count of the ranks before it). */
#ifndef EBB_POLICY_FENWICK_H
#define EBB_POLICY_FENWICK_H

#include <stdint.h>

typedef struct ebb_pol_fenwick
{
  uint32_t *t; /* 1-based: t[i] sums the positions [i - lowbit(i), i) */
  uint32_t n;
} ebb_pol_fenwick;

/* Sets up the tree over n positions with count[i] at position i (all 0 when count is
 * NULL), in O(n). */
void ebb_pol_fenwick_init (ebb_pol_fenwick *f, uint32_t n, const uint32_t *count);
void ebb_pol_fenwick_fini (ebb_pol_fenwick *f);
/* Adds delta to position pos (< n); a position's count must stay >= 0. */
void ebb_pol_fenwick_add (ebb_pol_fenwick *f, uint32_t pos, int32_t delta);
/* The sum of the counts at positions [0, end), end <= n. */
uint32_t ebb_pol_fenwick_prefix (const ebb_pol_fenwick *f, uint32_t end);

#endif
