#!/bin/sh
# ebbctl's controller commands against a stand-in of the controller's REST API
# (tests/status-page/fake-api: fixed JSON per route, every request logged): the tables, the
# request each command sends (submit's body, drain, kill, decisions' since), --wait and watch
# ending with the job, --json, the exit codes (4 for 404, 1 for errors), the token over TCP.
# The same commands against the real ebb-controller: tests/test-ebbctl-controller.sh.
# Budget: about 10 s.
: "${EBB_TOP_SRCDIR:=.}" "${EBB_TOP_BUILDDIR:=.}"
skip () { echo "SKIP: $*"; [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1; exit 77; }
fail () { echo "FAIL: $*"; FAILED=1; }
ok () { echo "ok: $*"; }
FAILED=0
FAKE="$EBB_TOP_BUILDDIR/tests/status-page/fake-api"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
[ -x "$FAKE" ] && [ -x "$EBBCTL" ] || skip "needs $FAKE and $EBBCTL"
command -v jq >/dev/null || skip "needs jq"
TMP=$(mktemp -d /tmp/ebbctl-fake.XXXXXX) || exit 99
FAKE_PID=
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
now=$(date +%s)
cp "$EBB_TOP_SRCDIR"/tests/status-page/data/*.json "$TMP/"
sed -i "s/NOW/$now/g" "$TMP"/*.json
echo "ebbctl-fake-token-$$" >"$TMP/token"
chmod 600 "$TMP/token"
"$FAKE" "$TMP" "$(cat "$TMP/token")" >"$TMP/url" & FAKE_PID=$!
i=0; while [ ! -s "$TMP/url" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
URL=$(cat "$TMP/url")
[ -n "$URL" ] || { fail "fake-api did not start"; exit 1; }
case $URL in unix:*) ;; *) fail "fake-api: $URL"; exit 1 ;; esac
E="$EBBCTL --controller $URL --token-file $TMP/token"

run () { "$@" >"$TMP/out" 2>"$TMP/err"; RC=$?; OUT=$(cat "$TMP/out"); ERR=$(cat "$TMP/err"); }
expect_rc () { if [ "$RC" = "$1" ]; then ok "$2 -> exit $1"; else fail "$2: exit $RC, want $1; out: $OUT; err: $ERR"; fi; }
last_request () { tail -1 "$TMP/requests.log"; }

run $E status
expect_rc 0 status
echo "$OUT" | grep -qx 'Policy:       ebb' && echo "$OUT" | grep -qx 'CPU:          5000m of 6000m allocated (83%)' &&
  echo "$OUT" | grep -qx "Controller:   $URL" && ok "status: a summary, the controller that answered" || fail "status: $OUT"
# The controller's own answer (a resource policy's, with its slots): a summary like kubectl
# describe, not "a.b: value" lines, and no slots (meaningless for resource policies).
cp "$TMP/GET_cluster.json" "$TMP/GET_cluster.fake"
cat >"$TMP/GET_cluster.json" <<'EOF2'
{"policy":"peacock","nodes":{"total":3,"ready":2,"draining":1,"lost":0},"capacity":{"cpu_millis":6000,"memory_bytes":12884901888},
 "allocated":{"cpu_millis":1500,"memory_bytes":3221225472},"queued_jobs":{"short":1,"long":2,"auto":0},"jobs":9,"jobs_in_memory":4,
 "running_tasks":5,"suspended_tasks":1,"preemptions":7,"slots":6,"decisions":12}
EOF2
run $E status
[ "$RC" = 0 ] && ! echo "$OUT" | grep -qi 'slots' && ! echo "$OUT" | grep -q '^[a-z_]*\.[a-z_]*: ' &&
  echo "$OUT" | grep -qx 'Nodes:        3: 2 ready, 1 draining, 0 lost' &&
  echo "$OUT" | grep -qx 'Memory:       3G of 12G allocated (25%)' &&
  echo "$OUT" | grep -qx 'Tasks:        5 running, 1 suspended' && ok "status: no slots, no a.b: value dump" || fail "status summary: $OUT"
run $E status -o json
[ "$RC" = 0 ] && [ "$(echo "$OUT" | jq -r .slots)" = 6 ] && ok "status -o json: every member" || fail "status -o json: $OUT"
mv "$TMP/GET_cluster.fake" "$TMP/GET_cluster.json"

run $E nodes
echo "$OUT"
[ "$RC" = 0 ] && echo "$OUT" | head -1 | grep -q '^NAME  *STATE  *CPU(m)  *MEMORY  *TASKS  *HEARTBEAT$' &&
  echo "$OUT" | grep -q '^node-a  *ready  *2000/2000  *1G/4G  *3  *[0-9.]*m\?s ago$' &&
  echo "$OUT" | grep -q '^node-c  *lost ' && ok "nodes: a table" || fail "nodes: $OUT"

run $E jobs --all
echo "$OUT"
[ "$RC" = 0 ] && echo "$OUT" | grep -q '^1  *burn-long  *long  *running  *1/6 ' &&
  echo "$OUT" | grep -q '^2  *query  *short  *done  *2/2 ' && ok "jobs --all: a table with tasks done of total" || fail "jobs --all: $OUT"
# Active jobs by default (kubectl, squeue): the controller's ?state=active, the done job 2 not shown.
: >"$TMP/requests.log"
run $E jobs
[ "$RC" = 0 ] && echo "$OUT" | grep -q '^1  *burn-long ' && ! echo "$OUT" | grep -q '^2  ' &&
  grep -q '^GET /v1/jobs since=- state=active ' "$TMP/requests.log" && ok "jobs: the active jobs by default" || fail "jobs default: $OUT $(cat "$TMP/requests.log")"
# Filters: a finished state asks for every job; class and name (a glob) filter them.
run $E jobs --state done
[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c '^[0-9]')" = 1 ] && echo "$OUT" | grep -q '^2  *query  *short  *done ' &&
  ok "jobs --state done" || fail "jobs --state done: $OUT"
run $E jobs --all --class long
[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c '^[0-9]')" = 1 ] && echo "$OUT" | grep -q '^1  *burn-long ' && ok "jobs --all --class long" || fail "--class: $OUT"
run $E jobs --all --name 'qu*'
[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c '^[0-9]')" = 1 ] && echo "$OUT" | grep -q '^2  *query ' && ok "jobs --name 'qu*'" || fail "--name: $OUT"
run $E jobs --state runing
[ "$RC" = 2 ] && echo "$ERR" | grep -q "did you mean 'running'" && ok "jobs --state runing: exit 2, did you mean" || fail "--state runing: $RC $ERR"
# -o and --json anywhere on the line (kubectl); -o name: the ids alone; -o wide: more columns.
run $E jobs --all -o name
[ "$RC" = 0 ] && [ "$(echo $OUT)" = "1 2 3" ] && ok "jobs -o name: the ids" || fail "-o name: $OUT"
run $E jobs --all --json
[ "$RC" = 0 ] && [ "$(echo "$OUT" | jq -c '[.jobs[].id]')" = '["1","2","3"]' ] && ok "jobs --json after the command" || fail "jobs --json: $RC $OUT $ERR"
run $E jobs --state done -o json
[ "$RC" = 0 ] && [ "$(echo "$OUT" | jq -c '[.jobs[].id]')" = '["2"]' ] && ok "jobs -o json: filtered too" || fail "-o json filtered: $OUT"
run $E -o wide jobs --all
[ "$RC" = 0 ] && echo "$OUT" | head -1 | grep -q '^ID  *NAME  *CLASS  *STATE  *TASKS  *WAITED  *RUNTIME  *RUNNING  *SUSPENDED  *SUBMITTED  *REASON$' &&
  echo "$OUT" | grep -q '^1  *burn-long  *long  *running  *1/6  .*  3  *2  *[0-9-]* [0-9:]*  *-$' && ok "-o wide jobs: more columns" || fail "-o wide: $OUT"
run $E nodes -o wide
[ "$RC" = 0 ] && echo "$OUT" | head -1 | grep -q '  HEARTBEAT  *ADDRESS$' && ok "nodes -o wide: the address column" || fail "nodes -o wide: $OUT"
run $E nodes -o name
[ "$RC" = 0 ] && [ "$(echo $OUT)" = "node-a node-b node-c" ] && ok "nodes -o name: the names" || fail "nodes -o name: $OUT"
mv "$TMP/GET_jobs_state_active.json" "$TMP/active.off"; printf '{"jobs":[],"next_after":null}' >"$TMP/GET_jobs_state_active.json"
run $E jobs
[ "$RC" = 0 ] && [ "$(echo "$OUT" | wc -l)" = 1 ] && echo "$ERR" | grep -q 'jobs --all lists the finished ones' &&
  ok "jobs with none unfinished: says where the finished ones are" || fail "no active jobs: $RC $OUT $ERR"
mv "$TMP/active.off" "$TMP/GET_jobs_state_active.json"
run $E jobs -o yaml
[ "$RC" = 2 ] && echo "$ERR" | grep -q "want json, wide or name" && ok "-o yaml: exit 2" || fail "-o yaml: $RC $ERR"
# "did you mean" for a misspelt command or option.
run $E stauts
[ "$RC" = 2 ] && echo "$ERR" | grep -q "^ebbctl: unknown command 'stauts'; did you mean 'status'?$" && ok "a misspelt command: did you mean" || fail "stauts: $RC $ERR"
run $E jobs --sttae running
[ "$RC" = 2 ] && echo "$ERR" | grep -q "did you mean '--state'?" && ok "a misspelt option: did you mean" || fail "--sttae: $RC $ERR"
# Examples in every --help.
for c in "" $($EBBCTL --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\).*/\1/p'); do
  $EBBCTL $c --help | grep -q '^Examples:$' || fail "ebbctl $c --help: no examples"
done
ok "examples in every --help"
# --active: the controller's ?state=active pages (job 1, then after 1: job 3), job 2 not asked.
: >"$TMP/requests.log"
run $E jobs --active
[ "$RC" = 0 ] && echo "$OUT" | grep -q '^1  *burn-long  *long  *running  *1/6 ' && echo "$OUT" | grep -q '^3  ' &&
  [ "$(echo "$OUT" | grep -c '^[0-9]')" = 2 ] && [ "$(grep -c '^GET /v1/jobs since=-' "$TMP/requests.log")" = 2 ] &&
  grep -q '^GET /v1/jobs since=- state=active ' "$TMP/requests.log" &&
  grep -q '^GET /v1/jobs since=- after=1 state=active ' "$TMP/requests.log" &&
  ok "jobs --active: the ?state=active pages, 2 jobs" || fail "jobs --active: $RC $OUT $ERR $(cat "$TMP/requests.log")"
run $E jobs --active extra; expect_rc 2 "jobs --active extra"
# A hostile name reaches the terminal without its control characters: C0, and C1 (U+009B,
# the 8-bit CSI, as ebbctl(1) says), in tables and in the summary of job.
printf '{"jobs":[{"id":"9","name":"evil\\u001b[2Jname","state":"queued","tasks":[]},{"id":"10","name":"c1\\u009b2Jx","state":"queued","tasks":[]}]}' >"$TMP/GET_jobs.json"
run $E jobs --all
echo "$OUT" | grep -q 'evil?\[2Jname' && ! grep -q "$(printf '\033')" "$TMP/out" && ok "control characters shown as ?" || fail "escape: $OUT"
echo "$OUT" | grep -q '^10  *c1?2Jx ' && ! LC_ALL=C grep -q "$(printf '\302\233')" "$TMP/out" && ok "a C1 control (U+009B) shown as ?" || fail "C1: $OUT"
printf '{"id":"10","name":"c1\\u009b2Jx","class":"short","state":"queued\\u0085","tasks":[{"id":"10-0","state":"pen\\u009bding"}]}' >"$TMP/GET_jobs_10.json"
run $E job 10
[ "$RC" = 0 ] && echo "$OUT" | grep -qx 'Name:         c1?2Jx' && echo "$OUT" | grep -qx 'State:        queued?' && echo "$OUT" | grep -q '^10-0  *pen?ding ' &&
  ! LC_ALL=C grep -q "$(printf '\302')" "$TMP/out" && ok "job: C1 controls shown as ?" || fail "job C1: $OUT"

# GET /v1/jobs is paged: jobs follows next_after (?after=) to the last page, jobs 1 to 4 in
# one table (--json: one list, next_after null); a cursor that does not grow or is no number
# is an error, not a loop.
page () { # page FILE NEXT ID...: a page of jobs ID... whose next_after is NEXT
  f=$1 next=$2; shift 2
  { printf '{"jobs":['; sep=
    for id in "$@"; do printf '%s{"id":%s,"name":"p%s","class":"short","state":"done","ntasks":1,"task_states":{"exited":1}}' "$sep" "$id" "$id"; sep=,; done
    printf '],"next_after":%s}' "$next"; } >"$TMP/$f"
}
page GET_jobs.json 2 1 2; page GET_jobs_after_2.json 3 3; page GET_jobs_after_3.json null 4
: >"$TMP/requests.log"
run $E jobs --all
[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c '^[1-4]  *p[1-4]  *short  *done ')" = 4 ] &&
  [ "$(grep -c '^GET /v1/jobs since=-' "$TMP/requests.log")" = 3 ] &&
  grep -q '^GET /v1/jobs since=- after=2 ' "$TMP/requests.log" && grep -q '^GET /v1/jobs since=- after=3 ' "$TMP/requests.log" &&
  ok "jobs: three pages followed, one table of 4 jobs" || fail "pages: $RC $OUT $ERR $(cat "$TMP/requests.log")"
run $E --json jobs --all
[ "$RC" = 0 ] && echo "$OUT" | jq -e '[.jobs[].id] == [1, 2, 3, 4] and .next_after == null' >/dev/null &&
  ok "--json jobs: one list of every page" || fail "--json pages: $OUT"
page GET_jobs_after_3.json 3 4
run timeout 10 $E jobs --all; expect_rc 1 "jobs: a cursor that does not grow"
page GET_jobs_after_3.json '"x"' 4
run timeout 10 $E jobs --all; expect_rc 1 "jobs: a cursor that is no number"
echo "$ERR" | grep -q 'bad next page' && ok "the bad cursor reported" || fail "cursor: $ERR"
cp "$EBB_TOP_SRCDIR"/tests/status-page/data/GET_jobs.json "$TMP/"
sed -i "s/NOW/$now/g" "$TMP/GET_jobs.json"

cat >"$TMP/GET_jobs_1.json" <<EOF2
{"id":"1","name":"burn-long","class":"long","state":"running","submitted_at":$now,"started_at":$now,
 "tasks":[{"id":"1.0","state":"running","node":"node-a","agent_task_id":"j1-t0-g1","suspensions":0,"started_at":$now},
          {"id":"1.1","state":"suspended","node":"node-b","agent_task_id":"j1-t1-g2","suspensions":2,"started_at":$now},
          {"id":"1.2","state":"exited","node":"node-a","agent_task_id":"j1-t2-g1","exit_status":0,"suspensions":1,"started_at":$now,"finished_at":$((now + 5))}]}
EOF2
run $E job 1
echo "$OUT"
[ "$RC" = 0 ] && echo "$OUT" | grep -qx 'State:        running' && echo "$OUT" | grep -qx 'Tasks:        3: 1 running, 1 suspended, 1 exited' &&
  echo "$OUT" | grep -q '^Started:      .* (waited 0ms)$' && ! echo "$OUT" | grep -q '^[a-z_]*: ' &&
  echo "$OUT" | grep -q '^TASK  *STATE  *NODE  *AGENT-TASK  *EXIT  *SUSPENSIONS  *RUNTIME$' &&
  echo "$OUT" | grep -q '^1\.1  *suspended  *node-b  *j1-t1-g2  *-  *2 ' && echo "$OUT" | grep -q '^1\.2  *exited  *node-a  *j1-t2-g1  *0  *1  *5\.0s$' &&
  ok "job: a summary and a table of its tasks" || fail "job 1: $OUT"
run $E job 77;  expect_rc 4 "job of an unknown id"
echo "$ERR" | grep -q 'HTTP 404' && ok "404 reported" || fail "404: $ERR"
run $E node nope; expect_rc 4 "node of an unknown name"

echo '{"id":"42","state":"queued"}' >"$TMP/POST_jobs.json"
run $E submit --name burn --class long --tasks 3 --cpu 500 --memory 64M --est 30 -- sh -c 'echo a/b'
[ "$RC" = 0 ] && [ "$OUT" = 42 ] && ok "submit prints the job id" || fail "submit: $RC $OUT $ERR"
body=$(last_request | sed 's/^POST \/v1\/jobs since=- //')
[ "$(echo "$body" | jq -c '[.name,.class,.est_task_sec,(.tasks|length),.tasks[2].argv,.tasks[0].cpu_millis,.tasks[0].memory_bytes]')" = \
  '["burn","long",30,3,["sh","-c","echo a/b"],500,67108864]' ] && ok "submit: the body of POST /v1/jobs" || fail "submit body: $body"
rid1=$(echo "$body" | jq -r .request_id)
run $E submit -- true
rid2=$(last_request | sed 's/^POST \/v1\/jobs since=- //' | jq -r .request_id)
[ -n "$rid1" ] && [ "$rid1" != null ] && [ "$rid1" != "$rid2" ] && ok "each submission has its own request_id" || fail "request ids $rid1 $rid2"
run $E submit --tasks 0 -- true;    expect_rc 2 "submit --tasks 0"
run $E submit true;                 expect_rc 2 "submit without --"
# submit --json FILE: the file's object is the body, posted as it is (a diamond DAG here);
# - reads stdin; a file that is not an object, unreadable, or with ARGV or a body option: 2.
cat >"$TMP/dag.json" <<'EOF2'
{"name":"diamond","class":"short","deps":[[0,1],[0,2],[1,3],[2,3]],
 "tasks":[{"argv":["a"],"cpu_millis":100,"memory_bytes":1048576,"stage":0},{"argv":["b"],"cpu_millis":100,"memory_bytes":1048576,"stage":1},
          {"argv":["c"],"cpu_millis":100,"memory_bytes":1048576,"stage":1},{"argv":["d"],"cpu_millis":100,"memory_bytes":1048576,"net_mbps":50,"stage":2}]}
EOF2
run $E submit --json "$TMP/dag.json"
body=$(last_request | sed 's/^POST \/v1\/jobs since=- //')
[ "$RC" = 0 ] && [ "$OUT" = 42 ] && [ "$(echo "$body" | jq -S -c 'del(.request_id)')" = "$(jq -S -c . "$TMP/dag.json")" ] &&
  echo "$body" | jq -e '.request_id | test("^ebbctl-[0-9a-f]{24}$")' >/dev/null &&
  ok "submit --json FILE: the body is the file's object, with a request_id added" ||
  fail "submit --json: $RC $OUT $ERR $body"
: >"$TMP/requests.log"
run sh -c "$E submit --json - <'$TMP/dag.json'"
body=$(last_request | sed 's/^POST \/v1\/jobs since=- //')
[ "$RC" = 0 ] && [ "$(echo "$body" | jq -S -c 'del(.request_id)')" = "$(jq -S -c . "$TMP/dag.json")" ] &&
  ok "submit --json -: the body from stdin" || fail "submit --json -: $RC $OUT $ERR $body"
: >"$TMP/requests.log"
jq -c '. + {request_id: "mine-1"}' "$TMP/dag.json" >"$TMP/dag-rid.json"
run $E submit --json "$TMP/dag-rid.json"
body=$(last_request | sed 's/^POST \/v1\/jobs since=- //')
[ "$RC" = 0 ] && [ "$(echo "$body" | jq -S -c .)" = "$(jq -S -c . "$TMP/dag-rid.json")" ] &&
  ok "submit --json: a file's own request_id is kept" || fail "own request_id: $RC $ERR $body"
: >"$TMP/requests.log"
echo '[1, 2]' >"$TMP/array.json"
run $E submit --json "$TMP/array.json"
[ "$RC" = 2 ] && echo "$ERR" | grep -q "^ebbctl submit: --json: '$TMP/array.json' is not a JSON object" &&
  ok "submit --json: a non-object -> exit 2, says so" || fail "non-object: $RC $ERR"
echo '{"name":' >"$TMP/broken.json"
run $E submit --json "$TMP/broken.json"
[ "$RC" = 2 ] && echo "$ERR" | grep -q "invalid JSON" && ok "submit --json: broken JSON -> exit 2" || fail "broken: $RC $ERR"
run $E submit --json "$TMP/none.json"
[ "$RC" = 2 ] && echo "$ERR" | grep -q "cannot open '$TMP/none.json'" && ok "submit --json: unreadable file -> exit 2" || fail "unreadable: $RC $ERR"
run $E submit --json "$TMP/dag.json" -- true
[ "$RC" = 2 ] && echo "$ERR" | grep -q "cannot be combined with a program" && ok "submit --json with ARGV -> exit 2" || fail "with ARGV: $RC $ERR"
run $E submit --tasks 2 --json "$TMP/dag.json"
[ "$RC" = 2 ] && echo "$ERR" | grep -q "cannot be combined with --name, --class, --tasks" && ok "submit --json with --tasks -> exit 2" || fail "with --tasks: $RC $ERR"
[ ! -s "$TMP/requests.log" ] && ok "no request for a refused --json" || fail "refused --json posted: $(cat "$TMP/requests.log")"
# The controller's 400 and its reason.
cp "$TMP/POST_jobs.json" "$TMP/POST_jobs.ok"
printf '#STATUS 400\n{"error":"bad request","detail":"deps: a cycle through task 1"}' >"$TMP/POST_jobs.json"
run $E submit --json "$TMP/dag.json"
[ "$RC" = 1 ] && echo "$ERR" | grep -q 'HTTP 400 bad request: deps: a cycle through task 1' && ok "submit --json: the 400's reason, exit 1" || fail "400: $RC $ERR"
mv "$TMP/POST_jobs.ok" "$TMP/POST_jobs.json"

# --wait: the job ends while ebbctl polls.
echo '{"id":"42","state":"running","tasks":[{"state":"running"}]}' >"$TMP/GET_jobs_42.json"
(sleep 1; echo '{"id":"42","state":"done","tasks":[{"state":"exited"}]}' >"$TMP/GET_jobs_42.json.new" &&
  mv "$TMP/GET_jobs_42.json.new" "$TMP/GET_jobs_42.json") &
run timeout 10 $E submit --wait -- true
[ "$RC" = 0 ] && [ "$OUT" = "42 done" ] && ok "submit --wait -> exit 0 once done" || fail "wait: $RC $OUT $ERR"
echo '{"id":"42","state":"failed","tasks":[{"state":"failed"}]}' >"$TMP/GET_jobs_42.json"
run timeout 10 $E submit --wait -- true
[ "$RC" = 1 ] && [ "$OUT" = "42 failed" ] && ok "submit --wait -> exit 1 when failed" || fail "wait failed: $RC $OUT"
run timeout 10 $E submit --wait --json "$TMP/dag.json"
[ "$RC" = 1 ] && [ "$OUT" = "42 failed" ] && ok "submit --wait --json: waits for the job" || fail "wait --json: $RC $OUT $ERR"

echo '{"name":"node-b","state":"draining"}' >"$TMP/POST_nodes_node-b_drain.json"
run $E drain node-b
[ "$RC" = 0 ] && [ "$OUT" = "node-b: draining" ] && last_request | grep -q '^POST /v1/nodes/node-b/drain ' &&
  ok "drain -> POST /v1/nodes/node-b/drain" || fail "drain: $RC $OUT $(last_request)"
echo '{"name":"node-b","state":"ready"}' >"$TMP/POST_nodes_node-b_undrain.json"
run $E undrain node-b
[ "$OUT" = "node-b: ready" ] && last_request | grep -q '^POST /v1/nodes/node-b/undrain ' && ok "undrain" || fail "undrain: $OUT"
echo '{"id":"1","state":"killed"}' >"$TMP/DELETE_jobs_1.json"
run $E kill 1
[ "$RC" = 0 ] && [ "$OUT" = "1: running -> killed" ] && last_request | grep -q '^DELETE /v1/jobs/1 ' &&
  ok "kill -> DELETE /v1/jobs/1, the state before and after" || fail "kill: $OUT"
: >"$TMP/requests.log"
run $E kill 77
[ "$RC" = 4 ] && ! grep -q '^DELETE' "$TMP/requests.log" && ok "kill of an unknown job: exit 4, nothing deleted" || fail "kill 77: $RC $ERR"
printf '#STATUS 409\n{"error":"conflict","detail":"job 1 already ended"}' >"$TMP/DELETE_jobs_1.json"
run $E kill 1
[ "$RC" = 1 ] && echo "$ERR" | grep -q 'HTTP 409 conflict: job 1 already ended' && ok "an error answer: its detail, exit 1" || fail "409: $RC $ERR"

printf '{"id":"5","state":"killed"}' >"$TMP/DELETE_jobs_5.json"
printf '{"id":"5","state":"run\\u009bning"}' >"$TMP/GET_jobs_5.json"
run $E kill 5
[ "$OUT" = "5: run?ning -> killed" ] && ok "kill: a state with a C1 control is printed with ?" || fail "hostile state: $OUT"
printf '{"name":"node-x","state":"drai\\u001b[31mning"}' >"$TMP/POST_nodes_node-x_drain.json"
run $E drain node-x
[ "$OUT" = "node-x: drai?[31mning" ] && ok "drain: a state with control characters is printed with ?" || fail "hostile drain state: $OUT"

run $E decisions
echo "$OUT"
[ "$RC" = 0 ] && echo "$OUT" | head -1 | grep -q '^SEQ  *TIME  *ACTION  *TASK  *NODE  *FOR JOB  *REASON$' &&
  echo "$OUT" | grep -q '^2  .*  suspend  *1\.1  *node-a  *2  *short job 2 waits: preempt long task 1\.1$' &&
  ok "decisions: a table" || fail "decisions: $OUT"
: >"$TMP/requests.log"
run timeout 2.5 $E decisions --follow
polls=$(grep -c '^GET /v1/decisions' "$TMP/requests.log")
[ "$polls" -ge 2 ] && sed -n 2p "$TMP/requests.log" | grep -q 'since=3 ' && [ "$(echo "$OUT" | grep -c '^[0-9]  ')" = 3 ] &&
  ok "decisions --follow: polls with since= the last seq, prints each decision once" || fail "follow: $polls $(cat "$TMP/requests.log") $OUT"
run $E --json decisions
[ "$(echo "$OUT" | jq '.decisions | length')" = 3 ] && ok "--json decisions" || fail "--json decisions"
# A log longer than one answer (the controller pages at 10000 and says its last_seq): every
# page is fetched, each decision shown once; --json gives the pages as one answer.
jq -c '.last_seq = 5' "$TMP/GET_decisions.json" >"$TMP/GET_decisions_since_0.json"
printf '{"decisions":[{"seq":4,"time":%s,"action":"launch","job":3,"task":"3-0","node":"node-b","for_job":3,"reason":"page 2"},{"seq":5,"time":%s,"action":"kill","job":3,"task":"3-0","node":"node-b","for_job":3,"reason":"page 2 end"}],"last_seq":5}' \
  "$now" "$now" >"$TMP/GET_decisions_since_3.json"
: >"$TMP/requests.log"
run $E decisions
[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c '^[0-9]  ')" = 5 ] && echo "$OUT" | grep -q '^5  .*  kill  *3-0  *node-b  *3  *page 2 end$' &&
  [ "$(grep -c '^GET /v1/decisions' "$TMP/requests.log")" = 2 ] && grep -q 'since=3 ' "$TMP/requests.log" &&
  ok "decisions: a log of two pages, all 5 shown" || fail "paged decisions: $OUT $(cat "$TMP/requests.log")"
run $E --json decisions
[ "$(echo "$OUT" | jq -c '[.decisions[].seq]')" = '[1,2,3,4,5]' ] && ok "--json decisions: two pages as one answer" ||
  fail "--json paged decisions: $OUT"
rm -f "$TMP/GET_decisions_since_0.json" "$TMP/GET_decisions_since_3.json"

cp "$TMP/GET_jobs_1.json" "$TMP/GET_jobs_1.json.orig"
run $E watch --count 2 --interval 0.2
[ "$RC" = 0 ] && [ "$(echo "$OUT" | grep -c '^ebbctl watch ')" = 2 ] && echo "$OUT" | grep -q '^NODES$' &&
  echo "$OUT" | grep -q '^\[[#>~.]*\] [0-9]*/[0-9]* done, [0-9]* running, [0-9]* suspended$' &&
  ok "watch: two frames with a progress bar, nodes and jobs" || fail "watch: $RC $OUT"
(sleep 1; sed 's/"state":"running","submitted_at"/"state":"done","submitted_at"/' "$TMP/GET_jobs_1.json.orig" >"$TMP/x" && mv "$TMP/x" "$TMP/GET_jobs_1.json") &
run timeout 10 $E watch --interval 0.2 1
[ "$RC" = 0 ] && echo "$OUT" | grep -q '^\[#############>>>>>>>>>>>>>~~~~~~~~~~~~~~\] 1/3 done, 1 running, 1 suspended$' &&
  echo "$OUT" | tail -7 | grep -q '^job 1  burn-long  done$' && ok "watch JOB: progress bar, ends with the job" || fail "watch 1: $RC $OUT"
run $E --json watch --count 1
[ "$RC" = 0 ] && [ "$(echo "$OUT" | jq -r .cluster.policy)" = ebb ] && ok "--json watch: one JSON frame per line" || fail "--json watch: $OUT"
run $E watch --interval 0 ;   expect_rc 2 "watch --interval 0"
run timeout 5 $E watch --interval 0.1 77;  expect_rc 4 "watch of an unknown job"
# A failing call does not end the view: 3 frames, then the exit status of the last one.
mv "$TMP/GET_cluster.json" "$TMP/GET_cluster.off"
printf '#STATUS 503\n{"error":"unavailable","detail":"restarting"}' >"$TMP/GET_cluster.json"
run timeout 5 $E watch --interval 0.1 --count 3
[ "$RC" = 1 ] && [ "$(echo "$OUT" | grep -c '^ebbctl watch ')" = 3 ] && [ "$(echo "$ERR" | grep -c 'HTTP 503')" = 3 ] &&
  ok "watch goes on through failing calls, exit 1" || fail "watch through failures: $RC $OUT $ERR"
mv "$TMP/GET_cluster.off" "$TMP/GET_cluster.json"

run $EBBCTL --controller "$URL" status
[ "$RC" = 1 ] && echo "$ERR" | grep -q 'HTTP 401' && ok "no token -> 401, exit 1" || fail "no token: $RC $ERR"
echo "$ERR" | grep -q 'pass --token-file FILE' && ok "no token: the hint names --token-file" ||
  fail "no token, no hint: $ERR"
echo "ebbctl-wrong-token-$$" >"$TMP/wrong"
chmod 600 "$TMP/wrong"
run $EBBCTL --controller "$URL" --token-file "$TMP/wrong" status
[ "$RC" = 1 ] && echo "$ERR" | grep -q "refused the token of $TMP/wrong\$" &&
  ! echo "$ERR" | grep -q 'pass --token-file' && ok "a wrong token: says the file's token was refused" ||
  fail "wrong token: $RC $ERR"
EBB_CONTROLLER="$URL" run $EBBCTL --token-file "$TMP/token" status
expect_rc 0 "EBB_CONTROLLER as the address"
run $EBBCTL --controller 'bad::' status
[ "$RC" = 2 ] && echo "$ERR" | grep -q "^ebbctl: --controller: bad address 'bad::'" &&
  ok "a bad global option: exit 2, 'ebbctl: ' then the error" || fail "bad --controller: $RC $ERR"
run $EBBCTL --controller
[ "$RC" = 2 ] && echo "$ERR" | grep -q "^ebbctl: missing value for '--controller'$" &&
  ok "a global option without its value: exit 2, says which" || fail "--controller alone: $RC $ERR"
run $EBBCTL submit --name
[ "$RC" = 2 ] && echo "$ERR" | grep -q "^ebbctl submit: missing value for '--name'$" &&
  ok "a command option without its value: exit 2, says which" || fail "submit --name alone: $RC $ERR"
run $EBBCTL --controller "unix:$TMP/none.sock" status
[ "$RC" = 1 ] && echo "$ERR" | grep -q "^ebbctl: cannot reach the controller at unix:$TMP/none.sock: No such file or directory (is ebb-controller running" &&
  ok "a unix socket that is not there: exit 1, says so" || fail "missing socket: $RC $ERR"
run $EBBCTL --controller "unix:$TMP/token" status
[ "$RC" = 1 ] && echo "$ERR" | grep -q ": not a socket$" && ok "a file that is not a socket: says so" ||
  fail "not a socket: $RC $ERR"
# Colour on a terminal (script(1) gives ebbctl one): states in colour; NO_COLOR, a pipe
# and -o json without. watch fits the terminal's height and draws suspended tasks ('~',
# yellow) apart from running ones ('>', green).
ESC=$(printf '\033')
onatty () { script -qec "$*" /dev/null </dev/null >"$TMP/tty" 2>&1; }
onatty "TERM=xterm $E jobs --all"
grep -q "${ESC}\[32mrunning${ESC}\[0m" "$TMP/tty" && grep -q "${ESC}\[33mqueued${ESC}\[0m" "$TMP/tty" &&
  ok "jobs on a terminal: states in colour" || fail "no colour on a tty: $(cat -v "$TMP/tty")"
onatty "TERM=xterm NO_COLOR=1 $E jobs --all"
grep -q running "$TMP/tty" && ! grep -q "$ESC" "$TMP/tty" && ok "NO_COLOR: no colour" || fail "NO_COLOR: $(cat -v "$TMP/tty")"
run $E jobs --all
! grep -q "$ESC" "$TMP/out" && ok "a pipe: no colour" || fail "colour into a pipe"
onatty "stty rows 10 cols 60; TERM=xterm $E watch --count 1"
lines=$(tr -d '\r' <"$TMP/tty" | wc -l)
widest=$(tr -d '\r' <"$TMP/tty" | sed "s/${ESC}\[[0-9;]*[A-Za-z]//g" | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
[ "$lines" -le 9 ] && [ "$widest" -le 59 ] && grep -q '^\.\.\. [0-9]* more lines' "$TMP/tty" &&
  ok "watch: $lines lines of at most $widest columns on a terminal of 10x60" ||
  fail "watch on 10x60: $lines lines, $widest columns: $(cat -v "$TMP/tty")"
grep -q "${ESC}\[32m>*${ESC}\[0m${ESC}\[33m~*${ESC}\[0m" "$TMP/tty" && ok "watch: running and suspended drawn apart, in colour" ||
  fail "watch bar: $(cat -v "$TMP/tty")"

kill "$FAKE_PID"; wait "$FAKE_PID" 2>/dev/null; FAKE_PID=
run $E status
[ "$RC" = 1 ] && echo "$ERR" | grep -q 'cannot reach the controller' && ok "controller gone -> exit 1, says so" || fail "gone: $RC $ERR"
exit $FAILED
