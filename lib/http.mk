# HTTP server glue (libmicrohttpd in sd-event) and client glue (libcurl, blocking and
# curl-multi in sd-event).
lib_libebb_common_a_SOURCES += \
	lib/http-server.h \
	lib/http-client.h
lib_libebb_common_a_SOURCES += \
	lib/http-internal.h \
	lib/http-route.h lib/http-route.c \
	lib/http-listen.h lib/http-listen.c \
	lib/http-response.c lib/http-stream.c \
	lib/http-server.c lib/http-request.c lib/http-conn.c \
	lib/http-xfer.h lib/http-client.c lib/http-client-multi.c \
	lib/curl-event.h lib/curl-event.c

http_tests = tests/test-http-route tests/test-http-server tests/test-curl-event
check_PROGRAMS += $(http_tests)
TESTS += $(http_tests)
tests_test_http_route_SOURCES = tests/test-http-route.c
tests_test_http_route_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_http_route_LDADD = $(EBB_TEST_LIBS)
tests_test_http_server_SOURCES = tests/test-http-server.c
tests_test_http_server_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_http_server_LDADD = $(EBB_TEST_LIBS) -lpthread
tests_test_curl_event_SOURCES = tests/test-curl-event.c
tests_test_curl_event_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_curl_event_LDADD = $(EBB_TEST_LIBS)

# A real ebb-agent and a real ebb-controller under slowhttptest (about 25 s each), and the
# shared start of a daemon for these attack tests.
TESTS += tests/test-slowloris-agent.sh tests/test-slowloris-controller.sh
EXTRA_DIST += tests/test-slowloris-agent.sh tests/test-slowloris-controller.sh tests/slowloris.sh

# The connection flood of issue 24 (tests/security/flood.sh; about 25 s each).
check_PROGRAMS += tests/security/flood
tests_security_flood_SOURCES = tests/security/flood.c
tests_security_flood_CFLAGS = $(AM_CFLAGS)
TESTS += tests/security/test-flood-agent.sh tests/security/test-flood-controller.sh
EXTRA_DIST += tests/security/test-flood-agent.sh tests/security/test-flood-controller.sh \
	tests/security/flood.sh tests/security/lib.sh
