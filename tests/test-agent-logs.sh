#!/bin/sh
# A task's output over the real agent's API (issue 22 item 2): GET /v1/tasks/ID/logs gives the
# whole file, ?tail=N its last N lines; ?follow=1 streams while the task prints and the stream
# ends by itself when the task exits; an unknown task is a 404, bad arguments a 400; TCP wants
# the token; followers past the cap get a 429; a follower waiting at SIGTERM is let go and
# the agent exits cleanly. ebbctl logs [-f] [--tail N] against the same agent: the same text,
# exit 4 for an unknown task, 2 for a bad --tail. Budget: about 12 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d " \n" >"$TMP/token")
TOK=$(cat "$TMP/token")
start_agent --listen 127.0.0.1:0 --token-file "$TMP/token" || { FAILED=1; fail "agent did not start"; exit 1; }
PORT=$(sed -n 's|^http://127.0.0.1:||p' "$STATE/listen" | head -1)
# logs ID QUERY: the body to $TMP/out, the status to $STATUS (unix socket).
logs () {
  STATUS=$(curl -s -m 20 -o "$TMP/out" -w '%{http_code}' --unix-socket "$SOCK" "http://agent/v1/tasks/$1/logs$2")
}
# wait_exited ID: until the task's state is exited (5 s at most).
wait_exited () {
  i=0
  until api GET "/v1/tasks/$1" && [ "$(field .state)" = exited ] || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
}

api POST /v1/tasks "$(launch_body p1 '["sh","-c","i=1; while [ $i -le 20 ]; do echo line$i; i=$((i+1)); done; printf last"]' 100 67108864)"
[ "$STATUS" = 201 ] || fail "launch p1: $STATUS $(body)"
wait_exited p1
logs p1 ""
[ "$STATUS" = 200 ] && [ "$(wc -l <"$TMP/out")" = 20 ] && [ "$(tail -c 4 "$TMP/out")" = last ] &&
  ok "whole log: 20 lines and a last one without a newline" || fail "whole log: $STATUS $(head -c 300 "$TMP/out")"
logs p1 "?tail=3"
[ "$STATUS" = 200 ] && [ "$(cat "$TMP/out")" = "$(printf 'line19\nline20\nlast')" ] && ok "tail=3: line19 line20 last" ||
  fail "tail=3: $STATUS $(cat "$TMP/out")"
logs p1 "?tail=0"
[ "$STATUS" = 200 ] && [ ! -s "$TMP/out" ] && ok "tail=0: empty" || fail "tail=0: $STATUS $(cat "$TMP/out")"
logs p1 "?tail=1000"
[ "$STATUS" = 200 ] && [ "$(head -1 "$TMP/out")" = line1 ] && ok "tail past the start: the whole log" || fail "tail=1000: $(head -2 "$TMP/out")"
logs p1 "?follow=1"
[ "$STATUS" = 200 ] && [ "$(wc -l <"$TMP/out")" = 20 ] && ok "follow of an exited task: all of it, then the end" ||
  fail "follow exited: $STATUS"
for q in "?tail=-1" "?tail=x" "?tail=1000001" "?follow=maybe" "?since=1" "?tail=1&tail=2"; do
  logs p1 "$q"
  [ "$STATUS" = 400 ] && [ "$(jq -r .error "$TMP/out")" = bad_request ] || fail "$q: $STATUS $(cat "$TMP/out")"
done
[ "$FAILED" = 0 ] && ok "bad tail, follow or unknown argument: 400"
logs nosuch ""
[ "$STATUS" = 404 ] && [ "$(jq -r .error "$TMP/out")" = not_found ] && ok "unknown task: 404" || fail "unknown task: $STATUS"
st=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v1/tasks/p1/logs")
[ "$st" = 401 ] && ok "TCP without the token: 401" || fail "TCP without the token: $st"
st=$(curl -s -o "$TMP/out" -w '%{http_code}' -H "Authorization: Bearer $TOK" "http://127.0.0.1:$PORT/v1/tasks/p1/logs?tail=1")
[ "$st" = 200 ] && [ "$(cat "$TMP/out")" = last ] && ok "TCP with the token: 200" || fail "TCP with the token: $st"

EBBCTL="$EBB_TOP_BUILDDIR/ebbctl --agent unix:$SOCK"
$EBBCTL logs p1 --tail 2 >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 0 ] && [ "$(cat "$TMP/out")" = "$(printf 'line20\nlast')" ] && ok "ebbctl logs --tail 2" ||
  fail "ebbctl logs --tail 2: rc $rc $(cat "$TMP/out" "$TMP/err")"
$EBBCTL logs p1 >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 0 ] && [ "$(wc -l <"$TMP/out")" = 20 ] && ok "ebbctl logs: the whole log" || fail "ebbctl logs: rc $rc"
$EBBCTL logs nosuch >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 4 ] && grep -q 'HTTP 404' "$TMP/err" && ok "ebbctl logs of an unknown task: exit 4" ||
  fail "ebbctl logs nosuch: rc $rc $(cat "$TMP/err")"
