#!/bin/sh
# Debian's Prometheus scrapes a real ebb-controller (https on loopback TCP, the bearer token,
# contrib/prometheus/ebb.yml) while one real agent of 2 CPUs runs a preemption: a long job of
# two CPU burners fills the node, a short job (sleep 1) suspends one of them and starts, the
# long task is resumed once it ends. Prometheus' HTTP API then holds each headline family of
# the controller with a value the run explains: the short job's start delay histogram
# (count >= 1, histogram_quantile accepted), the suspended-duration histogram (count >= 1),
# ebb_controller_job_decision_seconds as a histogram (it was a summary), the per-node
# capacity and allocation gauges (node="a1": 2000 millicores), the pending tasks and queued
# jobs by reason (a series per code), the process_* families. The controller is then restarted
# on the same state: its preemption counters (ebb_controller_task_suspends_total,
# _resumes_total) count from the store, not from zero.
# Also: a task's log through the controller (GET /v1/jobs/ID/tasks/K/logs) wants the token on
# TCP, as every API call.
# Budget: about 25 s (60 s limits on the waits).
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
. "${EBB_TOP_SRCDIR:-.}/tests/prometheus/lib.sh"
setup_cgroups
self_signed || { fail "openssl req"; exit 1; }
ctl_addr=127.0.0.1:$(free_port) || { fail "no free port for the controller"; exit 1; }
CTL_OPTS="--listen $ctl_addr --tls-cert $TMP/cert.pem --tls-key $TMP/key.pem --policy bigc
  --policy-opt mode=gp --policy-opt round-sec=1 --policy-opt resume-tries=1"
