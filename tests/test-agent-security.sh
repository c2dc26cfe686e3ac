#!/bin/sh
# The agent's defences, with a real unprivileged user (created here, removed afterwards):
# the unix socket is 0660 and that user cannot reach it (until put in --socket-group); TCP
# needs the token, loopback included; the token is never sent over plain http to a
# non-loopback (or named) host; tasks run as --task-user (nobody) or the user/group asked,
# with no capabilities, NoNewPrivs, only fds 0-2; root tasks only with --allow-root-tasks.
# Time budget: about 10 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
for c in useradd userdel usermod groupadd groupdel runuser; do command -v $c >/dev/null || skip "needs $c"; done
setup_cgroups
U="ebbt$$" G="ebbg$$"
groupadd "$G" || skip "groupadd failed"
useradd -M -N -g nogroup -s /bin/sh "$U" || { groupdel "$G"; skip "useradd failed"; }
trap 'userdel "$U" 2>/dev/null; groupdel "$G" 2>/dev/null; cleanup' EXIT
chmod 711 "$TMP"
mkdir -m 755 "$TMP/run"
SOCK="$TMP/run/agent.sock"
printf 'abcdefghijklmnopqrstuvwxyz\n' >"$TMP/token"; chmod 600 "$TMP/token"
TOK=abcdefghijklmnopqrstuvwxyz
as_user () { runuser -u "$U" -- "$@"; }

run1 () { # run1 PATTERN ARGS...: the agent must refuse to start (status 1) saying PATTERN
  pat=$1; shift
  timeout 10 "$AGENT_BIN" --state-dir "$STATE" --cgroup-parent "$CGP" "$@" >"$TMP/out" 2>&1; got=$?
  [ "$got" = 1 ] && grep -q -- "$pat" "$TMP/out" && ok "refused: $*" || fail "$*: status $got: $(head -2 "$TMP/out")"
}
run1 "token-file is required" --listen 127.0.0.1:0
run1 "is plain http" --listen "unix:$SOCK" --token-file "$TMP/token" --controller http://192.0.2.1:7480
run1 "is plain http" --listen "unix:$SOCK" --token-file "$TMP/token" --controller http://127.0.0.1.nip.io:7480
run1 "is plain http" --listen "unix:$SOCK" --token-file "$TMP/token" --controller http://127.0.0.1:7480

# Tasks as task_user (no user per job here; test-agent-isolation.sh covers those), U and G allowed.
start_agent --listen 127.0.0.1:0 --token-file "$TMP/token" --task-log-max 64K --task-uid-range none \
  --task-users "$U" --task-groups "$G" || { fail "agent did not start"; exit 1; }
PORT=$(sed -n 's|^http://127.0.0.1:||p' "$STATE/listen" | head -1)
[ "$(stat -c %a "$SOCK")" = 660 ] && ok "socket mode 0660" || fail "socket mode $(stat -c %a "$SOCK")"
as_user curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://agent/v1/health >"$TMP/c" 2>&1; rc=$?
[ "$rc" = 7 ] && ok "user $U cannot connect to the unix socket (curl exit 7)" || fail "user on the socket: rc $rc $(cat "$TMP/c")"
st=$(as_user curl -s -o /dev/null -w '%{http_code}' -X POST -d "$(launch_body x1 '["true"]' 100 16777216)" "http://127.0.0.1:$PORT/v1/tasks")
[ "$st" = 401 ] && ok "user $U on loopback TCP without the token: 401" || fail "user on TCP: $st"
st=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOK" "http://127.0.0.1:$PORT/v1/tasks/x1")
[ "$st" = 404 ] && ok "and no task was created" || fail "x1 exists: $st"

# api with the token (the unix socket needs it too once a token is set).
tapi () {
  STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" -H "Authorization: Bearer $TOK" \
    -X "$1" -H 'Content-Type: application/json' ${3:+--data-binary "$3"} "http://agent$2")
}
PROBE='["sh","-c","id -u; id -g; id -G; grep -E \"^(NoNewPrivs|CapEff|CapPrm|CapBnd|CapAmb)\" /proc/self/status; ls /proc/self/fd | tr \"\\n\" \" \"; echo"]'
probe () { # probe ID [EXTRA-JSON]: launches the probe, waits for its exit, leaves its log in $TMP/probe
  tapi POST /v1/tasks "$(printf '{"id":"%s","argv":%s,"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short"%s}' "$1" "$PROBE" "${2:-}")"
  [ "$STATUS" = 201 ] || { echo "launch $1: $STATUS $(cat "$TMP/body")"; return 1; }
  i=0; while [ $i -lt 100 ]; do tapi GET "/v1/tasks/$1"; [ "$(field .state)" = exited ] && break; sleep 0.05; i=$((i + 1)); done
  cp "$STATE/logs/$1.log" "$TMP/probe"
}
nobody_uid=$(id -u nobody)
if probe p1 && [ "$(sed -n 1p "$TMP/probe")" = "$nobody_uid" ] && grep -q '^NoNewPrivs:.1$' "$TMP/probe" &&
   grep -q '^CapEff:.0000000000000000$' "$TMP/probe" && grep -q '^CapBnd:.0000000000000000$' "$TMP/probe" &&
   grep -q '^CapAmb:.0000000000000000$' "$TMP/probe" && [ "$(tail -n 1 "$TMP/probe")" = "0 1 2 3 " ] &&
   [ "$(field .uid)" = "$nobody_uid" ]; then
  ok "default task: uid nobody ($nobody_uid), no capabilities, NoNewPrivs, fds 0 1 2 only"
