#!/bin/sh
# What a task cannot reach (issue 24): its processes stop at --task-pids-max; argv[0] is
# looked up as the task's user, so a 0700 directory tells nothing about its content.
# Time budget: about 5 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
chmod 711 "$TMP"

# A part that needs what this host lacks: a failure under EBB_TEST_STRICT (CI), else said.
part_skip () {
  [ "${EBB_TEST_STRICT:-0}" = 1 ] && { fail "cannot run: $*"; return; }
  echo "SKIP (part): $*"
}

# wait_exit ID: waits until the task exited (at most 5 s).
wait_exit () {
  i=0; while [ $i -lt 100 ]; do api GET "/v1/tasks/$1"; [ "$(field .state)" = exited ] && return 0; sleep 0.05; i=$((i + 1)); done
  return 1
}

start_agent --task-pids-max 20 || { fail "agent did not start"; exit 1; }

# pids.max: a task that starts 40 sleepers holds at most 20 processes.
if [ "$LAYOUT" = v1 ] && ! echo " $HIERS " | grep -q " pids "; then
  part_skip "no cgroup v1 pids hierarchy"
elif [ "$LAYOUT" = v2 ] && ! grep -qw pids "$(cgdir "" "$CGP")/cgroup.controllers"; then
  part_skip "pids controller not available below $CGP"
else
  api POST /v1/tasks "$(launch_body fork1 '["sh","-c","for i in $(seq 1 40); do sleep 30 & done; wait"]' 100 67108864)"
  [ "$STATUS" = 201 ] || fail "launch fork1: $STATUS $(body)"
  sleep 1
  if [ "$LAYOUT" = v2 ]; then procs=$(cgdir "" "$CGP/fork1")/cgroup.procs; else procs=$(cgdir pids "$CGP/fork1")/cgroup.procs; fi
  n=$(wc -l <"$procs")
  [ "$(cgfile fork1 pids.max)" = 20 ] && [ "$n" -le 20 ] && [ "$n" -ge 10 ] &&
    ok "--task-pids-max 20: pids.max 20, the task holds $n processes of the 41 it tried" ||
    fail "pids: pids.max $(cgfile fork1 pids.max), $n processes"
  api DELETE /v1/tasks/fork1
fi

exit $FAILED
