#!/bin/sh
# Faults around ebb-controller with 3 real agents: held-out bad requests of every route (the
# right 4xx, nothing changed); kill -9 of the controller at random moments while jobs run,
# then restart (no job lost, no task started twice); kill -9 of an agent and restart (the
# controller reconciles); an agent stopped for good (its node is lost after --node-timeout,
# its tasks run elsewhere). Time budget: about 60 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
KILLS=${EBB_CTL_TEST_KILLS:-8}
start_controller --policy fifo --node-timeout 3s || { fail "controller did not start"; exit 1; }
for n in 1 2 3; do start_node $n; done
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 3' /v1/nodes || fail "nodes: $(cat "$TMP/body")"

# sleeper NAME SECONDS: a task that records each start and its end.
sleeper () {
  printf '{"argv":["sh","-c","echo start >> %s/%s.starts; sleep %s; echo done > %s/%s"],"cpu_millis":500,"memory_bytes":67108864}' \
    "$OUT" "$1" "$2" "$OUT" "$1"
}

# --- Bad requests: every route, each refused with its 4xx, the state unchanged.
capi POST /v1/jobs "$(job_body keep short "$(sleeper keep 0.1)")"
wait_for 10 '.state == "done"' /v1/jobs/1 || fail "keep job: $(cat "$TMP/body")"
snap () { capi GET /v1/jobs; jq -S . "$TMP/body" >"$TMP/snap.$1"; capi GET /v1/nodes; jq -S '[.nodes[] | del(.last_heartbeat)]' "$TMP/body" >>"$TMP/snap.$1"; capi GET "/v1/decisions"; jq .last_seq "$TMP/body" >>"$TMP/snap.$1"; }
snap before
n_bad=0
bad () { # bad EXPECTED METHOD PATH [BODY]
  exp=$1; shift
  capi "$@"
  if [ "$STATUS" = "$exp" ] && jq -e '.error and .detail' "$TMP/body" >/dev/null 2>&1; then n_bad=$((n_bad + 1)); else fail "$* -> $STATUS (want $exp): $(cat "$TMP/body")"; fi
}
T='{"argv":["true"],"cpu_millis":100,"memory_bytes":67108864}'
bad 400 POST /v1/jobs 'not json'
bad 400 POST /v1/jobs '[]'
bad 400 POST /v1/jobs '{}'
bad 400 POST /v1/jobs '{"tasks":[]}'
bad 400 POST /v1/jobs "{\"tasks\":[$T],\"class\":\"medium\"}"
bad 400 POST /v1/jobs "{\"tasks\":[$T],\"bogus\":1}"
bad 400 POST /v1/jobs "{\"tasks\":[$T],\"request_id\":\"a b\"}"
bad 400 POST /v1/jobs "{\"tasks\":[$T],\"est_task_sec\":-1}"
bad 400 POST /v1/jobs "{\"tasks\":[$T],\"name\":5}"
bad 400 POST /v1/jobs '{"tasks":[{"argv":[],"cpu_millis":100,"memory_bytes":67108864}]}'
bad 400 POST /v1/jobs '{"tasks":[{"argv":[""],"cpu_millis":100,"memory_bytes":67108864}]}'
bad 400 POST /v1/jobs '{"tasks":[{"argv":["x"],"cpu_millis":1,"memory_bytes":67108864}]}'
bad 400 POST /v1/jobs '{"tasks":[{"argv":["x"],"cpu_millis":100}]}'
bad 400 POST /v1/jobs '{"tasks":[{"argv":["x"],"cpu_millis":100,"memory_bytes":1e30}]}'
bad 400 POST /v1/jobs '{"tasks":[{"argv":["x"],"cpu_millis":100,"memory_bytes":67108864,"cwd":"rel"}]}'
bad 400 POST /v1/jobs '{"tasks":[{"argv":["x"],"cpu_millis":100,"memory_bytes":67108864,"env":{"A=B":"c"}}]}'
bad 400 POST /v1/jobs "{\"tasks\":[$T, 7]}"
bad 400 POST /v1/jobs "{\"tasks\":[$T],\"tasks\":[$T]}"
bad 400 GET /v1/jobs/abc
bad 400 GET /v1/jobs/-1
bad 404 GET /v1/jobs/999999
bad 400 DELETE /v1/jobs/1x
bad 404 DELETE /v1/jobs/424242
bad 400 GET '/v1/nodes/bad%20name'
bad 404 GET /v1/nodes/nosuch
bad 404 POST /v1/nodes/nosuch/drain
bad 404 POST /v1/nodes/nosuch/undrain
bad 400 POST /v1/nodes/a1/heartbeat 'nope'
bad 400 POST /v1/nodes/a1/heartbeat '{}'
bad 400 POST /v1/nodes/a1/heartbeat '{"node":{"capacity":{"cpu_millis":"x","memory_bytes":1}}}'
bad 400 POST /v1/nodes/a1/heartbeat '{"node":{"capacity":{"cpu_millis":1000,"memory_bytes":1}},"url":"ftp://x"}'
bad 400 POST /v1/nodes/a1/heartbeat '{"node":{"capacity":{"cpu_millis":1000,"memory_bytes":1}},"tasks":{}}'
bad 404 POST '/v1/nodes/a%2Fb/heartbeat' '{"node":{"capacity":{"cpu_millis":1000,"memory_bytes":1}}}'
bad 400 GET '/v1/decisions?since=x'
bad 400 GET '/v1/decisions?since=-5'
bad 404 GET /v1/nosuch
bad 405 PUT /v1/jobs '{}'
snap after
cmp -s "$TMP/snap.before" "$TMP/snap.after" && ok "$n_bad bad requests refused with their 4xx, state unchanged" ||
  fail "state changed: $(diff "$TMP/snap.before" "$TMP/snap.after" | head -20)"

