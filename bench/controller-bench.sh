#!/bin/bash
# make bench-controller: ebb-controller (policy fifo, a sanitizer-free build gives the real
# figures; a sanitizer build is several times slower) driven by the fleet emulator
# (tests/controller/fleet: N virtual agents in one process, heartbeats every 5 s).
# For N = 1,000 (the baseline of this run) and N = EBB_BENCH_NODES (default 10,000):
#   decision latency: job arrival -> its launches handed to curl multi, p50/p99 over 200
#     single-task jobs (the controller's ebb_controller_job_decision_seconds summary);
#   placements/s: one job of min(N, 5000) tasks on the idle fleet, submit -> all running;
#   heartbeat CPU: the controller's CPU share while only heartbeats arrive (20 s);
#   RSS at the start and the end of the heartbeat window.
# Prints the absolute figures and the ratio against the 1,000-node baseline.
set -u
B=${EBB_TOP_BUILDDIR:-.}
BIG=${EBB_BENCH_NODES:-10000}
WINDOW=${EBB_BENCH_WINDOW:-20}
HZ=$(getconf CLK_TCK)
TMP=$(mktemp -d /tmp/ebb-ctl-bench.XXXXXX)
CTL= FLEET=
trap 'kill $CTL $FLEET 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/token"; chmod 600 "$TMP/token"
TOKEN=$(cat "$TMP/token")

api () { curl -s -H "Authorization: Bearer $TOKEN" "$@"; }
ticks () { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
rss_kib () { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

# run N: prints "N p50_ms p99_ms placements_per_s hb_cpu_pct rss0_kib rss1_kib"
run () {
  local n=$1 port
  rm -rf "$TMP/state"
  "$B/ebb-controller" --listen 127.0.0.1:0 --listen "unix:$TMP/c.sock" --state-dir "$TMP/state" \
    --token-file "$TMP/token" --policy fifo --node-timeout 60s >"$TMP/ctl.log" 2>&1 &
  CTL=$!
  for _ in $(seq 100); do grep -q 'token required' "$TMP/ctl.log" && break; sleep 0.1; done
  port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$TMP/ctl.log" | head -1)
  URL=http://127.0.0.1:$port
  "$B/tests/controller/fleet" "$URL" "$n" "$TMP/token" 5 1000 >"$TMP/fleet.out" 2>"$TMP/fleet.err" &
  FLEET=$!
  for _ in $(seq 300); do
    r=$(api "$URL/v1/cluster" | jq -r .nodes.ready 2>/dev/null)
    [ "${r:-0}" -ge "$n" ] && break
    sleep 0.2
  done
  # Heartbeats only: CPU and RSS.
  local r0 t0 t1 r1
  r0=$(rss_kib $CTL); t0=$(ticks $CTL); sleep "$WINDOW"; t1=$(ticks $CTL); r1=$(rss_kib $CTL)
  local cpu=$(( (t1 - t0) * 100 / (WINDOW * HZ) ))
  # Placements: one big job on the idle fleet.
  local k=$(( n < 5000 ? n : 5000 ))
  jq -cn --argjson k "$k" '{name:"big",class:"long",tasks:[range($k) | {argv:["sleep","30"],cpu_millis:1000,memory_bytes:67108864}]}' >"$TMP/big.json"
  local s0 s1 id
  s0=$(date +%s%N)
  id=$(api -X POST --data-binary @"$TMP/big.json" "$URL/v1/jobs" | jq -r .id)
  while :; do
    [ "$(api "$URL/v1/cluster" | jq -r .running_tasks)" -ge "$k" ] && break
    [ $(( ($(date +%s%N) - s0) / 1000000000 )) -gt 120 ] && break
    sleep 0.05
  done
  s1=$(date +%s%N)
  local pps=$(( k * 1000000000 / (s1 - s0) ))
  api -X DELETE "$URL/v1/jobs/$id" >/dev/null
  sleep 2
  # Decision latency: 200 one-task jobs, one at a time.
  for i in $(seq 200); do
    api -X POST --data-binary '{"tasks":[{"argv":["sleep","0.2"],"cpu_millis":1000,"memory_bytes":67108864}]}' "$URL/v1/jobs" >/dev/null
  done
  local m p50 p99
  m=$(api "$URL/metrics")
  p50=$(echo "$m" | awk -F' ' '/job_decision_seconds\{quantile="0.5"\}/ { printf "%.3f", $2 * 1000 }')
  p99=$(echo "$m" | awk -F' ' '/job_decision_seconds\{quantile="0.99"\}/ { printf "%.3f", $2 * 1000 }')
  kill $FLEET; wait $FLEET 2>/dev/null; kill $CTL; wait $CTL 2>/dev/null; CTL= FLEET=
  echo "$n $p50 $p99 $pps $cpu $r0 $r1"
}

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
