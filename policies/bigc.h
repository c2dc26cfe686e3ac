/* The arithmetic of BIG-C's Algorithm 1 (policies/bigc.c), exposed for the tests. */
#ifndef EBB_POLICY_BIGC_H
#define EBB_POLICY_BIGC_H

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

/* Takes a whole container of a long job: killed in kill mode (and counted as reclaiming
 * until the kill lands), else suspended at once to its footprint; returns what it gives. */
ebb_pol_res ebb_pol_bigc_take_whole (ebb_pol *p, uint32_t job, uint32_t task);

/* Tiers: room for the queued jobs' tasks (queue, highest tier first), from what is free or
 * on its way, else by taking whole containers of lower tiers among the running long jobs
 * (running) on one node, the lowest tier first (policies/bigc-tier.c). */
void ebb_pol_bigc_tier_preempt (ebb_pol *p, const uint32_t *running, uint32_t nrunning,
                                const uint32_t *queue, uint32_t nqueue);

#endif
