#!/bin/sh
# Peacock against Eagle and Sparrow (Peacock paper §4, Fig. 2) and Peacock's own sweeps.
#  1. Average job completion time (all jobs) of peacock, eagle, sparrow and, as the control,
#     fifo (one central work-conserving queue) over the paper's loads 20-300%, on
#       - yahoo:  YH2_sub.tr with its submission times rescaled so that the offered load
#                 (task seconds / (nodes x submission span)) is the target, 4,000 nodes;
#       - google: `ebb-sim gen hetero` with the classes of its Google preset (90% of jobs
#                 of 175 s tasks, 10% of 2700 s tasks) and task counts scaled down 5x with
#                 the cluster (7 and 24 tasks, 200 nodes), 500 jobs, Poisson arrivals at the
#                 target load counted from the task-seconds drawn (`--load`: the durations
#                 average about twice the centroids). The Google trace itself is not
#                 available offline. Peacock's
#                 cost grows with waiting probes x waiting time (every waiting probe moves
#                 once per rotation round), hence the small cluster.
#     Seeds 1-5 (policy seed; for google also the trace seed); the medians.
#  2. Sweeps of peacock's rotation interval and threshold scale on google at 80% and 200%.
# Usage: bench/peacock-fidelity.sh [OUTDIR]   (writes peacock-runs.csv, peacock-loads.csv,
#        peacock-sweep.csv and peacock-loads.png there; default: the bench/ directory)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sim-lib.sh"
out=${1:-$here}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
loads="0.2 0.5 0.8 1.0 2.0 3.0"
seeds="1 2 3 4 5"
gnodes=200 ynodes=4000
# Google-like classes (share:tasks:seconds).
gclasses="--class 0.9:7:175 --class 0.1:24:2700"

# yahoo_trace LOAD FILE: YH2_sub.tr with submissions stretched or squeezed to LOAD.
yahoo_trace () {
  awk -v n="$ynodes" -v L="$1" '
    { sub_[NR] = $1; line[NR] = $0; for (i = 4; i <= NF; i++) w += $i
      if (NR == 1 || $1 < s) s = $1; if (NR == 1 || $1 > e) e = $1 }
    END { f = w / (n * (e - s) * L)
          for (i = 1; i <= NR; i++) { $0 = line[i]; $1 = sprintf("%.4f", s + (sub_[i] - s) * f); print } }' \
    "$TRACES/YH2_sub.tr" >"$2"
}

google_trace () { # google_trace LOAD SEED FILE
  # shellcheck disable=SC2086
  "$SIM" gen hetero $gclasses --jobs 500 --seed "$2" --load "$1" --nodes "$gnodes" -o "$3"
}

runs=$out/peacock-runs.csv
echo "workload,load,policy,seed,mean_jct,short_mean,long_mean,utilization,wall_seconds" >"$runs"
for wl in google yahoo; do
  # Cutoffs and short-only partitions of the Hawk/Eagle authors for these traces.
  if [ $wl = yahoo ]; then cut=90.5811 part=2 nodes=$ynodes; else cut=1000 part=17 nodes=$gnodes; fi
  for L in $loads; do
    for s in $seeds; do
      tr=$work/$wl-$L-$s.tr
      if [ $wl = yahoo ]; then
        [ -s "$work/yahoo-$L.tr" ] || yahoo_trace "$L" "$work/yahoo-$L.tr"
        tr=$work/yahoo-$L.tr
      else
        google_trace "$L" "$s" "$tr"
      fi
      for p in sparrow eagle peacock fifo; do
        j=$("$SIM" -p "$p" -n "$nodes" -t "$tr" --cutoff "$cut" --short-partition "$part" \
          --seed "$s" --json)
        echo "$wl,$L,$p,$s,$(mean_jct "$j"),$(jget "$j" short mean),$(jget "$j" long mean),$(jget "$j" "" utilization),$(jget "$j" "" wall_seconds)" >>"$runs"
      done
      [ $wl = yahoo ] || rm -f "$tr"
    done
  done
