# libebb-policy: pure scheduling policies (no I/O, no wall clock, seeded RNG), shared by
# ebb-sim and ebb-controller. One file per policy; policy.c is the core they plug into.
noinst_LIBRARIES += policies/libebb-policy.a
policies_libebb_policy_a_SOURCES = \
	policies/policy.h policies/policy.c policies/policy-core.h policies/policy-registry.c \
	policies/policy-res.c policies/policy-hold.c policies/policy-tier.c policies/policy-impl.h policies/policy-env.c \
	policies/param.h policies/param.c \
	policies/iheap.h policies/iheap.c \
	policies/fenwick.h policies/fenwick.c \
	policies/fifo.c \
	policies/sparrow.c \
	policies/hawk.c \
	policies/bigc.h policies/bigc.c policies/bigc-tier.c policies/bigc-books.c \
	policies/eagle.c \
	policies/peacock.c \
	policies/dag.h policies/dag.c policies/dag-sched.h policies/dag-sched.c \
	policies/graphene.h policies/graphene.c policies/graphene-offline.c \
	policies/graphene-bypass.c \
	policies/dag-baselines.c
# What a program linking libebb-policy needs besides it.
EBB_POLICY_LIBS = policies/libebb-policy.a lib/libebb-common.a -lm

policy_tests = tests/test-policy-core tests/test-policy-forget tests/test-policy-fenwick \
	tests/test-policy-param
check_PROGRAMS += $(policy_tests)
TESTS += $(policy_tests)
tests_test_policy_core_SOURCES = tests/test-policy-core.c
tests_test_policy_core_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_core_LDADD = policies/libebb-policy.a $(EBB_TEST_LIBS)
tests_test_policy_forget_SOURCES = tests/test-policy-forget.c
tests_test_policy_forget_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_forget_LDADD = policies/libebb-policy.a $(EBB_TEST_LIBS)
tests_test_policy_fenwick_SOURCES = tests/test-policy-fenwick.c
tests_test_policy_fenwick_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_fenwick_LDADD = policies/libebb-policy.a $(EBB_TEST_LIBS)
tests_test_policy_param_SOURCES = tests/test-policy-param.c
tests_test_policy_param_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_param_LDADD = policies/libebb-policy.a $(EBB_TEST_LIBS)

bigc_tests = tests/test-bigc-alg
check_PROGRAMS += $(bigc_tests)
TESTS += $(bigc_tests)
tests_test_bigc_alg_SOURCES = tests/test-bigc-alg.c
tests_test_bigc_alg_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_bigc_alg_LDADD = policies/libebb-policy.a $(EBB_TEST_LIBS)

policy_paper_tests = tests/test-policy-eagle tests/test-policy-peacock
check_PROGRAMS += $(policy_paper_tests)
TESTS += $(policy_paper_tests)
tests_test_policy_eagle_SOURCES = tests/test-policy-eagle.c
tests_test_policy_eagle_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_eagle_LDADD = sim/libebb-sim.a policies/libebb-policy.a $(EBB_TEST_LIBS)
tests_test_policy_peacock_SOURCES = tests/test-policy-peacock.c
tests_test_policy_peacock_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_peacock_LDADD = sim/libebb-sim.a policies/libebb-policy.a $(EBB_TEST_LIBS)

# A task held by the operator (issue 22: ebbctl suspend): never resumed nor taken by the policy.
policy_hold_tests = tests/test-policy-hold
check_PROGRAMS += $(policy_hold_tests)
TESTS += $(policy_hold_tests)
tests_test_policy_hold_SOURCES = tests/test-policy-hold.c
tests_test_policy_hold_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_hold_LDADD = policies/libebb-policy.a $(EBB_TEST_LIBS) -lm
