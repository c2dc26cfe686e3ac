#!/bin/bash
# make bench-controller: ebb-controller (policy EBB_BENCH_POLICY, default fifo; a
# sanitizer-free build gives the real figures, a sanitizer build is several times slower)
# driven by the fleet emulator
# (tests/controller/fleet: N virtual agents in one process, heartbeats every 5 s). The fleet
# heartbeats over the controller's unix socket and serves its agent API over https (a
# throwaway certificate, --agent-ca): the controller sends its token to nothing else.
# For N = 1,000 (the baseline of this run) and N = EBB_BENCH_NODES (default 10,000):
#   decision latency: job arrival -> its launches handed to curl multi, p50/p99 over 200
#     single-task jobs (the controller's ebb_controller_job_decision_recent_seconds summary);
#   placements/s: one job of min(N, 5000) tasks on the idle fleet, submit -> all running;
#   heartbeat CPU: the controller's CPU share while only heartbeats arrive (20 s);
#   RSS at the start and the end of the heartbeat window.
# Prints the absolute figures and the ratio against the 1,000-node baseline. Then, at N:
#   flood: the fleet submits jobs of 10 tasks at EBB_BENCH_FLOOD_RATE tasks/s (default
#     8,000) for EBB_BENCH_FLOOD_SEC s (default 10) to nodes of 16 CPUs; placements/s is the
#     LAUNCH decisions made (committed, handed to curl) over the window and 2 s after, and
#     the launches the fleet received (one process serves every node's agent API, so on a
#     shared machine it is the slower side).
# EBB_BENCH_MODE=store instead measures placements/s (as above, one job of 1,000 tasks) at
# EBB_BENCH_STORE_NODES nodes (default 1,000) with the SQLite store and with PostgreSQL 15
# (started as in tests/ha/pg.sh, in a temporary directory) in the same run, the best of
# EBB_BENCH_STORE_RUNS (default 3) each, and prints both and their ratio (bench/ha-store.sh).
# EBB_BENCH_STORE=sqlite:PATH or postgresql://... runs any mode on that store.
# EBB_BENCH_MODE=rss instead runs N nodes with jobs of 10 tasks at EBB_BENCH_RSS_RATE tasks/s
# (default 10) for a warm-up of EBB_BENCH_RSS_WARMUP s (default 120) and a steady window of
# EBB_BENCH_RSS_SEC s (default 600), prints the controller's RSS every EBB_BENCH_RSS_EVERY s
# (default 30) with SQLite's heap and cache pages, the jobs in memory and the policy's jobs,
# its CPU share over the run, and over the steady window: the RSS slope per minute and per
# job, max - min, and the growth over the window as a share of RSS (the figure).
set -u
B=${EBB_TOP_BUILDDIR:-.}
BIG=${EBB_BENCH_NODES:-10000}
WINDOW=${EBB_BENCH_WINDOW:-20}
MODE=${EBB_BENCH_MODE:-figures}
POLICY=${EBB_BENCH_POLICY:-fifo}
FLOOD_RATE=${EBB_BENCH_FLOOD_RATE:-8000}
FLOOD_SEC=${EBB_BENCH_FLOOD_SEC:-10}
RSS_SEC=${EBB_BENCH_RSS_SEC:-600}
RSS_WARMUP=${EBB_BENCH_RSS_WARMUP:-120}
RSS_RATE=${EBB_BENCH_RSS_RATE:-10}
RSS_EVERY=${EBB_BENCH_RSS_EVERY:-30}
HZ=$(getconf CLK_TCK)
TMP=$(mktemp -d /tmp/ebb-ctl-bench.XXXXXX)
CTL= FLEET=
PG_PID=
# (PostgreSQL first: the wait would wait for it too.)
trap '[ -z "$PG_PID" ] || pg_stop KILL; kill $CTL $FLEET 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/token"; chmod 600 "$TMP/token"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || { echo "bench: openssl req failed" >&2; exit 1; }
export EBB_FLEET_TLS_CERT=$TMP/cert.pem EBB_FLEET_TLS_KEY=$TMP/key.pem

