#!/bin/sh
# Failure injection: the agent on a fake cgroup v2 tree of plain files (EBB_AGENT_TEST_MOUNTINFO
# names its layout) adopts a fake cgroup holding a real sleeping process, and each fault is
# injected through the files: a directory where the journal's temporary file or a cgroup file
# should be, a FIFO as memory.reclaim to stop the engine between two writes. After each: the
# answer, the task's state, its limits and its journal record; then kill -9, the fault removed,
# a restart: the state the agent finds, and that a resume brings the original limits back.
# Prints the table (fault -> state after -> state after restart). Time budget: about 15 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
FT="$TMP/fake"
CG="$FT/cg"
mkv2 () {
  d=$1; mkdir -p "$d"
  printf 'max 100000\n' >"$d/cpu.max"; echo 0 >"$d/cpu.max.burst"
  echo max >"$d/memory.high"; echo max >"$d/memory.max"; echo 0 >"$d/memory.swap.max"
  echo 0 >"$d/memory.swap.current"; echo 314572800 >"$d/memory.current"
  printf 'anon 310000000\nfile 4572800\npgmajfault 3\n' >"$d/memory.stat"
  printf 'usage_usec 5000\nuser_usec 4000\nsystem_usec 1000\nnr_periods 7\nnr_throttled 2\nthrottled_usec 300\n' >"$d/cpu.stat"
  printf 'low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n' >"$d/memory.events"
  : >"$d/memory.reclaim"; printf 'populated 1\nfrozen 0\n' >"$d/cgroup.events"
  echo 0 >"$d/cgroup.freeze"; : >"$d/cgroup.procs"
  echo "cpu memory pids" >"$d/cgroup.controllers"; echo >"$d/cgroup.subtree_control"
}
mkv2 "$CG"; mkv2 "$CG/ebb"; mkv2 "$CG/jobs"
printf '22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n40 22 0:38 / %s rw,relatime - cgroup2 cgroup2 rw\n' "$CG" >"$FT/mountinfo"
sleep 600 & SLEEP_PID=$!
trap 'kill $SLEEP_PID 2>/dev/null; cleanup' EXIT

