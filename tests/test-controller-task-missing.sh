#!/bin/sh
# Issue 20, "every submission reaches a final state": a task the controller holds running on
# a node whose agent no longer has it is noticed (controller/sched-reconcile.c,
# ebb_ctl_reconcile_missing), and only then.
# (a) The agent is stopped, its task killed by PID and its state directory wiped, and it starts
#     again under the same node name: within a few heartbeats the controller logs the task
#     missing (at its default verbosity), records a "kill" decision naming the node, and the
#     task runs again, instead of the job staying running for ever.
# (b) A quick stream of launches to the real agent (1 s heartbeats, so that reports cross the
#     launches' answers): no task is declared missing.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
CTL_VERBOSE='' start_controller --node-timeout 60s || { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "nodes: $(cat "$TMP/body")"

capi POST /v1/jobs "$(job_body w long '{"argv":["sh","-c","echo start >> '"$OUT"'/w.starts; exec sleep 1000"],"cpu_millis":500,"memory_bytes":33554432}')"
W=$(jq -r .id "$TMP/body")
wait_for 15 '.task_states.running == 1' "/v1/jobs/$W" || fail "w: $(cat "$TMP/body")"
AID=$(jq -r '.tasks[0].agent_task_id' "$TMP/body")
PID=$(curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/a1.sock" \
  "http://a/v1/tasks/$AID" | jq -r .pid)
case $PID in '' | null | 0) fail "no pid for $AID"; exit 1 ;; esac

kill -TERM "$AGENT_PID_1"
w=0
while kill -0 "$AGENT_PID_1" 2>/dev/null && [ $w -lt 200 ]; do sleep 0.1; w=$((w + 1)); done
kill -9 "$PID" 2>/dev/null
rm -rf "$TMP/a1"
start_node 1
if wait_for 30 '.tasks[0].generation > 1 and .task_states.running == 1' "/v1/jobs/$W"; then
  ok "(a) the task the wiped agent lost runs again (generation $(jq '.tasks[0].generation' "$TMP/body"))"
else
  fail "(a) w after the agent lost its task: $(cat "$TMP/body")"
fi
w=0
while [ "$(wc -l <"$OUT/w.starts")" -lt 2 ] && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
[ "$(wc -l <"$OUT/w.starts")" -ge 2 ] && ok "(a) it started a second time" ||
  fail "(a) starts: $(cat "$OUT/w.starts")"
grep -q "node a1: task $AID (running here) is missing from its last 3 reports: lost there" "$CLOG" &&
  ok "(a) the log says which task went missing on which node" || fail "(a) not logged: $(tail -5 "$CLOG")"
capi GET /v1/decisions
jq -e '[.decisions[] | select(.action == "kill" and (.reason | test("task_missing: node a1")))] | length == 1' \
  "$TMP/body" >/dev/null && ok "(a) one kill decision names the reason and the node" ||
  fail "(a) decisions: $(jq -c '.decisions[-3:]' "$TMP/body")"
capi DELETE "/v1/jobs/$W"

# (b) 40 jobs of short tasks submitted at once, and launched as room frees up.
before=$(grep -c "is missing from its last" "$CLOG")
i=0
while [ $i -lt 40 ]; do
  capi POST /v1/jobs "$(job_body "s$i" short '{"argv":["sleep","0.3"],"cpu_millis":200,"memory_bytes":16777216}')"
  i=$((i + 1))
done
LAST=$(jq -r .id "$TMP/body")
wait_for 60 '[.jobs[] | select(.name | startswith("s")) | select(.state == "done")] | length == 40' \
  "/v1/jobs?limit=100" && ok "(b) the 40 short jobs are done" ||
  fail "(b) jobs: $(jq -c '[.jobs[] | {name, state}]' "$TMP/body")"
after=$(grep -c "is missing from its last" "$CLOG")
[ "$after" = "$before" ] && ok "(b) no task was declared missing during the stream" ||
  fail "(b) $((after - before)) tasks declared missing: $(grep "is missing" "$CLOG" | tail -3)"
capi GET "/v1/jobs/$LAST"
[ "$(jq '.tasks[0].generation' "$TMP/body")" = 1 ] && ok "(b) the last one ran in its first generation" ||
  fail "(b) last: $(cat "$TMP/body")"
exit $FAILED
