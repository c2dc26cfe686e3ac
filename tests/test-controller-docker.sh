#!/bin/bash
# A real Docker container (dockerd + runc, tests/runtimes/engines.sh) as a long task of the
# controller: ebb-controller (policy ebb) with one ebb-agent of 2 CPUs of capacity that talks
# to the private dockerd. A container counting loop iterations is adopted through the
# controller (ebbctl adopt: a job of one task that adopts it on node a1; the controller asks
# the agent's POST /v1/tasks/adopt), next to a launched long burner; a short 2-task job then
# needs the node: the first task suspends the launched burner, the second takes 980 of the
# container's booked 1000 millicores in a graceful step, which the agent applies to the books
# the controller sends ("booked"), not to the host's CPUs (cpu quota 2000 of 100000 on the
# container's own cgroup, <= 3% of a CPU from /proc); the controller resumes it when the
# short job ends (CPU back) and counts on; told to stop, the container ends with the count it
# reported chunk by chunk (one start, nothing lost): the adopted task ends with it, and the
# container's Docker configuration was never changed. Adopting the same container again is
# refused (409).
#
# The work of the container and of the launched burner is open-ended, ended by the test once
# the suspension and the resumption are checked: a fixed amount calibrated on this machine
# depends on the host's load (calibrated while the host was busy, it once ended while the
# container was still suspended).
#
# Needs root, docker.io, runc and busybox-static (scripts/install-deps.sh installs them);
# exit 77 without them (a failure under EBB_TEST_STRICT=1). Time budget: about 30 s.
here=$(cd "$(dirname "$0")" && pwd)
: "${EBB_TOP_SRCDIR:=$here/..}"
. "$EBB_TOP_SRCDIR/tests/controller/lib.sh"
for b in dockerd runc /usr/bin/docker /bin/busybox; do
  command -v "$b" >/dev/null || skip "$b not installed (scripts/install-deps.sh installs it)"
done
E=$EBB_TOP_SRCDIR/tests/runtimes/engines.sh
ET=$(mktemp -d /tmp/ebb-ctl-docker.XXXXXX) || exit 99
cleanup_all () {
  ctl_cleanup_pids
  "$E" stop "$ET"
  ctl_cleanup
}
# Agents and controller first (they watch dockerd), then the engine, then the cgroups.
ctl_cleanup_pids () {
  [ -n "${CONTROL_PID:-}" ] && kill -9 "$CONTROL_PID" 2>/dev/null
  for p in $CTL_PID $AGENT_PIDS; do kill -9 "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
  CTL_PID= AGENT_PIDS=
}
trap cleanup_all EXIT
trap 'exit 130' INT TERM
now_ms () { date +%s%3N; }

setup_cgroups
"$E" start "$ET" docker >"$TMP/engines.log" 2>&1
rc=$?
[ $rc = 77 ] && { cat "$TMP/engines.log"; skip "Docker unavailable"; }
[ $rc = 0 ] || { cat "$TMP/engines.log"; fail "dockerd did not start"; exit 1; }
. "$ET/env"
dk () { "$E" docker "$ET" "$@"; }

# The container counts loop rounds in chunks of 20000 (15-30 ms of CPU) and appends the count
# to /ebb/progress after each chunk until /ebb/stop exists, then prints it; /ebb is $CDIR,
# bind-mounted. One line per start in /ebb/starts.
CDIR=$TMP/container
mkdir -p "$CDIR"
CHUNK=20000
COUNTER="echo start >>/ebb/starts; i=0; while [ ! -e /ebb/stop ]; do c=0; \
while [ \$c -lt $CHUNK ]; do c=\$((c+1)); done; i=\$((i+$CHUNK)); echo \$i >>/ebb/progress; done; \
echo count \$i"
# progress: the container's count so far (complete lines only; 0 before the first chunk).
progress () { echo $(($(cat "$CDIR/progress" 2>/dev/null | wc -l) * CHUNK)); }
# The launched long task counts the same way until $OUT/stop exists, then writes its count to
# $OUT/long1 (one line per start in $OUT/long1.starts).
open_burner () {
  printf '{"argv":["sh","-c","echo start >> %s/%s.starts; i=0; while [ ! -e %s/stop ]; do c=0; while [ $c -lt %s ]; do c=$((c+1)); done; i=$((i+%s)); done; echo $i > %s/%s"],"cpu_millis":1000,"memory_bytes":67108864}' \
    "$OUT" "$1" "$OUT" "$CHUNK" "$CHUNK" "$OUT" "$1"
}

CTL_TICK=100ms start_controller --policy ebb --node-timeout 20s || { fail "controller did not start"; exit 1; }
start_node 1 --docker-socket "$DOCKER_SOCK" --adopt-root "$CG_PARENT-docker"
wait_for 15 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node: $(cat "$TMP/body")"

# No ebb.* labels: the agent leaves it alone until asked to adopt it.
dk run -d --name ebb-ctl-burner --network=none -v "$CDIR:/ebb" "$IMAGE" sh -c "$COUNTER" >"$TMP/cid" ||
  { fail "docker run"; exit 1; }
