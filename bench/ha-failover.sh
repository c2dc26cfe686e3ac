#!/bin/sh
# bench/ha-failover.sh [CYCLES]: the leading ebb-controller fails, the standby leads and
# places a new job, CYCLES times per fault (default 10), with the default lease (5 s) and with
# --lease-ttl 2s. Faults (EBB_HA_FAULTS, default "kill stop term"):
#   kill  kill -9 of the leader (issue 20's targets for kill -> first placement by the new
#         leader: p99 <= 8 s with the defaults, <= 3 s with --lease-ttl 2s)
#   stop  SIGSTOP of the leader; once the standby has placed, SIGCONT: the old one finds
#         itself deposed and exits (status 3) without acting
#   term  SIGTERM (a graceful stop: the leader resigns its key; target <= 1.5 s)
# It prints p50/p90/p99 of fault -> new leader and fault -> first placement by it for each,
# and etcd's key count and db size before and after EBB_HA_JOBS jobs (default 1000) are run
# through the last leader: etcd holds only the election keys, flat as jobs grow.
# Runs as root (a real agent on this host's cgroups, tests/controller/lib.sh), 3 etcd members
# on loopback (tests/ha/etcd.sh), 2 controllers sharing one PostgreSQL store (tests/ha/pg.sh;
# a database of its own per lease). Then, unless EBB_HA_STORE=0, the sustained placement rate
# of the PostgreSQL store against SQLite's at 1,000 emulated nodes (bench/ha-store.sh, run
# after this bench's etcd and PostgreSQL are gone). From the top of a build tree:
#   EBB_TOP_SRCDIR=.. EBB_TOP_BUILDDIR=. sh ../bench/ha-failover.sh 10
# EBB_HA_TTLS: the leases to measure (default "5s 2s").
: "${EBB_TOP_SRCDIR:=.}" "${EBB_TOP_BUILDDIR:=.}"
export EBB_TOP_SRCDIR EBB_TOP_BUILDDIR
. "$EBB_TOP_SRCDIR/tests/controller/lib.sh"
command -v etcd >/dev/null || skip "needs etcd (scripts/install-deps.sh)"
. "$EBB_TOP_SRCDIR/tests/ha/etcd.sh"
. "$EBB_TOP_SRCDIR/tests/ha/pg.sh"
[ -x "$PG_BIN/postgres" ] || skip "no PostgreSQL 15 in $PG_BIN (scripts/install-deps.sh)"
CYCLES=${1:-10}
PIDS=
bench_cleanup () {
  for p in $PIDS; do kill -9 "$p" 2>/dev/null; done
  etcd_stop
  pg_stop KILL
  ctl_cleanup
}
trap bench_cleanup EXIT
setup_cgroups
etcd_start "$TMP/etcd" || { echo "etcd did not start"; exit 1; }
pg_start "$TMP/pg" || { echo "PostgreSQL did not start"; exit 1; }
now_ms () { date +%s%3N; }

# ctl SLOT TTL: controller SLOT (A or B) on $TMP/SLOT.sock, a fresh state dir, the store of
# lease TTL (database bench_TTL).
ctl () {
  rm -rf "$TMP/$1-state"
  "$CTL_BIN" --listen "unix:$TMP/$1.sock" --advertise-url "unix:$TMP/$1.sock" \
    --state-dir "$TMP/$1-state" --token-file "$TOKEN_FILE" --tick 200ms --policy fifo \
    --store "${PG_URL%/*}/bench_$2" \
    --etcd "$ETCD_ENDPOINTS" --etcd-prefix "/bench-$2/" --lease-ttl "$2" >>"$TMP/$1.log" 2>&1 &
  eval "PID_$1=$!"
  PIDS="$PIDS $!"
}
role () { CSOCK="$TMP/$1.sock"; capi GET /v1/cluster; jq -r .role "$TMP/body" 2>/dev/null; }
# pct FILE Q: the Q-quantile (nearest rank) of the numbers in FILE.
# within SECONDS CMD...: runs CMD every 50 ms until it succeeds; fails the bench after SECONDS.
within () {
  _end=$(($(date +%s) + $1)); shift
  until "$@"; do
    [ "$(date +%s)" -le "$_end" ] || {
      echo "FAIL: not within the deadline: $*"
      for f in "$TMP"/A.log "$TMP"/B.log "$TMP"/agent-"$node".log; do echo "--- $f"; tail -n 12 "$f"; done
      exit 1
    }
    sleep 0.05
  done
}
is_role () { [ "$(role "$1")" = "$2" ]; }
started () { capi GET "/v1/jobs/$1" && jq -e '.tasks[0].started_at != null' "$TMP/body" >/dev/null 2>&1; }
pct () { sort -n "$1" | awk -v q="$2" '{ v[NR] = $1 } END { i = int(q * NR + 0.999); print v[i < 1 ? 1 : i] }'; }

