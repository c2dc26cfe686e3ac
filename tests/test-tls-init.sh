#!/bin/sh
# ebb-tls(8) makes TLS easy and right: `ebb-tls init` creates a cluster CA and the
# controller's certificate (keys 0600, never overwriting a CA), `ebb-tls agent a1` signs an
# agent's; the controller serves https with its certificate, the agent serves https with its
# own and heartbeats to the controller's https address verifying it with the CA, the
# controller calls the agent verifying it with the same CA (--agent-ca), and a job runs.
# ebbctl reaches the controller with --ca-file. Budget: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
command -v openssl >/dev/null || skip "needs openssl (apt-get install openssl)"
TLS_BIN="$EBB_TOP_BUILDDIR/contrib/ebb-tls"
[ -x "$TLS_BIN" ] || skip "no $TLS_BIN"
setup_cgroups
D="$TMP/tls"

out=$("$TLS_BIN" init --dir "$D" --ip 127.0.0.1 --dns localhost 2>&1)
[ $? = 0 ] && echo "$out" | grep -q "tls_cert = $D/controller.pem" && ok "ebb-tls init: prints the settings" ||
  fail "ebb-tls init: $out"
[ "$(stat -c %a "$D/ca.key")" = 600 ] && [ "$(stat -c %a "$D/controller.key")" = 600 ] &&
  [ "$(stat -c %a "$D")" = 700 ] && ok "keys 0600, the directory 0700" ||
  fail "modes: $(stat -c '%a %n' "$D" "$D"/*)"
openssl verify -CAfile "$D/ca.pem" "$D/controller.pem" >/dev/null 2>&1 &&
  openssl x509 -in "$D/ca.pem" -noout -ext basicConstraints 2>/dev/null | grep -q 'CA:TRUE' &&
  ok "the controller's certificate verifies against the CA" || fail "verify controller.pem"
sum=$(md5sum <"$D/ca.key")
"$TLS_BIN" init --dir "$D" >"$TMP/again" 2>&1 && fail "a second init succeeded"
grep -q "ca.key exists" "$TMP/again" && [ "$(md5sum <"$D/ca.key")" = "$sum" ] &&
  ok "a second init refuses and keeps the CA" || fail "second init: $(cat "$TMP/again")"
"$TLS_BIN" agent a1 --dir "$D" --ip 127.0.0.1 >"$TMP/agent-tls.out" 2>&1 || fail "ebb-tls agent: $(cat "$TMP/agent-tls.out")"
A="$D/agents/a1"
openssl verify -CAfile "$A/ca.pem" "$A/a1.pem" >/dev/null 2>&1 && [ "$(stat -c %a "$A/a1.key")" = 600 ] &&
  ok "ebb-tls agent a1: a key 0600 and a certificate the CA verifies" || fail "agent files: $(ls -l "$A")"
"$TLS_BIN" agent a2 --dir "$TMP/none" >"$TMP/noca" 2>&1 && fail "agent without a CA succeeded"
grep -q "no CA in $TMP/none" "$TMP/noca" && ok "agent without a CA: refused, says so" || fail "no CA: $(cat "$TMP/noca")"

start_controller --listen 127.0.0.1:0 --tls-cert "$D/controller.pem" --tls-key "$D/controller.key" \
  --agent-ca "$D/ca.pem" --policy fifo || { fail "controller did not start"; exit 1; }
CURL=$(sed -n 's/.*listening on \(https:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$CLOG" | head -1)
[ -n "$CURL" ] || { fail "no https listener: $(tail -5 "$CLOG")"; exit 1; }
for h in ${HIERS:-x}; do
  if [ "$LAYOUT" = v2 ]; then mkcg "$(cgdir "" "$CGP/a1")"; else mkcg "$(cgdir $h "$CGP/a1")"; fi
done
"$AGENT_BIN" --listen 127.0.0.1:0 --tls-cert "$A/a1.pem" --tls-key "$A/a1.key" --state-dir "$TMP/a1" \
  --cgroup-parent "$CGP/a1" --controller "$CURL" --controller-ca "$A/ca.pem" --token-file "$TOKEN_FILE" \
  --node-name a1 --capacity-cpu-millis 2000 --capacity-memory 2G --heartbeat-interval 1s --stop-grace 1s \
  -v >>"$TMP/agent-1.log" 2>&1 &
AGENT_PIDS="$AGENT_PIDS $!"
wait_for 10 '.nodes[0].state == "ready"' /v1/nodes && ok "the agent's heartbeats reached the controller over verified https" ||
  fail "node: $(cat "$TMP/body") $(tail -3 "$TMP/agent-1.log")"
capi POST /v1/jobs "$(job_body tlsinit short "$(burner_task t1 1000)")"
JOB=$(jq -r .id "$TMP/body")
wait_for 15 '.state == "done"' "/v1/jobs/$JOB" && [ "$(cat "$OUT/t1" 2>/dev/null)" = 1000 ] &&
  ok "a job ran on the agent, launched over verified https" || fail "job: $(cat "$TMP/body") $(tail -5 "$CLOG")"
out=$("$EBB_TOP_BUILDDIR/ebbctl" --controller "$CURL" --ca-file "$D/ca.pem" --token-file "$TOKEN_FILE" nodes 2>&1)
[ $? = 0 ] && echo "$out" | grep -q a1 && ok "ebbctl over https with --ca-file the CA" || fail "ebbctl: $out"
exit $FAILED
