#!/bin/sh
# ebb-controller (policy ebb) with 2 real ebb-agents: finished jobs leave memory and are
# still answered the same. 10 jobs (exit statuses 0, 1, 2, one killed while running) finish with
# keep_finished = 1000 (nothing evicted); their GET /v1/jobs/ID, GET /v1/jobs and the job
# and task gauges are saved. keep_finished = 2 and SIGHUP: the jobs in memory drop to 2
# (ebb_controller_jobs_in_memory, ebb_controller_jobs_evicted_total 8) and every answer is
# the same as before, read from the store; a repeated request_id of an evicted job returns
# its first answer and makes no job. 10 more jobs leave 2 in memory, and the policy holds
# none of the 20 (ebb_controller_policy_jobs 0). After a restart (which loads no finished
# job) the answers are still the same and ids go on. The 20 jobs (2 in memory and 18 in the
# store, then after the restart all in the store only) listed in pages of 3, 4 and 20
# (?limit=, ?after= the next_after) make the same list as one page of 1000, and pages of 1, 3,
# 4, 20 and 1000 with ?order=desc the same list reversed; hostile query arguments (?state=
# and ?order= too) get a 400 and change nothing. A running job 21 and a finished job 22 in
# memory: ?state=active lists job 21 alone. Time budget: about 35 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
setup_cgroups
CONF="$TMP/controller.conf"
echo "keep_finished = 1000" >"$CONF"
start_controller --policy ebb --config "$CONF" || { fail "controller did not start"; exit 1; }
start_node 1; start_node 2
wait_for 10 '[.nodes[] | select(.state == "ready")] | length == 2' /v1/nodes &&
  ok "2 agents registered" || fail "nodes: $(cat "$TMP/body")"

task () { printf '{"argv":["sh","-c","%s"],"cpu_millis":500,"memory_bytes":33554432}' "$1"; }

# submit K: job evK of two tasks exiting K % 3 (K = 5 sleeps: it is killed); its id in IDS.
IDS=
submit () {
  if [ "$1" = 5 ]; then
    capi POST /v1/jobs "$(job_body "ev$1" long "$(task "sleep 60")")"
  else
    capi POST /v1/jobs "$(job_body "ev$1" short "$(task "exit $(($1 % 3))")" "$(task "exit 0")")"
  fi
  [ "$STATUS" = 201 ] || { fail "submit ev$1: $STATUS $(cat "$TMP/body")"; return; }
  cp "$TMP/body" "$TMP/answer-$1"
  IDS="$IDS $(jq -r .id "$TMP/body")"
}
for k in 1 2 3 4 5 6 7 8 9 10; do submit $k; done
KILLED=$(jq -r .id "$TMP/answer-5")
wait_for 10 '.task_states.running == 1' "/v1/jobs/$KILLED" || fail "ev5 not running"
capi DELETE "/v1/jobs/$KILLED"

# finished: every job of $IDS is done, failed or killed and no agent call is under way.
finished () {
  for id in $IDS; do
    capi GET "/v1/jobs/$id"
    jq -e '.state == "done" or .state == "failed" or .state == "killed"' "$TMP/body" >/dev/null ||
      return 1
  done
  capi GET /metrics
  grep -q '^ebb_controller_agent_calls_in_flight 0$' "$TMP/body"
}
end=$(( $(date +%s) + 20 ))
until finished || [ "$(date +%s)" -gt "$end" ]; do sleep 0.2; done
finished && ok "10 jobs finished" || fail "not finished: $(cat "$TMP/body")"

