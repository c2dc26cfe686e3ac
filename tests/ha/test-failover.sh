#!/bin/sh
# Controllers that elect a leader and fence the agents (issue 20; doc/ha.md), with real
# ebb-controllers and a real ebb-agent on this host's cgroups:
#  1. one controller (no --etcd): its epoch rises at every start (STATE_DIR/epoch), its calls
#     carry it (the agent journals it), and the agent then refuses the earlier run's epoch;
#  2. on a 3-member etcd (tests/ha/etcd.sh): the first controller leads, the second stands by
#     (GET /v1/cluster role/leader; every other call 503 not_leader naming the leader); an
#     agent given both (--controller standby,leader) follows the leader, and so does ebbctl
#     (--controller, EBB_CONTROLLER: status shows role and leader; a submission lands once);
#  3. kill -9 of the leader: the standby leads at a higher epoch and places a new job (the
#     time from the kill is printed; the fence names the new leader, so the job runs within
#     a bound of its lead); the agent's epoch is the new leader's;
#  4. SIGSTOP of the leader for 10 s: a third controller leads; after SIGCONT the old leader
#     exits 3 (deposed) before any call leaves, and the agent refuses a call at its epoch
#     (409 stale_leader; the refusals the agent counted are printed);
#  5. SIGTERM of the leader: it resigns and a standby leads within 3 s (printed; not the TTL).
# The replicas of 2-5 share one PostgreSQL store (tests/ha/pg.sh, --store postgresql://...):
# a job answered 201 by the leader just before its kill -9 is on the new leader exactly once
# and ends; the SIGSTOPped leader's epoch is below the store's fence row when it wakes, so no
# transaction of it can commit. Wall time: about 45 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
command -v etcd >/dev/null && command -v etcdctl >/dev/null || skip "needs etcd and etcdctl (scripts/install-deps.sh)"
. "$EBB_TOP_SRCDIR/tests/ha/etcd.sh"
. "$EBB_TOP_SRCDIR/tests/ha/pg.sh"
[ -x "$PG_BIN/postgres" ] || skip "no PostgreSQL 15 in $PG_BIN (scripts/install-deps.sh)"
command -v psql >/dev/null || skip "needs psql (scripts/install-deps.sh)"
[ "$(id -u)" != 0 ] || id "$PG_USER" >/dev/null 2>&1 || skip "no user $PG_USER to run PostgreSQL as"
HA_PIDS=
ha_cleanup () {
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

# at SOCK METHOD PATH [BODY]: capi on the controller listening on SOCK.
at () { CSOCK=$1; shift; capi "$@"; }
# agent_epoch N: the highest leader epoch agent aN journaled.
agent_epoch () { jq -r .epoch "$TMP/a$1/epoch" 2>/dev/null || echo 0; }
# stale_call N EPOCH: a fence of agent aN at EPOCH, as a late leader's; prints its status.
stale_call () {
  curl -s -o "$TMP/stale" -w '%{http_code}' --unix-socket "$TMP/a$1.sock" -X POST \
    -H 'Content-Type: application/json' -H "Ebb-Leader-Epoch: $2" --data "{\"epoch\":$2}" \
    http://a/v1/fence
}
# store_epoch: the epoch of the store's fence row (the last leader's claim).
store_epoch () { psql_ -tA -c 'SELECT epoch FROM leader'; }
# refused_calls N: the calls agent aN refused as below its epoch (409 stale_leader).
refused_calls () {
  curl -s --unix-socket "$TMP/a$1.sock" http://a/metrics |
    sed -n 's/^ebb_agent_fence_calls_total{result="refused"} //p'
}
sleep_task='{"argv":["sleep","60"],"cpu_millis":500,"memory_bytes":67108864}'
now_ms () { date +%s%3N; }

# --- 1. One controller: the epoch rises at every start and fences the earlier run.
start_controller --policy fifo || { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes ||
  fail "node a1 not ready: $(cat "$TMP/body")"
e1=$(cat "$CSTATE/epoch")
capi POST /v1/jobs "$(job_body single1 long "$sleep_task")"
wait_for 10 '.task_states.running == 1' "/v1/jobs/$(jq -r .id "$TMP/body")" ||
  fail "single1 not running: $(cat "$TMP/body")"
[ "$(agent_epoch 1)" = "$e1" ] && ok "a call of the first run carried epoch $e1" ||
  fail "agent epoch $(agent_epoch 1), controller's $e1"
kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null; CTL_PID=
start_controller --policy fifo || { fail "controller did not start again"; exit 1; }
e2=$(cat "$CSTATE/epoch")
[ "$e2" -gt "$e1" ] 2>/dev/null && ok "a restart raised the epoch ($e1 -> $e2)" ||
  fail "epoch $e1 then $e2"
i=0
while [ "$(agent_epoch 1)" != "$e2" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(agent_epoch 1)" = "$e2" ] && ok "the restarted controller fenced the agent at $e2" ||
  fail "agent epoch $(agent_epoch 1) after the restart"
st=$(stale_call 1 "$e1")
[ "$st" = 409 ] && jq -e '.error == "stale_leader"' "$TMP/stale" >/dev/null &&
  ok "a late call of the first run (epoch $e1) is refused: 409 stale_leader" ||
  fail "late call: $st $(cat "$TMP/stale")"
# A controller that ends while a call waits to be tried again (its agent gone: connection
# refused) frees that call: under the sanitizers a leak would end it with status 1, not 0.
# A deposed leader ends that way after a pause (tests/ha/faults.sh found it).
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes ||
  fail "node a1 not ready after the restart: $(cat "$TMP/body")"
kill -9 "$AGENT_PID_1"
n0=$(wc -l <"$CLOG")
retrying () { tail -n +$((n0 + 1)) "$CLOG" | grep -q "retrying"; }
capi DELETE /v1/jobs/1 # single1's DELETE goes to the dead agent
k=0
until retrying || [ $k -ge 50 ]; do sleep 0.1; k=$((k + 1)); done
retrying || { capi GET /v1/jobs/1; fail "no call waits for a retry: $(cat "$TMP/body") $(tail -5 "$CLOG")"; }
kill "$CTL_PID"; wait "$CTL_PID"; rc=$?; CTL_PID=
[ "$rc" = 0 ] && ok "a controller stopped with a call waiting for its retry exits 0" ||
  fail "the controller stopped with a call waiting for its retry exited $rc: $(grep -m3 -A3 'leak' "$CLOG")"

# --- 2. Replicas on etcd, sharing one PostgreSQL store.
etcd_start "$TMP/etcd" || { fail "etcd did not start"; exit 1; }
pg_start "$TMP/pg" || { fail "PostgreSQL did not start"; exit 1; }
# start_ha N [options]: controller cN on $TMP/cN.sock, state $TMP/cN-state, log $TMP/cN.log.
start_ha () {
  n=$1; shift
  "$CTL_BIN" --listen "unix:$TMP/c$n.sock" --advertise-url "unix:$TMP/c$n.sock" \
    --state-dir "$TMP/c$n-state" --token-file "$TOKEN_FILE" --tick 200ms --policy fifo \
    --node-timeout 5s --etcd "$ETCD_ENDPOINTS" --store "$PG_URL" -v "$@" >>"$TMP/c$n.log" 2>&1 &
  eval "PID_C$n=$!"
  HA_PIDS="$HA_PIDS $!"
}
# role_is SOCK ROLE SECONDS: waits until GET /v1/cluster on SOCK says role ROLE.
role_is () {
  CSOCK=$1
  wait_for "$3" ".role == \"$2\"" /v1/cluster
}
C1="$TMP/c1.sock" C2="$TMP/c2.sock"
start_ha 1
role_is "$C1" leader 10 && ok "c1 leads at epoch $(jq .leader.epoch "$TMP/body")" ||
  fail "c1: $(cat "$TMP/body")"
ep1=$(jq .leader.epoch "$TMP/body")
start_ha 2
role_is "$C2" standby 10 && wait_for 5 ".leader.url == \"unix:$C1\" and .leader.epoch == $ep1" /v1/cluster &&
  ok "c2 stands by and names c1 as the leader" || fail "c2: $(cat "$TMP/body")"
at "$C2" GET /v1/jobs
[ "$STATUS" = 503 ] && jq -e ".error == \"not_leader\" and .leader == \"unix:$C1\"" "$TMP/body" >/dev/null &&
  ok "the standby answers GET /v1/jobs 503 not_leader, leader unix:$C1" ||
  fail "standby GET /v1/jobs: $STATUS $(cat "$TMP/body")"
# Every route gathered from the api-*.c files is gated, the task logs and decisions too.
for r in "GET /v1/jobs/1/tasks/0/logs" "GET /v1/decisions" "GET /v1/nodes" "DELETE /v1/jobs/1" \
  "POST /v1/nodes/n/drain" "POST /v1/nodes/n/heartbeat"; do
  case $r in POST*) at "$C2" $r '{}' ;; *) at "$C2" $r ;; esac
  [ "$STATUS" = 503 ] && jq -e '.error == "not_leader"' "$TMP/body" >/dev/null ||
    fail "standby $r: $STATUS $(cat "$TMP/body")"
done
for r in /v1/health /metrics /v1/cluster; do
  at "$C2" GET $r
  [ "$STATUS" = 200 ] || fail "standby GET $r: $STATUS"
done
ok "the standby answers 503 not_leader on the leader's routes, 200 on health, metrics, cluster"

start_node 2 --controller "unix:$C2,unix:$C1"
CSOCK=$C1
wait_for 15 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes &&
  ok "the agent told the standby first followed the leader" || fail "c1 nodes: $(cat "$TMP/body")"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
"$EBBCTL" --controller "unix:$C2,unix:$C1" status >"$TMP/status" 2>&1 &&
  grep -q '^Role: *standby' "$TMP/status" && grep -q "^Controller: *unix:$C2" "$TMP/status" &&
  grep -q "^Leader: *unix:$C1 (id .*, epoch $ep1)" "$TMP/status" &&
  ok "ebbctl status on the standby says standby and names the leader" ||
  fail "ebbctl status: $(cat "$TMP/status")"
EBB_CONTROLLER="unix:$TMP/nobody.sock,unix:$C2" "$EBBCTL" -o name submit --name via-standby \
  --cpu 500 --memory 64M -- true >"$TMP/submitted" 2>&1 &&
  ok "ebbctl (EBB_CONTROLLER: a dead address, then the standby) submitted job $(cat "$TMP/submitted") at the leader" ||
  fail "ebbctl submit: $(cat "$TMP/submitted")"
at "$C1" GET /v1/jobs
jq -e '[.jobs[] | select(.name == "via-standby")] | length == 1' "$TMP/body" >/dev/null &&
  ok "the leader has that job once" || fail "c1 jobs: $(cat "$TMP/body")"
at "$C1" POST /v1/jobs "$(job_body ha1 long "$sleep_task")"
wait_for 10 '.task_states.running == 1' "/v1/jobs/$(jq -r .id "$TMP/body")" &&
  ok "c1 placed a job" || fail "ha1: $(cat "$TMP/body")"
[ "$(agent_epoch 2)" = "$ep1" ] && ok "agent a2 is at c1's epoch $ep1" ||
  fail "agent epoch $(agent_epoch 2), c1's $ep1"

# --- 3. kill -9 of the leader, a submission answered 201 just before.
at "$C1" POST /v1/jobs "$(job_body last-of-c1 long '{"argv":["sleep","1"],"cpu_millis":500,"memory_bytes":67108864}')"
[ "$STATUS" = 201 ] && LAST=$(jq -r .id "$TMP/body") || fail "last-of-c1: $STATUS $(cat "$TMP/body")"
t0=$(now_ms)
kill -9 "$PID_C1"
role_is "$C2" leader 15 || fail "c2 did not lead: $(cat "$TMP/body")"
ep2=$(jq .leader.epoch "$TMP/body")
t_lead=$(now_ms)
[ "$(store_epoch)" = "$ep2" ] && ok "c2 claimed its epoch $ep2 in the shared store" ||
  fail "store epoch $(store_epoch), c2's $ep2"
at "$C2" POST /v1/jobs "$(job_body ha2 long "$sleep_task")"
CSOCK=$C2
[ "$(jq -r .id "$TMP/body")" -gt "${LAST:-0}" ] 2>/dev/null || fail "ha2 is not after job ${LAST:-?}: $(cat "$TMP/body")"
wait_for 20 '.task_states.running == 1' "/v1/jobs/$(jq -r .id "$TMP/body")" &&
  ok "kill -9 of the leader: c2 led after $((t_lead - t0)) ms (epoch $ep1 -> $ep2) and placed a job $(($(now_ms) - t0)) ms after the kill" ||
  fail "ha2: $(cat "$TMP/body")"
# The fence names the new leader: the agent's next heartbeat goes there at once, not after
# its backoff between the dead leader and the standby (5 s of the failover before).
t_place=$(($(now_ms) - t_lead))
latency_bound 500
[ "$t_place" -le $((BOUND_MS + 1000)) ] &&
  ok "the job ran $t_place ms after c2 led (bound $((BOUND_MS + 1000)) ms: $BOUND_WHY; 1 s of polls and ticks)" ||
  fail "the job ran $t_place ms after c2 led (bound $((BOUND_MS + 1000)) ms: $BOUND_WHY)"
[ "$ep2" -gt "$ep1" ] 2>/dev/null && [ "$(agent_epoch 2)" = "$ep2" ] &&
  ok "agent a2 is at c2's epoch $ep2" || fail "agent epoch $(agent_epoch 2), c2's $ep2"

wait_for 5 '.state == "running" and .task_states.running == 1' /v1/jobs/2 &&
  ok "c2 took over c1's job 2 (ha1), still running once" || fail "job 2 at c2: $(cat "$TMP/body")"
at "$C2" GET /v1/jobs
[ "$(jq '[.jobs[] | select(.name == "last-of-c1")] | length' "$TMP/body")" = 1 ] &&
  wait_for 15 '.state == "done" and .task_states.exited == 1' "/v1/jobs/${LAST:-0}" &&
  ok "the job answered 201 by c1 just before its kill (job ${LAST:-?}) is on c2 once and done" ||
  fail "last-of-c1 at c2: $(cat "$TMP/body")"

# --- 4. SIGSTOP of the leader for 10 s: c3 (on c1's socket, in the agent's list) leads.
start_ha 3 --listen "unix:$C1" --advertise-url "unix:$C1" --state-dir "$TMP/c3-state"
role_is "$C1" standby 10 || fail "c3 is not a standby: $(cat "$TMP/body")"
kill -STOP "$PID_C2"
t_stop=$(now_ms)
role_is "$C1" leader 15 && ep3=$(jq .leader.epoch "$TMP/body") &&
  ok "SIGSTOP of c2: c3 leads at epoch $ep3" || fail "c3: $(cat "$TMP/body")"
CSOCK=$C1
wait_for 15 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes ||
  fail "c3 nodes: $(cat "$TMP/body")"
i=0
while [ "$(agent_epoch 2)" != "${ep3:-x}" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(agent_epoch 2)" = "${ep3:-x}" ] && ok "c3 fenced agent a2 at $ep3" ||
  fail "agent epoch $(agent_epoch 2), c3's ${ep3:-?}"
# Stopped 10 s in all (the lease, 5 s, lapsed long before).
while [ $(($(now_ms) - t_stop)) -lt 10000 ]; do sleep 0.2; done
kill -CONT "$PID_C2"
i=0
while kill -0 "$PID_C2" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
wait "$PID_C2"; rc=$?
[ "$rc" = 3 ] && ok "c2, resumed after $(($(now_ms) - t_stop)) ms stopped, exited 3 (deposed) after $((i * 100)) ms" ||
  fail "c2 exit status $rc"
# The store's fence row holds c3's epoch: every transaction of c2 (epoch $ep2) fails at its
# start (SELECT ... FOR SHARE reads a higher epoch), so nothing it decided can commit.
[ "$(store_epoch)" = "${ep3:-x}" ] && [ "${ep3:-0}" -gt "$ep2" ] &&
  ok "the store's fence is at c3's epoch $ep3 > c2's $ep2: no transaction of c2 can commit" ||
  fail "store epoch $(store_epoch), c2's $ep2, c3's ${ep3:-?}"
# c2 reads its renew deadline from the clock before anything leaves (flush, retries): its own
# late calls are none; a call at its epoch (as one delayed on the way would be) is refused.
own=$(refused_calls 2)
st=$(stale_call 2 "$ep2")
[ "$st" = 409 ] && [ "$(refused_calls 2)" = $((own + 1)) ] &&
  ok "a late call at c2's epoch $ep2 is refused: 409 stale_leader (refused calls c2 itself sent after waking: $own)" ||
  fail "late call: $st $(cat "$TMP/stale")"

# --- 5. SIGTERM of the leader: it resigns, a standby (c4, on c2's socket) leads at once.
start_ha 4 --listen "unix:$C2" --advertise-url "unix:$C2" --state-dir "$TMP/c4-state"
role_is "$C2" standby 10 || fail "c4 is not a standby: $(cat "$TMP/body")"
t0=$(now_ms)
kill -TERM "$PID_C3"
role_is "$C2" leader 10 && t=$(($(now_ms) - t0)) && [ "$t" -le 3000 ] &&
  ok "SIGTERM of the leader: c4 leads after $t ms (the resign, not the lease's TTL)" ||
  fail "c4 after SIGTERM of c3 ($((${t:-0})) ms): $(cat "$TMP/body")"
wait "$PID_C3"; rc=$?
[ "$rc" = 0 ] && ok "c3 exited 0 after resigning" || fail "c3 exit status $rc"
echo "agent a2 refused $(refused_calls 2) calls below its epoch"
exit "$FAILED"
