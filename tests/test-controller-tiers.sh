#!/bin/sh
# Priority tiers and the agent's task limits through the controller (issue 23), on one real
# agent of 2 CPUs with the ebb policy: a tier-1 long job suspends a tier-0 long task (the
# decision log names both tiers) and the tier-0 task resumes when it is done; a tier-0
# short job does not suspend tier-1 work (it waits); a policy without tiers refuses a
# non-zero priority; a job's time_limit_sec ends its task (end_reason "time limit"); its
# notify_signal reaches a task that traps it when it is suspended and resumed; the agents'
# suspended_seconds and suspensions per task and job; all kept over a restart. About 30 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
start_controller --policy ebb --policy-opt round-sec=1 --policy-opt resume-tries=1 ||
  { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node: $(cat "$TMP/body")"

# task CPU-MILLIS ARGV-JSON: a task body.
task () { printf '{"argv":%s,"cpu_millis":%s,"memory_bytes":67108864}' "$2" "$1"; }
SLEEP='["sleep","600"]'
# job NAME CLASS PRIORITY EXTRA TASK...: a POST /v1/jobs body with a priority and extra members.
job () {
  name=$1 cls=$2 prio=$3 extra=$4; shift 4
  printf '{"name":"%s","class":"%s","priority":%s%s,"tasks":[' "$name" "$cls" "$prio" "$extra"
  sep=
  for t in "$@"; do printf '%s%s' "$sep" "$t"; sep=,; done
  printf ']}'
}

capi POST /v1/jobs "$(job be long 0 "" "$(task 1000 "$SLEEP")" "$(task 1000 "$SLEEP")")"
BE=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 2' "/v1/jobs/$BE" && ok "tier 0: two long tasks fill the node" ||
  fail "tier 0: $(cat "$TMP/body")"

# 990 millicores: what a task holds above its 10-millicore footprint, so one victim is enough.
capi POST /v1/jobs "$(job prod long 1 "" "$(task 990 "$SLEEP")")"
PROD=$(jq -r .id "$TMP/body")
[ "$(jq .priority "$TMP/body")" = 1 ] || [ "$STATUS" = 201 ] || fail "submit prio 1: $STATUS $(cat "$TMP/body")"
wait_for 10 '.task_states.running == 1' "/v1/jobs/$PROD" && ok "tier 1 long job runs on the full node" ||
  fail "tier 1: $(cat "$TMP/body")"
capi GET "/v1/jobs/$PROD"
[ "$(jq .priority "$TMP/body")" = 1 ] && ok "the job shows priority 1" || fail "job: $(cat "$TMP/body")"
[ "$(jq -r .submitted_by "$TMP/body")" = "uid=$(id -u)" ] && ok "submitted_by: the peer's uid ($(jq -r .submitted_by "$TMP/body"))" ||
  fail "submitted_by: $(jq -c .submitted_by "$TMP/body")"
capi GET "/v1/jobs/$BE"
[ "$(jq .task_states.suspended "$TMP/body")" = 1 ] && ok "one tier-0 task suspended for it" ||
  fail "tier 0 after tier 1: $(jq -c .task_states "$TMP/body")"
capi GET "/v1/decisions?since=0"
jq -e --argjson j "$PROD" '[.decisions[] | select(.action == "suspend" and .for_job == $j
    and (.reason | test("tier 1 over tier 0")))] | length == 1' "$TMP/body" >/dev/null &&
  ok "the decision log names the tiers" ||
  fail "decisions: $(jq -c '[.decisions[] | select(.action == "suspend")]' "$TMP/body")"

# Tier 0 gone; tier 1 fills the node: a tier-0 short job waits rather than suspending it.
capi DELETE "/v1/jobs/$BE"
wait_for 10 '.state == "killed" or .state == "failed" or .state == "done"' "/v1/jobs/$BE" ||
  fail "tier 0 not ended: $(cat "$TMP/body")"
