# HTTP server glue (libmicrohttpd in sd-event) and client glue (libcurl, blocking and
# curl-multi in sd-event).
lib_libebb_common_a_SOURCES += \
	lib/http-server.h \
	lib/http-client.h
