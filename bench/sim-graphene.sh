#!/bin/sh
# Graphene (OSDI 2016) in ebb-sim against cp, tetris and random (doc/graphene-fidelity.md):
# `make bench-sim` runs it. Workloads from `ebb-sim gen dag` (W, inverted V, complex, deep
# chains, after the paper's section 2.2; heterogeneous CPU/memory/network demands), 1000
# jobs, seeds 1-5, medians.
#   online    Poisson arrivals at --load 1.2 on 50 nodes (the cluster contended)
#   batch     jobs arrive within minutes (--load 100), for the makespan,
#             as the paper's makespan experiment ("all jobs arrive within the first few
#             minutes")
#   alone     one DAG at a time (--load 0.02) on 4 nodes: the quality of each DAG's schedule
#             (the paper's section 7.3 compares schedules of single DAGs), and against
#             Graphene's offline schedule of the same DAG (bench/graphene-offline)
#   alone-wide  as alone, on DAGs of the paper's size (gen dag --max-width 1000: median a few
#             hundred tasks, section 2.3's "hundreds"), 100 DAGs per seed: on 4 nodes most are
#             resource-bound (their work bound at or above their critical path), the regime
#             where the paper's troublesome-first order should pay
#   queues    online with two queues (job j in queue j mod 2): graphene's deficit counters,
#             the largest one seen against kappa, and the JCT change from one queue
#   prio      graphene --graphene-prio dag and order (ablations) in online and batch;
#             order also alone (graphene-order), against its offline schedules; and
#             --graphene-bypass single (only 1-task jobs skip the offline step, the first
#             version) in online and batch
#   perf      graphene on 10,000 jobs, 100 nodes, load 0.9: wall time, must be < 30 s
# Usage: sim-graphene.sh OUTDIR   (SIM: the ebb-sim binary; OFFLINE: bench/graphene-offline,
# default next to SIM's directory; GNUPLOT: plot when set/found)
set -eu
. "$(dirname "$0")/sim-lib.sh"
out=${1:-bench-sim}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NODECAP="--node-cpu-millis 16000 --node-memory 64G --node-net-mbps 10000"
SEEDS=${SEEDS:-"1 2 3 4 5"}
POLICIES="graphene cp tetris random"
OFFLINE=${OFFLINE:-$(dirname "$SIM")/../bench/graphene-offline}
JOBS=${JOBS:-1000}

# dag JSON FIELD: a field of the "dag" object.
dag () { printf '%s\n' "$1" | sed -n "s/.*\"dag\":{[^}]*\"$2\":\([-0-9.e+]*\).*/\1/p"; }

runs="$out/sim-graphene.csv"
echo "experiment,seed,policy,jobs,jct_mean,jct_p50,jct_p75,jct_p90,makespan,utilization,max_deficit,kappa,unfair_picks,dep_violations,wall_seconds" > "$runs"
# one EXPERIMENT SEED LABEL NODES TRACE [OPTIONS...]: runs and appends a row.
one () {
  e=$1 s=$2 label=$3 n=$4 tr=$5; shift 5
  j=$("$SIM" --nodes "$n" $NODECAP --trace "$tr" --json "$@")
  echo "$e,$s,$label,$(dag "$j" jobs),$(dag "$j" jct_mean),$(dag "$j" jct_p50),$(dag "$j" jct_p75),$(dag "$j" jct_p90),$(dag "$j" makespan),$(jget "$j" "" utilization),$(dag "$j" max_deficit),$(dag "$j" kappa),$(dag "$j" unfair_picks),$(dag "$j" dep_violations),$(jget "$j" "" wall_seconds)" >> "$runs"
}

