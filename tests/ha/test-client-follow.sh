#!/bin/sh
# Clients follow the leader when it is paused (issue 20; doc/ha.md): a leader stopped with
# SIGSTOP accepts connections and never answers, so a client that only moves on a failed
# connection or a standby's 503 would wait out its 30 s per-call timeout. Three controllers
# (--lease-ttl 2s) on a 3-member etcd share one PostgreSQL store; the leader c1 is stopped, then
#  1. `ebbctl --controller c1,c2,c3 submit` (c1 first, the paused one) is answered 201 within the
#     lease TTL + 5 s (it asks the others GET /v1/cluster while c1 is silent, and goes to the
#     one that leads now), and the new leader has that job exactly once; `ebbctl logs -f`
#     (no time limit) follows too, while c1 is still paused;
#  2. an agent given the same list (--controller c1,c2,c3) heartbeats to the new leader within
#     the lease TTL + 3 s of the stop (the new leader's fence names it; the time is printed);
#  3. after SIGCONT c1 exits 3 (deposed) and the job is still there once: the request left
#     in c1's socket cannot commit (its store transactions are fenced).
# EBB_HA_LEASE_TTL (seconds, default 2) sets the controllers' --lease-ttl. Wall time: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
command -v etcd >/dev/null && command -v etcdctl >/dev/null || skip "needs etcd and etcdctl (scripts/install-deps.sh)"
. "$EBB_TOP_SRCDIR/tests/ha/etcd.sh"
. "$EBB_TOP_SRCDIR/tests/ha/pg.sh"
[ -x "$PG_BIN/postgres" ] || skip "no PostgreSQL 15 in $PG_BIN (scripts/install-deps.sh)"
[ "$(id -u)" != 0 ] || id "$PG_USER" >/dev/null 2>&1 || skip "no user $PG_USER to run PostgreSQL as"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
HA_PIDS=
PID_C1=
ha_cleanup () {
  [ -n "$PID_C1" ] && kill -CONT "$PID_C1" 2>/dev/null
  for p in $HA_PIDS; do kill -9 "$p" 2>/dev/null; done
  etcd_stop
  pg_stop KILL
  if [ "$FAILED" != 0 ]; then
    for f in "$TMP"/c*.log; do [ -f "$f" ] && { echo "--- $f"; tail -25 "$f"; }; done
  fi
  ctl_cleanup
}
trap ha_cleanup EXIT
setup_cgroups
now_ms () { date +%s%3N; }
TTL_S=${EBB_HA_LEASE_TTL:-2}
TTL_MS=$((TTL_S * 1000))

etcd_start "$TMP/etcd" || { fail "etcd did not start"; exit 1; }
pg_start "$TMP/pg" || { fail "PostgreSQL did not start"; exit 1; }
# start_ha N: controller cN on $TMP/cN.sock, state $TMP/cN-state, log $TMP/cN.log.
start_ha () {
  "$CTL_BIN" --listen "unix:$TMP/c$1.sock" --advertise-url "unix:$TMP/c$1.sock" \
    --state-dir "$TMP/c$1-state" --token-file "$TOKEN_FILE" --tick 200ms --policy fifo \
    --node-timeout 10s --etcd "$ETCD_ENDPOINTS" --lease-ttl "${TTL_S}s" --store "$PG_URL" -v \
    >>"$TMP/c$1.log" 2>&1 &
  eval "PID_C$1=$!"
  HA_PIDS="$HA_PIDS $!"
}
C1="$TMP/c1.sock" C2="$TMP/c2.sock" C3="$TMP/c3.sock"
LIST="unix:$C1,unix:$C2,unix:$C3"
start_ha 1
CSOCK=$C1
wait_for 10 '.role == "leader"' /v1/cluster && ep1=$(jq .leader.epoch "$TMP/body") &&
  ok "c1 leads at epoch $ep1" || { fail "c1: $(cat "$TMP/body")"; exit 1; }
start_ha 2
start_ha 3
# Standing by is enough here: ebbctl moves when one of them leads. (Which leader a standby
# names is tests/ha/test-failover.sh's.)
for s in "$C2" "$C3"; do
  CSOCK=$s
  wait_for 10 '.role == "standby"' /v1/cluster || fail "$s: $(cat "$TMP/body")"
