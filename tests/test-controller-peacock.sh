#!/bin/sh
# ebb-controller running peacock with 3 real ebb-agents (2 CPUs of capacity each): its probes
# rotate between nodes in rounds (--policy-opt rotation-interval=0.1) and reach them on the
# controller's timer at their due time. A job of 10 short CPU burners on 6 slots, then a
# second of 4 while the first runs: more tasks than slots, so probes find busy nodes and move
# on along the ring; every task ends with the iteration count it was asked for and is started
# exactly once, the decision log has one launch a task, /metrics counts the probes the timer
# delivered, and the controller is still running. Then a job whose probes are in flight
# when the controller is killed (-9): after the restart each of its tasks runs once. Time
# budget: about 20 s.
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

# A job of 10 on 6 slots and a kill -9 of the controller right after its answer: its probes
# in flight are gone, their tasks pending in the store; the restarted controller queues them
# again and every task still runs exactly once.
set --
for k in 1 2 3 4 5 6 7 8 9 10; do set -- "$@" "$(burner_task pc$k $ITER)"; done
capi POST /v1/jobs "$(job_body pc short "$@")"
[ "$STATUS" = 201 ] && JC=$(jq -r .id "$TMP/body") || fail "submit: $STATUS $(cat "$TMP/body")"
capi GET "/v1/decisions?since=0"
seq=$(jq .last_seq "$TMP/body")
kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
start_controller --policy peacock --policy-opt rotation-interval=0.1 --node-timeout 5s ||
  fail "controller did not restart"
wait_for 90 '.state == "done"' "/v1/jobs/$JC" && ok "after kill -9 of the controller: job $JC done" ||
  fail "job $JC after restart: $(cat "$TMP/body")"
good=0
for k in 1 2 3 4 5 6 7 8 9 10; do
  [ "$(cat "$OUT/pc$k" 2>/dev/null)" = "$ITER" ] && [ "$(wc -l <"$OUT/pc$k.starts")" = 1 ] && good=$((good + 1))
done
[ $good = 10 ] && ok "each of its tasks started once" || fail "after restart: $good of 10 started once"
# At most 6 (the slots) launched before the kill: the others were probes in memory.
capi GET "/v1/decisions?since=$seq"
n=$(jq '[.decisions[] | select(.action == "launch" and .job == '"$JC"')] | length' "$TMP/body")
[ "$n" -ge 4 ] && ok "$n of its launches decided after the restart" || fail "launches after the restart: $n"
exit $FAILED
