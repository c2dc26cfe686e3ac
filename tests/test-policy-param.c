/* policies/param.c: the one table of policy parameters behind ebb-sim's options and the
 * controller's --policy-opt. Every entry is checked against ebb_pol_params_default and
 * against its own bounds, so a new entry with a wrong default, field or bound fails here. */
#include "config.h"

#include <math.h>

#include "lib/util.h"
#include "policies/param.h"
#include "tests/cu.h"

/* Sets value through d on a copy of p; returns its result and leaves *out the copy. */
static int
set_on (const ebb_pol_param *d, const ebb_pol_params *p, const char *value, ebb_pol_params *out)
{
  *out = *p;
  ebb_error *err = NULL;
  int r = ebb_pol_param_set (d, out, value, &err);
  CU_ASSERT ((r < 0) == (err != NULL));
  if (err)
    CU_ASSERT_PTR_NOT_NULL (strstr (ebb_error_msg (&err), "expected"));
  ebb_error_free (&err);
  return r;
}

/* Every shown default is what ebb_pol_params_default sets: setting it changes nothing. */
static void
test_defaults (void)
{
  ebb_pol_params p, q;
  ebb_pol_params_default (&p);
  size_t n, checked = 0;
  const ebb_pol_param *t = ebb_pol_param_table (&n);
  for (size_t i = 0; i < n; i++)
    {
      if (!t[i].def)
        continue;
      CU_ASSERT_EQUAL (set_on (&t[i], &p, t[i].def, &q), 0);
      if (memcmp (&p, &q, sizeof p) != 0)
        CU_FAIL (t[i].name); /* its def is not the default */
      checked++;
    }
  CU_ASSERT (checked >= 30);
}

/* Each entry names a field of its type's size inside ebb_pol_params, has help, and a name
 * no other entry has; the controller offers the 35 it offered before the table. */
static void
test_table (void)
{
  size_t n, ctl = 0;
  const ebb_pol_param *t = ebb_pol_param_table (&n);
  for (size_t i = 0; i < n; i++)
    {
      const ebb_pol_param *d = &t[i];
      size_t want = d->type == EBB_POL_PARAM_DOUBLE    ? sizeof (double)
                    : d->type == EBB_POL_PARAM_GP_STEP ? sizeof (ebb_pol_res)
                    : d->type == EBB_POL_PARAM_UINT    ? d->size
                    : d->type == EBB_POL_PARAM_BYTES   ? sizeof (int64_t)
                                                       : sizeof (int);
      CU_ASSERT_EQUAL (d->size, want);
      CU_ASSERT (d->size == 4 || d->size == 8 || d->type == EBB_POL_PARAM_GP_STEP);
      CU_ASSERT (d->offset + d->size <= sizeof (ebb_pol_params));
      CU_ASSERT (d->where != 0);
      CU_ASSERT (d->help && *d->help);
      CU_ASSERT ((d->metavar == NULL) == (d->type == EBB_POL_PARAM_SWITCH));
      CU_ASSERT (d->type == EBB_POL_PARAM_SWITCH || !d->off_help);
      CU_ASSERT_EQUAL (d->type == EBB_POL_PARAM_CHOICE, d->choices != NULL);
      for (size_t j = 0; j < i; j++)
        if (strcmp (t[j].name, d->name) == 0)
          CU_FAIL (d->name); /* twice */
      CU_ASSERT_PTR_EQUAL (ebb_pol_param_find (d->name, d->where), d);
      ctl += (d->where & EBB_POL_PARAM_CTL) != 0;
    }
  CU_ASSERT_EQUAL (ctl, 35);
  CU_ASSERT_PTR_NULL (ebb_pol_param_find ("beta", EBB_POL_PARAM_CTL)); /* ebb-sim's only */
  CU_ASSERT_PTR_NOT_NULL (ebb_pol_param_find ("beta", EBB_POL_PARAM_SIM));
  CU_ASSERT_PTR_NULL (ebb_pol_param_find ("nosuch", EBB_POL_PARAM_BOTH));
}

/* The numbers: both ends taken (an open min refused), a step past either end refused with
 * the field untouched, and text, fractions for integers, signs refused. */
