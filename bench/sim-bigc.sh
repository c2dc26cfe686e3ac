#!/bin/sh
# BIG-C in ebb-sim against the paper (doc/bigc-fidelity.md): `make bench-sim` runs it.
#   1. Google replay (gen bigc-google), seeds 1-5, every mode: per-run rows and per-mode medians.
#   2. Patterns low|high|multi (gen bigc-pattern), seeds 1-5: long p90 of each mode over fifo.
#   3. Sweeps on the Google replay: delayed resumption D in {0,1,3,5} (gp), gp step in {1,2,4}
#      units of <1 CPU, 2 GiB>, and the authors' dampers (natural termination 0.2, 10% per
#      round) on and off.
#   4. Controls for the figures that do not come out (doc/bigc-fidelity.md): kill with no
#      attempt limit (no job fails), ip and gp with free reclaims and reloads (0 s/GiB), and
#      on the patterns kill with no attempt limit and the ratio of long-job means (what gp's penalty would be if spread
#      evenly over the jobs).
#   5. Speed: the wall time of each mode on the Google replay (target < 1 s), against fifo's
#      in the same run.
# Every run is of the paper's setting: preemption in the rounds only (--no-arrival-preempt).
# Usage: sim-bigc.sh OUTDIR   (SIM: the ebb-sim binary)
set -eu
. "$(dirname "$0")/sim-lib.sh"
out=${1:-bench-sim}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NODE="--nodes 26 --node-cpu-millis 32000 --node-memory 128G"
# BIG-C's paper decides preemption only in the resource monitor's rounds (every 3 s): every
# figure here is of that policy, so the arrival pass (ebb-sim's default --arrival-preempt,
# the controller's too) is off explicitly. With it on, a short job that finds no room
# preempts at its arrival instead: not the paper's scheduler.
BIGC="--policy bigc --no-arrival-preempt"
SEEDS="1 2 3 4 5"
MODES="fifo reserve kill ip gp"

for s in $SEEDS; do
  "$SIM" gen bigc-google --seed "$s" -o "$tmp/google-$s.jsonl"
  for k in low high multi; do
    "$SIM" gen bigc-pattern "$k" --seed "$s" -o "$tmp/$k-$s.jsonl"
  done
done

# row LABEL JSON: one CSV row of the figures the doc uses.
row () {
  j=$2
  echo "$1,$(jget "$j" short p50),$(jget "$j" short p90),$(jget "$j" short p95),$(jget "$j" long p50),$(jget "$j" long p90),$(jget "$j" long count),$(jget "$j" long failed),$(jget "$j" long cov),$(jget "$j" "" util_above_80_share),$(jget "$j" "" utilization),$(jget "$j" "" suspends),$(jget "$j" "" resumes),$(jget "$j" "" kills),$(jget "$j" "" gp_steps),$(jget "$j" "" frozen),$(jget "$j" "" wall_seconds),$(jget "$j" long mean)"
}
HDR="short_p50,short_p90,short_p95,long_p50,long_p90,long_done,long_failed,long_cov,util_above_80_share,utilization,suspends,resumes,kills,gp_steps,frozen,wall_seconds,long_mean"

