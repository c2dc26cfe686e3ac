# Harness self-test, run inside the VM by busybox sh (tests/vm/check-vm.sh runs it first):
# proves the guest gives the tests what they assume — cgroup2 with the cpu, memory and pids
# controllers delegated to children, cpu.max that reads back what was written and really
# throttles a CPU burner, swap — and that a failure here fails `make check-vm`.
cg=/sys/fs/cgroup/ebb-sanity
fail=0
check() { # check COMMAND...: one line per check, described by $desc
  if "$@"; then echo "  ok   $desc"; else echo "  FAIL $desc"; fail=1; fi
}
usage_usec() { awk '$1 == "usage_usec" { print $2 }' "$cg/cpu.stat"; }
# cpu_share SECONDS: CPU used by the cgroup over SECONDS, in percent of one CPU, against the
# wall time that really passed (under TCG on a loaded host, sleep 2 can take 3 s).
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
cpu_share() {
  u0=$(usage_usec) w0=$(uptime_ms); sleep "$1"; u1=$(usage_usec) w1=$(uptime_ms)
  echo $(((u1 - u0) / ((w1 - w0) * 10)))
}

echo "sanity: kernel $(uname -r), $(nproc) cpus"
desc="cgroup2 mounted at /sys/fs/cgroup"; check grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts
for c in cpu memory pids; do
  desc="controller $c enabled for children"; check grep -qw $c /sys/fs/cgroup/cgroup.subtree_control
done
desc="swap is on"; check awk '/SwapTotal/ { exit !($2 > 0) }' /proc/meminfo

rmdir $cg 2>/dev/null
mkdir $cg || { echo "sanity: cannot create $cg"; exit 1; }
desc="child has cpu.max, memory.high, memory.swap.max, cpu.pressure"
check test -e $cg/cpu.max -a -e $cg/memory.high -a -e $cg/memory.swap.max -a -e $cg/cpu.pressure
echo "10000 100000" >$cg/cpu.max
desc="cpu.max reads back 10000 100000 (got: $(cat $cg/cpu.max))"
check test "$(cat $cg/cpu.max)" = "10000 100000"
echo 67108864 >$cg/memory.high
desc="memory.high reads back 67108864"; check test "$(cat $cg/memory.high)" = 67108864

sh -c "echo \$\$ > $cg/cgroup.procs && exec sh -c 'while :; do :; done'" &
burner=$!
sleep 1
desc="burner $burner is in the cgroup"; check grep -qx "$burner" $cg/cgroup.procs
limited=$(cpu_share 2)
desc="burner at cpu.max 10% uses <= 15% of a CPU (used $limited%)"; check test "$limited" -le 15
echo "max 100000" >$cg/cpu.max
sleep 1
free=$(cpu_share 2)
desc="burner unthrottled uses >= 60% of a CPU (used $free%)"; check test "$free" -ge 60
throttled=$(awk '$1 == "nr_throttled" { print $2 }' $cg/cpu.stat)
desc="cpu.stat counted throttled periods ($throttled)"; check test "$throttled" -gt 0

kill "$burner"; wait "$burner" 2>/dev/null
sleep 0.2
rmdir $cg || { echo "sanity: cannot remove $cg"; fail=1; }
[ $fail = 0 ] && echo "sanity: all checks passed" || echo "sanity: FAILED"
exit $fail