capi POST /v1/jobs "$(job prod2 long 1 "" "$(task 1000 "$SLEEP")")"
PROD2=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 1' "/v1/jobs/$PROD2" || fail "tier 1 again: $(cat "$TMP/body")"
capi POST /v1/jobs "$(job short short 0 "" "$(task 990 '["true"]')")"
SH=$(jq -r .id "$TMP/body")
sleep 3
capi GET "/v1/jobs/$SH"
[ "$(jq .task_states.pending "$TMP/body")" = 1 ] && ok "a tier-0 short job waits behind tier 1" ||
  fail "tier-0 short: $(jq -c .task_states "$TMP/body")"
capi GET "/v1/jobs/$PROD2"
[ "$(jq .task_states.running "$TMP/body")" = 1 ] && ok "tier 1 was not suspended for it" ||
  fail "tier 1 under a tier-0 short job: $(jq -c .task_states "$TMP/body")"
capi DELETE "/v1/jobs/$PROD2"
capi DELETE "/v1/jobs/$PROD"
wait_for 10 '.state == "done"' "/v1/jobs/$SH" && ok "the short job runs once tier 1 is gone" ||
  fail "short after tier 1: $(cat "$TMP/body")"

# A time limit ends the task (the agent's, after 2 s of running).
capi POST /v1/jobs "$(job limited long 0 ',"time_limit_sec":2' "$(task 500 "$SLEEP")")"
LIM=$(jq -r .id "$TMP/body")
[ "$STATUS" = 201 ] || fail "time limit submit: $STATUS $(cat "$TMP/body")"
wait_for 15 '.tasks[0].state == "exited" or .tasks[0].state == "failed" or .tasks[0].state == "killed"' "/v1/jobs/$LIM" &&
  ok "time_limit_sec 2 ended a sleep 600 ($(jq -c '.tasks[0] | {state, exit_status, end_reason}' "$TMP/body"))" ||
  fail "time limit: $(jq -c '.tasks[0]' "$TMP/body")"
[ "$(jq -r '.tasks[0].end_reason' "$TMP/body")" = "time limit" ] && ok "the task's end_reason says so" ||
  fail "end_reason: $(jq -c '.tasks[0]' "$TMP/body")"

# A signal no process can handle, or none at all, is refused at the submission.
for bad in '"SIGKILL"' '"SIGFOO"' '0' '[1]'; do
  capi POST /v1/jobs "$(job badsig long 0 ",\"notify_signal\":$bad" "$(task 100 "$SLEEP")")"
  [ "$STATUS" = 400 ] || fail "notify_signal $bad: $STATUS $(cat "$TMP/body")"
done
[ "$FAILED" = 0 ] && ok "notify_signal SIGKILL, SIGFOO, 0, [1] refused (400: $(jq -r .detail "$TMP/body"))"

# The notify signal: a task that traps SIGUSR1 counts it; a tier-1 job suspends it and ends.
TRAP='["sh","-c","trap \"echo usr1 >> '"$OUT"'/sig\" USR1; while :; do sleep 0.2; done"]'
capi POST /v1/jobs "$(job trapper long 0 ',"notify_signal":"SIGUSR1"' "$(task 1000 "$TRAP")" "$(task 1000 "$TRAP")")"
TR=$(jq -r .id "$TMP/body")
wait_for 10 '.task_states.running == 2' "/v1/jobs/$TR" || fail "trapper: $(cat "$TMP/body")"
capi POST /v1/jobs "$(job prod3 short 1 "" "$(task 1990 '["sleep","2"]')")"
P3=$(jq -r .id "$TMP/body")
wait_for 15 '.state == "done"' "/v1/jobs/$P3" || fail "tier-1 short: $(cat "$TMP/body")"
wait_for 10 '.task_states.running == 2' "/v1/jobs/$TR" || fail "trapper not resumed: $(jq -c .task_states "$TMP/body")"
# The agents' accounting: each task suspended once, for about the 2 s of the tier-1 job.
wait_for 5 '[.tasks[] | select(.suspensions == 1 and .suspended_seconds >= 1)] | length == 2' "/v1/jobs/$TR" &&
  ok "suspensions and suspended_seconds per task ($(jq -c '[.tasks[] | [.suspensions, .suspended_seconds]]' "$TMP/body")) and job ($(jq -c '[.suspensions, .suspended_seconds]' "$TMP/body"))" ||
  fail "accounting: $(jq -c '[.tasks[] | {suspensions, suspended_seconds}]' "$TMP/body")"
