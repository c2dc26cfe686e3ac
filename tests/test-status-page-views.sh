#!/bin/sh
# The status page's views in headless Chromium against a stand-in of the JSON API
# (tests/status-page/views: a running job with a suspended task the operator then held, a
# failed job whose tasks carry
# a reason, a killed, a done and a queued job with a reason; two nodes, one fully and one half
# allocated): screenshots of the cluster view, a job view (#job/ID) and a node view
# (#node/NAME) whose bars are found by their exact colours (tests/status-page/png-bars.py) and
# measured, and the DOM's text for states, reasons, "suspended since", "for job" and a job's
# priority; a task's output (#logs/JOB-TASK, read through the controller's logs route, shown
# as text); then a
# link followed and the back button in a browser driven over the DevTools protocol
# (tests/status-page/cdp.py), and one refresh loop after it. Last, the same page served by a
# standby, whose API answers 503 not_leader: the leader's link, not an error.
# Colours: task done 3a8f5c green, failed c62828 red, killed 8a949e grey, running 3b7dd8 blue,
# suspended e0a526 amber; node CPU allocated 5b4fc4, memory 1f9e8f. Budget: about 30 s.
. "${EBB_TOP_SRCDIR:-.}/tests/status-page/lib.sh"
BARS="$EBB_TOP_SRCDIR/tests/status-page/png-bars.py"
command -v python3 >/dev/null || skip "needs python3 (scripts/install-deps.sh installs it)"
fake_api_setup views
fake_api_start

COLOURS="3a8f5c c62828 8a949e 3b7dd8 e0a526 5b4fc4 1f9e8f"
# view NAME FRAGMENT: its DOM in $TMP/NAME.html, its bars in $TMP/NAME.bars.
view () {
  chromium_run "$TMP/$1" "$URL/$2"
  chromium_shot "$TMP/$1.png" "$URL/$2"
  [ -s "$TMP/$1.png" ] || { fail "$1: no screenshot"; return; }
  python3 "$BARS" "$TMP/$1.png" $COLOURS >"$TMP/$1.bars" || fail "$1: cannot read the screenshot"
}
bar () { bar_in "$@"; }
# same_row FILE COLOUR1 WIDTH1 COLOUR2 WIDTH2: both bars on one row.
same_row () {
  a=$(bar "$1" "$2" "$3") b=$(bar "$1" "$4" "$5")
  [ -n "$a" ] && [ "$a" = "$b" ]
}
row_of () { sed 's/<tr>/\n<tr>/g' "$1" | grep -F "$2" | head -1; }

view main ""
B="$TMP/main.bars" D="$TMP/main.html"
# Progress bars are 160 px: a job whose 2 tasks failed is all red, all killed all grey, done green.
[ -n "$(bar "$B" c62828 160)" ] && ok "cluster view: the failed job's bar is red" || fail "no red bar: $(cat "$B")"
[ -n "$(bar "$B" 8a949e 160)" ] && ok "cluster view: the killed job's bar is grey" || fail "no grey bar"
[ -n "$(bar "$B" 3a8f5c 160)" ] && ok "cluster view: the done job's bar is green" || fail "no green bar"
same_row "$B" 3b7dd8 80 e0a526 80 && ok "cluster view: crunch half running (blue), half suspended (amber)" ||
  fail "no running+suspended bar"
# Allocation bars are 120 px: n1 2000/2000 CPU and 1G/4G memory, n2 1000/2000 and 3G/4G.
same_row "$B" 5b4fc4 120 1f9e8f 30 && same_row "$B" 5b4fc4 60 1f9e8f 90 &&
  ok "cluster view: per-node CPU and memory bars against capacity" || fail "node bars: $(grep -e 5b4fc4 -e 1f9e8f "$B")"
row_of "$D" '>broken<' | grep -qF '<td class="state-failed">failed</td>' &&
  row_of "$D" '>broken<' | grep -qF '0/2 done, 2 failed' && row_of "$D" '>stopped<' | grep -qF '2 killed' &&
  ok "cluster view: failed and killed said, not counted as done" || fail "jobs: $(row_of "$D" '>broken<')"
row_of "$D" '>waiting<' | grep -qF 'data-code="no_room">no room: no node has 1500m CPU free<' &&
  ok "cluster view: a queued job's reason" || fail "queued reason: $(row_of "$D" '>waiting<')"
