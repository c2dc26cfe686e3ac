#!/bin/sh
# kill -9 of ebb-controller at random moments of a preemption run, then restart: 3 real
# agents of 2 CPUs filled with 6 long CPU burners (policy ebb), short 2-task jobs submitted
# one after the other, the controller killed KILLS times (default 20) at a random moment
# 0-0.9 s after a submission (before, during or after the suspensions and launches it
# causes) and started again on the same store. After each restart, once the short job runs,
# no node runs it beside an unsuspended long task (the agents' own states: a SUSPEND
# committed but not sent before the kill is sent again). Then: no job lost (every short job done,
# the long job done once released), no task started twice (each writes one line per start),
# and no long task left suspended once the short work is gone: a RESUME owed from before a
# restart is sent again, so every long task runs again within two rounds of the last short
# job's end. Then kill -9 of an agent and restart (its tasks reconciled, not launched again)
# and an agent stopped for good (its node lost after --node-timeout, its long tasks started
# again elsewhere). Every long task ends with its iteration count. About 110 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
KILLS=${EBB_CTL_TEST_KILLS:-20}
ITER=200000
ROUND=1
CTL_FLAGS="--policy ebb --policy-opt max-suspends=8 --policy-opt round-sec=$ROUND --policy-opt resume-tries=1 --node-timeout 3s"
# shellcheck disable=SC2086 # the flags are words
CTL_TICK=50ms start_controller $CTL_FLAGS || { fail "controller did not start"; exit 1; }
for n in 1 2 3; do start_node $n; done
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 3' /v1/nodes || fail "nodes: $(cat "$TMP/body")"
set --
for k in 1 2 3 4 5 6; do set -- "$@" "$(gated_burner long$k "$ITER")"; done
capi POST /v1/jobs "$(job_body longjob long "$@")"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 6' "/v1/jobs/$LONG" && ok "6 long burners fill the 3 nodes" ||
  fail "long: $(cat "$TMP/body")"

# short NAME: a 2-task short job whose tasks record each start (2 s: long enough for the
# check after a restart).
short_task () {
  printf '{"argv":["sh","-c","echo start >> %s/%s.starts; sleep 2"],"cpu_millis":990,"memory_bytes":67108864}' "$OUT" "$1"
}
# overcommitted SJ: one line per node where a task of job SJ runs beside more unsuspended
# tasks than the node's 2 CPUs hold (every task here takes about one CPU), from the agents'
# own task lists.
overcommitted () {
  for n in 1 2 3; do
    curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/a$n.sock" \
      http://a/v1/tasks >"$TMP/oc.json" || continue
    jq -r --arg j "j$1-" '[.tasks[] | select(.state != "suspended" and .state != "suspending"
        and .state != "exited")] as $u
      | select(([$u[] | select(.id | startswith($j))] | length) > 0 and ($u | length) > 2)
      | "a'"$n"': \([$u[] | "\(.id)=\(.state)"] | join(" "))"' "$TMP/oc.json"
  done
}
# check_victims SJ: right after a restart, while a task of the short job SJ runs, it must not
# share a node's CPUs with a long task left unsuspended (a SUSPEND decided before the kill and
# not sent yet is sent again). The agents are asked directly every 0.1 s: it passes at the
# first sample where a task of SJ runs on no overcommitted node, or once SJ ran and ended;
# it fails when nodes stay overcommitted for 1.5 s (the suspension may be on its way at the
# first samples); without a task of SJ running within 3 s, there is nothing to see.
check_victims () {
  _n=0 _bad=0 _ran=0 _oc=
  while [ $_n -lt 30 ] && [ $_bad -lt 15 ]; do
    _oc=$(overcommitted "$1")
    if [ -n "$_oc" ]; then
      _bad=$((_bad + 1)) _ran=1
    else
      _bad=0
      _runs=$(runs_on_agents "$1")
      [ "$_runs" -gt 0 ] && return 0
      [ $_ran = 1 ] && return 0
    fi
    sleep 0.1; _n=$((_n + 1))
  done
  [ $_bad -lt 15 ] && return 0
  echo "job $1 beside unsuspended victims for 1.5 s after a restart: $_oc"
  OVERCOMMITS=$((OVERCOMMITS + 1))
}
# runs_on_agents SJ: how many tasks of job SJ the agents run.
runs_on_agents () {
  _c=0
  for n in 1 2 3; do
    curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/a$n.sock" \
      http://a/v1/tasks >"$TMP/ra.json" || continue
    _c=$((_c + $(jq --arg j "j$1-" '[.tasks[] | select(.state == "running" and (.id | startswith($j)))] | length' "$TMP/ra.json")))
  done
  echo $_c
}
OVERCOMMITS=0
JOBS=
i=0
while [ $i -lt "$KILLS" ]; do
  capi POST /v1/jobs "$(job_body s$i short "$(short_task s$i-a)" "$(short_task s$i-b)")"
  [ "$STATUS" = 201 ] && JOBS="$JOBS $(jq -r .id "$TMP/body")" || fail "submit s$i: $STATUS $(cat "$TMP/body")"
  sleep "0.$(awk -v s=$$$i 'BEGIN { srand(s); printf "%d", rand() * 10 }')"
  kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
  # shellcheck disable=SC2086
  CTL_TICK=50ms start_controller $CTL_FLAGS || { fail "restart $i"; break; }
  check_victims "$(echo $JOBS | awk '{ print $NF }')"
  # The next short job once this one ran (or 10 s): they come one after the other.
  wait_for 10 '.state == "done"' "/v1/jobs/$(echo $JOBS | awk '{ print $NF }')" ||
    fail "s$i not done 10 s after its restart: $(cat "$TMP/body")"
  i=$((i + 1))