jq -e '.suspensions == 2 and .suspended_seconds >= 2' "$TMP/body" >/dev/null || fail "job sums: $(jq -c '[.suspensions, .suspended_seconds]' "$TMP/body")"
n=$(wc -l <"$OUT/sig" 2>/dev/null || echo 0)
# Both tasks are suspended for the 1990-millicore job, then resumed: 4 signals.
[ "$n" -ge 4 ] && ok "the notify signal reached the trapping tasks at their suspension and resumption ($n)" ||
  fail "notify signal: $n signals seen"
capi DELETE "/v1/jobs/$TR"

# Only the tier-0 tasks were ever suspended (a killed tier-1 job's task is not queued
# again to preempt the short job that took its room).
capi GET "/v1/decisions?since=0"
jq -e --arg sh "$SH-" --arg tr "$TR-" --arg be "$BE-" '[.decisions[] | select(.action == "suspend")
    | select((.task | startswith($tr) or startswith($be)) | not)] | length == 0' "$TMP/body" >/dev/null &&
  ok "only tier-0 long tasks were suspended" ||
  fail "suspensions: $(jq -c '[.decisions[] | select(.action == "suspend") | [.task, .for_job, .reason]]' "$TMP/body")"

# ebbctl history: the finished jobs, their final state, priority, submitter and suspended time.
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
"$EBBCTL" --controller "unix:$CSOCK" --token-file "$TOKEN_FILE" history >"$TMP/hist" 2>&1 ||
  fail "ebbctl history: $(cat "$TMP/hist")"
awk -v j="$PROD" -v u="uid=$(id -u)" '$1 == j && $3 == "killed" && $4 == 1 && $5 == u { f = 1 } END { exit !f }' "$TMP/hist" &&
  ok "ebbctl history lists the tier-1 job killed, priority 1, by $(id -u)" || fail "history: $(cat "$TMP/hist")"
"$EBBCTL" --controller "unix:$CSOCK" --token-file "$TOKEN_FILE" history --state failed --since 1h -o json >"$TMP/hist.json"
[ "$(jq -c '[.jobs[].id]' "$TMP/hist.json")" = "[$LIM]" ] && ok "history --state failed --since 1h: the time-limited job alone" ||
  fail "history --state failed: $(jq -c '[.jobs[] | [.id, .state]]' "$TMP/hist.json")"
"$EBBCTL" --controller "unix:$CSOCK" --token-file "$TOKEN_FILE" history --state killed >"$TMP/hist"
awk -v j="$TR" '$1 == j && $8 ~ /^[0-9.]+s$/ && $8 != "0s" && $9 == 2 { f = 1 } END { exit !f }' "$TMP/hist" &&
  ok "history shows the trapping job's suspended time and suspensions: $(awk -v j="$TR" '$1 == j' "$TMP/hist")" ||
  fail "history suspended: $(cat "$TMP/hist")"

# The store keeps them: after a restart, the priority, the end reason, the accounting.
kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null; CTL_PID=
start_controller --policy ebb --listen 127.0.0.1:0 || fail "restart"
# Over TCP the bearer token is the identity: submitted_by "token".
TCPURL=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$CLOG" | tail -1)
curl -s -o "$TMP/tcp.json" -H "Authorization: Bearer $(cat "$TOKEN_FILE")" -H 'Content-Type: application/json' \
  --data-binary "$(job overtcp long 0 "" "$(task 100 '["true"]')")" "$TCPURL/v1/jobs"
capi GET "/v1/jobs/$(jq -r .id "$TMP/tcp.json")"
[ "$(jq -r .submitted_by "$TMP/body")" = token ] && ok "a job submitted over TCP: submitted_by token" ||
  fail "over TCP ($TCPURL): $(cat "$TMP/tcp.json") $(jq -c .submitted_by "$TMP/body")"
