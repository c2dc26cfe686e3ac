#!/bin/sh
# ebb-controller with 3 real ebb-agents (2 CPUs of capacity each, cgroups nested under the
# test's): nodes register through heartbeats, a 6-task job of CPU burners is placed by the
# policy (fifo: 2 per node), every task ends with the iteration count it was asked for and is
# started exactly once; the decision log, /v1/cluster, /metrics; request_id replay; DELETE of
# a running job kills its tasks; tasks that adopt: a bad request is refused with the right
# 4xx and changes nothing, an adoption the agent refuses fails its task, a cgroup adopted on
# a3 holds its own limits, survives a kill -9 of the controller and ends when the cgroup is
# removed. Time budget: about 30 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
start_controller --policy fifo --node-timeout 5s || { fail "controller did not start"; exit 1; }
start_node 1; start_node 2; start_node 3 --adopt-root "$CGP/adoptable"
wait_for 10 '[.nodes[] | select(.state == "ready" and .slots == 2)] | length == 3' /v1/nodes &&
  ok "3 agents registered through heartbeats, 2 slots each" || fail "nodes: $(cat "$TMP/body")"

ITER=300000
set --
for k in 1 2 3 4 5 6; do set -- "$@" "$(burner_task long$k $ITER)"; done
capi POST /v1/jobs "$(job_body longjob long "$@")"
[ "$STATUS" = 201 ] && JOB=$(jq -r .id "$TMP/body") && ok "POST /v1/jobs -> 201, id $JOB" ||
  fail "submit: $STATUS $(cat "$TMP/body")"
cp "$TMP/body" "$TMP/first"
capi POST /v1/jobs "$(job_body longjob long "$@")"
[ "$STATUS" = 201 ] && cmp -s "$TMP/body" "$TMP/first" && ok "repeated request_id returns the first answer" ||
  fail "replay: $STATUS $(cat "$TMP/body")"

wait_for 5 '.state == "running" and .task_states.running == 6' "/v1/jobs/$JOB" &&
  ok "all 6 tasks running" || fail "job: $(cat "$TMP/body")"
per_node=$(jq -r '[.tasks[].node] | group_by(.) | map(length) | sort | join(",")' "$TMP/body")
[ "$per_node" = "2,2,2" ] && ok "2 tasks on each node" || fail "placement: $per_node"
wait_for 60 '.state == "done"' "/v1/jobs/$JOB" && ok "job done" || fail "job not done: $(cat "$TMP/body")"
good=0
for k in 1 2 3 4 5 6; do
  [ "$(cat "$OUT/long$k" 2>/dev/null)" = "$ITER" ] && [ "$(wc -l <"$OUT/long$k.starts")" = 1 ] && good=$((good + 1))
done
[ $good = 6 ] && ok "every task counted $ITER iterations and started once" || fail "counts: $good of 6"
jq -e '[.tasks[] | select(.state == "exited" and .exit_status == 0 and .finished_at != null)] | length == 6' \
  "$TMP/body" >/dev/null && ok "tasks exited 0 with times" || fail "tasks: $(cat "$TMP/body")"

capi GET "/v1/decisions?since=0"
[ "$(jq '[.decisions[] | select(.action == "launch" and .job == '"$JOB"')] | length' "$TMP/body")" = 6 ] &&
  ok "decision log: 6 launches" || fail "decisions: $(cat "$TMP/body")"
last=$(jq .last_seq "$TMP/body")
capi GET "/v1/decisions?since=$last"
[ "$(jq '.decisions | length' "$TMP/body")" = 0 ] && ok "decisions?since=last is empty" || fail "since: $(cat "$TMP/body")"

capi GET /v1/cluster
jq -e '.nodes.ready == 3 and .capacity.cpu_millis == 6000 and .slots == 6' "$TMP/body" >/dev/null &&
  ok "GET /v1/cluster" || fail "cluster: $(cat "$TMP/body")"
capi GET /metrics
grep -q '^ebb_controller_task_launches_total 6$' "$TMP/body" && grep -q '^ebb_controller_nodes{state="ready"} 3$' "$TMP/body" &&
  ok "/metrics" || fail "metrics: $(head -c 600 "$TMP/body")"

# DELETE of a running job: its tasks are killed through their agents.
capi POST /v1/jobs "$(job_body spin long "$(burner_task spin1 1000000000)" "$(burner_task spin2 1000000000)")"
SPIN=$(jq -r .id "$TMP/body")
wait_for 5 '.task_states.running == 2' "/v1/jobs/$SPIN" || fail "spin not running: $(cat "$TMP/body")"
capi DELETE "/v1/jobs/$SPIN"
[ "$STATUS" = 200 ] || fail "DELETE: $STATUS"
wait_for 10 '.state == "killed" and .task_states.killed == 2' "/v1/jobs/$SPIN" &&
  ok "DELETE /v1/jobs/ID: both tasks killed" || fail "kill: $(cat "$TMP/body")"
capi GET "/v1/decisions?since=$last"
[ "$(jq '[.decisions[] | select(.action == "kill")] | length' "$TMP/body")" = 2 ] &&
  ok "kills in the decision log" || fail "kill decisions: $(cat "$TMP/body")"
