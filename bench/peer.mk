# ebb side by side with Slurm's suspend preemption (`make bench-peer-slurm`, root; not part of
# make check): the same workload through Slurm (sbatch, sbatch without its batch delay, srun)
# and through ebb (policies ebb and bigc gp) in one run; doc/peer-slurm.md reads it.
# bench/peer-task is the workload's task under both.
noinst_PROGRAMS += bench/peer-task
bench_peer_task_SOURCES = bench/peer-task.c
EXTRA_DIST += bench/peer-slurm.sh

bench-peer-slurm: bench/peer-task ebb-controller ebb-agent ebbctl
	EBB_TOP_SRCDIR='$(abs_top_srcdir)' EBB_TOP_BUILDDIR='$(abs_top_builddir)' \
	  bash $(srcdir)/bench/peer-slurm.sh
.PHONY: bench-peer-slurm
