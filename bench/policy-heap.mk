# `make bench-policy-heap`: the heap a policy instance keeps per finished job (the part of
# the controller's memory that grows with the jobs a policy instance has seen).
noinst_PROGRAMS += bench/policy-heap
bench_policy_heap_SOURCES = bench/policy-heap.c
bench_policy_heap_LDADD = policies/libebb-policy.a $(EBB_COMMON_LIBS)

bench-policy-heap: bench/policy-heap
	$(builddir)/bench/policy-heap
.PHONY: bench-policy-heap
