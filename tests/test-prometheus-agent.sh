#!/bin/sh
# Debian's Prometheus scrapes a real ebb-agent as ebb-agent(8) tells (contrib/prometheus):
# the agent listens on loopback TCP over https behind a bearer token (port 0, the bound address
# read from STATE/listen), sends heartbeats over the controller's unix socket, and a private
# prometheus (loopback, its own data dir, 1 s scrape interval) scrapes /metrics verifying the
# certificate (tls_config.ca_file) with the token from a credentials file. No token crosses
# plain http. The test then asks Prometheus' HTTP API for ebb's
# series: the target is up with no scrape error, ebb_build_info carries the version, the
# request counters by status class and ebb_agent_heartbeats_total{result=...} are stored,
# and each process_* family of the agent holds a plausible value.
# When the tree has an ebb-controller, the agent heartbeats to it (result="ok") and Prometheus
# scrapes it too (up, ebb_build_info, its heartbeat counter); otherwise heartbeats go to a
# unix socket where nothing listens (result="error").
# Budget: about 15 s (60 s hard limit on the waits).
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
. "${EBB_TOP_SRCDIR:-.}/tests/prometheus/lib.sh"

setup_cgroups
umask 077
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$TMP/token"
auth="Authorization: Bearer $(cat "$TMP/token")"
self_signed || { fail "openssl req"; exit 1; }
TLS="--tls-cert $TMP/cert.pem --tls-key $TMP/key.pem"
CA="--cacert $TMP/cert.pem"

# The controller, when the tree has one: the agent heartbeats to it (same token), and
# Prometheus scrapes it too. Without one, heartbeats go to a port where nothing listens, so
# each one is a real error outcome.
CTL_BIN=$EBB_TOP_BUILDDIR/ebb-controller
CTL_PID=
ctl_addr=
if [ -x "$CTL_BIN" ]; then
  ctl_addr=127.0.0.1:$(free_port) || { fail "no free port for the controller"; exit 1; }
  # shellcheck disable=SC2086 # TLS is words
  "$CTL_BIN" --listen "$ctl_addr" --listen "unix:$TMP/ctl.sock" $TLS --state-dir "$TMP/ctl" \
    --token-file "$TMP/token" -v >"$TMP/controller.log" 2>&1 &
  CTL_PID=$!
  i=0
  # shellcheck disable=SC2086 # CA is words
  until curl -sf -o /dev/null $CA -H "$auth" "https://$ctl_addr/v1/nodes" || [ $i -ge 100 ]; do
    kill -0 "$CTL_PID" 2>/dev/null || { fail "controller exited: $(tail -5 "$TMP/controller.log")"; exit 1; }
    sleep 0.1
    i=$((i + 1))
  done
  hb_url=unix:$TMP/ctl.sock
else
  hb_url=unix:$TMP/none.sock
fi
# Only a TCP listener, https with the token.
# shellcheck disable=SC2086 # TLS is words
"$AGENT_BIN" --listen 127.0.0.1:0 $TLS --token-file "$TMP/token" --state-dir "$STATE" \
  --cgroup-parent "$CGP" --controller "$hb_url" --heartbeat-interval 200ms \
  -v >>"$LOG" 2>&1 &
AGENT_PID=$!
addr=
i=0
while [ -z "$addr" ] && [ $i -lt 100 ]; do
  kill -0 "$AGENT_PID" 2>/dev/null || { AGENT_PID=; fail "agent exited"; exit 1; }
  addr=$(grep -s -m1 '^https://127\.0\.0\.1:' "$STATE/listen" | sed 's|^https://||; s|/*$||')
  sleep 0.05
  i=$((i + 1))
done
[ -n "$addr" ] || { fail "no TCP address in $STATE/listen"; exit 1; }
i=0
until curl -sf -o /dev/null $CA -H "$auth" "https://$addr/v1/health" || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done

# The exposition itself: content type with charset, refused without the token.
ctype=$(curl -s -o /dev/null -w '%{content_type}' $CA -H "$auth" "https://$addr/metrics")
[ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ] && ok "content type: $ctype" ||
  fail "content type: $ctype"
code=$(curl -s -o /dev/null -w '%{http_code}' $CA "https://$addr/metrics")
[ "$code" = 401 ] && ok "no token: 401" || fail "no token: HTTP $code"

