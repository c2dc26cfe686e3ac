#!/bin/sh
# The PostgreSQL harness of the HA tests (tests/ha/pg.sh): PostgreSQL 15 started as an
# unprivileged user in a temporary directory on a random loopback port; a committed row
# survives a fast stop and a kill -9 of the postmaster, each followed by a restart on the same
# data directory; after the last stop no process of it is left.
. "${EBB_TOP_SRCDIR:-.}/tests/ha/lib.sh"
. "$EBB_TOP_SRCDIR/tests/ha/pg.sh"
pg_test_start ha-pg
owner=$(stat -c %U "/proc/$PG_PID")
[ "$(id -u)" != 0 ] && owner=$PG_USER
[ "$owner" = "$PG_USER" ] && ok "postgres runs as $owner, pid $PG_PID, port $PG_PORT" || fail "postgres runs as $owner"
psql_ -c "CREATE TABLE t (v int); INSERT INTO t VALUES (42);" || fail "create"

pg_stop INT
pg_run || fail "no restart after a fast stop"
[ "$(psql_ -tA -c 'SELECT v FROM t')" = 42 ] && ok "the row survives a fast stop" || fail "row lost after a fast stop"

psql_ -c "INSERT INTO t VALUES (43);" || fail "insert"
pg_stop KILL
pg_run || fail "no restart after kill -9"
[ "$(psql_ -tA -c 'SELECT sum(v) FROM t')" = 85 ] && ok "committed rows survive kill -9" || fail "rows lost after kill -9"

pg_stop INT
pg_backends_left && fail "processes of the server are left" || ok "nothing left after the stop"
exit $FAILED
