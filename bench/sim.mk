# simulator benchmarks: `make bench-sim` (not part of `make check`: minutes, not seconds).
# EBB_TRACES is the directory holding YH2_sub.tr and FB_synthetic_2000.tr; results go to
# bench-sim/ in the build tree. The committed bench/sim-*.csv, .png and .txt are the figures
# doc/sim-fidelity.md discusses.
EBB_TRACES ?= $(abs_top_srcdir)/data
EXTRA_DIST += bench/sim-lib.sh bench/sim-fidelity.sh bench/sim-sweep.sh bench/sim-ablation.sh \
	bench/sim-perf.sh bench/sim-scale.sh bench/sim-scale.txt bench/sim-bigc.sh bench/sim-fidelity.csv bench/sim-sweep.csv bench/sim-ablation.csv \
	bench/sim-sweep.png bench/sim-perf.txt bench/sim-bigc-google.csv \
	bench/sim-bigc-google-median.csv bench/sim-bigc-patterns.csv bench/sim-bigc-sweeps.csv \
	bench/sim-bigc.png bench/sim-bigc.txt \
	bench/sim-hopper.sh bench/sim-hopper.csv bench/sim-hopper-runs.csv bench/sim-hopper-bins.csv \
	bench/sim-hopper-fairness.csv bench/sim-hopper-headroom.csv \
	bench/sim-hopper-fb.sh bench/sim-hopper-fb.csv bench/sim-hopper-fb-runs.csv \
	bench/peacock-fidelity.sh bench/peacock-perf.sh bench/peacock-same.sh bench/sim-same.sh bench/peacock-ablation.sh \
	bench/peacock-authors.sh bench/peacock-authors.txt \
	bench/peacock-scale.sh bench/peacock-scale.csv \
	bench/peacock-ablation.csv bench/peacock-runs.csv \
	bench/peacock-loads.csv bench/peacock-sweep.csv bench/peacock-loads.png bench/peacock-perf.txt \
	bench/sim-graphene.sh bench/sim-graphene.csv bench/sim-graphene-median.csv \
	bench/sim-graphene-gains.csv bench/sim-graphene-alone.csv bench/sim-graphene-alone-wide.csv \
	bench/sim-graphene.png \
	bench/sim-graphene.txt bench/sim-graphene-quarters.sh bench/sim-graphene-quarters.csv
bench-sim: sim/ebb-sim bench/graphene-offline
	@mkdir -p bench-sim
	@echo "== fidelity against the authors' simulator (YH2_sub.tr)"
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/sim-fidelity.sh bench-sim/sim-fidelity.csv
	@echo "== Hawk/Sparrow sweep"
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/sim-sweep.sh bench-sim
	@echo "== ablations"
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/sim-ablation.sh bench-sim/sim-ablation.csv
	@echo "== BIG-C against the paper"
	SIM=$(abs_top_builddir)/sim/ebb-sim sh $(abs_top_srcdir)/bench/sim-bigc.sh bench-sim
	@echo "== hopper against srpt (doc/hopper-fidelity.md)"
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/sim-hopper.sh bench-sim
	@echo "== graphene against cp, tetris and random (doc/graphene-fidelity.md)"
	SIM=$(abs_top_builddir)/sim/ebb-sim OFFLINE=$(abs_top_builddir)/bench/graphene-offline \
	  sh $(abs_top_srcdir)/bench/sim-graphene.sh bench-sim
	SIM=$(abs_top_builddir)/sim/ebb-sim \
	  sh $(abs_top_srcdir)/bench/sim-graphene-quarters.sh bench-sim/sim-graphene-quarters.csv
	@echo "== performance"
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/sim-perf.sh $(abs_top_builddir)/bench-sim
	@echo "== at scale: hawk, ebb and bigc side by side (doc/ebb-policy.md)"
	-SIM=$(abs_top_builddir)/sim/ebb-sim \
	  sh $(abs_top_srcdir)/bench/sim-scale.sh $(abs_top_builddir)/bench-sim
	@echo "== eagle and peacock against their papers (doc/peacock-fidelity.md)"
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/peacock-fidelity.sh bench-sim
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/peacock-ablation.sh bench-sim
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/peacock-scale.sh bench-sim
	SIM=$(abs_top_builddir)/sim/ebb-sim TRACES=$(EBB_TRACES) \
	  sh $(abs_top_srcdir)/bench/peacock-perf.sh
# The at-scale comparison alone: `make bench-sim-scale` (500,000 jobs on 15,000 nodes,
# minutes; bigc is stopped after SCALE_TIMEOUT seconds, default 600) or
# `make bench-sim-scale-quick` (a tenth of it: seconds, and 60 for bigc's limit).
bench-sim-scale: sim/ebb-sim
	@mkdir -p bench-sim
	SIM=$(abs_top_builddir)/sim/ebb-sim \
	  sh $(abs_top_srcdir)/bench/sim-scale.sh $(abs_top_builddir)/bench-sim
bench-sim-scale-quick: sim/ebb-sim
	@mkdir -p bench-sim
	SIM=$(abs_top_builddir)/sim/ebb-sim \
	  sh $(abs_top_srcdir)/bench/sim-scale.sh --quick $(abs_top_builddir)/bench-sim
.PHONY: bench-sim bench-sim-scale bench-sim-scale-quick
