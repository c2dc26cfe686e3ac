#!/bin/sh
# The fleet emulator follows the leader (tests/controller/fleet.c, issue 20): 3 controllers on
# a 3-member etcd (tests/ha/etcd.sh; each its own SQLite store: what is checked here is
# where the heartbeats go and the fences, not the jobs), on unix sockets, and a fleet of
# 200 virtual nodes given the list standby,standby,leader. Every node follows a standby's
# 503 not_leader to the leader, which fences it; after kill -9 of the leader each node's
# heartbeat fails, moves along the list (a standby names the new leader, or is it), and the
# new leader fences every node at its higher epoch (the time from the kill is printed); a
# then SIGSTOP of the new leader: the last one leads and every node reaches it too (a
# heartbeat to it does not wait behind those the stopped one holds); a fence sent by hand
# at the dead leader's epoch is refused and counted by that epoch.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
command -v etcd >/dev/null && command -v etcdctl >/dev/null ||
  skip "needs etcd and etcdctl (scripts/install-deps.sh)"
. "$EBB_TOP_SRCDIR/tests/ha/etcd.sh"
. "${EBB_TOP_SRCDIR:-.}/tests/controller/fleet.sh"
N=200
HA_PIDS=
follow_cleanup () {
  [ -n "$FLEET_PID" ] && kill -9 "$FLEET_PID" 2>/dev/null
  for p in $HA_PIDS; do kill -9 "$p" 2>/dev/null; done
  etcd_stop
  if [ "$FAILED" != 0 ]; then
    for f in "$TMP"/c?.log "$TMP/fleet.err"; do [ -f "$f" ] && { echo "--- $f"; tail -15 "$f"; }; done
  fi
  ctl_cleanup
}
trap follow_cleanup EXIT
now_ms () { date +%s%3N; }

etcd_start "$TMP/etcd" || { fail "etcd did not start"; exit 1; }

# start_ha N: controller cN on $TMP/cN.sock (advertised so), its log $TMP/cN.log.
start_ha () {
  "$CTL_BIN" --listen "unix:$TMP/c$1.sock" --advertise-url "unix:$TMP/c$1.sock" \
    --state-dir "$TMP/c$1-state" --token-file "$TOKEN_FILE" --tick 200ms --policy fifo \
    --agent-ca "$TMP/cert.pem" --node-timeout 60s --etcd "$ETCD_ENDPOINTS" >>"$TMP/c$1.log" 2>&1 &
  eval "PID_C$1=$!"
  HA_PIDS="$HA_PIDS $!"
}
# role_is N ROLE SECONDS: waits until controller cN says role ROLE (its answer in $TMP/body).
role_is () { CSOCK="$TMP/c$1.sock"; wait_for "$3" ".role == \"$2\"" /v1/cluster; }

start_ha 1
role_is 1 leader 15 || { fail "c1 does not lead: $(cat "$TMP/body")"; exit 1; }
EP1=$(jq .leader.epoch "$TMP/body")
start_ha 2
start_ha 3
role_is 2 standby 10 && role_is 3 standby 10 || fail "c2, c3 do not stand by: $(cat "$TMP/body")"

fleet_start "unix:$TMP/c2.sock,unix:$TMP/c3.sock,unix:$TMP/c1.sock" $N
CSOCK=$TMP/c1.sock
wait_for 30 ".nodes.ready == $N" /v1/cluster || fail "c1: not every node ready: $(cat "$TMP/body")"
wait_stats 20 ".fences == $N and .epoch_min == $EP1 and .epoch_max == $EP1" ||
  fail "c1 fenced $(st .fences) of $N nodes, epochs $(st .epoch_min)..$(st .epoch_max)"
[ "$(st .heartbeats_followed)" -ge $N ] ||
  fail "heartbeats followed a standby's answer $(st .heartbeats_followed) times, fewer than $N"
