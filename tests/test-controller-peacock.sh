#!/bin/sh
# ebb-controller running peacock with 3 real ebb-agents (2 CPUs of capacity each): its probes
# rotate between nodes in rounds (--policy-opt rotation-interval=0.1) and reach them on the
# controller's timer at their due time. A job of 10 short CPU burners on 6 slots, then a
# second of 4 while the first runs: more tasks than slots, so probes find busy nodes and move
# on along the ring; every task ends with the iteration count it was asked for and is started
# exactly once, the decision log has one launch a task, /metrics counts the probes the timer
# delivered, and the controller is still running. Time budget: about 20 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
start_controller --policy peacock --policy-opt rotation-interval=0.1 --node-timeout 5s ||
  { fail "controller did not start with --policy peacock"; exit 1; }
start_node 1; start_node 2; start_node 3
wait_for 10 '[.nodes[] | select(.state == "ready" and .slots == 2)] | length == 3' /v1/nodes &&
  ok "3 agents registered, 2 slots each" || fail "nodes: $(cat "$TMP/body")"

ITER=100000
set --
for k in 1 2 3 4 5 6 7 8 9 10; do set -- "$@" "$(burner_task pa$k $ITER)"; done
capi POST /v1/jobs "$(job_body pa short "$@")"
[ "$STATUS" = 201 ] && JA=$(jq -r .id "$TMP/body") && ok "job of 10 tasks on 6 slots -> 201, id $JA" ||
  fail "submit: $STATUS $(cat "$TMP/body")"
set --
for k in 1 2 3 4; do set -- "$@" "$(burner_task pb$k $ITER)"; done
capi POST /v1/jobs "$(job_body pb short "$@")"
[ "$STATUS" = 201 ] && JB=$(jq -r .id "$TMP/body") || fail "submit: $STATUS $(cat "$TMP/body")"
for j in "$JA" "$JB"; do
  wait_for 90 '.state == "done"' "/v1/jobs/$j" && ok "job $j done" || fail "job $j: $(cat "$TMP/body")"
done
good=0
for k in pa1 pa2 pa3 pa4 pa5 pa6 pa7 pa8 pa9 pa10 pb1 pb2 pb3 pb4; do
  [ "$(cat "$OUT/$k" 2>/dev/null)" = "$ITER" ] && [ "$(wc -l <"$OUT/$k.starts")" = 1 ] && good=$((good + 1))
done
[ $good = 14 ] && ok "every task counted $ITER iterations and started once" || fail "counts: $good of 14"
capi GET "/v1/decisions?since=0"
n=$(jq '[.decisions[] | select(.action == "launch")] | length' "$TMP/body")
[ "$n" = 14 ] && ok "decision log: 14 launches" || fail "launches: $n"
capi GET /metrics
timed=$(sed -n 's/^ebb_controller_policy_messages_timed_total //p' "$TMP/body")
# At least a probe a task, each delivered by the timer (more when probes rotated).
[ "${timed:-0}" -ge 14 ] && ok "the timer delivered $timed probes" || fail "timed messages: '$timed'"
kill -0 "$CTL_PID" 2>/dev/null && ok "controller still running" || { CTL_PID=; fail "controller died"; }
exit $FAILED