done
start_node 1 --controller "$LIST"
CSOCK=$C1
wait_for 15 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes &&
  ok "agent a1 is ready at c1" || fail "c1 nodes: $(cat "$TMP/body")"

# --- 1. SIGSTOP of the leader, then a submission with the paused one first in the list.
kill -STOP "$PID_C1"
t_stop=$(now_ms)
"$EBBCTL" --controller "$LIST" -o name submit --name while-paused --cpu 500 --memory 64M \
  -- echo followed >"$TMP/submitted" 2>&1
rc=$?
t=$(($(now_ms) - t_stop))
latency_bound 0
bound=$((TTL_MS + 5000 + BOUND_MS))
[ "$rc" = 0 ] && [ "$t" -le "$bound" ] &&
  ok "ebbctl --controller $LIST submit with c1 paused: job $(cat "$TMP/submitted") after $t ms (bound $bound ms, lease TTL $TTL_S s + 5 s; $BOUND_WHY)" ||
  fail "ebbctl submit with c1 paused: exit $rc after $t ms (bound $bound ms): $(cat "$TMP/submitted")"
LEAD=
for s in "$C2" "$C3"; do
  CSOCK=$s
  capi GET /v1/cluster
  jq -e '.role == "leader"' "$TMP/body" >/dev/null && LEAD=$s
done
[ -n "$LEAD" ] && ep2=$(jq .leader.epoch "$TMP/body") && ok "$LEAD leads at epoch $ep2" ||
  fail "no leader among c2, c3"
CSOCK=${LEAD:-$C2}
once='[.jobs[] | select(.name == "while-paused")] | length == 1'
wait_for 2 "$once" /v1/jobs && ok "the new leader has job while-paused once" ||
  fail "new leader's jobs: $(cat "$TMP/body")"

# --- 2. The agent's heartbeats follow the leader: the new leader's fence names it and
# supersedes the heartbeat in flight to c1 (agent/heartbeat.c; before, that one waited out its
# 5 s timeout: 6.9 s after the stop with a 2 s lease).
hb_at () { curl -s --unix-socket "$LEAD" http://c/v1/nodes | jq -r '.nodes[0].last_heartbeat // 0'; }
after_stop () { awk -v h="$(hb_at)" -v t="$t_stop" 'BEGIN { exit !(h * 1000 > t) }'; }
i=0
until after_stop || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
t=$(($(now_ms) - t_stop))
bound=$((TTL_MS + 3000 + BOUND_MS))
after_stop && [ "$t" -le "$bound" ] &&
  ok "agent a1 heartbeats to the new leader by $t ms after c1 stopped (bound $bound ms, lease TTL + 3 s)" ||
  fail "agent a1's heartbeat at the new leader: $(hb_at), $t ms after c1 stopped (bound $bound ms)"

# A followed log (no time limit on the call) follows too, while its first bytes have not come.
CSOCK=${LEAD:-$C2}
wait_for 10 '.state == "done"' "/v1/jobs/$(cat "$TMP/submitted")" || fail "job: $(cat "$TMP/body")"
t0=$(now_ms)
timeout 20 "$EBBCTL" --controller "$LIST" logs -f "$(cat "$TMP/submitted")" >"$TMP/logs" 2>&1
rc=$? t=$(($(now_ms) - t0))
[ "$rc" = 0 ] && grep -qx followed "$TMP/logs" && [ "$t" -le $((2000 + BOUND_MS)) ] &&
  ok "ebbctl logs -f with c1 paused: the task's output from the new leader after $t ms" ||
  fail "ebbctl logs -f with c1 paused: exit $rc after $t ms: $(cat "$TMP/logs")"

# --- 3. SIGCONT: c1 is deposed; the request it held cannot commit.
kill -CONT "$PID_C1"
i=0
while kill -0 "$PID_C1" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
wait "$PID_C1"; rc=$?
PID_C1=
[ "$rc" = 3 ] && ok "c1, resumed, exited 3 (deposed)" || fail "c1 exit status $rc"
wait_for 1 "$once" /v1/jobs && ok "job while-paused is still there once after c1 woke" ||
  fail "new leader's jobs after c1 woke: $(cat "$TMP/body")"
exit "$FAILED"
