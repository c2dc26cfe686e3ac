# Real against simulated (`make bench-real-vs-sim`, root; not part of make check): the same
# 100 scaled jobs of the YH2 sample on the real 3-agent cluster and in ebb-sim, per-class p50
# compared (doc/real-vs-sim.md). bench/rvs-task is the workload's task. Configure without
# --enable-sanitizers for the figures in the doc.
noinst_PROGRAMS += bench/rvs-task
bench_rvs_task_SOURCES = bench/rvs-task.c
EXTRA_DIST += bench/real-vs-sim.sh bench/real-vs-sim.csv bench/real-vs-sim-jobs.csv

bench-real-vs-sim: bench/rvs-task ebb-controller ebb-agent sim/ebb-sim
	EBB_TOP_SRCDIR='$(abs_top_srcdir)' EBB_TOP_BUILDDIR='$(abs_top_builddir)' \
	  nice bash $(srcdir)/bench/real-vs-sim.sh
.PHONY: bench-real-vs-sim
