#!/bin/sh
# Issue 21's steady stream on this host's cgroups: ebb-controller (policy ebb, its default
# share of long work) and 2 real agents of 1000 millicores, filled by 2 long CPU burners, then
# short jobs (1000 millicores, `sleep 1`) one every 3 s: EBB_CTL_TEST_STREAM of them (20 by
# default; 60 is the issue's full stream). Every short job must start, its start delay
# (submitted_at -> started_at, the API's times) p99 within the latency tests' bound
# (latency_bound: 200 ms on a quiet host). Each long task's CPU seconds (/proc schedstat)
# against the stream's wall time are printed, and must be >= 0.5 each and min/max >= 0.5; on a
# host shared with other work (latency_bound's rule) a burner's CPU time also depends on the
# other work, so there the >= 0.5 is checked on the time each long task was not suspended
# (the decision log's suspend and resume times), the CPU figures still printed and their
# min/max still checked. Under ebb's earlier suspension count (2 per task per 600 s), the
# fifth short job and every later one queued until a long task ended.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
N=${EBB_CTL_TEST_STREAM:-20}
GAP=3
QUIET_MS=${EBB_CTL_TEST_QUIET_MS:-200}
CTL_TICK=50ms start_controller --policy ebb --node-timeout 10s || { fail "controller did not start"; exit 1; }
for n in 1 2; do start_node $n --capacity-cpu-millis 1000; done
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 2' /v1/nodes || fail "nodes: $(cat "$TMP/body")"

BURN='{"argv":["sh","-c","while :; do :; done"],"cpu_millis":1000,"memory_bytes":67108864}'
capi POST /v1/jobs "$(job_body longjob long "$BURN" "$BURN")"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 2' "/v1/jobs/$LONG" && ok "2 long burners fill the 2 nodes" ||
  { fail "long: $(cat "$TMP/body")"; exit 1; }

# long_pid K: the pid of long task K, asked from its agent.
long_pid () {
  capi GET "/v1/jobs/$LONG"
  node=$(jq -r ".tasks[$1].node" "$TMP/body") aid=$(jq -r ".tasks[$1].agent_task_id" "$TMP/body")
  curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/$node.sock" \
    "http://a/v1/tasks/$aid" | jq -r .pid
}
cpu_ns () { cut -d' ' -f1 "/proc/$1/schedstat" 2>/dev/null || echo 0; }
now_ns () { date +%s%N; }
P0=$(long_pid 0) P1=$(long_pid 1)
case "$P0$P1" in '' | *[!0-9]*) fail "no pids for the long tasks ($P0, $P1)"; exit 1 ;; esac
T0=$(now_ns) C0=$(cpu_ns "$P0") C1=$(cpu_ns "$P1")
WALL0=$(jq -n 'now')

SHORT='{"argv":["sleep","1"],"cpu_millis":1000,"memory_bytes":67108864}'
: >"$TMP/lat"
i=0 started=0
while [ $i -lt "$N" ]; do
  t=$(now_ns)
  capi POST /v1/jobs "$(job_body short$i short "$SHORT")"
  SJ=$(jq -r .id "$TMP/body")
  if wait_for 10 '.tasks[0].started_at != null' "/v1/jobs/$SJ"; then
    started=$((started + 1))
    jq '(.tasks[0].started_at - .submitted_at) * 1000 | floor' "$TMP/body" >>"$TMP/lat"
  else
    echo "short $i did not start within 10 s: $(jq -c '{state, tasks: [.tasks[] | {state, reason}]}' "$TMP/body")"
  fi
  i=$((i + 1))
  # One every GAP seconds from the previous submission.
  left=$(( GAP * 1000000000 - ($(now_ns) - t) ))
  [ $left -gt 0 ] && sleep "$(awk -v l="$left" 'BEGIN { printf "%.3f", l / 1e9 }')"
done
T1=$(now_ns) D0=$(( $(cpu_ns "$P0") - C0 )) D1=$(( $(cpu_ns "$P1") - C1 ))
WALL1=$(jq -n 'now')

