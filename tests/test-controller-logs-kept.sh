#!/bin/sh
# A finished task's output through the controller (issue 22): the agent keeps the logs of
# the tasks it forgot (the controller has it forget a task once it ended), the newest
# --keep-logs of them and --keep-logs-max bytes at most in all. Checked with one real agent
# (--keep-logs 2 --keep-logs-max 1M): a task that printed and exited, forgotten by its agent,
# still answers GET /v1/jobs/ID/tasks/K/logs (whole, ?tail=1, ?follow=1 which ends at once)
# and `ebbctl logs JOB-TASK`; after two more finished tasks the first one's log is gone (404,
# its file removed) and the two newest answer; a log bigger than --keep-logs-max is not kept
# and pushes out no other; an agent restarted on its state keeps serving the kept logs; a
# controller whose retention (--retain 1s) removes the jobs from its store has their agents
# remove their kept logs (DELETE /v1/tasks/ID/logs, 404 for a log not kept). Budget: about
# 20 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
start_controller || { fail "controller did not start"; exit 1; }
KEEP="--keep-logs 2 --keep-logs-max 1M"
# shellcheck disable=SC2086 # the options are words
start_node 1 $KEEP
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node: $(cat "$TMP/body")"
task () { printf '{"argv":["sh","-c","%s"],"cpu_millis":100,"memory_bytes":67108864}' "$1"; }
# agent_has AID: whether the agent still has task AID in its table.
agent_has () {
  [ "$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$TMP/a1.sock" \
    -H "Authorization: Bearer $(cat "$TOKEN_FILE")" "http://a/v1/tasks/$1")" = 200 ]
}
# finished NAME COMMAND: runs a job of one task to its end and until its agent forgot it;
# its id in $J, its agent task id in $AID.
finished () {
  capi POST /v1/jobs "$(job_body "$1" short "$(task "$2")")"
  J=$(jq -r .id "$TMP/body")
  wait_for 15 '.state == "done"' "/v1/jobs/$J" || fail "job $1 not done: $(cat "$TMP/body")"
  AID=$(jq -r '.tasks[0].agent_task_id' "$TMP/body")
  i=0
  while agent_has "$AID"; do
    [ $i -lt 100 ] || { fail "the agent did not forget $AID"; break; }
    sleep 0.1; i=$((i + 1))
  done
}

finished first 'echo first1; echo first2'
A=$J AID_A=$AID
capi GET "/v1/jobs/$A/tasks/0/logs"
[ "$STATUS" = 200 ] && [ "$(cat "$TMP/body")" = "$(printf 'first1\nfirst2')" ] &&
  ok "a finished task forgotten by its agent: its whole output" || fail "finished: $STATUS $(cat "$TMP/body")"
capi GET "/v1/jobs/$A/tasks/0/logs?tail=1"
[ "$STATUS" = 200 ] && [ "$(cat "$TMP/body")" = first2 ] && ok "?tail=1: first2" || fail "tail: $STATUS $(cat "$TMP/body")"
out=$(timeout 10 curl -sN --unix-socket "$CSOCK" "http://c/v1/jobs/$A/tasks/0/logs?follow=1")
[ "$out" = "$(printf 'first1\nfirst2')" ] && ok "?follow=1 of a finished task ends with its output" ||
  fail "follow: '$out'"
out=$(EBB_CONTROLLER="unix:$CSOCK" "$EBBCTL" logs "$A-0" 2>&1)
[ "$out" = "$(printf 'first1\nfirst2')" ] && ok "ebbctl logs $A-0 of the finished task" || fail "ebbctl logs: '$out'"

finished second 'echo second'
B=$J AID_B=$AID
finished third 'echo third'
C=$J AID_C=$AID
capi GET "/v1/jobs/$A/tasks/0/logs"
[ "$STATUS" = 404 ] && [ ! -e "$TMP/a1/logs/$AID_A.log" ] &&
  ok "beyond --keep-logs 2: the oldest log is gone (404, file removed)" || fail "oldest: $STATUS $(cat "$TMP/body")"
for x in "$B second" "$C third"; do
  set -- $x
  capi GET "/v1/jobs/$1/tasks/0/logs"
  [ "$STATUS" = 200 ] && [ "$(cat "$TMP/body")" = "$2" ] && ok "job $1's log kept: $2" ||
    fail "job $1: $STATUS $(cat "$TMP/body")"
done
[ "$(find "$TMP/a1/logs" -name '*.log' | wc -l)" = 2 ] && ok "2 logs on the node" ||
  fail "logs on the node: $(ls "$TMP/a1/logs")"

# 2 MiB of output: over --keep-logs-max (1M) alone; not kept, and the others stay.
finished big 'yes 0123456789abcdef | head -c 2097152'
capi GET "/v1/jobs/$J/tasks/0/logs"
[ "$STATUS" = 404 ] && [ ! -e "$TMP/a1/logs/$AID.log" ] && ok "a log over --keep-logs-max is not kept" ||
  fail "big: $STATUS $(head -c 200 "$TMP/body")"
capi GET "/v1/jobs/$B/tasks/0/logs"
[ "$STATUS" = 200 ] && ok "and it pushed no other out" || fail "after big: $STATUS $(cat "$TMP/body")"

# A restart of the agent on its state: the kept logs are found again.
kill "$AGENT_PID_1"; wait "$AGENT_PID_1" 2>/dev/null
# shellcheck disable=SC2086 # the options are words
start_node 1 $KEEP
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node after restart"
i=0
until capi GET "/v1/jobs/$C/tasks/0/logs" && [ "$STATUS" = 200 ]; do
  [ $i -lt 50 ] || break
  sleep 0.1; i=$((i + 1))
done
[ "$STATUS" = 200 ] && [ "$(cat "$TMP/body")" = third ] && ok "after the agent's restart: job $C's log" ||
  fail "after restart: $STATUS $(cat "$TMP/body")"

# The agent's DELETE of a kept log: 404 for one it does not keep (the big one).
code=$(curl -s -o "$TMP/del" -w '%{http_code}' -X DELETE --unix-socket "$TMP/a1.sock" \
  -H "Authorization: Bearer $(cat "$TOKEN_FILE")" "http://a/v1/tasks/$AID/logs")
[ "$code" = 404 ] && ok "DELETE of a log the agent does not keep: 404" || fail "DELETE big: $code $(cat "$TMP/del")"
# Retention: the jobs leave the controller's store, and their kept logs the agent.
kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
start_controller --retain 1s || { fail "controller did not start with --retain 1s"; exit 1; }
i=0
while [ -e "$TMP/a1/logs/$AID_B.log" ] || [ -e "$TMP/a1/logs/$AID_C.log" ]; do
  [ $i -lt 100 ] || break
  sleep 0.1; i=$((i + 1))
done
capi GET "/v1/jobs/$C"
[ "$STATUS" = 404 ] && [ ! -e "$TMP/a1/logs/$AID_B.log" ] && [ ! -e "$TMP/a1/logs/$AID_C.log" ] &&
  ok "retention removed jobs $B and $C from the store, their agent their kept logs" ||
  fail "after retention: job $C $STATUS, logs left: $(ls "$TMP/a1/logs")"
exit $FAILED
