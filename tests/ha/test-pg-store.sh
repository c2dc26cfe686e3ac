#!/bin/sh
# The PostgreSQL store's CUnit suite (tests/ha/pg-store.c) on PostgreSQL 15 started as an
# unprivileged user in a temporary directory (tests/ha/pg.sh); then the controller's suites
# that use the store (rows written, loaded, read back, evicted, pruned; DAG edges; timed
# rounds; run on SQLite by make check) again on PostgreSQL, a schema per store
# (EBB_TEST_PG_URL, tests/ctl-fixture.h).
. "${EBB_TOP_SRCDIR:-.}/tests/ha/lib.sh"
. "$EBB_TOP_SRCDIR/tests/ha/pg.sh"
pg_test_start pg-store
EBB_PG_URL=$PG_URL "$EBB_TOP_BUILDDIR/tests/ha/pg-store" && ok "the store's suite on PostgreSQL" \
  || fail "the store's suite on PostgreSQL"
for suite in test-controller-core test-controller-evict test-controller-dag test-controller-timed; do
  EBB_TEST_PG_URL=$PG_URL PGOPTIONS='-c client_min_messages=warning' \
    "$EBB_TOP_BUILDDIR/tests/$suite" && ok "$suite on PostgreSQL" || fail "$suite on PostgreSQL"
done
exit $FAILED
