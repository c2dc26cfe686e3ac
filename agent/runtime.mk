# Docker and Podman runtime client (agent/runtime.h), a library the agent links:
#   ebb_agent_LDADD = agent/libebb-runtime.a ... $(EBB_COMMON_LIBS)
noinst_LIBRARIES += agent/libebb-runtime.a
agent_libebb_runtime_a_SOURCES = agent/runtime.h agent/runtime-internal.h agent/runtime.c \
	agent/runtime-track.c agent/runtime-events.c agent/runtime-parse.c
agent_libebb_runtime_a_CFLAGS = $(AM_CFLAGS) $(LIBSYSTEMD_CFLAGS) $(LIBCURL_CFLAGS) $(JSONC_CFLAGS)
EBB_RUNTIME_LIBS = agent/libebb-runtime.a

# Unit suite of the parsers.
runtime_unit_tests = tests/test-runtime-parse
check_PROGRAMS += $(runtime_unit_tests)
TESTS += $(runtime_unit_tests)
tests_test_runtime_parse_SOURCES = tests/test-runtime-parse.c
tests_test_runtime_parse_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_runtime_parse_LDADD = $(EBB_RUNTIME_LIBS) $(EBB_TEST_LIBS)

# The project's own Docker and Podman for the real-engine tests.
EXTRA_DIST += tests/runtimes/engines.sh
EXTRA_DIST += tests/runtimes/test-engines.sh

# Real-engine test: the script starts the engines and runs the program.
check_PROGRAMS += tests/test-runtime-engines
tests_test_runtime_engines_SOURCES = tests/test-runtime-engines.c
tests_test_runtime_engines_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_runtime_engines_LDADD = $(EBB_RUNTIME_LIBS) $(EBB_TEST_LIBS)
TESTS += tests/runtimes/test-engines.sh

# ebb-agent with the real engines: discovery, suspend/resume measured from /proc, engine
# restarts (uses tests/agent/lib.sh).
TESTS += tests/runtimes/test-agent-engines.sh
EXTRA_DIST += tests/runtimes/test-agent-engines.sh

# The client against a fake engine (no root, no engine needed).
check_PROGRAMS += tests/test-runtime-fake
TESTS += tests/test-runtime-fake
tests_test_runtime_fake_SOURCES = tests/test-runtime-fake.c
tests_test_runtime_fake_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_runtime_fake_LDADD = $(EBB_RUNTIME_LIBS) $(EBB_TEST_LIBS) -lpthread
EXTRA_DIST += tests/runtimes/README.md
