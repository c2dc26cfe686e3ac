# Sourced by the fleet emulator's tests (tests/controller/test-fleet-*.sh) after
# tests/controller/lib.sh: a throwaway certificate for the fleet's https, the fleet started
# with its stats file, and that file read.
#
#   fleet_start CONTROLLER-URL[,URL...] N   N virtual nodes (heartbeats every second, 2 CPUs
#                                           each) in the background: FLEET_PID, and the
#                                           nodes' base URL in FLEET_URL (FLEET_URL/nK)
#   stats                                   a fresh stats file (SIGUSR1) into $STATS
#   st JQ-FILTER                            the filter on $STATS
#   wait_stats SECONDS JQ-FILTER            fresh stats files until the filter holds
#   node_call PATH EPOCH BODY               POST FLEET_URL/PATH with the token (and
#                                           Ebb-Leader-Epoch EPOCH unless empty): $STATUS,
#                                           the answer in $TMP/body
FLEET_BIN="$EBB_TOP_BUILDDIR/tests/controller/fleet"
[ -x "$FLEET_BIN" ] || skip "no $FLEET_BIN"
command -v openssl >/dev/null || skip "needs openssl"
STATS="$TMP/fleet-stats.json"
FLEET_PID= FLEET_URL=
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || skip "openssl req failed"

fleet_start () {
  EBB_FLEET_STATS=$STATS EBB_FLEET_TLS_CERT=$TMP/cert.pem EBB_FLEET_TLS_KEY=$TMP/key.pem \
    "$FLEET_BIN" "$1" "$2" "$TOKEN_FILE" 1 2000 >"$TMP/fleet.out" 2>"$TMP/fleet.err" &
  FLEET_PID=$!
  _w=0
  while [ ! -s "$TMP/fleet.out" ] && [ $_w -lt 100 ]; do sleep 0.05; _w=$((_w + 1)); done
  FLEET_URL=$(head -1 "$TMP/fleet.out")
}

stats () {
  rm -f "$STATS"
  kill -USR1 "$FLEET_PID"
  _w=0
  while [ ! -s "$STATS" ] && [ $_w -lt 100 ]; do sleep 0.05; _w=$((_w + 1)); done
}

st () { jq -c -r "$1" "$STATS"; }

wait_stats () {
  _end=$(( $(date +%s) + $1 ))
  while [ "$(date +%s)" -le "$_end" ]; do
    stats
    jq -e "$2" "$STATS" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

node_call () {
  STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --cacert "$TMP/cert.pem" \
    -H "Authorization: Bearer $(cat "$TOKEN_FILE")" -H 'Content-Type: application/json' \
    ${2:+-H "Ebb-Leader-Epoch: $2"} -X POST --data-binary "$3" "$FLEET_URL/$1")
}
