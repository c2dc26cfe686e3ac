# ebb-controller: the cluster daemon (sd-event, libmicrohttpd, libcurl multi, SQLite). The
# logic lives in controller/libebb-controller.a so tests can link it; main.c hands over.
EBB_CTL_CFLAGS = $(AM_CFLAGS) $(LIBSYSTEMD_CFLAGS) $(LIBCURL_CFLAGS) $(JSONC_CFLAGS) \
	$(LIBMHD_CFLAGS) $(SQLITE3_CFLAGS) $(LIBPQ_CFLAGS)
EBB_CTL_LIBS = controller/libebb-controller.a policies/libebb-policy.a $(EBB_COMMON_LIBS) \
	$(SQLITE3_LIBS) $(LIBPQ_LIBS)

noinst_LIBRARIES += controller/libebb-controller.a
controller_libebb_controller_a_SOURCES = controller/ctl.h \
	controller/options.h controller/options.c controller/store.h controller/store.c controller/store-backend.h \
	controller/store-schema.h controller/store-schema.c controller/store-rows.c \
	controller/store-sqlite.h controller/store-sqlite.c controller/store-sqlite-calls.c \
	controller/store-sqlite-jobs.c controller/store-sqlite-prune.c \
	controller/store-pg.h controller/store-pg.c controller/store-pg-schema.c \
	controller/store-pg-read.c controller/store-pg-prune.c \
	controller/outbox-t.h controller/outbox.h controller/outbox.c \
	controller/sched.h controller/sched-model.c controller/sched-calls.c \
	controller/sched-place.c controller/sched-preempt.c controller/sched-recover.c \
	controller/sched-nodes.c controller/model.c controller/model-index.c controller/model-task.c controller/model-reason.c \
	controller/model-metrics.c controller/sched-adopt.c \
	controller/sched-evict.c controller/sched-pjobs.c controller/sched-timed.c controller/sched-dag.c controller/sched-reason.c \
	controller/ops.h controller/ops.c controller/ops-submit.c \
	controller/api.h controller/api-routes.c controller/api-jobs.c controller/api-jobs-limits.c controller/api-jobs-get.c \
	controller/api-nodes.c \
	controller/api-cluster.c controller/api-metrics.c controller/api-logs.c \
	controller/api-adopt.c controller/api-audit.c controller/api-leader.c \
	controller/model-leader.c controller/leader.h controller/leader.c \
	controller/daemon.h controller/daemon.c
controller_libebb_controller_a_SOURCES += controller/sched-reconcile.c
# The operator's hold and release of tasks (issue 22: ebbctl suspend|resume JOB[-TASK]).
controller_libebb_controller_a_SOURCES += controller/sched-hold.c controller/ops-hold.c \
	controller/api-hold.c
TESTS += tests/test-controller-hold.sh
EXTRA_DIST += tests/test-controller-hold.sh
check_PROGRAMS += tests/test-controller-hold
TESTS += tests/test-controller-hold
tests_test_controller_hold_SOURCES = tests/test-controller-hold.c tests/cu.h tests/ctl-fixture.h
tests_test_controller_hold_CFLAGS = $(EBB_CTL_CFLAGS) $(CUNIT_CFLAGS)
tests_test_controller_hold_LDADD = $(EBB_CTL_LIBS) $(CUNIT_LIBS)
controller_libebb_controller_a_CFLAGS = $(EBB_CTL_CFLAGS)

sbin_PROGRAMS += ebb-controller
ebb_controller_SOURCES = controller/main.c
ebb_controller_CFLAGS = $(EBB_CTL_CFLAGS)
ebb_controller_LDADD = $(EBB_CTL_LIBS)

# Integration tests: the real controller with real ebb-agents on real cgroups (root);
# test-controller-docker.sh also runs a private dockerd (tests/runtimes/engines.sh).
controller_int_tests = tests/test-controller-basic.sh tests/test-controller-reasons.sh tests/test-controller-faults.sh \
	tests/test-controller-preempt.sh tests/test-controller-preempt-ebb.sh \
	tests/test-controller-preempt-kill.sh tests/test-controller-faults-preempt.sh \
	tests/test-controller-tls.sh tests/test-controller-docker.sh tests/test-controller-adopt.sh \
	tests/test-controller-evict.sh tests/test-controller-options.sh \
	tests/test-controller-fail-forget.sh tests/test-controller-peacock.sh \
	tests/test-controller-dag.sh tests/security/test-controller-guard.sh \
	tests/test-controller-logs.sh
