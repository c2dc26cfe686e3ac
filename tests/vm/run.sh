#!/bin/bash
# Run a script as root inside a throwaway VM on a real cgroup v2 hierarchy: Debian's kernel
# under qemu (software emulation, TCG) with a busybox initramfs. Prints the script's output as
# it runs and exits with the script's status.
#
#   tests/vm/run.sh [-m MEM_MB] [-c CPUS] [-s SWAP_MB] [-t TIMEOUT_S] [-w STALL_S] [-f FILE]... [-e VAR=VALUE]...
#                   [-C DIR] [-l LOG] SCRIPT [ARG]...
#
# Inside the VM: /sys/fs/cgroup is cgroup2 with +cpu +memory +pids +io enabled in the root's
# cgroup.subtree_control; -s sets up zram swap of that size; every -f FILE is copied at its
# own absolute path with the shared libraries it links (sanitizer builds run unchanged);
# -e sets an environment variable (EBB_TEST_STRICT is passed through); SCRIPT runs with
# busybox sh in DIR (-C, default /tmp). Defaults: 1024 MB, 2 CPUs, no swap, 600 s. The host
# stops qemu (by PID) after TIMEOUT_S, or after STALL_S without console output once the
# script has started (-w; default 0, no such limit).
# -l keeps the whole console log (kernel messages included) in LOG.
#
# Exit status: the script's; 99 if the guest reported none (timeout, stall, panic); 77 if the VM
# cannot run here (no qemu/kernel/busybox), a failure instead when EBB_TEST_STRICT is set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_parse_args "$0" 1 "$@"
script=$vm_script
set -- "${vm_args[@]+"${vm_args[@]}"}"

vm_check_tools
vm_find_kernel

work=$(mktemp -d /tmp/ebb-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,run,etc}
vm_add "$root" "$vm_busybox"
[ "$vm_busybox" = "$root/bin/busybox" ] || cp -L "$vm_busybox" "$root/bin/busybox"
for f in "${files[@]+"${files[@]}"}"; do vm_add "$root" "$f" || exit 2; done
# EBB_VM_ZRAM_ALGO picks zram's compressor (default: the kernel's, lzo-rle).
zalgo=${EBB_VM_ZRAM_ALGO:-}
if [ "$swap" -gt 0 ]; then
  vm_add_modules "$root" zram ${zalgo:+$zalgo}
fi
cp "$script" "$root/ebb-test.sh"
: >"$root/ebb-env"
for e in "${envs[@]+"${envs[@]}"}"; do printf 'export %q\n' "$e" >>"$root/ebb-env"; done
{ printf 'set --'; printf ' %q' "$@"; echo; } >"$root/ebb-args"

cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs run /run  # not /tmp: -f files may live there
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
for c in cpu memory pids io; do echo "+\$c" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; done
if [ $swap -gt 0 ]; then
  sh /modules/load 2>/dev/null
  [ -n "$zalgo" ] && echo $zalgo > /sys/block/zram0/comp_algorithm
  echo ${swap}M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
    echo "vm: zram swap setup failed"
fi
. /ebb-env
. /ebb-args
mkdir -p "$dir"; cd "$dir"
echo "EBB-VM-BEGIN uptime \$(cut -d' ' -f1 /proc/uptime) s, \$(nproc) cpus, controllers: \$(cat /sys/fs/cgroup/cgroup.subtree_control), swap: \$(awk '/SwapTotal/ {print \$2 " kB"}' /proc/meminfo)"
sh /ebb-test.sh "\$@"
echo "EBB-VM-EXIT \$?"
poweroff -f
INIT
set +e
vm_boot "$work" \
  -append "console=ttyS0 quiet loglevel=4 panic=-1 rdinit=/init"
exit $?