done
all_done=1
for j in $JOBS; do wait_for 20 '.state == "done"' "/v1/jobs/$j" || { all_done=0; fail "job $j: $(cat "$TMP/body")"; }; done
[ "$OVERCOMMITS" = 0 ] && ok "after each restart no short task ran beside an unsuspended victim (agents' states)" ||
  fail "$OVERCOMMITS short jobs ran beside unsuspended victims after a restart"
twice=0
for f in "$OUT"/s[0-9]*.starts; do [ "$(wc -l <"$f")" = 1 ] || twice=$((twice + 1)); done
nstarts=$(ls "$OUT"/s[0-9]*.starts 2>/dev/null | wc -l)
[ $all_done = 1 ] && [ "$twice" = 0 ] && [ "$nstarts" = $((KILLS * 2)) ] &&
  ok "$KILLS controller kill -9 + restart during preemption: every short job done, each of $nstarts tasks started once" ||
  fail "after kills: done=$all_done twice=$twice starts=$nstarts"
# No short work left: every long task runs again within two rounds (and a heartbeat).
wait_for $((2 * ROUND + 2)) '.task_states.suspended == 0 and .task_states.running == 6' "/v1/jobs/$LONG" &&
  ok "no long task left suspended once the short work is gone ($(jq '[.tasks[].suspensions] | add' "$TMP/body") suspensions)" ||
  fail "left suspended: $(jq -c '[.tasks[] | [.node, .state]]' "$TMP/body")"
# The agents agree (the controller's view comes from them, but check the source).
susp=0
for n in 1 2 3; do
  curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/a$n.sock" http://a/v1/tasks >"$TMP/at.json"
  susp=$((susp + $(jq '[.tasks[] | select(.state == "suspended" or .state == "suspending")] | length' "$TMP/at.json")))
done
[ "$susp" = 0 ] && ok "the agents hold no suspended task" || fail "agents: $susp suspended"
capi GET "/v1/decisions?since=0"
owed=$(jq '[.decisions[] | select(.action == "resume" and (.reason | startswith("owed")))] | length' "$TMP/body")
echo "decisions: $(jq '[.decisions[] | select(.action == "suspend")] | length' "$TMP/body") suspends, $(jq '[.decisions[] | select(.action == "resume")] | length' "$TMP/body") resumes ($owed owed after a restart)"
echo "calls decided before a kill, not answered, sent again after the restart: $(grep -c 'decided before the restart' "$CLOG")"
# For the record (not asserted: a SUSPEND decided for a task still suspended from before a
# restart, its owed RESUME not carried out yet, counts no new suspension).
capi GET "/v1/jobs/$LONG"
echo "suspensions carried out by the agents: $(jq '[.tasks[].suspensions] | add' "$TMP/body")"

# --- kill -9 of an agent and restart: its long tasks keep running, reconciled, not relaunched.
capi GET "/v1/jobs/$LONG"
node=$(jq -r '.tasks[0].node' "$TMP/body"); n=${node#a}
eval "kill -9 \$AGENT_PID_$n"
sleep 0.5
start_node "$n"
wait_for 15 '[.nodes[] | select(.name == "'"$node"'" and .state == "ready")] | length == 1' /v1/nodes &&
  wait_for 10 '.task_states.running == 6 and ([.tasks[].generation] | max) == 1' "/v1/jobs/$LONG" &&
  ok "agent $node kill -9 + restart: its long tasks reconciled, still generation 1" ||
  fail "agent restart: $(jq -c '[.tasks[] | [.node, .state, .generation]]' "$TMP/body")"

# --- an agent stopped for good: lost after --node-timeout, its long tasks run elsewhere.
node=$(jq -r '.tasks[1].node' "$TMP/body"); n=${node#a}
lost_tasks=$(jq '[.tasks[] | select(.node == "'"$node"'")] | length' "$TMP/body")
eval "kill -9 \$AGENT_PID_$n"
for h in ${HIERS:-x}; do # the machine is gone: so are its tasks
  for p in $(cat "$(cgdir $h "$CGP/a$n")"/*/cgroup.procs 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
done
wait_for 10 '.nodes[] | select(.name == "'"$node"'") | .state == "lost"' /v1/nodes &&
  ok "node $node lost after the timeout ($lost_tasks long tasks on it)" || fail "not lost: $(cat "$TMP/body")"
touch "$OUT/release"
wait_for 60 '.state == "done"' "/v1/jobs/$LONG" || fail "long job: $(jq -c '[.tasks[] | [.node, .state]]' "$TMP/body")"
moved=$(jq '[.tasks[] | select(.generation == 2 and .node != "'"$node"'")] | length' "$TMP/body")
[ "$moved" = "$lost_tasks" ] && ok "the $moved long tasks of the lost node ran again elsewhere (generation 2)" ||
  fail "moved $moved of $lost_tasks: $(jq -c '[.tasks[] | [.node, .generation]]' "$TMP/body")"
good=0 starts=0
for k in 1 2 3 4 5 6; do
  [ "$(cat "$OUT/long$k" 2>/dev/null)" = "$ITER" ] && good=$((good + 1))
  starts=$((starts + $(wc -l <"$OUT/long$k.starts")))
done
[ $good = 6 ] && [ $starts = $((6 + lost_tasks)) ] &&
  ok "every long task ended with its $ITER iterations; started once, the lost node's twice" ||
  fail "long: $good of 6 counts, $starts starts"
exit $FAILED
