#!/bin/sh
# ebb-agent's command line, configuration file and security checks: --help/--version, exit
# status 2 for bad options and config, refusing a non-loopback --listen without a token, a
# world-readable token file, a second agent on the same state dir; bearer auth when a token
# is set; settings from agent.conf with the command line winning.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
run () { # run WANT-STATUS PATTERN -- ARGS...
  want=$1 pat=$2; shift 3
  timeout 10 "$AGENT_BIN" "$@" >"$TMP/out" 2>&1; got=$?
  if [ "$got" = "$want" ] && grep -q -- "$pat" "$TMP/out"; then ok "ebb-agent $* -> $got"
  else fail "ebb-agent $*: status $got (want $want), pattern '$pat': $(head -3 "$TMP/out")"; fi
}
run 0 "Usage: ebb-agent" -- --help
run 0 "ebb-agent [0-9]" -- --version
run 2 "unknown option '--bogus'" -- --bogus
run 2 "missing value for '--listen'" -- --listen
run 2 "unexpected argument" -- extra
run 2 "heartbeat" -- --heartbeat-interval 1x
run 2 "state_dir\|absolute" -- --state-dir relative/dir
run 2 "open" -- --config "$TMP/missing.conf"
printf 'listen = 127.0.0.1:0\nnot_a_key = 1\n' >"$TMP/bad.conf"
run 2 "bad.conf:2" -- --config "$TMP/bad.conf"
run 1 "token-file is required" -- --listen 0.0.0.0:0 --state-dir "$STATE" --cgroup-parent "$CGP"
printf 'abcdefghijklmnopqrstuvwxyz\n' >"$TMP/token"; chmod 644 "$TMP/token"
run 1 "token.*chmod 600" -- --listen 0.0.0.0:0 --token-file "$TMP/token" --state-dir "$STATE" --cgroup-parent "$CGP"
chmod 600 "$TMP/token"

# One table makes the parser, --help and the config keys: every option of --help is in
# ebb-agent(8)'s OPTIONS and back, every key --print-config shows is in ebb.conf(5)'s AGENT
# SETTINGS and back, and ebb.conf(5)'s example loads.
MAN8="$EBB_TOP_SRCDIR/man/ebb-agent.8" MAN5="$EBB_TOP_SRCDIR/man/ebb.conf.5"
"$AGENT_BIN" --help | grep '^  -' | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$TMP/help-opts"
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$MAN8" | sed 's/\\-/-/g' | grep -oE -- '--[a-z][a-z-]*' | sort -u >"$TMP/man-opts"
if [ -s "$TMP/help-opts" ] && diff "$TMP/help-opts" "$TMP/man-opts" >"$TMP/diff"; then
  ok "--help and ebb-agent(8) list the same $(wc -l <"$TMP/help-opts") options"
else fail "--help vs ebb-agent(8) OPTIONS: $(tr '\n' ' ' <"$TMP/diff")"; fi
: >"$TMP/empty.conf"
"$AGENT_BIN" --config "$TMP/empty.conf" --print-config | sed -n 's/^\([a-z_]*\) =.*/\1/p' | sort -u >"$TMP/keys"
sed -n '/^\.SH AGENT SETTINGS/,/^\.SH /p' "$MAN5" | sed -n '/^\.TP/{n;p}' |
  awk -F'"' '{ for (i = 1; i <= NF; i += 2) { print $i; if ($(i + 1) ~ /^ \(/) break } }' | tr ' ' '\n' | grep -E '^[a-z]+(_[a-z]+)*$' |
  grep -v '^\.' | sort -u >"$TMP/man-keys"
if [ -s "$TMP/keys" ] && diff "$TMP/keys" "$TMP/man-keys" >"$TMP/diff"; then
  ok "--print-config and ebb.conf(5) AGENT SETTINGS list the same $(wc -l <"$TMP/keys") keys"
else fail "config keys vs ebb.conf(5): $(tr '\n' ' ' <"$TMP/diff")"; fi
mkdir -p "$TMP/ex/agent.conf.d"
sed -n '/^\.SH EXAMPLE/,/^\.fi/p' "$MAN5" | sed '1,2d;$d' >"$TMP/ex/all"
sed '/^# .*agent\.conf\.d/,$d' "$TMP/ex/all" >"$TMP/ex/agent.conf"
sed -n '/^# .*agent\.conf\.d/,$p' "$TMP/ex/all" >"$TMP/ex/agent.conf.d/50-local.conf"
if "$AGENT_BIN" --config "$TMP/ex/agent.conf" --print-config >"$TMP/ex/out" 2>&1 &&
   grep -q '^capacity_memory = 8G' "$TMP/ex/out" && grep -q '^listen = "unix:/run/ebb/agent.sock"' "$TMP/ex/out"; then
  ok "ebb.conf(5)'s example loads as written (main file and drop-in)"
else fail "ebb.conf(5) example: $(head -3 "$TMP/ex/out")"; fi

