#!/bin/bash
# ebb's main job on one machine: install what is needed, build, and run the demo.
# Usage: bash scripts/demo.sh        (as root on Debian 12)
# Until the daemons exist, the demo is the simulator: Hawk against Sparrow on the Yahoo trace
# sample, the comparison every scheduling claim in ebb rests on.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${EBB_BUILD_DIR:-$top/build/demo}
bash "$top/scripts/install-deps.sh"
(cd "$top" && autoreconf -fi >/dev/null 2>&1)
mkdir -p "$build"
cd "$build"
[ -f Makefile ] || "$top/configure" -q CFLAGS="-O2 -g"
make -s -j"$(nproc)"

trace=$top/../shared/traces/YH2_sub.tr
if [ -x sim/ebb-sim ] && [ -f "$trace" ]; then
  for policy in sparrow hawk; do
    echo "== ebb-sim --policy $policy --nodes 4000 --trace YH2_sub.tr (cutoff 90.5811, 2% short partition)"
    sim/ebb-sim --policy "$policy" --nodes 4000 --trace "$trace" --cutoff 90.5811 --short-partition 2
  done
else
  echo "== smoke check: the unit suites"
  make -s -j"$(nproc)" check
fi
