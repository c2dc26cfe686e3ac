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
# Exits 0 when every step worked (the cluster came up and every short job finished), 1 when one
# failed (with the log of the program that did), 2 on a usage error.
set -euo pipefail
usage() {
  cat <<'EOF'
Usage: bash scripts/demo.sh [--quick] [--no-build] [--help]
ebb's main job on this machine, as root (Debian 12; cgroup v1 or v2): ebb-controller and three
ebb-agents run long CPU-bound jobs and bursts of short ones under fifo, bigc (kill and gp) and
ebb, watched live with `ebbctl watch` and measured in a table; then Hawk against Sparrow in
ebb-sim on the bundled Yahoo trace sample, plotted with gnuplot. About two minutes.

  --quick      shorter bursts (6 s per policy instead of 15): about a minute
  --no-build   use the programs already built in the build directory; install no package
               and build nothing (needs curl and jq; gnuplot for the plot)
  -h, --help   print this help and exit

Environment: EBB_BUILD_DIR (build directory, default build/demo in the source tree),
EBB_DEMO_SECS (seconds of short-job bursts per policy), EBB_DEMO_SHORT_ROUNDS (a short job's
work in loop rounds, default 100000), EBB_DEMO_FINISH_SECS (how long short jobs may take to
finish once the long job is gone, default 30), EBB_DEMO_PNG (the plot, default
build/demo-hawk-sparrow.png in the source tree).
EOF
}
quick= nobuild=
args=("$@")
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --no-build) nobuild=1 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "demo: unknown option '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
die() { echo "demo: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run it as root: it creates cgroups and installs packages (sudo bash $0)"
top=$(cd "$(dirname "$0")/.." && pwd)
build=${EBB_BUILD_DIR:-$top/build/demo}
if [ -z "$nobuild" ]; then
  bash "$top/scripts/install-deps.sh"
  (cd "$top" && autoreconf -fi >/dev/null 2>&1)
  mkdir -p "$build"
  cd "$build"
  [ -f Makefile ] || "$top/configure" -q CFLAGS="-O2 -g"
  make -s -j"$(nproc)" >/dev/null   # errors still reach the terminal on stderr
fi
for p in ebb-controller ebb-agent ebbctl sim/ebb-sim; do
  [ -x "$build/$p" ] || die "$build/$p is not built (run without --no-build, or set EBB_BUILD_DIR)"
done
for t in curl jq; do command -v $t >/dev/null || die "$t not found (apt-get install $t)"; done

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
  layout=v2; own=$(sed -n 's/^0:://p' /proc/self/cgroup); own=${own%/}; hiers=""
  # cgroup v2 gives the agents cpu and memory only through a cgroup that holds no process
  # (the "no internal processes" rule; the root is exempt) and whose parent passed them on.
  # A login session or a service is not such a cgroup: systemd delegates one on request.
  if [ -n "$own" ] && [ -z "${EBB_DEMO_DELEGATED:-}" ] && [ -d /run/systemd/system ] &&
    command -v systemd-run >/dev/null; then
    echo "demo: cgroup v2: running in a systemd scope with its cgroup delegated (Delegate=yes)"
    exec systemd-run --quiet --scope --unit "ebb-demo-$$" -p Delegate=yes \
      -- env EBB_DEMO_DELEGATED=1 bash "$top/scripts/demo.sh" "${args[@]+"${args[@]}"}" --no-build
  fi
  if [ -n "$own" ]; then
    # Ours alone (a delegated scope): the shell moves to a leaf, so that the cgroup may pass
    # cpu and memory to its children.
    mkdir -p "/sys/fs/cgroup$own/demo-shell"
    echo $$ >"/sys/fs/cgroup$own/demo-shell/cgroup.procs"
  fi
  echo "+cpu +memory" >"/sys/fs/cgroup$own/cgroup.subtree_control" 2>/dev/null ||
    die "cgroup v2: cannot enable cpu and memory below ${own:-/} (run it in the root cgroup, or under systemd)"
else
  layout=v1; own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
  hiers="cpu,cpuacct memory freezer"
  [ -d /sys/fs/cgroup/cpu,cpuacct ] || hiers="cpu cpuacct memory freezer"
fi
SECS=${EBB_DEMO_SECS:-${quick:+6}}
SECS=${SECS:-15}
# A short job's work, in loop rounds of sh (about 1.5 s on this kind of machine); how long the
# short jobs get to finish once the long job is gone. A slow machine (an emulated VM) wants
# less work and more time.
SHORT_ROUNDS=${EBB_DEMO_SHORT_ROUNDS:-100000}
FINISH_SECS=${EBB_DEMO_FINISH_SECS:-30}
T=$(mktemp -d /tmp/ebb-demo.XXXXXX)
chmod 755 "$T"
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
  echo "+cpu +memory" >"/sys/fs/cgroup$parent/cgroup.subtree_control" ||
    die "cgroup v2: cannot enable cpu and memory in $parent"
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

# wait_for SECS WHAT LOG COMMAND...: polls COMMAND until it succeeds; after SECS, fails the
# demo saying WHAT did not happen, with the tail of LOG.
wait_for() {
  local end=$(($(date +%s) + $1)) what=$2 log=$3
  shift 3
  until "$@"; do
    if [ "$(date +%s)" -ge $end ]; then
      echo "demo: $what after $SECONDS s; the end of $log:" >&2
      tail -n 20 "$log" >&2
      exit 1
    fi
    sleep 0.1
  done
}
healthy() { capi GET /v1/health >/dev/null 2>&1; }
nodes_ready() { [ "$(capi GET /v1/nodes | jq '[.nodes[] | select(.state == "ready")] | length')" = 3 ]; }
long_running() { [ "$(capi GET "/v1/jobs/$1" | jq .task_states.running)" = 6 ]; }

# wait_shorts SECS: waits up to SECS for every short job to be done.
wait_shorts() {
  local end=$(($(date +%s) + $1))
  while [ "$(date +%s)" -lt $end ]; do
    [ "$(capi GET "/v1/jobs?limit=1000" | jq '[.jobs[] | select(.class == "short" and .state != "done")] | length')" = 0 ] && break
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
  wait_for 30 "the controller did not answer" "$d/controller.log" healthy
  for n in 1 2 3; do
    if [ $layout = v2 ]; then mkdir -p "/sys/fs/cgroup$parent/a$n"
    else for h in $hiers; do mkdir -p "/sys/fs/cgroup/$h$parent/a$n"; done; fi
    "$build/ebb-agent" --listen "unix:$d/a$n.sock" --state-dir "$d/a$n" --cgroup-parent "$parent/a$n" \
      --controller "unix:$T/ctl.sock" --token-file "$T/token" --node-name "node$n" \
      --capacity-cpu-millis "$SLICE" --capacity-memory 1G --heartbeat-interval 1s \
      --stop-grace 1s --stats-interval 1s >"$d/agent-$n.log" 2>&1 &
    pids="$pids $!"
  done
  wait_for 60 "the three agents did not register" "$d/agent-1.log" nodes_ready
  set --
  for k in 1 2 3 4 5 6; do set -- "$@" "$(burner long$k 1000000000)"; done
  local long; long=$(capi POST /v1/jobs "$(job training long "$@")" | jq -r .id)
  [ -n "$long" ] && [ "$long" != null ] || die "the controller refused the long job (see $d/controller.log)"
  wait_for 60 "the 6 long tasks did not all start" "$d/agent-1.log" long_running "$long"
  sleep 1
  echo
  echo "== $label: 6 long burners, two per node of $SLICE CPU millis; bursts of 3 short jobs every 3 s"
  (
    b=0
    while [ $((b * 3)) -lt "$SECS" ]; do
      for s in 1 2 3; do
        capi POST /v1/jobs "$(job "query-$b-$s" short "$(burner short-$b-$s "$SHORT_ROUNDS")")" | jq -r .id >>"$d/shorts"
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
  wait_shorts "$FINISH_SECS"
  for j in $(cat "$d/shorts"); do
    capi GET "/v1/jobs/$j" | jq -r 'select(.started_at != null and .finished_at != null) |
      "\(.started_at - .submitted_at) \(.finished_at - .started_at)"'
  done >"$d/times"
  [ -s "$d/shorts" ] || die "$label: no short job was accepted (see $d/controller.log)"
  [ "$(wc -l <"$d/times")" = "$(wc -l <"$d/shorts")" ] || unfinished="$unfinished $label"
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
unfinished=""
run_policy fifo --policy fifo
run_policy "bigc-kill" --policy bigc --policy-opt mode=kill --policy-opt round-sec=0.05
run_policy "bigc-gp" --policy bigc --policy-opt mode=gp --policy-opt round-sec=0.05
# bigc acts in rounds (its graceful steps, its resumptions), so its rounds are 0.05 s here.
# ebb starts a short job at its arrival; its round is only the unit of its delayed resumption
# D (3 rounds), so it keeps the default 3 s (D = 9 s). With rounds of 0.05 s D was 0.15 s: a
# long task resumed as soon as the short job in its room ended, each burst suspended three
# afresh, and the suspend bound then in force (2 a task per 600 s, 12 for the six) was spent
# before the fifth burst (doc/ebb-policy.md, "The demo"). The share that replaced it lets
# every burst through at either round.
run_policy ebb --policy ebb
echo
echo "== Measured on this machine: short jobs (start delay = submit -> running; ms), long jobs"
printf '%-10s %11s %9s %9s %9s %9s %12s %6s %6s\n' policy "shorts done" "delay p50" "delay p90" "run p50" "run p90" "rounds lost" susp kills
cat "$T/table"
# Once the long job is gone every short job must finish, under any policy.
[ -z "$unfinished" ] || die "short jobs left unfinished under:$unfinished"

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
# gnuplot-nox is what gnuplot names through the alternatives system (a copy may lack the link).
gp=$(command -v gnuplot || command -v gnuplot-nox || true)
if [ -z "$gp" ]; then
  echo
  echo "demo: gnuplot not found: no plot (apt-get install gnuplot-nox); done in $SECONDS s"
  exit 0
fi
mkdir -p "$(dirname "$png")"
"$gp" <<GP
set terminal pngcairo size 900,560
set output "$png"
set title "YH2_sub on 4000 simulated nodes: short-job runtime (ebb-sim)" noenhanced
set xlabel "short job runtime (s, log)"
set ylabel "fraction of short jobs"
set logscale x
set key bottom right
set grid
plot "$T/cdf-sparrow.dat" using 1:2 with lines lw 2 title "Sparrow", \\
     "$T/cdf-hawk.dat" using 1:2 with lines lw 2 title "Hawk"
GP
[ -s "$png" ] || die "gnuplot wrote no $png"
echo
echo "plot: $png"
echo "demo: done in $SECONDS s"
