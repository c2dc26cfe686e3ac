#!/bin/sh
# Why a task waits or failed, from a controller with one real agent (2 CPUs): a launch of a
# program that does not exist fails with reason launch_failed and the agent's detail; a job
# that finds no free room pends with no_room (task and job), which goes once it starts, and
# its placed_at says how long it waited; with the ebb policy's long-share 1, a short job
# behind running long work waits with long_work_protected. /metrics counts them by reason
# (ebb_controller_tasks_pending, ebb_controller_jobs_queued), back to 0 once they start.
# Time budget: about 15 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
# by_reason WHAT: the samples of /metrics' pending tasks and queued jobs by reason, "A=N,B=M".
by_reason () {
  capi GET /metrics
  printf '%s' "$(sed -n 's/^ebb_controller_\(tasks_pending\|jobs_queued\){reason="\([a-z_]*\)"} \([0-9]*\)$/\1.\2=\3/p' "$TMP/body" |
    grep -v '=0$' | sort | tr '\n' ,)"
}
setup_cgroups
start_controller --policy ebb --node-timeout 5s || { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes &&
  ok "agent registered" || fail "nodes: $(cat "$TMP/body")"

capi POST /v1/jobs '{"name":"bad","class":"long","request_id":"bad","tasks":[{"argv":["/nonexistent/prog"],"cpu_millis":500,"memory_bytes":67108864}]}'
BAD=$(jq -r .id "$TMP/body")
wait_for 10 '.state == "failed"' "/v1/jobs/$BAD" || fail "bad job: $(cat "$TMP/body")"
jq -e '.tasks[0].reason.code == "launch_failed" and (.tasks[0].reason.message | test("^agent a1: argv\\[0\\] /nonexistent/prog.*: No such file or directory$"))
       and .reason.code == "launch_failed"' "$TMP/body" >/dev/null &&
  ok "launch of /nonexistent/prog: launch_failed, $(jq -r .tasks[0].reason.message "$TMP/body")" ||
  fail "launch_failed: $(cat "$TMP/body")"

sleeper='{"argv":["sleep","60"],"cpu_millis":1500,"memory_bytes":67108864}'
capi POST /v1/jobs "{\"name\":\"big\",\"class\":\"long\",\"request_id\":\"big\",\"tasks\":[$sleeper]}"
BIG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 1' "/v1/jobs/$BIG" || fail "big not running: $(cat "$TMP/body")"
jq -e '.reason == null and .tasks[0].reason == null and .placed_at != null' "$TMP/body" >/dev/null &&
  ok "a running job has no reason and a placed_at" || fail "running: $(cat "$TMP/body")"
capi POST /v1/jobs "{\"name\":\"next\",\"class\":\"long\",\"request_id\":\"next\",\"tasks\":[$sleeper]}"
NEXT=$(jq -r .id "$TMP/body")
capi GET "/v1/jobs/$NEXT"
jq -e '.state == "queued" and .tasks[0].reason.code == "no_room" and .reason.code == "no_room"
       and (.reason.message | test("1.50 CPU")) and .placed_at == null' "$TMP/body" >/dev/null &&
  ok "no free room: no_room, $(jq -r .reason.message "$TMP/body")" || fail "no_room: $(cat "$TMP/body")"
capi GET "/v1/jobs?state=active"
jq -e '[.jobs[] | select(.id == '"$NEXT"' and .reason.code == "no_room")] | length == 1' "$TMP/body" >/dev/null &&
  ok "GET /v1/jobs lists the reason" || fail "list: $(cat "$TMP/body")"
m=$(by_reason)
[ "$m" = "jobs_queued.no_room=1,tasks_pending.no_room=1," ] && ok "/metrics by reason: $m" ||
  fail "/metrics by reason while next waits: '$m'"
sleep 1
capi DELETE "/v1/jobs/$BIG"
wait_for 10 '.task_states.running == 1' "/v1/jobs/$NEXT" || fail "next not running: $(cat "$TMP/body")"
jq -e '.reason == null and .tasks[0].reason == null and .placed_at - .submitted_at >= 1' "$TMP/body" >/dev/null &&
  ok "started: no reason, waited $(jq '.placed_at - .submitted_at' "$TMP/body") s" ||
  fail "after start: $(cat "$TMP/body")"
m=$(by_reason)
[ -z "$m" ] && grep -q '^ebb_controller_tasks_pending{reason="no_room"} 0$' "$TMP/body" &&
  ok "/metrics by reason: all 0 once it started" || fail "/metrics by reason after the start: '$m'"
capi DELETE "/v1/jobs/$NEXT"
wait_for 10 '.state == "killed"' "/v1/jobs/$NEXT" || fail "next not killed: $(cat "$TMP/body")"

# The ebb policy with long-share 1: running long work may not be preempted at all, so a
# short task that finds no room waits because of the share, and says so.
kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
start_controller --policy ebb --policy-opt long-share=1 --node-timeout 5s || fail "controller did not restart"
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "no node after restart"
capi POST /v1/jobs "{\"name\":\"long\",\"class\":\"long\",\"request_id\":\"long\",\"tasks\":[$sleeper]}"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 1' "/v1/jobs/$LONG" || fail "long not running: $(cat "$TMP/body")"
capi POST /v1/jobs "{\"name\":\"short\",\"class\":\"short\",\"request_id\":\"short\",\"tasks\":[$sleeper]}"
SHORT=$(jq -r .id "$TMP/body")
capi GET "/v1/jobs/$SHORT"
jq -e '.state == "queued" and .tasks[0].reason.code == "long_work_protected"
       and .reason.code == "long_work_protected"' "$TMP/body" >/dev/null &&
  ok "a short job behind protected long work: long_work_protected, $(jq -r .reason.message "$TMP/body")" ||
  fail "long_work_protected: $(cat "$TMP/body")"
m=$(by_reason)
[ "$m" = "jobs_queued.long_work_protected=1,tasks_pending.long_work_protected=1," ] &&
  ok "/metrics by reason: $m" || fail "/metrics by reason behind long work: '$m'"
capi DELETE "/v1/jobs/$SHORT"
capi DELETE "/v1/jobs/$LONG"
exit $FAILED
