/* Fixtures shared by the policy suites that drive a policy directly (events in, actions
 * out): counting and picking the pending actions of a kind. Header-only, like cu.h, so
 * that each suite stays one program of one source. */
#ifndef EBB_TESTS_POLICY_FIXTURE_H
#define EBB_TESTS_POLICY_FIXTURE_H

#include "policies/policy.h"
#include "tests/cu.h"

#include <stddef.h>
#include <stdint.h>

/* How many pending actions of p are of kind and, unless job is EBB_POL_NONE, of job. */
static inline size_t
polfix_count_job (ebb_pol *p, uint32_t kind, uint32_t job)
{
  size_t n, hits = 0;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  for (size_t i = 0; i < n; i++)
    hits += a[i].kind == kind && (job == EBB_POL_NONE || a[i].job == job);
  return hits;
}

/* How many pending actions of p are of kind. */
static inline size_t
polfix_count (ebb_pol *p, uint32_t kind)
{
  return polfix_count_job (p, kind, EBB_POL_NONE);
}

/* The only pending action of kind (the test fails unless there is exactly one). */
static inline ebb_pol_action
polfix_only (ebb_pol *p, uint32_t kind)
{
  size_t n, hits = 0;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  ebb_pol_action r = { 0 };
  for (size_t i = 0; i < n; i++)
    if (a[i].kind == kind)
      r = a[i], hits++;
  CU_ASSERT_EQUAL_FATAL (hits, 1);
  return r;
}

/* The sole pending action (the test fails unless there is exactly one, of any kind). */
static inline ebb_pol_action
polfix_sole (ebb_pol *p)
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  CU_ASSERT_EQUAL_FATAL (n, 1);
  return a[0];
}

/* The first pending action of kind (the test fails when there is none). */
static inline ebb_pol_action
polfix_first (ebb_pol *p, uint32_t kind)
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  for (size_t i = 0; i < n; i++)
    if (a[i].kind == kind)
      return a[i];
  CU_FAIL_FATAL ("no pending action of that kind");
  return (ebb_pol_action){ 0 };
}

/* The index of the first pending action of kind, or -1. */
static inline int
polfix_find (ebb_pol *p, uint32_t kind)
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (p, &n);
  for (size_t i = 0; i < n; i++)
    if (a[i].kind == kind)
      return (int)i;
  return -1;
}

/* Params of one node of cap, classified by a cutoff of 100 s, no short partition, no
 * footprint, resumption at the first chance (D = 0): a policy driven by hand. */
static inline void
polfix_one_node (ebb_pol_params *pp, ebb_pol_res cap)
{
  ebb_pol_params_default (pp);
  pp->nnodes = 1;
  pp->cutoff_sec = 100;
  pp->short_part_pct = 0;
  pp->node_cap = cap;
  pp->footprint = (ebb_pol_res){ 0, 0 };
  pp->resume_tries = 0;
}

#endif
