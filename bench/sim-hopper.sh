#!/bin/sh
# Hopper (Ren et al., SIGCOMM 2015) against its baseline in ebb-sim: average job completion
# time of hopper over srpt (SRPT with best-effort LATE speculation), centralized and
# decentralized, on Hopper's workloads (`ebb-sim gen pareto`), seeds 1-5, medians, on the
# testbed's 3200 slots (200 machines x 16 slots, section 7.1), 10,000 jobs a seed. The paper
# reports measured utilization (60-90%), ours is the offered work of the originals (copies
# that beat stragglers save work): the load sweep runs to 1.2 so the measured utilization
# (the CSV's util columns) covers the paper's range; offered 0.8 (baseline near 60% busy,
# the paper's Figure 8 point) is the reference load of the other sweeps. Sweeps:
#   load     offered load 0.6 .. 1.2 at beta 1.5                     (the paper's Figure 6)
#   beta     Pareto shape 1.2, 1.5, 1.8 at load 0.8                   (section 4.1)
#   probes   hopper decentral d = 2 .. 6 at load 0.8 and 1.1         (Figures 5a and 11)
#   epsilon  0 .. 0.3 at load 0.8                                     (Figure 10a)
#   refusals 0 .. 4, decentral, at load 0.8                           (Figure 5b)
#   fig3     one job of 200 tasks alone on k slots (k / 200 = 0.5 .. 2): the threshold of
#            Figure 3 (job completion time against slots / tasks)
#   bins     Figure 7, by job size, at load 0.8 on the testbed's 3200 slots and on 200
#   bound    srpt central on the same traces with 50 times the slots: nothing waits for a slot,
#            the mean job time no scheduler of the 3200 slots that speculates through LATE
#            can beat (LATE copies about every task there); headroom = 1 - bound / srpt,
#            what any allocation of LATE's copies could gain
#   fb       the load sweep (and beta 1.2, 1.8) with the bound on the Facebook trace's jobs
#            and arrival order (bench/sim-hopper-fb.sh, its own CSVs; TRACES: the directory
#            with FB_synthetic_2000.tr)
# Every run of one seed shares its trace (the generator's seed) and the policies' seed.
# Output: DIR/sim-hopper-runs.csv (every run) and DIR/sim-hopper.csv (medians over seeds:
# of each policy's mean job completion time and of the per-seed gain 1 - hopper / srpt;
# for fig3 the load column holds the slots k and only hopper runs), DIR/sim-hopper-bins.csv
# (gains by job size, with the bound), DIR/sim-hopper-fairness.csv (jobs epsilon slows
# down against epsilon 0) and DIR/sim-hopper-headroom.csv (the bound and the headroom).
# Usage: bench/sim-hopper.sh [DIR]   (SIM: the ebb-sim binary; JOBS: jobs per trace, 10000)
set -eu
. "$(dirname "$0")/sim-lib.sh"
out=${1:-.}
jobs=${JOBS:-10000}
nodes=3200
ref=0.8 # the reference offered load of the beta, epsilon, refusals, fairness and bins runs
unbounded=$((nodes * 50)) # slots enough that no task or copy waits (the bound)
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

trace () { # trace LOAD BETA SEED [SLOTS JOBS]: generates once, prints the path
  n=${4:-$nodes} k=${5:-$jobs}
  f=$tmp/p-$1-$2-$3-$n-$k.tr
  [ -s "$f" ] || "$SIM" gen pareto --jobs "$k" --nodes "$n" --load "$1" --beta "$2" \
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
  for load in 0.6 0.7 0.8 0.9 1.0 1.1 1.2; do pair load "$mode" "$load" 1.5 4 0.1 2; done
  for beta in 1.2 1.8; do pair beta "$mode" "$ref" "$beta" 4 0.1 2; done
  for eps in 0 0.05 0.15 0.2 0.3; do pair epsilon "$mode" "$ref" 1.5 4 "$eps" 2; done
done
for load in "$ref" 1.1; do
  for d in 2 3 5 6; do pair probes decentral "$load" 1.5 "$d" 0.1 2; done
done
for r in 0 1 3 4; do pair refusals decentral "$ref" 1.5 4 0.1 "$r"; done
# The defaults' runs serve the sweeps they belong to (beta 1.5, d 4, epsilon 0.1, K 2).
awk -F, -v OFS=, -v ref="$ref" 'NR > 1 && $1 == "load" {
         if ($3 == ref) { $1 = "beta"; print; $1 = "epsilon"; print
                          if ($2 == "decentral") { $1 = "refusals"; print } }
         if ($2 == "decentral" && ($3 == ref || $3 == "1.1")) { $1 = "probes"; print } }' \
  "$runs" >"$tmp/extra.csv"
cat "$tmp/extra.csv" >>"$runs"

