#!/bin/sh
# Crash safety: 20 runs that kill -9 ebb-agent during a random suspend/resume sequence over 5
# tasks -- at named points (EBB_AGENT_CRASH_AT: after the journal write and before the
# cgroup write, and after the cgroup write and before the journal update, for suspend and
# resume) and at random times -- then restart it. After each restart every task must be
# known, alive, and consistent: running at exactly its original limits, or suspended at the
# CPU footprint. A final SIGTERM must leave every task at exactly its original limits.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
RUNS=${EBB_AGENT_CRASH_RUNS:-20}
rand () { od -An -N2 -tu2 /dev/urandom | awk -v n="$1" '{ print $1 % n }'; }
orig_cpu () { echo $(( $1 * 10000 )); }                 # task i: i*100 millis
orig_mem () { echo $(( ($1 + 1) * 33554432 )); }        # task i: (i+1)*32 MiB

start_agent || { FAILED=1; fail "agent did not start"; exit 1; }
for i in 1 2 3 4 5; do
  api POST /v1/tasks "$(launch_body c$i '["sleep","100000"]' $((i * 100)) "$(orig_mem $i)")"
  [ "$STATUS" = 201 ] || fail "launch c$i: $STATUS $(body)"
done

# Waits until no task is suspending/resuming (reconcile finishes interrupted transitions).
settle () {
  k=0
  while [ $k -lt 50 ]; do
    api GET /v1/tasks
    [ "$(jq '[.tasks[] | select(.state == "suspending" or .state == "resuming")] | length' "$TMP/body")" = 0 ] && return 0
    sleep 0.1; k=$((k + 1))
  done
  return 1
}

check_consistent () { # check_consistent RUN
  settle || fail "run $1: transitions did not finish"
  api GET /v1/tasks
  [ "$(jq '.tasks | length' "$TMP/body")" = 5 ] || { fail "run $1: $(jq -c '[.tasks[].id]' "$TMP/body") known"; return; }
  bad=0
  for i in 1 2 3 4 5; do
    st=$(jq -r ".tasks[] | select(.id == \"c$i\") | .state" "$TMP/body")
    c=$(cpu_limit c$i); m=$(mem_limit c$i)
    case $st in
      running) [ "$c" = "$(orig_cpu $i)" ] && [ "$m" = "$(orig_mem $i)" ] || { bad=1; echo "  c$i running at $c $m"; } ;;
      suspended) [ "$c" = 1000 ] || { bad=1; echo "  c$i suspended at cpu $c"; } ;;
      *) bad=1; echo "  c$i is $st" ;;
    esac
    echo "$st" >>"$TMP/states"
  done
  [ $bad = 0 ] && ok "run $1: 5 tasks known and consistent ($(jq -r '[.tasks[].state] | join(",")' "$TMP/body"))" ||
    fail "run $1: inconsistent"
}

driver () { # random suspend/resume calls until the agent dies
  j=0
  while [ $j -lt 40 ]; do
    i=$(( $(rand 5) + 1 ))
    if [ "$(rand 2)" = 0 ]; then p=suspend b='{"mode":"immediate"}'; else p=resume b='{}'; fi
    curl -s -m 2 -o /dev/null --unix-socket "$SOCK" -X POST -d "$b" "http://agent/v1/tasks/c$i/$p" || return 0
    j=$((j + 1))
  done
}

points="suspend-journaled suspend-applied resume-journaled resume-applied"
run=1
while [ $run -le "$RUNS" ]; do
  point=
  if [ $((run % 2)) = 1 ]; then set -- $points; shift $(( (run / 2) % 4 )); point=$1; fi
  if [ -n "$point" ]; then
    # Restart with the crash point armed; the driver's first matching operation kills it.
    kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null
    EBB_AGENT_CRASH_AT=$point start_agent || { fail "run $run: restart"; break; }
    check_consistent "$run (restart before $point)"
    driver
    k=0; while kill -0 "$AGENT_PID" 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
    if kill -0 "$AGENT_PID" 2>/dev/null; then fail "run $run: $point never reached"; kill -9 "$AGENT_PID"; fi
    grep -q "EBB_AGENT_CRASH_AT=$point" "$LOG" && echo "  run $run: killed at $point"
  else
    driver & dpid=$!
    sleep "0.$(rand 10)$(rand 10)"
    kill -9 "$AGENT_PID"
    wait "$dpid"
    echo "  run $run: killed at a random time"
  fi
  wait "$AGENT_PID" 2>/dev/null; AGENT_PID=
  start_agent || { fail "run $run: restart"; break; }
  check_consistent "$run"
  run=$((run + 1))
done
grep -q suspended "$TMP/states" && ok "some tasks were suspended across restarts" || fail "no task was ever suspended"
for p in $points; do
  [ "$(grep -c "EBB_AGENT_CRASH_AT=$p" "$LOG")" -ge 1 ] && ok "crash point $p exercised" || fail "crash point $p not exercised"
done

stop_agent TERM
[ "$AGENT_STATUS" = 0 ] || fail "final SIGTERM: exit status $AGENT_STATUS"
bad=0
for i in 1 2 3 4 5; do
  c=$(cpu_limit c$i); m=$(mem_limit c$i)
  [ "$c" = "$(orig_cpu $i)" ] && [ "$m" = "$(orig_mem $i)" ] || { bad=1; echo "  c$i at $c $m, want $(orig_cpu $i) $(orig_mem $i)"; }
done
[ $bad = 0 ] && ok "after SIGTERM every task is at exactly its original limits" || fail "limits after SIGTERM"
exit $FAILED
