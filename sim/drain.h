/* ebb-sim's action drain: after each event the engine turns the policy's pending actions
 * into events of its own, then clears them. The loop is shared; what an action becomes
 * (a LAUNCH books a slot's finish in the main engine, a copy with its own duration in the
 * speculation engine) is the engine's `act`. Always inlined, with `act` a constant: the
 * call is resolved at compile time, so the main engine's hot path keeps no indirect call. */
#ifndef EBB_SIM_DRAIN_H
#define EBB_SIM_DRAIN_H

#include "policies/policy.h"

static inline __attribute__ ((always_inline)) void
ebb_sim_drain (ebb_pol *pol, void *run, double now,
               void (*act) (void *run, double now, const ebb_pol_action *a))
{
  size_t n;
  const ebb_pol_action *a = ebb_pol_actions (pol, &n);
  for (size_t i = 0; i < n; i++)
    act (run, now, &a[i]);
  ebb_pol_clear_actions (pol);
}

#endif
