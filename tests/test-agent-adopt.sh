#!/bin/sh
# Adopting an existing cgroup (source "cgroup"): a CPU burner the test started in its own
# cgroup under --adopt-root, with its own limits; suspend -> <= 2% of a CPU (from /proc),
# resume -> its own limits again; kill -9 of the agent while suspended -> still suspended
# after the restart; DELETE -> limits restored, task forgotten, process still running. A
# cgroup without a CPU limit: a graceful step takes its amount from the task's allocation,
# or without one from what the step says was booked.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
A="$CGP/adoptable/a1"
for h in ${HIERS:-x}; do mkdir -p "$(cgdir $h "$A")" || fail "mkdir $A"; done
if [ "$LAYOUT" = v2 ]; then
  echo "+cpu +memory" >"$(cgdir x "$CGP")/cgroup.subtree_control"
  echo "+cpu +memory" >"$(cgdir x "$CGP/adoptable")/cgroup.subtree_control"
  echo "50000 100000" >"$(cgdir x "$A")/cpu.max"; echo 268435456 >"$(cgdir x "$A")/memory.max"
else
  echo 50000 >"$(cgdir cpu "$A")/cpu.cfs_quota_us"; echo 268435456 >"$(cgdir memory "$A")/memory.limit_in_bytes"
fi
sh -c 'while :; do :; done' & BURNER=$!
for h in ${HIERS:-x}; do echo "$BURNER" >"$(cgdir $h "$A")/cgroup.procs" || fail "attach to $h"; done
lim () { # cpu quota and memory limit of the adopted cgroup
  if [ "$LAYOUT" = v2 ]; then echo "$(cut -d' ' -f1 "$(cgdir x "$A")/cpu.max") $(cat "$(cgdir x "$A")/memory.max")"
  else echo "$(cat "$(cgdir cpu "$A")/cpu.cfs_quota_us") $(cat "$(cgdir memory "$A")/memory.limit_in_bytes")"; fi
}
ORIG=$(lim)

start_agent --adopt-root "$CGP/adoptable" || { FAILED=1; fail "agent did not start"; exit 1; }
api POST /v1/tasks/adopt "{\"cgroup\":\"$CGP//adoptable/a1/\",\"job\":\"ja\",\"class\":\"short\",\"request_id\":\"ad-1\"}"
[ "$STATUS" = 201 ] && [ "$(field .id)" = a1 ] && [ "$(field .source)" = cgroup ] && [ "$(field .pid)" = "$BURNER" ] &&
  [ "$(field .cgroup)" = "$A" ] && ok "adopt -> 201, id a1, source cgroup, canonical path, pid $BURNER" || fail "adopt: $STATUS $(body)"
api POST /v1/tasks/adopt "{\"cgroup\":\"$A\",\"job\":\"ja\",\"class\":\"short\",\"request_id\":\"ad-1\"}"
[ "$STATUS" = 201 ] && ok "adopt replayed by request_id" || fail "adopt replay: $STATUS"
api POST /v1/tasks/adopt "{\"cgroup\":\"$A\",\"id\":\"again\"}"
[ "$STATUS" = 409 ] && ok "adopting the same cgroup twice -> 409" || fail "double adopt: $STATUS $(body)"

api POST /v1/tasks/a1/suspend '{"mode":"immediate"}'
[ "$STATUS" = 200 ] && [ "$(lim | cut -d' ' -f1)" = 1000 ] && ok "suspend -> quota 1000" || fail "suspend: $STATUS $(lim) $(body)"
set -- $(cpu_pct2 "$BURNER")
[ "$1" -le 2 ] && ok "adopted burner suspended: $1% of a CPU" || fail "adopted burner uses $1%"

kill -9 "$AGENT_PID"; wait "$AGENT_PID" 2>/dev/null; AGENT_PID=
start_agent --adopt-root "$CGP/adoptable" || fail "restart"
api GET /v1/tasks/a1
[ "$(field .state)" = suspended ] && [ "$(lim | cut -d' ' -f1)" = 1000 ] && ok "after kill -9 and restart: still suspended" || fail "restart: $(body)"

api POST /v1/tasks/a1/resume
[ "$STATUS" = 200 ] && [ "$(lim)" = "$ORIG" ] && ok "resume -> original limits ($ORIG)" || fail "resume: $(lim) vs $ORIG"
api POST /v1/tasks/a1/suspend '{"mode":"immediate"}'
api DELETE /v1/tasks/a1
[ "$STATUS" = 200 ] && [ "$(lim)" = "$ORIG" ] && ok "DELETE of a suspended adopted task restores its limits" || fail "delete: $STATUS $(lim)"
api GET /v1/tasks/a1
[ "$STATUS" = 404 ] && ok "then it is forgotten" || fail "after delete: $STATUS"
kill -0 "$BURNER" 2>/dev/null && ok "the adopted process keeps running" || fail "adopted process died"
[ -f "$STATE/tasks/a1.json" ] && fail "journal record left behind"

