# The systemd backend of libebb-cgroup (cgroup/systemd.c, sd-bus), linked into the library by
# cgroup/local.mk through these two variables (see cgroup/cgroup-internal.h).
EBB_CG_SYSTEMD_SOURCES = cgroup/systemd.c cgroup/systemd.h
EBB_CG_SYSTEMD_CPPFLAGS = -DEBB_CG_HAVE_SYSTEMD=1
