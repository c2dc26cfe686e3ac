# cgroup benchmarks: `make bench-cgroup` (root, real cgroup; not part of make check).
# CPU suspend/resume latency through the engine beside a raw write(2), same run. For the
# memory reclaim rate run it inside the cgroup v2 VM with: bench/cgroup-latency --memory 256
noinst_PROGRAMS += bench/cgroup-latency
bench_cgroup_latency_SOURCES = bench/cgroup-latency.c tests/cgroup-live.h
bench_cgroup_latency_CFLAGS = $(AM_CFLAGS) $(LIBCGROUP_CFLAGS)
bench_cgroup_latency_LDADD = $(EBB_CGROUP_LIBS) $(EBB_COMMON_LIBS)

bench-cgroup: bench/cgroup-latency
	$(builddir)/bench/cgroup-latency -n 1000
.PHONY: bench-cgroup
