#!/bin/sh
# Speed of eagle and peacock on YH2_sub.tr at 4,000 nodes: best of 5 user CPU times (less
# disturbed by other jobs than wall time), against sparrow in the same run as the baseline,
# and the target of under 0.5 s each. Peacock's cost is its rotations: every waiting probe
# moves once per round (the paper's Fig. 5 counts 17 to 1,791 rotations per task), so it is
# printed with the rotations per task.
# Usage: bench/peacock-perf.sh
set -eu
. "$(dirname "$0")/sim-lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
best_user () { # best_user ARGS...: best user CPU seconds of 5 runs (last JSON in $work/j)
  b=1e9
  for _ in 1 2 3 4 5; do
    /usr/bin/time -f "%U" -o "$work/t" "$SIM" "$@" >"$work/j"
    b=$(awk -v a="$(cat "$work/t")" -v b="$b" 'BEGIN { print (a < b) ? a : b }')
  done
  echo "$b"
}
args="-n 4000 -t $TRACES/YH2_sub.tr --cutoff 90.5811 --short-partition 2 --json"
# shellcheck disable=SC2086
base=$(best_user -p sparrow $args)
echo "sparrow  user $base s (baseline)"
for p in eagle peacock; do
  # shellcheck disable=SC2086
  u=$(best_user -p "$p" $args)
  j=$(cat "$work/j")
  verdict=$(awk -v u="$u" 'BEGIN { print (u < 0.5) ? "PASS" : "FAIL" }')
  printf '%-8s user %s s, %s events, %s rotations (%s per task), %s x sparrow; %s (< 0.5 s)\n' \
    "$p" "$u" "$(jget "$j" "" events)" "$(jget "$j" "" rotations)" \
    "$(ratio "$(jget "$j" "" rotations)" "$(jget "$j" "" tasks)")" "$(ratio "$u" "$base")" "$verdict"
done
