#!/bin/sh
# Issue 24's first attack: once a daemon has stopped, any local user can bind its loopback
# port and collect what clients send there. A squatter (python3) holds a random loopback port
# and records every byte it is sent; the cluster token must never be among them:
#  - an agent configured with --controller http://127.0.0.1:PORT and a token refuses to start,
#    naming the fix (before: it started and sent the token with every heartbeat);
#  - ebbctl with a token file (--token-file or EBB_TOKEN_FILE) and a plain TCP address says
#    it refuses to send the token, not "cannot reach" (before: it sent it);
#  - ebbctl with no address never falls back to 127.0.0.1:7480 (checked with a second squatter
#    there when that port is free);
#  - the controller, told by a node's heartbeat that the agent is at http://127.0.0.1:PORT,
#    does not send its token with the launch (before: it did).
# Budget: about 6 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
CTL_BIN="$EBB_TOP_BUILDDIR/ebb-controller"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
[ -x "$CTL_BIN" ] && [ -x "$EBBCTL" ] || skip "needs $CTL_BIN and $EBBCTL"
command -v python3 >/dev/null || skip "needs python3"
setup_cgroups
TOK=squatter-test-token-$$-0123456789abcdef
printf '%s\n' "$TOK" >"$TMP/token"; chmod 600 "$TMP/token"
SQ_PIDS= CTL_PID=
trap 'for p in $SQ_PIDS $CTL_PID; do kill "$p" 2>/dev/null; done; cleanup' EXIT

# squat PORT LOG: records every connection's bytes to LOG, answers 503. Prints nothing; the
# port is bound when LOG exists. Exit 1 when the port is taken.
squat () {
  python3 -c 'import socket, sys, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try: s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError: sys.exit(1)
s.listen(64); log = open(sys.argv[2], "ab", buffering=0)
def serve(c):
    c.settimeout(2); d = b""
    try:
        while b"\r\n\r\n" not in d:
            x = c.recv(65536)
            if not x: break
            d += x
        log.write(d + b"\n--\n")
        c.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    except OSError: pass
    c.close()
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()' "$1" "$2" &
  SQ_PIDS="$SQ_PIDS $!"
  _i=0
  while [ $_i -lt 50 ]; do
    [ -e "$2" ] && return 0
    kill -0 $! 2>/dev/null || return 1
    sleep 0.05; _i=$((_i + 1))
  done
  return 1
}
P=
for try in 1 2 3 4 5 6; do
  p=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000))
  squat "$p" "$TMP/squat.log" && { P=$p; break; }
done
[ -n "$P" ] || { fail "no free loopback port for the squatter"; exit 1; }
no_token () { # no_token WHAT: the squatter's log must not hold the token
  if grep -q "$TOK" "$TMP/squat.log"; then
    fail "$1: the squatter received the token ($(grep -c 'Authorization' "$TMP/squat.log") requests with it)"
  else ok "$1: the squatter never received the token"; fi
}

# The agent, as ebb.conf(5)'s old example showed it.
timeout 5 "$AGENT_BIN" --listen "unix:$SOCK" --state-dir "$STATE" --cgroup-parent "$CGP" \
  --token-file "$TMP/token" --controller "http://127.0.0.1:$P" --heartbeat-interval 200ms \
  >"$TMP/agent.out" 2>&1 &
AGENT_PID=$!
sleep 1.5
if kill -0 "$AGENT_PID" 2>/dev/null; then
  kill -TERM "$AGENT_PID"; wait "$AGENT_PID"; AGENT_PID=
  fail "the agent started with a plain http controller and a token"
else
  wait "$AGENT_PID"; rc=$?; AGENT_PID=
  [ "$rc" = 1 ] && grep -q "is plain http" "$TMP/agent.out" && grep -q "unix:/run/ebb/controller.sock" "$TMP/agent.out" &&
    grep -q "https://" "$TMP/agent.out" && ok "agent: refused at start, naming unix:/ and https://" ||
    fail "agent: exit $rc: $(head -2 "$TMP/agent.out")"