CPID=$(dk inspect -f '{{.State.Pid}}' ebb-ctl-burner)
aapi () { # aapi METHOD PATH [BODY]: a call to the agent, answer in $TMP/body
  STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$TMP/a1.sock" -X "$1" \
    -H "Authorization: Bearer $(cat "$TOKEN_FILE")" -H 'Content-Type: application/json' \
    ${3:+--data-binary "$3"} "http://a$2")
}
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
[ -x "$EBBCTL" ] || { fail "no $EBBCTL"; exit 1; }
# No --cpu or --memory: the container has no limits and no ebb labels, so the task holds the
# default, one CPU and 64 MiB.
CJ=$("$EBBCTL" --controller "unix:$CSOCK" adopt --container ebb-ctl-burner --runtime docker a1 2>"$TMP/err") ||
  fail "ebbctl adopt: $(cat "$TMP/err")"
wait_for 15 '.tasks[0].state == "running"' "/v1/jobs/$CJ" &&
  ok "the controller adopted the container as job $CJ on $(jq -r '.tasks[0].node' "$TMP/body")" ||
  fail "adopt job: $(cat "$TMP/body")"
jq -e '.class == "long" and .tasks[0].node == "a1" and .tasks[0].cpu_millis == 1000 and .tasks[0].memory_bytes == 67108864' \
  "$TMP/body" >/dev/null && ok "a long task on a1 holding 1000 millicores and 64 MiB" || fail "adopted task: $(cat "$TMP/body")"
TID="j$CJ-t0-g1"
aapi GET "/v1/tasks/$TID"
[ "$STATUS" = 200 ] && [ "$(jq -r .source "$TMP/body")" = docker ] && [ "$(jq -r .pid "$TMP/body")" = "$CPID" ] &&
  ok "the agent has task $TID: the container (source docker, pid $CPID, cgroup $(jq -r .cgroup "$TMP/body"))" ||
  fail "agent task $TID: $STATUS $(cat "$TMP/body")"
CCG=$(jq -r .cgroup "$TMP/body")
if "$EBBCTL" --controller "unix:$CSOCK" adopt --container ebb-ctl-burner a1 >/dev/null 2>"$TMP/err"; then
  fail "adopting the container twice was accepted"
else
  grep -q conflict "$TMP/err" && ok "adopting it again is refused: $(cat "$TMP/err")" || fail "second adopt: $(cat "$TMP/err")"
fi

# A launched long task fills the node's second CPU.
capi POST /v1/jobs "$(job_body longjob long "$(open_burner long1)")"
LONG=$(jq -r .id "$TMP/body")
wait_for 15 '.task_states.running == 1' "/v1/jobs/$LONG" &&
  ok "launched long job $LONG runs beside it" || fail "long: $(cat "$TMP/body")"

set -- $(cpu_pct2 "$CPID")
P0=$(progress)
echo "container before the short job: $1% of a CPU, count $P0"
[ "$P0" -gt 0 ] && ok "the container counts ($P0 before the short job)" || fail "the container's count is $P0"
quota () { cat "/sys/fs/cgroup/cpu$CCG/cpu.cfs_quota_us"; }
[ "$LAYOUT" = v2 ] && quota () { cut -d' ' -f1 "/sys/fs/cgroup$CCG/cpu.max"; }
Q0=$(quota)

# Two short tasks of 990 millicores on the full node: the first suspends the launched burner
# (its 1000 booked free, no CPU footprint is booked), leaving 10 millicores free; the second
# takes the 980 it still lacks from the container, which keeps 20 of its booked 1000.
t0=$(now_ms)
capi POST /v1/jobs "$(job_body short short \
  '{"argv":["sleep","4"],"cpu_millis":990,"memory_bytes":67108864}' \
  '{"argv":["sleep","4"],"cpu_millis":990,"memory_bytes":67108864}')"
SJ=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running + .task_states.exited == 2' "/v1/jobs/$SJ" &&
  ok "the short job started on the full node in $(($(now_ms) - t0)) ms" || fail "short: $(cat "$TMP/body")"
wait_for 5 '.tasks[0].state == "suspended"' "/v1/jobs/$CJ" && ok "the controller suspended the container" ||
  fail "container not suspended: $(jq -c '[.tasks[].state]' "$TMP/body")"
aapi GET "/v1/tasks/$TID"
echo "agent: $(jq -c '{state, mode, applied}' "$TMP/body"), quota $(quota)"
[ "$(jq -r .mode "$TMP/body")" = graceful ] && [ "$(quota)" = 2000 ] &&
  ok "a graceful step of 980 from the container's booked 1000: quota 2000 (2% of a CPU)" ||
  fail "mode $(jq -r .mode "$TMP/body"), quota $(quota), want graceful and 2000"
set -- $(cpu_pct2 "$CPID")
[ "$1" -le 3 ] && ok "the stepped container uses $1% of a CPU (/proc, 2 s)" || fail "stepped container: $1%"
P1=$(progress)

