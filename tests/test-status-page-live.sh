#!/bin/sh
# The status page against a live ebb-controller with a live ebb-agent (root, real cgroups), in
# headless Chromium: a long job of two tasks, one of them suspended on its agent with ebbctl,
# a short job done, one failed (false) and one killed; the DOM after the script ran shows the
# policy, the node, the jobs with their progress, the suspended task with its node, and the
# launch decisions; the job and node views show the suspended task; a screenshot has the bars
# in their colours (failed red, killed grey, done green, running blue, suspended amber) and the
# node's CPU allocation bar at 500 of 2000 millicores; a task's logs view (#logs/JOB-TASK) shows
# what it printed, read through the controller from its agent. The controller's
# unix socket needs no token; Chromium reaches it through a loopback TCP bridge (socat), as an
# operator would through `ssh -L PORT:/run/ebb/controller.sock`. Budget: about 25 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
. "${EBB_TOP_SRCDIR:-.}/tests/status-page/lib.sh"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
CTL_BIN="$EBB_TOP_BUILDDIR/ebb-controller"
[ -x "$EBBCTL" ] && [ -x "$CTL_BIN" ] || skip "needs $EBBCTL and $CTL_BIN"
command -v socat >/dev/null || skip "needs socat"
command -v python3 >/dev/null || skip "needs python3 (scripts/install-deps.sh installs it)"
setup_cgroups

CSOCK="$TMP/controller.sock"
CTL_PID= A1_PID= BRIDGE_PID=
"$CTL_BIN" --listen "unix:$CSOCK" --state-dir "$TMP/controller" --policy fifo -v >>"$TMP/controller.log" 2>&1 &
CTL_PID=$!
"$AGENT_BIN" --listen "unix:$TMP/n1.sock" --state-dir "$TMP/n1" --cgroup-parent "$CGP" --node-name n1 \
  --controller "unix:$CSOCK" --heartbeat-interval 500ms --capacity-cpu-millis 2000 --stop-grace 1s \
  -v >>"$TMP/n1.log" 2>&1 &
