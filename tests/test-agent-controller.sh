#!/bin/sh
# What the controller relies on: --capacity-cpu-millis/--capacity-memory override the node
# report (GET /v1/node and heartbeats), the heartbeat carries the URL to call the agent on
# (--advertise-url, else the first listen address), a task's state change (suspended,
# resumed, exited) reaches the controller at once rather than at the next heartbeat, and
# commands naming another generation of a task are refused. A fake controller
# (tests/agent/fake-controller) records every heartbeat. Time budget: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
FAKE="$EBB_TOP_BUILDDIR/tests/agent/fake-controller"
[ -x "$FAKE" ] || skip "no $FAKE"
HB="$TMP/heartbeats"
: >"$HB"
# On a unix socket: a TCP listener would need a token (every ebb server refuses TCP without).
"$FAKE" "unix:$TMP/ctl.sock" "$TMP/ctl-url" "$HB" 60 >>"$LOG" 2>&1 & CONTROL_PID=$!
i=0; while ! grep -q '^unix:' "$TMP/ctl-url" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
CTL=$(cat "$TMP/ctl-url")

# A long period: every heartbeat after the first must be a push.
start_agent --controller "$CTL" --heartbeat-interval 1h --capacity-cpu-millis 1500 \
  --capacity-memory 2G --advertise-url http://node-a.example:7470 --node-name node-a ||
  { fail "agent did not start"; exit 1; }

api GET /v1/node
[ "$(field .capacity.cpu_millis)" = 1500 ] && [ "$(field .capacity.memory_bytes)" = 2147483648 ] &&
  [ "$(field .url)" = http://node-a.example:7470 ] &&
  ok "GET /v1/node: capacity 1500 millis / 2 GiB from the options, advertised URL" ||
  fail "node: $(body)"

# wait_hb JQ-FILTER: waits up to 3 s for a heartbeat (the last line) for which the filter is
# true; prints its receive time in usec.
wait_hb () {
  i=0
  while [ $i -lt 60 ]; do
    line=$(tail -n 1 "$HB")
    if [ -n "$line" ] && echo "$line" | cut -d' ' -f3- | jq -e "$1" >/dev/null 2>&1; then
      echo "$line" | cut -d' ' -f1; return 0
    fi
    sleep 0.05; i=$((i + 1))
  done
  return 1
}
wait_hb '.url == "http://node-a.example:7470" and .node.capacity.cpu_millis == 1500
  and .node.capacity.memory_bytes == 2147483648' >/dev/null &&
  grep -q ' node-a {' "$HB" && ok "first heartbeat: node-a, capacity override, advertised URL" ||
  fail "first heartbeat: $(head -c 400 "$HB")"

api POST /v1/tasks "$(printf '{"id":"p1","argv":%s,"cpu_millis":1000,"memory_bytes":268435456,"job":"j1","class":"long","generation":2}' "$BURN")"
[ "$STATUS" = 201 ] && [ "$(field .generation)" = 2 ] && ok "launch with generation 2" || fail "launch: $STATUS $(body)"

api POST /v1/tasks/p1/suspend '{"mode":"immediate","generation":1,"request_id":"g-1"}'
[ "$STATUS" = 409 ] && [ "$(field .error)" = stale_generation ] && ok "suspend of generation 1 -> 409 stale_generation" ||
  fail "stale suspend: $STATUS $(body)"
api GET /v1/tasks/p1
[ "$(field .state)" = running ] && ok "stale command changed nothing" || fail "after stale: $(body)"

n0=$(wc -l <"$HB")
api POST /v1/tasks/p1/suspend '{"mode":"graceful","cpu_millis":400,"memory_bytes":67108864,"generation":2,"request_id":"g-2"}'
[ "$STATUS" = 200 ] && [ "$(field .state)" = suspended ] && [ "$(cpu_limit p1)" = 60000 ] &&
  ok "suspend {mode graceful, cpu_millis 400, memory_bytes 64M} -> quota 60000" || fail "suspend: $STATUS $(cpu_limit p1) $(body)"
cp "$TMP/body" "$TMP/first"
api POST /v1/tasks/p1/suspend '{"mode":"graceful","cpu_millis":400,"memory_bytes":67108864,"generation":2,"request_id":"g-2"}'
[ "$STATUS" = 200 ] && cmp -s "$TMP/body" "$TMP/first" && [ "$(cpu_limit p1)" = 60000 ] &&
  ok "repeated request_id: the first answer, no second step" || fail "replay: $STATUS $(cpu_limit p1)"
wait_hb '.reason == "state" and (.tasks[] | select(.id == "p1") | .state) == "suspended"' >/dev/null &&
  ok "suspension pushed to the controller at once ($(( $(wc -l <"$HB") - n0 )) heartbeat(s))" ||
  fail "no pushed heartbeat with p1 suspended: $(tail -n 1 "$HB" | head -c 300)"

api POST /v1/tasks/p1/resume '{"generation":2}'
[ "$STATUS" = 200 ] && wait_hb '(.tasks[] | select(.id == "p1") | .state) == "running"' >/dev/null &&
  ok "resume pushed at once" || fail "resume push: $STATUS $(tail -n 1 "$HB" | head -c 300)"

api POST /v1/tasks "$(launch_body p2 '["sh","-c","sleep 0.3; exit 3"]' 100 67108864)"
[ "$STATUS" = 201 ] || fail "launch p2: $STATUS $(body)"
wait_hb '(.tasks[] | select(.id == "p2") | .exit_status) == 3' >/dev/null &&
  ok "exit (status 3) pushed at once" || fail "exit push: $(tail -n 1 "$HB" | head -c 300)"
api DELETE /v1/tasks/p1 '{"generation":9}'
[ "$STATUS" = 409 ] && [ "$(field .error)" = stale_generation ] && ok "DELETE of generation 9 -> 409" || fail "stale delete: $STATUS $(body)"
total=$(wc -l <"$HB")
[ "$total" -le 12 ] && ok "$total heartbeats in all (coalesced: no storm)" || fail "$total heartbeats"
stop_agent TERM

# Without --advertise-url the first listen address is advertised.
start_agent || fail "agent without --advertise-url"
api GET /v1/node
[ "$(field .url)" = "unix:$SOCK" ] && ok "default advertised URL: unix:$SOCK" || fail "default url: $(field .url)"
stop_agent TERM
kill "$CONTROL_PID" 2>/dev/null; wait "$CONTROL_PID" 2>/dev/null; CONTROL_PID=
exit $FAILED
