#!/bin/sh
# Whether the ordering of peacock-fidelity.sh's Google-like rows depends on the cluster's
# size: the same policies (sparrow, eagle, peacock, fifo as the control) at 10,000 workers,
# the low end of the Peacock paper's 10,000-20,000, on `gen hetero --preset google` (the
# Google classes with their task counts unscaled, 35 and 122 tasks), 5,000 jobs, Poisson
# arrivals offering the load (gen hetero --load: task-seconds / (nodes x span)), cutoff
# 1000 s and a 17% short-only partition as for the 200-node rows. Seeds 1-3 (trace and
# policy); the medians of the mean job completion time, all jobs and per class. About 2
# minutes of CPU, most of it peacock at loads 2 and 3.
# Usage: bench/peacock-scale.sh [OUTDIR]   (writes peacock-scale.csv there; default bench/)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sim-lib.sh"
out=${1:-$here}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nodes=10000 jobs=5000
loads="0.5 0.8 1.0 2.0 3.0"
seeds="1 2 3"
policies="sparrow eagle peacock fifo"
runs=$work/runs.csv
: >"$runs"
for L in $loads; do
  for s in $seeds; do
    tr=$work/t.tr
    "$SIM" gen hetero --preset google --jobs "$jobs" --seed "$s" --load "$L" --nodes "$nodes" -o "$tr"
    for p in $policies; do
      j=$("$SIM" -p "$p" -n "$nodes" -t "$tr" --cutoff 1000 --short-partition 17 --seed "$s" --json)
      sc=$(jget "$j" short count) sm=$(jget "$j" short mean) lc=$(jget "$j" long count) lm=$(jget "$j" long mean)
      all=$(awk -v sc="$sc" -v sm="$sm" -v lc="$lc" -v lm="$lm" 'BEGIN { printf "%.3f", (sc * sm + lc * lm) / (sc + lc) }')
      echo "$L,$p,$s,$all,$sm,$lm,$(jget "$j" "" rotations)" >>"$runs"
    done
  done
done
# med LOAD POLICY COLUMN [FORMAT]: the median over the seeds.
med () {
  awk -F, -v l="$1" -v p="$2" -v c="$3" '$1 == l && $2 == p { print $c }' "$runs" |
    sort -g | awk -v f="${4:-%.1f}" '{ x[NR] = $1 } END { printf f, x[(NR + 1) / 2] }'
}
csv=$out/peacock-scale.csv
echo "load,policy,mean_jct,short_mean,long_mean,rotations" >"$csv"
for L in $loads; do
  for p in $policies; do
    echo "$L,$p,$(med "$L" "$p" 4),$(med "$L" "$p" 5),$(med "$L" "$p" 6),$(med "$L" "$p" 7 %d)" >>"$csv"
  done
done
cat "$csv"
