# The replicated control plane's tests on real engines (doc/ha.md): a 3-member etcd cluster
# (tests/ha/etcd.sh) and PostgreSQL 15 as an unprivileged user (tests/ha/pg.sh), in temporary
# directories on random loopback ports.

# The election: failover after kill -9 of the leader and after a resign, no failover when the
# etcd Raft leader member dies, etcd auth.
check_PROGRAMS += tests/ha/elect
tests_ha_elect_SOURCES = tests/ha/elect.c
tests_ha_elect_CFLAGS = $(EBB_TEST_CFLAGS)
tests_ha_elect_LDADD = $(EBB_TEST_LIBS)
# Controllers on etcd: standby answers, agents following the leader, failover, fencing.
ha_tests = tests/ha/test-election.sh tests/ha/test-etcd-tls.sh tests/ha/test-pg.sh \
	tests/ha/test-failover.sh tests/ha/test-faults.sh tests/ha/test-client-follow.sh
TESTS += $(ha_tests)
EXTRA_DIST += $(ha_tests) tests/ha/lib.sh tests/ha/etcd.sh tests/ha/pg.sh tests/ha/faults.sh

# The PostgreSQL store (controller/store-pg*.c) on a real server: migrations, the rows, the
# fence, a lost session (tests/ha/pg-store.c, run by tests/ha/test-pg-store.sh).
check_PROGRAMS += tests/ha/pg-store
tests_ha_pg_store_SOURCES = tests/ha/pg-store.c tests/cu.h
tests_ha_pg_store_CFLAGS = $(EBB_CTL_CFLAGS) $(CUNIT_CFLAGS)
tests_ha_pg_store_LDADD = $(EBB_CTL_LIBS) $(CUNIT_LIBS)
pg_store_tests = tests/ha/test-pg-store.sh tests/ha/test-pg-controller.sh
TESTS += $(pg_store_tests)
EXTRA_DIST += $(pg_store_tests)

# bench/ha-failover.sh: kill -9, SIGSTOP and SIGTERM of the leader -> new leader and first
# placement, p50/p90/p99; etcd against jobs; then bench/ha-store.sh's placement rates
# (minutes, root; not part of make check).
EXTRA_DIST += bench/ha-failover.sh bench/ha-faults.sh
bench-ha-failover: ebb-controller ebb-agent tests/controller/fleet
	EBB_TOP_SRCDIR=$(abs_top_srcdir) EBB_TOP_BUILDDIR=$(abs_top_builddir) \
	  sh $(abs_top_srcdir)/bench/ha-failover.sh $(EBB_HA_CYCLES)
# bench/ha-faults.sh: the fault cycles with the checker, EBB_HA_CYCLES of them (default 10),
# the fleet emulator's 1,000 nodes beside the agents.
bench-ha-faults: ebb-controller ebb-agent ebbctl tests/controller/fleet
	EBB_TOP_SRCDIR=$(abs_top_srcdir) EBB_TOP_BUILDDIR=$(abs_top_builddir) \
	  sh $(abs_top_srcdir)/bench/ha-faults.sh $(EBB_HA_CYCLES)
.PHONY: bench-ha-failover bench-ha-faults
