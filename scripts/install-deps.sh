#!/bin/bash
# Install every Debian 12 package that ebb's build, tests, benchmarks and demo need.
# Idempotent and non-interactive; run as root. Prints what it installs.
set -euo pipefail

build=(build-essential autoconf automake libtool pkg-config autoconf-archive
       libsystemd-dev libcurl4-openssl-dev libjson-c-dev libmicrohttpd-dev
       libcunit1-dev libsqlite3-dev libcgroup-dev clang-format)
tests=(curl cpio procps psmisc jq slowhttptest openssl valgrind passwd util-linux bash-completion
       sqlite3)
# libFuzzer targets (make fuzz): clang 14 and its fuzzer runtime.
fuzz=(clang-14 libclang-rt-14-dev)
# The controller's status page is checked in headless Chromium (socat bridges to its unix socket);
# python3 reads its screenshots (tests/status-page/png-bars.py: the standard library's zlib).
status_page=(chromium socat python3)
vm=(qemu-system-x86 linux-image-amd64 busybox-static debootstrap)
bench=(wrk gnuplot-nox)
# Packaging (debian/, scripts/build-deb.sh), bash completion's pkg-config file, and the
# Prometheus server that tests/test-prometheus-*.sh runs against the daemons.
product=(debhelper dpkg-dev fakeroot bash-completion prometheus)
# Real Docker and Podman for tests/runtimes (runc: crun refuses hybrid cgroup hosts).
runtimes=(docker.io podman runc)
# The replicated control plane (doc/ha.md): etcd for the election (tests/ha/etcd.sh runs 3
# members), PostgreSQL 15 and libpq for the shared store (tests/ha/pg.sh), socat for the
# forwarders through which tests/ha/faults.sh cuts a controller from etcd.
ha=(etcd-server etcd-client postgresql libpq-dev socat)

want=("${build[@]}" "${tests[@]}" "${fuzz[@]}" "${status_page[@]}" "${vm[@]}" "${bench[@]}" "${runtimes[@]}"
      "${product[@]}" "${ha[@]}")
[ -n "${EBB_EXTRA_PACKAGES:-}" ] && read -r -a extra <<<"$EBB_EXTRA_PACKAGES" && want+=("${extra[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#want[@]} packages already installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: need root to install: ${missing[*]}" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