static void
test_bounds (void)
{
  ebb_pol_params p, q;
  ebb_pol_params_default (&p);
  size_t n;
  const ebb_pol_param *t = ebb_pol_param_table (&n);
  for (size_t i = 0; i < n; i++)
    {
      const ebb_pol_param *d = &t[i];
      if (d->type != EBB_POL_PARAM_DOUBLE && d->type != EBB_POL_PARAM_UINT
          && d->type != EBB_POL_PARAM_GP_STEP)
        continue;
      bool num = d->type == EBB_POL_PARAM_DOUBLE;
      char lo[64], hi[64], below[64], above[64];
      snprintf (lo, sizeof lo, "%.17g", d->min);
      if (num)
        {
          snprintf (hi, sizeof hi, "%.17g", d->max);
          snprintf (below, sizeof below, "%.17g", d->min - fmax (1e-9, fabs (d->min) * 1e-6));
          snprintf (above, sizeof above, "%.17g", d->max * (1 + 1e-6) + 1e-9);
        }
      else
        {
          uint64_t umax = d->max >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)d->max;
          snprintf (hi, sizeof hi, "%llu", (unsigned long long)umax);
          snprintf (below, sizeof below, "%lld", (long long)d->min - 1);
          snprintf (above, sizeof above, "%llu", (unsigned long long)umax + 1);
        }
      int r = set_on (d, &p, lo, &q);
      if ((r < 0) != d->min_open)
        CU_FAIL (d->name);
      if (set_on (d, &p, hi, &q) < 0)
        CU_FAIL (d->name);
      if (set_on (d, &p, below, &q) != -EBB_ERANGE || memcmp (&p, &q, sizeof p) != 0)
        CU_FAIL (d->name);
      /* Above max: none for an unbounded double (inf) or the full uint64 range. */
      if (!isinf (d->max) && strcmp (hi, "18446744073709551615") != 0
          && (set_on (d, &p, above, &q) != -EBB_ERANGE || memcmp (&p, &q, sizeof p) != 0))
        CU_FAIL (d->name);
      CU_ASSERT_EQUAL (set_on (d, &p, "x", &q), -EBB_ERANGE);
      CU_ASSERT_EQUAL (set_on (d, &p, "", &q), -EBB_ERANGE);
      if (!num)
        CU_ASSERT_EQUAL (set_on (d, &p, "1.5", &q), -EBB_ERANGE);
    }
}

/* Some values by name, as both programs take them. */
static void
test_values (void)
{
  ebb_pol_params p;
  ebb_pol_params_default (&p);
  const struct
  {
    const char *name, *value;
  } ok[] = { { "sample", "without" },
             { "mode", "kill" },
             { "book-footprint", "none" },
             { "hopper-mode", "central" },
             { "graphene-prio", "order" },
             { "graphene-bypass", "single" },
             { "no-steal", "yes" },
             { "cancel-probes", "on" },
             { "footprint-memory", "32M" },
             { "gp-step", "1" },
             { "seed", "18446744073709551615" },
             { "node-cpu-millis", "4000" } };
  for (size_t i = 0; i < EBB_ARRAY_SIZE (ok); i++)
    CU_ASSERT_EQUAL (ebb_pol_param_set (ebb_pol_param_find (ok[i].name, EBB_POL_PARAM_BOTH), &p,
                                        ok[i].value, NULL),
                     0);
  CU_ASSERT_EQUAL (p.sample_replacement, 0);
  CU_ASSERT_EQUAL (p.bigc_mode, EBB_POL_BIGC_KILL);
  CU_ASSERT_EQUAL (p.book_footprint, EBB_POL_BOOK_NONE);
  CU_ASSERT_EQUAL (p.spec_mode, EBB_POL_SPEC_CENTRAL);
  CU_ASSERT_EQUAL (p.dag_prio, EBB_DAG_PRIO_ORDER);
  CU_ASSERT_EQUAL (p.dag_bypass, EBB_DAG_BYPASS_SINGLE);
  CU_ASSERT_EQUAL (p.no_steal, 1);
  CU_ASSERT_EQUAL (p.cancel_probes, 1);
  CU_ASSERT_EQUAL (p.footprint.memory_bytes, INT64_C (32) << 20);
  CU_ASSERT_EQUAL (p.gp_step.cpu_millis, 1000);
  CU_ASSERT_EQUAL (p.gp_step.memory_bytes, INT64_C (2) << 30);
  CU_ASSERT_EQUAL (p.seed, UINT64_MAX);
  CU_ASSERT_EQUAL (p.node_cap.cpu_millis, 4000);

  ebb_error *err = NULL;
  const ebb_pol_param *mode = ebb_pol_param_find ("mode", EBB_POL_PARAM_CTL);
  CU_ASSERT_EQUAL (ebb_pol_param_set (mode, &p, "nice", &err), -EBB_EPARSE);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), "expected fifo, reserve, kill, ip or gp");
  ebb_error_free (&err);
  const ebb_pol_param *sw = ebb_pol_param_find ("no-rotation", EBB_POL_PARAM_CTL);
  CU_ASSERT_EQUAL (ebb_pol_param_set (sw, &p, "maybe", &err), -EBB_EPARSE);
  CU_ASSERT_STRING_EQUAL (ebb_error_msg (&err), "expected yes or no");
  ebb_error_free (&err);
  const ebb_pol_param *mem = ebb_pol_param_find ("footprint-memory", EBB_POL_PARAM_CTL);
  CU_ASSERT_EQUAL (ebb_pol_param_set (mem, &p, "lots", &err), -EBB_ERANGE);
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (ebb_pol_param_set (mem, &p, "128P", &err), -EBB_ERANGE); /* > 2^56 */
  ebb_error_free (&err);
  CU_ASSERT_EQUAL (p.footprint.memory_bytes, INT64_C (32) << 20);
}

static const ebb_cu_test tests[] = {
  EBB_CU_TEST (test_defaults),
  EBB_CU_TEST (test_table),
  EBB_CU_TEST (test_bounds),
  EBB_CU_TEST (test_values),
};

EBB_CU_MAIN ("policy-param", NULL, NULL, tests)
