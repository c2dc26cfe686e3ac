# Sourced by tests/security/test-flood-{agent,controller}.sh with ATTACK_TARGET set.
# The connection flood of issue 24 against a real daemon on TCP: tests/security/flood holds
# 5,000 connections from 20 loopback addresses (slow headers, slow bodies on GET /, idle
# ones, each reopened when closed, 400 a second at most) while well-behaved clients ask
# GET /v1/health with the token, 5 requests in a row every 0.2 s: one from an attacking
# address (127.1.0.1), one from another (127.0.0.2) and, for the agent, one on its unix
# socket (counted apart from TCP). The p99 latency of each must be at most 100 ms (a probe
# that fails or times out counts as 5 s; over 200 probes each, so p99 is not just the
# slowest); no probe may fail.
#
# Time budget: about 25 s (start, a 2 s baseline, FLOOD_SECS=15 of flood whose first 3 s
# are the ramp, drain); at most 70 s when a loaded machine makes it repeat the attack.
# FLOOD_MEASURE_ONLY=1 prints the figures without judging them (for before/after runs);
# FLOOD_KEEP=DIR keeps each probe's timings there.
: "${FLOOD_SECS:=15}" "${FLOOD_CONNS:=5000}" "${FLOOD_ADDRS:=20}"
PROBE_BATCH=5 PROBE_GAP=0.2
. "${EBB_TOP_SRCDIR:-.}/tests/security/lib.sh"
FLOOD="$EBB_TOP_BUILDDIR/tests/security/flood"
[ -x "$FLOOD" ] || skip "no $FLOOD"
[ "$(ulimit -n)" -ge $((FLOOD_CONNS + 100)) ] || skip "ulimit -n $(ulimit -n) is too low for $FLOOD_CONNS connections"
baseline

# attack N: one flood with both probes; sets other, same, lost (failed probes), peak.
attack () {
  "$FLOOD" "$PORT" "$FLOOD_CONNS" "$FLOOD_ADDRS" "$FLOOD_SECS" >"$TMP/flood.out" 2>&1 &
  flood_pid=$!
  sleep 3 # the ramp
  probes_start 127.1.0.1
  wait "$flood_pid"
  probes_stop "$1"
  peak=$(sed -n 's/^flood: peak \([0-9]*\) open.*/\1/p' "$TMP/flood.out")
  echo "attack $1: $(cat "$TMP/flood.out")"
  [ -n "${FLOOD_KEEP:-}" ] && cp "$TMP/other" "$TMP/same" "$TMP/flood.out" "$FLOOD_KEEP/"
}

# attack_checks N: the figures mean something only if the flood took place: most of its
# connections were open together, more than the server's cap of 4096 (the slow bodies, one
# in ten, may be refused at once).
attack_checks () {
  [ "${peak:-0}" -ge $((FLOOD_CONNS * 8 / 10)) ] || fail "attack $1: the flood held only ${peak:-0} connections"
}

judge "${FLOOD_MEASURE_ONLY:-0}"
