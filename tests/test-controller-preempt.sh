#!/bin/sh
# Preemption on a real cluster: ebb-controller and 3 real agents of 2 CPUs each (own state
# dirs, own cgroup parents under the test's cgroup), filled with 6 long CPU burners that count
# loop iterations to files. A short 2-task job submitted to the full cluster starts because
# the controller preempts long tasks through their agents. Measured REPS times from the API's
# own times (a task's started_at, when its agent answered the launch, less the job's
# submitted_at): submit -> both tasks running, p50 and p99 printed, p99 asserted <= 200 ms
# on a quiet host (1 s on one shared with other work: see the bound below), with the agents'
# launch phases from their logs; and from the decision log (times in microseconds) where the
# controller's part went: it decides for a short job synchronously, in the request that submits
# it (api-jobs.c runs the policy before the answer goes out), so the test asserts per job that
# its preemptions (or launches) were decided after its submission and before the client had
# the answer, and each of its tasks' launch decided before the task ran.
# Suspending policies: every displaced long task runs at ~1% of a CPU while suspended
# (/proc, 0.5 s) and is resumed within two policy rounds of the short job's end, started once.
# Killing policies (EBB_CTL_TEST_KILLS=1): a displaced long task is killed and started again
# (its .starts file and the decision log show it). Every long task ends with the iteration
# count it was asked for. The policy is bigc gp by default;
# tests/test-controller-preempt-ebb.sh and -kill.sh run ebb and bigc kill. About 60 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
REPS=${EBB_CTL_TEST_REPS:-20}
ITER=${EBB_CTL_TEST_ITER:-200000}
# Rounds of 1 s and delayed resumption D = 1 keep 20 repetitions short; the latency bound
# (200 ms) is still far below a round, so a short job that waited for one would fail it.
ROUND=1
POLICY=${EBB_CTL_TEST_POLICY:---policy bigc --policy-opt mode=gp}
POLICY="$POLICY --policy-opt round-sec=$ROUND --policy-opt resume-tries=1"
KILLS=${EBB_CTL_TEST_KILLS:-0}
# shellcheck disable=SC2086 # the flags are words
CTL_TICK=50ms start_controller $POLICY --node-timeout 10s || { fail "controller did not start"; exit 1; }
for n in 1 2 3; do start_node $n; done
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 3' /v1/nodes || fail "nodes: $(cat "$TMP/body")"

set --
for k in 1 2 3 4 5 6; do set -- "$@" "$(gated_burner long$k "$ITER")"; done
capi POST /v1/jobs "$(job_body longjob long "$@")"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 6' "/v1/jobs/$LONG" && ok "6 long burners fill the 3 nodes" ||
  fail "long: $(cat "$TMP/body")"