# shellcheck disable=SC2086 # the options are words
CTL_TICK=50ms start_controller $CTL_OPTS || { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node: $(cat "$TMP/body")"

port=$(free_port) || { fail "no free port for prometheus"; exit 1; }
{
  printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n'
  sed -e "s|/etc/prometheus/ebb-ca.pem|$TMP/cert.pem|; s|/etc/prometheus/ebb-token|$TOKEN_FILE|" \
    -e "s|controller.example:7480|$ctl_addr|" "$EBB_TOP_SRCDIR/contrib/prometheus/ebb.yml" |
    sed '/job_name: ebb-agent/,/job_name: ebb-controller/{/job_name: ebb-controller/!d}'
} >"$TMP/prometheus.yml"
prom_start "$port"
trap 'kill "$PROM_PID" 2>/dev/null; wait "$PROM_PID" 2>/dev/null; ctl_cleanup' EXIT
# until_query SECONDS PROMQL: waits until PROMQL has a sample.
until_query () {
  end=$(($(date +%s) + $1))
  until [ -n "$(query "$2" 2>/dev/null)" ]; do
    kill -0 "$PROM_PID" 2>/dev/null || { fail "prometheus exited: $(tail -5 "$TMP/prometheus.log")"; return 1; }
    [ "$(date +%s)" -lt "$end" ] || return 1
    sleep 0.5
  done
}

# The preemption: two long burners fill a1's 2 CPUs; a short job needs one of them.
capi POST /v1/jobs "$(job_body longjob long "$(gated_burner long1 20000)" "$(gated_burner long2 20000)")"
LONG=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 2' "/v1/jobs/$LONG" || fail "long: $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body short1 short '{"argv":["sleep","1"],"cpu_millis":990,"memory_bytes":67108864}')"
SJ=$(jq -r .id "$TMP/body")
wait_for 10 '.state == "done"' "/v1/jobs/$SJ" && ok "the short job ran to its end" || fail "short: $(cat "$TMP/body")"
wait_for 15 '.task_states.running == 2' "/v1/jobs/$LONG" && ok "the long task was resumed" ||
  fail "long after the short job: $(cat "$TMP/body")"

until_query 60 'ebb_controller_task_suspended_seconds_count{job="ebb-controller"} >= 1' ||
  fail "no scrape with a suspension observed ($(cat "$TMP/q.json"))"
for h in short_job_start_delay_seconds task_suspended_seconds job_decision_seconds; do
  v=$(query "ebb_controller_${h}_count{job=\"ebb-controller\"}")
  [ -n "$v" ] && [ "$v" -ge 1 ] && ok "ebb_controller_${h}_count = $v" || fail "ebb_controller_${h}_count: '$v'"
  v=$(query "ebb_controller_${h}_bucket{job=\"ebb-controller\",le=\"+Inf\"}")
  [ -n "$v" ] && [ "$v" -ge 1 ] && ok "ebb_controller_${h}_bucket{le=\"+Inf\"} = $v" || fail "${h} +Inf bucket: '$v'"
  query "histogram_quantile(0.9, ebb_controller_${h}_bucket{job=\"ebb-controller\"})" >/dev/null
  [ "$(jq -r .status "$TMP/q.json")" = success ] && ok "histogram_quantile over ebb_controller_${h}_bucket" ||
    fail "histogram_quantile ${h}: $(cat "$TMP/q.json")"
done
v=$(query 'ebb_controller_short_job_start_delay_seconds_sum{job="ebb-controller"}')
awk -v v="$v" 'BEGIN { exit !(v > 0 && v < 10) }' && ok "start delay sum $v s" || fail "start delay sum '$v'"
# Suspended for the short job's 1 s of sleep, give or take the agent's steps and a round.
v=$(query 'ebb_controller_task_suspended_seconds_sum{job="ebb-controller"}')
awk -v v="$v" 'BEGIN { exit !(v >= 0.5 && v < 15) }' && ok "suspended sum $v s" || fail "suspended sum '$v'"
for g in "node_capacity_cpu_millis 2000" "node_allocated_cpu_millis 1" "node_capacity_memory_bytes 1" \
  "node_allocated_memory_bytes 1" "node_tasks 2"; do
  set -- $g
  v=$(query "ebb_controller_$1{job=\"ebb-controller\",node=\"a1\"}")
  [ -n "$v" ] && [ "$v" -ge "$2" ] && ok "ebb_controller_$1{node=\"a1\"} = $v" || fail "ebb_controller_$1{node=\"a1\"}: '$v'"
done
# Waiting work by reason: a series per reason code, 0 once the run has nothing waiting.
for fam in tasks_pending jobs_queued; do
  v=$(query "ebb_controller_$fam{job=\"ebb-controller\",reason=\"no_room\"}")
  n=$(query "count(ebb_controller_$fam{job=\"ebb-controller\"})")
  [ -n "$v" ] && [ "$n" = 7 ] && ok "ebb_controller_$fam: $n reasons, no_room = $v" ||
    fail "ebb_controller_$fam: '$v', $n reasons"
done
for fam in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes \
  process_open_fds process_max_fds process_start_time_seconds; do
  v=$(query "$fam{job=\"ebb-controller\"}")
  [ -n "$v" ] && awk -v v="$v" 'BEGIN { exit !(v > 0) }' && ok "$fam{job=\"ebb-controller\"} = $v" ||
    fail "$fam of the controller: '$v'"
done
sus=$(query 'ebb_controller_task_suspends_total{job="ebb-controller"}')
res=$(query 'ebb_controller_task_resumes_total{job="ebb-controller"}')
[ -n "$sus" ] && [ "$sus" -ge 1 ] && [ -n "$res" ] && [ "$res" -ge 1 ] &&
  ok "preemptions before the restart: $sus suspends, $res resumes" || fail "suspends '$sus', resumes '$res'"

# A task's log through the controller wants the token on TCP, as every API call.
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$TMP/cert.pem" "https://$ctl_addr/v1/jobs/$LONG/tasks/0/logs?tail=1")
[ "$code" = 401 ] && ok "GET /v1/jobs/$LONG/tasks/0/logs without the token: 401" || fail "logs without the token: HTTP $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$TMP/cert.pem" -H "Authorization: Bearer $(cat "$TOKEN_FILE")" \
  "https://$ctl_addr/v1/jobs/$LONG/tasks/0/logs?tail=1")
[ "$code" = 200 ] && ok "with the token: 200" || fail "logs with the token: HTTP $code"

# The restart: the counters come back from the decision log.
kill -TERM "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
# shellcheck disable=SC2086 # the options are words
CTL_TICK=50ms start_controller $CTL_OPTS || { fail "controller did not start again"; exit 1; }
curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --cacert "$TMP/cert.pem" "https://$ctl_addr/metrics" >"$TMP/metrics"
for f in "task_suspends_total $sus" "task_resumes_total $res"; do
  set -- $f
  v=$(awk -v n="ebb_controller_$1" '$1 == n { print $2 }' "$TMP/metrics")
  [ -n "$v" ] && [ "$v" -ge "$2" ] && ok "after the restart ebb_controller_$1 = $v (was $2)" ||
    fail "after the restart ebb_controller_$1 = '$v', was $2"
done
touch "$OUT/release"
exit $FAILED
