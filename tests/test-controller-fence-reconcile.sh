#!/bin/sh
# Issue 20, "Fenced agents": a leader fences a node before acting on it, and the fence's
# answer reconciles the node's tasks in the same round trip. The node is a scripted agent
# (tests/controller/fake-agent.sh behind socat) that answers its fence after 2 s; its
# heartbeats are the test's (one, before any launch, until (c)), so what the controller learns
# of its tasks it learns from the fence:
# (a) a job's launch reaches the node only after the node's fence was answered 200;
# (b) after a restart (a new epoch), the fence's answer ends the task the node reports exited
#     and fences off (DELETE) a copy of a generation the store does not know, without a
#     heartbeat;
# (c) a node lost after a restart and back by a heartbeat is fenced again before its calls.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
command -v socat >/dev/null || skip "needs socat"
FAKE="$EBB_TOP_SRCDIR/tests/controller/fake-agent.sh"
ASOCK="$TMP/fake.sock"
export FAKE_LOG="$TMP/fake.log" FAKE_TASKS="$TMP/fake-tasks.json" FAKE_FENCE_DELAY=2
: >"$FAKE_LOG"
echo '[]' >"$FAKE_TASKS"
socat "UNIX-LISTEN:$ASOCK,fork" "EXEC:sh $FAKE" 2>>"$TMP/socat.log" &
AGENT_PIDS=$!
w=0
while [ ! -S "$ASOCK" ] && [ $w -lt 100 ]; do sleep 0.05; w=$((w + 1)); done

# heartbeat: the fake node's report (its URL and capacity, the tasks it was launched).
heartbeat () {
  curl -s -o /dev/null -H "Authorization: Bearer $(cat "$TOKEN_FILE")" -H 'Content-Type: application/json' \
    --unix-socket "$CSOCK" -X POST "http://c/v1/nodes/a1/heartbeat" --data-binary \
    "{\"node\":{\"capacity\":{\"cpu_millis\":2000,\"memory_bytes\":2147483648}},\"url\":\"unix:$ASOCK\",\"tasks\":$(cat "$FAKE_TASKS")}"
}
# line_of PATTERN: the line number of the first line of the fake's log matching PATTERN (0: none).
line_of () { grep -n -m1 "$1" "$FAKE_LOG" | cut -d: -f1 | grep . || echo 0; }

start_controller --node-timeout 120s || { fail "controller did not start"; exit 1; }
heartbeat
capi POST /v1/jobs '{"name":"one","request_id":"one","tasks":[{"argv":["sleep","1000"],"cpu_millis":100,"memory_bytes":16777216}]}'
[ "$STATUS" = 201 ] || [ "$STATUS" = 200 ] || fail "submit: $STATUS $(cat "$TMP/body")"
wait_for 15 '.task_states.running == 1' /v1/jobs/1 && ok "job 1 runs on the fake node" ||
  fail "job 1: $(cat "$TMP/body")"
fence_end=$(line_of '^end POST /v1/fence')
launch=$(line_of '^begin POST /v1/tasks')
if [ "$fence_end" -gt 0 ] && [ "$launch" -gt "$fence_end" ]; then
  ok "(a) the launch reached the node after its fence's answer"
else
  fail "(a) the launch went out before the fence was answered: $(cat "$FAKE_LOG")"
fi

# A restart: a new epoch, so a new fence; the node now reports job 1's task exited and a copy
# of a generation this controller never launched.
kill -TERM "$CTL_PID"
w=0
while kill -0 "$CTL_PID" 2>/dev/null && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
echo '[{"id":"j1-t0-g1","state":"exited","exit_status":0},{"id":"j1-t0-g9","state":"running"}]' >"$FAKE_TASKS"
: >"$FAKE_LOG"
start_controller --node-timeout 120s || { fail "controller did not restart"; exit 1; }
wait_for 15 '.state == "done"' /v1/jobs/1 && ok "(b) the task the fence's answer reports exited ended job 1" ||
  fail "(b) job 1 after the restart: $(cat "$TMP/body")"
w=0
while [ "$(line_of '^begin DELETE /v1/tasks/j1-t0-g9')" = 0 ] && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
[ "$(line_of '^begin DELETE /v1/tasks/j1-t0-g9')" -gt 0 ] &&
  ok "(b) the copy of a generation the store does not know was fenced off" ||
  fail "(b) no DELETE of j1-t0-g9: $(cat "$FAKE_LOG")"

# (c) A node lost (no heartbeat within --node-timeout after a restart) and back by a heartbeat
# is fenced again, and the calls decided for it go out after that fence's answer.
kill -TERM "$CTL_PID"
w=0
while kill -0 "$CTL_PID" 2>/dev/null && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
echo '[]' >"$FAKE_TASKS"
start_controller --node-timeout 1s || { fail "controller did not restart"; exit 1; }
wait_for 15 '[.nodes[] | select(.state == "lost")] | length == 1' /v1/nodes || fail "not lost: $(cat "$TMP/body")"
sleep 2.5 # the fence sent to the lost node is answered (and not read)
: >"$FAKE_LOG"
(while :; do heartbeat; sleep 0.3; done) &
AGENT_PIDS="$AGENT_PIDS $!"
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "not back: $(cat "$TMP/body")"
capi POST /v1/jobs '{"name":"two","request_id":"two","tasks":[{"argv":["sleep","1000"],"cpu_millis":100,"memory_bytes":16777216}]}'
wait_for 15 '.task_states.running == 1' /v1/jobs/2 && ok "(c) job 2 runs on the node back from lost" ||
  fail "(c) job 2: $(cat "$TMP/body")"
fence_end=$(line_of '^end POST /v1/fence')
launch=$(line_of '^begin POST /v1/tasks')
[ "$fence_end" -gt 0 ] && [ "$launch" -gt "$fence_end" ] &&
  ok "(c) the node back from lost was fenced again before its launch" ||
  fail "(c) fence and launch: $(cat "$FAKE_LOG")"
exit $FAILED