row_of "$D" '>1-1<' | grep -Eq '<td>1-1</td><td class="state-suspended">suspended \(held\)</td><td><a href="#node/n2">n2</a>.*<td>[0-9.]+(ms|s) ago</td><td><a href="#job/2">2</a>' &&
  ok "cluster view: suspended task 1-1 (held) on n2, since when, for job 2" || fail "suspended: $(row_of "$D" '>1-1<')"
row_of "$D" '<td>crunch</td><td>long</td>' | grep -qF '<td>long</td><td>7</td><td class="state-running">' &&
  row_of "$D" '>broken<' | grep -qF '<td>-</td><td class="state-failed">' &&
  ok "cluster view: a job's priority (7; '-' when not given)" ||
  fail "priority: $(row_of "$D" '<td>crunch</td><td>long</td>')"
row_of "$D" '<td>crunch</td><td>long</td>' | grep -qF '<td class="state-running">running (1 held)</td>' &&
  row_of "$D" '>broken<' | grep -qF '<td class="state-failed">failed</td>' &&
  ok "cluster view: a job with a held task says how many (as ebbctl jobs)" ||
  fail "held count: $(row_of "$D" '<td>crunch</td><td>long</td>')"
[ "$(text_of "$D" role)" = "leader (leader https://ctl1.example:7480, epoch 42)" ] &&
  ok "cluster view: which instance the page looks at, and the leader" || fail "role: $(text_of "$D" role)"
grep -qF '<a href="#job/3">3</a>' "$D" && grep -qF '<a href="#node/n1">n1</a>' "$D" &&
  ok "cluster view: jobs and nodes link to their views" || fail "links"

view job1 "#job/1"
B="$TMP/job1.bars" D="$TMP/job1.html"
grep -q 'id="overview" hidden' "$D" && grep -q '<main id="job-view">' "$D" && [ "$(text_of "$D" job-title)" = "1 (crunch)" ] &&
  ok "#job/1: the job view" || fail "#job/1: $(text_of "$D" job-title) $(text_of "$D" error)"
row_of "$D" '<td>1-1</td>' | grep -Eq '<td class="state-suspended">suspended \(held\)</td><td><a href="#node/n2">n2</a></td>.*<td>1</td><td>[0-9.]+(ms|s) ago</td><td><a href="#job/2">2</a></td>' &&
  row_of "$D" '<td>1-0</td>' | grep -qF '<td class="state-running">running</td>' &&
  ok "#job/1: task 1-1 suspended (held) on n2, once, since when, for job 2; 1-0 running, not held" || fail "#job/1 task: $(row_of "$D" '<td>1-1</td>')"
same_row "$B" 3b7dd8 80 e0a526 80 && ok "#job/1: its bar half blue, half amber" || fail "#job/1 bar: $(cat "$B")"
grep -qF '<dt>Priority</dt><dd>7</dd>' "$D" && ok "#job/1: its priority" || fail "#job/1 priority: $(text_of "$D" job-facts)"
grep -qF '<dt>State</dt><dd class="state-running">running (1 held)</dd>' "$D" && ok "#job/1: its state with the held count" ||
  fail "#job/1 state: $(grep -o '<dt>State</dt><dd[^<]*' "$D")"
row_of "$D" '<td>1-0</td>' | grep -qF '<td><a href="#logs/1-0">logs</a></td>' &&
  row_of "$D" '<td>1-1</td>' | grep -qF '<td><a href="#logs/1-1">logs</a></td>' &&
  ok "#job/1: each task links to its output" || fail "#job/1 logs links: $(row_of "$D" '<td>1-0</td>')"
# Its decisions: those of its tasks (the suspension of 1-1 for job 2), not job 2's launch.
grep -qF 'short job 2 waits: preempt long task 1-1' "$D" && ! grep -qF 'room after a suspension' "$D" &&
  ok "#job/1: its decisions" || fail "#job/1 decisions"

