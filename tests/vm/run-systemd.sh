#!/bin/bash
# Run a script as root inside a VM whose PID 1 is a real systemd: Debian's kernel under qemu
# (TCG) booting the Debian root image of tests/vm/mkroot.sh (built and cached on first use)
# on the unified cgroup v2 hierarchy, with the system D-Bus running.
#
#   tests/vm/run-systemd.sh [-m MEM_MB] [-c CPUS] [-t TIMEOUT_S] [-w STALL_S] [-f FILE]... [-e VAR=VALUE]...
#                           [-C DIR] [-l LOG] SCRIPT [ARG]...
#
# A busybox initramfs loads the virtio and ext4 modules, mounts the image (qemu snapshot=on:
# the cached image is never modified), copies the -f files (with the shared libraries the
# image lacks) and SCRIPT into it, adds ebb-vm-test.service and hands over to systemd
# (switch_root). That unit runs SCRIPT after multi-user.target, prints its output and status
# on the serial console and powers off. Options and exit status as tests/vm/run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

vm_parse_args "$0" 0 "$@"
script=$vm_script
set -- "${vm_args[@]+"${vm_args[@]}"}"

vm_check_tools
vm_find_kernel
t0=$SECONDS
img=$("$here/mkroot.sh") || exit $?
[ $((SECONDS - t0)) -gt 2 ] && vm_log "root image ready after $((SECONDS - t0)) s"

work=$(mktemp -d /tmp/ebb-vm.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir -p "$root"/{bin,proc,sys,dev,newroot} "$root/payload/ebb"
cp -L "$vm_busybox" "$root/bin/busybox"
vm_add_modules "$root" virtio_pci virtio_blk ext4
# The payload: files at their own paths (copied into the image only where it lacks them, so
# the image's libraries win), the script, its environment and arguments.
for f in "${files[@]+"${files[@]}"}"; do vm_add "$root/payload" "$f" || exit 2; done
cp "$script" "$root/payload/ebb/test.sh"
{
  for e in "${envs[@]+"${envs[@]}"}"; do printf 'export %q\n' "$e"; done
  printf 'set --'; printf ' %q' "$@"; echo
  printf 'mkdir -p %q && cd %q\n' "$dir" "$dir"
} >"$root/payload/ebb/env"
cat >"$root/payload/ebb/runner" <<'RUNNER'
#!/bin/sh
# Runs the harness's script under systemd; output goes to the serial console.
exec >/dev/ttyS0 2>&1
# Files the image already has (its libraries) are kept; everything else is added, file by
# file (the image's /lib is a symlink to usr/lib: merged /usr).
cd /ebb-payload
find . ! -type d ! -path "./ebb/*" | while read -r f; do
  [ -e "/$f" ] && continue
  mkdir -p "/${f%/*}" && cp -a "$f" "/$f"
done
cd /
. /ebb-payload/ebb/env
echo "EBB-VM-BEGIN uptime $(cut -d' ' -f1 /proc/uptime) s, $(nproc) cpus, PID 1: $(cat /proc/1/comm) $(systemctl --version | head -n 1), cgroup: $(stat -fc %T /sys/fs/cgroup), state: $(systemctl is-system-running)"
sh /ebb-payload/ebb/test.sh "$@"
rc=$?
if [ $rc != 0 ]; then
  echo "--- journal (warnings and worse) of this boot"
  journalctl -b -p warning --no-pager | tail -n 40
fi
echo "EBB-VM-EXIT $rc"
RUNNER
cat >"$root/payload/ebb/ebb-vm-test.service" <<'UNIT'
[Unit]
Description=ebb VM test runner
After=multi-user.target dbus.service
Wants=dbus.service
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/bin/sh /ebb-payload/ebb/runner
StandardInput=null
StandardOutput=journal+console
TimeoutStartSec=infinity
UNIT

cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
sh /modules/load 2>/dev/null
for i in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 0.2; done
if ! mount -t ext4 -o rw /dev/vda /newroot; then
  echo "EBB-VM-EXIT 98 (initramfs: cannot mount the root image /dev/vda)"; poweroff -f
fi
# The payload is put in place by the runner, after systemd-tmpfiles has emptied /tmp.
cp -a /payload /newroot/ebb-payload
mkdir -p /newroot/etc/systemd/system/multi-user.target.wants
cp /payload/ebb/ebb-vm-test.service /newroot/etc/systemd/system/
ln -sf /etc/systemd/system/ebb-vm-test.service \
  /newroot/etc/systemd/system/multi-user.target.wants/ebb-vm-test.service
umount /proc /sys /dev
exec switch_root /newroot /lib/systemd/systemd
INIT
set +e
vm_boot "$work" \
  -drive "file=$img,format=raw,if=virtio,snapshot=on" \
  -append "console=ttyS0 quiet loglevel=4 panic=-1 rdinit=/init systemd.unified_cgroup_hierarchy=1 systemd.show_status=error"
exit $?