capi GET "/v1/jobs/$PROD"
p=$(jq .priority "$TMP/body")
capi GET "/v1/jobs/$LIM"
r=$(jq -r '.tasks[0].end_reason' "$TMP/body")
capi GET "/v1/jobs/$TR"
w=$(jq -r .submitted_by "$TMP/body")
[ "$p" = 1 ] && [ "$r" = "time limit" ] && [ "$w" = "uid=$(id -u)" ] && jq -e '.suspended_seconds >= 2' "$TMP/body" >/dev/null &&
  ok "after a restart: priority $p, end_reason '$r', submitted_by '$w', $(jq .suspended_seconds "$TMP/body") s suspended" ||
  fail "after a restart: priority $p, end_reason $r, $(jq -c '[.suspensions, .suspended_seconds]' "$TMP/body")"

# A store made before these columns (the schema of the previous release, one job done):
# opened, the columns added at their defaults.
kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null; CTL_PID=
if command -v sqlite3 >/dev/null; then
  CSTATE="$TMP/ctl-state-old"
  mkdir -p "$CSTATE"
  # Times of now: a job that ended 7 days ago or more would leave the store (--retain).
  t0=$(date +%s)
  sqlite3 "$CSTATE/controller.db" "CREATE TABLE jobs (id INTEGER PRIMARY KEY, request_id TEXT,
    name TEXT, class INTEGER, est REAL, state INTEGER, submitted_at REAL, started_at REAL,
    finished_at REAL, answer TEXT, ntasks INTEGER);
    CREATE TABLE tasks (job INTEGER, idx INTEGER, spec TEXT, state INTEGER, node TEXT,
    generation INTEGER, exit_status INTEGER, has_exit INTEGER, suspensions INTEGER,
    started_at REAL, finished_at REAL, kill_wanted INTEGER, PRIMARY KEY (job, idx));
    INSERT INTO jobs VALUES (7, NULL, 'old', 2, 0, 2, $t0, $((t0 + 1)), $((t0 + 2)), '{}', 1);
    INSERT INTO tasks VALUES (7, 0, '{\"argv\":[\"true\"],\"cpu_millis\":100,\"memory_bytes\":0}',
      3, NULL, 1, 0, 1, 0, $((t0 + 1)), $((t0 + 2)), 0);"
  start_controller --policy ebb || fail "controller on an old store"
  capi GET /v1/jobs/7
  [ "$STATUS" = 200 ] && [ "$(jq -c '[.priority, .submitted_by, .tasks[0].suspended_seconds, .tasks[0].end_reason]' "$TMP/body")" = '[0,null,0,null]' ] &&
    ok "an older store opens, its job at priority 0" || fail "old store: $STATUS $(cat "$TMP/body") $(grep store "$CLOG" | tail -3)"
  kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null; CTL_PID=
else
  [ "${EBB_TEST_STRICT:-0}" = 1 ] && fail "no sqlite3 (scripts/install-deps.sh installs it)"
  echo "skip: no sqlite3 to make an older store"
fi

# bigc has tiers: it takes a non-zero priority. A policy without tiers refuses it (the
# controller says so).
CSTATE="$TMP/ctl-state-bigc"
start_controller --policy bigc || fail "bigc controller"
capi POST /v1/jobs "$(job p long 1 "" "$(task 100 "$SLEEP")")"
[ "$STATUS" = 201 ] && ok "bigc takes priority 1" || fail "bigc priority: $STATUS $(cat "$TMP/body")"
kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null; CTL_PID=
CSTATE="$TMP/ctl-state-hawk"
start_controller --policy hawk || fail "hawk controller"
capi POST /v1/jobs "$(job p long 1 "" "$(task 100 "$SLEEP")")"
[ "$STATUS" = 400 ] && jq -e '.detail | test("no priority tiers")' "$TMP/body" >/dev/null &&
  ok "hawk refuses priority 1: $(jq -r .detail "$TMP/body")" || fail "hawk priority: $STATUS $(cat "$TMP/body")"
exit $FAILED
