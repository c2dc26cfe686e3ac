# libebb-cgroup: cgroup v2 / v1 / systemd backends and the preemption engine.
include cgroup/systemd.mk
EXTRA_DIST += cgroup/cgroup.h cgroup/cgroup-internal.h cgroup/systemd.mk