done

# Medians over the seeds, one row per workload and load.
med () { # med WORKLOAD LOAD POLICY [FILE]: median mean_jct
  awk -F, -v w="$1" -v l="$2" -v p="$3" '$1 == w && $2 == l && $3 == p { print $5 }' "${4:-$runs}" |
    sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
loads_csv=$out/peacock-loads.csv
echo "workload,load,sparrow,eagle,peacock,fifo,gain_vs_sparrow_pct,gain_vs_eagle_pct" >"$loads_csv"
for wl in google yahoo; do
  for L in $loads; do
    sp=$(med $wl "$L" sparrow) ea=$(med $wl "$L" eagle) pc=$(med $wl "$L" peacock) ff=$(med $wl "$L" fifo)
    awk -v w=$wl -v L="$L" -v s="$sp" -v e="$ea" -v p="$pc" -v f="$ff" 'BEGIN {
      printf "%s,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", w, L, s, e, p, f, 100 * (1 - p / s), 100 * (1 - p / e) }' >>"$loads_csv"
  done
done
cat "$loads_csv"

# Sweeps on google: rotation interval (threshold scale 1) and threshold scale (interval 1 s).
sweep=$out/peacock-sweep.csv
echo "load,knob,value,seed,mean_jct,short_mean,long_mean" >"$sweep"
for L in 0.8 2.0; do
  for s in $seeds; do
    tr=$work/sweep-$L-$s.tr
    google_trace "$L" "$s" "$tr"
    for iv in 0.1 0.5 1 2 5 10; do
      j=$("$SIM" -p peacock -n "$gnodes" -t "$tr" --cutoff 1000 --seed "$s" --rotation-interval "$iv" --json)
      echo "$L,rotation_interval,$iv,$s,$(mean_jct "$j"),$(jget "$j" short mean),$(jget "$j" long mean)" >>"$sweep"
    done
    for k in 0 0.5 1 2 4 1000000; do
      j=$("$SIM" -p peacock -n "$gnodes" -t "$tr" --cutoff 1000 --seed "$s" --threshold-scale "$k" --json)
      echo "$L,threshold_scale,$k,$s,$(mean_jct "$j"),$(jget "$j" short mean),$(jget "$j" long mean)" >>"$sweep"
    done
    rm -f "$tr"
  done
done
echo "sweep medians (load, knob, value, median mean JCT):"
awk -F, 'NR > 1 { print $1 "," $2 "," $3 }' "$sweep" | sort -u -t, -k1,1 -k2,2 -k3,3g | while IFS=, read -r L knob v; do
  m=$(awk -F, -v l="$L" -v k="$knob" -v v="$v" '$1 == l && $2 == k && $3 == v { print $5 }' "$sweep" |
    sort -g | awk '{ x[NR] = $1 } END { print x[(NR + 1) / 2] }')
  echo "$L,$knob,$v,$m"
done

if command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 1200,500 font ",10"
set output "$out/peacock-loads.png"
set datafile separator ","
set multiplot layout 1,2 title "Average job completion time, median of seeds 1-5 (ebb-sim)"
set logscale y
set xlabel "offered load"
set ylabel "mean job completion time (s)"
set key top left
set title "Google-like (gen hetero, Google classes, 200 nodes)"
plot "< grep ^google $loads_csv" using 2:3 with linespoints title "sparrow", \
     "" using 2:4 with linespoints title "eagle", "" using 2:5 with linespoints title "peacock", \
     "" using 2:6 with linespoints dashtype 2 title "fifo (control)"
set title "Yahoo (YH2\\\\_sub, rescaled arrivals, 4000 nodes)"
plot "< grep ^yahoo $loads_csv" using 2:3 with linespoints title "sparrow", \
     "" using 2:4 with linespoints title "eagle", "" using 2:5 with linespoints title "peacock", \
     "" using 2:6 with linespoints dashtype 2 title "fifo (control)"
unset multiplot
GP
fi