# agent_pid TASK-INDEX: the pid of long task k, asked from its agent under the agent task id
# the controller shows.
agent_pid () {
  capi GET "/v1/jobs/$LONG"
  node=$(jq -r ".tasks[$1].node" "$TMP/body"); aid=$(jq -r ".tasks[$1].agent_task_id" "$TMP/body")
  curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/$node.sock" \
    "http://a/v1/tasks/$aid" >"$TMP/task.json"
  jq -r .pid "$TMP/task.json"
}
now_ms () { date +%s%3N; }
now_us () { date +%s%6N; }
# cpu_ns PID: the time PID ran on a CPU, in ns (/proc/PID/schedstat: exact, where utime and
# stime are sampled at the scheduler tick, too coarse for 10 ms in a second).
cpu_ns () { cut -d' ' -f1 "/proc/$1/schedstat"; }
# A short task takes what a long one holds above its 10-millicore footprint: 990 millicores.
SHORT='{"argv":["sleep","2"],"cpu_millis":990,"memory_bytes":67108864}'
: >"$TMP/lat"; : >"$TMP/resume"; : >"$TMP/cpu"; : >"$TMP/shorts"
r=0
while [ $r -lt "$REPS" ]; do
  capi POST /v1/jobs "$(job_body short$r short "$SHORT" "$SHORT")"
  # The wall clock (the controller's, same host) once the answer is in: a bound on when the
  # controller answered.
  answered=$(now_us)
  SJ=$(jq -r .id "$TMP/body")
  wait_for 10 '[.tasks[] | select(.started_at != null)] | length == 2' "/v1/jobs/$SJ" ||
    { fail "short $r did not start: $(cat "$TMP/body")"; break; }
  jq '(([.tasks[].started_at] | max) - .submitted_at) * 1000 | floor' "$TMP/body" >>"$TMP/lat"
  jq -c --argjson a "$answered" '{id, sub: .submitted_at, st: ([.tasks[].started_at] | max), ans: ($a / 1e6),
    tasks: [.tasks[] | {index, started_at}]}' "$TMP/body" >>"$TMP/shorts"
  if [ "$KILLS" = 0 ]; then
    # Every displaced long task, measured together over the same second.
    capi GET "/v1/jobs/$LONG"
    ks=$(jq -r '[.tasks[] | select(.state == "suspended") | .index] | join(" ")' "$TMP/body")
    [ -n "$ks" ] || fail "short $r started but no long task is suspended"
    pids= a1= a2=
    for k in $ks; do
      p=$(agent_pid "$k")
      case $p in ''|*[!0-9]*) fail "no pid for long task $k: $(cat "$TMP/task.json")"; continue ;; esac
      pids="$pids $p" a1="$a1 $(cpu_ns "$p")"
    done
    sleep 0.5
    set -- $a1
    for p in $pids; do a2="$a2 $(cpu_ns "$p")"; done
    # Counted only when the short job still ran at the end of the window (a slow machine
    # may have ended it, and the long tasks then run again).
    capi GET "/v1/jobs/$SJ"
    if jq -e '.task_states.running == 2' "$TMP/body" >/dev/null; then
      for b in $a2; do echo "$b $1" | awk '{ printf "%.1f\n", ($1 - $2) / 5e6 }' >>"$TMP/cpu"; shift; done
    fi
  fi
  wait_for 15 '.state == "done"' "/v1/jobs/$SJ" || fail "short $r: $(cat "$TMP/body")"
  if [ "$KILLS" = 0 ]; then
    t0=$(now_ms)
    # D = 1: bigc lets the first round with room pass and resumes at the second; ebb resumes
    # at the first chance one round (ROUND s) after the room is back. Two rounds at most.
    wait_for $((2 * ROUND + 2)) '.task_states.suspended == 0 and .task_states.running == 6' "/v1/jobs/$LONG" ||
      fail "not resumed within two rounds after short $r: $(jq -c '[.tasks[].state]' "$TMP/body")"
    echo $(( $(now_ms) - t0 )) >>"$TMP/resume"
  else
    wait_for $((2 * ROUND + 2)) '.task_states.running == 6' "/v1/jobs/$LONG" ||
      fail "long tasks not back after short $r: $(jq -c '[.tasks[].state]' "$TMP/body")"
  fi
  r=$((r + 1))
done
pct () { sort -n "$1" | awk -v q="$2" '{ a[NR] = $1 } END { i = int(NR * q + 0.999); if (i < 1) i = 1; print a[i] }'; }
p50=$(pct "$TMP/lat" 0.5) p99=$(pct "$TMP/lat" 0.99)
echo "submit -> both tasks running over $REPS short jobs (API times): p50 ${p50} ms, p99 ${p99} ms ($(tr '\n' ' ' <"$TMP/lat"))"
# The bound: 200 ms p99 end to end on a host this test has to itself (its 6 burners, 3
# agents and the controller take about one of two CPUs), for every policy: ebb launches at
# once beside its CPU-only suspensions, bigc gp and kill wait for the agents to confirm their
# suspensions or kills first, a round trip of a few ms (CI, quiet: p99 68 ms for gp, 47 ms
# for kill). The controller's part is under a millisecond (the decision log, below); the rest is the agent's launch
# (agent/launch.c logs its phases: cgroup, limits, journal, fork, attach to each v1
# hierarchy, the child until its exec), 15-40 ms on an otherwise idle 2-core host. On a
# loaded host the bound is 1 s, and the test says why (latency_bound, tests/controller/lib.sh).
latency_bound "${EBB_CTL_TEST_QUIET_MS:-200}"
bound=$BOUND_MS why=$BOUND_WHY
[ "$p99" -le "$bound" ] && ok "a short job's two tasks run on the full cluster within $bound ms p99 (p99 ${p99} ms, p50 ${p50} ms; $why)" ||
  fail "submit -> both running p99 ${p99} ms > $bound ms ($why)"
