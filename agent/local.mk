# ebb-agent: the node daemon. The logic lives in agent/libebb-agent.a so the unit
# suites link it; agent/main.c only parses options and hands over.
include agent/runtime.mk

EBB_AGENT_CFLAGS = $(AM_CFLAGS) $(LIBSYSTEMD_CFLAGS) $(LIBCURL_CFLAGS) $(JSONC_CFLAGS) \
	$(LIBMHD_CFLAGS) $(LIBCGROUP_CFLAGS)
EBB_AGENT_LIBS = agent/libebb-agent.a $(EBB_RUNTIME_LIBS) $(EBB_CGROUP_LIBS) $(EBB_COMMON_LIBS)

noinst_LIBRARIES += agent/libebb-agent.a
agent_libebb_agent_a_SOURCES = \
	agent/task.h agent/task.c agent/journal.h agent/journal.c agent/fence.h agent/fence.c agent/idem.h agent/idem.c \
	agent/request.h agent/request.c agent/options.h agent/options.c agent/ident.h agent/ident.c \
	agent/context.h agent/context.c agent/proc.h agent/proc.c agent/table.h agent/table.c \
	agent/release.h agent/release.c agent/metrics.h agent/metrics.c \
	agent/logs.h agent/logs.c agent/logs-kept.h agent/logs-kept.c \
	agent/ops.h agent/ops.c \
	agent/launch.h agent/launch.c agent/adopt.h agent/adopt.c agent/reconcile.h agent/reconcile.c \
	agent/api.h agent/api.c agent/heartbeat.h agent/heartbeat.c \
	agent/daemon.h agent/daemon.c agent/setup.h agent/setup.c
agent_libebb_agent_a_CFLAGS = $(EBB_AGENT_CFLAGS)

sbin_PROGRAMS += ebb-agent
ebb_agent_SOURCES = agent/main.c
ebb_agent_CFLAGS = $(EBB_AGENT_CFLAGS)
ebb_agent_LDADD = $(EBB_AGENT_LIBS)

# Integration tests: the real ebb-agent on real cgroups (root; skip otherwise).
agent_int_tests = tests/test-agent-basic.sh tests/test-agent-badinput.sh tests/test-agent-crash.sh \
	tests/test-agent-options.sh tests/test-agent-adopt.sh tests/test-agent-controller.sh \
	tests/test-agent-faults.sh tests/test-agent-security.sh tests/test-agent-tls.sh \
	tests/test-agent-fence.sh tests/test-agent-taskenv.sh tests/test-agent-no-leader.sh
TESTS += $(agent_int_tests)
EXTRA_DIST += $(agent_int_tests) tests/agent/lib.sh tests/agent/valgrind.sh
# A task's output over the API: tail, follow, the end of a stream (issue 22).
TESTS += tests/test-agent-logs.sh
EXTRA_DIST += tests/test-agent-logs.sh
# A finished task's output, kept by its agent and read through the controller (issue 22).
TESTS += tests/test-controller-logs-kept.sh
EXTRA_DIST += tests/test-controller-logs-kept.sh
# --cgroup-parent created when missing and removed at a clean exit (issue 22).
TESTS += tests/test-agent-cgroup-parent.sh
EXTRA_DIST += tests/test-agent-cgroup-parent.sh
# What a task cannot reach: other jobs' tasks, privileged users and groups, pids (issue 24).
TESTS += tests/test-agent-isolation.sh
EXTRA_DIST += tests/test-agent-isolation.sh

# The cgroup release path (retries, kill before each, freed with the loop) on a fake tree.
check_PROGRAMS += tests/test-agent-release
TESTS += tests/test-agent-release
tests_test_agent_release_SOURCES = tests/test-agent-release.c
tests_test_agent_release_CFLAGS = $(EBB_TEST_CFLAGS) $(LIBCGROUP_CFLAGS)
tests_test_agent_release_LDADD = $(EBB_AGENT_LIBS) $(CUNIT_LIBS)

# The layering of agent/README.md holds in the #include lines.
TESTS += tests/test-agent-layers.sh
EXTRA_DIST += tests/test-agent-layers.sh agent/README.md

