#!/bin/sh
# ebb-controller running graphene (a DAG policy) with 2 real ebb-agents: a diamond job
# (0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3) of short shell tasks that write their start and end times:
# every task starts after each of its parents wrote its end, and once. Edges that form a
# cycle, name a task twice or out of range are refused with 400. Then a chain 0 -> 1 -> 2
# with the controller killed (-9) while its middle task runs: after the restart the last
# task still starts after the middle one ended, each once. Time budget: about 15 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
start_controller --policy graphene --node-timeout 5s ||
  { fail "controller did not start with --policy graphene"; exit 1; }
start_node 1; start_node 2
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 2' /v1/nodes &&
  ok "2 agents registered" || fail "nodes: $(cat "$TMP/body")"

# timed_task NAME SECONDS: writes $OUT/NAME.start and $OUT/NAME.end (seconds, nanoseconds)
# around a sleep, and a line per start to $OUT/NAME.starts.
timed_task () {
  printf '{"argv":["sh","-c","echo start >> %s/%s.starts; date +%%s.%%N > %s/%s.start; sleep %s; date +%%s.%%N > %s/%s.end"],"cpu_millis":500,"memory_bytes":67108864,"net_mbps":10}' \
    "$OUT" "$1" "$OUT" "$1" "$2" "$OUT" "$1"
}
# dag_body NAME DEPS TASK-JSON...: a POST /v1/jobs body with "deps".
dag_body () {
  name=$1 deps=$2; shift 2
  printf '{"name":"%s","request_id":"%s","deps":%s,"tasks":[' "$name" "$name" "$deps"
  sep=
  for t in "$@"; do printf '%s%s' "$sep" "$t"; sep=,; done
  printf ']}'
}
# after CHILD PARENT: CHILD started after PARENT ended (both ran once).
after () {
  [ -s "$OUT/$1.start" ] && [ -s "$OUT/$2.end" ] &&
    [ "$(wc -l <"$OUT/$1.starts")" = 1 ] && [ "$(wc -l <"$OUT/$2.starts")" = 1 ] &&
    awk -v c="$(cat "$OUT/$1.start")" -v p="$(cat "$OUT/$2.end")" 'BEGIN { exit !(c >= p) }'
}

capi POST /v1/jobs "$(dag_body d '[[0,1],[0,2],[1,3],[2,3]]' "$(timed_task d0 0.3)" \
  "$(timed_task d1 0.3)" "$(timed_task d2 0.6)" "$(timed_task d3 0.1)")"
[ "$STATUS" = 201 ] && JD=$(jq -r .id "$TMP/body") && ok "diamond -> 201, id $JD" ||
  fail "submit: $STATUS $(cat "$TMP/body")"
wait_for 30 '.state == "done"' "/v1/jobs/$JD" && ok "diamond done" || fail "diamond: $(cat "$TMP/body")"
for e in "d1 d0" "d2 d0" "d3 d1" "d3 d2"; do
  # shellcheck disable=SC2086
  after $e && ok "${e% *} started after ${e#* } ended" ||
    fail "${e% *} vs ${e#* }: start $(cat "$OUT/${e% *}.start" 2>/dev/null) end $(cat "$OUT/${e#* }.end" 2>/dev/null)"
done

k=0
for bad in '[[0,1],[1,0]] cycle' '[[0,1],[0,1]] twice' '[[0,2]] [0, 2)' '[[0]] pair'; do
  deps=${bad%% *} why=${bad#* } k=$((k + 1))
  capi POST /v1/jobs "$(dag_body "bad$k" "$deps" "$(timed_task x 0)" "$(timed_task y 0)")"
  [ "$STATUS" = 400 ] && jq -r .detail "$TMP/body" | grep -qF "$why" &&
    ok "deps $deps -> 400: $(jq -r .detail "$TMP/body")" || fail "deps $deps: $STATUS $(cat "$TMP/body")"
done

# A chain whose middle task runs when the controller is killed.
capi POST /v1/jobs "$(dag_body c '[[0,1],[1,2]]' "$(timed_task c0 0.2)" "$(timed_task c1 2)" \
  "$(timed_task c2 0.1)")"
[ "$STATUS" = 201 ] && JC=$(jq -r .id "$TMP/body") || fail "submit chain: $STATUS $(cat "$TMP/body")"
_w=0
while [ ! -s "$OUT/c1.start" ] && [ $_w -lt 100 ]; do sleep 0.1; _w=$((_w + 1)); done
[ -s "$OUT/c1.start" ] && [ ! -e "$OUT/c1.end" ] && ok "chain's middle task running" ||
  fail "middle task did not start in time"
kill -9 "$CTL_PID"; wait "$CTL_PID" 2>/dev/null
start_controller --policy graphene --node-timeout 5s || fail "controller did not restart"
wait_for 30 '.state == "done"' "/v1/jobs/$JC" && ok "after kill -9 of the controller: chain done" ||
  fail "chain after restart: $(cat "$TMP/body")"
after c1 c0 && after c2 c1 && ok "chain in order across the restart, each task once" ||
  fail "chain: c0 end $(cat "$OUT/c0.end") c1 $(cat "$OUT/c1.start")-$(cat "$OUT/c1.end" 2>/dev/null) c2 start $(cat "$OUT/c2.start" 2>/dev/null), starts $(cat "$OUT"/c*.starts | wc -l)"
kill -0 "$CTL_PID" 2>/dev/null && ok "controller still running" || { CTL_PID=; fail "controller died"; }
exit $FAILED
