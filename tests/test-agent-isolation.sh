#!/bin/sh
# What a task cannot reach (issue 24): tasks of different jobs run as different users (one
# per job, from task_uid_range) and cannot read each other's environment or signal each
# other; a launch gets only the users and groups of the allowlist (task_users, task_groups),
# never a system account or group through a range, and no supplementary group outside it;
# its processes stop at --task-pids-max; argv[0] is looked up as the task's user, so a 0700
# directory tells nothing about its content.
# Time budget: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
for c in useradd userdel usermod groupadd groupdel getent; do command -v $c >/dev/null || skip "needs $c"; done
setup_cgroups
chmod 711 "$TMP"
U="ebbi$$" G="ebbsys$$"
groupadd -r "$G" || skip "groupadd failed"
useradd -M -N -g nogroup -G "$G" -s /bin/sh "$U" || { groupdel "$G"; skip "useradd failed"; }
trap 'userdel "$U" 2>/dev/null; groupdel "$G" 2>/dev/null; cleanup' EXIT

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

# body ID JOB ARGV-JSON [EXTRA-JSON]: a launch request.
body_of () {
  printf '{"id":"%s","job":"%s","argv":%s,"cpu_millis":100,"memory_bytes":33554432,"class":"short"%s}' "$1" "$2" "$3" "${4:-}"
}

# Job B's task cannot read job A's environment nor kill it; A's tasks share their user.
api POST /v1/tasks "$(body_of a1 jobA '["sleep","30"]' ',"env":{"SECRET":"s3cr3t-a","PATH":"/usr/bin:/bin"}')"
[ "$STATUS" = 201 ] || fail "launch a1: $STATUS $(body)"
PA=$(field .pid) UA=$(field .uid)
api POST /v1/tasks "$(body_of a2 jobA '["sleep","30"]')"
UA2=$(field .uid)
api POST /v1/tasks "$(body_of b1 jobB "[\"sh\",\"-c\",\"id -u; cat /proc/$PA/environ; echo read=\$?; kill -9 $PA; echo kill=\$?\"]")"
[ "$STATUS" = 201 ] || fail "launch b1: $STATUS $(body)"
UB=$(field .uid)
wait_exit b1 || fail "b1 did not exit"
if [ "$UA" -ge 61184 ] && [ "$UA" -le 65519 ] && [ "$UB" -ge 61184 ] && [ "$UB" -le 65519 ] && [ "$UA" != "$UB" ] &&
  [ "$UA2" = "$UA" ] && [ "$(sed -n 1p "$STATE/logs/b1.log")" = "$UB" ]; then
  ok "job A's tasks run as uid $UA (both), job B's as $UB, from task_uid_range"
else fail "job users: a1 $UA, a2 $UA2, b1 $UB, b1 says $(sed -n 1p "$STATE/logs/b1.log")"; fi
if ! grep -q s3cr3t-a "$STATE/logs/b1.log" && grep -q '^read=[1-9]' "$STATE/logs/b1.log" &&
  grep -q '^kill=[1-9]' "$STATE/logs/b1.log" && kill -0 "$PA" 2>/dev/null; then
  ok "job B's task can neither read job A's /proc/PID/environ nor kill it"
else fail "job isolation: $(tr '\n' '|' <"$STATE/logs/b1.log")"; fi
for t in a1 a2 b1; do api DELETE "/v1/tasks/$t"; done

# The allowlist: by default only the task user (or the job's user) and a user's own group.
refused () { # refused WHAT SETTING EXTRA-JSON: the launch is a 403 that names SETTING
  api POST /v1/tasks "$(body_of r1 jr '["cat","/etc/shadow"]' "$3")"
  [ "$STATUS" = 403 ] && field .detail | grep -q "$2" && ok "$1: 403 naming $2" || fail "$1: $STATUS $(body)"
}
refused '"group":"shadow" reading /etc/shadow' task_groups ',"group":"shadow"'
refused '"group":"disk"' task_groups ',"group":"disk"'
refused '"user":"daemon"' task_users ',"user":"daemon"'
refused "\"user\":\"$U\" (not listed)" task_users ",\"user\":\"$U\""
stop_agent TERM
# A range reaches regular accounts only; a system account or group by its name.
start_agent --task-users 1000-60000 --task-users daemon --task-groups 0-60000 || { fail "agent did not restart"; exit 1; }
refused '"group":"shadow" with --task-groups 0-60000' task_groups ',"group":"shadow"'
refused '"user":"bin" with --task-users 1000-60000' task_users ',"user":"bin"'
api POST /v1/tasks "$(body_of d1 jd '["id","-u"]' ',"user":"daemon"')"
[ "$STATUS" = 201 ] && wait_exit d1 && [ "$(cat "$STATE/logs/d1.log")" = "$(id -u daemon)" ] &&
  ok "user daemon listed by name: runs as uid $(id -u daemon)" || fail "listed daemon: $STATUS $(body)"
gsys=$(getent group "$G" | cut -d: -f3)
api POST /v1/tasks "$(body_of u1 ju '["id","-G"]' ",\"user\":\"$U\"")"
if [ "$STATUS" = 201 ] && wait_exit u1 && ! grep -qw "$gsys" "$STATE/logs/u1.log"; then
  ok "user $U by a range runs without its supplementary system group $G ($gsys): groups $(cat "$STATE/logs/u1.log")"
else fail "supplementary groups of $U: $STATUS $(cat "$STATE/logs/u1.log" 2>/dev/null) $(body)"; fi
stop_agent TERM
start_agent --task-pids-max 20 || { fail "agent did not restart"; exit 1; }

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
