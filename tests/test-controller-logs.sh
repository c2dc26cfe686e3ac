#!/bin/sh
# Logs through the controller: GET /v1/jobs/ID/tasks/K/logs streams a task's output from its
# real agent, and `ebbctl logs JOB[-TASK]` uses it by default. Checked: ?tail=N gives the last
# N lines of a running task's output; ?follow=1 delivers a printing task's lines while it runs (the
# first ones before the task ends) and the stream ends by itself when the task ends, with
# every line; ebbctl logs JOB-TASK --tail and -f do the same through the controller, and the
# agent form (--agent, the agent's task id) still works; a follower past --log-followers is
# refused (429) and the ended streams give their places back; a reader slower than the task
# wrote is cut off past 1 MiB behind, and told so; a task or job that does not
# exist is 404, a task not started on a node 409, a bad query 400; SIGTERM stops the
# controller at once with a follower of a quiet task, cleanly under the sanitizers. About 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
# Two followers at once, at most (the third is refused).
start_controller --log-followers 2 || { fail "controller did not start"; exit 1; }
start_node 1
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 1' /v1/nodes || fail "node: $(cat "$TMP/body")"
task () { printf '{"argv":["sh","-c","%s"],"cpu_millis":100,"memory_bytes":67108864}' "$1"; }

# A running task that printed 5 lines: its last lines. (A finished task's log, kept by its
# agent after it forgot the task: test-controller-logs-kept.sh.)
capi POST /v1/jobs "$(job_body five long "$(task 'for i in 1 2 3 4 5; do echo line$i; done; exec sleep 60')")"
A=$(jq -r .id "$TMP/body")
i=0
until capi GET "/v1/jobs/$A/tasks/0/logs" && [ "$STATUS" = 200 ] && [ "$(wc -l <"$TMP/body")" = 5 ]; do
  [ $i -lt 100 ] || { fail "job $A printed no 5 lines: $STATUS $(cat "$TMP/body")"; break; }
  sleep 0.1; i=$((i + 1))
done
capi GET "/v1/jobs/$A/tasks/0/logs?tail=2"
[ "$STATUS" = 200 ] && [ "$(cat "$TMP/body")" = "$(printf 'line4\nline5')" ] &&
  ok "?tail=2 of a running task: line4, line5" || fail "tail: $STATUS $(cat "$TMP/body")"
capi GET "/v1/jobs/$A/tasks/0/logs"
[ "$STATUS" = 200 ] && [ "$(wc -l <"$TMP/body")" = 5 ] && ok "the whole log: 5 lines" ||
  fail "whole log: $STATUS $(cat "$TMP/body")"
out=$(EBB_CONTROLLER="unix:$CSOCK" "$EBBCTL" logs "$A-0" --tail 1 2>&1)
[ "$out" = line5 ] && ok "ebbctl logs $A-0 --tail 1: line5" || fail "ebbctl logs --tail 1: '$out'"
out=$(EBB_CONTROLLER="unix:$CSOCK" "$EBBCTL" logs "$A" 2>&1 | wc -l)
[ "$out" = 5 ] && ok "ebbctl logs $A: 5 lines (task 0)" || fail "ebbctl logs $A: $out lines"
capi GET "/v1/jobs/$A"
aid=$(jq -r '.tasks[0].agent_task_id' "$TMP/body")
out=$("$EBBCTL" --agent "unix:$TMP/a1.sock" --token-file "$TOKEN_FILE" logs "$aid" --tail 1 2>&1)
[ "$out" = line5 ] && ok "the agent form still works (--agent, $aid)" || fail "ebbctl --agent logs: '$out'"

# Follow: a task printing a line every 0.3 s; the stream ends when it does.
capi POST /v1/jobs "$(job_body ticks long "$(task 'for i in 1 2 3 4 5 6 7 8; do echo tick$i; sleep 0.3; done')")"
B=$(jq -r .id "$TMP/body")
wait_for 10 '.tasks[0].state == "running"' "/v1/jobs/$B" || fail "job $B: $(cat "$TMP/body")"
curl -sN -m 30 --unix-socket "$CSOCK" "http://c/v1/jobs/$B/tasks/0/logs?follow=1" >"$TMP/follow" &
CURL_PID=$!
EBB_CONTROLLER="unix:$CSOCK" timeout 30 "$EBBCTL" logs "$B-0" -f >"$TMP/follow-cli" 2>&1 &
CLI_PID=$!
# Some lines arrive while the task still runs.
seen=
for i in $(seq 1 40); do
  if [ -s "$TMP/follow" ]; then
    capi GET "/v1/jobs/$B"
    [ "$(jq -r '.tasks[0].state' "$TMP/body")" = running ] && seen=$(wc -l <"$TMP/follow")
    break
  fi
  sleep 0.1
