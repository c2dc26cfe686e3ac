#!/bin/sh
# The etcd client over TLS with client certificates (lib/etcd.c), on one etcd member that
# requires a client certificate from its CA (--client-cert-auth; tests/ha/etcd.sh with
# ETCD_TLS=1): with the CA, the certificate and its key a candidate leads; without the
# client certificate, or trusting another CA, it is refused (lost, nothing led).
. "${EBB_TOP_SRCDIR:-.}/tests/ha/lib.sh"
need etcd etcdctl jq openssl
[ -x "$ELECT" ] || skip "no $ELECT"
ETCD_N=1 ETCD_TLS=1
. "$EBB_TOP_SRCDIR/tests/ha/etcd.sh"
TMP=$(mktemp -d /tmp/ebb-ha-tls.XXXXXX) || exit 99
trap 'etcd_stop; [ "$FAILED" != 0 ] && tail -5 "$TMP"/*.out "$TMP"/*.err; rm -rf "$TMP"' EXIT
etcd_start "$TMP/etcd" || { FAILED=1; fail "etcd (TLS) did not start"; exit 1; }
T="$TMP/etcd/tls"
case $ETCD_ENDPOINTS in https://*) ok "etcd serves $ETCD_ENDPOINTS" ;; *) fail "not https: $ETCD_ENDPOINTS" ;; esac

# run NAME OPTIONS...: a candidate for up to 4 s; its output in $TMP/NAME.out.
run () {
  n=$1; shift
  timeout -s TERM 4 "$ELECT" --etcd "$ETCD_ENDPOINTS" --value "$n" "$@" >"$TMP/$n.out" 2>"$TMP/$n.err"
}
run good --ca "$T/ca.pem" --cert "$T/client.pem" --key "$T/client.key"
grep -q '^leader ' "$TMP/good.out" && ok "with the client certificate: $(head -1 "$TMP/good.out")" ||
  fail "no leader with the client certificate"
run nocert --ca "$T/ca.pem"
grep -q '^lost ' "$TMP/nocert.out" && ! grep -q '^leader' "$TMP/nocert.out" &&
  ok "without a client certificate: $(cut -c1-120 "$TMP/nocert.out")" || fail "led without a client certificate"
run otherca --ca "$T/other.pem" --cert "$T/client.pem" --key "$T/client.key"
grep -q '^lost ' "$TMP/otherca.out" && ! grep -q '^leader' "$TMP/otherca.out" &&
  ok "trusting another CA: $(cut -c1-120 "$TMP/otherca.out")" || fail "led trusting another CA"
exit $FAILED
