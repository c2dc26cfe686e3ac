/* ebb-sim's speculation engine (sim/speculate.c): runs the policies whose ops say
 * `speculative` (hopper, srpt), where a task may run as several copies. */
#ifndef EBB_SIM_SPECULATE_H
#define EBB_SIM_SPECULATE_H

#include "sim/engine.h"

/* Same contract as ebb_sim_run, which calls it for a speculative policy. */
int ebb_sim_run_spec (const ebb_sim_config *cfg, const ebb_sim_trace *trace, ebb_sim_result *res,
                      ebb_error **err);

/* The duration of a speculative copy of a task of a job whose mean task duration is
 * mean_sec: Pareto with shape beta and that mean (scale mean x (beta - 1) / beta). */
double ebb_sim_spec_copy_duration (ebb_rng *rng, double mean_sec, double beta);

#endif
