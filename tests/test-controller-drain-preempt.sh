#!/bin/sh
# Issue 21, drain: two real agents of 1000 millicores, each running a long CPU burner; a2 is
# drained, then short jobs arrive one after the other. Nothing is preempted on a2 for them
# (a2 takes no new work, so its room would go unused): each short task preempts the long one
# on a1 and starts there at once, the long task on a2 keeps running, and the decision log
# holds no suspension on a2. The policy is bigc gp (which took a2's task before: the
# controller gives a drained node capacity 0, BIG-C chose victims cluster-wide regardless);
# tests/test-controller-drain-preempt-ebb.sh runs ebb.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
# shellcheck disable=SC2086 # the flags are words
start_controller ${EBB_CTL_TEST_POLICY:---policy bigc --policy-opt mode=gp} || { fail "controller did not start"; exit 1; }
for n in 1 2; do start_node $n --capacity-cpu-millis 1000; done
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 2' /v1/nodes || fail "nodes: $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body long long "$(gated_burner l1 20000)" "$(gated_burner l2 20000)")"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 2 and ([.tasks[].node] | unique | length == 2)' "/v1/jobs/$LONG" &&
  ok "a long burner on each node" || fail "long: $(cat "$TMP/body")"
capi POST /v1/nodes/a2/drain '{}'
[ "$STATUS" = 200 ] || fail "drain: $STATUS $(cat "$TMP/body")"
SHORT_T='{"argv":["sleep","2"],"cpu_millis":990,"memory_bytes":67108864}'
r=0
while [ $r -lt 3 ]; do
  capi POST /v1/jobs "$(job_body short$r short "$SHORT_T")"
  SJ=$(jq -r .id "$TMP/body")
  wait_for 5 '.task_states.running == 1 or .state == "done"' "/v1/jobs/$SJ" ||
    fail "short $r did not start within 5 s: $(cat "$TMP/body")"
  node=$(jq -r '.tasks[0].node' "$TMP/body")
  [ "$node" = a1 ] || fail "short $r ran on $node"
  capi GET "/v1/jobs/$LONG"
  jq -e '[.tasks[] | select(.node == "a2" and .state == "running")] | length == 1' "$TMP/body" >/dev/null ||
    fail "the long task on the draining a2 is not running: $(jq -c '[.tasks[] | {node, state}]' "$TMP/body")"
  wait_for 10 '.state == "done"' "/v1/jobs/$SJ" || fail "short $r did not end"
  r=$((r + 1))
done
capi GET "/v1/decisions?since=0"
n2=$(jq '[.decisions[] | select(.action == "suspend" and .node == "a2")] | length' "$TMP/body")
n1=$(jq '[.decisions[] | select(.action == "suspend" and .node == "a1")] | length' "$TMP/body")
[ "$n2" = 0 ] && [ "$n1" -gt 0 ] &&
  ok "3 short jobs ran on a1 ($n1 suspensions there), none on the draining a2" ||
  fail "suspensions: $n1 on a1, $n2 on a2"
touch "$OUT/release"
wait_for 30 '.state == "done"' "/v1/jobs/$LONG" || fail "long did not end: $(cat "$TMP/body")"
exit $FAILED
