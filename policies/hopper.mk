# Speculation-aware policies after Hopper (hopper, srpt) and their shared speculation core;
# appended to libebb-policy, whose sources policies/local.mk lists.
policies_libebb_policy_a_SOURCES += policies/spec.h policies/spec.c \
	policies/hopper.h policies/hopper.c policies/srpt.c

policy_hopper_tests = tests/test-policy-hopper
check_PROGRAMS += $(policy_hopper_tests)
TESTS += $(policy_hopper_tests)
tests_test_policy_hopper_SOURCES = tests/test-policy-hopper.c
tests_test_policy_hopper_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_hopper_LDADD = sim/libebb-sim.a policies/libebb-policy.a $(EBB_TEST_LIBS) -lm
