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
  # Its unix socket too: its connections are counted apart from the TCP listener's.
  "$AGENT_BIN" --listen 127.0.0.1:0 --listen "unix:$SOCK" --token-file "$TMP/token" \
    --state-dir "$STATE" --cgroup-parent "$CGP" -v -v >>"$LOG" 2>&1 &
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

# probe SRC OUT: GET /v1/health with the token from address SRC (or over the unix socket
# PATH for SRC unix:PATH), PROBE_BATCH (1) requests one after the other, each on a new
# connection, then a pause of PROBE_GAP seconds (0.1), until $TMP/stop exists; one
# "status seconds" line per request in OUT (a curl per batch: fewer processes to start on
# a loaded machine).
probe () {
  via="--interface $1" base=$URL
  case $1 in unix:*) via="--unix-socket ${1#unix:}" base=http://agent ;; esac
  urls=
  for _ in $(seq "${PROBE_BATCH:-1}"); do urls="$urls -o /dev/null $base/v1/health"; done
  while [ ! -e "$TMP/stop" ]; do
    # shellcheck disable=SC2086 # $via and $urls are lists of words
    curl -s -m 5 $via -H "Authorization: Bearer $TOKEN" -H "Connection: close" \
      -w '%{http_code} %{time_total}\n' $urls >>"$2" 2>/dev/null
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

# probes_start SAME: the two probes, from 127.0.0.2 and from the attacking address SAME;
# for the agent a third one on its unix socket.
probes_start () {
  rm -f "$TMP/stop" "$TMP/other" "$TMP/same" "$TMP/unix"
  probe 127.0.0.2 "$TMP/other" &
  p_other=$!
  probe "$1" "$TMP/same" &
  p_same=$!
  same_addr=$1
  p_unix=
  if [ "$ATTACK_TARGET" = agent ]; then
    probe "unix:$SOCK" "$TMP/unix" &
    p_unix=$!
  fi
}

# probes_stop N: stops them and prints attack N's figures; sets other, same and unix (p99
# in ms; unix 0 without that probe) and lost (failed probes).
probes_stop () {
  touch "$TMP/stop"
  wait "$p_other" "$p_same" $p_unix
  other=$(p99 "$TMP/other")
  same=$(p99 "$TMP/same")
  fails_other=$(awk '$1 != 200' "$TMP/other" | wc -l)
  fails_same=$(awk '$1 != 200' "$TMP/same" | wc -l)
  lost=$((fails_other + fails_same))
  echo "attack $1: health p99 from 127.0.0.2: ${other} ms ($(wc -l <"$TMP/other") probes, $fails_other failed)"
  echo "attack $1: health p99 from $same_addr (attacking): ${same} ms ($(wc -l <"$TMP/same") probes, $fails_same failed)"
  unix=0
  if [ -n "$p_unix" ]; then
    unix=$(p99 "$TMP/unix")
    fails_unix=$(awk '$1 != 200' "$TMP/unix" | wc -l)
    lost=$((lost + fails_unix))
    echo "attack $1: health p99 on the unix socket: ${unix} ms ($(wc -l <"$TMP/unix") probes, $fails_unix failed)"
  fi
}

# judge MEASURE_ONLY: runs attack N (the caller's, using probes_start/probes_stop, then
# its own checks of N) up to three times and exits. A failed or timed-out probe is never
# noise; a slow window may be (2 shared cores): one attack must keep every p99 figure at most
# 100 ms on a quiet host (latency_bound, tests/agent/lib.sh: 1 s on a host loaded by other
# work, and the test says so). MEASURE_ONLY=1: one attack, its figures printed, not judged.
judge () {
  if [ "${1:-0}" = 1 ]; then
    attack 1
    exit 0
  fi
  latency_bound 100
  echo "bound: $BOUND_MS ms ($BOUND_WHY)"
  good=no
  for n in 1 2 3; do
    attack $n
    [ "$lost" = 0 ] || fail "attack $n: $lost health probes failed"
    attack_checks $n
    if [ "$other" -le "$BOUND_MS" ] && [ "$same" -le "$BOUND_MS" ] && [ "$unix" -le "$BOUND_MS" ]; then
      good=yes
      break
    fi
  done
  figures="$other ms from 127.0.0.2, $same ms from $same_addr${p_unix:+, $unix ms on the unix socket}"
  [ "$good" = yes ] && ok "p99 at most $BOUND_MS ms ($figures)" ||
    fail "p99 over $BOUND_MS ms in 3 attacks (last: $figures)"
  kill -0 "$AGENT_PID" && ok "$ATTACK_TARGET still running" || fail "$ATTACK_TARGET died"
  exit $FAILED
}
