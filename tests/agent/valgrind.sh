#!/bin/sh
# valgrind memcheck over the agent's integration tests (make check-valgrind-agent). valgrind
# cannot run an ASan binary, so the agent is built again without sanitizers in BUILDDIR.
# Passes when every agent process that exited normally reports 0 errors and 0 bytes
# definitely lost (a task's child forked before its exec, or a process the test kills with
# SIGKILL, writes no summary: counted apart).
# Usage: valgrind.sh SRCDIR BUILDDIR
set -u
SRC=$1 BLD=$2
command -v valgrind >/dev/null || { echo "SKIP: needs valgrind"; [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1; exit 77; }
VG=$(mktemp -d /tmp/ebb-agent-vg.XXXXXX) || exit 99
trap 'rm -rf "$VG"' EXIT
FAILED=0
# test-agent-crash.sh passes under it too (0 errors) but takes minutes and kills its agents
# with SIGKILL on purpose (no summary): left out.
for t in test-agent-badinput.sh test-agent-controller.sh test-agent-basic.sh test-agent-adopt.sh \
  test-agent-security.sh test-agent-options.sh test-agent-tls.sh; do
  t0=$(date +%s)
  if EBB_TOP_SRCDIR="$SRC" EBB_TOP_BUILDDIR="$BLD" EBB_AGENT_VALGRIND="$VG" sh "$SRC/tests/$t" >"$VG/$t.out" 2>&1; then
    echo "ok: $t under valgrind ($(( $(date +%s) - t0 )) s)"
  else
    echo "FAIL: $t under valgrind:"; grep -E '^(FAIL|SKIP)' "$VG/$t.out" | head -5; FAILED=1
  fi
done
# A log without a summary is either a task's child, forked by a logged agent before its exec
# (valgrind does not follow the exec), or an agent killed with SIGKILL. Memcheck errors in
# a child before its exec still show in its log and count.
logged=$(for f in "$VG"/vg.*.log; do [ -f "$f" ] && basename "$f" .log | sed 's/^vg\.//'; done)
logs=0 summaries=0 children=0 killed=0 errors=0 definite=0
for f in "$VG"/vg.*.log; do
  [ -f "$f" ] || continue
  logs=$((logs + 1))
  if ! grep -q 'ERROR SUMMARY' "$f"; then
    parent=$(sed -n 's/.*Parent PID: \([0-9]*\).*/\1/p' "$f" | head -1)
    if printf '%s\n' $logged | grep -qx "${parent:-x}"; then children=$((children + 1)); else killed=$((killed + 1)); fi
    if grep -qE '^==[0-9]+== +(Invalid|Conditional|Use of uninit|Syscall param|Mismatched|Source and destination)' "$f"; then
      echo "--- $f"; head -60 "$f"; errors=$((errors + 1))
    fi
    continue
  fi
  summaries=$((summaries + 1))
  e=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$f" | tr -d ,)
  d=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$f" | tr -d , | head -1)
  errors=$((errors + ${e:-0})); definite=$((definite + ${d:-0}))
  if [ "${e:-0}" != 0 ] || [ "${d:-0}" != 0 ]; then echo "--- $f"; head -60 "$f"; fi
done
# Syscalls this valgrind does not know fail with ENOSYS under it: the agent then runs its
# fallbacks (e.g. cgroup/fs.c's walk without openat2), not the paths it takes on the host.
unknown=$(cat "$VG"/vg.*.log 2>/dev/null | sed -n 's/.*unhandled amd64-linux syscall: \([0-9]*\).*/\1/p' | sort -un | tr '\n' ' ')
[ -z "$unknown" ] || echo "note: syscalls unknown to this valgrind (ENOSYS under it): $unknown"
echo "valgrind: $summaries agent processes with a summary, $children forked task children (exec'd, no summary), $killed killed (of $logs logs): $errors errors, $definite bytes definitely lost"
[ "$summaries" -gt 0 ] || { echo "FAIL: no valgrind summary at all"; FAILED=1; }
[ "$errors" = 0 ] && [ "$definite" = 0 ] || FAILED=1
exit $FAILED
