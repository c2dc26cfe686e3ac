# Shared by the ebb-controller integration tests (tests/test-controller-*.sh): the real
# ebb-controller and N real ebb-agents on this machine, each agent with its own state dir,
# its own cgroup parent nested under the test's cgroup, a unix socket and --capacity-cpu-millis
# 2000 (2 CPUs of capacity each). Reuses the agent tests' cgroup setup and cleanup.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
CTL_BIN="$EBB_TOP_BUILDDIR/ebb-controller"
[ -x "$CTL_BIN" ] || skip "no $CTL_BIN"
chmod 755 "$TMP"
CSOCK="$TMP/ctl.sock"
CSTATE="$TMP/ctl-state"
CLOG="$TMP/controller.log"
OUT="$TMP/out"
mkdir -p "$OUT" && chmod 1777 "$OUT"
TOKEN_FILE="$TMP/token"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TOKEN_FILE"
chmod 600 "$TOKEN_FILE"
CTL_PID=
AGENT_PIDS=

ctl_cleanup () {
  [ -n "$CTL_PID" ] && kill -9 "$CTL_PID" 2>/dev/null
  for p in $AGENT_PIDS; do kill -9 "$p" 2>/dev/null; done
  if [ "$FAILED" != 0 ]; then
    echo "--- controller log"; tail -40 "$CLOG" 2>/dev/null
    for f in "$TMP"/agent-*.log; do [ -f "$f" ] && { echo "--- $f"; tail -15 "$f"; }; done
  fi
  cleanup
}
trap ctl_cleanup EXIT

# start_controller [options]: starts ebb-controller on $CSOCK and waits for /v1/health (with
# -v, or CTL_VERBOSE's options when set: empty for the default verbosity).
start_controller () {
  # shellcheck disable=SC2086 # CTL_VERBOSE is a list of options
  "$CTL_BIN" --listen "unix:$CSOCK" --state-dir "$CSTATE" --token-file "$TOKEN_FILE" \
    --tick "${CTL_TICK:-200ms}" ${CTL_VERBOSE--v} "$@" >>"$CLOG" 2>&1 &
  CTL_PID=$!
  _w=0
  while [ $_w -lt 100 ]; do
    curl -sf --unix-socket "$CSOCK" http://c/v1/health >/dev/null 2>&1 && return 0
    kill -0 "$CTL_PID" 2>/dev/null || { CTL_PID=; return 1; }
    sleep 0.05; _w=$((_w + 1))
  done
  return 1
}

# start_node N [options]: starts agent aN (cgroup $CGP/aN, 2 CPUs of capacity) reporting to
# $CSOCK, with the extra agent options given.
start_node () {
  n=$1
  shift
  for h in ${HIERS:-x}; do
    if [ "$LAYOUT" = v2 ]; then mkcg "$(cgdir "" "$CGP/a$n")"; else mkcg "$(cgdir $h "$CGP/a$n")"; fi
  done
  # v2: an agent enables cpu and memory in its own parent only, so $CGP must offer them.
  if [ "$LAYOUT" = v2 ]; then
    grep -qw cpu "$(cgdir "" "$CGP")/cgroup.subtree_control" ||
      echo "+cpu +memory" >"$(cgdir "" "$CGP")/cgroup.subtree_control"
  fi
  "$AGENT_BIN" --listen "unix:$TMP/a$n.sock" --state-dir "$TMP/a$n" --cgroup-parent "$CGP/a$n" \
    --controller "unix:$CSOCK" --token-file "$TOKEN_FILE" --node-name "a$n" \
    --capacity-cpu-millis 2000 --capacity-memory 2G --heartbeat-interval 1s \
    --stop-grace 1s --stats-interval 1s -v "$@" >>"$TMP/agent-$n.log" 2>&1 &
  eval "AGENT_PID_$n=$!"
  AGENT_PIDS="$AGENT_PIDS $!"
}

# capi METHOD PATH [BODY]: a controller call; body in $TMP/body, status in $STATUS.
capi () {
  if [ $# -ge 3 ]; then
    STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$CSOCK" -X "$1" \
      -H 'Content-Type: application/json' --data-binary "$3" "http://c$2")
  else
    STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$CSOCK" -X "$1" "http://c$2")
  fi
}

# wait_for SECONDS JQ-FILTER PATH: polls GET PATH until the filter is true.
wait_for () {
  end=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -le "$end" ]; do
    capi GET "$3"
    [ "$STATUS" = 200 ] && jq -e "$2" "$TMP/body" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# burner_task NAME ITERATIONS: a task that counts ITERATIONS loop rounds and writes the count
# to $OUT/NAME (and one line per start to $OUT/NAME.starts).
# The burners' files are world-writable (umask 0): each agent gives a job a uid of its own
# (ebb-agent(8) task_uid_range), so a task run again on another node writes as another user.
burner_task () {
  printf '{"argv":["sh","-c","umask 0; echo start >> %s/%s.starts; i=0; while [ $i -lt %s ]; do i=$((i+1)); done; echo $i > %s/%s"],"cpu_millis":1000,"memory_bytes":67108864}' \
    "$OUT" "$1" "$2" "$OUT" "$1"
}

# gated_burner NAME ITERATIONS: a CPU burner for runs longer than a fixed count lasts on a
# shared machine: it counts ITERATIONS loop rounds in chunks of 20000 (about 15 ms of CPU)
# with a 0.1 s sleep after each (10-15% of a CPU, so six of them and the daemons share two
# cores), then keeps burning the same way without counting until $OUT/release exists, and
# writes the count to $OUT/NAME (one line per start in $OUT/NAME.starts).
gated_burner () {
  printf '{"argv":["sh","-c","umask 0; echo start >> %s/%s.starts; i=0; while [ $i -lt %s ] || [ ! -e %s/release ]; do c=0; while [ $c -lt 20000 ]; do c=$((c+1)); done; [ $i -lt %s ] && i=$((i+20000)); sleep 0.1; done; echo $i > %s/%s"],"cpu_millis":1000,"memory_bytes":67108864}' \
    "$OUT" "$1" "$2" "$OUT" "$2" "$OUT" "$1"
}

# job_body NAME CLASS TASK-JSON...: a POST /v1/jobs body.
job_body () {
  name=$1 cls=$2; shift 2
  printf '{"name":"%s","class":"%s","request_id":"%s","tasks":[' "$name" "$cls" "$name"
  sep=
  for t in "$@"; do printf '%s%s' "$sep" "$t"; sep=,; done
  printf ']}'
}

