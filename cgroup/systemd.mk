# The systemd backend of libebb-cgroup (cgroup/systemd.c, sd-bus), linked into the library by
# cgroup/local.mk through these two variables (see cgroup/cgroup-internal.h).
EBB_CG_SYSTEMD_SOURCES = cgroup/systemd.c cgroup/systemd.h cgroup/systemd-bus.c cgroup/systemd-bus.h
EBB_CG_SYSTEMD_CPPFLAGS = -DEBB_CG_HAVE_SYSTEMD=1

# Its test against a real systemd: run in the systemd VM by `make check-vm` (it skips where
# PID 1 is not systemd, so it is not in TESTS).
check_PROGRAMS += tests/test-cgroup-systemd-live
tests_test_cgroup_systemd_live_SOURCES = tests/test-cgroup-systemd-live.c
tests_test_cgroup_systemd_live_CFLAGS = $(EBB_TEST_CFLAGS) $(LIBCGROUP_CFLAGS)
tests_test_cgroup_systemd_live_LDADD = $(EBB_CGROUP_LIBS) $(EBB_TEST_LIBS)

# Where PID 1 is not systemd: the backend falls back to files.
check_PROGRAMS += tests/test-cgroup-systemd
TESTS += tests/test-cgroup-systemd
tests_test_cgroup_systemd_SOURCES = tests/test-cgroup-systemd.c
tests_test_cgroup_systemd_CFLAGS = $(EBB_TEST_CFLAGS) $(LIBCGROUP_CFLAGS)
tests_test_cgroup_systemd_LDADD = $(EBB_CGROUP_LIBS) $(EBB_TEST_LIBS)
