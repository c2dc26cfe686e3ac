#!/bin/sh
# ebb-agent refuses malformed requests with the right 4xx and changes nothing: the task
# list, the journal and the cgroups are compared before and after the whole table.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
start_agent --adopt-root "$CGP/adoptable" || { FAILED=1; fail "agent did not start"; exit 1; }
api POST /v1/tasks "$(launch_body t1 '["sleep","1000"]' 200 33554432)"
[ "$STATUS" = 201 ] || { fail "setup launch: $STATUS $(body)"; exit 1; }
api POST /v1/tasks/t1/suspend '{"mode":"immediate","request_id":"setup-1"}'
[ "$STATUS" = 200 ] || fail "setup suspend: $STATUS $(body)"

# What changes by itself is left out: usage, and the suspended time of t1 (suspended).
snapshot () {
  curl -s --unix-socket "$SOCK" http://agent/v1/tasks | jq -S 'del(.tasks[].usage, .tasks[].suspended_seconds)' >"$1"
  (cd "$STATE/tasks" && cat ./* | sha256sum) >>"$1"
  ls "$(cgdir memory "$CGP")" | sort >>"$1"; [ "$LAYOUT" = v1 ] && ls "$(cgdir cpu "$CGP")" | sort >>"$1"
  cpu_limit t1 >>"$1"; mem_limit t1 >>"$1"
}
snapshot "$TMP/before"

L='"argv":["sleep","1"],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"'
{ printf '{"id":"a","argv":["'; head -c 300000 /dev/zero | tr '\0' 'a'; printf '"]}'; } >"$TMP/big.json"
deep=$(printf '%0.s[' $(seq 1 100))
n=0
t () { # t WANT METHOD PATH [BODY]  (BODY "-" means none)
  want=$1 m=$2 p=$3; n=$((n + 1))
  if [ $# -ge 4 ]; then api "$m" "$p" "$4"; else api "$m" "$p"; fi
  err=$(jq -r '.error // empty' "$TMP/body" 2>/dev/null)
  detail=$(jq -r '.detail // empty' "$TMP/body" 2>/dev/null)
  if [ "$STATUS" = "$want" ] && [ -n "$err" ] && [ -n "$detail" ]; then ok "#$n $m $p -> $STATUS $err"
  else fail "#$n $m $p: got $STATUS ($(head -c 200 "$TMP/body")), want $want with {error,detail}"; fi
}
t 400 POST /v1/tasks '{'
t 400 POST /v1/tasks '[]'
t 400 POST /v1/tasks '"x"'
t 400 POST /v1/tasks ''
t 400 POST /v1/tasks '{"id":"a",'"$L"'} trailing'
t 400 POST /v1/tasks "{$L}"
t 400 POST /v1/tasks '{"id":"../x",'"$L"'}'
t 400 POST /v1/tasks '{"id":"..",'"$L"'}'
t 400 POST /v1/tasks '{"id":"a/b",'"$L"'}'
t 400 POST /v1/tasks '{"id":"",'"$L"'}'
t 400 POST /v1/tasks '{"id":"'"$(printf '%065d' 0)"'",'"$L"'}'
t 400 POST /v1/tasks '{"id":5,'"$L"'}'
t 400 POST /v1/tasks '{"id":"a","argv":"sleep 1","cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":[],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":[1],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sl\u0000eep"],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep","1"],"env":{"LD_PRELOAD\u0000junk":"/x.so"},"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":"100","memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":-5,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":99999999999999999999,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":1.5,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":0,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":true,"memory_bytes":16777216,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":100,"memory_bytes":1152921504606846976,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":100,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":100,"memory_bytes":null,"job":"j","class":"short"}'
t 400 POST /v1/tasks '{"id":"a",'"$L"',"class":"medium"}'
t 400 POST /v1/tasks '{"id":"a",'"$L"',"foo":1}'
t 400 POST /v1/tasks '{"id":"a",'"$L"',"env":["A=1"]}'
t 400 POST /v1/tasks '{"id":"a",'"$L"',"env":{"A=B":"1"}}'
t 400 POST /v1/tasks '{"id":"a",'"$L"',"cwd":"tmp"}'
t 400 POST /v1/tasks '{"id":"a","argv":["sleep"],"cpu_millis":100,"memory_bytes":16777216,"job":"a b","class":"short"}'
t 400 POST /v1/tasks '{"id":"a",'"$L"',"request_id":"x y"}'
t 400 POST /v1/tasks "$deep"
t 409 POST /v1/tasks '{"id":"t1",'"$L"'}'
t 422 POST /v1/tasks '{"id":"a","argv":["/nonexistent/ebb-no-such-binary"],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"}'
t 413 POST /v1/tasks "@$TMP/big.json"
t 405 PUT /v1/tasks '{}'
t 405 PATCH /v1/tasks/t1 '{}'
t 405 GET /v1/tasks/t1/suspend
t 404 GET /v1/nope
t 404 GET /v1/tasks/nope
t 400 GET /v1/tasks/a%20b
t 404 POST /v1/tasks/nope/suspend '{"mode":"immediate"}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"sleep"}'
t 400 POST /v1/tasks/t1/suspend '{}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"immediate","cpu_millis":100}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful"}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":-1}'
# "booked": graceful only, an object of positive integers in range, at least the step.
t 400 POST /v1/tasks/t1/suspend '{"mode":"immediate","booked":{"cpu_millis":1000}}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":{"cpu_millis":50}}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":{"memory_bytes":67108864}}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":{}}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":{"cpu_millis":-1000}}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":{"cpu_millis":"1000"}}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":{"cpu_millis":1e30}}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":{"cpu_millis":1000,"x":1}}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":[1000]}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"graceful","cpu_millis":100,"booked":null}'
t 400 POST /v1/tasks/t1/suspend '{"mode":"immediate","request_id":"setup-1","x":1}'
t 400 POST /v1/tasks/t1/resume '{"request_id":5}'
t 400 POST /v1/tasks/t1/resume 'nope'
t 400 DELETE /v1/tasks/t1 '{"grace_millis":-1}'
t 400 DELETE /v1/tasks/t1 '{"grace_millis":99999999}'
t 409 POST /v1/tasks/t1/resume '{"request_id":"setup-1"}'
t 400 POST /v1/tasks/adopt '{}'
t 400 POST /v1/tasks/adopt '{"cgroup":"/x","container":"y"}'
t 400 POST /v1/tasks/adopt '{"cgroup":"relative/path"}'
t 400 POST /v1/tasks/adopt '{"cgroup":7}'
t 403 POST /v1/tasks/adopt '{"cgroup":"/"}'
t 403 POST /v1/tasks/adopt '{"cgroup":"'"$CGP"'/t1"}'
t 403 POST /v1/tasks/adopt '{"cgroup":"'"$CGP"'/adoptable/../t1"}'
t 403 POST /v1/tasks/adopt '{"cgroup":"'"$CGP"'/adoptable/./x"}'
t 403 POST /v1/tasks/adopt '{"cgroup":"'"$CGP"'/adoptable-not"}'
t 410 POST /v1/tasks/adopt '{"cgroup":"'"$CGP"'/adoptable/missing"}'
t 422 POST /v1/tasks/adopt '{"container":"abc"}'
echo "$n requests"
[ $n -ge 30 ] || fail "only $n cases"

snapshot "$TMP/after"
if cmp -s "$TMP/before" "$TMP/after"; then ok "task list, journal, cgroups and limits unchanged"
else fail "state changed:"; diff "$TMP/before" "$TMP/after"; fi
api GET /v1/tasks/t1
[ "$(field .state)" = suspended ] && ok "t1 still suspended" || fail "t1: $(body)"
stop_agent TERM
[ "$(cpu_limit t1)" = 20000 ] && [ "$(mem_limit t1)" = 33554432 ] && ok "SIGTERM restored t1's limits" ||
  fail "t1 limits after SIGTERM: $(cpu_limit t1) $(mem_limit t1)"
exit $FAILED
