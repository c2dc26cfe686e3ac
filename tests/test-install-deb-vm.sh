#!/bin/sh
# Runs inside the systemd VM (make check-vm, boot 2: a clean debootstrapped bookworm with
# systemd as PID 1): installs ebb's .deb with dpkg, which must start ebb-agent.service with no
# configuration file; the agent must sit in a leaf of its delegated cgroup and put a launched
# task below <unit cgroup>/tasks, where suspend and resume work; the unit stops cleanly.
# Every unit the package ships (the controller's too, once it exists) must be active.
# Budget: about 30 s inside the VM.
set -u
here=$(cd "$(dirname "$0")" && pwd)
unit=/system.slice/ebb-agent.service
FAILED=0
# soft_fail: reports, carries on (the other units and checks still run).
soft_fail () { echo "FAIL: $*"; journalctl -b -u "$2" --no-pager 2>/dev/null | tail -n 20; FAILED=1; }
fail () {
  echo "FAIL: $*"
  journalctl -b -u ebb-agent.service --no-pager 2>/dev/null | tail -n 40
  for d in /sys/fs/cgroup$unit /sys/fs/cgroup$unit/tasks; do
    echo "$d: procs $(tr '\n' ' ' <"$d/cgroup.procs" 2>/dev/null) controllers $(cat "$d/cgroup.controllers" 2>/dev/null) subtree $(cat "$d/cgroup.subtree_control" 2>/dev/null)"
  done
  exit 1
}
# api METHOD PATH [BODY]: prints the response body; fails (showing it) on an HTTP error.
api () {
  code=$(curl -s -m 10 -o /tmp/api.out -w '%{http_code}' -X "$1" \
    -H 'Content-Type: application/json' ${3:+-d "$3"} --unix-socket /run/ebb/agent.sock \
    "http://agent$2") || code=000
  cat /tmp/api.out
  [ "$code" -ge 200 ] && [ "$code" -lt 300 ] || { echo "$1 $2: HTTP $code: $(cat /tmp/api.out)" >&2; return 1; }
}
field () { sed -n "s/.*\"$1\":\"\{0,1\}\([^\",}]*\).*/\1/p"; }

[ ! -e /etc/ebb/agent.conf ] || fail "/etc/ebb/agent.conf exists before the install"
dpkg -i "$here/ebb.deb" >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; fail "dpkg -i"; }
units=$(dpkg -L ebb | sed -n 's|^/lib/systemd/system/\(ebb-[a-z]*\.service\)$|\1|p')
[ -n "$units" ] || fail "the package ships no unit"
for u in $units; do
  i=0
  while ! systemctl is-active -q "$u" && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
  if ! systemctl is-active -q "$u"; then
    soft_fail "$u is not active after dpkg -i: $(systemctl status "$u" --no-pager)" "$u"
    continue
  fi
  systemctl is-enabled -q "$u" || soft_fail "$u is not enabled" "$u"
  echo "ok: $u active and enabled after dpkg -i"
done
[ ! -e /etc/ebb/agent.conf ] && [ -f /etc/ebb/agent.conf.example ] ||
  fail "expected no agent.conf and an agent.conf.example in /etc/ebb"

pid=$(systemctl show -p MainPID --value ebb-agent)
cg=$(sed -n 's/^0:://p' "/proc/$pid/cgroup")
[ "$cg" = "$unit/agent" ] || fail "the agent runs in $cg, not in $unit/agent"
i=0
until api GET /v1/health >/dev/null || [ $i -ge 40 ]; do sleep 0.25; i=$((i + 1)); done
api GET /v1/health >/dev/null || fail "GET /v1/health"
api POST /v1/tasks '{"id":"t1","job":"vm","class":"long","argv":["sleep","300"],"cpu_millis":500,"memory_bytes":67108864}' >/dev/null ||
  fail "POST /v1/tasks"
tpid=$(api GET /v1/tasks/t1 | field pid)
[ -n "$tpid" ] || fail "no pid for t1: $(api GET /v1/tasks/t1)"
tcg=$(sed -n 's/^0:://p' "/proc/$tpid/cgroup")
case $tcg in "$unit/tasks/"*) ;; *) fail "task t1 runs in $tcg, outside $unit/tasks" ;; esac
echo "ok: agent in $cg, task t1 in $tcg"
before=$(cat "/sys/fs/cgroup$tcg/cpu.max")
api POST /v1/tasks/t1/suspend '{"mode":"immediate","request_id":"vm-s1"}' >/dev/null || fail "suspend"
max=$(cat "/sys/fs/cgroup$tcg/cpu.max")
[ "$max" = "1000 100000" ] || fail "cpu.max of the suspended task is $max"
api POST /v1/tasks/t1/resume '{"request_id":"vm-r1"}' >/dev/null || fail "resume"
max=$(cat "/sys/fs/cgroup$tcg/cpu.max")
[ "$max" = "$before" ] || fail "cpu.max after resume is $max, was $before"
echo "ok: suspend (cpu.max 1000 100000) and resume ($max) inside the delegated subtree"
api DELETE /v1/tasks/t1 >/dev/null || fail "DELETE"
systemctl stop ebb-agent || fail "systemctl stop"
[ "$(systemctl show -p Result --value ebb-agent)" = success ] || fail "the agent did not stop cleanly"
echo "ok: ebb-agent stopped cleanly"
exit $FAILED
