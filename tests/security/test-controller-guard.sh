#!/bin/sh
# Issue 24's controller points and issue 22's audit trail, against the real ebb-controller
# (no agent: the jobs stay queued): a request_id reused with another body is refused with 409
# request_id_reused while a retry of the same body (white space aside) gets the first answer;
# past --max-queued-tasks (3 here) a submission is refused with 429 queue_full, and fits again
# once tasks have ended;
# at the default verbosity, submit, kill, drain and undrain leave one audit line each with the
# caller (the peer's uid on the unix socket, "token" on TCP), and a node lost says why (the age
# of its last heartbeat and the timeout); restarted with --retain 1s, finished jobs and old
# decisions leave the store. Time budget: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
# Port 0: the kernel picks a free one, which the controller logs (a random pick could be
# taken, e.g. by an outgoing connection's ephemeral port).
CTL_VERBOSE='' start_controller --policy fifo --node-timeout 1s --listen "127.0.0.1:0" \
  --max-queued-tasks 3 ||
  { fail "controller did not start"; exit 1; }
PORT=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$CLOG" | tail -1)
[ -n "$PORT" ] || { fail "no TCP port in the controller log"; exit 1; }
ME=$(id -u)

T1=$(burner_task g1 1000)
capi POST /v1/jobs "$(job_body reuse long "$T1")"
[ "$STATUS" = 201 ] && cp "$TMP/body" "$TMP/first" && ok "a job with request_id reuse -> 201" ||
  fail "submit: $STATUS $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body reuse long "$T1" | sed 's/,/, /g')"
[ "$STATUS" = 201 ] && cmp -s "$TMP/body" "$TMP/first" &&
  ok "the same body again (other white space) gets the first answer" ||
  fail "retry: $STATUS $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body reuse long "$T1" "$(burner_task g2 1000)")"
[ "$STATUS" = 409 ] && jq -e '.error == "request_id_reused"' "$TMP/body" >/dev/null &&
  ok "another body under the same request_id -> 409 request_id_reused" ||
  fail "reuse: $STATUS $(cat "$TMP/body")"
capi GET /v1/jobs
jq -e '[.jobs[] | select(.request_id == "reuse")] | length == 1' "$TMP/body" >/dev/null &&
  ok "one job of that request_id" || fail "jobs: $(cat "$TMP/body")"

# The cap on queued work: 1 task queued, 3 more would pass 3, 2 more fit.
capi POST /v1/jobs "$(job_body big long "$T1" "$T1" "$T1")"
[ "$STATUS" = 429 ] && jq -e '.error == "queue_full" and (.detail | test("max-queued-tasks 3"))' \
  "$TMP/body" >/dev/null && ok "a job past the cap -> 429 queue_full, saying the setting" ||
  fail "cap: $STATUS $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body two long "$T1" "$T1")"
[ "$STATUS" = 201 ] && TWO=$(jq -r .id "$TMP/body") && ok "a job up to the cap -> 201" ||
  fail "under the cap: $STATUS $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body reuse long "$T1")"
[ "$STATUS" = 201 ] && cmp -s "$TMP/body" "$TMP/first" && ok "a retry at the cap still gets the first answer" ||
  fail "retry at the cap: $STATUS $(cat "$TMP/body")"
capi DELETE "/v1/jobs/$TWO"
capi POST /v1/jobs "$(job_body one long "$T1")"
[ "$STATUS" = 201 ] && ok "once the kill ended 2 tasks, a job fits again" ||
  fail "after kill: $STATUS $(cat "$TMP/body")"

# The audit trail. A node from a heartbeat sent by curl, as an agent sends it.
hb='{"seq":1,"url":"unix:/nonexistent/agent.sock","reason":"periodic","node":{"capacity":{"cpu_millis":1000,"memory_bytes":1073741824}},"tasks":[]}'
capi POST /v1/nodes/n1/heartbeat "$hb"
[ "$STATUS" = 200 ] || fail "heartbeat: $STATUS $(cat "$TMP/body")"
capi POST /v1/nodes/n1/drain '{}'
[ "$STATUS" = 200 ] || fail "drain: $STATUS $(cat "$TMP/body")"
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$TOKEN_FILE")" \
  -H 'Content-Type: application/json' --data-binary '{}' "http://127.0.0.1:$PORT/v1/nodes/n1/undrain")
