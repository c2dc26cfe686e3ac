#!/bin/sh
# The status page in headless Chromium against a stand-in of the controller's JSON API
# (tests/status-page/fake-api serving the real page and fixed JSON): what the DOM shows after
# the script ran (policy, nodes and states, job progress bars, suspended tasks, decisions
# newest first), the jobs read as the active ones in pages and one page of the newest, merged
# by id (never every page of GET /v1/jobs), a hostile job name shown as text and never run as HTML, the token taken from
# the address's fragment, a 401 turned into the token form, a failing call reported. Budget: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/status-page/lib.sh"
fake_api_setup data
# The jobs: active ones in two pages (1; after 1: 3), the newest (3, 2); no unfiltered listing.
rm "$TMP/GET_jobs.json"
# The header counts every job of the controller (its /v1/cluster), not the ones shown.
sed -i 's/^{/{"jobs":250,/' "$TMP/GET_cluster.json"
TOKEN=status-page-test-token-$$
fake_api_start "$TOKEN"

# GET / needs no token and says what it may load.
curl -s -D "$TMP/headers" -o "$TMP/page" "$URL/"
grep -qi '^content-type: text/html; charset=utf-8' "$TMP/headers" &&
  grep -qi "^content-security-policy: default-src 'none'" "$TMP/headers" &&
  grep -q '<title>ebb cluster</title>' "$TMP/page" && ok "GET / -> the page, text/html with a CSP" ||
  fail "GET /: $(cat "$TMP/headers")"
# No external resource: no src=, no href= but to a fragment of the page itself (its views),
# and no absolute URL in the page.
grep -Eq 'src=|href="[^#]|https?://' "$TMP/page" && fail "the page refers to something outside itself" ||
  ok "no external resources"

chromium_run "$TMP/dom" "$URL/#token=$TOKEN"
D="$TMP/dom.html"
[ -s "$D" ] || { fail "chromium: no DOM"; tail -5 "$TMP/dom.log"; exit 1; }
[ "$(text_of "$D" policy)" = ebb ] && [ "$(text_of "$D" n-nodes)" = 3 ] && [ "$(text_of "$D" n-jobs)" = 250 ] &&
  [ "$(text_of "$D" n-suspended)" = 2 ] && [ "$(text_of "$D" n-preemptions)" = 7 ] &&
  ok "header: policy ebb, 3 nodes, 250 jobs, 2 suspended, 7 preemptions" ||
  fail "header: $(text_of "$D" policy) $(text_of "$D" n-nodes) $(text_of "$D" n-jobs) $(text_of "$D" n-suspended) $(text_of "$D" n-preemptions)"
for s in '<a href="#node/node-a">node-a</a></td><td class="state-ready">ready</td>' '<span>2000/2000</span>' \
         '<span>1G/4G</span>' '<a href="#node/node-b">node-b</a></td><td class="state-draining">draining</td>' \
         '<a href="#node/node-c">node-c</a></td><td class="state-lost">lost</td>'; do
  grep -qF "$s" "$D" || fail "nodes: missing $s"
done
grep -qF '1/6 done, 3 running, 2 suspended' "$D" && grep -qF '2/2 done, 0 running, 0 suspended' "$D" &&
  ok "jobs: progress of tasks done of total, running, suspended" || fail "progress bars"
grep -Eq '<td><a href="#job/1">1</a></td><td>burn-long</td><td>1\.1</td><td class="state-suspended">suspended</td><td><a href="#node/node-a">node-a</a></td><td class="num">2</td>' "$D" &&
  grep -Eq '<td><a href="#job/1">1</a></td><td>burn-long</td><td>1\.2</td><td class="state-suspended">suspended</td><td><a href="#node/node-b">node-b</a></td><td class="num">1</td>' "$D" &&
  ok "suspended tasks: both, with state, node and suspensions" || fail "suspended tasks"
# Each job once in the table, active ones first (1 and 3 from the active pages, 3 and 2 from
# the newest), read with three requests a refresh.
rows=$(sed 's/<tr>/\n<tr>/g' "$D" | sed -n 's/^<tr><td><a href="#job\/[0-9]*">\([0-9]*\)<\/a><\/td><td>[^<]*<\/td><td>\(long\|short\)<\/td>.*/\1/p' | tr '\n' ' ')
first=$(grep '^GET /v1/jobs ' "$TMP/requests.log" | head -3 | sort | tr '\n' '|')
[ "$rows" = "3 1 2 " ] || [ "$rows" = "1 3 2 " ] && ok "jobs table: 3 jobs once each, active first ($rows)" ||
  fail "jobs table rows: '$rows'"
