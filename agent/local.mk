# ebb-agent: the node daemon (issue 4). The logic lives in agent/libebb-agent.a so the unit
# suites link it; agent/main.c only parses options and hands over.
include agent/runtime.mk

EBB_AGENT_CFLAGS = $(AM_CFLAGS) $(LIBSYSTEMD_CFLAGS) $(LIBCURL_CFLAGS) $(JSONC_CFLAGS) \
	$(LIBMHD_CFLAGS) $(LIBCGROUP_CFLAGS)
EBB_AGENT_LIBS = agent/libebb-agent.a $(EBB_RUNTIME_LIBS) $(EBB_CGROUP_LIBS) $(EBB_COMMON_LIBS)

noinst_LIBRARIES += agent/libebb-agent.a
agent_libebb_agent_a_SOURCES = \
	agent/agent.h agent/daemon.h \
	agent/task.c agent/journal.c agent/idem.c agent/request.c \
	agent/launch.c agent/ops.c agent/adopt.c agent/reconcile.c \
	agent/api.c agent/metrics.c agent/heartbeat.c \
	agent/daemon.c agent/setup.c agent/options.c
agent_libebb_agent_a_CFLAGS = $(EBB_AGENT_CFLAGS)

sbin_PROGRAMS += ebb-agent
ebb_agent_SOURCES = agent/main.c
ebb_agent_CFLAGS = $(EBB_AGENT_CFLAGS)
ebb_agent_LDADD = $(EBB_AGENT_LIBS)

# Integration tests: the real ebb-agent on real cgroups (root; skip otherwise).
agent_int_tests = tests/test-agent-basic.sh tests/test-agent-badinput.sh tests/test-agent-crash.sh
TESTS += $(agent_int_tests)
EXTRA_DIST += $(agent_int_tests) tests/agent/lib.sh

# Unit suite of the pure parts (state machine, requests, journal, idempotency, histograms).
check_PROGRAMS += tests/test-agent-core
TESTS += tests/test-agent-core
tests_test_agent_core_SOURCES = tests/test-agent-core.c
tests_test_agent_core_CFLAGS = $(EBB_TEST_CFLAGS) $(LIBCGROUP_CFLAGS)
tests_test_agent_core_LDADD = $(EBB_AGENT_LIBS) $(CUNIT_LIBS)
