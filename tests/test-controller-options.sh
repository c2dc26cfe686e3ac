#!/bin/sh
# ebb-controller as a systemd service and its configuration, with heartbeats sent by curl (no
# agent, no cgroup): Type=notify (READY=1 and STATUS= once serving, WATCHDOG=1 at least every
# WATCHDOG_USEC/2 even with a longer --tick, STOPPING=1 on SIGTERM); --config with a
# FILE.d/*.conf drop-in that overrides the main file; SIGHUP reloads --node-timeout (a node
# is lost after the new timeout), and a bad file on SIGHUP leaves the controller running
# with the settings it had; a unix socket's directory is made. Budget: about 10 s.
: "${EBB_TOP_SRCDIR:=.}" "${EBB_TOP_BUILDDIR:=.}"
skip () { echo "SKIP: $*"; [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1; exit 77; }
fail () { echo "FAIL: $*"; FAILED=1; }
ok () { echo "ok: $*"; }
FAILED=0
CTL_BIN="$EBB_TOP_BUILDDIR/ebb-controller"
SINK="$EBB_TOP_BUILDDIR/tests/agent/notify-sink"
[ -x "$CTL_BIN" ] && [ -x "$SINK" ] || skip "needs $CTL_BIN and $SINK"
for c in curl jq; do command -v $c >/dev/null || skip "needs $c"; done
TMP=$(mktemp -d /tmp/ebb-ctl-options.XXXXXX) || exit 99
CTL_PID= SINK_PID=
trap '[ -n "$CTL_PID" ] && kill -9 "$CTL_PID" 2>/dev/null; [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null
  [ "$FAILED" != 0 ] && tail -20 "$TMP/controller.log"; rm -rf "$TMP"' EXIT
SOCK="$TMP/ctl.sock"
echo "ebb-ctl-options-test-token-$$" >"$TMP/token"
chmod 600 "$TMP/token"

# start [options]: the controller on $SOCK, waiting for /v1/health.
start () {
  "$CTL_BIN" --listen "unix:$SOCK" --state-dir "$TMP/state" --token-file "$TMP/token" -v "$@" \
    >>"$TMP/controller.log" 2>&1 &
  CTL_PID=$!
  i=0
  while [ $i -lt 100 ]; do
    curl -sf --unix-socket "$SOCK" http://c/v1/health >/dev/null 2>&1 && return 0
    kill -0 "$CTL_PID" 2>/dev/null || return 1
    sleep 0.05; i=$((i + 1))
  done
  return 1
}
stop () { kill -TERM "$CTL_PID"; wait "$CTL_PID"; RC=$?; CTL_PID=; }
get () { curl -s --unix-socket "$SOCK" "http://c$1"; }
# heartbeat NAME: the report an agent sends (capacity, URL, no task).
heartbeat () {
  curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
    --data-binary '{"seq":1,"url":"unix:/nonexistent/agent.sock","reason":"periodic","node":{"capacity":{"cpu_millis":1000,"memory_bytes":1073741824}},"tasks":[]}' \
    "http://c/v1/nodes/$1/heartbeat"
}
node_state () { get "/v1/nodes/$1" | jq -r .state; }

# Type=notify with a watchdog of 1 s and a tick of 5 s: the pings come every 0.5 s anyway.
"$SINK" "$TMP/notify" 4 >"$TMP/notify.out" & SINK_PID=$!
sleep 0.2
NOTIFY_SOCKET="$TMP/notify" WATCHDOG_USEC=1000000 start --policy fifo --tick 5s || fail "controller with NOTIFY_SOCKET"
sleep 2.5
stop
wait "$SINK_PID"; SINK_PID=
n=$(grep -c '^WATCHDOG=1$' "$TMP/notify.out")
if grep -q '^READY=1|STATUS=' "$TMP/notify.out" && [ "$n" -ge 3 ] && grep -q '^STOPPING=1' "$TMP/notify.out" &&
   [ "$RC" = 0 ]; then
  ok "sd_notify: READY=1, STATUS, $n watchdog pings in 2.5 s with --tick 5s, STOPPING=1, exit 0"
else fail "sd_notify messages (exit $RC): $(tr '\n' ' ' <"$TMP/notify.out")"; fi

# The main file and a drop-in of FILE.d/ that overrides it; the command line gives neither.
mkdir -p "$TMP/etc/controller.conf.d"
printf 'policy = sparrow\nnode_timeout = 1h\ntick = 100ms\n' >"$TMP/etc/controller.conf"
printf 'node_timeout = 1s\n' >"$TMP/etc/controller.conf.d/50-timeout.conf"
start --config "$TMP/etc/controller.conf" || { fail "controller with --config"; exit 1; }
[ "$(get /v1/health | jq -r .policy)" = sparrow ] && ok "policy from the main file" ||
  fail "policy: $(get /v1/health)"
[ "$(heartbeat n1)" = 200 ] && [ "$(node_state n1)" = ready ] || fail "heartbeat n1: $(get /v1/nodes/n1)"
sleep 2
[ "$(node_state n1)" = lost ] && ok "node_timeout 1s of the drop-in wins over the main file's 1h" ||
  fail "n1 after 2 s without heartbeat: $(get /v1/nodes/n1)"

# SIGHUP: the drop-in now says 1h; a node that comes back stays ready past the old timeout.
printf 'node_timeout = 1h\n' >"$TMP/etc/controller.conf.d/50-timeout.conf"
kill -HUP "$CTL_PID"
i=0; while ! grep -q 'SIGHUP: configuration reloaded' "$TMP/controller.log" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
heartbeat n1 >/dev/null
sleep 2
[ "$(node_state n1)" = ready ] && ok "SIGHUP reloaded node_timeout (1h): n1 still ready after 2 s" ||
  fail "n1 after the reload: $(get /v1/nodes/n1)"

# A bad file on SIGHUP: refused and said so; the controller runs on with 1h.
printf 'node_timeout = soon\n' >"$TMP/etc/controller.conf.d/50-timeout.conf"
kill -HUP "$CTL_PID"
i=0; while ! grep -q 'SIGHUP: configuration not reloaded' "$TMP/controller.log" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
heartbeat n2 >/dev/null
sleep 1.5
if grep -q 'SIGHUP: configuration not reloaded.*50-timeout.conf' "$TMP/controller.log" &&
   kill -0 "$CTL_PID" && [ "$(node_state n2)" = ready ]; then
  ok "a bad drop-in on SIGHUP: logged, the controller keeps running with its settings"
else fail "bad reload: $(tail -3 "$TMP/controller.log")"; fi
stop
[ "$RC" = 0 ] && ok "SIGTERM: exit 0" || fail "exit status $RC after SIGTERM"

# A unix socket in a directory that does not exist yet (the default /run/ebb/controller.sock
# outside systemd): the directory is made.
SOCK="$TMP/run/ebb/controller.sock"
if start --policy fifo; then
  [ -S "$SOCK" ] && ok "a socket in a new directory: the directory is made" || fail "no socket $SOCK"
  stop
else fail "no start on a socket in a new directory: $(tail -2 "$TMP/controller.log")"; fi
exit $FAILED