$EBBCTL logs p1 --tail x >"$TMP/out" 2>"$TMP/err"; rc=$?
[ "$rc" = 2 ] && ok "ebbctl logs --tail x: exit 2" || fail "ebbctl logs --tail x: rc $rc $(cat "$TMP/err")"

# Follow while the task prints: one line every 0.3 s for about 2.4 s (curl and ebbctl -f).
api POST /v1/tasks "$(launch_body f1 '["sh","-c","i=0; while [ $i -lt 8 ]; do echo tick$i; i=$((i+1)); sleep 0.3; done"]' 100 67108864)"
[ "$STATUS" = 201 ] || fail "launch f1: $STATUS $(body)"
curl -s -N -m 20 --unix-socket "$SOCK" "http://agent/v1/tasks/f1/logs?follow=1" >"$TMP/follow" &
CURL=$!
$EBBCTL logs f1 -f >"$TMP/ebbctl-follow" 2>"$TMP/ebbctl-err" &
CTL_FOLLOW=$!
sleep 1
n1=$(grep -c '^tick' "$TMP/follow")
[ "$n1" -ge 1 ] && [ "$n1" -lt 8 ] && ok "follow: $n1 lines while the task runs" || fail "follow mid-way: $n1 lines"
n1=$(grep -c '^tick' "$TMP/ebbctl-follow")
[ "$n1" -ge 1 ] && [ "$n1" -lt 8 ] && ok "ebbctl logs -f: $n1 lines while the task runs" ||
  fail "ebbctl logs -f mid-way: $n1 lines"
wait_exited f1
t_exit=$(date +%s%N)
i=0
while kill -0 "$CURL" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
ended_ms=$((($(date +%s%N) - t_exit) / 1000000))
if kill -0 "$CURL" 2>/dev/null; then
  fail "the stream did not end 5 s after the task exited"
  kill "$CURL"
else
  ok "the stream ended ${ended_ms} ms after the exit was seen"
fi
wait "$CURL"
[ "$(cat "$TMP/follow")" = "$(printf 'tick%s\n' 0 1 2 3 4 5 6 7)" ] && ok "follow: every line once, in order" ||
  fail "follow got: $(tr '\n' ' ' <"$TMP/follow")"
i=0
while kill -0 "$CTL_FOLLOW" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$CTL_FOLLOW" 2>/dev/null && { fail "ebbctl logs -f still running 5 s after the exit"; kill "$CTL_FOLLOW"; }
wait "$CTL_FOLLOW"; rc=$?
[ "$rc" = 0 ] && [ "$(cat "$TMP/ebbctl-follow")" = "$(printf 'tick%s\n' 0 1 2 3 4 5 6 7)" ] &&
  ok "ebbctl logs -f: every line, exit 0 when the task ended" ||
  fail "ebbctl logs -f: rc $rc $(tr '\n' ' ' <"$TMP/ebbctl-follow") $(cat "$TMP/ebbctl-err")"

# The cap on followers, then SIGTERM with followers waiting on a quiet task.
api POST /v1/tasks "$(launch_body q1 '["sleep","60"]' 100 67108864)"
[ "$STATUS" = 201 ] || fail "launch q1: $STATUS $(body)"
PIDS=
for i in $(seq 1 32); do
  curl -s -N -m 30 -o /dev/null --unix-socket "$SOCK" "http://agent/v1/tasks/q1/logs?follow=1" &
  PIDS="$PIDS $!"
done
i=0
until [ "$(curl -s --unix-socket "$SOCK" http://agent/metrics | grep -c '^ebb_agent_log_followers 32$')" = 1 ] || [ $i -ge 100 ]; do
  sleep 0.05; i=$((i + 1))
done
# Waiting followers cost no CPU: their connections are suspended, not polled by MHD.
# (Returning "nothing yet" to MHD without suspending costs about 7%, sanitizers on.)
c0=$(cpu_ticks "$AGENT_PID")
sleep 2
busy=$(( ($(cpu_ticks "$AGENT_PID") - c0) * 100 / HZ / 2 ))
[ "$busy" -le 3 ] && ok "32 waiting followers: the agent used ${busy}% of a CPU over 2 s" ||
  fail "32 waiting followers: the agent used ${busy}% of a CPU (a busy loop?)"
logs q1 "?follow=1"
[ "$STATUS" = 429 ] && ok "follower 33: 429" || fail "follower 33: $STATUS $(cat "$TMP/out")"
logs q1 ""
[ "$STATUS" = 200 ] && ok "a plain read is not capped" || fail "plain read at the cap: $STATUS"
stop_agent TERM
[ "$AGENT_STATUS" = 0 ] && ok "SIGTERM with 32 followers waiting: exit 0" || fail "agent exit status $AGENT_STATUS"
left=0
for p in $PIDS; do
  i=0
  while kill -0 "$p" 2>/dev/null && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done
  kill -0 "$p" 2>/dev/null && { left=$((left + 1)); kill "$p"; }
  wait "$p" 2>/dev/null
done
[ "$left" = 0 ] && ok "every follower's stream ended with the agent" || fail "$left followers still open"
exit $FAILED