fstart () {
  EBB_AGENT_TEST_MOUNTINFO="$FT/mountinfo" "$AGENT_BIN" --listen "unix:$SOCK" --state-dir "$STATE" \
    --cgroup-root "$CG" --cgroup-parent /ebb --adopt-root /jobs -v >>"$LOG" 2>&1 &
  AGENT_PID=$!
  i=0; while ! curl -sf --unix-socket "$SOCK" http://agent/v1/health >/dev/null 2>&1; do
    [ $i -lt 100 ] || return 1; sleep 0.05; i=$((i + 1)); done
}
crash () { kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; AGENT_PID=; }
T1="$CG/jobs/t1"
fresh () { # a new fake cgroup t1 holding the sleeper, adopted by a fresh agent
  [ -n "$AGENT_PID" ] && crash
  rm -rf "$T1" "$STATE"; mkv2 "$T1"; echo "$SLEEP_PID" >"$T1/cgroup.procs"
  fstart || { fail "agent did not start"; exit 1; }
  api POST /v1/tasks/adopt '{"cgroup":"/jobs/t1"}'
  [ "$STATUS" = 201 ] || fail "adopt: $STATUS $(body)"
}
jstate () { jq -r '.state + (if .original.recorded then "+originals" else "" end)' "$STATE/tasks/t1.json"; }
tstate () { api GET /v1/tasks/t1; field '.state + (if .original then "+originals" else "" end) + (if .error then "+error" else "" end)'; }
lims () { echo "cpu.max=$(tr ' ' _ <"$T1/cpu.max") memory.high=$(cat "$T1/memory.high")"; }
unbreak () { for f in "$@"; do rm -rf "${T1:?}/$f"; done; }
ROWS=
# row NAME WANT-STATUS WANT-STATE WANT-JOURNAL WANT-AFTER-RESTART: checks and records one row.
row () {
  got_state=$(tstate); got_j=$(jstate)
  crash; unbreak_fn; fstart || fail "$1: restart"
  got_r=$(tstate)
  api POST /v1/tasks/t1/resume
  final=$(tstate); final_l=$(lims)
  ROWS="$ROWS
$(printf '%-44s | %-3s | %-26s | %-20s | %-20s | %s' "$1" "$ANS" "$got_state" "$got_j" "$got_r" "$final $final_l")"
  if [ "$ANS" = "$2" ] && [ "$got_state" = "$3" ] && [ "$got_j" = "$4" ] && [ "$got_r" = "$5" ] &&
     [ "$final" = running ] && [ "$final_l" = "cpu.max=max_100000 memory.high=max" ]; then
    ok "$1: $ANS, $got_state, journal $got_j, after restart $got_r, resume restores the originals"
  else fail "$1: answer $ANS state $got_state journal $got_j restart $got_r final $final $final_l (want $2 $3 $4 $5)"; fi
}
suspend_now () { api POST /v1/tasks/t1/suspend '{"mode":"immediate"}'; ANS=$STATUS; }
# reclaim_block: memory.reclaim becomes a FIFO; returns once the engine waits on it.
reclaim_block () {
  rm -f "$T1/memory.reclaim"; mkfifo "$T1/memory.reclaim"
  curl -s -m 20 -o "$TMP/bg" -w '%{http_code}' --unix-socket "$SOCK" -X POST -d '{"mode":"immediate"}' \
    http://agent/v1/tasks/t1/suspend >"$TMP/bg-status" & BG=$!
  i=0; while [ "$(cat "$T1/cpu.max")" != "1000 100000" ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
  sleep 0.1
}
# reclaim_release: a reader holds the FIFO open (read-write: it never sees EOF) for as long as
# the engine writes to it, however many reclaim writes that takes; then it is stopped by PID.
reclaim_release () {
  sleep 30 <>"$T1/memory.reclaim" & HOLD=$!
  wait "$BG"; ANS=$(cat "$TMP/bg-status")
  kill "$HOLD" 2>/dev/null; wait "$HOLD" 2>/dev/null
}

# 1. The journal cannot be written when a suspend starts.
fresh; mkdir "$STATE/tasks/.t1.json.tmp"; suspend_now
unbreak_fn () { rmdir "$STATE/tasks/.t1.json.tmp"; }
[ "$(lims)" = "cpu.max=max_100000 memory.high=max" ] || fail "journal fault: limits changed: $(lims)"
row "journal write fails at suspend" 500 running running running

# 2. The journal cannot be written when a resume starts.
fresh; suspend_now; mkdir "$STATE/tasks/.t1.json.tmp"; api POST /v1/tasks/t1/resume; ANS=$STATUS
row "journal write fails at resume" 500 suspended+originals suspended+originals suspended+originals

# 3. Original limits cannot be read (cpu.max is a directory).
fresh; mv "$T1/cpu.max" "$TMP/cpu.max.saved"; mkdir "$T1/cpu.max"; suspend_now
unbreak_fn () { rmdir "$T1/cpu.max"; mv "$TMP/cpu.max.saved" "$T1/cpu.max"; }
row "cgroup read fails before suspend" 500 running running running

# 4. A suspend write fails (memory.reclaim is a directory); the rollback works.
fresh; rm "$T1/memory.reclaim"; mkdir "$T1/memory.reclaim"; suspend_now
unbreak_fn () { rmdir "$T1/memory.reclaim"; : >"$T1/memory.reclaim"; }
row "suspend write fails, rollback works" 500 running running running

# 5. A suspend write fails and so does its rollback: memory.max and memory.high become
#    directories while the engine waits on memory.reclaim (usage now below the target, so it
#    goes on to lower memory.max).
fresh; reclaim_block
echo 1000 >"$T1/memory.current"
for f in memory.max memory.high; do rm "$T1/$f"; mkdir "$T1/$f"; done
reclaim_release
unbreak_fn () { for f in memory.max memory.high; do rmdir "$T1/$f"; done; echo max >"$T1/memory.max"
  echo 67108864 >"$T1/memory.high"; rm -f "$T1/memory.reclaim"; : >"$T1/memory.reclaim"; }
row "suspend write and rollback fail" 500 suspended+originals+error suspended+originals suspended+originals+error

# 6. A resume write fails (cpu.max is a directory while suspended).
fresh; suspend_now
rm "$T1/cpu.max"; mkdir "$T1/cpu.max"; api POST /v1/tasks/t1/resume; ANS=$STATUS
unbreak_fn () { rmdir "$T1/cpu.max"; echo "1000 100000" >"$T1/cpu.max"; }
row "resume write fails" 500 suspended+originals+error suspended+originals suspended+originals+error

# 7. The journal cannot be written when a suspend ends (the record stays "suspending").
fresh; reclaim_block; mkdir "$STATE/tasks/.t1.json.tmp"; reclaim_release
unbreak_fn () { rmdir "$STATE/tasks/.t1.json.tmp"; rm -f "$T1/memory.reclaim"; : >"$T1/memory.reclaim"; }
row "journal write fails when suspend ends" 200 suspended+originals suspending+originals suspended+originals

crash
echo "fault                                        | ans | state after                | journal              | after restart        | after resume"
echo "$ROWS" | sed 1d
exit $FAILED
