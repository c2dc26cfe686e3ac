#!/bin/sh
# What a task is told and how long it may run (issue 23), with the real ebb-agent on this
# host's cgroups: EBB_JOB_ID, EBB_TASK_ID, EBB_CLASS in its environment (the caller's env
# cannot override them); notify_signal sent when it is suspended and resumed (immediate and
# graceful), not without it, bad signals refused with 400; suspended_seconds and suspensions;
# time_limit_sec on the running time only (suspended time does not count), ended with
# SIGTERM (SIGKILL after --stop-grace), the reason shown and kept across an agent restart,
# a suspension under way counted on by the restarted agent.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
start_agent || { FAILED=1; fail "agent did not start"; exit 1; }

# task_body ID ARGV-JSON EXTRA-MEMBERS: a launch of 500 millicores, 64 MiB, job j1, long.
task_body () {
  printf '{"id":"%s","argv":%s,"cpu_millis":500,"memory_bytes":67108864,"job":"j1","class":"long"%s}' "$@"
}
# wait_for SECONDS JQ-FILTER PATH: polls GET PATH until the filter is true.
wait_for () {
  n=$(($1 * 10))
  while [ "$n" -gt 0 ]; do
    api GET "$3"
    [ "$(field "$2")" = true ] && return 0
    sleep 0.1; n=$((n - 1))
  done
  return 1
}
# lines TASK WORD: how many lines of the task's log are WORD.
lines () { grep -cx "$2" "$STATE/logs/$1.log" 2>/dev/null; }
# wait_lines TASK WORD N: waits up to 5 s for N lines of WORD.
wait_lines () {
  n=50
  while [ "$n" -gt 0 ] && [ "$(lines "$1" "$2")" -lt "$3" ]; do sleep 0.1; n=$((n - 1)); done
  [ "$(lines "$1" "$2")" -eq "$3" ]
}

# 1. The environment names the task; the caller's EBB_JOB_ID is not the one it sees.
api POST /v1/tasks "$(task_body e1 '["sh","-c","echo \"J=$EBB_JOB_ID T=$EBB_TASK_ID C=$EBB_CLASS X=$X\""]' \
  ',"env":{"EBB_JOB_ID":"forged","EBB_CLASS":"short","X":"kept","PATH":"/usr/bin:/bin"}')"
[ "$STATUS" = 201 ] || fail "launch e1: $STATUS $(body)"
if wait_for 5 '.state == "exited"' /v1/tasks/e1 && [ "$(lines e1 'J=j1 T=e1 C=long X=kept')" = 1 ]; then
  ok "EBB_JOB_ID, EBB_TASK_ID, EBB_CLASS from the launch, the caller's env kept otherwise"
else fail "environment: $(cat "$STATE/logs/e1.log" 2>&1)"; fi

# 2. The notify signal: once when a suspension starts, once after the resume.
TRAP='["sh","-c","trap \"echo usr1\" USR1; while :; do sleep 0.1; done"]'
for bad in '"SIGKILL"' 9 '"STOP"' 99 0 '"SIGNOPE"'; do
  api POST /v1/tasks "$(task_body nb "$TRAP" ",\"notify_signal\":$bad")"
  [ "$STATUS" = 400 ] || fail "notify_signal $bad: $STATUS $(body)"
done
api GET /v1/tasks/nb
[ "$STATUS" = 404 ] && ok "notify_signal SIGKILL, SIGSTOP, out of range, unknown -> 400, nothing launched" ||
  fail "a refused launch left task nb: $STATUS"
api POST /v1/tasks "$(task_body n1 "$TRAP" ',"notify_signal":"SIGUSR1"')"
[ "$STATUS" = 201 ] && [ "$(field .notify_signal)" = SIGUSR1 ] || fail "launch n1: $STATUS $(body)"
api POST /v1/tasks "$(task_body n0 "$TRAP" '')"
[ "$STATUS" = 201 ] || fail "launch n0: $STATUS $(body)"
sleep 0.3 # both shells have set their trap
api POST /v1/tasks/n1/suspend '{"mode":"immediate"}'
api POST /v1/tasks/n0/suspend '{"mode":"immediate"}'
[ "$STATUS" = 200 ] || fail "suspend n0: $STATUS $(body)"
wait_lines n1 usr1 1 && ok "suspended (immediate): the task got SIGUSR1" || fail "n1 after suspend: $(lines n1 usr1) lines"
sleep 1.2
api GET /v1/tasks/n1
s=$(field .suspended_seconds)
[ "$(field .suspensions)" = 1 ] && [ "$(field ".suspended_seconds >= 1.2 and .suspended_seconds < 5")" = true ] &&
  ok "a suspension under way counts: suspensions 1, suspended_seconds $s" || fail "accounting while suspended: $(body)"
api POST /v1/tasks/n1/resume
api POST /v1/tasks/n0/resume
wait_lines n1 usr1 2 && ok "resumed: SIGUSR1 again" || fail "n1 after resume: $(lines n1 usr1) lines"
api POST /v1/tasks/n1/suspend '{"mode":"graceful","cpu_millis":200}'
[ "$STATUS" = 200 ] || fail "graceful n1: $STATUS $(body)"
api POST /v1/tasks/n1/suspend '{"mode":"graceful","cpu_millis":100}' # a further step: no signal
wait_lines n1 usr1 3 || fail "n1 after graceful suspend: $(lines n1 usr1) lines"
api POST /v1/tasks/n1/resume
wait_lines n1 usr1 4 && ok "graceful suspend and resume: SIGUSR1 each (a second step: none)" ||
  fail "n1 after graceful: $(lines n1 usr1) lines"
