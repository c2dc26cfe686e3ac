#!/bin/sh
# Issue 21, agent restart: one real agent of 1000 millicores under the ebb policy, a long CPU
# burner suspended for a short job, then the agent restarted the way its unit does (SIGTERM,
# start) without --handover, so that it resumes the suspended task as it stops. The controller
# reconciles the report against what it decided: the long task is suspended again at its
# agent, the node's allocation stays within its capacity and the log says what was fixed.
# The shipped unit passes --handover (no resumption at all).
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
grep -q -- '--handover' "$EBB_TOP_SRCDIR/contrib/systemd/ebb-agent.service.in" &&
  ok "the shipped agent unit keeps suspensions across a restart (--handover)" ||
  fail "contrib/systemd/ebb-agent.service.in: no --handover"
start_controller --policy ebb || { fail "controller did not start"; exit 1; }
start_node 1 --capacity-cpu-millis 1000
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "nodes: $(cat "$TMP/body")"

capi POST /v1/jobs "$(job_body long long "$(gated_burner long 20000)")"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 1' "/v1/jobs/$LONG" || fail "long: $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body short short '{"argv":["sleep","60"],"cpu_millis":990,"memory_bytes":67108864}')"
SHORT=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 1' "/v1/jobs/$SHORT" || fail "short: $(cat "$TMP/body")"
wait_for 10 '.task_states.suspended == 1' "/v1/jobs/$LONG" && ok "the long task is suspended for the short one" ||
  fail "long not suspended: $(cat "$TMP/body")"
capi GET "/v1/jobs/$LONG"
AID=$(jq -r '.tasks[0].agent_task_id' "$TMP/body")

# agent_state: the long task's state at its agent.
agent_state () {
  curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/a1.sock" \
    "http://a/v1/tasks/$AID" | jq -r .state
}
kill -TERM "$AGENT_PID_1"
w=0
while kill -0 "$AGENT_PID_1" 2>/dev/null && [ $w -lt 200 ]; do sleep 0.1; w=$((w + 1)); done
start_node 1 --capacity-cpu-millis 1000
# The restarted agent reports the task it resumed; within a few heartbeats it is suspended
# again, and the node never shows more allocated than its capacity meanwhile.
over=0 st=
end=$(($(date +%s) + 15))
while [ "$(date +%s)" -le "$end" ]; do
  capi GET /v1/nodes/a1
  [ "$(jq '.allocated.cpu_millis > .capacity.cpu_millis' "$TMP/body")" = true ] &&
    over=$((over + 1)) && echo "over capacity: $(jq -c '{allocated, capacity}' "$TMP/body")"
  st=$(agent_state)
  grep -q "reports task .* running, which the policy holds suspended" "$CLOG" &&
    [ "$st" = suspended ] && break
  sleep 0.2
done
[ "$st" = suspended ] && ok "the long task resumed by the agent's stop is suspended again" ||
  fail "the long task is $st at its agent after the restart"
grep -q "reports task .* running, which the policy holds suspended" "$CLOG" &&
  ok "the controller logged the difference and its fix" || fail "nothing logged"
[ $over = 0 ] && ok "the node never showed more allocated than its capacity" ||
  fail "the node was over its capacity in $over samples"
capi GET "/v1/jobs/$LONG"
[ "$(jq -r '.tasks[0].state' "$TMP/body")" = suspended ] && ok "the controller holds it suspended" ||
  fail "long: $(cat "$TMP/body")"
capi DELETE "/v1/jobs/$SHORT"
touch "$OUT/release"
wait_for 30 '.state == "done"' "/v1/jobs/$LONG" && ok "the long job ends once the short one is gone" ||
  fail "long after the short one: $(cat "$TMP/body")"
exit $FAILED
