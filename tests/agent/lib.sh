# Shared by the ebb-agent integration tests (tests/test-agent-*.sh): a cgroup parent nested
# under the test's own cgroup (removed afterwards), a temporary state dir, the real ebb-agent
# on a unix socket, curl and jq helpers, CPU measured from /proc/PID/stat.
set -u
: "${EBB_TOP_BUILDDIR:=.}"
AGENT_BIN="$EBB_TOP_BUILDDIR/ebb-agent"
# EBB_AGENT_VALGRIND=DIR (tests/agent/valgrind.sh): the agent runs under memcheck, one log per
# process in DIR, with more time to start.
AGENT_RUN= START_TRIES=100
if [ -n "${EBB_AGENT_VALGRIND:-}" ]; then
  AGENT_RUN="valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite --log-file=$EBB_AGENT_VALGRIND/vg.%p.log"
  START_TRIES=600
fi

skip () {
  echo "SKIP: $*"
  [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1
  exit 77
}
fail () { echo "FAIL: $*"; FAILED=1; }
ok () { echo "ok: $*"; }
FAILED=0

[ "$(id -u)" = 0 ] || skip "needs root (creates cgroups)"
for c in curl jq; do command -v $c >/dev/null || skip "needs $c"; done
[ -x "$AGENT_BIN" ] || skip "no $AGENT_BIN"

# Tasks run as nobody by default. The VM's busybox root (tests/vm) has no /etc/passwd at
# all; a real host always has nobody, so this never touches one.
if [ ! -s /etc/passwd ] && [ -d /proc/1 ] && [ "$(cat /proc/1/comm 2>/dev/null)" != systemd ]; then
  echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >>/etc/passwd
fi
TMP=$(mktemp -d /tmp/ebb-agent-test.XXXXXX) || exit 99
SOCK="$TMP/agent.sock"
STATE="$TMP/state"
LOG="$TMP/agent.log"
AGENT_PID=
CREATED_DIRS=
HZ=$(getconf CLK_TCK 2>/dev/null || echo 100)

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  LAYOUT=v2
  OWN=$(sed -n 's/^0:://p' /proc/self/cgroup)
  HIERS=""
else
  LAYOUT=v1
  OWN=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
  HIERS="cpu cpuacct memory freezer"
  # The agent uses a pids hierarchy where one is mounted (task_pids_max).
  [ -d /sys/fs/cgroup/pids ] && HIERS="$HIERS pids"
  [ -d /sys/fs/cgroup/memory ] || skip "no cgroup v1 memory hierarchy"
fi
OWN=${OWN%/}
CGP="$OWN/ebb-agent-test-$$"

# Directory of cgroup path $2 in hierarchy $1 ("" on v2).
cgdir () { if [ "$LAYOUT" = v2 ]; then echo "/sys/fs/cgroup$2"; else echo "/sys/fs/cgroup/$1$2"; fi; }

# mkdir -p that remembers what it created (removed deepest first by cleanup).
mkcg () {
  d=$1 todo=
  while [ ! -d "$d" ]; do todo="$d $todo"; d=$(dirname "$d"); done
  for d in $todo; do mkdir "$d" || return 1; CREATED_DIRS="$d $CREATED_DIRS"; done
}

setup_cgroups () {
  if [ "$LAYOUT" = v2 ]; then
    own=$(cgdir "" "${OWN:-/}")
    grep -qw pids "$own/cgroup.controllers" && echo "+pids" >"$own/cgroup.subtree_control" 2>/dev/null
    grep -qw cpu "$own/cgroup.subtree_control" || echo "+cpu +memory" >"$own/cgroup.subtree_control" 2>/dev/null ||
      skip "cannot enable cpu and memory below $OWN"
    mkcg "$(cgdir "" "$CGP")" || skip "cannot create $CGP"
  else
    for h in $HIERS; do mkcg "$(cgdir $h "$CGP")" || skip "cannot create $CGP in $h"; done
  fi
}

# Kills what the tests started (processes in cgroups below $CGP, nested ones included), then
# removes those cgroups, deepest first, and the directories mkcg created.
cleanup () {
  [ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2>/dev/null && wait "$AGENT_PID" 2>/dev/null
  [ -n "${CONTROL_PID:-}" ] && kill -9 "$CONTROL_PID" 2>/dev/null
  for h in ${HIERS:-x}; do
    top=$(cgdir $h "$CGP")
    [ -d "$top" ] || continue
    for d in $(find "$top" -mindepth 1 -depth -type d 2>/dev/null); do
      [ "$h" = freezer ] && echo THAWED >"$d/freezer.state" 2>/dev/null
      for p in $(cat "$d/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    done
  done
  sleep 0.2
  for h in ${HIERS:-x}; do
    top=$(cgdir $h "$CGP")
    [ -d "$top" ] || continue
    for d in $(find "$top" -mindepth 1 -depth -type d 2>/dev/null); do rmdir "$d" 2>/dev/null; done
  done
  for d in $CREATED_DIRS; do rmdir "$d" 2>/dev/null; done
  if [ "$FAILED" != 0 ] && [ -f "$LOG" ]; then echo "--- agent log"; tail -50 "$LOG"; fi
  rm -rf "$TMP"
}
trap cleanup EXIT

# start_agent [extra options]: starts ebb-agent and waits until /v1/health answers.
start_agent () {
  $AGENT_RUN "$AGENT_BIN" --listen "unix:$SOCK" --state-dir "$STATE" --cgroup-parent "$CGP" \
    --stop-grace 2s --stats-interval 1s -v "$@" >>"$LOG" 2>&1 &
  AGENT_PID=$!
  i=0
  while [ $i -lt "$START_TRIES" ]; do
    # Any answer (a 401 too, when a token is set) means it serves.
    case $(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://agent/v1/health 2>/dev/null) in
      200 | 401) return 0 ;;
    esac
    kill -0 "$AGENT_PID" 2>/dev/null || { AGENT_PID=; return 1; }
    sleep 0.05; i=$((i + 1))
  done
  return 1
}

# stop_agent SIGNAL: signals the agent and waits for it; sets AGENT_STATUS.
stop_agent () {
  kill -"$1" "$AGENT_PID"
  wait "$AGENT_PID"; AGENT_STATUS=$?
  AGENT_PID=
}

# api METHOD PATH [BODY]: the body goes to $TMP/body, the status to $STATUS; $API_AUTH (an
# "Authorization: Bearer ..." header) is sent when set.
api () {
  if [ $# -ge 3 ]; then
    STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" -X "$1" ${API_AUTH:+-H "$API_AUTH"} \
      -H 'Content-Type: application/json' --data-binary "$3" "http://agent$2")
  else
    STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" -X "$1" ${API_AUTH:+-H "$API_AUTH"} "http://agent$2")
  fi
}
body () { cat "$TMP/body"; }
field () { jq -r "$1" "$TMP/body"; }

# cpu_ticks PID: utime + stime from /proc/PID/stat (fields after the last ')').
cpu_ticks () { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# cpu_pct2 PID [PID2]: percent of one CPU each used over 2 s (measured together).
cpu_pct2 () {
  a1=$(cpu_ticks "$1"); b1=$(cpu_ticks "${2:-$1}")
  sleep 2
  a2=$(cpu_ticks "$1"); b2=$(cpu_ticks "${2:-$1}")
  echo "$(( (a2 - a1) * 100 / (2 * HZ) )) $(( (b2 - b1) * 100 / (2 * HZ) ))"
}

# cmdline_pids WORD: the pids whose command line contains WORD, from /proc (what pgrep -f
# finds; the VM's busybox has no pgrep). grep reads its own command line too: the pattern's
# last character in brackets does not match that.
cmdline_pids () {
  grep -l -- "$(printf '%s' "$1" | sed 's/.$/[&]/')" /proc/[0-9]*/cmdline 2>/dev/null | cut -d/ -f3
}

# cgfile TASK FILE: a limit file of a task's cgroup (v1: the right hierarchy).
cgfile () {
  if [ "$LAYOUT" = v2 ]; then cat "$(cgdir "" "$CGP/$1")/$2"; return; fi
  case $2 in cpu.*) h=cpu ;; memory.*) h=memory ;; freezer.*) h=freezer ;; pids.*) h=pids ;; esac
  cat "$(cgdir $h "$CGP/$1")/$2"
}
cpu_limit () { if [ "$LAYOUT" = v2 ]; then cgfile "$1" cpu.max | awk '{print $1}'; else cgfile "$1" cpu.cfs_quota_us; fi; }
mem_limit () { if [ "$LAYOUT" = v2 ]; then cgfile "$1" memory.max; else cgfile "$1" memory.limit_in_bytes; fi; }

launch_body () { # launch_body ID ARGV-JSON CPU_MILLIS MEMORY_BYTES
  printf '{"id":"%s","argv":%s,"cpu_millis":%s,"memory_bytes":%s,"job":"j1","class":"long"}' "$@"
}
BURN='["sh","-c","while :; do :; done"]'

# latency_bound QUIET-MS: sets BOUND_MS, the latency a test asserts, and BOUND_WHY, why (to
# print with the result): QUIET-MS when the host is quiet (a 1-minute load average of at most
# twice its CPUs; EBB_CTL_TEST_LOAD_MAX overrides), else 1000 ms. On a host shared with other
# work a launched child waits for a CPU between fork and exec (group scheduling splits its
# cgroup's share with every other cgroup): the agents' launches were measured at p50 150 ms and
# p99 600 ms under a load of 15 on 2 CPUs.
latency_bound () {
  read -r _load _ </proc/loadavg
  _ncpu=$(nproc 2>/dev/null || echo 1)
  _max=${EBB_CTL_TEST_LOAD_MAX:-$((2 * _ncpu))}
  if awk -v l="$_load" -v m="$_max" 'BEGIN { exit !(l <= m) }'; then
    BOUND_MS=$1 BOUND_WHY="the host is quiet (load $_load, $_ncpu CPUs)"
  else
    BOUND_MS=1000
    BOUND_WHY="the host is shared (load $_load > $_max on $_ncpu CPUs): $1 ms needs a quiet host"
  fi
}