# Adopting tasks: refused before anything changes (400 malformed, 404 unknown node).
capi GET /v1/jobs
njobs=$(jq '.jobs | length' "$TMP/body")
ndec=$(capi GET "/v1/decisions?since=0"; jq .last_seq "$TMP/body")
badadopt () { # badadopt STATUS TASK-JSON
  capi POST /v1/jobs "{\"name\":\"bad\",\"tasks\":[$2]}"
  [ "$STATUS" = "$1" ] && ok "adopt $2 -> $1 $(jq -r .error "$TMP/body")" || fail "adopt $2: $STATUS, want $1: $(cat "$TMP/body")"
}
badadopt 400 '{"adopt":{"node":"a1","container":"c1","cgroup":"/x"}}'
badadopt 400 '{"adopt":{"node":"a1"}}'
badadopt 400 '{"adopt":{"node":"a1","container":"c1"},"argv":["true"]}'
badadopt 400 '{"adopt":{"node":"a1","cgroup":"/x","runtime":"docker"}}'
badadopt 400 '{"adopt":{"container":"c1"}}'
badadopt 404 '{"adopt":{"node":"a9","container":"c1"}}'
badadopt 409 '{"adopt":{"node":"a1","cgroup":"/x"}},{"adopt":{"node":"a1","cgroup":"/x"}}'
capi GET /v1/jobs
[ "$(jq '.jobs | length' "$TMP/body")" = "$njobs" ] && capi GET "/v1/decisions?since=0" &&
  [ "$(jq .last_seq "$TMP/body")" = "$ndec" ] && ok "refused adoptions changed nothing" ||
  fail "jobs or decisions changed: $(cat "$TMP/body")"
# Accepted, but the agent (no --adopt-root) refuses: the task fails, nothing is launched.
capi POST /v1/jobs '{"name":"refused","tasks":[{"adopt":{"node":"a2","cgroup":"/nowhere"}}]}'
REF=$(jq -r .id "$TMP/body")
[ "$STATUS" = 201 ] || fail "adopt submit: $STATUS $(cat "$TMP/body")"
wait_for 10 '.state == "failed" and .tasks[0].node == null' "/v1/jobs/$REF" &&
  ok "an adoption the agent refuses fails its task" || fail "refused adoption: $(cat "$TMP/body")"
capi GET "/v1/decisions?since=$ndec"
jq -e '[.decisions[] | select(.action == "adopt" and .node == "a2")] | length == 1' "$TMP/body" >/dev/null &&
  ok "the adoption was decided on a2 before the call" || fail "adopt decision: $(cat "$TMP/body")"

# A cgroup with its own limits (half a CPU, 256 MiB) and a process, adopted on a3.
A="$CGP/adoptable/x1"
for h in ${HIERS:-x}; do mkdir -p "$(cgdir $h "$A")" || fail "mkdir $A"; done
if [ "$LAYOUT" = v2 ]; then
  echo "+cpu +memory" >"$(cgdir x "$CGP/adoptable")/cgroup.subtree_control"
  echo "50000 100000" >"$(cgdir x "$A")/cpu.max"; echo 268435456 >"$(cgdir x "$A")/memory.max"
else
  echo 50000 >"$(cgdir cpu "$A")/cpu.cfs_quota_us"; echo 268435456 >"$(cgdir memory "$A")/memory.limit_in_bytes"
fi
sleep 600 & SLEEPER=$!
for h in ${HIERS:-x}; do echo "$SLEEPER" >"$(cgdir $h "$A")/cgroup.procs" || fail "attach to $h"; done
capi POST /v1/jobs "{\"name\":\"x1\",\"tasks\":[{\"adopt\":{\"node\":\"a3\",\"cgroup\":\"$A\"}}]}"
X1=$(jq -r .id "$TMP/body")
wait_for 10 '.tasks[0].state == "running"' "/v1/jobs/$X1" &&
  jq -e '.tasks[0].node == "a3" and .tasks[0].cpu_millis == 500 and .tasks[0].memory_bytes == 268435456 and .class == "auto"' \
    "$TMP/body" >/dev/null && ok "cgroup adopted on a3 with its own limits (500 millicores, 256 MiB)" ||
  fail "cgroup adoption: $(cat "$TMP/body")"
kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
start_controller --policy fifo --node-timeout 5s || fail "controller did not restart"
wait_for 10 '.tasks[0].state == "running" and .tasks[0].cpu_millis == 500' "/v1/jobs/$X1" &&
  ok "after kill -9 of the controller: still running on a3" || fail "after restart: $(cat "$TMP/body")"
# An adopted cgroup's task ends when the cgroup is gone (the agent's rule).
kill -9 "$SLEEPER"; wait "$SLEEPER" 2>/dev/null
for h in ${HIERS:-x}; do rmdir "$(cgdir $h "$A")"; done
wait_for 20 '.state == "done"' "/v1/jobs/$X1" &&
  ok "its cgroup removed: the task ended ($(jq -r '.tasks[0].state' "$TMP/body"))" || fail "not ended: $(cat "$TMP/body")"
exit $FAILED
