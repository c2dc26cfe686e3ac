#!/bin/bash
# ebb's whole test suite, as CI runs it: install what is needed, build with -Werror and
# ASan/UBSan, run the CUnit suites (`make check`), the cgroup v2 tests in a VM
# (`make check-vm`), the formatting check and `make distcheck`, then print one summary line.
# Usage: bash scripts/test.sh        (as root on Debian 12; EBB_BUILD_DIR picks the build dir)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${EBB_BUILD_DIR:-$top/build/test}
jobs=$(nproc)
log=$(mktemp /tmp/ebb-test.XXXXXX)
status=0
export EBB_TEST_STRICT=${EBB_TEST_STRICT:-1}

step() { # step NAME COMMAND...: run, record failure, keep going so every result is shown
  local name=$1; shift
  local t0=$SECONDS
  echo "=== $name"
  if "$@"; then echo "=== $name: ok ($((SECONDS - t0)) s)"
  else echo "=== $name: FAILED ($((SECONDS - t0)) s)"; status=1; fi
}

show_logs() { # the CUnit output of every suite, pass or fail, so the summaries are visible
  local f
  for f in $(cd "$build" && ls tests/*.log tests/*/*.log 2>/dev/null | grep -v test-suite.log | sort); do
    echo "--- $f"; cat "$build/$f"
  done
}

run() {
  bash "$top/scripts/install-deps.sh" || return 1
  (cd "$top" && autoreconf -fi >/dev/null 2>&1) || { echo "autoreconf failed"; return 1; }
  mkdir -p "$build"
  step configure bash -c "cd '$build' && '$top/configure' -q --enable-werror --enable-sanitizers"
  [ $status -eq 0 ] || return 1
  step build make -C "$build" -j"$jobs" -s
  [ $status -eq 0 ] || return 1
  # The suites run one at a time: several measure a CPU burner's share from /proc, and two
  # such tests side by side on a 2-core machine would measure each other.
  step "make check" make -C "$build" check
  show_logs
  step "make check-vm" make -C "$build" check-vm
  step "make check-format" make -C "$build" -s check-format
  step "make fuzz" make -C "$build" -s fuzz
  step "make distcheck" make -C "$build" -s distcheck \
    DISTCHECK_CONFIGURE_FLAGS=--enable-werror
}

start=$SECONDS
run 2>&1 | tee "$log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
grep -q '=== .*: FAILED' "$log" && status=1
# One closing line over every CUnit suite that ran (host and VM): "tests" rows of CUnit's
# run summaries: Total Ran Passed Failed Inactive.
read -r passed failed < <(awk '$1 == "tests" && NF >= 6 { p += $4; f += $5 } END { print p + 0, f + 0 }' "$log")
rm -f "$log"
echo "wall time: $((SECONDS - start)) s"
[ "$status" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1   # a broken step counts even without a CUnit failure
echo "ebb: $passed passed, $failed failed"
exit $status
