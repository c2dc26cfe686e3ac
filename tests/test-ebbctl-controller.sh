#!/bin/sh
# ebbctl against the real ebb-controller with two real ebb-agents (real cgroups nested under
# the test's own, root): nodes register and show ready; submit --wait runs a 2-task job to done;
# jobs, job, watch JOB and decisions show it; a task suspended and resumed on its agent with
# ebbctl --agent shows so in the controller; kill ends a long job; drain and undrain change the
# node's state; 404s exit 4 (adopt on an unknown node too); --json is the API's JSON; the controller's token over TCP.
# Budget: about 20 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
CTL_BIN="$EBB_TOP_BUILDDIR/ebb-controller"
[ -x "$EBBCTL" ] && [ -x "$CTL_BIN" ] || skip "needs $EBBCTL and $CTL_BIN"
setup_cgroups

CSOCK="$TMP/controller.sock"
TOKEN_FILE="$TMP/token"
(umask 077 && echo "ebbctl-controller-test-$$-0123456789abcdef" >"$TOKEN_FILE")
PORT=$((20000 + ($$ + 7) % 20000))
CTL_PID= A1_PID= A2_PID=
"$CTL_BIN" --listen "unix:$CSOCK" --listen "127.0.0.1:$PORT" --token-file "$TOKEN_FILE" \
  --state-dir "$TMP/controller" --policy fifo --node-timeout 5s -v >>"$TMP/controller.log" 2>&1 &
CTL_PID=$!
# Agents on their own sockets and cgroup parents, heartbeating to the controller's socket.
start_node () { # start_node NAME: 1 CPU of capacity each
  if [ "$LAYOUT" = v2 ]; then mkcg "$(cgdir "" "$CGP/$1")"; echo "+cpu +memory" >"$(cgdir "" "$CGP")/cgroup.subtree_control"
  else for h in $HIERS; do mkcg "$(cgdir $h "$CGP/$1")"; done; fi
  "$AGENT_BIN" --listen "unix:$TMP/$1.sock" --state-dir "$TMP/$1" --cgroup-parent "$CGP/$1" \
    --node-name "$1" --controller "unix:$CSOCK" --heartbeat-interval 500ms --capacity-cpu-millis 1000 \
    --stop-grace 1s -v >>"$TMP/$1.log" 2>&1 &
}
start_node n1; A1_PID=$!
start_node n2; A2_PID=$!
stop_all () {
  for p in $A1_PID $A2_PID $CTL_PID; do kill -TERM "$p" 2>/dev/null; done
  for p in $A1_PID $A2_PID $CTL_PID; do wait "$p" 2>/dev/null; done
  A1_PID= A2_PID= CTL_PID=
}
trap 'stop_all; cleanup; [ "$FAILED" != 0 ] && tail -30 "$TMP"/*.log 2>/dev/null' EXIT

E="$EBBCTL --controller unix:$CSOCK"
run () { "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?; OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err"); }
expect_rc () { if [ "$RC" = "$1" ]; then ok "$2 -> exit $1"; else fail "$2: exit $RC, want $1; out: $OUT; err: $ERR"; fi; }

i=0
while :; do
  run $E nodes
  [ "$(echo "$OUT" | grep -c '  ready  ')" = 2 ] && break
  i=$((i + 1)); [ $i -lt 100 ] || { fail "nodes did not register: $OUT $ERR"; exit 1; }
  sleep 0.1
done
echo "$OUT"
ok "two nodes ready"
run $E node n1
[ "$RC" = 0 ] && echo "$OUT" | grep -qx 'State:        ready' && ok "node n1" || fail "node n1: $OUT $ERR"
run $E status
[ "$RC" = 0 ] && echo "$OUT" | grep -qx 'Policy:       fifo' && ! echo "$OUT" | grep -qi slots && ok "status: policy fifo, no slots" || fail "status: $OUT"

run timeout 20 $E submit --name quick --class short --tasks 2 --cpu 100 --memory 32M --wait -- sh -c 'sleep 0.3'
[ "$RC" = 0 ] && echo "$OUT" | grep -q ' done$' && ok "submit --wait: the 2-task job ran to done" || fail "submit --wait: $RC $OUT $ERR"
JOB=${OUT%% *}
run $E job "$JOB"
echo "$OUT"
[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -Ec '  exited  +n[12]  +j1-t[01]-g1  +0 ')" = 2 ] && ok "job: both tasks exited 0 on a node, with their agent task ids" || fail "job: $OUT"
run $E jobs --all
echo "$OUT" | grep -q "^$JOB  *quick  *short  *done  *2/2 " && ok "jobs --all: quick done 2/2" || fail "jobs: $OUT"
run $E --json job "$JOB"
[ "$(echo "$OUT" | jq -r .state)" = done ] && [ "$(echo "$OUT" | jq '.tasks | length')" = 2 ] && ok "--json job" || fail "--json job: $OUT"
run $E decisions
[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c '  launch  ')" -ge 2 ] && ok "decisions: the launches" || fail "decisions: $OUT"

