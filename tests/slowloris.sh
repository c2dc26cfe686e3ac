# Sourced by tests/test-slowloris-{agent,controller}.sh with SLOWLORIS_TARGET set.
# Slowloris against a real ebb server on TCP: slowhttptest holds up to 2000 slow connections
# from 127.0.0.1 (-H: headers never finished, a new header line every 10 s, 400 new
# connections/s) while two well-behaved clients poll GET /v1/health every 100 ms, one from
# another loopback address (127.0.0.2) and one from the attacker's own. The p99 latency of
# each must stay under 100 ms (a probe that fails or times out counts as 5 s).
#
# Time budget: about 20 s (SLOWLORIS_SECS=12 of attack, 2000 connections ramped up in the
# first 5, plus start, a 2 s unattacked baseline and drain); at most 50 s when a loaded
# machine makes it repeat the attack (see below).
# SLOWLORIS_MEASURE_ONLY=1 prints the figures without judging them (for before/after runs).
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
command -v slowhttptest >/dev/null || skip "needs slowhttptest"
: "${SLOWLORIS_SECS:=12}"

TOKEN=slowloris-test-token-0123456789
printf '%s\n' "$TOKEN" >"$TMP/token"
chmod 600 "$TMP/token"
# The server on TCP only, port 0; -vv logs the address it got. (AGENT_PID: lib.sh's cleanup
# kills it.)
if [ "$SLOWLORIS_TARGET" = agent ]; then
  setup_cgroups
  "$AGENT_BIN" --listen 127.0.0.1:0 --token-file "$TMP/token" --state-dir "$STATE" \
    --cgroup-parent "$CGP" -v -v >>"$LOG" 2>&1 &
else
  CTL_BIN="$EBB_TOP_BUILDDIR/ebb-controller"
  [ -x "$CTL_BIN" ] || skip "no $CTL_BIN"
  "$CTL_BIN" --listen 127.0.0.1:0 --token-file "$TMP/token" --state-dir "$TMP/cstate" \
    -vv >>"$LOG" 2>&1 &
fi
AGENT_PID=$!
for _ in $(seq 100); do grep -q "listening on http" "$LOG" && break; sleep 0.05; done
URL=$(grep -o 'listening on http://127\.0\.0\.1:[0-9]*' "$LOG" | head -1 | sed 's/listening on //')
[ -n "$URL" ] || { FAILED=1; fail "no TCP address in the $SLOWLORIS_TARGET log"; exit 1; }
echo "$SLOWLORIS_TARGET at $URL"

# probe SRC OUT: GET /v1/health from address SRC every 100 ms until $TMP/stop exists; one
# "status seconds" line per try in OUT.
probe () {
  while [ ! -e "$TMP/stop" ]; do
    curl -s -o /dev/null -m 5 --interface "$1" -H "Authorization: Bearer $TOKEN" \
      -w '%{http_code} %{time_total}\n' "$URL/v1/health" >>"$2" || echo "000 5" >>"$2"
    sleep 0.1
  done
}

# p99 of OUT in ms; failures count as 5000 ms.
p99 () {
  awk '{ print ($1 == 200 ? $2 * 1000 : 5000) }' "$1" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR == 0) { print 5000; exit } i = int(NR * 0.99 + 0.999); if (i > NR) i = NR; printf "%d\n", v[i] }'
}

ulimit -n 8192 2>/dev/null

# The same probes without an attack, for scale (printed, not judged).
rm -f "$TMP/stop" "$TMP/base"
probe 127.0.0.2 "$TMP/base" &
P0=$!
sleep 2
touch "$TMP/stop"
wait "$P0"
echo "no attack: health p99 $(p99 "$TMP/base") ms ($(wc -l <"$TMP/base") probes)"

# attack N: one slowhttptest run with both probes; sets other, same, lost (failed probes).
attack () {
  rm -f "$TMP/stop" "$TMP/other" "$TMP/same" "$TMP/slow.csv"
  slowhttptest -c 2000 -H -i 10 -r 400 -l "$SLOWLORIS_SECS" -t GET -u "$URL/v1/health" -p 3 \
    -g -o "$TMP/slow" >"$TMP/slowhttptest.out" 2>&1 &
  SLOW_PID=$!
  sleep 1
  probe 127.0.0.2 "$TMP/other" &
  P1=$!
  probe 127.0.0.1 "$TMP/same" &
  P2=$!
  wait "$SLOW_PID"
  touch "$TMP/stop"
  wait "$P1" "$P2"
  other=$(p99 "$TMP/other")
  same=$(p99 "$TMP/same")
  fails_other=$(awk '$1 != 200' "$TMP/other" | wc -l)
  fails_same=$(awk '$1 != 200' "$TMP/same" | wc -l)
  lost=$((fails_other + fails_same))
  # slowhttptest's own view: samples in which its probe found the service unavailable.
  unavail=$(awk -F, 'NR > 1 && $5 + 0 == 0 { n++ } END { print n + 0 }' "$TMP/slow.csv" 2>/dev/null)
  maxconn=$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { print m + 0 }' "$TMP/slow.csv" 2>/dev/null)
  echo "attack $1: health p99 from 127.0.0.2: ${other} ms ($(wc -l <"$TMP/other") probes, $fails_other failed)"
  echo "attack $1: health p99 from 127.0.0.1: ${same} ms ($(wc -l <"$TMP/same") probes, $fails_same failed)"
  echo "attack $1: slowhttptest: peak $maxconn connected, service unavailable in $unavail samples"
  [ -n "${SLOWLORIS_KEEP:-}" ] && cp "$TMP/slow.csv" "$TMP/other" "$TMP/same" "$SLOWLORIS_KEEP/"
}

if [ "${SLOWLORIS_MEASURE_ONLY:-0}" = 1 ]; then
  attack 1
  exit 0
fi
# A failed or timed-out probe is never noise; a slow window may be (2 shared cores): up to
# three attacks, and one must keep both p99 figures under 100 ms.
good=no
for n in 1 2 3; do
  attack $n
  [ "$lost" = 0 ] || fail "attack $n: $lost health probes failed"
  [ "$unavail" = 0 ] || fail "attack $n: slowhttptest saw the service unavailable"
  # The figures mean something only if the attack took place: slowhttptest held at least
  # 100 connections at its peak (it reaches the server's per-address cap, 256, in about a
  # second; a run that reached nothing would leave both probes fast).
  [ "${maxconn:-0}" -ge 100 ] || fail "attack $n: slowhttptest held only ${maxconn:-0} connections (no attack)"
  if [ "$other" -lt 100 ] && [ "$same" -lt 100 ]; then good=yes; break; fi
done
[ "$good" = yes ] && ok "p99 under 100 ms from another address ($other ms) and the attacker's ($same ms)" ||
  fail "p99 over 100 ms in 3 attacks (last: $other ms from 127.0.0.2, $same ms from 127.0.0.1)"
kill -0 "$AGENT_PID" && ok "$SLOWLORIS_TARGET still running" || fail "$SLOWLORIS_TARGET died"
exit $FAILED
