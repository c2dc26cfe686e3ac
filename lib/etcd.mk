# The etcd v3 client (JSON gateway over libcurl in sd-event) and the leader election on it
# (doc/ha.md).
lib_libebb_common_a_SOURCES += \
	lib/etcd.h lib/etcd.c lib/etcd-codec.c \
	lib/etcd-election.h lib/etcd-election.c

check_PROGRAMS += tests/test-etcd
TESTS += tests/test-etcd
tests_test_etcd_SOURCES = tests/test-etcd.c
tests_test_etcd_CFLAGS = $(EBB_TEST_CFLAGS)
tests_test_etcd_LDADD = $(EBB_TEST_LIBS)