fi
no_token "agent heartbeats"

# ebbctl with a token file, to the squatted address.
out=$("$EBBCTL" --controller "127.0.0.1:$P" --token-file "$TMP/token" status 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "not sending the token of $TMP/token to the controller at http://127.0.0.1:$P" &&
  ! echo "$out" | grep -q 'cannot reach' && ok "ebbctl --token-file: says it refuses to send the token" ||
  fail "ebbctl --token-file: $out"
out=$(EBB_CONTROLLER="http://127.0.0.1:$P" EBB_TOKEN_FILE="$TMP/token" "$EBBCTL" nodes 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "not sending the token of $TMP/token" && ok "ebbctl EBB_TOKEN_FILE: refused too" ||
  fail "ebbctl EBB_TOKEN_FILE: $out"
out=$("$EBBCTL" --agent "http://127.0.0.1:$P" --token-file "$TMP/token" tasks 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "not sending the token of $TMP/token to the agent" && ok "ebbctl --agent: refused too" ||
  fail "ebbctl --agent: $out"
no_token "ebbctl"

# No fallback to 127.0.0.1:7480 when the default socket is missing.
if [ -e /run/ebb/controller.sock ]; then
  echo "note: /run/ebb/controller.sock exists here: the no-fallback check needs it absent"
else
  squat 7480 "$TMP/squat-7480.log" || echo "note: 127.0.0.1:7480 is taken here: only the message is checked"
  out=$(env -u EBB_CONTROLLER -u EBB_TOKEN_FILE "$EBBCTL" status 2>&1)
  [ $? = 1 ] && echo "$out" | grep -q "cannot reach the controller at unix:/run/ebb/controller.sock" &&
    ! echo "$out" | grep -q 7480 && ok "ebbctl without an address: the socket only, said so" || fail "ebbctl default: $out"
  [ ! -s "$TMP/squat-7480.log" ] && ok "ebbctl without an address: nothing sent to 127.0.0.1:7480" ||
    fail "ebbctl fell back to 127.0.0.1:7480: $(head -c 200 "$TMP/squat-7480.log")"
fi

# The controller, told by a heartbeat that node sq's agent is at the squatted port.
"$CTL_BIN" --listen "unix:$TMP/ctl.sock" --state-dir "$TMP/ctl" --token-file "$TMP/token" --policy fifo \
  --tick 100ms -v >"$TMP/controller.log" 2>&1 &
CTL_PID=$!
i=0
until curl -sf --unix-socket "$TMP/ctl.sock" http://c/v1/health >/dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.05; i=$((i + 1)); done
hb=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$TMP/ctl.sock" -X POST -H 'Content-Type: application/json' \
  --data-binary "{\"seq\":1,\"url\":\"http://127.0.0.1:$P\",\"reason\":\"periodic\",\"node\":{\"capacity\":{\"cpu_millis\":1000,\"memory_bytes\":1073741824}},\"tasks\":[]}" \
  http://c/v1/nodes/sq/heartbeat)
sub=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$TMP/ctl.sock" -X POST -H 'Content-Type: application/json' \
  --data-binary '{"name":"sq","class":"short","request_id":"sq-1","tasks":[{"argv":["true"],"cpu_millis":100,"memory_bytes":16777216}]}' \
  http://c/v1/jobs)
[ "$hb" = 200 ] && [ "$sub" = 201 ] || fail "heartbeat $hb, submit $sub: $(tail -3 "$TMP/controller.log")"
i=0
until grep -q "refusing to send the bearer token" "$TMP/controller.log" || grep -q "$TOK" "$TMP/squat.log" || [ $i -ge 60 ]; do
  sleep 0.05; i=$((i + 1))
done
grep -q "refusing to send the bearer token over plain http to 127.0.0.1" "$TMP/controller.log" &&
  ok "controller: logs that it refuses to send the token to the plain http agent" ||
  fail "controller: no refusal logged: $(grep -i 'sq\|agent' "$TMP/controller.log" | tail -3)"
no_token "controller calls"
exit $FAILED
