#!/bin/sh
# Hawk vs Sparrow over cluster sizes, from overloaded to lightly loaded, on YH2_sub.tr
# (cutoff 90.5811) and FB_synthetic_2000.tr (cutoff 76.5951), short partition 2%, ebb's
# default semantics (seed 1). Writes OUTDIR/sim-sweep.csv with the Hawk/Sparrow ratios of
# p50 and p90 for short and long jobs and the absolute figures, and OUTDIR/sim-sweep.png.
# Usage: bench/sim-sweep.sh [OUTDIR] [extra ebb-sim options]
set -eu
. "$(dirname "$0")/sim-lib.sh"
outdir=${1:-.}
[ $# -gt 0 ] && shift
csv=$outdir/sim-sweep.csv
echo "trace,nodes,util_sparrow,util_hawk,short_p50_ratio,short_p90_ratio,long_p50_ratio,long_p90_ratio,hawk_short_p50,hawk_short_p90,hawk_long_p50,hawk_long_p90,sparrow_short_p50,sparrow_short_p90,sparrow_long_p50,sparrow_long_p90" >"$csv"
sweep () { # sweep NAME FILE CUTOFF SIZES...
  name=$1 file=$2 cutoff=$3; shift 3
  for n in "$@"; do
    h=$(run_sim hawk "$n" "$file" "$cutoff" ${EXTRA:-})
    s=$(run_sim sparrow "$n" "$file" "$cutoff" ${EXTRA:-})
    line="$name,$n,$(jget "$s" "" utilization),$(jget "$h" "" utilization)"
    for m in "short p50" "short p90" "long p50" "long p90"; do
      set -- $m
      line="$line,$(ratio "$(jget "$h" "$1" "$2")" "$(jget "$s" "$1" "$2")")"
    done
    for j in "$h" "$s"; do
      for m in "short p50" "short p90" "long p50" "long p90"; do
        set -- $m
        line="$line,$(jget "$j" "$1" "$2")"
      done
    done
    echo "$line" | tee -a "$csv"
  done
}
EXTRA="$*"
sweep YH2 "$TRACES/YH2_sub.tr" 90.5811 2000 2500 3000 3500 4000 4500 5000 6000 7000 8000 10000 12000 15000 20000
sweep FB "$TRACES/FB_synthetic_2000.tr" 76.5951 2500 3000 3500 4000 4500 5000 5500 6000 7000 8000 10000 12000 15000 20000
if command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 1200,500 font ",10"
set output "$outdir/sim-sweep.png"
set datafile separator ","
set multiplot layout 1,2 title "Hawk / Sparrow job runtime ratio (below 1: Hawk better); ebb-sim, short partition 2%, probe ratio 2, steal cap 10"
set xlabel "nodes"
set ylabel "Hawk / Sparrow"
set logscale x
set xrange [1800:25000]
set yrange [0:1.6]
set grid
set key bottom right
set title "YH2\\\\_sub.tr (cutoff 90.5811)"
plot "< grep ^YH2 $csv" using 2:5 with linespoints title "short p50", \
     "" using 2:6 with linespoints title "short p90", \
     "" using 2:7 with linespoints title "long p50", \
     "" using 2:8 with linespoints title "long p90", 1 notitle lc rgb "gray"
set title "FB\\\\_synthetic\\\\_2000.tr (cutoff 76.5951)"
plot "< grep ^FB $csv" using 2:5 with linespoints title "short p50", \
     "" using 2:6 with linespoints title "short p90", \
     "" using 2:7 with linespoints title "long p50", \
     "" using 2:8 with linespoints title "long p90", 1 notitle lc rgb "gray"
unset multiplot
GP
  echo "written: $csv $outdir/sim-sweep.png"
else
  echo "written: $csv (gnuplot not found: no plot)"
fi
