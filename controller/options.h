/* The controller's settings (options.c): one table gives the command line, --help and the
 * keys of controller.conf; the policy's parameters come from policies/param.c. Layer 1: only
 * start-up and wiring include this (controller/README.md). */
#ifndef EBB_CONTROLLER_OPTIONS_H
#define EBB_CONTROLLER_OPTIONS_H

#include "controller/ctl.h"
#include "lib/conf.h"

/* Returns the settings table and its size. */
const ebb_conf_setting *ebb_ctl_conf_table (size_t *n);
/* Parses argv and the config file into cfg. Returns 0 to run, 1 when --help or --version was
 * answered, negative with *err on bad usage. */
int ebb_ctl_parse_args (int argc, char **argv, ebb_ctl_config *cfg, ebb_error **err);
/* Re-reads the configuration file and the command line into a fresh copy and swaps it in
 * on success. Returns 0, or negative with *err (cfg unchanged). */
int ebb_ctl_reload_config (ebb_ctl_config *cfg, ebb_error **err);
void ebb_ctl_config_free (ebb_ctl_config *cfg);
/* Fills params from --policy-opt KEY=VALUE items (ebb-sim's flag names). Returns 0, or
 * negative with *err naming the bad item. */
int ebb_ctl_policy_params (char *const *opts, ebb_pol_params *p, ebb_error **err);
/* 0 when the controller can run policy `name`, else a negative code with err saying why. */
int ebb_ctl_policy_runnable (const char *name, ebb_error **err);

#endif
