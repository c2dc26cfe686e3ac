# config files (lib/conf.*) and JSON helpers (lib/json.*), with their unit suites.
lib_libebb_common_a_SOURCES += lib/conf.h lib/conf-internal.h lib/conf.c lib/conf-file.c \
	lib/conf-dump.c lib/json.h lib/json.c lib/json-parse.c lib/json-build.c

data_tests = tests/test-config tests/test-json
check_PROGRAMS += $(data_tests)
TESTS += $(data_tests)
tests_test_config_SOURCES = tests/test-config.c
tests_test_config_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_config_LDADD = $(EBB_TEST_LIBS)
tests_test_json_SOURCES = tests/test-json.c
tests_test_json_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_json_LDADD = $(EBB_TEST_LIBS)

dist_man_MANS += man/ebb.conf.5