view job3 "#job/3"
B="$TMP/job3.bars" D="$TMP/job3.html"
[ "$(grep -o 'data-code="launch_failed">launch failed: argv\[0\] /nonexistent/prog: No such file or directory<' "$D" | wc -l)" = 2 ] &&
  row_of "$D" '<td>3-0</td>' | grep -qF '<td class="state-failed">failed</td>' &&
  ok "#job/3: both tasks failed, with the launch's reason" || fail "#job/3: $(row_of "$D" '<td>3-0</td>')"
[ -n "$(bar "$B" c62828 160)" ] && ok "#job/3: a red bar" || fail "#job/3 bar: $(cat "$B")"

# A task's output: read through GET /v1/jobs/1/tasks/0/logs (its last 500 lines), shown as
# text (the markup in it is data), under the job's link.
chromium_run "$TMP/logs10" "$URL/#logs/1-0"
D="$TMP/logs10.html"
grep -q '<main id="logs-view">' "$D" && grep -q 'id="job-view" hidden' "$D" &&
  grep -qF '<span id="logs-job"><a href="#job/1">1 (crunch)</a></span>' "$D" &&
  ok "#logs/1-0: the logs view, under job 1" || fail "#logs/1-0: $(text_of "$D" error)"
grep -qF '<pre id="logs-text" class="logs">first line of 1-0
&lt;b&gt;not bold&lt;/b&gt; &amp; "quoted"
last line
</pre>' "$D" && ok "#logs/1-0: the task's output, as text" || fail "#logs/1-0 text: $(grep -A3 'logs-text' "$D")"
grep -q '^GET /v1/jobs/1/tasks/0/logs since=- tail=500 ' "$TMP/requests.log" &&
  ok "#logs/1-0: read from the controller's logs route, tail=500" || fail "logs requests: $(grep logs "$TMP/requests.log")"
chromium_run "$TMP/logs11" "$URL/#logs/1-1"
grep -qF 'Cannot read the controller: /v1/jobs/1/tasks/1/logs?tail=500: HTTP 404' "$TMP/logs11.html" &&
  ok "#logs/1-1: an error of the logs route is said" || fail "#logs/1-1: $(text_of "$TMP/logs11.html" error)"

view node2 "#node/n2"
B="$TMP/node2.bars" D="$TMP/node2.html"
grep -q '<main id="node-view">' "$D" && [ "$(text_of "$D" node-title)" = n2 ] && ok "#node/n2: the node view" ||
  fail "#node/n2: $(text_of "$D" error)"
[ -n "$(bar "$B" 5b4fc4 60)" ] && [ -n "$(bar "$B" 1f9e8f 90)" ] &&
  ok "#node/n2: CPU 1000/2000 and memory 3G/4G bars" || fail "#node/n2 bars: $(cat "$B")"
row_of "$D" '<td>1-1</td>' | grep -qF '<a href="#job/1">1</a></td><td>crunch</td><td class="state-suspended">suspended (held)</td>' &&
  row_of "$D" '<td>2-0</td>' | grep -qF '<td class="state-running">running</td>' &&
  ! grep -qF '<td>1-0</td>' "$D" && ok "#node/n2: its tasks 1-1 (suspended) and 2-0, not n1's" ||
  fail "#node/n2 tasks: $(text_of "$D" node-tasks)"

# Links and the back button, in a browser driven over the DevTools protocol: a job's link
# opens its view (#job/3), history.back() the cluster view again, each re-rendered at once
# (within 1.5 s, before the next 2 s refresh would have done it).
chromium_driven "$URL/"
# until_js CONDITION VALUE [MS]: a promise of VALUE once CONDITION holds, rejected after MS.
until_js () { echo "new Promise(function (ok, no) { var n = 0, t = setInterval(function () {
  if ($1) { clearInterval(t); ok($2); } else if (++n > ${3:-10000} / 50) { clearInterval(t); no(new Error('timeout')); } }, 50); })"; }
JOB_SHOWN='!document.getElementById("job-view").hidden && document.getElementById("job-title").textContent === "3 (broken)"'
CLUSTER_SHOWN='!document.getElementById("overview").hidden && document.getElementById("job-view").hidden'
python3 "$EBB_TOP_SRCDIR/tests/status-page/cdp.py" "$DEVTOOLS_PORT" \
  "$(until_js 'document.querySelector("#jobs a[href=\"#job/3\"]")' '"cluster"')" \
  'document.querySelector("#jobs a[href=\"#job/3\"]").click(), location.hash' \
  "$(until_js "$JOB_SHOWN" 'location.hash + " " + document.querySelectorAll("#job-tasks .state-failed").length' 1500)" \
  'history.back(), 1' "$(until_js "$CLUSTER_SHOWN" '"back at [" + location.hash + "]"' 1500)" >"$TMP/driven.out" 2>&1