wait_for 20 '.state == "done"' "/v1/jobs/$SJ" && ok "the short job ended" || fail "short: $(cat "$TMP/body")"
# The default delayed resumption waits for 3 rounds of 3 s with room (9 s) plus a round.
wait_for 25 '.tasks[0].state == "running"' "/v1/jobs/$CJ" && ok "the controller resumed the container" ||
  fail "not resumed: $(jq -c '[.tasks[].state]' "$TMP/body")"
[ "$(quota)" = "$Q0" ] && ok "the container's quota is its own again ($Q0)" || fail "quota $(quota), was $Q0"
# CPU back: >= 50% of a CPU, or on a loaded machine >= 80% of what a control burner gets in
# the same windows and >= 5% (five times the suspension's 1%). The control burner is a
# sibling of the container's cgroup in the cpu hierarchy, so both see the same group weights.
if [ "$LAYOUT" = v2 ]; then ctl=/sys/fs/cgroup$(dirname "$CCG")/ebb-control
else ctl=/sys/fs/cgroup/cpu$(dirname "$CCG")/ebb-control; fi
mkdir -p "$ctl"
sh -c 'while :; do :; done' &
CONTROL_PID=$!
echo "$CONTROL_PID" >"$ctl/cgroup.procs" || fail "control burner into $ctl"
got=no
for w in 1 2 3; do
  set -- $(cpu_pct2 "$CPID" "$CONTROL_PID")
  echo "container resumed (window $w): $1% of a CPU, control burner $2%"
  if [ "$1" -ge 50 ] || { [ $(($1 * 100)) -ge $(($2 * 80)) ] && [ "$1" -ge 5 ]; }; then got=yes; break; fi
done
[ $got = yes ] && ok "the resumed container gets its CPU back ($1%, control $2%)" || fail "resumed container: $1%, control $2%"
kill -9 "$CONTROL_PID"; wait "$CONTROL_PID" 2>/dev/null; CONTROL_PID=
rmdir "$ctl"
P2=$(progress)
[ "$P2" -gt "$P1" ] && ok "the resumed container counts on ($P1 when stepped, $P2 now)" ||
  fail "the container's count did not grow after the resumption ($P1, then $P2)"

capi GET "/v1/decisions?since=0"
jq -c '.decisions[] | [.seq, .action, .task, .node, .reason]' "$TMP/body"
ns=$(jq --arg t "$CJ-0" '[.decisions[] | select(.action == "suspend" and .task == $t)] | length' "$TMP/body")
nr=$(jq --arg t "$CJ-0" '[.decisions[] | select(.action == "resume" and .task == $t)] | length' "$TMP/body")
na=$(jq --arg t "$CJ-0" '[.decisions[] | select(.action == "adopt" and .task == $t and .node == "a1")] | length' "$TMP/body")
[ "$na" = 1 ] && [ "$ns" = 1 ] && [ "$nr" = 1 ] &&
  ok "decision log: the container (task $CJ-0) adopted on a1, suspended once, resumed once" ||
  fail "decisions for $CJ-0: $na adopts, $ns suspends, $nr resumes"

# Only now may both end: they stop at the end of their current chunk.
touch "$CDIR/stop" "$OUT/stop"
wait_for 60 '.state == "done" and .tasks[0].exit_status == 0' "/v1/jobs/$CJ" &&
  ok "adopted job $CJ done: the container exited on its own when told to, and the task with it" ||
  fail "adopted job: $(cat "$TMP/body")"
wait_for 60 '.state == "done"' "/v1/jobs/$LONG" && ok "launched long job $LONG done" ||
  fail "long job: $(cat "$TMP/body")"
log=$(dk logs ebb-ctl-burner 2>&1)
N=$(progress)
[ "$log" = "count $N" ] && [ "$N" -ge "$P2" ] && [ "$(tail -n 1 "$CDIR/progress")" = "$N" ] &&
  [ "$(grep -c start "$CDIR/starts")" = 1 ] &&
  ok "the container, started once, counted $N rounds, every chunk it reported" ||
  fail "container output: $log; reported $N (last line $(tail -n 1 "$CDIR/progress")), $(grep -c start "$CDIR/starts") starts"
L=$(cat "$OUT/long1" 2>/dev/null)
[ -n "$L" ] && [ "$L" -gt 0 ] && [ $((L % CHUNK)) = 0 ] && [ "$(grep -c start "$OUT/long1.starts")" = 1 ] &&
  ok "the launched long task, started once, counted $L rounds" ||
  fail "launched long task: count '$L', $(grep -c start "$OUT/long1.starts" 2>/dev/null) starts"
[ "$(dk inspect -f '{{.HostConfig.CpuQuota}} {{.HostConfig.NanoCpus}}' ebb-ctl-burner)" = "0 0" ] &&
  ok "the container's Docker configuration was never changed" ||
  fail "docker config: $(dk inspect -f '{{.HostConfig.CpuQuota}} {{.HostConfig.NanoCpus}}' ebb-ctl-burner)"
exit $FAILED
