#!/bin/sh
# ebb-agent over TLS: with --tls-cert/--tls-key its TCP listener speaks https (a throwaway
# self-signed certificate for 127.0.0.1 made with openssl), plain http there gets no answer,
# the unix socket stays plain, a certificate without its key is refused, and the token is
# still required over https. Time budget: about 3 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
command -v openssl >/dev/null || skip "needs openssl (apt-get install openssl)"
setup_cgroups
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost >/dev/null 2>&1 || { fail "openssl req"; exit 1; }
chmod 600 "$TMP/key.pem"
printf 'abcdefghijklmnopqrstuvwxyz\n' >"$TMP/token"; chmod 600 "$TMP/token"

timeout 10 "$AGENT_BIN" --listen 127.0.0.1:0 --token-file "$TMP/token" --tls-cert "$TMP/cert.pem" \
  --state-dir "$STATE" --cgroup-parent "$CGP" >"$TMP/out" 2>&1
[ $? = 1 ] && grep -q "tls-cert and --tls-key go together" "$TMP/out" &&
  ok "a certificate without its key is refused" || fail "cert without key: $(head -2 "$TMP/out")"

# A free port: the agent prints the URL it listens on.
start_agent --listen 127.0.0.1:0 --token-file "$TMP/token" --tls-cert "$TMP/cert.pem" \
  --tls-key "$TMP/key.pem" || { fail "agent did not start: $(tail -5 "$LOG")"; exit 1; }
URL=$(sed -n 's/.*listening on \(https:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$LOG" | tail -1)
[ -n "$URL" ] && ok "the TCP listener is $URL" || { fail "no https listener in the log: $(tail -5 "$LOG")"; exit 1; }
AUTH="Authorization: Bearer abcdefghijklmnopqrstuvwxyz"
code=$(curl -s -o "$TMP/body" -w '%{http_code}' --cacert "$TMP/cert.pem" -H "$AUTH" "$URL/v1/health")
[ "$code" = 200 ] && ok "GET /v1/health over https, certificate verified -> 200" || fail "https: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$TMP/cert.pem" "$URL/v1/health")
[ "$code" = 401 ] && ok "https without the token -> 401" || fail "https without token: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 -H "$AUTH" "http://${URL#https://}/v1/health")
[ "$code" != 200 ] && ok "plain http on the TLS port is not served ($code)" || fail "plain http answered 200"
curl -s -o /dev/null --max-time 3 -H "$AUTH" "$URL/v1/health" &&
  fail "an unverified certificate was accepted" || ok "a client without the CA refuses the certificate"
API_AUTH=$AUTH api GET /v1/health
[ "$STATUS" = 200 ] && ok "the unix socket stays plain http" || fail "unix socket: $STATUS"
stop_agent TERM
[ "$AGENT_STATUS" = 0 ] && ok "SIGTERM -> 0" || fail "exit $AGENT_STATUS"
exit $FAILED
