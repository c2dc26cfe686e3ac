# Sourced by the HA tests: PostgreSQL 15 (Debian's postgresql) in a temporary directory,
# listening on a random loopback port and a unix socket in that directory, stopped by PID.
# PostgreSQL refuses to run as root: as root, the server runs as an unprivileged user
# (PG_USER, default nobody) through setpriv; otherwise as the caller.
#
#   pg_start DIR     initdb (trust auth on loopback, superuser "ebb") and start; sets PG_PORT,
#                    PG_URL (postgresql://ebb@127.0.0.1:PORT/postgres) and PG_PID
#   pg_stop [SIG]    stops the server by its PID (SIGINT: fast shutdown; KILL: kill -9 of the
#                    postmaster, its backends then exit on their own) and waits for it
#   pg_run           starts it again on the same data directory (a restart after pg_stop)
#   psql_ ARGS...    psql on the server
#   pg_test_start N  a test's start on PostgreSQL (skips, TMP, cleanup at exit, the server)
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_USER=${PG_USER:-nobody}
PG_PID=
PG_DIR=

# as_pg CMD...: runs CMD as the server's user (exec: in "( as_pg ... ) &" the PID is CMD's).
as_pg () {
  if [ "$(id -u)" = 0 ]; then
    exec setpriv --reuid="$PG_USER" --regid="$(id -g "$PG_USER")" --clear-groups -- "$@"
  else
    exec "$@"
  fi
}

psql_ () { psql -X -q -v ON_ERROR_STOP=1 "$PG_URL" "$@"; }

pg_run () {
  (as_pg "$PG_BIN/postgres" -D "$PG_DIR/data" -k "$PG_DIR/run" -h 127.0.0.1 -p "$PG_PORT" \
    >>"$PG_DIR/postgres.log" 2>&1) &
  PG_PID=$!
  k=0
  while [ $k -lt 200 ]; do
    "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && return 0
    kill -0 "$PG_PID" 2>/dev/null || { echo "postgres exited:"; tail -5 "$PG_DIR/postgres.log"; PG_PID=; return 1; }
    sleep 0.1; k=$((k + 1))
  done
  echo "postgres did not answer in 20 s"; tail -5 "$PG_DIR/postgres.log"
  return 1
}

pg_start () {
  PG_DIR=$1
  [ -x "$PG_BIN/postgres" ] || { echo "no $PG_BIN/postgres"; return 1; }
  mkdir -p "$PG_DIR/data" "$PG_DIR/run" || return 1
  if [ "$(id -u)" = 0 ]; then
    chown "$PG_USER" "$PG_DIR/data" "$PG_DIR/run" || return 1
    chmod 711 "$PG_DIR" "$(dirname "$PG_DIR")" # the user reaches its directories, no more
  fi
  (as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -U ebb -A trust --no-sync -E UTF8 \
    >"$PG_DIR/initdb.log" 2>&1) || { tail -5 "$PG_DIR/initdb.log"; return 1; }
  PG_PORT=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000 ))
  PG_URL="postgresql://ebb@127.0.0.1:$PG_PORT/postgres"
  pg_run
}

pg_stop () {
  [ -n "$PG_PID" ] || return 0
  kill -"${1:-INT}" "$PG_PID" 2>/dev/null
  k=0
  while kill -0 "$PG_PID" 2>/dev/null && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
  kill -9 "$PG_PID" 2>/dev/null
  wait "$PG_PID" 2>/dev/null
  PG_PID=
  # After kill -9 of the postmaster its backends notice and exit; a new server refuses to
  # start while they hold the old shared memory, so wait for them.
  k=0
  while [ $k -lt 50 ] && pg_backends_left; do sleep 0.1; k=$((k + 1)); done
}

# True while a process of this server is still there (every one of them works in the data
# directory).
pg_backends_left () {
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/cwd" 2>/dev/null)" = "$PG_DIR/data" ] && return 0
  done
  return 1
}

# pg_test_start NAME: the start of a test of tests/ha/lib.sh on PostgreSQL: skipped without
# PostgreSQL 15, psql or (as root) PG_USER; TMP a new temporary directory (ebb-NAME.*),
# removed at exit with the server killed (its log shown when the test failed); the server
# started in $TMP/pg.
pg_test_start () {
  [ -x "$PG_BIN/postgres" ] || skip "no PostgreSQL 15 in $PG_BIN (scripts/install-deps.sh)"
  need psql
  [ "$(id -u)" != 0 ] || id "$PG_USER" >/dev/null 2>&1 || skip "no user $PG_USER to run PostgreSQL as"
  TMP=$(mktemp -d "/tmp/ebb-$1.XXXXXX") || exit 99
  trap pg_test_cleanup EXIT
  pg_start "$TMP/pg" || { FAILED=1; fail "PostgreSQL did not start"; exit 1; }
}

pg_test_cleanup () {
  pg_stop KILL
  [ "$FAILED" != 0 ] && tail -20 "$TMP/pg/postgres.log"
  rm -rf "$TMP"
}
