#!/bin/bash
# ebb's main job on one machine: install what is needed, build, then
#  1. a cluster on this machine: ebb-controller and three ebb-agents (each its own slice of this
#     machine's CPUs, its own state dir, unix socket and cgroup nested under the demo's own),
#     filled with long CPU-bound burners; bursts of short jobs arrive; `ebbctl watch` shows it
#     live. Run once per policy (fifo, bigc kill, bigc gp, ebb) and measured right there: short
#     jobs' start delay (submit -> running) and runtime from the controller's job times, long-job
#     work lost (iterations redone after a kill, from the burners' counters), suspensions (from
#     /v1/decisions);
#  2. scheduling on a big cluster: ebb-sim runs Hawk and Sparrow on the Yahoo trace sample,
#     plotted to a PNG with gnuplot.
# Usage: bash scripts/demo.sh        (as root on Debian 12; about two minutes)
# EBB_DEMO_SECS: seconds of short-job bursts per policy (default 15).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${EBB_BUILD_DIR:-$top/build/demo}
bash "$top/scripts/install-deps.sh"
(cd "$top" && autoreconf -fi >/dev/null 2>&1)
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" -q CFLAGS="-O2 -g"
make -s -j"$(nproc)" >/dev/null   # errors still reach the terminal on stderr

SECS=${EBB_DEMO_SECS:-15}
T=$(mktemp -d /tmp/ebb-demo.XXXXXX)
chmod 755 "$T"
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  layout=v2; own=$(sed -n 's/^0:://p' /proc/self/cgroup); hiers=""
else
  layout=v1; own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
  hiers="cpu,cpuacct memory freezer"
