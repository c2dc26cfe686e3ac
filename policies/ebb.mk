# The ebb policy (Hawk's placement with preemption) and its suite; appended to
# libebb-policy, whose sources policies/local.mk lists.
policies_libebb_policy_a_SOURCES += policies/ebb.h policies/ebb-pre.c policies/ebb.c

policy_ebb_tests = tests/test-policy-ebb
check_PROGRAMS += $(policy_ebb_tests)
TESTS += $(policy_ebb_tests)
tests_test_policy_ebb_SOURCES = tests/test-policy-ebb.c
tests_test_policy_ebb_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_ebb_LDADD = policies/libebb-policy.a $(EBB_TEST_LIBS) -lm

policy_ebb_sim_tests = tests/test-policy-ebb-sim
check_PROGRAMS += $(policy_ebb_sim_tests)
TESTS += $(policy_ebb_sim_tests)
tests_test_policy_ebb_sim_SOURCES = tests/test-policy-ebb-sim.c
tests_test_policy_ebb_sim_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_ebb_sim_LDADD = sim/libebb-sim.a policies/libebb-policy.a $(EBB_TEST_LIBS) -lm

# Issue 21's steady stream (data/stream-2x1000.jsonl) and a thrashing one in ebb-sim.
TESTS += tests/test-sim-stream.sh
EXTRA_DIST += tests/test-sim-stream.sh
# The same stream on real agents and cgroups (root; listed here, not in controller/local.mk,
# which another change is restructuring).
TESTS += tests/test-controller-stream.sh
EXTRA_DIST += tests/test-controller-stream.sh

# Priority tiers (issue 23).
policy_tiers_tests = tests/test-policy-tiers
check_PROGRAMS += $(policy_tiers_tests)
TESTS += $(policy_tiers_tests)
tests_test_policy_tiers_SOURCES = tests/test-policy-tiers.c
tests_test_policy_tiers_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_tiers_LDADD = policies/libebb-policy.a $(EBB_TEST_LIBS) -lm
TESTS += tests/test-sim-tiers.sh
EXTRA_DIST += tests/test-sim-tiers.sh
