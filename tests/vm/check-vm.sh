#!/bin/bash
# `make check-vm`: ebb's real-kernel tests, in as few VM boots as possible.
#
#   tests/vm/check-vm.sh -b BUILDDIR [-T "TEST..."] [-S "TEST..."] [-F "FILE..."]
#
# Boot 1 (tests/vm/run.sh: busybox init, cgroup2 with +cpu +memory +pids +io, 512 MiB zram
# swap, 1024 MB, 2 CPUs) runs tests/vm/sanity.sh and then every -T program in turn, each with
# its own output and CUnit summary on the console and its status and time reported.
# Boot 2 (tests/vm/run-systemd.sh: Debian with systemd as PID 1) runs every -S program.
# Boot 3 runs the demo there too (tests/vm/demo.sh).
# -F lists extra files (helpers the tests exec) to copy into both VMs.
# Test paths are relative to BUILDDIR; inside the VM they run from BUILDDIR with
# EBB_TOP_BUILDDIR set and EBB_TEST_STRICT passed through.
#
# Each program runs under an in-guest `timeout -k 10 EBB_VM_TEST_TIMEOUT` (default 300 s:
# SIGTERM, then SIGKILL for a program that ignores it) and prints a heartbeat line
# (EBB-VM-ALIVE, kept out of the streamed output) every 60 s while it runs. A guest that stops
# (a hung kernel: its timeout never reports) is stopped by the host after
# EBB_VM_STALL_TIMEOUT (default 240 s) without console output, or at the boot's limit; the
# table then names the program that was running, with the reason and its last heartbeat.
#
# Exit status: 0 when every program passed (77 from a program is a skip: a failure under
# EBB_TEST_STRICT); 1 otherwise.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
builddir=. tests= systemd_tests= extra=
while getopts "b:T:S:F:" o; do
  case $o in
    b) builddir=$OPTARG ;; T) tests=$OPTARG ;; S) systemd_tests=$OPTARG ;; F) extra=$OPTARG ;;
    *) echo "usage: $0 -b BUILDDIR [-T TESTS] [-S SYSTEMD_TESTS] [-F FILES]" >&2; exit 2 ;;
  esac
done
builddir=$(cd "$builddir" && pwd)
per_test_timeout=${EBB_VM_TEST_TIMEOUT:-300}
# The longest a program may run in the guest: SIGTERM at the timeout, SIGKILL 10 s later.
per_test_max=$((per_test_timeout + 10))
stall=${EBB_VM_STALL_TIMEOUT:-240}
heartbeat=60
strict=${EBB_TEST_STRICT:-}
[ "$strict" = 0 ] && strict=
t_start=$SECONDS
results=()
status=0
work=$(mktemp -d /tmp/ebb-check-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT

# record NAME STATUS SECONDS: one line of the final table; sets the overall status.
record() {
  local verdict
  case $2 in
    0) verdict=PASS ;;
    77) if [ -n "$strict" ]; then verdict="FAIL (skipped under EBB_TEST_STRICT)"; status=1
        else verdict=SKIP; fi ;;
    -) verdict="FAIL (not run: VM stopped first)"; status=1 ;;
    running) verdict="FAIL (running when the VM stopped)"; status=1 ;;
    *) verdict="FAIL (exit $2)"; status=1 ;;
  esac
  results+=("$(printf '%-44s %-36s %5s s' "$1" "$verdict" "$3")")
}