done
[ -n "$seen" ] && ok "follow: $seen line(s) arrived while the task ran" || fail "follow: nothing while the task ran"
# Both followers connected (ebbctl's has output too): a third is refused, 429.
i=0
until [ -s "$TMP/follow-cli" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
capi GET "/v1/jobs/$B/tasks/0/logs?follow=1"
[ "$STATUS" = 429 ] && ok "a third follower with --log-followers 2: 429" || fail "third follower: $STATUS $(cat "$TMP/body")"
wait "$CURL_PID"; rc=$?
[ "$rc" = 0 ] && ok "follow: the stream ended by itself when the task ended" || fail "follow: curl exit $rc"
[ "$(cat "$TMP/follow")" = "$(printf 'tick%s\n' 1 2 3 4 5 6 7 8)" ] && ok "follow: every line, in order" ||
  fail "follow got: $(cat "$TMP/follow")"
wait "$CLI_PID"; rc=$?
[ "$rc" = 0 ] && [ "$(cat "$TMP/follow-cli")" = "$(cat "$TMP/follow")" ] &&
  ok "ebbctl logs $B-0 -f: the same lines, exit 0" || fail "ebbctl logs -f: exit $rc: $(cat "$TMP/follow-cli")"

# The ended streams gave their places back: a follower is let through again (to the agent,
# which answers for a task that ended).
STATUS=$(curl -s -m 5 -o "$TMP/body" -w '%{http_code}' --unix-socket "$CSOCK" "http://c/v1/jobs/$B/tasks/0/logs?follow=1")
[ "$STATUS" = 200 ] || [ "$STATUS" = 404 ] && ok "after the streams ended, a follower is let through ($STATUS)" ||
  fail "follower after the end: $STATUS $(cat "$TMP/body")"

# A reader slower than the task wrote: the controller keeps at most 1 MiB of it, cuts the
# stream and says so at its end (the agent sends 8 MB as fast as it is taken).
capi POST /v1/jobs "$(job_body flood long "$(task 'yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 8000000; echo; exec sleep 60')")"
F=$(jq -r .id "$TMP/body")
wait_for 10 '.tasks[0].state == "running"' "/v1/jobs/$F" || fail "job $F: $(cat "$TMP/body")"
sleep 1
curl -s -m 30 --limit-rate 500k --unix-socket "$CSOCK" "http://c/v1/jobs/$F/tasks/0/logs" >"$TMP/flood"
got=$(wc -c <"$TMP/flood")
[ "$got" -lt 8000000 ] && tail -n 1 "$TMP/flood" | grep -q 'log stream cut' &&
  ok "a slow reader: cut after $got of 8000000 bytes, told so at the end" ||
  fail "slow reader: $got bytes, last line: $(tail -c 200 "$TMP/flood")"
capi DELETE "/v1/jobs/$F"

# Refusals.
capi GET "/v1/jobs/$A/tasks/7/logs"
[ "$STATUS" = 404 ] && ok "unknown task: 404" || fail "unknown task: $STATUS $(cat "$TMP/body")"
capi GET "/v1/jobs/99999/tasks/0/logs"
[ "$STATUS" = 404 ] && ok "unknown job: 404" || fail "unknown job: $STATUS $(cat "$TMP/body")"
capi GET "/v1/jobs/$A/tasks/0/logs?tail=x"
[ "$STATUS" = 400 ] && ok "bad tail: 400" || fail "bad tail: $STATUS"
capi GET "/v1/jobs/$A/tasks/0/logs?lines=3"
[ "$STATUS" = 400 ] && ok "unknown argument: 400" || fail "unknown argument: $STATUS"
# A task kept pending: its only node drains (a job bigger than every node is refused at
# submit, 422).
capi POST /v1/nodes/a1/drain
capi POST /v1/jobs "$(job_body big long '{"argv":["true"],"cpu_millis":1000,"memory_bytes":67108864}')"
C=$(jq -r .id "$TMP/body")
capi GET "/v1/jobs/$C/tasks/0/logs"
[ "$STATUS" = 409 ] && ok "a task not started on a node: 409" || fail "not started: $STATUS $(cat "$TMP/body")"
out=$(EBB_CONTROLLER="unix:$CSOCK" "$EBBCTL" logs "$A-7" 2>&1); rc=$?
[ "$rc" != 0 ] && ok "ebbctl logs $A-7: exit $rc ($out)" || fail "ebbctl logs of no task: exit 0"
capi DELETE "/v1/jobs/$C"
capi POST /v1/nodes/a1/undrain

# A follower of a quiet task does not hold up the controller's stop: SIGTERM ends it, and
# the stream with it.
curl -sN -m 30 --unix-socket "$CSOCK" "http://c/v1/jobs/$A/tasks/0/logs?follow=1" >"$TMP/quiet" &
CURL_PID=$!
i=0
until [ -s "$TMP/quiet" ] || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
kill -TERM "$CTL_PID"
i=0
while kill -0 "$CTL_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$CTL_PID" 2>/dev/null; then fail "the controller did not stop in 10 s with a follower"; else
  ok "SIGTERM with a follower of a quiet task: stopped in $((i * 100)) ms"; CTL_PID=; fi
# A sanitizer build reports what it found at exit (the streams' buffers, the log client).
grep -E 'Sanitizer|runtime error' "$CLOG" && fail "sanitizer report in the controller log" ||
  ok "the controller exited clean"
wait "$CURL_PID"
[ "$(wc -l <"$TMP/quiet")" = 5 ] && ok "the follower had the 5 lines and its stream ended" ||
  fail "quiet follower: $(cat "$TMP/quiet")"
exit $FAILED
