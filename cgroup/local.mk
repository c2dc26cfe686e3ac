# libebb-cgroup: cgroup v2 / v1 / systemd backends and the preemption engine.
include cgroup/systemd.mk

noinst_LIBRARIES += cgroup/libebb-cgroup.a
cgroup_libebb_cgroup_a_SOURCES = \
	cgroup/cgroup.h cgroup/cgroup-internal.h \
	cgroup/parse.c cgroup/fs.c cgroup/discover.c cgroup/cgroup.c cgroup/manage.c \
	cgroup/resources.c cgroup/v1.c cgroup/v2.c cgroup/engine.c cgroup/step.c cgroup/pool.c \
	$(EBB_CG_SYSTEMD_SOURCES)
cgroup_libebb_cgroup_a_CPPFLAGS = $(AM_CPPFLAGS) $(EBB_CG_SYSTEMD_CPPFLAGS)
cgroup_libebb_cgroup_a_CFLAGS = $(AM_CFLAGS) $(LIBCGROUP_CFLAGS) $(LIBSYSTEMD_CFLAGS)
# What a program linking libebb-cgroup needs besides it (then EBB_COMMON_LIBS).
EBB_CGROUP_LIBS = cgroup/libebb-cgroup.a $(LIBCGROUP_LIBS) $(LIBSYSTEMD_LIBS) -lpthread -lm
EXTRA_DIST += cgroup/systemd.mk cgroup/README.md

# Unit tests of the parsers and of path handling on fake trees.
cgroup_unit_tests = tests/test-cgroup-parse tests/test-cgroup-fake
# Real-kernel tests on this host's cgroup v1 (skip when not root or no v1 hierarchy).
cgroup_host_tests = tests/test-cgroup-v1-host
# cgroup v2 behaviour: built by `make check`, run inside the VM by `make check-vm` (it skips
# where /sys/fs/cgroup is not cgroup2, so it is not in TESTS here).
cgroup_vm_tests = tests/test-cgroup-v2-live
check_PROGRAMS += $(cgroup_unit_tests) $(cgroup_host_tests) $(cgroup_vm_tests)
TESTS += $(cgroup_unit_tests) $(cgroup_host_tests)

EBB_CGROUP_TEST_CFLAGS = $(EBB_TEST_CFLAGS) $(LIBCGROUP_CFLAGS)
EBB_CGROUP_TEST_LIBS = $(EBB_CGROUP_LIBS) $(EBB_TEST_LIBS)

tests_test_cgroup_parse_SOURCES = tests/test-cgroup-parse.c
tests_test_cgroup_parse_CFLAGS = $(EBB_CGROUP_TEST_CFLAGS)
tests_test_cgroup_parse_LDADD = $(EBB_CGROUP_TEST_LIBS)
tests_test_cgroup_fake_SOURCES = tests/test-cgroup-fake.c
tests_test_cgroup_fake_CFLAGS = $(EBB_CGROUP_TEST_CFLAGS)
tests_test_cgroup_fake_LDADD = $(EBB_CGROUP_TEST_LIBS)
tests_test_cgroup_v1_host_SOURCES = tests/test-cgroup-v1-host.c tests/cgroup-live.h
tests_test_cgroup_v1_host_CFLAGS = $(EBB_CGROUP_TEST_CFLAGS)
tests_test_cgroup_v1_host_LDADD = $(EBB_CGROUP_TEST_LIBS)
tests_test_cgroup_v2_live_SOURCES = tests/test-cgroup-v2-live.c tests/cgroup-live.h
tests_test_cgroup_v2_live_CFLAGS = $(EBB_CGROUP_TEST_CFLAGS)
tests_test_cgroup_v2_live_LDADD = $(EBB_CGROUP_TEST_LIBS)
