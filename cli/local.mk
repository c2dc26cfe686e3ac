# ebbctl: the operator CLI over the REST APIs (libcurl and json-c only). The commands and the
# pure parts live in cli/libebbctl.a so the unit suite links them; cli/main.c only dispatches.
noinst_LIBRARIES += cli/libebbctl.a
cli_libebbctl_a_SOURCES = \
	cli/ebbctl.h cli/commands.c cli/opts.c cli/format.c cli/client.c cli/follow.h cli/follow.c \
	cli/request.c cli/jobs-filter.c cli/history.c cli/describe.c cli/node-row.c cli/job-row.c cli/task-row.c \
	cli/submit.c cli/adopt.c cli/decisions.c cli/watch.c cli/suspend.c cli/hold.c \
	cli/logs.c
cli_libebbctl_a_CFLAGS = $(AM_CFLAGS) $(LIBCURL_CFLAGS) $(JSONC_CFLAGS) $(LIBSYSTEMD_CFLAGS)
# libcurl and json-c only: nothing of libebb-common that needs sd-event or libmicrohttpd.
EBBCTL_LIBS = cli/libebbctl.a lib/libebb-common.a $(LIBCURL_LIBS) $(JSONC_LIBS) -lm

bin_PROGRAMS += ebbctl
ebbctl_SOURCES = cli/main.c
ebbctl_CFLAGS = $(cli_libebbctl_a_CFLAGS)
ebbctl_LDADD = $(EBBCTL_LIBS)

check_PROGRAMS += tests/test-ebbctl-core
TESTS += tests/test-ebbctl-core
tests_test_ebbctl_core_SOURCES = tests/test-ebbctl-core.c
tests_test_ebbctl_core_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_ebbctl_core_LDADD = $(EBBCTL_LIBS) $(CUNIT_LIBS)

# Integration: ebbctl against a real ebb-agent and a real ebb-controller (root, real cgroups;
# skip otherwise), against a stand-in of the API, and its bash completion.
ebbctl_int_tests = tests/test-ebbctl-agent.sh tests/test-ebbctl-completion.sh tests/test-ebbctl-fake.sh \
	tests/test-ebbctl-controller.sh
TESTS += $(ebbctl_int_tests)
EXTRA_DIST += $(ebbctl_int_tests)

dist_man_MANS += man/ebbctl.1
dist_bashcompletion_DATA = contrib/bash-completion/ebbctl

# The controller's status page is ours too (its fragment lives next to it).
include controller/status-page.mk
