#!/bin/sh
# The cluster over TLS: ebb-controller and one ebb-agent, each serving https on loopback TCP
# with a throwaway certificate (openssl), the agent's heartbeats going to the controller's
# https address (--controller-ca) and the controller's calls going to the agent's https
# address (--agent-ca). A job submitted to the controller runs on the agent, so every arrow
# of the control channel crossed TLS with the certificate verified; ebbctl reaches the
# controller over https with --ca-file. Time budget: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
command -v openssl >/dev/null || skip "needs openssl (apt-get install openssl)"
setup_cgroups
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost >/dev/null 2>&1 || { fail "openssl req"; exit 1; }
chmod 600 "$TMP/key.pem"
TLS="--tls-cert $TMP/cert.pem --tls-key $TMP/key.pem"

# shellcheck disable=SC2086 # TLS is words
start_controller --listen 127.0.0.1:0 $TLS --agent-ca "$TMP/cert.pem" --policy fifo ||
  { fail "controller did not start"; exit 1; }
CURL=$(sed -n 's/.*listening on \(https:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$CLOG" | head -1)
[ -n "$CURL" ] && ok "the controller's TCP listener is $CURL" || { fail "no https listener: $(tail -5 "$CLOG")"; exit 1; }
AUTH="Authorization: Bearer $(cat "$TOKEN_FILE")"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$TMP/cert.pem" -H "$AUTH" "$CURL/v1/health")
[ "$code" = 200 ] && ok "controller: GET /v1/health over https -> 200" || fail "controller https: $code"
# The status page is static HTML a browser loads without the token; the API still needs it.
code=$(curl -s -o "$TMP/page" -w '%{http_code}' --cacert "$TMP/cert.pem" "$CURL/")
[ "$code" = 200 ] && grep -qi '<html' "$TMP/page" && ok "GET / (status page) without the token -> 200" ||
  fail "status page over TCP: $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$TMP/cert.pem" "$CURL/v1/jobs")
[ "$code" = 401 ] && ok "GET /v1/jobs without the token -> 401" || fail "API without token: $code"
# ebbctl over https: verified against --ca-file; without it the certificate is refused.
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
out=$("$EBBCTL" --controller "$CURL" --ca-file "$TMP/cert.pem" --token-file "$TOKEN_FILE" status 2>&1)
[ $? = 0 ] && echo "$out" | grep -qx 'Policy:       fifo' && ok "ebbctl --controller https://... --ca-file: status" ||
  fail "ebbctl over https: $out"
out=$("$EBBCTL" --controller "$CURL" --token-file "$TOKEN_FILE" status 2>&1)
[ $? = 1 ] && echo "$out" | grep -q 'cannot reach the controller' && ok "ebbctl over https without the CA: refused, exit 1" ||
  fail "ebbctl https without CA: $out"

for h in ${HIERS:-x}; do
  if [ "$LAYOUT" = v2 ]; then mkcg "$(cgdir "" "$CGP/a1")"; else mkcg "$(cgdir $h "$CGP/a1")"; fi
done
# shellcheck disable=SC2086
"$AGENT_BIN" --listen 127.0.0.1:0 $TLS --state-dir "$TMP/a1" --cgroup-parent "$CGP/a1" \
  --controller "$CURL" --controller-ca "$TMP/cert.pem" --token-file "$TOKEN_FILE" --node-name a1 \
  --capacity-cpu-millis 2000 --capacity-memory 2G --heartbeat-interval 1s --stop-grace 1s \
  -v >>"$TMP/agent-1.log" 2>&1 &
AGENT_PIDS="$AGENT_PIDS $!"
wait_for 10 '.nodes[0].state == "ready"' /v1/nodes && ok "the agent registered through https heartbeats" ||
  fail "node: $(cat "$TMP/body") $(tail -3 "$TMP/agent-1.log")"
capi GET /v1/nodes/a1
jq -r '.url // .node.url // empty' "$TMP/body" | grep -q '^https://127\.0\.0\.1:' &&
  ok "the agent advertises an https URL" || fail "advertised URL: $(cat "$TMP/body")"

capi POST /v1/jobs "$(job_body tlsjob short "$(burner_task t1 1000)")"
JOB=$(jq -r .id "$TMP/body")
wait_for 15 '.state == "done"' "/v1/jobs/$JOB" && [ "$(cat "$OUT/t1" 2>/dev/null)" = 1000 ] &&
  ok "a job ran on the agent, launched over https" || fail "job: $(cat "$TMP/body") $(tail -5 "$CLOG")"
exit $FAILED
