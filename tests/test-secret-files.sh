#!/bin/sh
# One rule for secret files in every program (lib/secret.c): ebb-controller refuses a token
# file its group or others can read, a token under 16 characters, and a TLS key others can
# read; ebbctl refuses the same token files. Each refusal names the file; the same start with
# the file fixed succeeds, so only the rule is tested. Budget: about 3 s.
: "${EBB_TOP_SRCDIR:=.}" "${EBB_TOP_BUILDDIR:=.}"
skip () { echo "SKIP: $*"; [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1; exit 77; }
fail () { echo "FAIL: $*"; FAILED=1; }
ok () { echo "ok: $*"; }
FAILED=0
CTL_BIN="$EBB_TOP_BUILDDIR/ebb-controller"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
[ -x "$CTL_BIN" ] && [ -x "$EBBCTL" ] || skip "needs $CTL_BIN and $EBBCTL"
for c in curl openssl; do command -v $c >/dev/null || skip "needs $c"; done
TMP=$(mktemp -d /tmp/ebb-secret-files.XXXXXX) || exit 99
CTL_PID=
trap '[ -n "$CTL_PID" ] && kill -9 "$CTL_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
SOCK="$TMP/ctl.sock"
GOOD=0123456789abcdef0123456789abcdef

# ctl EXPECT-EXIT GREP DESC [options]: runs the controller in the foreground for at most 3 s;
# a controller that starts serving is stopped with SIGTERM (exit 0).
ctl () {
  want=$1 pat=$2 desc=$3; shift 3
  rm -rf "$TMP/state"
  "$CTL_BIN" --listen "unix:$SOCK" --state-dir "$TMP/state" "$@" >"$TMP/log" 2>&1 &
  CTL_PID=$!
  i=0
  while [ $i -lt 60 ] && kill -0 "$CTL_PID" 2>/dev/null; do
    curl -sf --unix-socket "$SOCK" http://c/v1/health >/dev/null 2>&1 && kill -TERM "$CTL_PID" && break
    sleep 0.05; i=$((i + 1))
  done
  wait "$CTL_PID"; rc=$?; CTL_PID=
  if { [ "$want" = 0 ] && [ "$rc" = 0 ]; } || { [ "$want" != 0 ] && [ "$rc" != 0 ] && grep -q -- "$pat" "$TMP/log"; }; then
    ok "controller: $desc"
  else fail "controller: $desc (exit $rc): $(tail -3 "$TMP/log")"; fi
}

printf '%s\n' "$GOOD" >"$TMP/token"
chmod 644 "$TMP/token"
ctl 1 "$TMP/token.*chmod 600" "a 0644 token file is refused, the error names it" --token-file "$TMP/token"
chmod 640 "$TMP/token"
ctl 1 "$TMP/token.*chmod 600" "a 0640 token file is refused" --token-file "$TMP/token"
chmod 600 "$TMP/token"
ctl 0 "" "the same token file at 0600 starts" --token-file "$TMP/token"
printf 'x\n' >"$TMP/short"; chmod 600 "$TMP/short"
ctl 1 "$TMP/short.*shorter than 16" "a 1-character token is refused" --token-file "$TMP/short"

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || { fail "openssl req"; exit 1; }
chmod 644 "$TMP/key.pem"
ctl 1 "$TMP/key.pem.*chmod 600" "a world-readable TLS key is refused, the error names it" \
  --token-file "$TMP/token" --listen 127.0.0.1:0 --tls-cert "$TMP/cert.pem" --tls-key "$TMP/key.pem"
chmod 600 "$TMP/key.pem"
ctl 0 "" "the same TLS key at 0600 starts" \
  --token-file "$TMP/token" --listen 127.0.0.1:0 --tls-cert "$TMP/cert.pem" --tls-key "$TMP/key.pem"

# ebbctl reads the token before any call: the address does not matter.
for mode in 644 604; do
  chmod $mode "$TMP/token"
  out=$("$EBBCTL" --controller "unix:$TMP/none.sock" --token-file "$TMP/token" status 2>&1)
  [ $? = 1 ] && echo "$out" | grep -q "$TMP/token.*chmod 600" && ok "ebbctl: a 0$mode token file is refused" ||
    fail "ebbctl 0$mode token: $out"
done
out=$("$EBBCTL" --controller "unix:$TMP/none.sock" --token-file "$TMP/short" status 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "$TMP/short.*shorter than 16" && ok "ebbctl: a 1-character token is refused" ||
  fail "ebbctl short token: $out"
exit $FAILED
