# ebb-sim: the trace-driven simulator. The engine, trace reader and reports are a noinst
# library so the test suites drive exactly the code the program runs.
noinst_LIBRARIES += sim/libebb-sim.a
sim_libebb_sim_a_SOURCES = \
	sim/trace.h sim/trace.c \
	sim/engine.h sim/engine.c sim/engine-run.h sim/engine-res.c sim/drain.h \
	sim/report.h sim/report.c \
	sim/gen.c sim/gen-bigc.c \
	sim/speculate.h sim/speculate.c sim/gen-pareto.c \
	sim/dag.h sim/dag.c sim/gen-dag.c

bin_PROGRAMS += sim/ebb-sim
sim_ebb_sim_SOURCES = sim/main.c
sim_ebb_sim_LDADD = sim/libebb-sim.a $(EBB_POLICY_LIBS) $(JSONC_LIBS)
dist_man_MANS += man/ebb-sim.1

sim_tests = tests/test-sim-mechanisms tests/test-sim-trace tests/test-sim-resources
check_PROGRAMS += $(sim_tests)
TESTS += $(sim_tests) tests/test-sim-cli.sh tests/test-demo-ebb.sh
EXTRA_DIST += tests/test-sim-cli.sh tests/test-demo-ebb.sh
tests_test_sim_mechanisms_SOURCES = tests/test-sim-mechanisms.c
tests_test_sim_mechanisms_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_sim_mechanisms_LDADD = sim/libebb-sim.a policies/libebb-policy.a $(EBB_TEST_LIBS)
tests_test_sim_trace_SOURCES = tests/test-sim-trace.c
tests_test_sim_trace_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_sim_trace_LDADD = sim/libebb-sim.a policies/libebb-policy.a $(EBB_TEST_LIBS)
tests_test_sim_resources_SOURCES = tests/test-sim-resources.c
tests_test_sim_resources_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_sim_resources_LDADD = sim/libebb-sim.a policies/libebb-policy.a $(EBB_TEST_LIBS)

# Graphene and the DAG baselines (policies/graphene*.c, policies/dag*.c, sim/dag.c).
graphene_tests = tests/test-policy-graphene
check_PROGRAMS += $(graphene_tests)
TESTS += $(graphene_tests) tests/test-sim-dag-cli.sh
EXTRA_DIST += tests/test-sim-dag-cli.sh
tests_test_policy_graphene_SOURCES = tests/test-policy-graphene.c
tests_test_policy_graphene_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_policy_graphene_LDADD = sim/libebb-sim.a policies/libebb-policy.a $(EBB_TEST_LIBS) -lm
