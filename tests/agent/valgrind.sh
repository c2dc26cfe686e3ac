#!/bin/sh
# valgrind memcheck over the agent's integration tests (make check-valgrind-agent). valgrind
# cannot run an ASan binary, so the agent is built again without sanitizers in BUILDDIR.
# Passes when every agent process that exited normally reports 0 errors and 0 bytes
# definitely lost (a process the test kills with SIGKILL writes no summary: counted apart).
# Usage: valgrind.sh SRCDIR BUILDDIR
set -u
SRC=$1 BLD=$2
command -v valgrind >/dev/null || { echo "SKIP: needs valgrind"; [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1; exit 77; }
VG=$(mktemp -d /tmp/ebb-agent-vg.XXXXXX) || exit 99
trap 'rm -rf "$VG"' EXIT
FAILED=0
for t in test-agent-badinput.sh test-agent-controller.sh test-agent-basic.sh; do
  t0=$(date +%s)
  if EBB_TOP_SRCDIR="$SRC" EBB_TOP_BUILDDIR="$BLD" EBB_AGENT_VALGRIND="$VG" sh "$SRC/tests/$t" >"$VG/$t.out" 2>&1; then
    echo "ok: $t under valgrind ($(( $(date +%s) - t0 )) s)"
  else
    echo "FAIL: $t under valgrind:"; grep -E '^(FAIL|SKIP)' "$VG/$t.out" | head -5; FAILED=1
  fi
done
logs=0 summaries=0 errors=0 definite=0
for f in "$VG"/vg.*.log; do
  [ -f "$f" ] || continue
  logs=$((logs + 1))
  grep -q 'ERROR SUMMARY' "$f" || continue
  summaries=$((summaries + 1))
  e=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$f" | tr -d ,)
  d=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$f" | tr -d , | head -1)
  errors=$((errors + ${e:-0})); definite=$((definite + ${d:-0}))
  if [ "${e:-0}" != 0 ] || [ "${d:-0}" != 0 ]; then echo "--- $f"; head -60 "$f"; fi
done
echo "valgrind: $summaries agent processes with a summary (of $logs logs): $errors errors, $definite bytes definitely lost"
[ "$summaries" -gt 0 ] || { echo "FAIL: no valgrind summary at all"; FAILED=1; }
[ "$errors" = 0 ] && [ "$definite" = 0 ] || FAILED=1
exit $FAILED