for s in $SEEDS; do
  "$SIM" gen dag --jobs "$JOBS" --nodes 50 --load 1.2 --seed "$s" -o "$tmp/online-$s.jsonl"
  "$SIM" gen dag --jobs "$JOBS" --nodes 50 --load 100 --seed "$s" -o "$tmp/batch-$s.jsonl"
  "$SIM" gen dag --jobs 300 --nodes 4 --load 0.02 --seed "$s" -o "$tmp/alone-$s.jsonl"
  "$SIM" gen dag --jobs 100 --nodes 4 --load 0.02 --seed "$s" --max-width 1000 \
    -o "$tmp/alone-wide-$s.jsonl"
  for p in $POLICIES; do
    one online "$s" "$p" 50 "$tmp/online-$s.jsonl" --policy "$p"
    one batch "$s" "$p" 50 "$tmp/batch-$s.jsonl" --policy "$p"
    one alone "$s" "$p" 4 "$tmp/alone-$s.jsonl" --policy "$p" --jobs-csv "$tmp/alone-$s-$p.csv"
    one alone-wide "$s" "$p" 4 "$tmp/alone-wide-$s.jsonl" --policy "$p" \
      --jobs-csv "$tmp/alone-wide-$s-$p.csv"
  done
  one queues "$s" graphene 50 "$tmp/online-$s.jsonl" --policy graphene --queues 2
  one queues "$s" tetris 50 "$tmp/online-$s.jsonl" --policy tetris --queues 2
  one prio "$s" graphene-online-dag 50 "$tmp/online-$s.jsonl" --policy graphene --graphene-prio dag
  one prio "$s" graphene-batch-dag 50 "$tmp/batch-$s.jsonl" --policy graphene --graphene-prio dag
  one prio "$s" graphene-online-order 50 "$tmp/online-$s.jsonl" --policy graphene --graphene-prio order
  one prio "$s" graphene-batch-order 50 "$tmp/batch-$s.jsonl" --policy graphene --graphene-prio order
  one prio "$s" graphene-online-single 50 "$tmp/online-$s.jsonl" --policy graphene --graphene-bypass single
  one prio "$s" graphene-batch-single 50 "$tmp/batch-$s.jsonl" --policy graphene --graphene-bypass single
  one alone "$s" graphene-order 4 "$tmp/alone-$s.jsonl" --policy graphene --graphene-prio order \
    --jobs-csv "$tmp/alone-$s-graphene-order.csv"
done

# alone, alone-wide: every DAG's realized completion time against its offline schedule.
# vs_offline EXPERIMENT CSV POLICIES...
vs_offline () {
  e=$1 al=$2; shift 2
  echo "seed,policy,median_realized_over_offline,share_offline_5pct_better,share_5pct_better_than_cp,share_5pct_worse_than_cp,median_offline_over_critical_path,mid_dags,mid_offline_5pct_better_than_cp,mid_5pct_better_than_cp,mid_5pct_worse_than_cp,median_work_bound_over_critical_path" > "$al"
  for s in $SEEDS; do
    "$OFFLINE" "$tmp/$e-$s.jsonl" 4 > "$tmp/offline-$e-$s.csv"
    for p in "$@"; do
      # offline: job,tasks,machines,offline_makespan,critical_path,candidates,troublesome,
      # work_bound; jobs csv: ...,runtime. "mid": the DAGs whose work bound is 0.5-2 times
      # their critical path, where neither bound alone sets the completion time.
      paste -d, "$tmp/offline-$e-$s.csv" "$tmp/$e-$s-$p.csv" "$tmp/$e-$s-cp.csv" | tail -n +2 | awk -F, -v s="$s" -v p="$p" '
        { r = $15; c = $22; o = $4; ratio[NR] = r / o; oc[NR] = o / $5; wc[NR] = $8 / $5
          better += (o < 0.95 * r); vsb += (r < 0.95 * c); vsw += (r > 1.05 * c)
          if ($8 >= 0.5 * $5 && $8 < 2 * $5) { mid++; mo += (o < 0.95 * c); mb += (r < 0.95 * c); mw += (r > 1.05 * c) } }
        function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] < a[j - 1]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
          return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        END { printf "%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%.4f,%.4f,%.4f,%.4f\n", s, p, med(ratio, NR), better / NR, vsb / NR, vsw / NR, med(oc, NR), mid, mid ? mo / mid : 0, mid ? mb / mid : 0, mid ? mw / mid : 0, med(wc, NR) }' >> "$al"
    done
  done
  echo "== $e: realized vs Graphene's offline schedule of each DAG ($al)"
  cat "$al"
}
if [ -x "$OFFLINE" ]; then
  vs_offline alone "$out/sim-graphene-alone.csv" $POLICIES graphene-order
  vs_offline alone-wide "$out/sim-graphene-alone-wide.csv" $POLICIES
fi

