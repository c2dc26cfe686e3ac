#!/bin/sh
# Issue 21, a job that fits nowhere and a killed queued job, on a real agent of 1000
# millicores under the ebb policy: a long job asking 8000 millicores is refused at submit
# (422, naming the largest node and its capacity) instead of waiting for a node that never
# comes; a long job queued behind a running one and then killed leaves the policy at once
# (the gauge ebb_controller_policy_jobs drops in the kill's answer, ebb_pol_job_cancel), and
# the long job submitted after it starts when the running one ends.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
start_controller --policy ebb || { fail "controller did not start"; exit 1; }
start_node 1 --capacity-cpu-millis 1000
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "nodes: $(cat "$TMP/body")"

BIG='{"argv":["true"],"cpu_millis":8000,"memory_bytes":67108864}'
capi POST /v1/jobs "$(job_body big long "$BIG")"
[ "$STATUS" = 422 ] && grep -q 'a1, has 1000 millicores' "$TMP/body" &&
  ok "a job of 8000 millicores is refused on a node of 1000: $(jq -r .detail "$TMP/body")" ||
  fail "big job: $STATUS $(cat "$TMP/body")"

# policy_jobs: the batches the policy holds (GET /metrics).
policy_jobs () {
  capi GET /metrics
  awk '$1 == "ebb_controller_policy_jobs" { print $2 }' "$TMP/body"
}
capi POST /v1/jobs "$(job_body first long "$(gated_burner first 20000)")"
FIRST=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 1' "/v1/jobs/$FIRST" && ok "the first long job runs" ||
  fail "first: $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body queued long "$(burner_task queued 1000)")"
QUEUED=$(jq -r .id "$TMP/body")
n=$(policy_jobs)
[ "$n" = 2 ] && ok "a second long job waits in the policy ($n batches)" ||
  fail "policy jobs before the kill: $n"
capi DELETE "/v1/jobs/$QUEUED"
n=$(policy_jobs)
[ "$n" = 1 ] && ok "the killed queued job left the policy at once ($n batch)" ||
  fail "policy jobs after the kill: $n (want 1)"
capi POST /v1/jobs "$(job_body after long "$(burner_task after 1000)")"
AFTER=$(jq -r .id "$TMP/body")
touch "$OUT/release"
wait_for 20 '.state == "done"' "/v1/jobs/$AFTER" && ok "the long job submitted after it ran" ||
  fail "after: $(cat "$TMP/body")"
[ ! -e "$OUT/queued.starts" ] && ok "the killed job never started" || fail "the killed job started"
exit $FAILED
