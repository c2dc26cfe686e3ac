#!/bin/sh
# The operator's hold (issue 22 item 3): `ebbctl suspend JOB[-TASK]` through the controller,
# on a real agent and cgroups, policy ebb (rounds of 1 s, D = 1). A long job of two gated
# burners fills the node (2 CPUs); `ebbctl suspend L-0` brings task 0's cgroup down to the
# footprint's CPU quota and the decision log shows a "hold" by the operator (uid). Short
# jobs come and go (each preempts task 1, the one not held): task 1 is resumed after each,
# task 0 never. `ebbctl resume L-0`: it runs at its quota again ("release" in the log).
# Then the whole job is held (`ebbctl suspend L`: reason "held"; `ebbctl jobs` and
# `ebbctl job` show it, and the status page), the controller is killed and started again on its store: the
# hold stays (held, suspended, no decision) while another short job comes and goes, until
# `ebbctl resume L`.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
POLICY="--policy ebb --policy-opt round-sec=1 --policy-opt resume-tries=1"
# shellcheck disable=SC2086 # the flags are words
CTL_TICK=50ms start_controller $POLICY || { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node: $(cat "$TMP/body")"
ctl () { EBB_CONTROLLER="unix:$CSOCK" "$EBBCTL" "$@"; }

capi POST /v1/jobs "$(job_body longjob long "$(gated_burner long0 1000000000)" "$(gated_burner long1 1000000000)")"
L=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 2' "/v1/jobs/$L" && ok "two long burners fill the node" ||
  fail "long: $(cat "$TMP/body")"
aid () { capi GET "/v1/jobs/$L"; jq -r ".tasks[$1].agent_task_id" "$TMP/body"; }
A0=$(aid 0)
[ "$(cpu_limit "a1/$A0")" = 100000 ] && ok "task 0 runs at its quota (1000 millicores)" ||
  fail "task 0 quota $(cpu_limit "a1/$A0")"

# A task not running (a finished job's) is refused with 409 and a reason.
capi POST "/v1/jobs/$L/tasks/7/suspend"
[ "$STATUS" = 404 ] && ok "suspend of a task the job does not have: 404" || fail "task 7: $STATUS $(cat "$TMP/body")"

out=$(ctl suspend "$L-0" 2>&1)
echo "ebbctl suspend $L-0: $out"
case $out in "$L-0: "*held*) ok "ebbctl suspend $L-0 says it is held" ;; *) fail "ebbctl suspend: '$out'" ;; esac
wait_for 10 '.tasks[0].state == "suspended" and .tasks[0].held and .tasks[1].state == "running"' "/v1/jobs/$L" &&
  ok "task 0 suspended and held, task 1 runs" || fail "after suspend: $(cat "$TMP/body")"
q=$(cpu_limit "a1/$A0")
[ "$q" = 1000 ] && ok "task 0's cgroup at the footprint's quota (10 millicores)" || fail "held quota $q"
out2=$(ctl suspend "$L-0" 2>&1) && ok "ebbctl suspend again: idempotent ($out2)" || fail "suspend again: $out2"
capi GET "/v1/decisions?since=0"
jq -e --arg t "$L-0" '[.decisions[] | select(.action == "hold" and .task == $t and (.reason | test("operator \\(uid [0-9]+\\)")))] | length == 1' \
  "$TMP/body" >/dev/null && ok "decision log: one hold of $L-0 by the operator ($(jq -c --arg t "$L-0" '[.decisions[] | select(.task == $t)][-1].reason' "$TMP/body"))" ||
  fail "decisions: $(jq -c '.decisions' "$TMP/body")"
grep -q "audit: uid [0-9]*: suspend: job $L (longjob), task 0" "$CLOG" && ok "audit line for the suspend" ||
  fail "no audit line: $(grep audit "$CLOG" | tail -3)"

# short_round NAME [HELD1]: a short job needing 1.5 CPUs (task 1 must give way unless held)
# comes and goes; task 1 runs again within two rounds (HELD1: it stays held too), task 0
# stays held and suspended.
SHORT='{"argv":["sleep","1"],"cpu_millis":1500,"memory_bytes":67108864}'
short_round () {
  capi POST /v1/jobs "$(job_body "$1" short "$SHORT")"
  sj=$(jq -r .id "$TMP/body")
  wait_for 15 '.state == "done"' "/v1/jobs/$sj" || { fail "short $1: $(cat "$TMP/body")"; return; }
  [ -n "${2-}" ] || wait_for 5 '.tasks[1].state == "running"' "/v1/jobs/$L" ||
    fail "task 1 not resumed after $1: $(jq -c '[.tasks[].state]' "$TMP/body")"
  sleep 2.5 # more than two rounds with room: the policy would have resumed task 0 by now
  capi GET "/v1/jobs/$L"
  jq -e '.tasks[0].state == "suspended" and .tasks[0].held' "$TMP/body" >/dev/null ||
    fail "task 0 after $1: $(jq -c '.tasks[0]' "$TMP/body")"
  [ -z "${2-}" ] || jq -e '.tasks[1].state == "suspended" and .tasks[1].held' "$TMP/body" >/dev/null ||
    fail "task 1 after $1: $(jq -c '.tasks[1]' "$TMP/body")"
}
short_round s1
short_round s2
capi GET "/v1/decisions?since=0"
nr=$(jq --arg t "$L-0" '[.decisions[] | select(.task == $t and (.action == "resume" or .action == "release"))] | length' "$TMP/body")
ns=$(jq --arg t "$L-1" '[.decisions[] | select(.task == $t and .action == "suspend")] | length' "$TMP/body")
[ "$nr" = 0 ] && [ "$ns" -ge 2 ] && [ "$(cpu_limit "a1/$A0")" = 1000 ] &&
  ok "two short jobs came and went: task 1 preempted $ns times, task 0 never resumed (quota still 1000)" ||
  fail "resumes of task 0: $nr, suspensions of task 1: $ns, quota $(cpu_limit "a1/$A0")"