[ "$STATUS" = 200 ] || fail "undrain over TCP: $STATUS $(cat "$TMP/body")"
capi DELETE /v1/jobs/1
[ "$STATUS" = 200 ] || fail "kill: $STATUS $(cat "$TMP/body")"
audit () { grep -c "audit: $1: $2" "$CLOG"; }
[ "$(audit "uid $ME" 'submit: job 1 (reuse), 1 tasks, class long')" = 1 ] &&
  ok "one audit line for the submission, with the caller's uid" || fail "no submit audit line"
[ "$(audit "uid $ME" 'drain: node n1')" = 1 ] && ok "drain audited with the uid" ||
  fail "no drain audit line"
[ "$(audit token 'undrain: node n1')" = 1 ] && ok "undrain over TCP audited as token" ||
  fail "no undrain audit line"
[ "$(audit "uid $ME" 'kill: job 1 (reuse)')" = 1 ] && ok "kill audited with the uid" ||
  fail "no kill audit line"

# n1 sends no more heartbeats: lost after 1 s, and the log says why.
for _ in $(seq 50); do grep -q "node n1 lost" "$CLOG" && break; sleep 0.1; done
grep -Eq 'node n1 lost: last heartbeat [0-9.]+ s ago, over --node-timeout 1\.0 s' "$CLOG" &&
  ok "a lost node is logged with its last heartbeat's age and the timeout" ||
  fail "node lost: $(grep 'n1 lost' "$CLOG")"

# Retention: the killed job 2 finished seconds ago; with --retain 1s it leaves the store (and,
# with --keep-finished 0, memory), and so do the decisions before the last second but the
# newest. A job killed now is there until its second has passed.
capi GET /v1/decisions
NDEC=$(jq '.decisions | length' "$TMP/body")
[ "$NDEC" -ge 2 ] || fail "only $NDEC decisions before the restart: $(cat "$TMP/body")"
kill -TERM "$CTL_PID"; wait "$CTL_PID"; CTL_PID=
CTL_VERBOSE='' start_controller --policy fifo --retain 1s --keep-finished 0 ||
  { fail "controller did not restart"; exit 1; }
capi POST /v1/jobs "$(job_body late long "$T1")"
LATE=$(jq -r .id "$TMP/body")
capi DELETE "/v1/jobs/$LATE"
capi GET "/v1/jobs/$LATE"
[ "$STATUS" = 200 ] && ok "a job just killed is kept" || fail "late job: $STATUS $(cat "$TMP/body")"
wait_404 () { for _ in $(seq 50); do capi GET "$1"; [ "$STATUS" = 404 ] && return 0; sleep 0.1; done; return 1; }
wait_404 "/v1/jobs/$TWO" && ok "a job finished before --retain left the store" ||
  fail "job $TWO still answered: $STATUS $(cat "$TMP/body")"
wait_404 "/v1/jobs/$LATE" && ok "and the one killed now, once --retain has passed" ||
  fail "job $LATE still answered: $STATUS $(cat "$TMP/body")"
capi GET "/v1/jobs?limit=100"
jq -e "[.jobs[].id] | index($TWO) == null and index($LATE) == null" "$TMP/body" >/dev/null &&
  ok "GET /v1/jobs lists neither" || fail "jobs: $(cat "$TMP/body")"
capi GET /metrics
grep -q '^ebb_controller_jobs_pruned_total 3$' "$TMP/body" &&
  ok "metrics: 3 jobs pruned (1, whose task ended with its lost node, $TWO and $LATE)" ||
  fail "metrics: $(grep pruned "$TMP/body")"
capi GET "/v1/decisions"
jq -e '.decisions | length == 1' "$TMP/body" >/dev/null &&
  ok "old decisions left the log ($NDEC before, $(jq '.decisions | length' "$TMP/body") left)" ||
  fail "decisions: $(jq -c '.decisions | length' "$TMP/body")"
[ "$FAILED" = 0 ] || { echo "--- controller log"; cat "$CLOG"; }
exit $FAILED
