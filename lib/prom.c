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
