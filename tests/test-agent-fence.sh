#!/bin/sh
# Fenced agent (doc/ha.md "Fencing the agents"), end to end with curl on the real ebb-agent:
# a call of a higher Ebb-Leader-Epoch raises the agent's epoch, a lower one is refused with
# 409 stale_leader and changes nothing, POST /v1/fence raises it and answers the task list,
# a call without the header is accepted (unfenced), a restart keeps the epoch, and /metrics
# counts each outcome.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups

# eapi EPOCH METHOD PATH [BODY]: api with Ebb-Leader-Epoch: EPOCH.
eapi () {
  e=$1; shift
  if [ $# -ge 3 ]; then
    STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" -X "$1" -H "Ebb-Leader-Epoch: $e" \
      -H 'Content-Type: application/json' --data-binary "$3" "http://agent$2")
  else
    STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" -X "$1" -H "Ebb-Leader-Epoch: $e" "http://agent$2")
  fi
}
metric () { curl -s --unix-socket "$SOCK" http://agent/metrics | awk -v k="$1" '$1 == k { print $2 }'; }
expect () { # expect WHAT WANT GOT
  if [ "$2" = "$3" ]; then ok "$1: $3"; else fail "$1: want $2, got $3 $(body)"; fi
}

start_agent || { FAILED=1; fail "agent did not start"; exit 1; }
expect "fresh agent's epoch" 0 "$(metric ebb_agent_leader_epoch)"

eapi 5 POST /v1/tasks "$(launch_body f1 '["sleep","100000"]' 100 33554432)"
expect "launch at epoch 5" 201 "$STATUS"
expect "epoch raised" 5 "$(metric ebb_agent_leader_epoch)"
expect "epoch journaled" 5 "$(jq -r .epoch "$STATE/epoch")"

eapi 4 POST /v1/tasks/f1/suspend '{"mode":"immediate"}'
expect "suspend at epoch 4" "409 stale_leader" "$STATUS $(field .error)"
api GET /v1/tasks/f1
expect "the refused suspend did nothing" running "$(field .state)"
eapi 4 POST /v1/tasks "$(launch_body f2 '["sleep","100000"]' 100 33554432)"
expect "launch at epoch 4" 409 "$STATUS"
api GET /v1/tasks/f2
expect "the refused launch did nothing" 404 "$STATUS"

eapi 5 POST /v1/tasks/f1/suspend '{"mode":"immediate"}'
expect "suspend at epoch 5" 200 "$STATUS"
eapi x5 POST /v1/tasks/f1/resume '{}'
expect "a malformed epoch" 400 "$STATUS"
api POST /v1/tasks/f1/resume '{}'
expect "resume without the header (an operator's call)" 200 "$STATUS"
expect "the unfenced call left the epoch" 5 "$(metric ebb_agent_leader_epoch)"

api POST /v1/fence '{"epoch":3}'
expect "fence at epoch 3" "409 stale_leader" "$STATUS $(field .error)"
api POST /v1/fence '{}'
expect "fence without an epoch" 400 "$STATUS"
api POST /v1/fence '{"epoch":9,"leader":7}'
expect "fence with a leader not a string" 400 "$STATUS"
api POST /v1/fence '{"epoch":9}'
expect "fence at epoch 9" 200 "$STATUS"
expect "fence answers the epoch" 9 "$(field .epoch)"
expect "fence answers the tasks" "f1 running" "$(jq -r '.tasks[] | "\(.id) \(.state)"' "$TMP/body")"
api POST /v1/fence '{"epoch":9}'
expect "a retried fence" "200 9" "$STATUS $(field .epoch)"

stop_agent TERM
start_agent || { FAILED=1; fail "agent did not restart"; exit 1; }
expect "epoch after a restart" 9 "$(metric ebb_agent_leader_epoch)"
eapi 5 DELETE /v1/tasks/f1
expect "delete at the old epoch 5 after the restart" "409 stale_leader" "$STATUS $(field .error)"
stop_agent KILL
start_agent || { FAILED=1; fail "agent did not restart after kill -9"; exit 1; }
eapi 8 DELETE /v1/tasks/f1
expect "delete at epoch 8 after kill -9" 409 "$STATUS"
eapi 9 DELETE /v1/tasks/f1
expect "delete at epoch 9" 200 "$STATUS"

# Counts since this start: refused 1, accepted 1, raised 0.
expect "refused calls counted" 1 "$(metric 'ebb_agent_fence_calls_total{result="refused"}')"
expect "accepted calls counted" 1 "$(metric 'ebb_agent_fence_calls_total{result="accepted"}')"
expect "no raise since the restart" 0 "$(metric 'ebb_agent_fence_calls_total{result="raised"}')"
exit $FAILED