A1_PID=$!
PORT=$((20000 + ($$ + 13) % 20000))
socat "TCP-LISTEN:$PORT,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$CSOCK" 2>/dev/null &
BRIDGE_PID=$!
trap 'for p in $BRIDGE_PID $A1_PID $CTL_PID; do kill -TERM $p 2>/dev/null; wait $p 2>/dev/null; done
      cleanup; [ "$FAILED" != 0 ] && tail -20 "$TMP"/*.log 2>/dev/null' EXIT

E="$EBBCTL --controller unix:$CSOCK"
i=0; until $E nodes 2>/dev/null | grep -q '^n1  *ready '; do
  i=$((i + 1)); [ $i -lt 100 ] || { fail "n1 did not register"; exit 1; }; sleep 0.1
done
$E submit --name quick --class short --tasks 2 --cpu 100 --memory 32M --wait -- true >/dev/null || fail "quick job"
$E submit --name broken --class short --tasks 2 --cpu 100 --memory 32M --wait -- false >/dev/null &&
  fail "a job of false ended well"
STOP=$($E submit --name stopped --class short --cpu 100 --memory 32M -- sleep 60) || fail "job to kill"
i=0; until $E job "$STOP" | grep -q ' running '; do
  i=$((i + 1)); [ $i -lt 50 ] || { fail "job $STOP not running"; break; }; sleep 0.1
done
$E kill "$STOP" >/dev/null || fail "kill $STOP"
i=0; until [ "$($E --json job "$STOP" | jq -r .state)" = killed ]; do
  i=$((i + 1)); [ $i -lt 100 ] || { fail "job $STOP not killed"; break; }; sleep 0.1
done
LONG=$($E submit --name crunch --class long --tasks 2 --cpu 500 --memory 32M -- \
  sh -c 'echo "crunching <&>"; exec sleep 60') || fail "long job"
i=0; until [ "$($E --json job "$LONG" | jq '[.tasks[] | select(.state == "running")] | length')" = 2 ]; do
  i=$((i + 1)); [ $i -lt 50 ] || { fail "long job not running"; break; }; sleep 0.1
done
atask=$($EBBCTL --agent "unix:$TMP/n1.sock" --json tasks | jq -r '[.tasks[] | select(.state == "running")][0].id')
$EBBCTL --agent "unix:$TMP/n1.sock" suspend "$atask" >/dev/null || fail "suspend $atask"
i=0; until $E job "$LONG" | grep -q '  suspended  *n1 '; do
  i=$((i + 1)); [ $i -lt 50 ] || { fail "the controller did not see the suspension"; break; }; sleep 0.1
done
STASK=$($E --json job "$LONG" | jq -r '.tasks[] | select(.state == "suspended") | .id')

chromium_run "$TMP/dom" "http://127.0.0.1:$PORT/"
D="$TMP/dom.html"
[ -s "$D" ] || { fail "chromium: no DOM"; tail -5 "$TMP/dom.log"; exit 1; }
[ "$(text_of "$D" policy)" = fifo ] && [ "$(text_of "$D" n-nodes)" = 1 ] && [ "$(text_of "$D" n-jobs)" = 4 ] &&
  [ "$(text_of "$D" n-running)" = 1 ] && [ "$(text_of "$D" n-suspended)" = 1 ] &&
  ok "header: fifo, 1 node, 4 jobs, 1 running and 1 suspended task" ||
  fail "header: $(text_of "$D" policy) $(text_of "$D" n-nodes) $(text_of "$D" n-jobs) $(text_of "$D" n-running) $(text_of "$D" n-suspended)"
grep -qF '<a href="#node/n1">n1</a></td><td class="state-ready">ready</td>' "$D" && grep -qF '<span>500/2000</span>' "$D" &&
  ok "node n1 ready, 500 of 2000 millicores allocated (the suspended task's given back)" || fail "node row: $(grep -o '<td>n1</td>.\{0,120\}' "$D")"
grep -qF "<a href=\"#job/$LONG\">$LONG</a></td><td>crunch</td><td>long</td><td>0</td><td class=\"state-running\">running</td>" "$D" &&
  grep -qF '0/2 done, 1 running, 1 suspended' "$D" && grep -qF '2/2 done, 0 running, 0 suspended' "$D" &&
  ok "jobs with their progress" || fail "jobs"
grep -qF "<a href=\"#job/$LONG\">$LONG</a></td><td>crunch</td><td>$STASK</td><td class=\"state-suspended\">suspended</td><td><a href=\"#node/n1\">n1</a></td>" "$D" && ok "suspended task $STASK on n1" ||
  fail "suspended tasks: $(grep -o 'id="suspended".\{0,300\}' "$D")"
[ "$(grep -o 'class="state-launch">launch<' "$D" | wc -l)" = 7 ] && ok "7 launch decisions" || fail "decisions"
grep -qF '0/2 done, 2 failed, 0 running' "$D" && grep -qF '0/1 done, 1 killed, 0 running' "$D" &&
  ok "the failed and the killed job said so" || fail "failed and killed: $(text_of "$D" jobs)"
grep -q 'id="error" role="alert" style="display: none;"' "$D" && ok "no error shown" || fail "error: $(text_of "$D" error)"
# The job's view and the node's, from the live API.
chromium_run "$TMP/job" "http://127.0.0.1:$PORT/#job/$LONG"
sed 's/<tr>/\n<tr>/g' "$TMP/job.html" | grep -F "<td>$STASK</td>" |
  grep -qF '<td class="state-suspended">suspended</td><td><a href="#node/n1">n1</a></td>' &&
  ok "#job/$LONG: task $STASK suspended on n1" || fail "#job/$LONG: $(text_of "$TMP/job.html" error)"
chromium_run "$TMP/node" "http://127.0.0.1:$PORT/#node/n1"
[ "$(sed 's/<tr>/\n<tr>/g' "$TMP/node.html" | grep -c "<a href=\"#job/$LONG\">$LONG</a></td><td>crunch</td>")" = 2 ] &&
  grep -qF '<span>500/2000</span>' "$TMP/node.html" && ok "#node/n1: the long job's 2 tasks, 500/2000 millicores" ||
  fail "#node/n1: $(text_of "$TMP/node.html" error)"
# A task's output, from its agent through the controller's logs route.
chromium_run "$TMP/logs" "http://127.0.0.1:$PORT/#logs/$LONG-0"
grep -qF "<pre id=\"logs-text\" class=\"logs\">crunching &lt;&amp;&gt;" "$TMP/logs.html" &&
  ok "#logs/$LONG-0: what the task printed" || fail "#logs/$LONG-0: $(text_of "$TMP/logs.html" error) $(grep -A2 logs-text "$TMP/logs.html")"
# Its bars in a screenshot, by colour (tests/status-page/png-bars.py, widths as in
# tests/test-status-page-views.sh): the failed job red, the killed grey, the done green, the
# long job half running (blue) and half suspended (amber), n1's CPU 500/2000 (30 of 120 px).
chromium_shot "$TMP/shot.png" "http://127.0.0.1:$PORT/"
python3 "$EBB_TOP_SRCDIR/tests/status-page/png-bars.py" "$TMP/shot.png" 3a8f5c c62828 8a949e 3b7dd8 e0a526 5b4fc4 \
  >"$TMP/bars" || fail "cannot read the screenshot"
bar () { bar_in "$TMP/bars" "$@"; }
[ -n "$(bar c62828 160)" ] && [ -n "$(bar 8a949e 160)" ] && [ -n "$(bar 3a8f5c 160)" ] &&
  [ -n "$(bar 3b7dd8 80)" ] && [ "$(bar 3b7dd8 80)" = "$(bar e0a526 80)" ] && [ -n "$(bar 5b4fc4 30)" ] &&
  ok "screenshot: red, grey, green, blue and amber job bars, n1's CPU bar at a quarter" ||
  fail "screenshot bars: $(cat "$TMP/bars")"
[ -n "${EBB_STATUS_PAGE_SCREENSHOT:-}" ] && chromium_shot "$EBB_STATUS_PAGE_SCREENSHOT" "http://127.0.0.1:$PORT/" &&
ok "screenshot in $EBB_STATUS_PAGE_SCREENSHOT"
exit $FAILED
