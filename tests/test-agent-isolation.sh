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

# argv[0] is looked up as the task's user (nobody): a program in a 0700 directory of root's
# and a name that is not there get the same answer, directly or through PATH.
mkdir -m 700 "$TMP/private"
printf '#!/bin/sh\necho hi\n' >"$TMP/private/prog"; chmod 755 "$TMP/private/prog"
answer () { # answer ARGV0 [PATH]: the launch's status and detail, the name replaced by NAME
  env=; [ -n "${2:-}" ] && env=$(printf ',"env":{"PATH":"%s"}' "$2")
  api POST /v1/tasks "$(printf '{"id":"x%s","argv":["%s"],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"%s}' \
    "$(echo "$1" | tr -dc a-z)" "$1" "$env")"
  echo "$STATUS $(field .detail)" | sed "s|$1|NAME|g"
}
a1=$(answer "$TMP/private/prog"); a2=$(answer "$TMP/private/absent")
[ "$a1" = "$a2" ] && case $a1 in 422*"Permission denied"*) true ;; *) false ;; esac &&
  ok "argv[0] in a 0700 directory: the same answer whether the file exists or not ($a1)" || fail "0700 lookup: '$a1' vs '$a2'"
a1=$(answer prog "$TMP/private:/usr/bin:/bin"); a2=$(answer absent "$TMP/private:/usr/bin:/bin")
[ "$a1" = "$a2" ] && case $a1 in 422*) true ;; *) false ;; esac && ! echo "$a1" | grep -q private &&
  ok "argv[0] through PATH: the same answer, no path named ($a1)" || fail "PATH lookup: '$a1' vs '$a2'"
api POST /v1/tasks '{"id":"path1","argv":["true"],"env":{"PATH":"/nonexistent::/usr/bin:/bin"},"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"}'
[ "$STATUS" = 201 ] && wait_exit path1 && [ "$(field .exit_status)" = 0 ] && ok "a PATH lookup as the task's user still finds true" ||
  fail "true through PATH: $STATUS $(body)"

exit $FAILED
