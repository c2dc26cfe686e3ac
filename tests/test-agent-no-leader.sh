#!/bin/sh
# An agent that hears from no controller (no leader) for long (issue 20; doc/ha.md
# "Partitions"): its tasks keep running and a suspended one stays suspended, it keeps
# retrying its heartbeats (backoff), its log says so (not at every retry) and GET /v1/health
# shows "controller": {"reachable": false, "unreachable_sec"}; once a controller answers,
# health says reachable again. A fake controller (tests/agent/fake-controller) comes up
# late on the agent's --controller socket. Time budget: about 8 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
FAKE="$EBB_TOP_BUILDDIR/tests/agent/fake-controller"
[ -x "$FAKE" ] || skip "no $FAKE"
CONTROL_PID= # cleanup (tests/agent/lib.sh) ends it

start_agent --controller "unix:$TMP/ctl.sock" --heartbeat-interval 200ms ||
  { fail "agent did not start"; exit 1; }
api POST /v1/tasks "$(launch_body n1 '["sleep","60"]' 500 67108864)"
[ "$STATUS" = 201 ] || fail "launch n1: $STATUS $(body)"
api POST /v1/tasks "$(launch_body n2 '["sleep","60"]' 500 67108864)"
[ "$STATUS" = 201 ] || fail "launch n2: $STATUS $(body)"
api POST /v1/tasks/n2/suspend '{"mode":"immediate","request_id":"s-1"}'
[ "$STATUS" = 200 ] || fail "suspend n2: $STATUS $(body)"

# Three heartbeat intervals (0.6 s) without an answer, then doubling: logged at 0.6 s-ish
# and again at about twice that, not at each of the retries.
sleep 2.5
api GET /v1/health
jq -e '.status == "ok" and .controller.reachable == false and .controller.unreachable_sec >= 1.5
  and .controller.last_heartbeat_at == null' "$TMP/body" >/dev/null &&
  ok "health: controller unreachable for $(field .controller.unreachable_sec) s" ||
  fail "health: $(body)"
lines=$(grep -c 'no controller has answered for .* s: the 2 tasks keep running (1 suspended stay suspended' "$LOG")
errors=$(curl -s --unix-socket "$SOCK" http://agent/metrics |
  sed -n 's/^ebb_agent_heartbeats_total{result="error"} //p')
[ "$lines" -ge 1 ] && [ "$lines" -le 3 ] && [ "${errors:-0}" -ge 2 ] &&
  ok "the log said so $lines times over $errors failed heartbeats" ||
  fail "log lines $lines, failed heartbeats ${errors:-?}: $(tail -n 5 "$LOG")"
api GET /v1/tasks/n1
[ "$(field .state)" = running ] && ok "n1 keeps running" || fail "n1: $(body)"
api GET /v1/tasks/n2
[ "$(field .state)" = suspended ] && ok "n2 stays suspended" || fail "n2: $(body)"

# A controller comes back: the next retry (the backoff is at most 4 s by now) reaches it.
"$FAKE" "unix:$TMP/ctl.sock" "$TMP/ctl-url" "$TMP/heartbeats" 30 >>"$LOG" 2>&1 &
CONTROL_PID=$!
i=0
while [ $i -lt 100 ]; do
  api GET /v1/health
  [ "$(field .controller.reachable)" = true ] && break
  sleep 0.1; i=$((i + 1))
done
jq -e '.controller.reachable == true and .controller.unreachable_sec == 0
  and .controller.last_heartbeat_at > 0' "$TMP/body" >/dev/null &&
  grep -q 'controller reachable again after' "$LOG" &&
  ok "a controller answered: health reachable, logged after $((i * 100)) ms" ||
  fail "after the controller came back: $(body)"
exit "$FAILED"
