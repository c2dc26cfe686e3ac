# Unit suites for lib/: one CUnit program per module.
EBB_TEST_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS) $(LIBSYSTEMD_CFLAGS) $(LIBCURL_CFLAGS) \
	$(JSONC_CFLAGS) $(LIBMHD_CFLAGS)
EBB_TEST_LIBS = $(EBB_COMMON_LIBS) $(CUNIT_LIBS)

lib_tests = tests/test-error tests/test-log tests/test-time tests/test-rng tests/test-util \
	tests/test-prom tests/test-heap tests/test-secret
check_PROGRAMS += $(lib_tests)
TESTS += $(lib_tests)
EXTRA_DIST += tests/cu.h tests/fake-tree.h tests/policy-fixture.h tests/sim-fixture.h \
	tests/ctl-fixture.h

tests_test_error_SOURCES = tests/test-error.c
tests_test_error_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_error_LDADD = $(EBB_TEST_LIBS)
tests_test_log_SOURCES = tests/test-log.c
tests_test_log_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_log_LDADD = $(EBB_TEST_LIBS)
tests_test_time_SOURCES = tests/test-time.c
tests_test_time_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_time_LDADD = $(EBB_TEST_LIBS)
tests_test_rng_SOURCES = tests/test-rng.c
tests_test_rng_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_rng_LDADD = $(EBB_TEST_LIBS)
tests_test_util_SOURCES = tests/test-util.c
tests_test_util_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_util_LDADD = $(EBB_TEST_LIBS)
tests_test_prom_SOURCES = tests/test-prom.c
tests_test_prom_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_prom_LDADD = $(EBB_TEST_LIBS)
tests_test_heap_SOURCES = tests/test-heap.c
tests_test_heap_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_heap_LDADD = $(EBB_TEST_LIBS)
tests_test_secret_SOURCES = tests/test-secret.c
tests_test_secret_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_secret_LDADD = $(EBB_TEST_LIBS)
# The same rule in every program that reads a secret (controller, ebbctl; the agent in
# tests/test-agent-options.sh).
TESTS += tests/test-secret-files.sh
EXTRA_DIST += tests/test-secret-files.sh
# No token to a squatter on a daemon's loopback port (agent, ebbctl, controller).
TESTS += tests/test-token-squatter.sh
EXTRA_DIST += tests/test-token-squatter.sh
# No function over 80 lines in controller/, policies/ and sim/main.c; a file over 700 lines
# in controller/, policies/ or sim/ says why.
TESTS += tests/test-sizes.sh
EXTRA_DIST += tests/test-sizes.sh