# A cgroup without a CPU limit, adopted with the CPU it was given: a graceful step takes
# its amount from that allocation (990 of 1000 millicores leaves 1%), not from the host's
# CPUs (which left it at more than a whole CPU).
B="$CGP/adoptable/a2"
for h in ${HIERS:-x}; do mkdir -p "$(cgdir $h "$B")" || fail "mkdir $B"; done
sh -c 'while :; do :; done' & BURNER2=$!
for h in ${HIERS:-x}; do echo "$BURNER2" >"$(cgdir $h "$B")/cgroup.procs" || fail "attach to $h"; done
quota2 () { if [ "$LAYOUT" = v2 ]; then cut -d' ' -f1 "$(cgdir x "$B")/cpu.max"; else cat "$(cgdir cpu "$B")/cpu.cfs_quota_us"; fi; }
UNLIMITED=$(quota2)
api POST /v1/tasks/adopt "{\"cgroup\":\"$B\",\"job\":\"jb\",\"class\":\"long\",\"cpu_millis\":1000}"
[ "$STATUS" = 201 ] || fail "adopt a2: $STATUS $(body)"
api POST /v1/tasks/a2/suspend '{"mode":"graceful","cpu_millis":990}'
[ "$STATUS" = 200 ] && [ "$(quota2)" = 1000 ] && ok "graceful 990 of a 1000-millicore allocation without a CPU limit ($UNLIMITED) -> quota 1000" ||
  fail "graceful from unlimited: $STATUS $(quota2) $(body)"
set -- $(cpu_pct2 "$BURNER2")
[ "$1" -le 2 ] && ok "stepped burner at $1% of a CPU" || fail "stepped burner uses $1%"
api POST /v1/tasks/a2/resume
[ "$STATUS" = 200 ] && [ "$(quota2)" = "$UNLIMITED" ] && ok "resume -> no CPU limit again" || fail "resume a2: $(quota2)"
# Adopted with no allocation at all (the agent knows of none), the scheduler says in the
# step what it booked: 500 of a booked 1000 leaves 500, not the host's CPUs less 500.
api DELETE /v1/tasks/a2
[ "$STATUS" = 200 ] || fail "delete a2: $STATUS $(body)"
api POST /v1/tasks/adopt "{\"cgroup\":\"$B\",\"id\":\"a3\",\"job\":\"jb\",\"class\":\"long\"}"
[ "$STATUS" = 201 ] && [ "$(field .limits.cpu_millis)" = 0 ] || fail "adopt a3: $STATUS $(body)"
api POST /v1/tasks/a3/suspend '{"mode":"graceful","cpu_millis":500,"booked":{"cpu_millis":1000}}'
[ "$STATUS" = 200 ] && [ "$(quota2)" = 50000 ] && ok "graceful 500 of a booked 1000 without a CPU limit or an allocation -> quota 50000" ||
  fail "graceful with booked: $STATUS $(quota2) $(body)"
api POST /v1/tasks/a3/suspend '{"mode":"graceful","cpu_millis":490,"booked":{"cpu_millis":500}}'
[ "$STATUS" = 200 ] && [ "$(quota2)" = 1000 ] && ok "a second step from the booked 500 -> quota 1000 (the footprint)" ||
  fail "second step: $STATUS $(quota2) $(body)"
set -- $(cpu_pct2 "$BURNER2")
[ "$1" -le 2 ] && ok "stepped burner at $1% of a CPU" || fail "stepped burner uses $1%"
api POST /v1/tasks/a3/resume
[ "$STATUS" = 200 ] && [ "$(quota2)" = "$UNLIMITED" ] && ok "resume -> no CPU limit again" || fail "resume a3: $(quota2)"
# The agent never adopts a cgroup that holds itself (it could then freeze or throttle
# itself): moved below --adopt-root after its start, that cgroup is refused.
S="$CGP/adoptable/self"
for h in ${HIERS:-x}; do mkdir -p "$(cgdir $h "$S")" && echo "$AGENT_PID" >"$(cgdir $h "$S")/cgroup.procs" || fail "move the agent to $h$S"; done
api POST /v1/tasks/adopt "{\"cgroup\":\"$S\",\"id\":\"self\"}"
[ "$STATUS" = 403 ] && body | grep -q "agent's own cgroup" && ok "adopting the agent's own cgroup -> 403" || fail "self adopt: $STATUS $(body)"
api POST /v1/tasks/adopt "{\"cgroup\":\"$CGP/adoptable\",\"id\":\"above\"}"
[ "$STATUS" = 403 ] && ok "adopting a cgroup above the agent's -> 403" || fail "adopt above the agent: $STATUS $(body)"
stop_agent TERM
kill -9 "$BURNER" "$BURNER2"
# An --adopt-root that covers the agent's own cgroup (the test's, which it inherits) is
# refused at start, naming the setting.
timeout 10 "$AGENT_BIN" --listen "unix:$SOCK" --state-dir "$STATE" --cgroup-parent "$CGP" --adopt-root "${OWN:-/}" >"$TMP/out" 2>&1; got=$?
[ "$got" = 1 ] && grep -q "adopt_root ${OWN:-/} covers the agent's own cgroup" "$TMP/out" &&
  ok "--adopt-root ${OWN:-/} (the agent's own cgroup) refused at start" || fail "adopt root over the agent: status $got $(head -3 "$TMP/out")"
exit $FAILED