# The controller's unix socket: no token needed.
api () { curl -s --unix-socket "$TMP/c.sock" "$@"; }
ticks () { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
rss_kib () { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

# start N CPU-MILLIS [FLEET-FLOOD-ARGS...]: a fresh controller and a fleet of N nodes, every
# node reported ready; sets CTL, FLEET and URL.
start () {
  local n=$1 cpu=$2
  shift 2
  rm -rf "$TMP/state"
  "$B/ebb-controller" --listen "unix:$TMP/c.sock" --state-dir "$TMP/state" \
    --token-file "$TMP/token" --agent-ca "$TMP/cert.pem" --policy "$POLICY" --node-timeout 60s \
    ${EBB_BENCH_STORE:+--store "$EBB_BENCH_STORE"} >"$TMP/ctl.log" 2>&1 &
  CTL=$!
  for _ in $(seq 100); do curl -sf --unix-socket "$TMP/c.sock" http://c/v1/health >/dev/null && break; sleep 0.1; done
  URL=http://c
  "$B/tests/controller/fleet" "unix:$TMP/c.sock" "$n" "$TMP/token" 5 "$cpu" "$@" >"$TMP/fleet.out" \
    2>"$TMP/fleet.err" &
  FLEET=$!
  for _ in $(seq 300); do
    r=$(api "$URL/v1/cluster" | jq -r .nodes.ready 2>/dev/null)
    [ "${r:-0}" -ge "$n" ] && break
    sleep 0.2
  done
}

stop () {
  kill $FLEET; wait $FLEET 2>/dev/null; kill $CTL; wait $CTL 2>/dev/null; CTL= FLEET=
}

launches () { api "$URL/metrics" | awk '/^ebb_controller_task_launches_total/ { print $2 }'; }

# place K: one job of K tasks on the idle fleet, submit -> all running; prints placements/s.
place () {
  local k=$1 s0 s1 id
  jq -cn --argjson k "$k" '{name:"big",class:"long",tasks:[range($k) | {argv:["sleep","30"],cpu_millis:1000,memory_bytes:67108864}]}' >"$TMP/big.json"
  s0=$(date +%s%N)
  id=$(api -X POST --data-binary @"$TMP/big.json" "$URL/v1/jobs" | jq -r .id)
  while :; do
    [ "$(api "$URL/v1/cluster" | jq -r .running_tasks)" -ge "$k" ] && break
    [ $(( ($(date +%s%N) - s0) / 1000000000 )) -gt 120 ] && break
    sleep 0.05
  done
  s1=$(date +%s%N)
  echo $(( k * 1000000000 / (s1 - s0) ))
  api -X DELETE "$URL/v1/jobs/$id" >/dev/null
  sleep 2
}

# run N: prints "N p50_ms p99_ms placements_per_s hb_cpu_pct rss0_kib rss1_kib"
run () {
  local n=$1
  start "$n" 1000
  # Heartbeats only: CPU and RSS.
  local r0 t0 t1 r1
  r0=$(rss_kib $CTL); t0=$(ticks $CTL); sleep "$WINDOW"; t1=$(ticks $CTL); r1=$(rss_kib $CTL)
  local cpu=$(( (t1 - t0) * 100 / (WINDOW * HZ) ))
  # Placements: one big job on the idle fleet.
  local pps
  pps=$(place $(( n < 5000 ? n : 5000 )))
  # Decision latency: 200 one-task jobs, one at a time.
  for i in $(seq 200); do
    api -X POST --data-binary '{"tasks":[{"argv":["sleep","0.2"],"cpu_millis":1000,"memory_bytes":67108864}]}' "$URL/v1/jobs" >/dev/null
  done
  local m p50 p99
  m=$(api "$URL/metrics")
  p50=$(echo "$m" | awk -F' ' '/job_decision_recent_seconds\{quantile="0.5"\}/ { printf "%.3f", $2 * 1000 }')
  p99=$(echo "$m" | awk -F' ' '/job_decision_recent_seconds\{quantile="0.99"\}/ { printf "%.3f", $2 * 1000 }')
  stop
  echo "$n $p50 $p99 $pps $cpu $r0 $r1"
}

# flood N: prints the fleet's report and the decisions per second.
flood () {
  local n=$1 line dec
  start "$n" 16000 "$FLOOD_RATE" "$FLOOD_SEC" 10
  for _ in $(seq $(( (FLOOD_SEC + 120) * 5 ))); do
    line=$(grep '^flood:' "$TMP/fleet.out") && break
    sleep 0.2
  done
  dec=$(launches)
  stop
  echo "flood at $n nodes, $FLOOD_RATE tasks/s for $FLOOD_SEC s:" \
    "$(awk -v d="${dec:-0}" -v s="$FLOOD_SEC" 'BEGIN { printf "%.0f", d / (s + 2) }')" \
    "placements/s decided ($dec launches)"
  echo "  fleet: ${line:-no report}"
}

# rss N: RSS over time under heartbeats and a steady stream of jobs, sampled every RSS_EVERY
# s: a warm-up of RSS_WARMUP s (the allocator's arenas, the agents' connections; the policy's
# per-node state and SQLite's page cache are reserved at start), then a steady window of
# RSS_SEC s. Over the window: the RSS slope per minute (least squares against time) and per
# job (against jobs submitted), the growth it makes over the window, max - min, and the
# figure: growth / mean RSS.
rss () {
  local n=$1 t0 t1 s=0 end=$(( RSS_WARMUP + RSS_SEC ))
  start "$n" 4000 "$RSS_RATE" "$(( end + RSS_EVERY ))" 10
  echo "rss at $n nodes, policy $POLICY, jobs of 10 tasks at $RSS_RATE tasks/s, every $RSS_EVERY s;" \
    "warm-up ${RSS_WARMUP} s, steady window ${RSS_WARMUP}-${end} s"
  printf '%8s %10s %10s %8s %8s %10s %8s %8s\n' t_s rss_KiB sqlite_KiB cache_pg jobs launches \
    in_mem pol_jobs
  t0=$(ticks $CTL)
  while [ "$s" -le "$end" ]; do
    local m
    m=$(api "$URL/metrics")
    printf '%8s %10s %10s %8s %8s %10s %8s %8s\n' "$s" "$(rss_kib $CTL)" \
      "$(echo "$m" | awk '/^ebb_controller_sqlite_memory_bytes/ { v = int($2 / 1024) } END { print v == "" ? "-" : v }')" \
      "$(echo "$m" | awk '/^ebb_controller_sqlite_cache_pages/ { v = $2 } END { print v == "" ? "-" : v }')" \
      "$(api "$URL/v1/cluster" | jq -r .jobs)" \
      "$(echo "$m" | awk '/^ebb_controller_task_launches_total/ { print $2 }')" \
      "$(echo "$m" | awk '/^ebb_controller_jobs_in_memory/ { v = $2 } END { print v == "" ? "-" : v }')" \
      "$(echo "$m" | awk '/^ebb_controller_policy_jobs/ { v = $2 } END { print v == "" ? "-" : v }')"
    [ "$s" -ge "$end" ] && break
    sleep "$RSS_EVERY"
    s=$(( s + RSS_EVERY ))
  done | tee "$TMP/rss"
  t1=$(ticks $CTL)
  echo "controller CPU over the run: $(( (t1 - t0) * 100 / (end * HZ) ))% of one core"
  awk -v w="$RSS_WARMUP" -v e="$end" '
    $1 ~ /^[0-9]+$/ && $1 >= w && $1 <= e {
      n++; t += $1; j += $5; r += $2; tt += $1 * $1; jj += $5 * $5; tr += $1 * $2; jr += $5 * $2
      if (n == 1 || $2 < lo) lo = $2
      if (n == 1 || $2 > hi) hi = $2
      if (n == 1) { t_first = $1; j_first = $5 }
      t_last = $1; j_last = $5 }
    END {
      dt = n * tt - t * t; dj = n * jj - j * j
      if (n < 3 || dt == 0 || dj == 0) { print "steady window: too few samples"; exit }
      per_s = (n * tr - t * r) / dt; per_job = (n * jr - j * r) / dj
      grow = per_s * (t_last - t_first); mean = r / n
      printf "steady window %d-%d s (%d samples, %d jobs): RSS growth %.2f%% of RSS" \
        " (%.0f KiB over %d s by the fit, %.1f KiB/min, %.0f bytes/job; mean RSS %.0f KiB);" \
        " max - min %d KiB (%.2f%%)\n", t_first, t_last, n, j_last - j_first, grow / mean * 100,
        grow, t_last - t_first, per_s * 60, per_job * 1024, mean, hi - lo, (hi - lo) / mean * 100 }' \
    "$TMP/rss"
  stop
}

# store_bench: placements/s of one 1,000-task job at EBB_BENCH_STORE_NODES nodes with the
# SQLite store, then with PostgreSQL (an empty schema each run), the best of
# EBB_BENCH_STORE_RUNS runs each; prints both and PostgreSQL's share of SQLite's.
store_bench () {
  local n=${EBB_BENCH_STORE_NODES:-1000} runs=${EBB_BENCH_STORE_RUNS:-3} st p best
  local ntasks=$(( n < 1000 ? n : 1000 )) # (pg.sh's loops use k)
  . "$(dirname "$0")/../tests/ha/pg.sh"
  pg_start "$TMP/pg" >/dev/null || { echo "bench: PostgreSQL did not start" >&2; exit 1; }
  echo "ebb-controller store bench ($(date -u +%FT%TZ)): one job of $ntasks tasks at $n nodes," \
    "policy $POLICY, best of $runs runs"
  for st in sqlite postgresql; do
    best=0
    for _ in $(seq "$runs"); do
      EBB_BENCH_STORE=
      if [ $st = postgresql ]; then
        psql_ -c 'DROP SCHEMA public CASCADE; CREATE SCHEMA public' >/dev/null 2>&1
        EBB_BENCH_STORE=$PG_URL
      fi
      start "$n" 1000
      p=$(place "$ntasks")
      stop
      [ "$p" -gt "$best" ] && best=$p
    done
    printf '%-12s %8s placements/s\n' "$st" "$best"
    eval "best_$st=$best"
  done
  echo "postgresql/sqlite: $(awk -v a="$best_postgresql" -v b="$best_sqlite" 'BEGIN { printf "%.0f%%", (b > 0 ? a * 100 / b : 0) }')"
}

if [ "$MODE" = store ]; then
  store_bench
  exit 0
fi

if [ "$MODE" = rss ]; then
  echo "ebb-controller RSS bench ($(date -u +%FT%TZ), heartbeats every 5 s)"
  rss "$BIG"
  exit 0
fi

echo "ebb-controller bench ($(date -u +%FT%TZ), heartbeats every 5 s, window ${WINDOW} s)"
base=$(run 1000)
big=$(run "$BIG")
printf '%-8s %12s %12s %14s %14s %10s %10s\n' nodes p50_ms p99_ms placements/s hb_cpu_% rss0_KiB rss1_KiB
for l in "$base" "$big"; do printf '%-8s %12s %12s %14s %14s %10s %10s\n' $l; done
read -r _ bp50 bp99 bpps bcpu _ _ <<<"$base"
read -r _ gp50 gp99 gpps gcpu _ _ <<<"$big"
echo "ratios ${BIG}/1000 nodes: p99 $(awk -v a="$gp99" -v b="$bp99" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')," \
  "placements/s $(awk -v a="$gpps" -v b="$bpps" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')," \
  "heartbeat CPU $(awk -v a="$gcpu" -v b="$bcpu" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
flood "$BIG"
