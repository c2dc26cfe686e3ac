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

# The election against a real 3-member etcd cluster (tests/ha/etcd.sh): failover after kill -9
# of the leader and after a resign, no failover when the etcd leader member dies.
check_PROGRAMS += tests/ha/elect
tests_ha_elect_SOURCES = tests/ha/elect.c
tests_ha_elect_CFLAGS = $(EBB_TEST_CFLAGS)
tests_ha_elect_LDADD = $(EBB_TEST_LIBS)
TESTS += tests/ha/test-election.sh
EXTRA_DIST += tests/ha/test-election.sh tests/ha/etcd.sh
