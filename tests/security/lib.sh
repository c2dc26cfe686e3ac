# Sourced by the attack tests (tests/slowloris.sh, tests/security/flood.sh) with
# ATTACK_TARGET=agent or controller: starts that daemon on 127.0.0.1:0 with a token
# (URL, TOKEN; AGENT_PID, which tests/agent/lib.sh's cleanup kills) and gives the probe and
# p99 helpers.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"

TOKEN=attack-test-token-0123456789
printf '%s\n' "$TOKEN" >"$TMP/token"
chmod 600 "$TMP/token"
# Room for the attack's connections in this shell and the daemon it starts.
ulimit -n 16384 2>/dev/null || ulimit -n 8192 2>/dev/null
# The server on TCP only, port 0; -vv logs the address it got.
if [ "$ATTACK_TARGET" = agent ]; then
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
[ -n "$URL" ] || { FAILED=1; fail "no TCP address in the $ATTACK_TARGET log"; exit 1; }
PORT=${URL##*:}
echo "$ATTACK_TARGET at $URL"

# probe SRC OUT: GET /v1/health with the token from address SRC every PROBE_GAP seconds
# (0.1) until $TMP/stop exists; one "status seconds" line per try in OUT.
probe () {
  while [ ! -e "$TMP/stop" ]; do
    curl -s -o /dev/null -m 5 --interface "$1" -H "Authorization: Bearer $TOKEN" \
      -w '%{http_code} %{time_total}\n' "$URL/v1/health" >>"$2" || echo "000 5" >>"$2"
    sleep "${PROBE_GAP:-0.1}"
  done
}

# p99 of OUT in ms; failures count as 5000 ms.
p99 () {
  awk '{ print ($1 == 200 ? $2 * 1000 : 5000) }' "$1" | sort -n |
    awk '{ v[NR] = $1 } END { if (NR == 0) { print 5000; exit } i = int(NR * 0.99 + 0.999); if (i > NR) i = NR; printf "%d\n", v[i] }'
}

# baseline: the probes without an attack for 2 s, for scale (printed, not judged).
baseline () {
  rm -f "$TMP/stop" "$TMP/base"
  probe 127.0.0.2 "$TMP/base" &
  b_pid=$!
  sleep 2
  touch "$TMP/stop"
  wait "$b_pid"
  echo "no attack: health p99 $(p99 "$TMP/base") ms ($(wc -l <"$TMP/base") probes)"
}

# probes_start SAME: the two probes, from 127.0.0.2 and from the attacking address SAME.
probes_start () {
  rm -f "$TMP/stop" "$TMP/other" "$TMP/same"
  probe 127.0.0.2 "$TMP/other" &
  p_other=$!
  probe "$1" "$TMP/same" &
  p_same=$!
  same_addr=$1
}

# probes_stop N: stops them and prints attack N's figures; sets other and same (p99 in ms)
# and lost (failed probes).
probes_stop () {
  touch "$TMP/stop"
  wait "$p_other" "$p_same"
  other=$(p99 "$TMP/other")
  same=$(p99 "$TMP/same")
  fails_other=$(awk '$1 != 200' "$TMP/other" | wc -l)
  fails_same=$(awk '$1 != 200' "$TMP/same" | wc -l)
  lost=$((fails_other + fails_same))
  echo "attack $1: health p99 from 127.0.0.2: ${other} ms ($(wc -l <"$TMP/other") probes, $fails_other failed)"
  echo "attack $1: health p99 from $same_addr (attacking): ${same} ms ($(wc -l <"$TMP/same") probes, $fails_same failed)"
}

# judge MEASURE_ONLY: runs attack N (the caller's, using probes_start/probes_stop, then
# its own checks of N) up to three times and exits. A failed or timed-out probe is never
# noise; a slow window may be (2 shared cores): one attack must keep both p99 figures at
# most 100 ms. MEASURE_ONLY=1: one attack, its figures printed, not judged.
judge () {
  if [ "${1:-0}" = 1 ]; then
    attack 1
    exit 0
  fi
  good=no
  for n in 1 2 3; do
    attack $n
    [ "$lost" = 0 ] || fail "attack $n: $lost health probes failed"
    attack_checks $n
    if [ "$other" -le 100 ] && [ "$same" -le 100 ]; then good=yes; break; fi
  done
  [ "$good" = yes ] && ok "p99 at most 100 ms from another address ($other ms) and an attacking one ($same ms)" ||
    fail "p99 over 100 ms in 3 attacks (last: $other ms from 127.0.0.2, $same ms from $same_addr)"
  kill -0 "$AGENT_PID" && ok "$ATTACK_TARGET still running" || fail "$ATTACK_TARGET died"
  exit $FAILED
}
