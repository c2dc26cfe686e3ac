/* Prometheus text exposition (format 0.0.4): the HELP/TYPE lines and single samples both
 * daemons' /metrics write, so every family is written one way. */
#ifndef EBB_PROM_H
#define EBB_PROM_H

#include <stdint.h>
#include <stdio.h>

/* "# HELP name help" and "# TYPE name type" (counter, gauge, histogram, summary); the
 * caller writes the samples. */
void ebb_prom_head (FILE *f, const char *name, const char *help, const char *type);
/* A family of one unlabelled sample. */
void ebb_prom_counter (FILE *f, const char *name, const char *help, uint64_t v);
void ebb_prom_gauge (FILE *f, const char *name, const char *help, uint64_t v);
/* ebb_build_info: a constant 1 whose labels say which build answers (Prometheus'
 * convention for version information, so dashboards can join on it). */
void ebb_prom_build_info (FILE *f, const char *program);

#endif