[ "$started" = "$N" ] && ok "every one of $N short jobs started" || fail "$started of $N short jobs started"
pct () { sort -n "$1" | awk -v q="$2" '{ a[NR] = $1 } END { i = int(NR * q + 0.999); if (i < 1) i = 1; print a[i] }'; }
if [ -s "$TMP/lat" ]; then
  p50=$(pct "$TMP/lat" 0.5) p99=$(pct "$TMP/lat" 0.99)
  echo "submit -> running over $started short jobs (API times): p50 ${p50} ms, p99 ${p99} ms"
  latency_bound "$QUIET_MS"
  [ "$p99" -le "$BOUND_MS" ] && ok "start delay p99 ${p99} ms <= $BOUND_MS ms ($BOUND_WHY)" ||
    fail "start delay p99 ${p99} ms > $BOUND_MS ms ($BOUND_WHY)"
fi

# CPU seconds against wall time, per long task.
wall=$((T1 - T0))
s0=$(awk -v c="$D0" -v w="$wall" 'BEGIN { printf "%.3f", c / w }')
s1=$(awk -v c="$D1" -v w="$wall" 'BEGIN { printf "%.3f", c / w }')
echo "long task 0: $(awk -v c="$D0" 'BEGIN { printf "%.1f", c / 1e9 }') CPU s over $(awk -v w="$wall" 'BEGIN { printf "%.1f", w / 1e9 }') s wall: $s0"
echo "long task 1: $(awk -v c="$D1" 'BEGIN { printf "%.1f", c / 1e9 }') CPU s over $(awk -v w="$wall" 'BEGIN { printf "%.1f", w / 1e9 }') s wall: $s1"
awk -v a="$s0" -v b="$s1" 'BEGIN { lo = a < b ? a : b; hi = a < b ? b : a; exit !(hi > 0 && lo / hi >= 0.5) }' &&
  ok "CPU time min/max >= 0.5 ($s0, $s1)" || fail "CPU time min/max < 0.5 ($s0, $s1)"

# The time each long task was not suspended over the stream, from the decision log.
capi GET "/v1/decisions?since=0"
held=$(jq -r --arg j "$LONG" --argjson t0 "$WALL0" --argjson t1 "$WALL1" '
  .decisions as $d | [0, 1] | map(. as $k
    | [$d[] | select(.task == "\($j)-\($k)" and (.action == "suspend" or .action == "resume"))
        | {a: .action, t: .time}] | sort_by(.t)
    | reduce .[] as $e ({since: null, lost: 0};
        if $e.a == "suspend" then (if .since == null then .since = $e.t else . end)
        else (if .since != null then .lost += ([$e.t, $t1] | min) - ([.since, $t0] | max) | .since = null else . end) end)
    | (if .since != null then .lost + $t1 - ([.since, $t0] | max) else .lost end)
    | 1 - . / ($t1 - $t0) | . * 1000 | round / 1000) | "\(.[0]) \(.[1])"' "$TMP/body")
# shellcheck disable=SC2086 # two words
set -- $held
ns=$(jq '[.decisions[] | select(.action == "suspend")] | length' "$TMP/body")
echo "long tasks not suspended over the stream (decision log): $1, $2 ($ns suspensions)"
latency_bound "$QUIET_MS"
if [ "$BOUND_MS" = "$QUIET_MS" ]; then
  awk -v a="$s0" -v b="$s1" 'BEGIN { exit !(a >= 0.5 && b >= 0.5) }' &&
    ok "each long task ran >= 0.5 of the wall time ($s0, $s1)" || fail "a long task ran < 0.5 of the wall time ($s0, $s1)"
else
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= 0.5 && b >= 0.5 && (a < b ? a / b : b / a) >= 0.5) }' &&
    ok "each long task held its CPU >= 0.5 of the time, min/max >= 0.5 ($1, $2; CPU time against wall time not checked: the host is shared, load $(cut -d' ' -f1 /proc/loadavg))" ||
    fail "long tasks held their CPU $1, $2 of the time"
fi
exit $FAILED