[ "$FAILED" = 0 ] &&
  ok "$N nodes told standby-first followed c1 (epoch $EP1; $(st .heartbeats_followed) heartbeats followed a 503 not_leader)"

# kill -9 of the leader: every node fenced by the next one.
t0=$(now_ms)
kill -9 "$PID_C1"
NEW=
i=0
while [ -z "$NEW" ] && [ $i -lt 150 ]; do
  for n in 2 3; do
    CSOCK=$TMP/c$n.sock
    capi GET /v1/cluster
    [ "$STATUS" = 200 ] && [ "$(field .role)" = leader ] && NEW=$n && break
  done
  [ -n "$NEW" ] || sleep 0.1
  i=$((i + 1))
done
[ -n "$NEW" ] || { fail "no controller leads after the kill"; exit 1; }
EP2=$(field .leader.epoch)
t_lead=$(now_ms)
[ "$EP2" -gt "$EP1" ] || fail "the new leader's epoch $EP2 is not above $EP1"
wait_stats 30 ".fences == 2 * $N and .epoch_min == $EP2 and .epoch_max == $EP2" ||
  fail "after the kill: $(st .fences) fences, epochs $(st .epoch_min)..$(st .epoch_max)"
t_fenced=$(now_ms)
CSOCK=$TMP/c$NEW.sock
wait_for 20 ".nodes.ready == $N" /v1/cluster || fail "c$NEW: not every node ready: $(cat "$TMP/body")"
[ "$FAILED" = 0 ] &&
  ok "kill -9 of c1: c$NEW led $((t_lead - t0)) ms after (epoch $EP1 -> $EP2), every node fenced at $EP2 after $((t_fenced - t0)) ms and ready there ($(st .heartbeats_failed) heartbeats failed, $(st .heartbeats_followed) followed)"

# SIGSTOP of that leader: its socket still takes connections and never answers, so each
# heartbeat sent there waits for its timeout; the last controller leads, and every node's
# heartbeats reach it (not queued behind those the stopped one holds).
OTHER=$((5 - NEW))
eval "STOPPED=\$PID_C$NEW"
kill -STOP "$STOPPED"
t0=$(now_ms)
role_is $OTHER leader 20 || fail "c$OTHER does not lead after SIGSTOP of c$NEW: $(cat "$TMP/body")"
EP3=$(field .leader.epoch)
t_lead=$(now_ms)
# A heartbeat sent to the stopped one, or to a standby that still names it, waits 5 s for
# its timeout, and may do so twice before the new leader is known.
wait_stats 45 ".fences == 3 * $N and .epoch_min == $EP3 and .epoch_max == $EP3" ||
  fail "after SIGSTOP: $(st .fences) fences, epochs $(st .epoch_min)..$(st .epoch_max)"
t_fenced=$(now_ms)
wait_for 20 ".nodes.ready == $N" /v1/cluster || fail "c$OTHER: not every node ready: $(cat "$TMP/body")"
[ "$FAILED" = 0 ] &&
  ok "SIGSTOP of c$NEW: c$OTHER led $((t_lead - t0)) ms after (epoch $EP2 -> $EP3), every node fenced at $EP3 after $((t_fenced - t0)) ms and ready there"
kill -CONT "$STOPPED" # it finds itself deposed and exits

# The dead leader's epoch by hand: refused and counted by it.
node_call n3/v1/fence "" "{\"epoch\":$EP1,\"leader\":\"unix:$TMP/c1.sock\"}"
[ "$STATUS" = 409 ] && [ "$(field .error)" = stale_leader ] ||
  fail "a fence at the dead leader's epoch: $STATUS $(body)"
stats
[ "$(st ".refused_by_epoch[\"$EP1\"]")" = 1 ] && [ "$(st .accepted_below_highest)" = 0 ] &&
  ok "a fence at epoch $EP1 refused, counted by its epoch: $(st .refused_by_epoch)" ||
  fail "stats: $(cat "$STATS")"
exit $FAILED
