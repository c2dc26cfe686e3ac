#!/bin/sh
# ebb-controller with --store postgresql://... (PostgreSQL 15 as an unprivileged user in a
# temporary directory, tests/ha/pg.sh) and 2 real ebb-agents: a job runs to its end and its
# rows are in PostgreSQL; after kill -9 the controller restarts from PostgreSQL with the job
# kept and the leader epoch raised (each start fences the one before); kill -9 in the middle
# of a stream of submissions loses none that was answered 201; PostgreSQL stopped:
# a submission is refused with 503 and no task starts (a controller whose commit failed exits
# 75, as systemd would restart it); PostgreSQL back: submissions work again, and the refused
# one does not exist. Time budget: about 20 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
. "$EBB_TOP_SRCDIR/tests/ha/pg.sh"
[ -x "$PG_BIN/postgres" ] || skip "no PostgreSQL 15 in $PG_BIN (scripts/install-deps.sh)"
command -v psql >/dev/null || skip "needs psql (scripts/install-deps.sh)"
[ "$(id -u)" != 0 ] || id "$PG_USER" >/dev/null 2>&1 || skip "no user $PG_USER to run PostgreSQL as"
trap 'pg_stop KILL; ctl_cleanup' EXIT
setup_cgroups
pg_start "$TMP/pg" || { fail "PostgreSQL did not start"; exit 1; }
STORE=$PG_URL
ctl () { start_controller --policy fifo --node-timeout 5s --store "$STORE"; }
ctl || { fail "controller did not start on $PG_URL"; exit 1; }
start_node 1; start_node 2
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 2' /v1/nodes &&
  ok "2 agents registered" || fail "nodes: $(cat "$TMP/body")"
[ "$(psql_ -tA -c 'SELECT epoch FROM leader')" = 1 ] && ok "the first start claimed epoch 1" ||
  fail "epoch: $(psql_ -tA -c 'SELECT epoch FROM leader')"

ITER=100000
capi POST /v1/jobs "$(job_body first long "$(burner_task f1 $ITER)" "$(burner_task f2 $ITER)")"
[ "$STATUS" = 201 ] && JOB=$(jq -r .id "$TMP/body") && ok "POST /v1/jobs -> 201, id $JOB" ||
  fail "submit: $STATUS $(cat "$TMP/body")"
wait_for 30 '.state == "done"' "/v1/jobs/$JOB" && ok "job done" || fail "job: $(cat "$TMP/body")"
[ "$(cat "$OUT/f1" 2>/dev/null)" = $ITER ] && [ "$(cat "$OUT/f2" 2>/dev/null)" = $ITER ] &&
  ok "both tasks counted $ITER" || fail "counts: $(cat "$OUT/f1" "$OUT/f2" 2>&1)"
