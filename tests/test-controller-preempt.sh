#!/bin/sh
# Preemption on a real cluster: ebb-controller with policy bigc (gp) and 3 real agents of 2
# CPUs each, filled with 6 long CPU burners that count loop iterations to files. Short 2-task
# jobs submitted to the full cluster start because the controller suspends long tasks through
# their agents (submit -> first task running and -> both running, measured REPS times; the
# first is asserted, both are printed: with bigc the second task waits in a node's probe
# queue); a displaced long task drops to ~1% of a CPU (from /proc); no long task stays
# suspended once a short job ends; every long task ends with the iteration count it was
# asked for. Time budget: about 45 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
REPS=${EBB_CTL_TEST_REPS:-5}
ITER=${EBB_CTL_TEST_ITER:-3000000}
# EBB_CTL_TEST_POLICY: the policy's flags (tests/test-controller-preempt-ebb.sh runs ebb).
POLICY=${EBB_CTL_TEST_POLICY:---policy bigc --policy-opt mode=gp --policy-opt round-sec=0.05}
# shellcheck disable=SC2086 # the flags are words
CTL_TICK=50ms start_controller $POLICY --node-timeout 10s || { fail "controller did not start"; exit 1; }
for n in 1 2 3; do start_node $n; done
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 3' /v1/nodes || fail "nodes: $(cat "$TMP/body")"

set --
for k in 1 2 3 4 5 6; do set -- "$@" "$(burner_task long$k "$ITER")"; done
capi POST /v1/jobs "$(job_body longjob long "$@")"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 6' "/v1/jobs/$LONG" && ok "6 long burners fill the 3 nodes" ||
  fail "long: $(cat "$TMP/body")"

# agent_pid TASK-INDEX: the pid of long task k from its agent.
agent_pid () {
  capi GET "/v1/jobs/$LONG"
  node=$(jq -r ".tasks[$1].node" "$TMP/body"); gen=$(jq -r ".tasks[$1].generation" "$TMP/body")
  curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/$node.sock" \
    "http://a/v1/tasks/j$LONG-t$1-g$gen" >"$TMP/task.json"
  jq -r .pid "$TMP/task.json"
}

now_ms () { date +%s%3N; }
# cpu_pct1 PID: percent of one CPU used over 1 s.
cpu_pct1 () { a1=$(cpu_ticks "$1"); sleep 1; a2=$(cpu_ticks "$1"); echo $(( (a2 - a1) * 100 / HZ )); }
: >"$TMP/lat1"; : >"$TMP/lat2"
r=0 cpu_checked=0
while [ $r -lt "$REPS" ]; do
  t0=$(now_ms) t1=
  capi POST /v1/jobs "$(job_body short$r short \
    '{"argv":["sleep","1.5"],"cpu_millis":900,"memory_bytes":67108864}' \
    '{"argv":["sleep","1.5"],"cpu_millis":900,"memory_bytes":67108864}')"
  SJ=$(jq -r .id "$TMP/body")
  while :; do
    capi GET "/v1/jobs/$SJ"
    nrun=$(jq '.task_states.running + .task_states.exited' "$TMP/body")
    [ -z "$t1" ] && [ "$nrun" -ge 1 ] && t1=$(( $(now_ms) - t0 ))
    [ "$nrun" = 2 ] && break
    [ $(( $(now_ms) - t0 )) -gt 5000 ] && break
  done
  echo "${t1:-5000}" >>"$TMP/lat1"
  echo $(( $(now_ms) - t0 )) >>"$TMP/lat2"
  if [ $cpu_checked = 0 ]; then
    capi GET "/v1/jobs/$LONG"
    k=$(jq -r '[.tasks[] | select(.state == "suspended") | .index][0] // empty' "$TMP/body")
    if [ -n "$k" ]; then
      pid=$(agent_pid "$k")
      case $pid in ''|*[!0-9]*) fail "no pid for long task $k: $(cat "$TMP/task.json")"; pid=1 ;; esac
      pct=$(cpu_pct1 "$pid")
      cpu_checked=1
      [ "$pct" -le 3 ] && ok "a displaced long task ran at $pct% of a CPU while suspended (/proc, 1 s)" ||
        fail "suspended CPU: $pct%"
    fi
  fi
  wait_for 10 '.state == "done"' "/v1/jobs/$SJ" || fail "short $r: $(cat "$TMP/body")"
  wait_for 5 '.task_states.suspended == 0' "/v1/jobs/$LONG" || fail "not resumed after short $r: $(jq -c '[.tasks[].state]' "$TMP/body")"
  r=$((r + 1))
done
[ $cpu_checked = 1 ] || fail "never saw a suspended long task"
pct () { sort -n "$1" | awk -v q="$2" '{ a[NR] = $1 } END { i = int(NR * q + 0.999); if (i < 1) i = 1; print a[i] }'; }
f50=$(pct "$TMP/lat1" 0.5) f99=$(pct "$TMP/lat1" 0.99) b50=$(pct "$TMP/lat2" 0.5) b99=$(pct "$TMP/lat2" 0.99)
echo "submit -> first task running over $REPS short jobs: p50 ${f50} ms, p99 ${f99} ms ($(tr '\n' ' ' <"$TMP/lat1"))"
echo "submit -> both tasks running: p50 ${b50} ms, p99 ${b99} ms ($(tr '\n' ' ' <"$TMP/lat2"))"
[ "$f99" -le 1000 ] && ok "a short job's first task starts on the full cluster within 1 s (p99 ${f99} ms)" ||
  fail "first-task p99 ${f99} ms"
capi GET "/v1/decisions?since=0"
ns=$(jq '[.decisions[] | select(.action == "suspend")] | length' "$TMP/body")
nr=$(jq '[.decisions[] | select(.action == "resume")] | length' "$TMP/body")
[ "$ns" -ge "$REPS" ] && [ "$nr" -ge "$REPS" ] && ok "decision log: $ns suspends, $nr resumes" ||
  fail "decisions: suspend $ns resume $nr"
capi GET "/v1/jobs/$LONG"
wait_for 120 '.state == "done"' "/v1/jobs/$LONG" || fail "long job: $(jq -c '[.tasks[].state]' "$TMP/body")"
good=0
for k in 1 2 3 4 5 6; do [ "$(cat "$OUT/long$k" 2>/dev/null)" = "$ITER" ] && good=$((good + 1)); done
[ $good = 6 ] && ok "every long task ended with its $ITER iterations ($(jq '[.tasks[].suspensions] | add' "$TMP/body") suspensions)" ||
  fail "counts: $good of 6"
[ "$FAILED" = 0 ] || { capi GET "/v1/decisions?since=0"; jq -c '.decisions[:40][] | [.seq, .action, .task, .node, .for_job, .reason]' "$TMP/body"; }
exit $FAILED
