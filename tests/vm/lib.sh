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
  for t in qemu-system-x86_64 cpio gzip timeout ldd; do
    command -v "$t" >/dev/null || vm_unavailable "$t not found (apt-get install qemu-system-x86 cpio)"
  done
  vm_busybox=${EBB_VM_BUSYBOX:-/bin/busybox}
  [ -x "$vm_busybox" ] || vm_unavailable "$vm_busybox not found (apt-get install busybox-static)"
}

# vm_parse_args PROG WITH_SWAP ARG...: parses the command line shared by run.sh and
# run-systemd.sh (only run.sh takes -s, when WITH_SWAP is 1) into mem, cpus, swap, timeout,
# dir, keep_log, files[] and envs[] (EBB_TEST_STRICT is passed through), the script into
# vm_script and its arguments into vm_args[]. Exits 2 on a usage error.
vm_parse_args() {
  local prog=$1 spec=m:c:t:f:e:C:l: sizes="[-m MB] [-c CPUS] [-t S]" o OPTIND=1
  if [ "$2" = 1 ]; then spec=m:c:s:t:f:e:C:l: sizes="[-m MB] [-c CPUS] [-s SWAP_MB] [-t S]"; fi
  shift 2
  mem=1024 cpus=2 swap=0 timeout=600 dir=/tmp keep_log= files=() envs=()
  while getopts "$spec" o; do
    case $o in
      m) mem=$OPTARG ;; c) cpus=$OPTARG ;; s) swap=$OPTARG ;; t) timeout=$OPTARG ;;
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
# initramfs and boots it with the parsed -c/-m/-t/-l settings; returns as vm_qemu.
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
# guest reported with "EBB-VM-EXIT <n>", or 99 (with the console's tail) when it reported none
# (timeout, kernel panic, qemu failure).
vm_qemu() {
  local timeout=$1 log=$2 t0=$SECONDS status pidfile watcher
  shift 2
  pidfile=$log.qemu-pid
  rm -f "$pidfile"
  : >"$log"
  vm_log "booting $vm_kernel (TCG, timeout ${timeout} s)"
  # A guest that reported its status but does not power off within 30 s is stopped.
  (while sleep 2; do
     grep -aq 'EBB-VM-EXIT' "$log" 2>/dev/null || continue
     sleep 30; [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null; exit 0
   done) &
  watcher=$!
  timeout -k 10 "$timeout" qemu-system-x86_64 -accel tcg -cpu max -nodefaults -no-user-config \
    -display none -monitor none -serial stdio -no-reboot -pidfile "$pidfile" \
    -kernel "$vm_kernel" "$@" </dev/null 2>&1 |
    tr -d '\r' | tee "$log" |
    awk '/EBB-VM-BEGIN/ { on = 1; print "vm: guest ready: " $0 > "/dev/stderr"; fflush(); next }
         /EBB-VM-EXIT/ { on = 0 }
         on { print; fflush() }'
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  rm -f "$pidfile"
  status=$(sed -n 's/.*EBB-VM-EXIT \([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
  if [ -z "$status" ]; then
    vm_log "the guest reported no exit status after $((SECONDS - t0)) s (timeout ${timeout} s, panic or qemu error); console tail:"
    tail -n 40 "$log" >&2
    return 99
  fi
  vm_log "guest exited with status $status after $((SECONDS - t0)) s of VM time"
  return "$status"
}
