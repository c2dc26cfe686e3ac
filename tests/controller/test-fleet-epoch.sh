#!/bin/sh
# The fleet emulator's epoch-checking nodes (tests/controller/fleet.c, issue 20): one
# controller (single mode: its epoch rises at every start) and a fleet of 200 virtual nodes
# over https. The first start fences every node; jobs are placed; the restarted controller
# fences every node again at a higher epoch; a call and a fence sent by hand with the old
# epoch are answered 409 stale_leader and counted by their epoch in the stats file
# (EBB_FLEET_STATS, written on SIGUSR1 and at exit), accepted_below_highest stays 0, and two
# live copies of one job-task on two nodes are counted in duplicate_live.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
. "${EBB_TOP_SRCDIR:-.}/tests/controller/fleet.sh"
N=200
trap '[ -n "$FLEET_PID" ] && kill -9 "$FLEET_PID" 2>/dev/null; ctl_cleanup' EXIT

# shellcheck disable=SC2034 # read by start_controller (tests/controller/lib.sh)
CTL_VERBOSE= # the default verbosity, not -v: a line per fence of 200 nodes is noise
start_controller --agent-ca "$TMP/cert.pem" --node-timeout 60s || { fail "controller start"; exit 1; }
fleet_start "unix:$CSOCK" $N

wait_for 30 ".nodes.ready == $N" /v1/cluster || fail "not every node ready: $(body)"
capi GET /v1/cluster
E1=$(field .leader.epoch)
wait_stats 20 ".fences == $N" || fail "the first start fenced $(st .fences) nodes of $N"
[ "$(st .epoch_min)" = "$E1" ] && [ "$(st .epoch_max)" = "$E1" ] ||
  fail "epochs $(st .epoch_min)..$(st .epoch_max), not the leader's $E1"

# Jobs placed: 100 tasks that run until deleted.
TASK='{"argv":["sleep","3600"],"cpu_millis":1000,"memory_bytes":67108864}'
for j in 1 2; do
  set --
  for _ in $(seq 50); do set -- "$@" "$TASK"; done
  capi POST /v1/jobs "$(job_body "fleet-$j" long "$@")"
  [ "$STATUS" = 201 ] || fail "submit $j: $STATUS $(body)"
  [ $j = 1 ] && JOB1=$(field .id)
done
wait_for 30 '[.jobs[] | select(.state == "running")] | length == 2' /v1/jobs ||
  fail "jobs not running: $(body)"
wait_stats 10 '.tasks_live == 100 and .launches == 100' ||
  fail "tasks: $(st .tasks_live) live of $(st .launches) launches"
[ "$(st .calls_accepted)" -ge 100 ] || fail "calls accepted: $(st .calls_accepted)"
[ "$FAILED" = 0 ] && ok "epoch $E1: $N nodes fenced, 100 tasks placed"

# The controller restarted: a higher epoch fences every node again.
kill "$CTL_PID"
wait "$CTL_PID" 2>/dev/null
CTL_PID=
start_controller --agent-ca "$TMP/cert.pem" --node-timeout 60s || { fail "controller restart"; exit 1; }
capi GET /v1/cluster
E2=$(field .leader.epoch)
[ "$E2" -gt "$E1" ] || fail "epoch after the restart: $E2, not above $E1"
wait_stats 20 ".fences == 2 * $N and .epoch_min == $E2" ||
  fail "after the restart: $(st .fences) fences, epochs $(st .epoch_min)..$(st .epoch_max)"
[ "$(st .epoch_max)" = "$E2" ] || fail "epoch_max $(st .epoch_max), not $E2"
[ "$FAILED" = 0 ] && ok "epoch $E2: every node fenced again"

# The deposed epoch by hand: a suspend and a fence, both refused.
capi GET "/v1/jobs/$JOB1"
TID=$(field '.tasks[0].agent_task_id')
NODE=$(field '.tasks[0].node')
node_call "$NODE/v1/tasks/$TID/suspend" "$E1" '{"mode":"immediate"}'
[ "$STATUS" = 409 ] && [ "$(field .error)" = stale_leader ] ||
  fail "a suspend at the old epoch $E1: $STATUS $(body)"
node_call "$NODE/v1/fence" "$E1" "{\"epoch\":$E1}"
[ "$STATUS" = 409 ] && [ "$(field .error)" = stale_leader ] ||
  fail "a fence at the old epoch $E1: $STATUS $(body)"
stats
[ "$(st .calls_refused_stale)" = 1 ] && [ "$(st .fences_refused)" = 1 ] &&
  [ "$(st ".refused_by_epoch[\"$E1\"]")" = 2 ] ||
  fail "refusals not counted: $(cat "$STATS")"
[ "$(st .accepted_below_highest)" = 0 ] || fail "accepted below the highest epoch: $(cat "$STATS")"
[ "$(st .tasks_live)" = 100 ] || fail "the refused suspend acted: $(st .tasks_live) live"
[ "$FAILED" = 0 ] && ok "calls of epoch $E1 refused and counted: $(st .refused_by_epoch)"

# Two live copies of one job-task (two generations on two nodes, launched without an epoch
# as an operator would) are counted once.
node_call n1/v1/tasks "" '{"id":"j900-t0-g1","argv":["sleep","3600"],"generation":1}'
[ "$STATUS" = 201 ] || fail "launch by hand on n1: $STATUS $(body)"
node_call n2/v1/tasks "" '{"id":"j900-t0-g2","argv":["sleep","3600"],"generation":2}'
[ "$STATUS" = 201 ] || fail "launch by hand on n2: $STATUS $(body)"
stats
if [ "$(st .duplicate_live)" = 1 ]; then ok "two live copies of j900-t0 counted"
else fail "duplicate_live $(st .duplicate_live), not 1"; fi

# At exit the fleet writes the file once more.
rm -f "$STATS"
kill "$FLEET_PID"
wait "$FLEET_PID"
rc=$?
FLEET_PID=
[ $rc = 0 ] || fail "the fleet exited $rc: $(tail -5 "$TMP/fleet.err")"
[ -s "$STATS" ] && [ "$(st .nodes)" = $N ] || fail "no stats file at exit"
[ "$(st .accepted_below_highest)" = 0 ] || fail "accepted below the highest epoch at exit"
exit $FAILED
