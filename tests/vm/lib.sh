# Shared helpers of ebb's VM harness (sourced by run.sh, run-systemd.sh, mkroot.sh).
# Bash only. Every helper reports problems on stderr with the "vm:" prefix.

vm_log() { echo "vm: $*" >&2; }

# vm_unavailable WHAT: the VM cannot run here (missing qemu, kernel, busybox, debootstrap...).
# Exit 77 (skip) normally; with EBB_TEST_STRICT set (CI) a VM test that cannot run is a failure.
vm_unavailable() {
  vm_log "cannot run the VM: $*"
  if [ -n "${EBB_TEST_STRICT:-}" ] && [ "${EBB_TEST_STRICT}" != 0 ]; then
    vm_log "EBB_TEST_STRICT is set: this is a failure (apt-get install -y qemu-system-x86 linux-image-amd64 busybox-static)"
    exit 1
  fi
  exit 77
}

# vm_find_kernel: sets vm_kernel and vm_kver. EBB_VM_KERNEL overrides the newest
# /boot/vmlinuz-*; its modules must be in /lib/modules/<version>.
vm_find_kernel() {
  vm_kernel=${EBB_VM_KERNEL:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)}
  [ -n "$vm_kernel" ] || vm_unavailable "no kernel in /boot (apt-get install linux-image-amd64)"
  [ -r "$vm_kernel" ] || vm_unavailable "kernel $vm_kernel is not readable"
  vm_kver=${vm_kernel##*/vmlinuz-}
  [ -d "/lib/modules/$vm_kver" ] || vm_unavailable "no modules for $vm_kver in /lib/modules"
}

# vm_check_tools: qemu, cpio, gzip and a busybox must exist on the host.
vm_check_tools() {
  local t
  for t in qemu-system-x86_64 cpio gzip tail ldd; do
    command -v "$t" >/dev/null || vm_unavailable "$t not found (apt-get install qemu-system-x86 cpio)"
  done
  vm_busybox=${EBB_VM_BUSYBOX:-/bin/busybox}
  [ -x "$vm_busybox" ] || vm_unavailable "$vm_busybox not found (apt-get install busybox-static)"
}

# vm_parse_args PROG WITH_SWAP ARG...: parses the command line shared by run.sh and
# run-systemd.sh (only run.sh takes -s, when WITH_SWAP is 1) into mem, cpus, swap, timeout,
# stall (-w), dir, keep_log, files[] and envs[] (EBB_TEST_STRICT is passed through), the script into
# vm_script and its arguments into vm_args[]. Exits 2 on a usage error.
vm_parse_args() {
  local prog=$1 spec=m:c:t:w:f:e:C:l: sizes="[-m MB] [-c CPUS] [-t S] [-w S]" o OPTIND=1
  if [ "$2" = 1 ]; then spec=m:c:s:t:w:f:e:C:l: sizes="[-m MB] [-c CPUS] [-s SWAP_MB] [-t S] [-w S]"; fi
  shift 2
  mem=1024 cpus=2 swap=0 timeout=600 stall=0 dir=/tmp keep_log= files=() envs=()
  while getopts "$spec" o; do
    case $o in
      m) mem=$OPTARG ;; c) cpus=$OPTARG ;; s) swap=$OPTARG ;; t) timeout=$OPTARG ;; w) stall=$OPTARG ;;
      f) files+=("$OPTARG") ;; e) envs+=("$OPTARG") ;; C) dir=$OPTARG ;; l) keep_log=$OPTARG ;;
      *) echo "usage: $prog $sizes [-f FILE]... [-e VAR=VAL]... [-C DIR] [-l LOG] SCRIPT [ARG]..." >&2
         exit 2 ;;
    esac
  done
  shift $((OPTIND - 1))
  [ $# -ge 1 ] || { echo "$prog: no script given" >&2; exit 2; }
  vm_script=$1
  shift
  vm_args=("$@")
  [ -r "$vm_script" ] || { echo "$prog: cannot read $vm_script" >&2; exit 2; }
  if [ -n "${EBB_TEST_STRICT:-}" ]; then envs+=("EBB_TEST_STRICT=$EBB_TEST_STRICT"); fi
}

# vm_boot WORK QEMU-ARGS...: packs WORK/root (whose /init is the guest's first program) as the
# initramfs and boots it with the parsed -c/-m/-t/-w/-l settings; returns as vm_qemu.
vm_boot() {
  local work=$1
  shift
  # Callers run this under set +e (for vm_qemu); a failed setup still ends with its status.
  chmod +x "$work/root/init" && vm_cpio "$work/root" "$work/initrd.gz" || return
  vm_qemu "$timeout" "${keep_log:-$work/console.log}" -smp "$cpus" -m "$mem" \
    -initrd "$work/initrd.gz" "$@"
}

# vm_add ROOT FILE: copy FILE into ROOT at the same absolute path, with every shared library
# it links (ldd also lists libasan/libubsan of sanitizer builds and the dynamic loader).
vm_add() {
  local root=$1 f lib
  f=$(readlink -f "$2") || return 1
  [ -e "$f" ] || { vm_log "no such file: $2"; return 1; }
  mkdir -p "$root$(dirname "$f")" && cp -L "$f" "$root$f" || return 1
  [ -f "$f" ] || return 0
  { ldd "$f" 2>/dev/null || true; } | { grep -o '/[^ ]*' || true; } | while read -r lib; do
    [ -e "$root$lib" ] && continue
    mkdir -p "$root$(dirname "$lib")" && cp -L "$lib" "$root$lib"
  done
}

