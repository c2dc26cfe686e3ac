#!/bin/sh
# An adopted cgroup preempted by the ebb policy, before and after a controller restart.
# ebb-controller (policy ebb, D = 0) with one ebb-agent of 1 CPU of capacity; a CPU burner in
# its own cgroup under --adopt-root, with no CPU or memory limit, is adopted (a job of class
# auto without an estimate: adopted work is long unless said short) and the controller
# books its default (1000 millicores, 64 MiB). A short task of 500 millicores
# then needs the node: the policy takes a graceful step of 500 from the adopted task, and the
# agent, told what was booked, leaves the cgroup at 50000 of 100000 (half a CPU) instead of
# stepping from all online CPUs (which left it above a whole CPU). When the short task ends
# the cgroup is unlimited again. After kill -9 of the controller, the restarted controller
# knows the adopted task exactly as before: running, 1000 millicores (from its store), long,
# and preemptible by the policy, so a new short task makes it take the same step again (it
# waited for ever when the restart classified the task by the cutoff, as short work). The
# task ends when its cgroup is removed. Time budget: about 30 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
A="$CGP/adoptable/x1"
for h in ${HIERS:-x}; do mkcg "$(cgdir $h "$A")" || fail "mkdir $A"; done
[ "$LAYOUT" = v2 ] && echo "+cpu +memory" >"$(cgdir x "$CGP/adoptable")/cgroup.subtree_control"
quota () { if [ "$LAYOUT" = v2 ]; then cut -d' ' -f1 "$(cgdir x "$A")/cpu.max"; else cat "$(cgdir cpu "$A")/cpu.cfs_quota_us"; fi; }
UNLIMITED=$(quota)
sh -c 'while :; do :; done' & BURNER=$!
for h in ${HIERS:-x}; do echo "$BURNER" >"$(cgdir $h "$A")/cgroup.procs" || fail "attach to $h"; done

POL="--policy ebb --policy-opt resume-tries=0"
start_controller $POL --node-timeout 10s || { fail "controller did not start"; exit 1; }
start_node 1 --adopt-root "$CGP/adoptable" --capacity-cpu-millis 1000
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes ||
  fail "node: $(cat "$TMP/body")"

capi POST /v1/jobs "{\"name\":\"x1\",\"tasks\":[{\"adopt\":{\"node\":\"a1\",\"cgroup\":\"$A\"}}]}"
X1=$(jq -r .id "$TMP/body")
wait_for 10 '.tasks[0].state == "running"' "/v1/jobs/$X1" &&
  jq -e '.tasks[0].cpu_millis == 1000 and .tasks[0].memory_bytes == 67108864' "$TMP/body" >/dev/null &&
  ok "cgroup without limits adopted as job $X1, booked at the default 1000 millicores, 64 MiB" ||
  fail "adoption: $(cat "$TMP/body")"

# short_step NAME: a short job of one 500-millicore task on the full node; the adopted task
# gets one graceful step of 500 from its booked 1000 (quota 50000), and has its CPU back
# when the short task ends.
short_step () {
  capi POST /v1/jobs "$(job_body "$1" short '{"argv":["sleep","3"],"cpu_millis":500,"memory_bytes":16777216}')"
  sj=$(jq -r .id "$TMP/body")
  wait_for 10 '.task_states.running + .task_states.exited == 1' "/v1/jobs/$sj" &&
    ok "$1: the short task started on the full node" || fail "$1: $(cat "$TMP/body")"
  wait_for 5 '.tasks[0].state == "suspended"' "/v1/jobs/$X1" ||
    fail "$1: adopted task not preempted: $(cat "$TMP/body")"
  [ "$(quota)" = 50000 ] && ok "$1: the adopted cgroup stepped from its booked 1000 to 500 millicores (quota 50000)" ||
    fail "$1: quota $(quota), want 50000 (unlimited was $UNLIMITED)"
  set -- "$1" $(cpu_pct2 "$BURNER")
  [ "$2" -le 60 ] && ok "$1: the adopted burner uses $2% of a CPU" || fail "$1: adopted burner uses $2%"
  wait_for 20 '.state == "done"' "/v1/jobs/$sj" || fail "$1: short job not done: $(cat "$TMP/body")"
  wait_for 10 '.tasks[0].state == "running"' "/v1/jobs/$X1" && [ "$(quota)" = "$UNLIMITED" ] &&
    ok "$1: resumed, no CPU limit again" || fail "$1: not resumed: quota $(quota) $(cat "$TMP/body")"
}
short_step before-restart

kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
start_controller $POL --node-timeout 10s || fail "controller did not restart"
wait_for 10 '.tasks[0].state == "running" and .tasks[0].cpu_millis == 1000 and .tasks[0].memory_bytes == 67108864' "/v1/jobs/$X1" &&
  ok "after kill -9 of the controller: running with its stored allocation" || fail "after restart: $(cat "$TMP/body")"
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node after restart"
short_step after-restart

capi GET "/v1/decisions?since=0"
ns=$(jq --arg t "$X1-0" '[.decisions[] | select(.action == "suspend" and .task == $t)] | length' "$TMP/body")
nr=$(jq --arg t "$X1-0" '[.decisions[] | select(.action == "resume" and .task == $t)] | length' "$TMP/body")
[ "$ns" = 2 ] && [ "$nr" = 2 ] && ok "decision log: the adopted task suspended and resumed once per controller" ||
  fail "decisions for $X1-0: $ns suspends, $nr resumes: $(jq -c '.decisions[]' "$TMP/body")"

kill -9 "$BURNER"; wait "$BURNER" 2>/dev/null
for h in ${HIERS:-x}; do rmdir "$(cgdir $h "$A")"; done
wait_for 20 '.state == "done"' "/v1/jobs/$X1" && ok "its cgroup removed: the adopted task ended" ||
  fail "not ended: $(cat "$TMP/body")"
exit $FAILED
