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