[ "$(tr '\n' '|' <"$TMP/driven.out")" = "cluster|#job/3|#job/3 2|1|back at []|" ] &&
  ok "a job's link opens #job/3 (2 failed tasks), the back button the cluster view" ||
  fail "links and back: $(cat "$TMP/driven.out")"
# One refresh loop after those two view changes: about 3 rounds in 6 s, not one per change.
before=$(grep -c '^GET /v1/cluster ' "$TMP/requests.log")
sleep 6
rounds=$(($(grep -c '^GET /v1/cluster ' "$TMP/requests.log") - before))
[ "$rounds" -ge 2 ] && [ "$rounds" -le 4 ] && ok "one refresh every 2 s ($rounds rounds in 6 s)" ||
  fail "$rounds refresh rounds in 6 s"
kill "$BROWSER_PID"; wait "$BROWSER_PID" 2>/dev/null; BROWSER_PID=

# A missing job: said, not a blank view.
chromium_run "$TMP/nojob" "$URL/#job/99"
grep -qF 'Cannot read the controller: /v1/jobs/99: HTTP 404' "$TMP/nojob.html" && ok "#job/99: not found, said" ||
  fail "#job/99: $(text_of "$TMP/nojob.html" error)"

# A standby serves the page, and 503 not_leader for what it reads (controller/api-leader.c):
# the page says which instance it is and links the leader's page instead of an error.
printf '{"policy":"ebb","role":"standby","leader":{"id":"ctl1:812","url":"https://ctl1.example:7480","epoch":42}}\n' \
  >"$TMP/GET_cluster.json"
for f in GET_nodes GET_decisions GET_jobs_state_active GET_jobs_order_desc GET_jobs_1; do
  printf '#STATUS 503\n{"error":"not_leader","detail":"this instance stands by: ask the leader","leader":"https://ctl1.example:7480"}\n' \
    >"$TMP/$f.json"
done
chromium_run "$TMP/standby" "$URL/"
D="$TMP/standby.html"
[ "$(text_of "$D" role)" = "standby (leader https://ctl1.example:7480, epoch 42)" ] &&
  grep -qF '<a id="leader-link" href="https://ctl1.example:7480/">https://ctl1.example:7480</a>' "$D" &&
  grep -q 'id="standby" role="status">' "$D" && grep -q 'id="overview" hidden' "$D" &&
  [ -z "$(text_of "$D" error)" ] &&
  ok "a standby's page: its role and the leader's link, no error" ||
  fail "standby: role $(text_of "$D" role), $(grep -o '<div id="standby".*' "$D" | head -c 300) $(text_of "$D" error)"
sed -i 's/,"leader":"https[^"]*"/,"leader":null/' "$TMP/GET_nodes.json" "$TMP/GET_decisions.json" \
  "$TMP/GET_jobs_state_active.json" "$TMP/GET_jobs_order_desc.json"
printf '{"policy":"ebb","role":"standby","leader":null}\n' >"$TMP/GET_cluster.json"
chromium_run "$TMP/noleader" "$URL/#job/1"
D="$TMP/noleader.html"
[ "$(text_of "$D" role)" = standby ] || fail "no leader: role $(text_of "$D" role)"
grep -qF 'No leader is known yet.' "$D" && ! grep -q 'id="leader-link"' "$D" && grep -q 'id="job-view" hidden' "$D" &&
  [ -z "$(text_of "$D" error)" ] && ok "a standby that knows no leader says so" ||
  fail "no leader: $(grep -o '<div id="standby".*' "$D" | head -c 300) $(text_of "$D" error)"
[ -n "${EBB_STATUS_PAGE_SCREENSHOT:-}" ] && cp "$TMP/main.png" "$EBB_STATUS_PAGE_SCREENSHOT" &&
  ok "screenshot in $EBB_STATUS_PAGE_SCREENSHOT"
exit $FAILED
