#!/bin/sh
# Peacock's own ablations (the paper's Fig. 6) on the workloads of peacock-fidelity.sh:
# peacock, peacock --no-rotation (probes stay where they land) and peacock
# --threshold-scale 0 (every probe is past its threshold at once: FIFO queues, no
# reordering), median of seeds 1-5 of the mean job completion time. Google loads are
# offered loads of the task-seconds drawn (gen hetero --load).
# Usage: bench/peacock-ablation.sh [OUTDIR]   (writes peacock-ablation.csv)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sim-lib.sh"
out=${1:-$here}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gnodes=200 ynodes=4000
gclasses="--class 0.9:7:175 --class 0.1:24:2700"
runs=$work/runs.csv
: >"$runs"
for wl in google yahoo; do
  for L in 0.2 0.8 2.0; do
    for s in 1 2 3 4 5; do
      tr=$work/t.tr
      if [ $wl = yahoo ]; then
        nodes=$ynodes cut=90.5811
        awk -v n="$nodes" -v L="$L" '
          { sub_[NR] = $1; line[NR] = $0; for (i = 4; i <= NF; i++) w += $i
            if (NR == 1 || $1 < s) s = $1; if (NR == 1 || $1 > e) e = $1 }
          END { f = w / (n * (e - s) * L)
                for (i = 1; i <= NR; i++) { $0 = line[i]; $1 = sprintf("%.4f", s + (sub_[i] - s) * f); print } }' \
          "$TRACES/YH2_sub.tr" >"$tr"
      else
        nodes=$gnodes cut=1000
        # shellcheck disable=SC2086
        "$SIM" gen hetero $gclasses --jobs 500 --seed "$s" --load "$L" --nodes "$nodes" -o "$tr"
      fi
      for v in full no-rotation no-reordering; do
        case $v in
          full) extra= ;;
          no-rotation) extra=--no-rotation ;;
          *) extra="--threshold-scale 0" ;;
        esac
        # shellcheck disable=SC2086
        j=$("$SIM" -p peacock -n "$nodes" -t "$tr" --cutoff "$cut" --seed "$s" $extra --json)
        echo "$wl,$L,$v,$s,$(mean_jct "$j")" >>"$runs"
      done
    done
  done
done
csv=$out/peacock-ablation.csv
echo "workload,load,peacock,no_rotation,no_reordering" >"$csv"
med () {
  awk -F, -v w="$1" -v l="$2" -v v="$3" '$1 == w && $2 == l && $3 == v { print $5 }' "$runs" |
    sort -g | awk '{ x[NR] = $1 } END { print x[(NR + 1) / 2] }'
}
for wl in google yahoo; do
  for L in 0.2 0.8 2.0; do
    echo "$wl,$L,$(med $wl "$L" full),$(med $wl "$L" no-rotation),$(med $wl "$L" no-reordering)" >>"$csv"
  done
done
cat "$csv"
