#!/bin/sh
# Hopper (Ren et al., SIGCOMM 2015) against its baseline in ebb-sim: average job completion
# time of hopper over srpt (SRPT with best-effort LATE speculation), centralized and
# decentralized, on Hopper's workloads (`ebb-sim gen pareto`), seeds 1-5, medians. Sweeps:
#   load     offered load 0.5 .. 0.9 at beta 1.5                     (the paper's Figure 6)
#   beta     Pareto shape 1.2, 1.5, 1.8 at load 0.7                   (section 4.1)
#   probes   hopper decentral d = 2 .. 6 at load 0.7 and 0.9         (Figures 5a and 11)
#   epsilon  0 .. 0.3 at load 0.7                                     (Figure 10a)
#   refusals 0 .. 4, decentral, at load 0.7                           (Figure 5b)
#   fig3     one job of 200 tasks alone on k slots (k / 200 = 0.5 .. 2): the threshold of
#            Figure 3 (job completion time against slots / tasks)
# Every run of one seed shares its trace (the generator's seed) and the policies' seed.
# Output: DIR/sim-hopper-runs.csv (every run) and DIR/sim-hopper.csv (medians over seeds:
# of each policy's mean job completion time and of the per-seed gain 1 - hopper / srpt;
# for fig3 the load column holds the slots k and only hopper runs), DIR/sim-hopper-bins.csv
# (gains by job size) and DIR/sim-hopper-fairness.csv (jobs epsilon slows down against
# epsilon 0).
# Usage: bench/sim-hopper.sh [DIR]   (SIM: the ebb-sim binary; JOBS: jobs per trace, 3000)
set -eu
. "$(dirname "$0")/sim-lib.sh"
out=${1:-.}
jobs=${JOBS:-3000}
nodes=200
seeds="1 2 3 4 5"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=$out/sim-hopper-runs.csv
echo "sweep,mode,load,beta,probes,epsilon,refusals,seed,policy,all_mean,speculative_copies,utilization" >"$runs"

# all_mean JSON: the "all" object's mean.
all_mean () { printf '%s\n' "$1" | sed -n 's/.*"all":{[^}]*"mean":\([-0-9.e+]*\).*/\1/p'; }

# one SWEEP MODE LOAD BETA PROBES EPS REFUSALS SEED POLICY TRACE
one () {
  j=$("$SIM" -p "$9" -n "$nodes" -t "${10}" --hopper-mode "$2" --beta "$4" --probes "$5" \
    --epsilon "$6" --refusals "$7" --seed "$8" --json)
  echo "$1,$2,$3,$4,$5,$6,$7,$8,$9,$(all_mean "$j"),$(jget "$j" "" speculative_copies),$(jget "$j" "" utilization)" >>"$runs"
}

trace () { # trace LOAD BETA SEED: generates once, prints the path
  f=$tmp/p-$1-$2-$3.tr
  [ -s "$f" ] || "$SIM" gen pareto --jobs "$jobs" --nodes "$nodes" --load "$1" --beta "$2" \
    --seed "$3" -o "$f"
  echo "$f"
}

# pair SWEEP MODE LOAD BETA PROBES EPS REFUSALS: srpt and hopper on every seed
pair () {
  for s in $seeds; do
    t=$(trace "$3" "$4" "$s")
    one "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$s" srpt "$t"
    one "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$s" hopper "$t"
  done
}

for mode in central decentral; do
  for load in 0.5 0.6 0.7 0.8 0.9; do pair load "$mode" "$load" 1.5 4 0.1 2; done
  for beta in 1.2 1.8; do pair beta "$mode" 0.7 "$beta" 4 0.1 2; done
  for eps in 0 0.05 0.15 0.2 0.3; do pair epsilon "$mode" 0.7 1.5 4 "$eps" 2; done
done
for load in 0.7 0.9; do
  for d in 2 3 5 6; do pair probes decentral "$load" 1.5 "$d" 0.1 2; done
done
for r in 0 1 3 4; do pair refusals decentral 0.7 1.5 4 0.1 "$r"; done
# The defaults' runs serve the sweeps they belong to (beta 1.5, d 4, epsilon 0.1, K 2).
awk -F, -v OFS=, 'NR > 1 && $1 == "load" {
         if ($3 == "0.7") { $1 = "beta"; print; $1 = "epsilon"; print
                            if ($2 == "decentral") { $1 = "refusals"; print } }
         if ($2 == "decentral" && ($3 == "0.7" || $3 == "0.9")) { $1 = "probes"; print } }' \
  "$runs" >"$tmp/extra.csv"
cat "$tmp/extra.csv" >>"$runs"

# Figure 7: gains by job size (tasks per job: <= 50, 51-150, 151-500, > 500) at load 0.7,
# from the per-job CSV (job,submit,ntasks,mean_task,class,finish,runtime).
bins=$out/sim-hopper-bins.csv
echo "mode,bin,jobs,srpt_mean,hopper_mean,gain" >"$bins"
for mode in central decentral; do
  for s in $seeds; do
    t=$(trace 0.7 1.5 "$s")
    for p in srpt hopper; do
      "$SIM" -p "$p" -n "$nodes" -t "$t" --hopper-mode "$mode" --beta 1.5 --seed "$s" \
        --jobs-csv "$tmp/jobs-$p-$s.csv" >/dev/null
    done
  done
  cat "$tmp"/jobs-srpt-*.csv | awk -F, -v mode="$mode" -v OFS=, '
    function bin(n) { return n <= 50 ? "1-50" : n <= 150 ? "51-150" : n <= 500 ? "151-500" : "501-1000" }
    FNR == 1 && $1 == "job" { next }
    $1 == "job" { next }
    { b = bin($3); S[b] += $7; N[b]++ }
    END { for (b in N) print mode, b, N[b], S[b] / N[b] }' | sort >"$tmp/bs.csv"
  cat "$tmp"/jobs-hopper-*.csv | awk -F, -v OFS=, '
    function bin(n) { return n <= 50 ? "1-50" : n <= 150 ? "51-150" : n <= 500 ? "151-500" : "501-1000" }
    $1 == "job" { next }
    { b = bin($3); S[b] += $7; N[b]++ }
    END { for (b in N) print b, S[b] / N[b] }' | sort >"$tmp/bh.csv"
  # Pooled over the 5 seeds (the large bins hold a few jobs per seed).
  awk -F, -v OFS=, 'NR == FNR { h[$1] = $2; next }
    { printf "%s,%s,%d,%.3f,%.3f,%.3f\n", $1, $2, $3, $4, h[$2], 1 - h[$2] / $4 }' \
    "$tmp/bh.csv" "$tmp/bs.csv" >>"$bins"
  rm -f "$tmp"/jobs-*.csv