gauges () { capi GET /metrics; grep -E '^ebb_controller_(jobs|tasks)\{' "$TMP/body"; }
save () {
  for id in $IDS; do capi GET "/v1/jobs/$id"; jq -S . "$TMP/body" >"$TMP/$1-$id"; done
  capi GET /v1/jobs; jq -S . "$TMP/body" >"$TMP/$1-list"
  gauges >"$TMP/$1-gauges"
}
same () {
  for id in $IDS; do cmp -s "$TMP/before-$id" "$TMP/$1-$id" || { diff "$TMP/before-$id" "$TMP/$1-$id"; return 1; }; done
  cmp -s "$TMP/before-list" "$TMP/$1-list" && cmp -s "$TMP/before-gauges" "$TMP/$1-gauges"
}
# pages WHERE: GET /v1/jobs in pages (?limit=, ?after= the last page's next_after) of the 20
# finished jobs: the pages together are the one list of ?limit=1000, in id order; with
# ?order=desc, the same list reversed (after: the ids below it).
pages () {
  capi GET '/v1/jobs?limit=1000'
  jq -S . "$TMP/body" >"$TMP/all"
  jq -e '[.jobs[].id] == [range(1; 21)] and .next_after == null' "$TMP/all" >/dev/null &&
    ok "$1: ?limit=1000: the 20 jobs, next_after null" || fail "all: $(cat "$TMP/all")"
  jq -S '.jobs |= reverse' "$TMP/all" >"$TMP/all-desc"
  for order in asc desc; do
    for limit in 1 3 4 20 1000; do
      [ $order = asc ] && [ $limit = 1 ] && continue # as 3 and 4 do, 20 requests more
      after= npages=0 sizes= prev=
      : >"$TMP/paged"
      while [ $npages -le 21 ]; do
        capi GET "/v1/jobs?limit=$limit${after:+&after=$after}$([ $order = desc ] && echo '&order=desc')"
        [ "$STATUS" = 200 ] || { fail "page after ${after:-none}: $STATUS $(cat "$TMP/body")"; break; }
        npages=$((npages + 1)) sizes="$sizes $(jq '.jobs | length' "$TMP/body")"
        jq -c '.jobs[]' "$TMP/body" >>"$TMP/paged"
        next=$(jq -r '.next_after' "$TMP/body")
        [ "$next" = null ] && break
        [ "$next" = "$(jq -r '.jobs[-1].id' "$TMP/body")" ] || { fail "next_after $next is not the page's last id"; break; }
        after=$next
      done
      want=$(( (20 + limit - 1) / limit ))
      whole="$TMP/all"; [ $order = desc ] && whole="$TMP/all-desc"
      [ "$npages" = "$want" ] && jq -s -S '{jobs: ., next_after: null}' "$TMP/paged" | cmp -s - "$whole" &&
        ok "$1: ?limit=$limit&order=$order: $npages pages ($sizes ) make the whole list" ||
        fail "$1: ?limit=$limit&order=$order: $npages pages ($sizes ), want $want: $(jq -c .id "$TMP/paged" | tr '\n' ' ')"
    done
  done
}

sleep 1 # a tick after the last commit: nothing leaves memory with keep_finished = 1000
save before
capi GET /metrics
grep -q '^ebb_controller_jobs_in_memory 10$' "$TMP/body" &&
  grep -q '^ebb_controller_jobs_evicted_total 0$' "$TMP/body" &&
  ok "keep_finished 1000: the 10 jobs stay in memory" ||
  fail "metrics: $(grep -E 'in_memory|evicted' "$TMP/body")"
jq -e '[.jobs[].state] | sort | unique == ["done", "failed", "killed"]' "$TMP/before-list" >/dev/null &&
  jq -e '.tasks[0].exit_status == 1 and .tasks[0].node != null and .tasks[0].agent_task_id != null' \
    "$TMP/before-$(jq -r .id "$TMP/answer-1")" >/dev/null &&
  ok "jobs done, failed and killed, with exit status, node and agent task id" ||
  fail "states: $(cat "$TMP/before-list")"

echo "keep_finished = 2" >"$CONF"
kill -HUP "$CTL_PID"
wait_for 5 '.jobs_in_memory == 2 and .jobs == 10' /v1/cluster &&
  ok "keep_finished 2 after SIGHUP: 2 jobs in memory, 10 in the store" || fail "cluster: $(cat "$TMP/body")"