# vm_add_modules ROOT MODULE...: copy the modules and their dependencies into ROOT/modules and
# append the insmod lines, in dependency order, to ROOT/modules/load.
vm_add_modules() {
  local root=$1 m ko
  shift
  mkdir -p "$root/modules"
  for m in "$@"; do
    modprobe -S "$vm_kver" --show-depends "$m" 2>/dev/null | while read -r cmd ko _; do
      [ "$cmd" = insmod ] || continue
      grep -qx "insmod /modules/${ko##*/}" "$root/modules/load" 2>/dev/null && continue
      cp "$ko" "$root/modules/" && echo "insmod /modules/${ko##*/}" >>"$root/modules/load"
    done
  done
  [ -s "$root/modules/load" ] || vm_unavailable "kernel modules $* not found for $vm_kver"
}

# vm_cpio DIR OUT: pack DIR as a gzip'd newc initramfs.
vm_cpio() {
  (cd "$1" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$2"
}

# vm_qemu TIMEOUT LOG QEMU-ARGS...: boot, stream the console lines between EBB-VM-BEGIN and
# EBB-VM-EXIT to stdout as they come, keep the whole console in LOG. Returns the status the
# guest reported with "EBB-VM-EXIT <n>", or 99 (with why and the console's tail) when it
# reported none (timeout, stall, kernel panic, qemu failure).
#
# The host's wait is bounded whatever the guest does: a watchdog stops qemu (by the PID this
# function started, SIGTERM then SIGKILL after 10 s) once TIMEOUT seconds have passed, once
# the guest has been silent on its console for $stall seconds after EBB-VM-BEGIN (-w; 0: no
# such limit), or 30 s after the guest reported its status without powering off. A guest
# that stops (a hung kernel never lets an in-guest timeout report) is thus reported, with
# the reason in LOG.stopped, instead of holding the host until the whole boot's budget ends.
vm_qemu() {
  local timeout=$1 log=$2 t0=$SECONDS status raw qpid= watcher=
  shift 2
  raw=$log.raw
  rm -f "$log.stopped"
  : >"$log"
  : >"$raw"
  local limits="timeout ${timeout} s"
  [ "${stall:-0}" -gt 0 ] && limits="$limits, at most $stall s without console output"
  vm_log "booting $vm_kernel (TCG, $limits)"
  qemu-system-x86_64 -accel tcg -cpu max -nodefaults -no-user-config \
    -display none -monitor none -serial stdio -no-reboot \
    -kernel "$vm_kernel" "$@" </dev/null >"$raw" 2>&1 &
  qpid=$!
  # Interrupted, the host stops the guest too (a background job ignores the terminal's SIGINT).
  trap 'kill -KILL "$qpid" "$watcher" 2>/dev/null; exit 130' INT TERM
  vm_watchdog "$qpid" "$raw" "$log.stopped" "$timeout" "${stall:-0}" &
  watcher=$!
  # tail ends once qemu has gone (after reading what it wrote last).
  tail -n +1 -f --pid="$qpid" "$raw" 2>/dev/null |
    tr -d '\r' | tee "$log" |
    awk '/EBB-VM-BEGIN/ { on = 1; print "vm: guest ready: " $0 > "/dev/stderr"; fflush(); next }
         /EBB-VM-EXIT/ { on = 0 }
         on && !/EBB-VM-ALIVE/ { print; fflush() }'
  wait "$qpid" 2>/dev/null
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  trap - INT TERM
  rm -f "$raw"
  status=$(sed -n 's/.*EBB-VM-EXIT \([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
  if [ -z "$status" ]; then
    vm_log "the guest reported no exit status after $((SECONDS - t0)) s: $(cat "$log.stopped" 2>/dev/null ||
      echo "qemu ended on its own (panic or qemu error)"); console tail:"
    tail -n 40 "$log" >&2
    return 99
  fi
  vm_log "guest exited with status $status after $((SECONDS - t0)) s of VM time"
  return "$status"
}

# vm_watchdog QEMU-PID RAW-LOG WHY-FILE TIMEOUT STALL: vm_qemu's watchdog (see there); writes
# why it stopped qemu to WHY-FILE.
vm_watchdog() {
  local pid=$1 raw=$2 why=$3 timeout=$4 stall=$5 start size last_size=-1 last_change reason
  start=$(date +%s)
  last_change=$start
  while sleep 2; do
    local now=$(date +%s)
    if grep -aq 'EBB-VM-EXIT' "$raw" 2>/dev/null; then
      sleep 30
      reason="the guest reported its status but did not power off within 30 s"
      break
    fi
    if [ $((now - start)) -ge "$timeout" ]; then
      reason="stopped by the host after the boot's limit of $timeout s"
      break
    fi
    size=$(stat -c %s "$raw" 2>/dev/null || echo 0)
    [ "$size" != "$last_size" ] && last_size=$size last_change=$now
    if [ "$stall" -gt 0 ] && [ $((now - last_change)) -ge "$stall" ] &&
      grep -aq 'EBB-VM-BEGIN' "$raw" 2>/dev/null; then
      reason="stopped by the host: no console output for $((now - last_change)) s (limit $stall s), the guest stalled"
      break
    fi
  done
  kill -0 "$pid" 2>/dev/null || exit 0
  echo "$reason" >"$why"
  kill -TERM "$pid" 2>/dev/null
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 "$pid" 2>/dev/null || exit 0
    sleep 1
  done
  echo "$reason (qemu ignored SIGTERM: SIGKILL)" >"$why"
  kill -KILL "$pid" 2>/dev/null
  exit 0
}