controller_int_tests += tests/test-controller-fits.sh tests/test-controller-drain-preempt.sh \
	tests/test-controller-drain-preempt-ebb.sh \
	tests/test-controller-agent-restart.sh tests/test-controller-fence-reconcile.sh \
	tests/test-controller-fresh-store.sh tests/test-controller-task-missing.sh
TESTS += $(controller_int_tests)
EXTRA_DIST += $(controller_int_tests) tests/controller/lib.sh tests/controller/fake-agent.sh

dist_man_MANS += man/ebb-controller.8
EXTRA_DIST += contrib/systemd/ebb-controller.service

# CUnit suite of the pure parts (options, store, heartbeat validation).
check_PROGRAMS += tests/test-controller-core
TESTS += tests/test-controller-core
tests_test_controller_core_SOURCES = tests/test-controller-core.c tests/cu.h
tests_test_controller_core_CFLAGS = $(EBB_CTL_CFLAGS) $(CUNIT_CFLAGS)
tests_test_controller_core_LDADD = $(EBB_CTL_LIBS) $(CUNIT_LIBS)

# CUnit suite of the eviction of finished jobs and of reading them back from the store.
check_PROGRAMS += tests/test-controller-evict
TESTS += tests/test-controller-evict
tests_test_controller_evict_SOURCES = tests/test-controller-evict.c tests/cu.h
tests_test_controller_evict_CFLAGS = $(EBB_CTL_CFLAGS) $(CUNIT_CFLAGS)
tests_test_controller_evict_LDADD = $(EBB_CTL_LIBS) $(CUNIT_LIBS)

# CUnit suite of DAG jobs (graphene on a fake cluster: edges, refusals, restart).
check_PROGRAMS += tests/test-controller-dag
TESTS += tests/test-controller-dag
tests_test_controller_dag_SOURCES = tests/test-controller-dag.c tests/cu.h
tests_test_controller_dag_CFLAGS = $(EBB_CTL_CFLAGS) $(CUNIT_CFLAGS)
tests_test_controller_dag_LDADD = $(EBB_CTL_LIBS) $(CUNIT_LIBS)

# CUnit suite of the timed delivery of policy messages (peacock's rotation rounds).
check_PROGRAMS += tests/test-controller-timed
TESTS += tests/test-controller-timed
tests_test_controller_timed_SOURCES = tests/test-controller-timed.c tests/cu.h
tests_test_controller_timed_CFLAGS = $(EBB_CTL_CFLAGS) $(CUNIT_CFLAGS)
tests_test_controller_timed_LDADD = $(EBB_CTL_LIBS) $(CUNIT_LIBS)

# The fleet emulator (N virtual agents in one process) and make bench-controller.
noinst_PROGRAMS += tests/controller/fleet
tests_controller_fleet_SOURCES = tests/controller/fleet.h tests/controller/fleet.c \
	tests/controller/fleet-api.c tests/controller/fleet-stats.c
tests_controller_fleet_CFLAGS = $(EBB_CTL_CFLAGS)
# The agent's epoch parser (agent/fence.c).
tests_controller_fleet_LDADD = $(EBB_AGENT_LIBS)
EXTRA_DIST += bench/controller-bench.sh bench/controller-bench.txt bench/ha-store.sh
# Its epoch-checking nodes and stats file against a restarted controller, and its nodes
# following the leader of 3 controllers on etcd through a kill -9 (issue 20).
fleet_tests = tests/controller/test-fleet-epoch.sh tests/controller/test-fleet-follow.sh
TESTS += $(fleet_tests)
EXTRA_DIST += $(fleet_tests) tests/controller/fleet.sh
bench-controller: ebb-controller tests/controller/fleet
	EBB_TOP_BUILDDIR='$(abs_top_builddir)' bash $(srcdir)/bench/controller-bench.sh
.PHONY: bench-controller

# The controller's structure: one writer of each state (tests/test-controller-layers.sh).
TESTS += tests/test-controller-layers.sh
EXTRA_DIST += tests/test-controller-layers.sh controller/README.md

# Priority tiers, time limits and the notify signal (issue 23).
TESTS += tests/test-controller-tiers.sh
EXTRA_DIST += tests/test-controller-tiers.sh