[ "$first" = "GET /v1/jobs since=- after=1 state=active limit=1000 |GET /v1/jobs since=- order=desc limit=200 |GET /v1/jobs since=- state=active limit=1000 |" ] &&
  [ -z "$(grep '^GET /v1/jobs' "$TMP/requests.log" | grep -v -e ' state=active limit=1000 ' -e ' order=desc limit=200 ')" ] &&
  ok "jobs read as ?state=active pages and one ?order=desc&limit=200 page" ||
  fail "jobs requests: $(grep '^GET /v1/jobs' "$TMP/requests.log")"
# Decisions newest first.
seqs=$(sed 's/<tr>/\n<tr>/g' "$D" | sed -n 's/^<tr><td>\([0-9]*\)<\/td><td>[^<]*<\/td><td class="state-\(launch\|suspend\|resume\)".*/\1/p' | tr '\n' ' ')
[ "$seqs" = "3 2 1 " ] && grep -qF 'short job 2 waits: preempt long task 1.1' "$D" &&
  ok "decisions: newest first, with the policy's reason" || fail "decisions: '$seqs'"
# "For job" is the job a decision was made for (for_job: the short job 2 of the suspension of
# long task 1.1), not the task's own job.
grep -Eq '<td>1\.1</td><td><a href="#node/node-a">node-a</a></td><td><a href="#job/2">2</a></td><td[^>]*>short job 2 waits' "$D" &&
  ok "decisions: For job is for_job" || fail "decisions: For job of seq 2"
# Refreshed: a second round asked only for decisions after the last one seen.
grep -q '^GET /v1/decisions since=0 ' "$TMP/requests.log" && grep -q '^GET /v1/decisions since=3 ' "$TMP/requests.log" &&
  ok "refreshed, decisions fetched incrementally (since=3)" || fail "refresh: $(cat "$TMP/requests.log")"
# The hostile name is text: escaped in the DOM, no <img> element, the title untouched.
grep -qF '&lt;img src=x onerror=' "$D" && ! grep -q '<img' "$D" && grep -q '<title>ebb cluster</title>' "$D" &&
  ok "a job name of HTML is shown as text, never run" || fail "hostile name"
grep -q "$TOKEN" "$D" && fail "the token is in the DOM" || ok "the token stays out of the page"
# A token and a view in one address (#token=T&job/ID): the token taken, the view kept.
chromium_run "$TMP/tokview" "$URL/#token=$TOKEN&job/2"
[ "$(text_of "$TMP/tokview.html" job-title)" = "2 (query)" ] && ! grep -q "$TOKEN" "$TMP/tokview.html" &&
  ok "#token=...&job/2: the job view, the token out of the page" || fail "token and view: $(text_of "$TMP/tokview.html" error)"

chromium_run "$TMP/noauth" "$URL/"
grep -qF 'A token is needed.' "$TMP/noauth.html" && grep -q 'id="auth" style="display: block;"' "$TMP/noauth.html" &&
  ! grep -qF 'burn-long' "$TMP/noauth.html" && ok "no token: the token form, no data" || fail "no token"
chromium_run "$TMP/badauth" "$URL/#token=wrong"
grep -qF 'The token was refused.' "$TMP/badauth.html" && ok "a wrong token: refused" || fail "wrong token"

# An API call failing (here a 404): the page says which and does not pretend.
mv "$TMP/GET_cluster.json" "$TMP/GET_cluster.json.off"
chromium_run "$TMP/down" "$URL/#token=$TOKEN"
grep -qF 'Cannot read the controller: /v1/cluster: HTTP 404' "$TMP/down.html" && ok "a failing API call: said so" ||
  fail "failing API call"
mv "$TMP/GET_cluster.json.off" "$TMP/GET_cluster.json"

if [ -n "${EBB_STATUS_PAGE_SCREENSHOT:-}" ]; then
  chromium_shot "$EBB_STATUS_PAGE_SCREENSHOT" "$URL/#token=$TOKEN" && ok "screenshot in $EBB_STATUS_PAGE_SCREENSHOT"
fi
exit $FAILED
