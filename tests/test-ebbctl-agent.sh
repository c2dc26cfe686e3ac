#!/bin/sh
# ebbctl against a real ebb-agent (real cgroups, root): tasks, task, suspend (immediate and
# graceful, checked on the cgroup's CPU quota), resume, --json, the exit codes (0 ok,
# 1 failure, 2 usage, 4 not found), a unix socket and loopback TCP, both with a bearer token.
# Budget: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
[ -x "$EBBCTL" ] || skip "no $EBBCTL"
setup_cgroups

TOKEN_FILE="$TMP/token"
(umask 077 && echo "ebbctl-test-token-$$-0123456789abcdef" >"$TOKEN_FILE")
TOKEN=$(cat "$TOKEN_FILE")
# A loopback port of our own: the kernel's choice is not visible from outside the agent.
PORT=$((20000 + $$ % 20000))
"$AGENT_BIN" --listen "unix:$SOCK" --listen "127.0.0.1:$PORT" --token-file "$TOKEN_FILE" \
  --state-dir "$STATE" --cgroup-parent "$CGP" --stop-grace 2s --stats-interval 1s -v >>"$LOG" 2>&1 &
AGENT_PID=$!
i=0
until curl -sf -H "Authorization: Bearer $TOKEN" --unix-socket "$SOCK" http://agent/v1/health >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 100 ] && kill -0 "$AGENT_PID" 2>/dev/null || { fail "agent did not start"; exit 1; }
  sleep 0.05
done

curl -s -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  --unix-socket "$SOCK" --data-binary "$(launch_body b1 "$BURN" 1000 268435456)" http://agent/v1/tasks

E="$EBBCTL --agent unix:$SOCK --token-file $TOKEN_FILE"
# run CMD...: stdout in $OUT, stderr in $ERR, exit status in $RC.
run () { "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?; OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err"); }
expect_rc () { # expect_rc RC WHAT
  if [ "$RC" = "$1" ]; then ok "$2 -> exit $1"; else fail "$2: exit $RC, want $1; out: $OUT; err: $ERR"; fi
}

run $E tasks
expect_rc 0 "tasks"
echo "$OUT"
echo "$OUT" | head -1 | grep -q '^ID  *JOB  *CLASS  *STATE  *PID' && echo "$OUT" | grep -q '^b1  *j1  *long  *running ' &&
  ok "tasks: a table with b1 running" || fail "tasks table: $OUT"

run $E --json tasks
[ "$RC" = 0 ] && [ "$(echo "$OUT" | jq -r '.tasks[0].id')" = b1 ] && ! echo "$OUT" | grep -q '\\/' &&
  ok "--json tasks: the API's JSON, slashes not escaped" || fail "--json tasks: $RC $OUT"

run $E task b1
expect_rc 0 "task b1"
echo "$OUT" | grep -qx 'state: running' && echo "$OUT" | grep -qx 'limits.cpu_millis: 1000' &&
  ok "task: key: value lines" || fail "task b1: $OUT"

run $E suspend b1
[ "$RC" = 0 ] && [ "$OUT" = "b1: suspended" ] && [ "$(cpu_limit b1)" = 1000 ] &&
  ok "suspend -> suspended, quota at the footprint" || fail "suspend: $RC $OUT $ERR quota $(cpu_limit b1)"
# The tasks table shows what is applied to a suspended task, its own limit after it.
run $E tasks
echo "$OUT" | grep -q '^b1  *j1  *long  *suspended  *[0-9]*  *10 (1000) ' && ok "tasks: a suspended task's applied CPU" ||
  fail "tasks after suspend: $OUT"
run $E resume b1
[ "$RC" = 0 ] && [ "$OUT" = "b1: running" ] && [ "$(cpu_limit b1)" = 100000 ] &&
  ok "resume -> running, quota restored" || fail "resume: $RC $OUT $ERR quota $(cpu_limit b1)"
# Options after the id, as ebbctl(1) writes it: a step of 300 millis from 1000 leaves 700.
run $E suspend b1 --mode graceful --cpu 300
[ "$RC" = 0 ] && [ "$OUT" = "b1: suspended" ] && [ "$(cpu_limit b1)" = 70000 ] &&
  ok "suspend --mode graceful -> quota $(cpu_limit b1)" || fail "graceful: $RC $OUT $ERR quota $(cpu_limit b1)"
run $E --json resume b1
[ "$RC" = 0 ] && [ "$(echo "$OUT" | jq -r .state)" = running ] && ok "--json resume" || fail "--json resume: $OUT"

run $EBBCTL --agent "127.0.0.1:$PORT" --token-file "$TOKEN_FILE" task b1
[ "$RC" = 1 ] && echo "$ERR" | grep -q "not sending the token of $TOKEN_FILE to the agent" &&
  ok "over loopback TCP with a token file: refused plainly, exit 1" || fail "plain TCP with the token: $RC $ERR"
run $EBBCTL --agent "http://127.0.0.1:$PORT" task b1
[ "$RC" = 1 ] && echo "$ERR" | grep -q 'HTTP 401' && echo "$ERR" | grep -q 'https:// or a unix socket' &&
  ok "no token -> 401 reported with a hint, exit 1" || fail "no token: $RC $ERR"

run $E task nope;               expect_rc 4 "task of an unknown id"
run $E suspend nope;            expect_rc 4 "suspend of an unknown id"
run $E resume nope;             expect_rc 4 "resume of an unknown id"
run $E task;                    expect_rc 2 "task without an id"
run $E task a b;                expect_rc 2 "task with two ids"
run $E task ../b1;              expect_rc 2 "task id with a slash"
run $E suspend b1 --mode hard;  expect_rc 2 "suspend --mode hard"
run $E suspend b1 --mode graceful; expect_rc 2 "graceful without amounts"
run $E suspend b1 --cpu 300;    expect_rc 2 "amounts without graceful"
run $E tasks --bogus;           expect_rc 2 "unknown option"
if [ ! -e /run/ebb/agent.sock ]; then
  run $EBBCTL tasks;            expect_rc 2 "an agent command without --agent (and no agent socket)"
fi
run $EBBCTL --agent "unix:$TMP/none.sock" tasks; expect_rc 1 "an agent that is not there"
echo "$ERR" | grep -q 'cannot reach the agent' && ok "unreachable: says so" || fail "unreachable: $ERR"
run $EBBCTL --agent "unix:$SOCK" --token-file "$TMP/missing" tasks; expect_rc 1 "a missing token file"
run $E suspend --help
[ "$RC" = 0 ] && echo "$OUT" | grep -q -- '--mode immediate|graceful' && ok "suspend --help" || fail "suspend --help: $OUT"
EBB_AGENT="unix:$SOCK" run $EBBCTL --token-file "$TOKEN_FILE" task b1
expect_rc 0 "EBB_AGENT as the address"

curl -s -o /dev/null -X DELETE -H "Authorization: Bearer $TOKEN" --unix-socket "$SOCK" http://agent/v1/tasks/b1
stop_agent TERM
exit $FAILED
