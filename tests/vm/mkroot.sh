#!/bin/bash
# Build (once per machine) and print the path of the root filesystem image that
# tests/vm/run-systemd.sh boots: a minimal Debian bookworm with systemd as init and the system
# D-Bus, made with debootstrap from Debian's archive, as an ext4 image (mkfs.ext4 -d).
#
#   tests/vm/mkroot.sh            prints the image path, building it if absent
#
# The image is cached as $EBB_VM_CACHE/<key>.img (default /var/cache/ebb-vm) where <key>
# changes whenever what goes into it changes (bump EBB_VM_ROOT_VERSION below), so CI builds
# it once per machine. A lock serialises concurrent builders. EBB_VM_MIRROR overrides the
# archive (default: http://deb.debian.org/debian). Needs root and debootstrap; exits 77 (or 1
# with EBB_TEST_STRICT) when it cannot build, with the reason on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

EBB_VM_ROOT_VERSION=1
suite=bookworm
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
mirror=${EBB_VM_MIRROR:-http://deb.debian.org/debian}
# systemd, the system bus, and the runtime libraries ebb's test programs link, so that the
# image's own copies are used (the harness copies only what the image lacks).
packages=systemd,systemd-sysv,dbus,udev,libcunit1,libasan8,libubsan1,libcgroup2,libjson-c5,libcurl4,libmicrohttpd12,libsqlite3-0,libpq5
key=ebb-vm-root-v$EBB_VM_ROOT_VERSION-$suite-$arch-$(echo "$packages" | cksum | cut -d' ' -f1)
cache=${EBB_VM_CACHE:-/var/cache/ebb-vm}
img=$cache/$key.img

if [ -s "$img" ]; then echo "$img"; exit 0; fi
[ "$(id -u)" = 0 ] || vm_unavailable "building $img needs root (debootstrap), and it is not cached"
command -v debootstrap >/dev/null || vm_unavailable "debootstrap not found (apt-get install debootstrap)"
command -v mkfs.ext4 >/dev/null || vm_unavailable "mkfs.ext4 not found (apt-get install e2fsprogs)"
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ -s "$img" ]; then echo "$img"; exit 0; fi # built by another process while we waited

t0=$SECONDS
tmp=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
rootfs=$tmp/rootfs
vm_log "building $img: debootstrap $suite from $mirror (once per machine)"
if ! debootstrap --variant=minbase --include="$packages" "$suite" "$rootfs" "$mirror" \
  >"$tmp/debootstrap.log" 2>&1; then
  tail -n 20 "$tmp/debootstrap.log" >&2
  vm_unavailable "debootstrap failed (is $mirror reachable?)"
fi
t1=$SECONDS

# A quiet, fast boot: no gettys, timers or first-boot setup; the harness adds its own unit.
echo ebb-vm >"$rootfs/etc/hostname"
echo "127.0.1.1 ebb-vm" >>"$rootfs/etc/hosts"
: >"$rootfs/etc/fstab"
od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$rootfs/etc/machine-id"
echo >>"$rootfs/etc/machine-id"
rm -f "$rootfs"/etc/systemd/system/getty.target.wants/* \
  "$rootfs"/etc/systemd/system/timers.target.wants/*
for u in getty.target serial-getty@ttyS0.service systemd-firstboot.service \
  systemd-pstore.service e2scrub_reap.service apt-daily.service apt-daily-upgrade.service \
  systemd-networkd-wait-online.service; do
  ln -sf /dev/null "$rootfs/etc/systemd/system/$u"
done
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*
echo "$key built $(date -u +%FT%TZ) from $mirror" >"$rootfs/etc/ebb-vm-release"

size_mb=$(($(du -sm "$rootfs" | cut -f1) + 384))
mkfs.ext4 -q -L ebb-root -d "$rootfs" "$tmp/root.img" "${size_mb}M" >&2
mv "$tmp/root.img" "$img"
vm_log "built $img in $((SECONDS - t0)) s (debootstrap $((t1 - t0)) s, image $((SECONDS - t1)) s, ${size_mb} MB)"
echo "$img"
