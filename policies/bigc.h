/* The arithmetic of BIG-C's Algorithm 1 (policies/bigc.c), exposed for the tests. */
#ifndef EBB_POLICY_BIGC_H
#define EBB_POLICY_BIGC_H

#include "policies/iheap.h"
#include "policies/policy-impl.h"

/* COMPUTEDR: reclaim the dominant resource of the short demand rs (dominant relative to the
 * cluster capacity cap) up to a, the other resource in rs's ratio, capped by a. Integer
 * arithmetic (128-bit intermediates). */
ebb_pol_res ebb_pol_bigc_computedr (ebb_pol_res rs, ebb_pol_res a, ebb_pol_res cap);

/* Algorithm 1: the vector to preempt from the long queue holding rl, for the unmet short
 * demand rs, with the long queue's share long_share of cap: rs when it fits in
 * a = rl - long_share x cap, else COMPUTEDR (rs, a). Zero when nothing is unmet or nothing
 * is over the share. */
ebb_pol_res ebb_pol_bigc_alg1 (ebb_pol_res rl, ebb_pol_res rs, ebb_pol_res cap, double long_share);

/* The nodes by free CPU (policies/bigc-books.c). */
typedef struct ebb_pol_bigc_nodes
{
  ebb_pol_iheap heap; /* key: -free CPU */
  uint32_t *pos;
  uint32_t *dirty; /* nodes whose key is to be set again */
  uint8_t *is_dirty;
  uint32_t ndirty;
  uint32_t cap_seen;    /* p->cap_changes when every key was last set */
  ebb_pol_res *seen;    /* per node: its free room when its key was set */
  ebb_pol_res free_sum; /* the sum of seen, each component at least 0 */
} ebb_pol_bigc_nodes;

void ebb_pol_bigc_nodes_init (ebb_pol_bigc_nodes *m, const ebb_pol *p);
void ebb_pol_bigc_nodes_fini (ebb_pol_bigc_nodes *m);
/* node's free room changed. */
void ebb_pol_bigc_nodes_mark (ebb_pol_bigc_nodes *m, uint32_t node);
/* The free room of all nodes (each node's negative components as 0). */
ebb_pol_res ebb_pol_bigc_nodes_free (ebb_pol_bigc_nodes *m, const ebb_pol *p);
/* The node where demand fits with the most free CPU (the lowest id of equals), or
 * EBB_POL_NONE: what a scan of every node gives, from the heap's top in the usual case. */
uint32_t ebb_pol_bigc_nodes_best (ebb_pol_bigc_nodes *m, const ebb_pol *p, ebb_pol_res demand);

/* A container by its job's arrival rank (the running list's order) and task. */
typedef struct ebb_pol_bigc_ref
{
  uint64_t rank;
  uint32_t job, task;
} ebb_pol_bigc_ref;

/* A list of containers by (rank, task). */
typedef struct ebb_pol_bigc_refs
{
  ebb_pol_bigc_ref *v;
  uint32_t n, cap;
} ebb_pol_bigc_refs;

/* Adds (rank, task) of job in its place unless it is there. */
void ebb_pol_bigc_refs_add (ebb_pol_bigc_refs *t, uint64_t rank, uint32_t job, uint32_t task);

/* Takes a whole container of a long job: killed in kill mode (and counted as reclaiming
 * until the kill lands), else suspended at once to its footprint; returns what it gives. */
ebb_pol_res ebb_pol_bigc_take_whole (ebb_pol *p, uint32_t job, uint32_t task);

/* Tiers: room for the queued jobs' tasks (queue, highest tier first), from what is free or
 * on its way, else by taking whole containers of lower tiers among the running long jobs
 * (running) on one node, the lowest tier first (policies/bigc-tier.c). */
void ebb_pol_bigc_tier_preempt (ebb_pol *p, const uint32_t *running, uint32_t nrunning,
                                const uint32_t *queue, uint32_t nqueue);

#endif