rows=$(psql_ -tA -c "SELECT (SELECT COUNT(*) FROM tasks WHERE job = $JOB),
  (SELECT COUNT(*) FROM decisions WHERE job = $JOB AND kind = 'launch')" | tr '|' ' ')
[ "$rows" = "2 2" ] && ok "its tasks and launches are rows of PostgreSQL" || fail "rows: $rows"

kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
ctl || fail "controller did not restart"
wait_for 10 '.state == "done" and .task_states.exited == 2' "/v1/jobs/$JOB" &&
  ok "after kill -9: the job kept in PostgreSQL" || fail "after restart: $(cat "$TMP/body")"
[ "$(psql_ -tA -c 'SELECT epoch FROM leader')" = 2 ] && ok "the restart claimed epoch 2" ||
  fail "epoch after restart: $(psql_ -tA -c 'SELECT epoch FROM leader')"

# A stream of submissions and kill -9 of the controller in its middle: every submission
# answered 201 was committed to PostgreSQL first, so the restarted controller has each.
stream () {
  i=0
  while [ $i -lt 60 ]; do
    i=$((i + 1))
    code=$(curl -s -o "$TMP/s.json" -w '%{http_code}' --unix-socket "$CSOCK" -X POST \
      -H 'Content-Type: application/json' \
      --data-binary "$(job_body "s$i" long '{"argv":["true"],"cpu_millis":100,"memory_bytes":16777216}')" \
      http://c/v1/jobs)
    [ "$code" = 201 ] && jq -r .id "$TMP/s.json" >>"$TMP/acked"
  done
}
: >"$TMP/acked"
stream & SPID=$!
k=0
while [ "$(wc -l <"$TMP/acked")" -lt 15 ] && [ $k -lt 200 ]; do sleep 0.05; k=$((k + 1)); done
kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
wait "$SPID"
acked=$(wc -l <"$TMP/acked")
ctl || fail "controller did not restart after the stream"
missing=0
for id in $(cat "$TMP/acked"); do capi GET "/v1/jobs/$id"; [ "$STATUS" = 200 ] || missing=$((missing + 1)); done
[ "$acked" -ge 15 ] && [ "$acked" -lt 60 ] && [ $missing = 0 ] &&
  ok "kill -9 in a stream of submissions: all $acked answered 201 are kept" ||
  fail "stream: $acked acknowledged, $missing missing after the restart"

# The outage. A task of 1 s runs when it starts, so the agents' next heartbeats must store its
# end (with nothing to store, a heartbeat needs no commit and nothing would fail). The agents
# are paused first (their heartbeats would end the controller, below): a submission alone is
# refused and changes nothing, and the controller stays.
capi POST /v1/jobs "$(job_body ender long '{"argv":["sleep","1"],"cpu_millis":100,"memory_bytes":16777216}')"
[ "$STATUS" = 201 ] && EJOB=$(jq -r .id "$TMP/body") || fail "submit ender: $STATUS $(cat "$TMP/body")"
wait_for 10 '.state == "running"' "/v1/jobs/${EJOB:-0}" || fail "ender did not run: $(cat "$TMP/body")"
for p in $AGENT_PIDS; do kill -STOP "$p"; done
pg_stop INT
capi POST /v1/jobs "$(job_body outage long "$(burner_task o1 $ITER)")"
[ "$STATUS" = 503 ] && [ "$(jq -r .error "$TMP/body")" = store_unavailable ] &&
  ok "PostgreSQL stopped: a submission -> 503 store_unavailable" || fail "outage submit: $STATUS $(cat "$TMP/body")"
kill -0 "$CTL_PID" 2>/dev/null && ok "the controller stays after a refused submission" ||
  fail "the controller ended after a refused submission"
# A heartbeat's transaction cannot commit: nothing of it is sent, the controller exits 75.
for p in $AGENT_PIDS; do kill -CONT "$p"; done
k=0
while kill -0 "$CTL_PID" 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
code=alive
kill -0 "$CTL_PID" 2>/dev/null || { wait "$CTL_PID"; code=$?; CTL_PID=; }
[ "$code" = 75 ] && ok "a commit failed during the outage: the controller exits 75" || fail "controller: $code"
[ ! -e "$OUT/o1.starts" ] && ok "no task started during the outage" || fail "a task started during the outage"
pg_run || fail "PostgreSQL did not start again"
[ -n "$CTL_PID" ] || ctl || fail "controller did not start after the outage"
capi POST /v1/jobs "$(job_body after long "$(burner_task a1 $ITER)")"
[ "$STATUS" = 201 ] && AJOB=$(jq -r .id "$TMP/body") && ok "PostgreSQL back: POST /v1/jobs -> 201" ||
  fail "submit after the outage: $STATUS $(cat "$TMP/body")"
wait_for 30 '.state == "done"' "/v1/jobs/${AJOB:-0}" && ok "the job after the outage ran" ||
  fail "after the outage: $(cat "$TMP/body")"
[ "$(psql_ -tA -c "SELECT COUNT(*) FROM jobs WHERE name = 'outage'")" = 0 ] && [ ! -e "$OUT/o1.starts" ] &&
  ok "the refused submission left nothing" || fail "the refused job exists"
exit $FAILED