# --- kill -9 of the controller at random moments, then restart.
JOBS=
i=0
while [ $i -lt "$KILLS" ]; do
  capi POST /v1/jobs "$(job_body k$i auto "$(sleeper k$i-a 0.6)" "$(sleeper k$i-b 0.3)" "$(sleeper k$i-c 0.9)")"
  [ "$STATUS" = 201 ] && JOBS="$JOBS $(jq -r .id "$TMP/body")" || fail "submit k$i: $STATUS"
  sleep "0.$(awk -v s=$$$i 'BEGIN { srand(s); printf "%d", 1 + rand() * 8 }')"
  kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
  start_controller --policy fifo --node-timeout 3s || { fail "restart $i"; break; }
  i=$((i + 1))
done
all_done=1
for j in $JOBS; do wait_for 20 '.state == "done"' "/v1/jobs/$j" || { all_done=0; fail "job $j: $(cat "$TMP/body")"; }; done
twice=0
for f in "$OUT"/k[0-9]*.starts; do [ "$(wc -l <"$f")" = 1 ] || twice=$((twice + 1)); done
nstarts=$(ls "$OUT"/k[0-9]*.starts | wc -l)
[ $all_done = 1 ] && [ "$twice" = 0 ] && [ "$nstarts" = $((KILLS * 3)) ] &&
  ok "$KILLS controller kill -9 + restart: every job done, each of $nstarts tasks started once" ||
  fail "after kills: done=$all_done twice=$twice starts=$nstarts"

# --- kill -9 of an agent and restart: its running task survives and is reconciled.
capi POST /v1/jobs "$(job_body ak long "$(sleeper ak 3)")"
AK=$(jq -r .id "$TMP/body")
wait_for 5 '.task_states.running == 1' "/v1/jobs/$AK" || fail "ak not running"
node=$(jq -r '.tasks[0].node' "$TMP/body"); n=${node#a}
eval "kill -9 \$AGENT_PID_$n"
sleep 0.5
start_node "$n"
wait_for 15 '.state == "done"' "/v1/jobs/$AK" && [ "$(wc -l <"$OUT/ak.starts")" = 1 ] &&
  [ "$(cat "$OUT/ak")" = done ] &&
  ok "agent kill -9 + restart: its task finished, started once" || fail "ak: $(cat "$TMP/body")"

# --- an agent stopped for good: lost after --node-timeout, its task runs elsewhere.
capi POST /v1/jobs "$(job_body lost long "$(sleeper lost 4)")"
LJ=$(jq -r .id "$TMP/body")
wait_for 5 '.task_states.running == 1' "/v1/jobs/$LJ" || fail "lost job not running"
node=$(jq -r '.tasks[0].node' "$TMP/body"); n=${node#a}
eval "kill -9 \$AGENT_PID_$n"
for h in ${HIERS:-x}; do # the machine is gone: so are its tasks
  for p in $(cat "$(cgdir $h "$CGP/a$n")"/*/cgroup.procs 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
done
wait_for 8 '.nodes[] | select(.name == "'"$node"'") | .state == "lost"' /v1/nodes &&
  ok "node $node lost after the timeout" || fail "not lost: $(cat "$TMP/body")"
wait_for 15 '.state == "done"' "/v1/jobs/$LJ" &&
  [ "$(jq -r '.tasks[0].node' "$TMP/body")" != "$node" ] && [ "$(jq -r '.tasks[0].generation' "$TMP/body")" = 2 ] &&
  ok "its task ran again elsewhere ($(jq -r '.tasks[0].node' "$TMP/body"), generation 2)" || fail "lost task: $(cat "$TMP/body")"
capi GET /v1/decisions
jq -e '[.decisions[] | select(.action == "kill" and .reason == "node lost")] | length == 1' "$TMP/body" >/dev/null &&
  ok "the loss is in the decision log" || fail "decisions: $(jq -c '.decisions[-3:]' "$TMP/body")"
exit $FAILED