# Figure 7: gains by job size (tasks per job: <= 50, 51-150, 151-500, > 500, and all) at
# the reference load, from the per-job CSV (job,submit,ntasks,mean_task,class,finish,runtime),
# pooled over the seeds (the large bins hold a few jobs per seed); on the testbed's 3200
# slots of the other sweeps and on 200 (3000 jobs), where jobs over 200 tasks run in waves.
bins=$out/sim-hopper-bins.csv
echo "slots,mode,bin,jobs,srpt_mean,hopper_mean,gain,bound_mean,headroom" >"$bins"
# pool FILE...: "bin,jobs,mean runtime" per bin and for all jobs.
pool () {
  cat "$@" | awk -F, -v OFS=, '
    function bin(n) { return n <= 50 ? "1-50" : n <= 150 ? "51-150" : n <= 500 ? "151-500" : "501-1000" }
    $1 == "job" { next }
    { b = bin($3); S[b] += $7; N[b]++; S["all"] += $7; N["all"]++ }
    END { for (b in N) print b, N[b], S[b] / N[b] }' | sort
}
# bin_rows SLOTS JOBS
bin_rows () {
  for s in $seeds; do
    t=$(trace "$ref" 1.5 "$s" "$1" "$2")
    for mode in central decentral; do
      for p in srpt hopper; do
        "$SIM" -p "$p" -n "$1" -t "$t" --hopper-mode "$mode" --beta 1.5 --seed "$s" \
          --jobs-csv "$tmp/jobs-$mode-$p-$s.csv" >/dev/null
      done
    done
    "$SIM" -p srpt -n $(($1 * 50)) -t "$t" --hopper-mode central --beta 1.5 --seed "$s" \
      --jobs-csv "$tmp/jobs-bound-$s.csv" >/dev/null
  done
  pool "$tmp"/jobs-bound-*.csv >"$tmp/bb.csv"
  for mode in central decentral; do
    pool "$tmp"/jobs-$mode-srpt-*.csv >"$tmp/bs.csv"
    pool "$tmp"/jobs-$mode-hopper-*.csv >"$tmp/bh.csv"
    awk -F, -v slots="$1" -v mode="$mode" 'FILENAME == ARGV[1] { h[$1] = $3; next }
      FILENAME == ARGV[2] { u[$1] = $3; next }
      { printf "%s,%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f\n", slots, mode, $1, $2, $3, h[$1],
          1 - h[$1] / $3, u[$1], 1 - u[$1] / $3 }' \
      "$tmp/bh.csv" "$tmp/bb.csv" "$tmp/bs.csv" >>"$bins"
  done
  rm -f "$tmp"/jobs-*.csv
}
bin_rows "$nodes" "$jobs"
bin_rows 200 $((jobs * 3 / 10))

# Figure 10b/c: jobs that epsilon slows down against a perfectly fair hopper (epsilon 0),
# job by job, at the reference load, pooled over the seeds: share slowed, mean and worst slowdown of
# those (runtime / fair runtime - 1).
fair=$out/sim-hopper-fairness.csv
echo "mode,epsilon,jobs,slowed_share,mean_slowdown,worst_slowdown" >"$fair"
for mode in central decentral; do
  for eps in 0 0.05 0.1 0.2 0.3; do
    for s in $seeds; do
      t=$(trace "$ref" 1.5 "$s")
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

# The bound: srpt central with a slot for everything, on the load and beta sweeps' traces.
bound=$tmp/bound.csv
: >"$bound"
for lb in 0.6,1.5 0.7,1.5 0.8,1.5 0.9,1.5 1.0,1.5 1.1,1.5 1.2,1.5 "$ref",1.2 "$ref",1.8; do
  load=${lb%,*} beta=${lb#*,}
  for s in $seeds; do
    t=$(trace "$load" "$beta" "$s")
    j=$("$SIM" -p srpt -n "$unbounded" -t "$t" --hopper-mode central --beta "$beta" --seed "$s" --json)
    echo "$load,$beta,$s,$(all_mean "$j")" >>"$bound"
  done
done
# Per load and beta, medians over seeds of the bound, srpt, and of the per-seed headroom
# (1 - bound / srpt) and gain (1 - hopper / srpt), both modes.
awk -F, -v OFS=, "$sim_awk_med"'
  FILENAME == ARGV[1] { b[$1 "," $2, $3] = $4; if (!(($1 "," $2) in seen)) { seen[$1 "," $2] = 1; order[++n] = $1 "," $2 }; next }
  FNR > 1 && (($1 == "load") || ($1 == "beta" && $4 != "1.5")) { m[$3 "," $4, $2, $9, $8] = $10 }
  END {
    print "load,beta,bound_mean,srpt_central,headroom_central,gain_central,srpt_decentral,headroom_decentral,gain_decentral,seeds"
    for (k = 1; k <= n; k++) {
      c = order[k]; ns = 0
      for (s = 1; s <= 5; s++) {
        if (!((c, s) in b)) continue
        ns++; V["b", ns] = b[c, s]
        V["sc", ns] = m[c, "central", "srpt", s]; V["sd", ns] = m[c, "decentral", "srpt", s]
        V["hc", ns] = 1 - b[c, s] / m[c, "central", "srpt", s]
        V["hd", ns] = 1 - b[c, s] / m[c, "decentral", "srpt", s]
        V["gc", ns] = 1 - m[c, "central", "hopper", s] / m[c, "central", "srpt", s]
        V["gd", ns] = 1 - m[c, "decentral", "hopper", s] / m[c, "decentral", "srpt", s]
      }
      printf "%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", c, med("b", ns), med("sc", ns),
        med("hc", ns), med("gc", ns), med("sd", ns), med("hd", ns), med("gd", ns), ns
    }
  }' "$bound" "$runs" >"$out/sim-hopper-headroom.csv"

# Medians over seeds per configuration.
awk -F, -v OFS=, "$sim_awk_med"'
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
cat "$out/sim-hopper.csv" "$bins" "$fair" "$out/sim-hopper-headroom.csv"

# The Facebook trace's jobs and arrivals (section 7.1's replay): DIR/sim-hopper-fb*.csv.
sh "$(dirname "$0")/sim-hopper-fb.sh" "$out"
