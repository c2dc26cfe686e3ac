/* Hopper's allocation (Hopper: Decentralized Speculation-aware Cluster Scheduling at Scale,
 * SIGCOMM 2015, Pseudocode 1 and section 4.3), apart from the policy so tests can check it
 * on hand-built cases. */
#ifndef EBB_POLICIES_HOPPER_H
#define EBB_POLICIES_HOPPER_H

#include <stdint.h>

/* Allots `slots` among n jobs whose virtual sizes v[] are in ascending order. When slots
 * fall short of the sum of v (high load, Guideline 2) the smallest jobs get floor(v) each
 * until slots run out; otherwise (low load, Guideline 3) every job gets
 * floor(v / sum v x slots). Epsilon-fairness: a job allotted less than
 * floor((1 - epsilon) x slots / n) gets that much, and the guidelines share what is left
 * among the others (repeated until no job falls below). */
void ebb_hopper_allocate (const double *v, uint32_t n, uint32_t slots, double epsilon,
                          uint32_t *alloc);

#endif
