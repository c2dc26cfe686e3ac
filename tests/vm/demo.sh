#!/bin/bash
# The demo on a real cgroup v2 host: scripts/demo.sh --quick --no-build, with the programs of
# BUILDDIR, in a VM whose PID 1 is systemd (tests/vm/run-systemd.sh: Debian's kernel and root
# image, unified hierarchy), as a fresh Debian 12 machine runs it. It runs from a system
# service, as it would from a login session: a cgroup that cannot give cpu and memory to the
# agents until the demo has systemd delegate one (systemd-run --scope -p Delegate=yes).
# Passes when the demo exits 0 (the cluster came up under every policy and every short job
# finished) and wrote its plot as a PNG.
#
#   tests/vm/demo.sh -b BUILDDIR [-l LOG]
#
# Exit status: 0 passed, 1 failed, 77 when the VM cannot run here (a failure under
# EBB_TEST_STRICT, as for tests/vm/run-systemd.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
builddir=. log=
while getopts "b:l:" o; do
  case $o in
    b) builddir=$OPTARG ;; l) log=$OPTARG ;;
    *) echo "usage: $0 -b BUILDDIR [-l LOG]" >&2; exit 2 ;;
  esac
done
builddir=$(cd "$builddir" && pwd)

files=(-f "$top/scripts/demo.sh" -f "$top/data/YH2_sub.tr")
for p in ebb-controller ebb-agent ebbctl sim/ebb-sim; do
  [ -x "$builddir/$p" ] || { echo "vm demo: $builddir/$p is not built (make first)" >&2; exit 1; }
  files+=(-f "$builddir/$p")
done
# The image is a minimal Debian: the demo's tools come from this host, with their libraries.
for t in curl jq gnuplot; do
  p=$(command -v $t) || { echo "vm demo: $t not found (scripts/install-deps.sh)" >&2; exit 1; }
  files+=(-f "$p")
done
# gnuplot's PNG terminal draws its text with fontconfig: its configuration and one font.
if font=$(fc-match -f '%{file}' sans 2>/dev/null) && [ -f "$font" ] && [ -f /etc/fonts/fonts.conf ]; then
  files+=(-f /etc/fonts/fonts.conf -f "$font")
fi

work=$(mktemp -d /tmp/ebb-vm-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
png=/tmp/ebb-demo-vm.png
cat >"$work/demo-vm.sh" <<INNER
# Emulated (TCG) and with sanitizers, the guest runs tens of times slower than the host: one
# burst of small short jobs per policy, and minutes for them to finish.
export EBB_BUILD_DIR=$builddir EBB_DEMO_PNG=$png EBB_DEMO_SECS=3 EBB_DEMO_SHORT_ROUNDS=5000
export EBB_DEMO_FINISH_SECS=180
bash $top/scripts/demo.sh --quick --no-build || exit \$?
[ "\$(head -c 4 $png | tail -c 3)" = PNG ] || { echo "vm demo: $png is not a PNG"; exit 1; }
echo "vm demo: passed, plot of \$(wc -c <$png) bytes"
INNER
"$here/run-systemd.sh" -m 1024 -c 2 -t "${EBB_VM_DEMO_TIMEOUT:-900}" ${log:+-l "$log"} \
  "${files[@]}" "$work/demo-vm.sh"
