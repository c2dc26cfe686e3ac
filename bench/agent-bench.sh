#!/bin/sh
# ebb-agent benchmarks (make bench-agent; root, real cgroups, loopback only):
#   1. wrk on /v1/health and on /v1/tasks with 200 tasks: req/s and p99 latency, each also
#      as a ratio against /metrics measured in the same run (same server, same loop);
#   2. agent RSS and CPU while idle with 200 tasks, sampled over BENCH_AGENT_IDLE_SEC
#      (default 60 s; the target is stated for 10 minutes: set 600);
#      load average shown, since the machine may be shared;
#   3. suspend -> limits applied, p50/p99 from the agent's own histogram, over 200 immediate
#      suspensions (and the resumes).
# Prints absolute numbers and ratios; the agent's targets are shown next to them.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
command -v wrk >/dev/null || skip "needs wrk"
IDLE_SEC=${BENCH_AGENT_IDLE_SEC:-60}
DUR=${BENCH_AGENT_WRK_SEC:-10}
N=${BENCH_AGENT_TASKS:-200}
setup_cgroups
# TCP needs a token (loopback included); the requests below carry it.
TOKEN=bench-token-0123456789abcdef
printf '%s\n' "$TOKEN" >"$TMP/token"; chmod 600 "$TMP/token"
AUTH="Authorization: Bearer $TOKEN" API_AUTH="Authorization: Bearer $TOKEN"
"$AGENT_BIN" --listen 127.0.0.1:0 --listen "unix:$SOCK" --state-dir "$STATE" \
  --cgroup-parent "$CGP" --stats-interval 5s --token-file "$TMP/token" >>"$LOG" 2>&1 &
AGENT_PID=$!
i=0; while [ ! -s "$STATE/listen" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
URL=$(grep '^http://' "$STATE/listen" | head -1)
[ -n "$URL" ] || { FAILED=1; fail "agent did not start"; exit 1; }
echo "agent $(basename "$AGENT_BIN") at $URL, $N tasks, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

i=1
while [ $i -le "$N" ]; do
  api POST /v1/tasks "$(launch_body "b$i" '["sleep","100000"]' 10 16777216)"
  [ "$STATUS" = 201 ] || { fail "launch b$i: $STATUS $(body)"; exit 1; }
  i=$((i + 1))
done

# wrk_run PATH: sets RPS and P99_MS.
wrk_run () {
  wrk -t2 -c32 -d"${DUR}s" --latency -H "$AUTH" "$URL$1" >"$TMP/wrk" 2>&1
  RPS=$(awk '/^Requests\/sec:/ { print $2 }' "$TMP/wrk")
  P99_MS=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 }
                 else if (v ~ /ms$/) sub(/ms/, "", v); else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }
                 print v }' "$TMP/wrk")
  errs=$(awk '/Non-2xx|Socket errors/' "$TMP/wrk")
  [ -z "$errs" ] || echo "  wrk $1: $errs"
}
wrk_run /metrics; M_RPS=$RPS M_P99=$P99_MS
wrk_run /v1/health; H_RPS=$RPS H_P99=$P99_MS
wrk_run /v1/tasks; T_RPS=$RPS T_P99=$P99_MS
echo "wrk -t2 -c32 -d${DUR}s (loopback):"
printf '  /v1/health  %10.0f req/s  p99 %7.2f ms   (target >= 10000 req/s, p99 <= 10 ms)\n' "$H_RPS" "$H_P99"
printf '  /v1/tasks   %10.0f req/s  p99 %7.2f ms   (%d tasks, %.0f KiB per response)\n' "$T_RPS" "$T_P99" "$N" \
  "$(curl -s -H "$AUTH" "$URL/v1/tasks" | wc -c | awk '{ print $1 / 1024 }')"
printf '  /metrics    %10.0f req/s  p99 %7.2f ms   (baseline in the same run)\n' "$M_RPS" "$M_P99"
# Latency without saturating the loop: 4 connections, one wrk thread.
wrk -t1 -c4 -d"${DUR}s" --latency -H "$AUTH" "$URL/v1/health" >"$TMP/wrk" 2>&1
L_RPS=$(awk '/^Requests\/sec:/ { print $2 }' "$TMP/wrk")
L_P99=$(awk '$1 == "99%" { print $2 }' "$TMP/wrk")
printf '  /v1/health at 4 connections: %.0f req/s, p99 %s\n' "$L_RPS" "$L_P99"
awk -v h="$H_RPS" -v t="$T_RPS" -v m="$M_RPS" 'BEGIN {
  printf "  ratios: health/metrics %.2f, tasks/metrics %.3f, tasks/health %.3f\n", h / m, t / m, t / h }'

# Idle: RSS and CPU over IDLE_SEC with N tasks, nothing asked of the agent.
t0=$(cpu_ticks "$AGENT_PID"); rss_max=0; s=0
while [ $s -lt "$IDLE_SEC" ]; do
  r=$(awk '/^VmRSS:/ { print $2 }' "/proc/$AGENT_PID/status")
  [ "$r" -gt "$rss_max" ] && rss_max=$r
  sleep 1; s=$((s + 1))
done
t1=$(cpu_ticks "$AGENT_PID")
rss_now=$(awk '/^VmRSS:/ { print $2 }' "/proc/$AGENT_PID/status")
awk -v a="$t0" -v b="$t1" -v hz="$HZ" -v s="$IDLE_SEC" -v r="$rss_now" -v rm="$rss_max" -v n="$N" 'BEGIN {
  printf "idle %d s with %d tasks: RSS %.1f MiB (max %.1f; target <= 16 MiB after 10 min), CPU %.3f%% of one CPU (target <= 0.5%%)\n",
    s, n, r / 1024, rm / 1024, (b - a) * 100 / (hz * s) }'

# Suspend/resume latency from the agent's histograms.
i=1
while [ $i -le "$N" ]; do api POST "/v1/tasks/b$i/suspend" '{"mode":"immediate"}'; i=$((i + 1)); done
i=1
while [ $i -le "$N" ]; do api POST "/v1/tasks/b$i/resume"; i=$((i + 1)); done
curl -s -H "$AUTH" "$URL/metrics" >"$TMP/metrics"
quant () { # quant HISTOGRAM Q: the upper bound of the bucket holding quantile Q
  awk -v name="$1_bucket" -v q="$2" '
    index($0, name "{") == 1 { split($0, a, "\""); le[n] = a[2]; c[n] = $NF; n++ }
    END { total = c[n - 1]; for (i = 0; i < n; i++) if (c[i] >= q * total) { print le[i]; exit } }' "$TMP/metrics"
}
cnt=$(awk '/^ebb_agent_suspend_duration_seconds_count/ { print $2 }' "$TMP/metrics")
sum=$(awk '/^ebb_agent_suspend_duration_seconds_sum/ { print $2 }' "$TMP/metrics")
echo "suspend (request received -> limits applied), $cnt suspensions: p50 <= $(quant ebb_agent_suspend_duration_seconds 0.5) s, p99 <= $(quant ebb_agent_suspend_duration_seconds 0.99) s, mean $(awk -v s="$sum" -v c="$cnt" 'BEGIN { printf "%.4f", s / c }') s"
echo "resume: p50 <= $(quant ebb_agent_resume_duration_seconds 0.5) s, p99 <= $(quant ebb_agent_resume_duration_seconds 0.99) s"
stop_agent TERM
exit $FAILED
