# The systemd backend of libebb-cgroup (cgroup/systemd.c, sd-bus). Its author links it by
# setting, in this fragment:
#   EBB_CG_SYSTEMD_SOURCES = cgroup/systemd.c
#   EBB_CG_SYSTEMD_CPPFLAGS = -DEBB_CG_HAVE_SYSTEMD=1
# (see cgroup/cgroup-internal.h for the functions it must define). Empty: files only.
EBB_CG_SYSTEMD_SOURCES =
EBB_CG_SYSTEMD_CPPFLAGS =