capi GET "/v1/decisions?since=0"
cp "$TMP/body" "$TMP/decisions.json"
# Where the time went, per short job (from its submission): the controller decided (its
# preemptions, or its launches when it found room: what the controller and the policy take,
# in microseconds), its launches decided (after the agents confirmed the suspensions, for the
# policies that wait), the client had the answer to the submission, both tasks running (the
# agents answered the launches). The decision log's times are the controller's wall clock to
# the microsecond, as submitted_at and started_at are.
jq -s --slurpfile d "$TMP/decisions.json" -r '
  def us: . * 1e6 | round;
  .[] | . as $j
  | [$d[0].decisions[] | select(.for_job == $j.id and (.action == "suspend" or .action == "kill")) | .time] as $pt
  | [$d[0].decisions[] | select(.job == $j.id and .action == "launch")] as $ls
  | ($pt | max) as $p | ([$ls[].time] | max) as $l | ($p // $l) as $dec
  | ([$pt[], $ls[].time] | min) as $first
  | [ if $dec == null then "no preemption or launch decided" else empty end,
      if $first != null and $first < $j.sub then "decided \((($j.sub - $first) | us)) us before its submission" else empty end,
      if $dec != null and $dec > $j.ans then "decided \((($dec - $j.ans) | us)) us after the client had the answer" else empty end,
      ($j.tasks[] | . as $t
        | ([$ls[] | select(.task == "\($j.id)-\($t.index)") | .time] | min) as $tl
        | if $tl == null then "task \($t.index): no launch decided"
          elif $t.started_at == null or $tl > $t.started_at then "task \($t.index): launch decided after it ran"
          else empty end) ] as $bad
  | "\(if $dec then (($dec - $j.sub) | us) else "-" end)\t\($bad | join("; "))\tjob \($j.id): preempt \(if $p then (($p - $j.sub) | us) else "-" end) us, launch \(if $l then (($l - $j.sub) | us) else "-" end) us, answered <= \((($j.ans - $j.sub) | us)) us, running \((($j.st - $j.sub) * 1000) | floor) ms"' \
  "$TMP/shorts" >"$TMP/phases"
cut -f3 "$TMP/phases"
cut -f1 "$TMP/phases" >"$TMP/decided"
# job N: what is out of order, for each job where something is.
awk -F '\t' '$2 != "" { split($3, w, ":"); print w[1] ": " $2 }' "$TMP/phases" >"$TMP/order"
# The agents' part: each launch's phases from their logs (agent/launch.c, at -v), p50/p99
# in ms over every launch of the run (the long tasks' too).
grep -h ': launch [0-9.]* ms: ' "$TMP"/agent-*.log | sed 's/.*: launch //; s/[a-z]*//g; s/[ ,:]\+/ /g' >"$TMP/launches"
for f in 1:total 2:cgroup 3:limits 4:journal 5:log 6:fork 7:attach 8:exec 9:readback; do
  cut -d' ' -f"${f%%:*}" "$TMP/launches" >"$TMP/phase"
  [ -s "$TMP/phase" ] && printf '%s p50 %s p99 %s; ' "${f#*:}" "$(pct "$TMP/phase" 0.5)" "$(pct "$TMP/phase" 0.99)"
done
echo "(agent launch phases, ms, over $(wc -l <"$TMP/launches") launches)"
echo "submit -> decided (preemptions, or launches into free room; decision log): p50 $(pct "$TMP/decided" 0.5) us, p99 $(pct "$TMP/decided" 0.99) us"
# Synchronous deciding is the claim (a policy that waited for its next round or the
# controller's tick would decide after the answer). A bound in ms on submit -> decided, in
# floored ms, read 0 ms in every run: it could not tell this from a decision 0.9 ms later.
[ "$(wc -l <"$TMP/phases")" -ge "$REPS" ] && [ ! -s "$TMP/order" ] &&
  ok "each of $(wc -l <"$TMP/phases") short jobs: decided after its submission and before its answer, each task's launch before it ran" ||
  fail "decision order ($(wc -l <"$TMP/phases") jobs of $REPS): $(cat "$TMP/order")"
ns=$(jq '[.decisions[] | select(.action == "suspend")] | length' "$TMP/decisions.json")
nr=$(jq '[.decisions[] | select(.action == "resume")] | length' "$TMP/decisions.json")
nk=$(jq '[.decisions[] | select(.action == "kill")] | length' "$TMP/decisions.json")
if [ "$KILLS" = 0 ]; then
  max=$(sort -n "$TMP/cpu" | tail -1)
  echo "displaced long tasks while suspended, % of a CPU: $(sort -n "$TMP/cpu" | tr '\n' ' ')"
  [ -n "$max" ] && awk -v m="$max" 'BEGIN { exit !(m <= 3) }' &&
    ok "$(wc -l <"$TMP/cpu") displaced long tasks ran at <= $max% of a CPU while suspended (/proc, 0.5 s)" ||
    fail "suspended CPU up to ${max:-?}%"
  echo "short done -> long tasks resumed (ms): $(tr '\n' ' ' <"$TMP/resume")"
  [ "$ns" -ge "$REPS" ] && [ "$nr" -ge "$REPS" ] && [ "$nk" = 0 ] && ok "decision log: $ns suspends, $nr resumes, no kill" ||
    fail "decisions: suspend $ns resume $nr kill $nk"
else
  [ "$nk" -ge "$REPS" ] && ok "decision log: $nk kills" || fail "decisions: kill $nk"
  nkr=$(jq '[.decisions[] | select(.action == "kill" and (.reason | endswith("preemptive kill for a short job")))] | length' "$TMP/decisions.json")
  [ "$nkr" = "$nk" ] && ok "every kill's reason says it was preemptive" ||
    fail "$nkr of $nk kills say preemptive kill: $(jq -c '[.decisions[] | select(.action == "kill") | .reason] | unique' "$TMP/decisions.json")"
  capi GET /v1/cluster
  [ "$(jq .preemptions "$TMP/body")" -ge "$nk" ] && ok "/v1/cluster counts the kills as preemptions ($(jq .preemptions "$TMP/body"))" ||
    fail "/v1/cluster preemptions $(jq .preemptions "$TMP/body") < $nk kills"
fi
touch "$OUT/release"
wait_for 90 '.state == "done"' "/v1/jobs/$LONG" || fail "long job: $(jq -c '[.tasks[].state]' "$TMP/body")"
good=0 starts=0
for k in 1 2 3 4 5 6; do
  [ "$(cat "$OUT/long$k" 2>/dev/null)" = "$ITER" ] && good=$((good + 1))
  starts=$((starts + $(wc -l <"$OUT/long$k.starts")))
done
[ $good = 6 ] && ok "every long task ended with its $ITER iterations ($(jq '[.tasks[].suspensions] | add' "$TMP/body") suspensions, $starts starts)" ||
  fail "counts: $good of 6"
if [ "$KILLS" = 0 ]; then
  [ $starts = 6 ] && ok "no long task started twice" || fail "$starts starts of 6 long tasks"
else
  # Each kill decided shows as a higher generation of that task, each generation as at most
  # one start (a second launch of one would show as more). A generation may be killed
  # before its shell ran its first command: the long tasks are alike to the policy, so the
  # next short job's kill may take one just started again, and on a loaded host its child
  # may still wait for a CPU then (seen: 1 and 2 of 40 under loads of 9 and 18).
  gens=$(jq '[.tasks[].generation - 1] | add' "$TMP/body")
  [ "$gens" = "$nk" ] && [ $starts -gt 6 ] && [ $((starts - 6)) -le "$gens" ] &&
    ok "killed long tasks started again: $gens kills, $gens new generations, $((starts - 6)) restarts in the counts ($((gens + 6 - starts)) killed before their first command)" ||
    fail "restarts: $starts starts, generations $gens, kills $nk"
fi
[ "$FAILED" = 0 ] || jq -c '.decisions[:60][] | [.seq, .action, .task, .node, .for_job, .reason]' "$TMP/decisions.json"
exit $FAILED