capi GET /metrics
grep -q '^ebb_controller_jobs_in_memory 2$' "$TMP/body" &&
  grep -q '^ebb_controller_jobs_evicted_total 8$' "$TMP/body" && ok "metrics: 2 in memory, 8 evicted" ||
  fail "metrics: $(grep -E 'in_memory|evicted' "$TMP/body")"
save after
same after && ok "GET /v1/jobs/ID, GET /v1/jobs and the gauges are the same after eviction" ||
  fail "answers changed after eviction"

capi POST /v1/jobs "$(job_body ev1 short "$(task "exit 1")" "$(task "exit 0")")"
[ "$STATUS" = 201 ] && cmp -s "$TMP/body" "$TMP/answer-1" &&
  ok "a repeated request_id of an evicted job returns its first answer" ||
  fail "replay: $STATUS $(cat "$TMP/body") vs $(cat "$TMP/answer-1")"
wait_for 1 '.jobs == 10' /v1/cluster && ok "the replay made no job" || fail "cluster: $(cat "$TMP/body")"

FIRST=$IDS
IDS=
for k in 11 12 13 14 15 16 17 18 19 20; do submit $k; done
end=$(( $(date +%s) + 20 ))
until finished || [ "$(date +%s)" -gt "$end" ]; do sleep 0.2; done
wait_for 5 '.jobs_in_memory == 2 and .jobs == 20' /v1/cluster &&
  ok "10 more jobs: still 2 in memory" || fail "cluster: $(cat "$TMP/body")"
capi GET /metrics
grep -q '^ebb_controller_policy_jobs 0$' "$TMP/body" &&
  ok "the policy forgot every finished batch (ebb_controller_policy_jobs 0)" ||
  fail "policy jobs: $(grep policy_jobs "$TMP/body")"
pages "2 in memory, 18 in the store"
IDS=$FIRST

kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null; CTL_PID=
start_controller --policy ebb --config "$CONF" || fail "controller did not restart"
capi GET /v1/cluster
jq -e '.jobs_in_memory == 0 and .jobs == 20' "$TMP/body" >/dev/null &&
  ok "restart: no finished job loaded, 20 in the store" || fail "cluster: $(cat "$TMP/body")"
for id in $IDS; do capi GET "/v1/jobs/$id"; jq -S . "$TMP/body" >"$TMP/restart-$id"; done
capi GET /v1/jobs
jq -S '.jobs |= .[:10]' "$TMP/body" >"$TMP/restart-list"
ok_gauges=$(gauges | awk -F'[{} ]' '$1 == "ebb_controller_jobs" { s += $NF } END { print s }')
for id in $IDS; do cmp -s "$TMP/before-$id" "$TMP/restart-$id" || fail "job $id changed after restart"; done
cmp -s "$TMP/before-list" "$TMP/restart-list" && [ "$ok_gauges" = 20 ] &&
  ok "after a restart: the same answers, 20 jobs in the gauges" ||
  fail "restart: $(diff "$TMP/before-list" "$TMP/restart-list" | head -20) gauges $ok_gauges"

pages "all in the store"
capi GET '/v1/jobs?after=17&limit=2'
jq -e '[.jobs[].id] == [18, 19] and .next_after == 19' "$TMP/body" >/dev/null &&
  capi GET '/v1/jobs?after=18446744073709551615' &&
  jq -e '.jobs == [] and .next_after == null' "$TMP/body" >/dev/null &&
  ok "?after=17&limit=2: jobs 18 and 19; after the largest id: an empty last page" ||
  fail "after: $(cat "$TMP/body")"
