# libebb-common: logging, errors, config, JSON, HTTP glue, time, RNG.
# The core sources are listed here; lib/data.mk (config, JSON) and lib/http.mk (HTTP
# server and client glue) add theirs.
noinst_LIBRARIES += lib/libebb-common.a
lib_libebb_common_a_SOURCES = \
	lib/util.h lib/util.c \
	lib/file.h lib/file.c \
	lib/error.h lib/error.c \
	lib/log.h lib/log.c \
	lib/time.h lib/time.c \
	lib/rng.h lib/rng.c \
	lib/prom.h lib/prom.c lib/prom-process.c \
	lib/heap.h \
	lib/secret.h lib/secret.c
lib_libebb_common_a_CFLAGS = $(AM_CFLAGS) $(LIBSYSTEMD_CFLAGS) $(LIBCURL_CFLAGS) \
	$(JSONC_CFLAGS) $(LIBMHD_CFLAGS)
# What a program linking libebb-common needs besides it.
EBB_COMMON_LIBS = lib/libebb-common.a $(LIBSYSTEMD_LIBS) $(LIBCURL_LIBS) $(JSONC_LIBS) \
	$(LIBMHD_LIBS) -lm

include lib/data.mk
include lib/http.mk
include lib/etcd.mk