# median of column C (1-based) over the rows of file F whose first fields match PREFIX.
median () {
  grep "^$2," "$1" | cut -d, -f"$3" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

g="$out/sim-bigc-google.csv"
echo "mode,seed,$HDR" > "$g"
for m in $MODES; do
  for s in $SEEDS; do
    row "$m,$s" "$("$SIM" $BIGC --mode "$m" $NODE --trace "$tmp/google-$s.jsonl" --json)" >> "$g"
  done
done
gm="$out/sim-bigc-google-median.csv"
echo "mode,$HDR" > "$gm"
for m in $MODES; do
  line=$m
  for c in $(seq 3 19); do line="$line,$(median "$g" "$m,[0-9]*" "$c")"; done
  echo "$line" >> "$gm"
done
echo "== Google replay, medians of seeds 1-5 ($gm)"
cat "$gm"

p="$out/sim-bigc-patterns.csv"
echo "pattern,mode,seed,$HDR" > "$p"
for k in low high multi; do
  for m in $MODES; do
    for s in $SEEDS; do
      row "$k,$m,$s" "$("$SIM" $BIGC --mode "$m" $NODE --trace "$tmp/$k-$s.jsonl" --json)" >> "$p"
    done
  done
done
echo "== patterns: median long p90 over fifo's (paper gp: 1.13 low, 1.61 high, 1.17 multi)"
for k in low high multi; do
  f=$(median "$p" "$k,fifo,[0-9]*" 8)
  line="$k:"
  for m in reserve kill ip gp; do
    line="$line $m $(ratio "$(median "$p" "$k,$m,[0-9]*" 8)" "$f")"
  done
  echo "$line (fifo long p90 $f s)"
done
for k in low high multi; do
  for s in $SEEDS; do
    row "$k,kill_nofail,$s" "$("$SIM" $BIGC --mode kill --kill-attempts 65535 $NODE --trace "$tmp/$k-$s.jsonl" --json)" >> "$p"
  done
done
echo "== control: patterns, kill with no attempt limit (no job fails), long p90 over fifo's"
for k in low high multi; do
  echo "$k: kill_nofail $(ratio "$(median "$p" "$k,kill_nofail,[0-9]*" 8)" "$(median "$p" "$k,fifo,[0-9]*" 8)")"
done
echo "== control: patterns, median long mean over fifo's (a penalty spread evenly over the jobs)"
for k in low high multi; do
  f=$(median "$p" "$k,fifo,[0-9]*" 20)
  line="$k:"
  for m in reserve kill ip gp; do
    line="$line $m $(ratio "$(median "$p" "$k,$m,[0-9]*" 20)" "$f")"
  done
  echo "$line (fifo long mean $f s)"
done

w="$out/sim-bigc-sweeps.csv"
echo "sweep,value,seed,$HDR" > "$w"
for s in $SEEDS; do
  for d in 0 1 3 5; do
    row "D,$d,$s" "$("$SIM" $BIGC --mode gp --resume-tries "$d" $NODE --trace "$tmp/google-$s.jsonl" --json)" >> "$w"
  done
  for u in 1 2 4; do
    row "gp_step,$u,$s" "$("$SIM" $BIGC --mode gp --gp-step "$u" $NODE --trace "$tmp/google-$s.jsonl" --json)" >> "$w"
  done
  row "ctl_kill_nofail,on,$s" "$("$SIM" $BIGC --mode kill --kill-attempts 65535 $NODE --trace "$tmp/google-$s.jsonl" --json)" >> "$w"
  for m in ip gp; do
    row "ctl_${m}_nocost,on,$s" "$("$SIM" $BIGC --mode "$m" --reclaim-sec-per-gib 0 --resume-sec-per-gib 0 $NODE --trace "$tmp/google-$s.jsonl" --json)" >> "$w"
  done
  for m in kill ip gp; do
    row "dampers_$m,on,$s" "$("$SIM" $BIGC --mode "$m" --natural-termination 0.2 --max-preempt-per-round 0.1 $NODE --trace "$tmp/google-$s.jsonl" --json)" >> "$w"
  done
done
echo "== sweeps, medians of seeds 1-5 (short p95, short p90, long p90, long CoV)"
for v in "D,0" "D,1" "D,3" "D,5" "gp_step,1" "gp_step,2" "gp_step,4" "dampers_kill,on" "dampers_ip,on" "dampers_gp,on" "ctl_kill_nofail,on" "ctl_ip_nocost,on" "ctl_gp_nocost,on"; do
  echo "$v: short_p95 $(median "$w" "$v,[0-9]*" 6) short_p90 $(median "$w" "$v,[0-9]*" 5) long_p90 $(median "$w" "$v,[0-9]*" 8) long_cov $(median "$w" "$v,[0-9]*" 11) long_failed $(median "$w" "$v,[0-9]*" 10) util_above_80 $(median "$w" "$v,[0-9]*" 12)"
done

echo "== speed: Google replay seed 1, wall seconds (target < 1 s), ratio to fifo in the same run"
fw=$(jget "$("$SIM" $BIGC --mode fifo $NODE --trace "$tmp/google-1.jsonl" --json)" "" wall_seconds)
for m in $MODES; do
  mw=$(jget "$("$SIM" $BIGC --mode "$m" $NODE --trace "$tmp/google-1.jsonl" --json)" "" wall_seconds)
  echo "$m $mw s (x$(ratio "$mw" "$fw") fifo)"
done

if command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 1200,500 font ",10"
set output "$out/sim-bigc.png"
set datafile separator ","
set multiplot layout 1,2 title "BIG-C Google replay in ebb-sim, medians of seeds 1-5 (26 nodes of 32 CPU / 128 GiB)"
set style data histograms
set style fill solid 0.7 border -1
set boxwidth 0.8
set grid ytics
set ylabel "seconds"
set yrange [0:*]
set title "short jobs (paper p95: reserve 183, kill 176, ip 118, gp 96)"
plot "$gm" every ::1 using 3:xtic(1) title "p90", "" every ::1 using 4 title "p95"
set title "long jobs (paper: gp p90 within 4% of fifo)"
plot "$gm" every ::1 using 5:xtic(1) title "p50", "" every ::1 using 6 title "p90"
unset multiplot
GP
  echo "written: $out/sim-bigc.png"
else
  echo "gnuplot not found: no plot"
fi