run $E submit --name long --class long --cpu 100 --memory 32M -- sh -c 'sleep 60'
LONG=$OUT
run timeout 10 $E watch --interval 0.2 --count 3 "$LONG"
[ "$RC" = 0 ] && echo "$OUT" | grep -q '^\[[#>~.]*\] 0/1 done, [01] running, 0 suspended$' && ok "watch JOB: progress bar" || fail "watch: $RC $OUT"
# Suspended on its agent directly: the agent reports it, the controller shows it.
node=$($E --json job "$LONG" | jq -r '.tasks[0].node')
task=$($E --json job "$LONG" | jq -r '.tasks[0].id')
# The agent's own id of that task (the only one running there).
atask=$($EBBCTL --agent "unix:$TMP/$node.sock" --json tasks | jq -r '.tasks[] | select(.state == "running") | .id')
run $EBBCTL --agent "unix:$TMP/$node.sock" suspend "$atask"
[ "$RC" = 0 ] && [ "$OUT" = "$atask: suspended" ] && ok "suspend $atask on its agent ($node)" || fail "suspend via agent: $RC $OUT $ERR"
i=0; until $E job "$LONG" 2>/dev/null | grep -q "^$task  *suspended  *$node "; do i=$((i + 1)); [ $i -lt 50 ] || break; sleep 0.1; done
[ $i -lt 50 ] && ok "the controller shows $task suspended" || fail "controller view: $($E job "$LONG" 2>&1)"
run $E watch --count 1 "$LONG"
echo "$OUT" | grep -q '0/1 done, 0 running, 1 suspended$' && ok "watch: 1 suspended" || fail "watch suspended: $OUT"
run $EBBCTL --agent "unix:$TMP/$node.sock" resume "$atask"
[ "$RC" = 0 ] && [ "$OUT" = "$atask: running" ] && ok "resume on its agent" || fail "resume via agent: $RC $OUT $ERR"
run $E kill "$LONG"
expect_rc 0 "kill"
echo "$OUT" | grep -Eq "^$LONG: running -> kill(ing|ed)$" && ok "kill: the state before and after" || fail "kill output: $OUT"
i=0; until $E job "$LONG" 2>/dev/null | grep -qx 'State:        killed'; do i=$((i + 1)); [ $i -lt 50 ] || break; sleep 0.1; done
[ $i -lt 50 ] && ok "the killed job ends killed" || fail "kill: $($E job "$LONG" 2>&1)"

run $E drain n2
[ "$RC" = 0 ] && $E node n2 | grep -qx 'State:        draining' && ok "drain n2 -> draining" || fail "drain: $RC $OUT $ERR"
run $E undrain n2
[ "$RC" = 0 ] && $E node n2 | grep -qx 'State:        ready' && ok "undrain n2 -> ready" || fail "undrain: $RC $OUT $ERR"

run $E job 999999;     expect_rc 4 "unknown job"
run $E node nope;      expect_rc 4 "unknown node"
run $E kill 999999;    expect_rc 4 "kill of an unknown job"
run $E adopt --container c1 nope; expect_rc 4 "adopt on an unknown node"
echo "$ERR" | grep -q 'HTTP 404 not_found' && ok "adopt on an unknown node: 404" || fail "adopt nope: $ERR"
run $E adopt --container c1 --cgroup /x n1; expect_rc 2 "adopt of a container and a cgroup"
# Plain TCP, loopback included, never carries the token: ebbctl says it refuses, and why.
run $EBBCTL --controller "127.0.0.1:$PORT" --token-file "$TOKEN_FILE" nodes
[ "$RC" = 1 ] && echo "$ERR" | grep -q "not sending the token of $TOKEN_FILE .*plain http" &&
  ! echo "$ERR" | grep -q 'cannot reach' && ok "over plain TCP with a token file: refused plainly, exit 1" ||
  fail "plain TCP with the token: $RC $ERR"
run env EBB_TOKEN_FILE="$TOKEN_FILE" $EBBCTL --controller "127.0.0.1:$PORT" nodes
[ "$RC" = 1 ] && echo "$ERR" | grep -q "not sending the token of $TOKEN_FILE" &&
  ok "EBB_TOKEN_FILE names the token file" || fail "EBB_TOKEN_FILE: $RC $ERR"
run $EBBCTL --controller "127.0.0.1:$PORT" nodes
[ "$RC" = 1 ] && echo "$ERR" | grep -q 'HTTP 401' && echo "$ERR" | grep -q 'only over https:// or a unix socket' &&
  ok "over TCP without the token: 401, the hint names unix and https" || fail "no token: $RC $ERR"
exit $FAILED