# Hostile query arguments: 400 with a JSON error, and nothing changed.
counts () { jq -S '{jobs, jobs_in_memory, decisions, queued}' "$TMP/body"; }
capi GET /v1/cluster; counts >"$TMP/cluster-before"
n_bad=0
for q in limit=0 limit=-1 limit=abc limit=1001 limit=99999999999999999999999 limit=1e3 \
  limit=%2B5 limit=%205 limit=5%20 limit= limit 'limit=5&limit=6' 'limit=5&limit=5' \
  after=-1 after=18446744073709551616 after=0x10 after= 'after=1&after=2' lmit=5 \
  'limit=5&bogus=1' 'limit=5%00' "limit=$(printf '9%.0s' $(seq 300))" state=bogus state=ACTIVE \
  state= state 'state=active&state=active' 'state=active%00' order=up order=DESC order= \
  'order=desc&order=asc' 'order=desc&order=desc' 'order=desc&after=-1'; do
  capi GET "/v1/jobs?$q"
  if [ "$STATUS" = 400 ] && jq -e '.error == "bad_request" and (.detail | type == "string")' "$TMP/body" >/dev/null 2>&1
  then n_bad=$((n_bad + 1)); else fail "?$q -> $STATUS: $(cat "$TMP/body")"; fi
done
capi GET /v1/cluster
counts | cmp -s - "$TMP/cluster-before" && capi GET '/v1/jobs?limit=1000' &&
  jq -S . "$TMP/body" | cmp -s - "$TMP/all" &&
  ok "$n_bad hostile query arguments -> 400 with a JSON error, nothing changed" ||
  fail "after the bad requests: $(cat "$TMP/body")"
capi GET /v1/jobs
jq -e '(.jobs | length) == 20 and .next_after == null' "$TMP/body" >/dev/null &&
  ok "no argument: one page of the 20 (the default limit is 100)" || fail "default page: $(cat "$TMP/body")"

capi POST /v1/jobs "$(job_body ev21 long "$(task "sleep 60")")"
[ "$(jq -r .id "$TMP/body")" = 21 ] && ok "ids go on after the restart (21)" || fail "id: $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body ev22 short "$(task "exit 0")")"
wait_for 10 '.state == "running"' /v1/jobs/21 || fail "job 21 not running"
wait_for 10 '.state == "done"' /v1/jobs/22 || fail "job 22 not done"
# ?state=active: job 21 alone (in memory), not 22 finished in memory nor the 20 of the store.
for q in 'state=active' 'state=active&order=desc' 'state=active&limit=1' 'state=active&order=desc&after=22' \
  'state=active&limit=1000&order=asc'; do
  capi GET "/v1/jobs?$q"
  jq -e '[.jobs[].id] == [21] and .jobs[0].state == "running" and .next_after == null' "$TMP/body" >/dev/null ||
    fail "?$q: $STATUS $(cat "$TMP/body")"
done
capi GET '/v1/jobs?state=active&after=21'
jq -e '.jobs == [] and .next_after == null' "$TMP/body" >/dev/null &&
  capi GET '/v1/jobs?state=active&order=desc&after=21' &&
  jq -e '.jobs == [] and .next_after == null' "$TMP/body" >/dev/null &&
  ok "?state=active: job 21 only, either order, none after it" || fail "state=active: $(cat "$TMP/body")"
capi GET '/v1/jobs?order=desc&limit=3'
jq -e '[.jobs[].id] == [22, 21, 20] and .next_after == 20' "$TMP/body" >/dev/null &&
  capi GET '/v1/jobs?order=desc&after=1' && jq -e '.jobs == [] and .next_after == null' "$TMP/body" >/dev/null &&
  ok "?order=desc&limit=3: jobs 22, 21 (in memory), 20 (in the store); below id 1: none" ||
  fail "order=desc: $(cat "$TMP/body")"
capi DELETE /v1/jobs/21
# A sanitizer build reports what it found at exit (the first run's too: same log).
kill "$CTL_PID"; wait "$CTL_PID" 2>/dev/null; CTL_PID=
grep -E 'Sanitizer|runtime error' "$CLOG" && fail "sanitizer report in the controller log" ||
  ok "the controller exited clean"
exit $FAILED