# A free loopback port for Prometheus' own web API.
port=$(free_port) || { fail "no free port for prometheus"; exit 1; }
# The documented configuration (contrib/prometheus/ebb.yml), with this test's paths and
# addresses; the controller's job only when there is one.
{
  printf 'global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n'
  sed -e "s|/etc/prometheus/ebb-ca.pem|$TMP/cert.pem|; s|/etc/prometheus/ebb-token|$TMP/token|" \
    -e "s|node-1.example:7470|$addr|; s|controller.example:7480|$ctl_addr|" \
    "$EBB_TOP_SRCDIR/contrib/prometheus/ebb.yml" |
    if [ -n "$ctl_addr" ]; then cat; else sed '/job_name: ebb-controller/,$d'; fi
} >"$TMP/prometheus.yml"
prom_start "$port"
trap 'kill "$PROM_PID" $CTL_PID 2>/dev/null; wait "$PROM_PID" $CTL_PID 2>/dev/null; cleanup' EXIT

t0=$(date +%s)
if [ -n "$ctl_addr" ]; then want_hb=ok; else want_hb=error; fi
until [ "$(query 'up{job="ebb-agent"}' 2>/dev/null)" = 1 ] &&
  [ "$(query "ebb_agent_heartbeats_total{result=\"$want_hb\"} > 0" 2>/dev/null)" != "" ] &&
  { [ -z "$ctl_addr" ] || [ "$(query 'up{job="ebb-controller"}' 2>/dev/null)" = 1 ]; }; do
  kill -0 "$PROM_PID" 2>/dev/null || { fail "prometheus exited: $(tail -5 "$TMP/prometheus.log")"; exit 1; }
  [ $(($(date +%s) - t0)) -lt 60 ] || { fail "no successful scrape in 60 s"; break; }
  sleep 0.5
done
echo "prometheus scraped the agent after $(($(date +%s) - t0)) s"
curl -s "http://127.0.0.1:$port/api/v1/targets" >"$TMP/targets.json"
health=$(jq -r '.data.activeTargets[] | select(.labels.job=="ebb-agent") | .health' "$TMP/targets.json")
lasterr=$(jq -r '.data.activeTargets[] | select(.labels.job=="ebb-agent") | .lastError' "$TMP/targets.json")
[ "$health" = up ] && [ -z "$lasterr" ] && ok "target up, no scrape error" ||
  fail "target health $health, last error: $lasterr"

v=$(query "ebb_build_info{job=\"ebb-agent\",version=\"$("$AGENT_BIN" --version | awk '{print $NF}')\"}")
[ "$v" = 1 ] && ok "ebb_build_info with the agent's version" || fail "ebb_build_info: '$v' ($(cat "$TMP/q.json"))"
v=$(query 'ebb_agent_http_requests_total{code="2xx"}')
[ -n "$v" ] && [ "$v" -ge 1 ] && ok "ebb_agent_http_requests_total{code=\"2xx\"} = $v" ||
  fail "2xx requests: '$v'"
v=$(query 'ebb_agent_http_requests_total{code="4xx"}')
[ -n "$v" ] && [ "$v" -ge 1 ] && ok "ebb_agent_http_requests_total{code=\"4xx\"} = $v (the refused scrape)" ||
  fail "4xx requests: '$v'"
v=$(query "ebb_agent_heartbeats_total{result=\"$want_hb\"}")
[ -n "$v" ] && [ "$v" -ge 1 ] && ok "ebb_agent_heartbeats_total{result=\"$want_hb\"} = $v" ||
  fail "heartbeats $want_hb: '$v'"
v=$(query 'ebb_agent_heartbeats_total{result=~"ok|error"}')
[ -n "$v" ] || fail "no ebb_agent_heartbeats_total{result=...} series"
if [ -n "$ctl_addr" ]; then
  ctype=$(curl -s -o /dev/null -w '%{content_type}' $CA -H "$auth" "https://$ctl_addr/metrics")
  [ "$ctype" = "text/plain; version=0.0.4; charset=utf-8" ] && ok "controller content type: $ctype" ||
    fail "controller content type: $ctype"
  health=$(jq -r '.data.activeTargets[] | select(.labels.job=="ebb-controller") | .health' "$TMP/targets.json")
  [ "$health" = up ] && ok "controller target up" || fail "controller target: $health"
  v=$(query 'ebb_build_info{job="ebb-controller",program="ebb-controller"}')
  [ "$v" = 1 ] && ok "ebb_build_info of the controller" || fail "controller ebb_build_info: '$v'"
  v=$(query 'ebb_controller_heartbeats_total')
  [ -n "$v" ] && [ "$v" -ge 1 ] && ok "ebb_controller_heartbeats_total = $v" || fail "controller heartbeats: '$v'"
fi
# The process_* families of Prometheus' client libraries, as the agent's own (the controller's:
# tests/test-prometheus-controller.sh); each one stored with a plausible value.
for fam in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes \
  process_open_fds process_max_fds process_start_time_seconds; do
  v=$(query "$fam{job=\"ebb-agent\"}")
  [ -n "$v" ] || { fail "$fam: no sample of the agent ($(cat "$TMP/q.json"))"; continue; }
  case $fam in
  process_cpu_seconds_total) good=$(awk -v v="$v" 'BEGIN { print (v >= 0 && v < 1e6) }') ;;
  process_start_time_seconds) good=$(awk -v v="$v" -v t0="$t0" 'BEGIN { print (v > t0 - 600 && v <= t0 + 60) }') ;;
  process_open_fds) good=$(awk -v v="$v" 'BEGIN { print (v >= 3) }') ;;
  *) good=$(awk -v v="$v" 'BEGIN { print (v > 0) }') ;;
  esac
  [ "$good" = 1 ] && ok "$fam{job=\"ebb-agent\"} = $v" || fail "$fam = $v: implausible"