done

# Figure 10b/c: jobs that epsilon slows down against a perfectly fair hopper (epsilon 0),
# job by job, load 0.7, pooled over the seeds: share slowed, mean and worst slowdown of
# those (runtime / fair runtime - 1).
fair=$out/sim-hopper-fairness.csv
echo "mode,epsilon,jobs,slowed_share,mean_slowdown,worst_slowdown" >"$fair"
for mode in central decentral; do
  for eps in 0 0.05 0.1 0.2 0.3; do
    for s in $seeds; do
      t=$(trace 0.7 1.5 "$s")
      "$SIM" -p hopper -n "$nodes" -t "$t" --hopper-mode "$mode" --beta 1.5 --seed "$s" \
        --epsilon "$eps" --jobs-csv "$tmp/fair-$eps-$s.csv" >/dev/null
    done
  done
  for eps in 0.05 0.1 0.2 0.3; do
    for s in $seeds; do
      awk -F, 'NR == FNR { if ($1 != "job") r0[$1] = $7; next }
               $1 != "job" { print r0[$1], $7 }' "$tmp/fair-0-$s.csv" "$tmp/fair-$eps-$s.csv"
    done | awk -v mode="$mode" -v eps="$eps" '
      { n++; if ($2 > $1 * (1 + 1e-9)) { k++; d = $2 / $1 - 1; sum += d; if (d > worst) worst = d } }
      END { printf "%s,%s,%d,%.4f,%.4f,%.4f\n", mode, eps, n, k / n, k ? sum / k : 0, worst }' >>"$fair"
  done
  rm -f "$tmp"/fair-*.csv
done

# Figure 3: one job of 200 tasks alone (hopper central gives it every slot).
for s in $seeds; do
  # Figure 3's job has 200 tasks: the first 200 durations gen pareto draws for this seed.
  "$SIM" gen pareto --jobs 400 --nodes 200 --beta 1.5 --seed "$s" |
    awk '{ for (i = 4; i <= NF && n < 200; i++) d[n++] = $i } END {
           printf "0 200 1.0"; for (i = 0; i < 200; i++) printf " %s", d[i]; print "" }' >"$tmp/job200.tr"
  for k in 100 150 200 233 267 300 350 400; do
    j=$("$SIM" -p hopper --hopper-mode central -n "$k" -t "$tmp/job200.tr" --beta 1.5 --seed "$s" --json)
    echo "fig3,central,$k,1.5,4,0.1,2,$s,hopper,$(all_mean "$j"),$(jget "$j" "" speculative_copies),$(jget "$j" "" utilization)" >>"$runs"
  done
done

# Medians over seeds per configuration.
awk -F, -v OFS=, '
  function med(key, n,   i, j, t, a) {
    for (i = 1; i <= n; i++) a[i] = V[key, i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  NR == 1 { next }
  {
    cfg = $1 OFS $2 OFS $3 OFS $4 OFS $5 OFS $6 OFS $7
    if (!(cfg in seen)) { seen[cfg] = 1; order[++ncfg] = cfg }
    m[cfg, $8, $9] = $10; c[cfg, $8, $9] = $11; u[cfg, $8, $9] = $12; seedset[cfg, $8] = 1
  }
  END {
    print "sweep,mode,load,beta,probes,epsilon,refusals,srpt_mean,hopper_mean,gain,srpt_copies,hopper_copies,srpt_util,hopper_util,seeds"
    for (k = 1; k <= ncfg; k++) {
      cfg = order[k]; n = 0
      for (s = 1; s <= 5; s++) {
        if (!((cfg, s) in seedset)) continue
        n++
        V["sm", n] = m[cfg, s, "srpt"]; V["hm", n] = m[cfg, s, "hopper"]
        V["sc", n] = c[cfg, s, "srpt"]; V["hc", n] = c[cfg, s, "hopper"]
        V["su", n] = u[cfg, s, "srpt"]; V["hu", n] = u[cfg, s, "hopper"]
        V["g", n] = m[cfg, s, "srpt"] > 0 ? 1 - m[cfg, s, "hopper"] / m[cfg, s, "srpt"] : 0
      }
      if (cfg ~ /^fig3/) {
        printf "%s,,%.3f,,,%.0f,,%.3f,%d\n", cfg, med("hm", n), med("hc", n), med("hu", n), n
        continue
      }
      printf "%s,%.3f,%.3f,%.3f,%.0f,%.0f,%.3f,%.3f,%d\n", cfg, med("sm", n), med("hm", n),
        med("g", n), med("sc", n), med("hc", n), med("su", n), med("hu", n), n
    }
  }' "$runs" >"$out/sim-hopper.csv"
cat "$out/sim-hopper.csv" "$bins" "$fair"
