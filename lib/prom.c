/* Prometheus text exposition helpers. */
#include "config.h"

#include "lib/prom.h"

void
ebb_prom_head (FILE *f, const char *name, const char *help, const char *type)
{
  fprintf (f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
one_sample (FILE *f, const char *name, const char *help, const char *type, uint64_t v)
{
  ebb_prom_head (f, name, help, type);
  fprintf (f, "%s %llu\n", name, (unsigned long long)v);
}

void
ebb_prom_counter (FILE *f, const char *name, const char *help, uint64_t v)
{
  one_sample (f, name, help, "counter", v);
}

void
ebb_prom_gauge (FILE *f, const char *name, const char *help, uint64_t v)
{
  one_sample (f, name, help, "gauge", v);
}

void
ebb_prom_build_info (FILE *f, const char *program)
{
  ebb_prom_head (f, "ebb_build_info", "The ebb build this program runs (always 1).", "gauge");
  fprintf (f, "ebb_build_info{program=\"%s\",version=\"%s\"} 1\n", program, PACKAGE_VERSION);
}

const double ebb_prom_latency_bounds_sec[EBB_PROM_LATENCY_BUCKETS]
    = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
        0.05,   0.1,     0.25,   0.5,   1.0,    2.5,   5.0,  10.0 };

void
ebb_prom_hist_init (ebb_prom_hist *h, const double *bounds, unsigned n)
{
  *h = (ebb_prom_hist){ .bounds = bounds,
                        .n_bounds = n < EBB_PROM_HIST_MAX_BUCKETS ? n : EBB_PROM_HIST_MAX_BUCKETS };
}

/* A zeroed histogram (a member of a zeroed struct) uses the latency buckets. */
static const double *
bounds_of (const ebb_prom_hist *h, unsigned *n)
{
  if (!h->bounds)
    {
      *n = EBB_PROM_LATENCY_BUCKETS;
      return ebb_prom_latency_bounds_sec;
    }
  *n = h->n_bounds;
  return h->bounds;
}

void
ebb_prom_hist_observe (ebb_prom_hist *h, double v)
{
  unsigned n;
  const double *b = bounds_of (h, &n);
  unsigned i = 0;
  while (i < n && v > b[i])
    i++;
  h->counts[i]++;
  h->n++;
  h->sum += v;
}

double
ebb_prom_hist_quantile (const ebb_prom_hist *h, double q)
{
  if (h->n == 0)
    return 0;
  unsigned n;
  const double *b = bounds_of (h, &n);
  uint64_t want = (uint64_t)(q * (double)h->n + 0.999999);
  if (want == 0)
    want = 1;
  uint64_t acc = 0;
  for (unsigned i = 0; i < n; i++)
    {
      acc += h->counts[i];
      if (acc >= want)
        return b[i];
    }
  return 1e9;
}

void
ebb_prom_histogram (FILE *f, const char *name, const char *help, const ebb_prom_hist *h)
{
  unsigned n;
  const double *b = bounds_of (h, &n);
  ebb_prom_head (f, name, help, "histogram");
  uint64_t acc = 0;
  for (unsigned i = 0; i < n; i++)
    {
      acc += h->counts[i];
      fprintf (f, "%s_bucket{le=\"%g\"} %llu\n", name, b[i], (unsigned long long)acc);
    }
  fprintf (f, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n", name,
           (unsigned long long)h->n, name, h->sum, name, (unsigned long long)h->n);
}