done
v=$(query 'histogram_quantile(0.5, rate(ebb_agent_suspend_duration_seconds_bucket{job="ebb-agent"}[10s]))')
st=$(jq -r .status "$TMP/q.json")
[ "$st" = success ] && ok "histogram_quantile over ebb_agent_suspend_duration_seconds_bucket accepted" ||
  fail "histogram_quantile refused: $(cat "$TMP/q.json")"
n=$(curl -s -G "http://127.0.0.1:$port/api/v1/label/__name__/values" | jq -r '.data[]' | grep -c '^ebb_')
[ "$n" -ge 10 ] && ok "$n ebb_ series stored" || fail "only $n ebb_ series stored"
# The Grafana dashboard asks only for series the agent exports, in queries Prometheus accepts.
curl -s -G "http://127.0.0.1:$port/api/v1/label/__name__/values" | jq -r '.data[]' | sort -u >"$TMP/names"
dash=$EBB_TOP_SRCDIR/contrib/grafana/ebb.json
# Every query at any depth (a collapsed row holds its panels inside it); none found would
# make the checks below pass on nothing.
jq -r '.. | objects | select(has("targets")) | .targets[]? | .expr // empty' "$dash" >"$TMP/exprs" ||
  fail "$dash is not valid JSON"
nq=$(grep -c . "$TMP/exprs")
grep -oE '(ebb|process)_[a-z_]*' "$TMP/exprs" | sort -u >"$TMP/dash-metrics"
before_dash=$FAILED FAILED=0
[ "$nq" -ge 1 ] && [ -s "$TMP/dash-metrics" ] || fail "$dash: no query naming an ebb_ series found ($nq queries)"
grep -vE 'ebb_|process_' "$TMP/exprs" | while read -r e; do echo "FAIL: dashboard query names no ebb_ or process_ series: $e"; done | grep . && FAILED=1
for m in $(cat "$TMP/dash-metrics"); do
  case $m in ebb_controller_*) [ -n "$ctl_addr" ] || continue ;; esac
  grep -qx "$m" "$TMP/names" || fail "dashboard uses $m, which the agent does not export"
done
while read -r e; do
  e=$(printf '%s' "$e" | sed 's/\$__rate_interval/5s/g; s/\$instance/.*/g')
  st=$(curl -s -G "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$e" | jq -r .status)
  [ "$st" = success ] || fail "dashboard query refused by Prometheus: $e"
done <"$TMP/exprs"
[ "$FAILED" = 0 ] && ok "dashboard: $nq queries accepted, every one of the $(wc -l <"$TMP/dash-metrics") series they name is exported"
[ "$before_dash" = 0 ] || FAILED=1
exit $FAILED