# fault KIND: KIND (see the top) on leader $L; the standby $S leads and places a job; the
# times from the fault to both are appended to $TMP/lead-KIND-TTL and $TMP/place-KIND-TTL.
fault () {
  within 20 is_role "$S" standby
  CSOCK="$TMP/$L.sock"
  wait_for 20 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes ||
    { echo "no ready node at $L"; exit 1; }
  sleep 1
  eval "pid=\$PID_$L"
  t0=$(now_ms)
  case $1 in
    kill) kill -9 "$pid" ;;
    stop) kill -STOP "$pid" ;;
    term) kill -TERM "$pid" ;;
  esac
  within 30 is_role "$S" leader
  echo $(($(now_ms) - t0)) >>"$TMP/lead-$1-$ttl"
  CSOCK="$TMP/$S.sock"
  capi POST /v1/jobs "$(job_body "b$1$ttl-$i" short '{"argv":["true"],"cpu_millis":500,"memory_bytes":67108864}')"
  id=$(jq -r .id "$TMP/body")
  within 30 started "$id"
  echo $(($(now_ms) - t0)) >>"$TMP/place-$1-$ttl"
  extra=
  if [ "$1" = stop ]; then
    # Resumed after the new leader acted: it must see it was deposed and go, acting on nothing.
    kill -CONT "$pid"
    k=0
    while kill -0 "$pid" 2>/dev/null && [ $k -lt 200 ]; do sleep 0.05; k=$((k + 1)); done
    kill -0 "$pid" 2>/dev/null && { echo "FAIL: the resumed old leader is still running"; exit 1; }
    wait "$pid"; st=$?
    [ "$st" = 3 ] || { echo "FAIL: the resumed old leader exited $st, not 3 (deposed)"; exit 1; }
    extra=", the resumed old leader exited 3 after $((k * 50)) ms"
  fi
  wait "$pid" 2>/dev/null
  echo "lease $ttl $1 cycle $i: leader after $(tail -1 "$TMP/lead-$1-$ttl") ms, placed after $(tail -1 "$TMP/place-$1-$ttl") ms$extra"
  ctl "$L" "$ttl"
  T=$L L=$S S=$T
}

# etcd_figures WHEN: the keys under every prefix and the largest member's db size.
etcd_figures () {
  keys=$(etcdctl_ get / --prefix --keys-only | grep -c .)
  size=$(etcdctl_ endpoint status -w json 2>/dev/null | jq '[.[].Status.dbSize] | max')
  echo "etcd $1: $keys keys, db $size bytes"
}

# Each lease is a new cluster (a fresh store), so it gets a new agent too; the batch of jobs
# for etcd's figures runs in the last.
node=0
for last_ttl in ${EBB_HA_TTLS:-5s 2s}; do :; done
for ttl in ${EBB_HA_TTLS:-5s 2s}; do
  [ "$node" = 0 ] || eval "kill \$AGENT_PID_$node"
  node=$((node + 1))
  start_node "$node" --controller "unix:$TMP/A.sock,unix:$TMP/B.sock"
  psql_ -c "CREATE DATABASE bench_$ttl" || exit 1
  ctl A "$ttl"
  within 20 is_role A leader
  ctl B "$ttl"
  L=A S=B
  for kind in ${EBB_HA_FAULTS:-kill stop term}; do
    : >"$TMP/lead-$kind-$ttl" && : >"$TMP/place-$kind-$ttl"
    for i in $(seq "$CYCLES"); do fault "$kind"; done
    for w in lead place; do
      f="$TMP/$w-$kind-$ttl"
      p99=$(pct "$f" 0.99)
      echo "lease $ttl: $kind -> $w: p50 $(pct "$f" 0.5) ms, p90 $(pct "$f" 0.9) ms, p99 $p99 ms ($CYCLES cycles; p99 $(awk -v p="$p99" -v t="${ttl%s}" 'BEGIN { printf "%.2f", p / (t * 1000) }') of the lease)"
    done
  done
  if [ "$ttl" = "$last_ttl" ]; then
    # etcd against the jobs: a batch run through the leader, etcd counted before and after.
    within 20 is_role "$L" leader
    CSOCK="$TMP/$L.sock"
    etcd_figures "before ${EBB_HA_JOBS:-1000} jobs"
    for j in $(seq "${EBB_HA_JOBS:-1000}"); do
      capi POST /v1/jobs "$(job_body "batch-$ttl-$j" short '{"argv":["true"],"cpu_millis":100,"memory_bytes":16777216}')"
      [ "$STATUS" = 201 ] || { echo "FAIL: batch job $j answered $STATUS: $(cat "$TMP/body")"; exit 1; }
    done
    wait_for 120 ".jobs >= ${EBB_HA_JOBS:-1000}" /v1/cluster || { echo "FAIL: the batch is not in"; exit 1; }
    etcd_figures "after ${EBB_HA_JOBS:-1000} jobs (jobs in the store: $(jq .jobs "$TMP/body"))"
  fi
  eval "kill -9 \$PID_A \$PID_B"
done
bench_cleanup
trap - EXIT
[ "${EBB_HA_STORE:-1}" = 0 ] || exec bash "$EBB_TOP_SRCDIR/bench/ha-store.sh"