# valgrind memcheck over agent integration tests (not in make check: a second, sanitizer-free
# build of the agent in valgrind-build/, then about 2 minutes of tests).
check-valgrind-agent:
	$(AM_V_GEN)mkdir -p valgrind-build && cd valgrind-build && \
	  { [ -f Makefile ] || $(abs_top_srcdir)/configure -q; } && \
	  $(MAKE) -s ebb-agent tests/agent/fake-controller tests/agent/notify-sink
	$(SHELL) $(srcdir)/tests/agent/valgrind.sh '$(abs_top_srcdir)' '$(abs_top_builddir)/valgrind-build'
.PHONY: check-valgrind-agent

# The notify socket stand-in used by tests/test-agent-options.sh (Type=notify, watchdog).
check_PROGRAMS += tests/agent/notify-sink
tests_agent_notify_sink_SOURCES = tests/agent/notify-sink.c
tests_agent_notify_sink_LDADD = $(EBB_COMMON_LIBS)
# The controller stand-in of tests/test-agent-controller.sh (records heartbeats).
check_PROGRAMS += tests/agent/fake-controller
tests_agent_fake_controller_SOURCES = tests/agent/fake-controller.c
tests_agent_fake_controller_CFLAGS = $(EBB_TEST_CFLAGS)
tests_agent_fake_controller_LDADD = $(EBB_COMMON_LIBS)

# Unit suite of the pure parts (state machine, requests, journal, idempotency, histograms).
check_PROGRAMS += tests/test-agent-core
TESTS += tests/test-agent-core
tests_test_agent_core_SOURCES = tests/test-agent-core.c
tests_test_agent_core_CFLAGS = $(EBB_TEST_CFLAGS) $(LIBCGROUP_CFLAGS)
tests_test_agent_core_LDADD = $(EBB_AGENT_LIBS) $(CUNIT_LIBS)

# The basic integration test also runs in the cgroup v2 VM (make check-vm; tests/vm/local.mk
# lists these in EBB_VM_TESTS and EBB_VM_FILES). Files are copied into the VM at the path
# they resolve to: the test itself as a real file in the build tree, lib.sh at the source
# path the test sources it from, curl and jq from the host.
tests/agent-vm/test-agent-basic.sh: $(srcdir)/tests/test-agent-basic.sh
	$(AM_V_GEN)mkdir -p tests/agent-vm && cp $(srcdir)/tests/test-agent-basic.sh $@
tests/agent-vm/test-agent-adopt.sh: $(srcdir)/tests/test-agent-adopt.sh
	$(AM_V_GEN)mkdir -p tests/agent-vm && cp $(srcdir)/tests/test-agent-adopt.sh $@
tests/agent-vm/lib.sh: $(srcdir)/tests/agent/lib.sh
	$(AM_V_GEN)mkdir -p tests/agent-vm && ln -sf $(abs_srcdir)/tests/agent/lib.sh $@
tests/agent-vm/curl tests/agent-vm/jq:
	$(AM_V_GEN)mkdir -p tests/agent-vm && p=$$(command -v $(@F)) && ln -sf "$$p" $@
CLEANFILES += tests/agent-vm/test-agent-basic.sh tests/agent-vm/test-agent-adopt.sh tests/agent-vm/lib.sh tests/agent-vm/curl \
	tests/agent-vm/jq

dist_man_MANS += man/ebb-agent.8

# Benchmarks (not in make check): wrk on the REST API, idle RSS/CPU with 200 tasks, suspend
# latency. BENCH_AGENT_IDLE_SEC=600 for the issue's 10-minute RSS figure.
EXTRA_DIST += bench/agent-bench.sh bench/agent-bench.txt
bench-agent: ebb-agent
	EBB_TOP_SRCDIR='$(abs_top_srcdir)' EBB_TOP_BUILDDIR='$(abs_top_builddir)' \
	  $(SHELL) $(srcdir)/bench/agent-bench.sh
.PHONY: bench-agent

# Leader fencing: the epoch decision and its journal in a temporary state directory.
check_PROGRAMS += tests/test-agent-fence
TESTS += tests/test-agent-fence
tests_test_agent_fence_SOURCES = tests/test-agent-fence.c
tests_test_agent_fence_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_agent_fence_LDADD = $(EBB_AGENT_LIBS) $(CUNIT_LIBS)
