# Sourced by tests/test-slowloris-{agent,controller}.sh with SLOWLORIS_TARGET set.
# Slowloris against a real ebb server on TCP: slowhttptest holds up to 2000 slow connections
# from 127.0.0.1 (-H: headers never finished, a new header line every 10 s, 400 new
# connections/s) while two well-behaved clients poll GET /v1/health every 100 ms, one from
# another loopback address (127.0.0.2) and one from the attacker's own. The p99 latency of
# each must be at most 100 ms (a probe that fails or times out counts as 5 s).
#
# Time budget: about 20 s (SLOWLORIS_SECS=12 of attack, 2000 connections ramped up in the
# first 5, plus start, a 2 s unattacked baseline and drain); at most 50 s when a loaded
# machine makes it repeat the attack (see below).
# SLOWLORIS_MEASURE_ONLY=1 prints the figures without judging them (for before/after runs).
: "${SLOWLORIS_SECS:=12}"
ATTACK_TARGET=$SLOWLORIS_TARGET
. "${EBB_TOP_SRCDIR:-.}/tests/security/lib.sh"
command -v slowhttptest >/dev/null || skip "needs slowhttptest"
baseline

# attack N: one slowhttptest run with both probes; sets other, same, lost (failed probes).
attack () {
  rm -f "$TMP/slow.csv"
  slowhttptest -c 2000 -H -i 10 -r 400 -l "$SLOWLORIS_SECS" -t GET -u "$URL/v1/health" -p 3 \
    -g -o "$TMP/slow" >"$TMP/slowhttptest.out" 2>&1 &
  SLOW_PID=$!
  sleep 1
  probes_start 127.0.0.1
  wait "$SLOW_PID"
  probes_stop "$1"
  # slowhttptest's own view: samples in which its probe found the service unavailable.
  unavail=$(awk -F, 'NR > 1 && $5 + 0 == 0 { n++ } END { print n + 0 }' "$TMP/slow.csv" 2>/dev/null)
  maxconn=$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { print m + 0 }' "$TMP/slow.csv" 2>/dev/null)
  echo "attack $1: slowhttptest: peak $maxconn connected, service unavailable in $unavail samples"
  [ -n "${SLOWLORIS_KEEP:-}" ] && cp "$TMP/slow.csv" "$TMP/other" "$TMP/same" "$SLOWLORIS_KEEP/"
}

# attack_checks N: slowhttptest's own view, and whether the attack took place: it held
# at least 100 connections at its peak (it reaches the server's per-address cap, 256, in
# about a second; a run that reached nothing would leave both probes fast).
attack_checks () {
  [ "$unavail" = 0 ] || fail "attack $1: slowhttptest saw the service unavailable"
  [ "${maxconn:-0}" -ge 100 ] || fail "attack $1: slowhttptest held only ${maxconn:-0} connections (no attack)"
}

judge "${SLOWLORIS_MEASURE_ONLY:-0}"
