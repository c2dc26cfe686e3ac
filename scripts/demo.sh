#!/bin/bash
# ebb's main job on one machine: install what is needed, build, then
#  1. preemption on this node: ebb-agent runs a long CPU-bound task; a short job arrives; the
#     agent suspends the long task (CPU to 1%, memory toward 64 MiB) without killing it, the
#     short job runs at full speed, and the long task is resumed with exactly its old limits;
#  2. scheduling on a cluster: ebb-sim runs Hawk and Sparrow on the Yahoo trace sample.
# Usage: bash scripts/demo.sh        (as root on Debian 12)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${EBB_BUILD_DIR:-$top/build/demo}
bash "$top/scripts/install-deps.sh"
(cd "$top" && autoreconf -fi >/dev/null 2>&1)
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" -q CFLAGS="-O2 -g"
make -s -j"$(nproc)" >/dev/null   # errors still reach the terminal on stderr

# --- 1. preemption on this node ------------------------------------------------------------
T=$(mktemp -d /tmp/ebb-demo.XXXXXX)
SOCK=$T/agent.sock
HZ=$(getconf CLK_TCK)
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  layout=v2; own=$(sed -n 's/^0:://p' /proc/self/cgroup); hiers=""
else
  layout=v1; own=$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup)
  hiers="cpu cpuacct memory freezer"
fi
parent=${own%/}/ebb-demo-$$     # nested under our own cgroup: the demo touches nothing else
agent_pid=
cgdirs() { if [ $layout = v2 ]; then echo "/sys/fs/cgroup$parent"; else for h in $hiers; do echo "/sys/fs/cgroup/$h$parent"; done; fi; }
cleanup() {
  [ -n "$agent_pid" ] && kill -TERM "$agent_pid" 2>/dev/null && wait "$agent_pid" 2>/dev/null || true
  for d in $(cgdirs); do
    for c in "$d"/*/; do [ -f "$c/cgroup.procs" ] && for p in $(cat "$c/cgroup.procs"); do kill -9 "$p" 2>/dev/null; done; done
  done
  sleep 0.3
  for d in $(cgdirs); do for c in "$d"/*/; do rmdir "$c" 2>/dev/null; done; rmdir "$d" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
if [ $layout = v2 ]; then
  mkdir -p "/sys/fs/cgroup$parent"
else
  for h in $hiers; do mkdir -p "/sys/fs/cgroup/$h$parent"; done
fi

api() { curl -s --unix-socket "$SOCK" -X "$1" -H 'Content-Type: application/json' ${3:+--data-binary "$3"} "http://agent$2"; }
ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
cpu_pct() { local a b; a=$(ticks "$1"); sleep 2; b=$(ticks "$1"); echo $(((b - a) * 100 / (2 * HZ))); }
field() { api GET "/v1/tasks/$1" | jq -r "$2"; }

"$build/ebb-agent" --listen "unix:$SOCK" --state-dir "$T/state" --cgroup-parent "$parent" \
  --stop-grace 1s >"$T/agent.log" 2>&1 &
agent_pid=$!
for _ in $(seq 100); do api GET /v1/health >/dev/null 2>&1 && break; sleep 0.05; done

echo
echo "== 1. Preemption on this node (cgroup $layout, agent on $SOCK)"
api POST /v1/tasks '{"id":"long-1","job":"training","class":"long","argv":["sh","-c","while :; do :; done"],"cpu_millis":1000,"memory_bytes":536870912}' >/dev/null
long_pid=$(field long-1 .pid)
echo "long task long-1 (pid $long_pid) runs:                 $(cpu_pct "$long_pid")% of a CPU"
echo "a short job arrives: suspend long-1 (immediate)"
api POST /v1/tasks/long-1/suspend '{"mode":"immediate","request_id":"demo-suspend"}' |
  jq -r '"  state \(.state), cpu.max/quota \(.applied.cpu_max), held \(.held_bytes) bytes, reclaimed \(.reclaimed_bytes) bytes"'
api POST /v1/tasks '{"id":"short-1","job":"query","class":"short","argv":["sh","-c","i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"],"cpu_millis":1000,"memory_bytes":134217728}' >/dev/null
short_pid=$(field short-1 .pid)
echo "long-1 while suspended (alive: $(kill -0 "$long_pid" && echo yes)):        $(cpu_pct "$long_pid")% of a CPU"
while [ "$(field short-1 .state)" != exited ]; do sleep 0.1; done
echo "short-1 (pid $short_pid) ran to completion meanwhile: state exited, exit status $(field short-1 .exit_status)"
api POST /v1/tasks/long-1/resume '{"request_id":"demo-resume"}' |
  jq -r '"resume long-1: state \(.state), limits back to cpu \(.applied.cpu_max), memory \(.applied.memory_max)"'
echo "long task long-1 (same pid $(field long-1 .pid)) after resume:   $(cpu_pct "$long_pid")% of a CPU"
api DELETE /v1/tasks/long-1 >/dev/null
echo "agent metrics:"; api GET /metrics | grep -E '^ebb_agent_(suspend|resume)_duration_seconds_(count|sum)' | sed 's/^/  /'

# --- 2. scheduling on a cluster ------------------------------------------------------------
trace=$top/data/YH2_sub.tr
if [ -f "$trace" ]; then
  echo
  echo "== 2. Hawk against Sparrow in ebb-sim: YH2_sub trace, 4000 nodes, cutoff 90.5811 s, 2% short partition"
  for policy in sparrow hawk; do
    echo "-- $policy"
    "$build/sim/ebb-sim" --policy "$policy" --nodes 4000 --trace "$trace" --cutoff 90.5811 --short-partition 2
  done
fi
