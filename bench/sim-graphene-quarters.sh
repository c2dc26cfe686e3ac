#!/bin/sh
# Where online Graphene loses to tetris (doc/graphene-fidelity.md, "The inter-job step
# examined again"): the jobs of the online workload (gen dag --jobs 1000 --nodes 50 --load
# 1.2, seeds 1-5) in quarters by work (tasks x mean task duration, ties by job index); per
# quarter and seed, the gain 1 - sum of JCT / sum of tetris' JCT; then the median [min, max]
# over the seeds, for graphene (default), --graphene-bypass single, --graphene-prio dag
# (the formula's letter, an ablation), and cp.
# Usage: sim-graphene-quarters.sh OUT.csv   (SIM: the ebb-sim binary)
set -eu
. "$(dirname "$0")/sim-lib.sh"
out=${1:-sim-graphene-quarters.csv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
NODECAP="--node-cpu-millis 16000 --node-memory 64G --node-net-mbps 10000"
SEEDS=${SEEDS:-"1 2 3 4 5"}
for s in $SEEDS; do
  "$SIM" gen dag --jobs 1000 --nodes 50 --load 1.2 --seed "$s" -o "$tmp/online-$s.jsonl"
  for v in "tetris:--policy tetris" "cp:--policy cp" "graphene:--policy graphene" \
    "graphene-single:--policy graphene --graphene-bypass single" \
    "graphene-dag:--policy graphene --graphene-prio dag"; do
    # shellcheck disable=SC2086 # the options are words
    "$SIM" ${v#*:} --nodes 50 $NODECAP --trace "$tmp/online-$s.jsonl" \
      --jobs-csv "$tmp/$s-${v%%:*}.csv" > /dev/null
  done
  # job -> quarter, by tetris' CSV (job,submit,ntasks,mean_task,class,finish,runtime).
  tail -n +2 "$tmp/$s-tetris.csv" | awk -F, '{ printf "%d,%.9g\n", $1, $3 * $4 }' \
    | sort -t, -k2,2g -k1,1n | awk -F, '{ q[NR] = $1 } END { for (i = 1; i <= NR; i++) print q[i] "," int(4 * (i - 1) / NR) }' \
    > "$tmp/$s-quarter.csv"
  for p in graphene graphene-single graphene-dag cp; do
    awk -F, -v s="$s" -v p="$p" '
      FILENAME == ARGV[1] { q[$1] = $2; next }
      FNR == 1 { next }
      FILENAME == ARGV[2] { t[q[$1]] += $7; next }
      { g[q[$1]] += $7 }
      END { for (k = 0; k < 4; k++) printf "%s,%d,%s,%.6f\n", p, k + 1, s, 1 - g[k] / t[k] }' \
      "$tmp/$s-quarter.csv" "$tmp/$s-tetris.csv" "$tmp/$s-$p.csv" >> "$tmp/gains.csv"
  done
done
echo "policy,quarter,median_gain_vs_tetris,min_gain,max_gain" > "$out"
for p in graphene graphene-single graphene-dag cp; do
  for k in 1 2 3 4; do
    grep "^$p,$k," "$tmp/gains.csv" | cut -d, -f4 | sort -g | awk -v p="$p" -v k="$k" \
      '{ v[NR] = $1 } END { printf "%s,%d,%.4f,%.4f,%.4f\n", p, k, v[int((NR + 1) / 2)], v[1], v[NR] }' >> "$out"
  done
done
cat "$out"