# median FILE PREFIX COLUMN: median of the column over the rows starting with PREFIX.
median () {
  grep "^$2," "$1" | cut -d, -f"$3" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
med="$out/sim-graphene-median.csv"
echo "experiment,policy,jct_mean,jct_p50,jct_p75,jct_p90,makespan,utilization,max_deficit,kappa" > "$med"
for e in online batch alone alone-wide queues prio; do
  for p in $(grep "^$e," "$runs" | cut -d, -f3 | sort -u); do
    line="$e,$p"
    for c in 5 6 7 8 9 10 11 12; do line="$line,$(median "$runs" "$e,[0-9]*,$p" "$c")"; done
    echo "$line" >> "$med"
  done
done
echo "== medians of seeds $SEEDS ($med)"
cat "$med"

# Graphene's gain over each baseline, per seed then the median: 1 - graphene / baseline.
gains="$out/sim-graphene-gains.csv"
echo "experiment,baseline,metric,median_gain,min_gain,max_gain" > "$gains"
for e in online batch alone alone-wide; do
  for b in cp tetris random; do
    for m in 5:jct_mean 6:jct_p50 7:jct_p75 9:makespan; do
      c=${m%%:*} name=${m#*:}
      for s in $SEEDS; do
        g=$(grep "^$e,$s,graphene," "$runs" | cut -d, -f"$c")
        x=$(grep "^$e,$s,$b," "$runs" | cut -d, -f"$c")
        awk -v g="$g" -v x="$x" 'BEGIN { printf "%.4f\n", 1 - g / x }'
      done | sort -g | awk -v e="$e" -v b="$b" -v n="$name" '{ v[NR] = $1 } END { printf "%s,%s,%s,%.4f,%.4f,%.4f\n", e, b, n, v[int((NR + 1) / 2)], v[1], v[NR] }' >> "$gains"
    done
  done
done
echo "== graphene's gain (1 - graphene / baseline), median [min, max] over seeds ($gains)"
cat "$gains"

if [ -n "${GNUPLOT:-$(command -v gnuplot || true)}" ]; then
  for e in online batch alone; do
    grep "^$e," "$med" | grep -v -e -dag -e order | awk -F, '{ print $2, $3, $4, $5, $7 }' > "$tmp/$e.dat"
  done
  ${GNUPLOT:-gnuplot} <<GP
set terminal pngcairo size 1200,420 font "sans,10"
set output "$out/sim-graphene.png"
set multiplot layout 1,3 title "ebb-sim gen dag, 1000 jobs, 50 nodes, medians of seeds 1-5 (alone: one DAG at a time on 4 nodes)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "seconds"
set key top left
set yrange [0:*]
set title "online (load 1.2): job completion time"
plot "$tmp/online.dat" using 3:xtic(1) title "p50", "" using 4 title "p75", "" using 2 title "mean"
set title "batch: JCT and makespan"
plot "$tmp/batch.dat" using 3:xtic(1) title "p50", "" using 4 title "p75", "" using 2 title "mean", "" using 5 title "makespan"
set title "alone: one DAG's completion time"
plot "$tmp/alone.dat" using 3:xtic(1) title "p50", "" using 4 title "p75", "" using 2 title "mean"
unset multiplot
GP
  echo "plot: $out/sim-graphene.png"
fi

echo "== speed: graphene on 10,000 DAG jobs, 100 nodes, load 0.9 (must be < 30 s)"
"$SIM" gen dag --jobs 10000 --nodes 100 --load 0.9 --seed 1 -o "$tmp/perf.jsonl"
for p in graphene cp; do
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$SIM" --policy "$p" --nodes 100 $NODECAP --trace "$tmp/perf.jsonl" --json > "$tmp/perf.json"
  set -- $(cat "$tmp/time")
  j=$(cat "$tmp/perf.json")
  printf '%-8s wall %.2f s (engine %s s), peak RSS %.0f MB, %s tasks, offline schedules %s  %s\n' "$p" "$1" \
    "$(jget "$j" "" engine_seconds)" "$(awk -v k="$2" 'BEGIN { print k / 1024 }')" "$(jget "$j" "" tasks)" \
    "$(dag "$j" offline_schedules)" "$(awk -v w="$1" 'BEGIN { print (w < 30) ? "PASS (< 30 s)" : "FAIL (>= 30 s)" }')"
done
