# Benchmarks: each prints its figure as a ratio against a baseline measured in the same run.
include bench/sim.mk
include bench/ebb.mk
include bench/cgroup.mk
include bench/rvs.mk
include bench/graphene.mk
include bench/policy-heap.mk
include bench/peer.mk