api GET /v1/tasks/n1
s=$(field .suspended_seconds)
[ "$(field .suspensions)" = 2 ] && [ "$(field ".suspended_seconds >= 1.2 and .suspended_seconds < 10")" = true ] &&
  ok "after two suspensions: suspensions 2, suspended_seconds $s" || fail "accounting after resume: $(body)"
sleep 0.5
[ "$(lines n0 usr1)" = 0 ] && ok "without notify_signal: no signal" || fail "n0 got $(lines n0 usr1) signals"
api DELETE /v1/tasks/n0
api DELETE /v1/tasks/n1

# 3. A time limit of 2 s: suspended for 3 s right after the launch, the task outlives its
# limit in wall time; it ends after about 2 s of running, with SIGTERM, the reason shown.
TERM_TRAP='["sh","-c","trap \"echo term; exit 3\" TERM; while :; do sleep 0.1; done"]'
api POST /v1/tasks "$(task_body l1 "$TERM_TRAP" ',"time_limit_sec":2')"
[ "$STATUS" = 201 ] && [ "$(field .time_limit_sec)" = 2 ] || fail "launch l1: $STATUS $(body)"
api POST /v1/tasks/l1/suspend '{"mode":"immediate"}'
sleep 3
api GET /v1/tasks/l1
[ "$(field .state)" = suspended ] && [ "$(field .end_reason)" = null ] &&
  ok "suspended past the limit in wall time: not ended" || fail "l1 while suspended: $(body)"
api POST /v1/tasks/l1/resume
t0=$(date +%s%N)
if wait_for 8 '.state == "exited"' /v1/tasks/l1; then
  ran=$((($(date +%s%N) - t0) / 1000000))
  [ "$(field .end_reason)" = "time limit" ] && [ "$(field .exit_status)" = 3 ] && [ "$(lines l1 term)" -ge 1 ] &&
    ok "ended $ran ms after the resume: SIGTERM, end_reason \"time limit\", exit status 3" ||
    fail "l1 ended: $(body)"
  [ "$ran" -ge 1000 ] && ok "its suspended time did not count ($ran ms >= 1000 ms of running)" ||
    fail "l1 ended $ran ms after the resume: suspended time counted"
else fail "l1 not ended by its time limit: $(body)"; fi

# A task that ignores SIGTERM gets SIGKILL after --stop-grace (2 s in these tests).
api POST /v1/tasks "$(task_body l2 '["sh","-c","trap \"\" TERM; while :; do sleep 0.1; done"]' ',"time_limit_sec":1')"
[ "$STATUS" = 201 ] || fail "launch l2: $STATUS $(body)"
if wait_for 8 '.state == "exited"' /v1/tasks/l2 && [ "$(field .exit_status)" = 137 ] &&
  [ "$(field .end_reason)" = "time limit" ]; then
  ok "SIGTERM ignored: SIGKILL after the grace, end_reason \"time limit\""
else fail "l2: $(body)"; fi

# While a time limit ends a task it is busy (409) as one being deleted; its cgroup goes.
api POST /v1/tasks "$(task_body l3 '["sh","-c","trap \"\" TERM; while :; do sleep 0.1; done"]' ',"time_limit_sec":1')"
if wait_for 5 '.end_reason == "time limit"' /v1/tasks/l3 && [ "$(field .state)" = running ]; then
  api POST /v1/tasks/l3/suspend '{"mode":"immediate"}'
  s1=$STATUS
  api DELETE /v1/tasks/l3
  [ "$s1" = 409 ] && [ "$STATUS" = 409 ] && ok "suspend and DELETE during a time limit's grace: 409" ||
    fail "during l3's grace: suspend $s1, DELETE $STATUS $(body)"
  # The cgroup goes once its last process is reaped (agent/release.c retries the rmdir every
  # 50 ms): after the exit, not with it.
  gone () { k=0; while [ -d "$1" ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done; [ ! -d "$1" ]; }
  wait_for 5 '.state == "exited"' /v1/tasks/l3 && [ "$(field .exit_status)" = 137 ] && gone "$(cgdir memory "$CGP/l3")" &&
    ok "l3 killed after the grace, its cgroup removed" || fail "l3: $(body)"
else fail "l3 not being ended: $(body)"; fi

# 4. A restart: the reason is kept, and a suspension under way is counted on.
api POST /v1/tasks "$(task_body r1 "$TRAP" ',"time_limit_sec":600')"
api POST /v1/tasks/r1/suspend '{"mode":"immediate"}'
kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; AGENT_PID=
sleep 1.5
start_agent || { fail "agent did not restart"; exit 1; }
api GET /v1/tasks/l1
[ "$(field .end_reason)" = "time limit" ] && ok "after a restart: l1's end_reason kept" || fail "l1 after restart: $(body)"
api GET /v1/tasks/r1
s=$(field .suspended_seconds)
[ "$(field .state)" = suspended ] && [ "$(field .suspensions)" = 1 ] && [ "$(field ".suspended_seconds >= 1.5")" = true ] &&
  ok "after a restart: r1 suspended for $s s, counted across the restart" || fail "r1 after restart: $(body)"
api DELETE /v1/tasks/r1

stop_agent TERM
[ "$AGENT_STATUS" = 0 ] && ok "SIGTERM -> exit 0 (the sanitizers found nothing)" || fail "exit status $AGENT_STATUS"
exit $FAILED