# The script run inside a VM: each program in turn, framed by markers the host parses.
# $1: test names (relative to builddir).
inner_script() {
  cat <<EOF
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export EBB_TOP_BUILDDIR=$builddir EBB_TOP_SRCDIR=$(cd "$here/../.." && pwd)
cd $builddir
rc=0
now() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }
for t in $1; do
  echo "=== vm: \$t"
  case \$t in *.sh) cmd="sh \$t" ;; /*) cmd=\$t ;; *) cmd=./\$t ;; esac
  t0=\$(now)
  # A sign of life the host can tell from a stopped guest; not the program's output.
  (while sleep $heartbeat; do echo "EBB-VM-ALIVE \$t \$((\$(now) - t0)) s into it, uptime \$(now) s"; done) &
  hb=\$!
  timeout -k 10 $per_test_timeout \$cmd 2>&1
  st=\$?
  kill \$hb 2>/dev/null
  echo "EBB-VM-TEST-END \$t \$st \$((\$(now) - t0))"
  [ \$st = 0 ] || rc=1
done
exit \$rc
EOF
}

# parse LOG NAMES: record each program's status from the console log. A program that started
# but reported no end was running when the guest stopped: it is named, with why the host
# stopped the guest (LOG.stopped), its last heartbeat and its last lines of output.
parse() {
  local log=$1 t line
  for t in $2; do
    line=$(tr -d '\r' <"$log" | awk -v t="$t" '$1 == "EBB-VM-TEST-END" && $2 == t' | tail -n 1)
    if [ -n "$line" ]; then
      set -- $line
      record "$t" "$3" "$4"
    elif tr -d '\r' <"$log" | grep -qxF "=== vm: $t"; then
      record "$t" running -
      echo "check-vm: $t was running when the guest stopped:" \
        "$(cat "$log.stopped" 2>/dev/null || echo "qemu ended without the guest's status")"
      echo "check-vm: its last heartbeat: $(tr -d '\r' <"$log" | awk -v t="$t" '$1 == "EBB-VM-ALIVE" && $2 == t' | tail -n 1 |
        cut -d' ' -f3- | grep . || echo "none (it ran less than ${heartbeat} s, or the guest stopped first)")"
      echo "check-vm: its last output:"
      tr -d '\r' <"$log" | awk -v t="$t" '$0 == "=== vm: " t { on = 1; next } on' | grep -av '^EBB-VM-ALIVE' |
        tail -n 20 | sed 's/^/  | /'
    else
      record "$t" - -
    fi
  done
}

# Boot 1: busybox init on cgroup v2 with zram swap.
files=()
for t in $tests $extra; do files+=(-f "$builddir/$t"); done
files+=(-f "$here/sanity.sh")
# The cluster proof (tests/vm/cluster.sh): ebb-controller and 3 ebb-agents, policy ebb.
cluster=$here/cluster.sh
files+=(-f "$cluster" -f "$here/../controller/lib.sh" -f "$here/../agent/lib.sh" -f "$builddir/ebb-controller"
        -f "$builddir/ebb-agent" -f "$(command -v curl)" -f "$(command -v jq)")
tests="$tests $cluster"
inner_script "$here/sanity.sh $tests" >"$work/boot1.sh"
n=$(echo $tests | wc -w)
t0=$SECONDS
echo "=== check-vm boot 1: cgroup v2 (busybox init): sanity + $n test program(s)"
"$here/run.sh" -m 1024 -c 2 -s 512 -t $((180 + per_test_max * (n + 1))) -w "$stall" -l "$work/boot1.log" \
  "${files[@]+"${files[@]}"}" "$work/boot1.sh"
rc=$?
boot1_secs=$((SECONDS - t0))
boot1_ready=$(sed -n 's/.*EBB-VM-BEGIN uptime \([0-9.]*\) s.*/\1/p' "$work/boot1.log" 2>/dev/null)
if [ $rc = 77 ] || [ ! -s "$work/boot1.log" ]; then
  record "boot 1 (cgroup v2 VM)" 77 "$boot1_secs"
else
  parse "$work/boot1.log" "$here/sanity.sh $tests"
fi

# Boot 2: Debian with systemd as PID 1.
if [ -n "$systemd_tests" ]; then
  files=()
  for t in $systemd_tests $extra; do files+=(-f "$builddir/$t"); done
  inner_script "$systemd_tests" >"$work/boot2.sh"
  n=$(echo $systemd_tests | wc -w)
  t0=$SECONDS
  echo "=== check-vm boot 2: systemd as PID 1 (Debian root image): $n test program(s)"
  "$here/run-systemd.sh" -m 1024 -c 2 -t $((240 + per_test_max * n)) -w "$stall" -l "$work/boot2.log" \
    "${files[@]}" "$work/boot2.sh"
  rc=$?
  boot2_secs=$((SECONDS - t0))
  if [ $rc = 77 ] || [ ! -s "$work/boot2.log" ]; then
    record "boot 2 (systemd VM)" 77 "$boot2_secs"
  else
    parse "$work/boot2.log" "$systemd_tests"
  fi
fi

# Boot 3: the demo, scripts/demo.sh --quick, on cgroup v2 under systemd (tests/vm/demo.sh).
t0=$SECONDS
echo "=== check-vm boot 3: scripts/demo.sh --quick (cgroup v2, systemd as PID 1)"
"$here/demo.sh" -b "$builddir"
record "scripts/demo.sh --quick (boot 3)" $? $((SECONDS - t0))

echo "=== check-vm results"
for r in "${results[@]}"; do echo "check-vm: $r"; done
echo "check-vm: boot 1 ${boot1_secs} s (guest userspace after ${boot1_ready:-?} s)${boot2_secs:+, boot 2 ${boot2_secs} s}, total $((SECONDS - t_start)) s"
[ $status = 0 ] && echo "check-vm: all passed" || echo "check-vm: FAILED"
exit $status
