# The ebb policy's benchmarks: `make bench-ebb` (minutes; not part of `make check`). The
# committed bench/ebb-table.csv and the figures in doc/ebb-policy.md come from it.
EXTRA_DIST += bench/ebb-table.sh bench/ebb-perf.sh bench/ebb-table.csv bench/ebb-perf.txt \
	doc/ebb-policy.md
bench-ebb: sim/ebb-sim
	@mkdir -p bench-ebb
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/ebb-table.sh bench-ebb/ebb-table.csv
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/ebb-perf.sh $(abs_top_builddir)/bench-ebb
.PHONY: bench-ebb