# Type=notify: READY=1 and STATUS= once serving, WATCHDOG=1 at least every WATCHDOG_USEC/2,
# STOPPING=1 on SIGTERM.
SINK="$EBB_TOP_BUILDDIR/tests/agent/notify-sink"
# The sink listens for the start, 2.5 s of pings and the stop: 6 s, or 20 s under valgrind,
# where the agent takes seconds to start and STOPPING=1 came after a 6 s sink had gone.
SINK_SEC=6
[ -n "${EBB_AGENT_VALGRIND:-}" ] && SINK_SEC=20
"$SINK" "$TMP/notify" "$SINK_SEC" >"$TMP/notify.out" & SINK_PID=$!
sleep 0.2
NOTIFY_SOCKET="$TMP/notify" WATCHDOG_USEC=1000000 start_agent || fail "agent with NOTIFY_SOCKET"
sleep 2.5
stop_agent TERM
wait "$SINK_PID"
if grep -q '^READY=1|STATUS=' "$TMP/notify.out" && [ "$(grep -c '^WATCHDOG=1$' "$TMP/notify.out")" -ge 3 ] &&
   grep -q '^STOPPING=1' "$TMP/notify.out"; then
  ok "sd_notify: READY=1, STATUS, $(grep -c '^WATCHDOG=1$' "$TMP/notify.out") watchdog pings in 2.5 s, STOPPING=1"
else fail "sd_notify messages: $(tr '\n' ' ' <"$TMP/notify.out")"; fi
rm -rf "$STATE"

# Settings from a config file; the command line's --listen replaces the file's list.
cat >"$TMP/agent.conf" <<EOC
listen = 127.0.0.1:1
state_dir = $STATE
cgroup_parent = $CGP
node_name = node-from-file
stats_interval = 1s
EOC
# A one-shot fake controller on a unix socket records the first heartbeat (a plain http
# controller is refused while a token is set: tests/test-token-squatter.sh).
NC_PID=
if command -v python3 >/dev/null; then
  python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); s.settimeout(10)
c, _ = s.accept(); c.settimeout(5); d = b""
while b"\"tasks\"" not in d:
    x = c.recv(65536)
    if not x: break
    d += x
open(sys.argv[2], "wb").write(d)' "$TMP/hb.sock" "$TMP/heartbeat" & NC_PID=$!
  i=0; while [ ! -S "$TMP/hb.sock" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
fi
"$AGENT_BIN" --config "$TMP/agent.conf" --listen "unix:$SOCK" --listen 127.0.0.1:0 \
  --token-file "$TMP/token" --controller "unix:$TMP/hb.sock" --heartbeat-interval 200ms \
  >>"$LOG" 2>&1 &
AGENT_PID=$!
i=0; while [ ! -S "$SOCK" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
# One token rule: the unix socket is guarded by its mode and group, TCP by the token.
api GET /v1/node
[ "$STATUS" = 200 ] && [ "$(field .name)" = node-from-file ] &&
  ok "unix socket without the token -> 200, node name from the file" || fail "unix, no token: $STATUS $(body)"
i=0; while ! grep -q '^http://' "$STATE/listen" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
TCP=$(grep -m1 '^http://' "$STATE/listen")
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' "$TCP/v1/health")
[ "$STATUS" = 401 ] && [ "$(field .error)" = unauthorized ] && ok "TCP without the token -> 401" || fail "TCP no token: $STATUS $(body)"
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -H "Authorization: Bearer wrong-token-000000" "$TCP/v1/health")
[ "$STATUS" = 401 ] && ok "TCP with a wrong token -> 401" || fail "wrong token: $STATUS"
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' -H "Authorization: Bearer abcdefghijklmnopqrstuvwxyz" "$TCP/v1/node")
[ "$STATUS" = 200 ] && [ "$(field .name)" = node-from-file ] && ok "TCP with the token -> 200" || fail "TCP token: $STATUS $(body)"
grep -q '^http://' "$STATE/listen" && ! grep -q ':1$' "$STATE/listen" && ok "command-line --listen replaced the file's" ||
  fail "listen file: $(cat "$STATE/listen")"
if [ -n "$NC_PID" ]; then
  wait "$NC_PID"
  if grep -q '^POST /v1/nodes/node-from-file/heartbeat' "$TMP/heartbeat" &&
     grep -q '"node":{"name":"node-from-file"' "$TMP/heartbeat"; then
    ok "heartbeat sent to the controller's unix socket with the node report"
  else fail "heartbeat: $(head -c 300 "$TMP/heartbeat")"; fi
fi
# SIGHUP reloads what can change while running; a broken file changes nothing.
echo "stop_grace = 3s" >>"$TMP/agent.conf"
kill -HUP "$AGENT_PID"; sleep 0.3
grep -q "SIGHUP: configuration reloaded" "$LOG" && ok "SIGHUP reloads the configuration" || fail "no reload logged"
echo "stop_grace = forever" >>"$TMP/agent.conf"
kill -HUP "$AGENT_PID"; sleep 0.3
STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" http://agent/v1/health)
grep -q "configuration not reloaded: .*stop_grace" "$LOG" && [ "$STATUS" = 200 ] &&
  ok "SIGHUP with a broken file: error logged, agent keeps serving" || fail "broken reload: $STATUS $(tail -2 "$LOG")"
run 1 "another ebb-agent" -- --listen "unix:$TMP/other.sock" --state-dir "$STATE" --cgroup-parent "$CGP"
stop_agent TERM
[ "$AGENT_STATUS" = 0 ] && ok "SIGTERM -> 0" || fail "exit $AGENT_STATUS"
exit $FAILED
