/* The one table of policy parameters (policies/param.c): name, type, bounds, default, help
 * and the policies that use each. ebb-sim's options (--NAME VALUE, a switch as --NAME and
 * maybe --no-NAME), the controller's --policy-opt NAME=VALUE (a switch as NAME=yes|no) and
 * both --help texts are made from it, so a parameter is added, bounded and documented once.
 *
 * The descriptor is not tied to ebb_pol_params: it names a field by offset and size in
 * whatever struct the caller passes, so ebb-sim describes its own settings (--launch-delay,
 * --nodes ...) with it too and parses them alike. */
#ifndef EBB_POL_PARAM_H
#define EBB_POL_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "lib/error.h"
#include "policies/policy.h"

typedef enum
{
  EBB_POL_PARAM_DOUBLE,  /* double in [min, max] ((min, max] with min_open) */
  EBB_POL_PARAM_UINT,    /* decimal integer in [min, max], into a 4- or 8-byte field */
  EBB_POL_PARAM_SWITCH,  /* int 0 or 1: yes/no, true/false, on/off, 1/0 */
  EBB_POL_PARAM_CHOICE,  /* one of choices, stored as values[i] (i without values) + base */
  EBB_POL_PARAM_BYTES,   /* a size like 128G (lib/conf.h), int64_t bytes up to max */
  EBB_POL_PARAM_GP_STEP, /* integer U in [min, max]: the ebb_pol_res <U CPU, 2U GiB> */
} ebb_pol_param_type;

/* Where a parameter is offered. */
enum
{
  EBB_POL_PARAM_SIM = 1 << 0, /* ebb-sim --NAME */
  EBB_POL_PARAM_CTL = 1 << 1, /* ebb-controller --policy-opt NAME=VALUE */
  EBB_POL_PARAM_BOTH = EBB_POL_PARAM_SIM | EBB_POL_PARAM_CTL,
};

typedef struct ebb_pol_param
{
  const char *name; /* ebb-sim's --NAME, the controller's NAME= */
  ebb_pol_param_type type;
  unsigned where;             /* EBB_POL_PARAM_SIM, _CTL */
  size_t offset, size;        /* the field in the struct given to ebb_pol_param_set */
  double min, max;            /* DOUBLE, UINT, GP_STEP; BYTES: max */
  bool min_open;              /* DOUBLE: min itself refused */
  const char *const *choices; /* CHOICE: names, NULL-terminated */
  const int *values;          /* CHOICE: the value of each name; NULL: its index + base */
  int base;
  const char *metavar;  /* of the value in --help ("S", "K"); NULL for a switch */
  const char *policies; /* the policies that use it ("bigc, ebb"); NULL: every one */
  const char *help;
  const char *def;      /* the default in the value syntax, checked against
                           ebb_pol_params_default by the tests; NULL: none to show (the
                           help says it) */
  const char *off_help; /* SWITCH: help of ebb-sim's --no-NAME; NULL: no such option */
} ebb_pol_param;

/* Returns the table of the policy parameters (fields of ebb_pol_params) and its size. */
const ebb_pol_param *ebb_pol_param_table (size_t *n);

/* Returns the parameter called name offered in where, or NULL. */
const ebb_pol_param *ebb_pol_param_find (const char *name, unsigned where);

/* Parses value into d's field of obj. Returns 0, or -EBB_EPARSE (not of its type) or
 * -EBB_ERANGE (out of its bounds) with *err saying what d accepts ("expected a number in
 * [0, 1]", "expected fifo, reserve, kill, ip or gp"); the caller names the option and the
 * value. A failure leaves the field as it was. */
int ebb_pol_param_set (const ebb_pol_param *d, void *obj, const char *value, ebb_error **err);

/* Writes d's --help text to f: "[POLICIES: ]HELP[ (default DEF)]", the default left out
 * when with_def is false (ebb-sim's switches, which take no value). */
void ebb_pol_param_print_help (const ebb_pol_param *d, FILE *f, bool with_def);

#endif