fi
[ $layout = v1 ] && [ ! -d /sys/fs/cgroup/cpu,cpuacct ] && hiers="cpu cpuacct memory freezer"
parent=${own%/}/ebb-demo-$$     # nested under our own cgroup: the demo touches nothing else
pids=""
cgdirs() { if [ $layout = v2 ]; then echo "/sys/fs/cgroup$parent"; else for h in $hiers; do echo "/sys/fs/cgroup/$h$parent"; done; fi; }
# rmtree DIR: removes a cgroup tree bottom-up after killing what is left in it.
rmtree() {
  local c
  [ -d "$1" ] || return 0
  for c in "$1"/*/; do [ -f "$c/cgroup.procs" ] && rmtree "${c%/}"; done
  for p in $(cat "$1/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
  for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 0
}
stop_cluster() {
  local p
  for p in $pids; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $pids; do wait "$p" 2>/dev/null || true; done
  pids=""
  for d in $(cgdirs); do for c in "$d"/*/; do [ -d "$c" ] && rmtree "${c%/}"; done; done
}
cleanup() {
  set +e   # a cgroup already gone (cpu and cpuacct may be one hierarchy) must not stop the rest
  stop_cluster
  for d in $(cgdirs); do rmtree "$d"; done
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
if [ $layout = v2 ]; then
  mkdir -p "/sys/fs/cgroup$parent"
  # the agents need cpu and memory in their subtree
  echo "+cpu +memory" >"/sys/fs/cgroup$parent/cgroup.subtree_control" 2>/dev/null || true
else
  for h in $hiers; do mkdir -p "/sys/fs/cgroup/$h$parent"; done
fi

# Each agent advertises 2 slots of 1000 CPU millis (the controller counts a slot per 1000; a
# smaller slice leaves bigc and ebb a free node for shorts and nothing to preempt). Two long
# tasks fill a node, so every short job must displace one.
NCPU=$(nproc)
SLICE=2000
TASK=1000
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/token"
chmod 600 "$T/token"

capi() { curl -s --unix-socket "$T/ctl.sock" -X "$1" -H 'Content-Type: application/json' ${3:+--data-binary "$3"} "http://c$2"; }
# burner NAME ITER: counts loop rounds; every start appends its pid to NAME.starts and writes its
# progress every 20000 rounds to NAME.PID, so the rounds of a killed run are known.
burner() {
  printf '{"argv":["sh","-c","echo $$ >> %s/%s.starts; i=0; while [ $i -lt %s ]; do i=$((i+1)); [ $((i %% 20000)) = 0 ] && echo $i > %s/%s.$$; done; echo $i > %s/%s.$$"],"cpu_millis":%s,"memory_bytes":67108864}' \
    "$OUT" "$1" "$2" "$OUT" "$1" "$OUT" "$1" "$TASK"
}
job() {
  local name=$1 cls=$2 sep=""; shift 2
  printf '{"name":"%s","class":"%s","request_id":"%s","tasks":[' "$name" "$cls" "$name"
  for t in "$@"; do printf '%s%s' "$sep" "$t"; sep=,; done
  printf ']}'
}

# wait_shorts SECS: waits up to SECS for every short job to be done.
wait_shorts() {
  local end=$(($(date +%s) + $1))
  while [ "$(date +%s)" -lt $end ]; do
    [ "$(capi GET /v1/jobs | jq '[.jobs[] | select(.class == "short" and .state != "done")] | length')" = 0 ] && break
    sleep 0.2
  done
}

# run_policy LABEL FLAGS...: one measured run; appends a row to $T/table.
run_policy() {
  local label=$1; shift
  local d="$T/run-${label// /-}"
  mkdir -p "$d/out"; chmod 1777 "$d/out"
  OUT=$d/out
  "$build/ebb-controller" --listen "unix:$T/ctl.sock" --state-dir "$d/ctl" --token-file "$T/token" \
    --tick 50ms --node-timeout 10s "$@" >"$d/controller.log" 2>&1 &
  pids="$pids $!"
  for _ in $(seq 100); do capi GET /v1/health >/dev/null 2>&1 && break; sleep 0.05; done
  for n in 1 2 3; do
    if [ $layout = v2 ]; then mkdir -p "/sys/fs/cgroup$parent/a$n"
    else for h in $hiers; do mkdir -p "/sys/fs/cgroup/$h$parent/a$n"; done; fi
    "$build/ebb-agent" --listen "unix:$d/a$n.sock" --state-dir "$d/a$n" --cgroup-parent "$parent/a$n" \
      --controller "unix:$T/ctl.sock" --token-file "$T/token" --node-name "node$n" \
      --capacity-cpu-millis "$SLICE" --capacity-memory 1G --heartbeat-interval 1s \
      --stop-grace 1s --stats-interval 1s >"$d/agent-$n.log" 2>&1 &
    pids="$pids $!"
  done
  for _ in $(seq 100); do
    [ "$(capi GET /v1/nodes | jq '[.nodes[] | select(.state == "ready")] | length')" = 3 ] && break
    sleep 0.1
  done
  set --
  for k in 1 2 3 4 5 6; do set -- "$@" "$(burner long$k 1000000000)"; done
  local long; long=$(capi POST /v1/jobs "$(job training long "$@")" | jq -r .id)
  for _ in $(seq 100); do
    [ "$(capi GET "/v1/jobs/$long" | jq .task_states.running)" = 6 ] && break; sleep 0.1
  done
  sleep 1
  echo
  echo "== $label: 6 long burners, two per node of $SLICE CPU millis; bursts of 3 short jobs every 3 s"
  (
    b=0
    while [ $((b * 3)) -lt "$SECS" ]; do
      for s in 1 2 3; do
        capi POST /v1/jobs "$(job "query-$b-$s" short "$(burner short-$b-$s 100000)")" | jq -r .id >>"$d/shorts"
      done
      b=$((b + 1)); sleep 3
    done
  ) &
  local sender=$!
  "$build/ebbctl" --controller "unix:$T/ctl.sock" --token-file "$T/token" \
    watch --interval 1 --count "$SECS" || true
  wait "$sender"
  # what is still waiting gets its chance once the long job leaves (FIFO's shorts wait for that)
  wait_shorts 3
  capi GET "/v1/decisions?since=0" >"$d/decisions.json"
  capi DELETE "/v1/jobs/$long" >/dev/null
  wait_shorts 10
  for j in $(cat "$d/shorts"); do
    capi GET "/v1/jobs/$j" | jq -r 'select(.started_at != null and .finished_at != null) |
      "\(.started_at - .submitted_at) \(.finished_at - .started_at)"'
  done >"$d/times"
  # work lost: the rounds every earlier run of a long task reached before it was killed
  local lost=0 k p c
  for k in 1 2 3 4 5 6; do
    for p in $(head -n -1 "$OUT/long$k.starts" 2>/dev/null); do
      c=$(cat "$OUT/long$k.$p" 2>/dev/null || echo 0); lost=$((lost + c))
    done
  done
  local ns nk
  ns=$(jq '[.decisions[] | select(.action == "suspend")] | length' "$d/decisions.json")
  nk=$(jq '[.decisions[] | select(.action == "kill" or .action == "preempt_kill")] | length' "$d/decisions.json")
  awk -v label="$label" -v lost="$lost" -v ns="$ns" -v nk="$nk" -v n="$(wc -l <"$d/shorts")" '
    { del[NR] = $1 * 1000; run[NR] = $2 * 1000 }
    function q(a, p,   m, i, j, t, b) { m = 0; for (i in a) b[++m] = a[i]
      for (i = 2; i <= m; i++) { t = b[i]; for (j = i - 1; j >= 1 && b[j] > t; j--) b[j + 1] = b[j]; b[j + 1] = t }
      i = int(m * p + 0.999); if (i < 1) i = 1; return m ? b[i] : -1 }
    END { printf "%-10s %7d/%-3d %9.0f %9.0f %9.0f %9.0f %12d %6d %6d\n", label, NR, n,
            q(del, 0.5), q(del, 0.9), q(run, 0.5), q(run, 0.9), lost, ns, nk }' "$d/times" >>"$T/table"
  stop_cluster
  rm -f "$T/ctl.sock"
}

echo
echo "== 1. A cluster on this machine (cgroup $layout, $NCPU CPUs, cgroups under $parent)"
: >"$T/table"
run_policy fifo --policy fifo
run_policy "bigc-kill" --policy bigc --policy-opt mode=kill --policy-opt round-sec=0.05
run_policy "bigc-gp" --policy bigc --policy-opt mode=gp --policy-opt round-sec=0.05
run_policy ebb --policy ebb --policy-opt round-sec=0.05
echo
echo "== Measured on this machine: short jobs (start delay = submit -> running; ms), long jobs"
printf '%-10s %11s %9s %9s %9s %9s %12s %6s %6s\n' policy "shorts done" "delay p50" "delay p90" "run p50" "run p90" "rounds lost" susp kills
cat "$T/table"

# --- 2. scheduling on a cluster ------------------------------------------------------------
trace=$top/data/YH2_sub.tr
echo
echo "== 2. Hawk against Sparrow in ebb-sim: YH2_sub trace, 4000 nodes, cutoff 90.5811 s, 2% short partition"
for policy in sparrow hawk; do
  echo "-- $policy"
  "$build/sim/ebb-sim" --policy "$policy" --nodes 4000 --trace "$trace" --cutoff 90.5811 --short-partition 2 \
    --jobs-csv "$T/jobs-$policy.csv"
  awk -F, 'NR > 1 && $5 == "short" { print $7 }' "$T/jobs-$policy.csv" | sort -g |
    awk '{ a[NR] = $1 } END { for (i = 1; i <= NR; i++) print a[i], i / NR }' >"$T/cdf-$policy.dat"
done
png=${EBB_DEMO_PNG:-$top/build/demo-hawk-sparrow.png}
gnuplot <<GP
set terminal pngcairo size 900,560
set output "$png"
set title "YH2\\_sub on 4000 simulated nodes: short-job runtime (ebb-sim)"
set xlabel "short job runtime (s, log)"
set ylabel "fraction of short jobs"
set logscale x
set key bottom right
set grid
plot "$T/cdf-sparrow.dat" using 1:2 with lines lw 2 title "Sparrow", \\
     "$T/cdf-hawk.dat" using 1:2 with lines lw 2 title "Hawk"
GP
echo
echo "plot: $png"
