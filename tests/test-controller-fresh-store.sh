#!/bin/sh
# Issue 20, request ids unique across stores: a controller restarted on a wiped SQLite store
# (its state dir's epoch file kept, so its epoch rises) numbers jobs from 1 again, while the
# agent it drives kept its idempotency table. The new job 1's launch must carry a request id
# of its own (the leader's epoch is in it): reused, the agent would answer it with the first
# job's reply (or refuse it as request_id_reused) and the new task would never run.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
start_controller || { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "nodes: $(cat "$TMP/body")"

# mark WORD: a job whose one task appends WORD to $OUT/mark.
mark () {
  printf '{"name":"%s","request_id":"%s","tasks":[{"argv":["sh","-c","umask 0; echo %s >> %s/mark"],"cpu_millis":100,"memory_bytes":16777216}]}' \
    "$1" "$1" "$1" "$OUT"
}
agent_tasks () {
  curl -s -H "Authorization: Bearer $(cat "$TOKEN_FILE")" --unix-socket "$TMP/a1.sock" http://a/v1/tasks |
    jq -r '[.tasks[].id] | join(" ")'
}

capi POST /v1/jobs "$(mark first)"
[ "$(jq -r .id "$TMP/body")" = 1 ] || fail "the first job is not job 1: $(cat "$TMP/body")"
wait_for 15 '.state == "done"' /v1/jobs/1 && ok "job 1 ran" || fail "job 1: $(cat "$TMP/body")"
# The agent forgets the ended task (the controller's DELETE), keeping its request ids.
w=0
while [ -n "$(agent_tasks)" ] && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
[ -z "$(agent_tasks)" ] || fail "the agent still holds $(agent_tasks)"
epoch1=$(cat "$CSTATE/epoch")

kill -TERM "$CTL_PID"
w=0
while kill -0 "$CTL_PID" 2>/dev/null && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
rm -f "$CSTATE"/controller.db "$CSTATE"/controller.db-wal "$CSTATE"/controller.db-shm
start_controller || { fail "controller did not restart"; exit 1; }
epoch2=$(cat "$CSTATE/epoch")
[ "$epoch2" -gt "$epoch1" ] && ok "the epoch rose from $epoch1 to $epoch2 with the store wiped" ||
  fail "epoch $epoch1 then $epoch2"
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "nodes: $(cat "$TMP/body")"
capi POST /v1/jobs "$(mark second)"
[ "$(jq -r .id "$TMP/body")" = 1 ] || fail "the fresh store's first job is not job 1: $(cat "$TMP/body")"
wait_for 15 '.state == "done" or .state == "failed"' /v1/jobs/1 || fail "job 1 again: $(cat "$TMP/body")"
[ "$(jq -r .state "$TMP/body")" = done ] && ok "the fresh store's job 1 is done" ||
  fail "the fresh store's job 1: $(cat "$TMP/body")"
w=0
while ! grep -q second "$OUT/mark" 2>/dev/null && [ $w -lt 50 ]; do sleep 0.1; w=$((w + 1)); done
[ "$(cat "$OUT/mark" 2>/dev/null | tr '\n' ' ')" = "first second " ] &&
  ok "the fresh store's job 1 really ran" || fail "marks: $(cat "$OUT/mark" 2>/dev/null)"
exit $FAILED
