# cgroup benchmarks
