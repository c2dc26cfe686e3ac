#!/bin/sh
# The ablations of Hawk §5.4 (no stealing, no partition, no centralized long jobs), each
# normalized to full Hawk in the same run, on YH2_sub.tr and FB_synthetic_2000.tr at a few
# cluster sizes (ebb defaults, seed 1). Ratios above 1: the component helps.
# Usage: bench/sim-ablation.sh [OUT.csv]
set -eu
. "$(dirname "$0")/sim-lib.sh"
out=${1:-sim-ablation.csv}
echo "trace,nodes,variant,short_p50_ratio,short_p90_ratio,long_p50_ratio,long_p90_ratio,short_p50,short_p90,long_p50,long_p90" >"$out"
abl () { # abl NAME FILE CUTOFF SIZES...
  name=$1 file=$2 cutoff=$3; shift 3
  for n in "$@"; do
    base=$(run_sim hawk "$n" "$file" "$cutoff")
    for v in hawk no-steal no-partition no-central sparrow; do
      case $v in
        hawk) j=$base ;;
        sparrow) j=$(run_sim sparrow "$n" "$file" "$cutoff") ;;
        *) j=$(run_sim hawk "$n" "$file" "$cutoff" "--$v") ;;
      esac
      line="$name,$n,$v"
      abs=""
      for m in "short p50" "short p90" "long p50" "long p90"; do
        set -- $m
        line="$line,$(ratio "$(jget "$j" "$1" "$2")" "$(jget "$base" "$1" "$2")")"
        abs="$abs,$(jget "$j" "$1" "$2")"
      done
      echo "$line$abs" | tee -a "$out"
    done
  done
}
abl YH2 "$TRACES/YH2_sub.tr" 90.5811 3000 4000 5000 8000
abl FB "$TRACES/FB_synthetic_2000.tr" 76.5951 4000 5000 6000
echo "written: $out"