out=$(ctl resume "$L-0" 2>&1)
echo "ebbctl resume $L-0: $out"
wait_for 10 '.tasks[0].state == "running" and (.tasks[0].held | not)' "/v1/jobs/$L" &&
  ok "ebbctl resume $L-0: it runs, not held" || fail "after resume: $(cat "$TMP/body")"
[ "$(cpu_limit "a1/$A0")" = 100000 ] && ok "task 0 back at its quota" || fail "quota after resume $(cpu_limit "a1/$A0")"
capi GET "/v1/decisions?since=0"
jq -e --arg t "$L-0" '[.decisions[] | select(.action == "release" and .task == $t)] | length == 1' "$TMP/body" >/dev/null &&
  ok "decision log: the release" || fail "no release: $(jq -c '.decisions[-3:]' "$TMP/body")"
capi POST "/v1/jobs/$L/tasks/0/resume"
[ "$STATUS" = 200 ] && ok "resume of a running task: 200, nothing to do" || fail "resume again: $STATUS"

# The whole job, then a restart of the controller on its store.
ctl suspend "$L" >/dev/null 2>&1 || fail "ebbctl suspend $L"
wait_for 10 '([.tasks[] | select(.state == "suspended" and .held)] | length) == 2 and .reason.code == "held" and .held_tasks == 2' "/v1/jobs/$L" &&
  ok "ebbctl suspend $L: both tasks held, the job's reason is held" || fail "job hold: $(cat "$TMP/body")"
out=$(ctl jobs 2>&1)
echo "$out" | grep -q "^$L .* suspended (held) " && ok "ebbctl jobs: suspended (held)" || fail "ebbctl jobs: $out"
out=$(ctl job "$L" 2>&1)
[ "$(echo "$out" | grep -c 'suspended (held)')" = 3 ] && ok "ebbctl job $L: the job and both tasks suspended (held)" ||
  fail "ebbctl job: $out"
# The status page says it as ebbctl does: its job view in headless Chromium
# (tests/status-page/lib.sh, in a subshell: its own ok/fail/skip) through a loopback bridge
# to the controller's socket.
(
  . "$EBB_TOP_SRCDIR/tests/status-page/lib.sh"
  command -v socat >/dev/null || skip "the page's check needs socat"
  port=$((20000 + ($$ + 3187) % 20000))
  socat "TCP-LISTEN:$port,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$CSOCK" 2>/dev/null &
  bridge=$!
  chromium_run "$TMP/page" "http://127.0.0.1:$port/#job/$L"
  kill "$bridge"; wait "$bridge" 2>/dev/null
  [ "$(grep -o '<td class="state-suspended">suspended (held)</td>' "$TMP/page.html" | wc -l)" = 2 ] &&
    grep -qF '<dt>State</dt><dd class="state-suspended">suspended (held)</dd>' "$TMP/page.html" &&
    ok "the status page's #job/$L: the job and both tasks suspended (held)" ||
    fail "status page: $(grep -o '<dt>State</dt><dd[^<]*' "$TMP/page.html") $(text_of "$TMP/page.html" error)"
  exit $FAILED
)
case $? in 0 | 77) ;; *) FAILED=1 ;; esac
capi GET "/v1/decisions?since=0"
last=$(jq '[.decisions[].seq] | max' "$TMP/body")
kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
# shellcheck disable=SC2086
CTL_TICK=50ms start_controller $POLICY || { fail "controller did not start again"; exit 1; }
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node after restart: $(cat "$TMP/body")"
sleep 3 # rounds of the new policy with the node's room free
capi GET "/v1/jobs/$L"
jq -e '[.tasks[] | select(.state == "suspended" and .held)] | length == 2' "$TMP/body" >/dev/null &&
  ok "after a restart both tasks are still held and suspended" || fail "after restart: $(cat "$TMP/body")"
short_round s3 held
capi GET "/v1/decisions?since=$last"
# Held in the new policy too (no call: suspended already): the short job found their room
# free, nothing suspended nor resumed them.
n=$(jq --arg j "$L" '[.decisions[] | select(.task | startswith($j + "-"))] | length' "$TMP/body")
[ "$n" = 0 ] && [ "$(cpu_limit "a1/$A0")" = 1000 ] && ok "no decision for them after the restart (s3 ran in their room)" ||
  fail "after restart: $n resumes, quota $(cpu_limit "a1/$A0"): $(jq -c '.decisions' "$TMP/body")"
ctl resume "$L" >/dev/null 2>&1 || fail "ebbctl resume $L"
wait_for 10 '.task_states.running == 2 and .held_tasks == 0' "/v1/jobs/$L" && ok "ebbctl resume $L: both run" ||
  fail "after job resume: $(cat "$TMP/body")"
touch "$OUT/release"
ctl kill "$L" >/dev/null 2>&1
exit $FAILED