else fail "default task: $(tr '\n' '|' <"$TMP/probe")"; fi
usermod -a -G "$G" "$U"
gid=$(getent group "$G" | cut -d: -f3)
if probe p2 "$(printf ',"user":"%s","group":"%s"' "$U" "$gid")" && [ "$(sed -n 1p "$TMP/probe")" = "$(id -u "$U")" ] &&
   [ "$(sed -n 2p "$TMP/probe")" = "$gid" ] && sed -n 3p "$TMP/probe" | grep -qw "$gid"; then
  ok "user $U, group $gid (by id): uid, gid and groups set"
else fail "user/group task: $(tr '\n' '|' <"$TMP/probe")"; fi
tapi POST /v1/tasks "$(printf '{"id":"r1","argv":["true"],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short","user":"root"}')"
[ "$STATUS" = 403 ] && ok "user root without --allow-root-tasks: 403" || fail "root task: $STATUS $(cat "$TMP/body")"
tapi POST /v1/tasks "$(printf '{"id":"r2","argv":["true"],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short","group":"0"}')"
[ "$STATUS" = 403 ] && ok "group 0 without --allow-root-tasks: 403" || fail "group 0 task: $STATUS"
# Task output is capped: beyond --task-log-max (64K here) ID.log moves to ID.log.1, checked at
# each usage refresh (1 to 2 s apart here). The writer makes about 200 KB/s: unrotated, 4 s
# leave 800 KB; rotated, neither file exceeds 64K + 2 s of output (464 KB).
tapi POST /v1/tasks "$(launch_body w1 '["sh","-c","while :; do head -c 20000 /dev/zero | tr \"\\000\" x; echo; sleep 0.1; done"]' 100 33554432)"
[ "$STATUS" = 201 ] || fail "launch w1: $STATUS $(cat "$TMP/body")"
sleep 4
s0=$(stat -c %s "$STATE/logs/w1.log" 2>/dev/null || echo 0); s1=$(stat -c %s "$STATE/logs/w1.log.1" 2>/dev/null || echo 0)
[ "$s1" -gt 65536 ] && [ "$s1" -lt 500000 ] && [ "$s0" -lt 500000 ] &&
  ok "task log rotated at --task-log-max 64K: w1.log $s0 bytes, w1.log.1 $s1 bytes" || fail "log rotation: w1.log $s0, w1.log.1 $s1"
tapi DELETE /v1/tasks/w1
tapi POST /v1/tasks "$(printf '{"id":"r3","argv":["true"],"cpu_millis":100,"memory_bytes":16777216,"job":"j","class":"short","user":"no-such-user-ebb"}')"
[ "$STATUS" = 400 ] && ok "unknown user: 400" || fail "unknown user: $STATUS"
stop_agent TERM

# The socket's group lets its members in.
start_agent --socket-group "$G" || fail "agent with --socket-group"
st=$(as_user curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" http://agent/v1/health)
[ "$st" = 200 ] && [ "$(stat -c %G "$SOCK")" = "$G" ] && ok "member of --socket-group $G reaches the socket" || fail "socket group: $st $(stat -c %G "$SOCK")"
stop_agent TERM

start_agent --allow-root-tasks || fail "agent with --allow-root-tasks"
TOK=
tapi () {
  STATUS=$(curl -s -o "$TMP/body" -w '%{http_code}' --unix-socket "$SOCK" -X "$1" -H 'Content-Type: application/json' \
    ${3:+--data-binary "$3"} "http://agent$2")
}
if probe p3 ',"user":"root"' && [ "$(sed -n 1p "$TMP/probe")" = 0 ] && grep -q '^CapEff:.0000000000000000$' "$TMP/probe" &&
   grep -q '^CapPrm:.0000000000000000$' "$TMP/probe" && grep -q '^NoNewPrivs:.1$' "$TMP/probe"; then
  ok "root task with --allow-root-tasks: uid 0 but no capabilities, NoNewPrivs"
else fail "root task: $(tr '\n' '|' <"$TMP/probe")"; fi
stop_agent TERM
exit $FAILED
