#!/bin/sh
# A job that fails is forgotten by the policy once nothing of it runs: ebb-controller with
# bigc in mode kill and kill-attempts 1, one real ebb-agent of 2 CPUs. A long job of two
# 1-CPU tasks fills the node; a short 1-CPU job makes bigc kill one long container, which
# fails the long job (its one kill attempt used up), and bigc kills the other one too. The
# short job ends done, the long job failed with both tasks killed, and the policy holds no
# batch any more (ebb_controller_policy_jobs 0): the failed batch was forgotten when its
# last container's kill was reported, as a finished batch is at its last task's end.
# Time budget: about 15 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
CTL_TICK=100ms start_controller --policy bigc --policy-opt mode=kill --policy-opt kill-attempts=1 \
  --policy-opt round-sec=1 || { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes ||
  fail "node: $(cat "$TMP/body")"

task () { printf '{"argv":["sleep","%s"],"cpu_millis":1000,"memory_bytes":33554432}' "$1"; }
policy_jobs () { capi GET /metrics; sed -n 's/^ebb_controller_policy_jobs //p' "$TMP/body"; }

capi POST /v1/jobs "$(job_body longjob long "$(task 60)" "$(task 60)")"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 2' "/v1/jobs/$LONG" && ok "the long job fills the node" ||
  fail "long: $(cat "$TMP/body")"
[ "$(policy_jobs)" = 1 ] && ok "the policy holds its batch" || fail "policy jobs: $(policy_jobs)"

capi POST /v1/jobs "$(job_body shortjob short "$(task 1)")"
SHORT=$(jq -r .id "$TMP/body")
wait_for 15 '.state == "done"' "/v1/jobs/$SHORT" && ok "the short job ran and ended" ||
  fail "short: $(cat "$TMP/body")"
wait_for 10 '.state == "failed" and ([.tasks[] | select(.state == "running")] | length == 0)' \
  "/v1/jobs/$LONG" && ok "the long job failed, nothing of it runs: $(jq -c '[.tasks[].state]' "$TMP/body")" ||
  fail "long job: $(cat "$TMP/body")"
capi GET "/v1/decisions?since=0"
nk=$(jq --arg j "$LONG" '[.decisions[] | select(.action == "kill" and (.task | startswith($j + "-")))] | length' "$TMP/body")
[ "$nk" = 2 ] && ok "bigc killed both of its containers" ||
  fail "kills of job $LONG: $nk ($(jq -c '[.decisions[] | [.action, .task, .reason]]' "$TMP/body"))"

end=$(($(date +%s) + 5))
until [ "$(policy_jobs)" = 0 ] || [ "$(date +%s)" -gt "$end" ]; do sleep 0.2; done
[ "$(policy_jobs)" = 0 ] && ok "the policy forgot both batches, the failed one too (ebb_controller_policy_jobs 0)" ||
  fail "policy jobs: $(policy_jobs)"
exit $FAILED
