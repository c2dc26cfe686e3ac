#!/bin/sh
# Hopper against srpt on the jobs of the Facebook trace (FB_synthetic_2000.tr), replayed as
# Hopper section 7.1 replays its production traces: each job keeps its arrival order and
# number of tasks, task durations are drawn Pareto(beta) with mean 1 s, the gaps are scaled
# by one factor so that the originals' work offers LOAD x the capacity of the 3200 slots
# (`ebb-sim gen pareto --from-trace`). The same measures as bench/sim-hopper.sh's load
# sweep: hopper and srpt, centralized and decentralized, seeds 1-5, medians, the paper's
# defaults (d = 4, epsilon 0.1, 2 refusals), and the bound (srpt central with 50 x the
# slots). Sweeps: offered load 0.6 .. 1.2 at beta 1.5 (measured utilization about
# 0.45-0.82), and beta 1.2 and 1.8 at the same loads.
# Output: DIR/sim-hopper-fb-runs.csv (every run) and DIR/sim-hopper-fb.csv (per load and
# beta, medians over seeds: utilization, mean job completion time of each policy, the per-seed
# gain 1 - hopper / srpt and headroom 1 - bound / srpt).
# Usage: bench/sim-hopper-fb.sh [DIR]   (SIM: the ebb-sim binary; TRACES: the directory
# with FB_synthetic_2000.tr)
set -eu
. "$(dirname "$0")/sim-lib.sh"
out=${1:-.}
nodes=3200
unbounded=$((nodes * 50))
seeds="1 2 3 4 5"
loads=${FB_LOADS:-"0.6 0.7 0.8 0.9 1.0 1.1 1.2"}
betas=${FB_BETAS:-"1.5 1.2 1.8"}
src=$TRACES/FB_synthetic_2000.tr
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=$out/sim-hopper-fb-runs.csv
echo "load,beta,seed,mode,policy,all_mean,speculative_copies,utilization" >"$runs"

# one LOAD BETA SEED MODE POLICY SLOTS TRACE (mode "bound": srpt central on SLOTS)
one () {
  j=$("$SIM" -p "$5" -n "$6" -t "$7" --hopper-mode "$(echo "$4" | sed 's/bound/central/')" \
    --beta "$2" --seed "$3" --json)
  m=$(printf '%s\n' "$j" | sed -n 's/.*"all":{[^}]*"mean":\([-0-9.e+]*\).*/\1/p')
  echo "$1,$2,$3,$4,$5,$m,$(jget "$j" "" speculative_copies),$(jget "$j" "" utilization)" >>"$runs"
}

for beta in $betas; do
  for load in $loads; do
    for s in $seeds; do
      t=$tmp/fb-$load-$beta-$s.tr
      "$SIM" gen pareto --from-trace "$src" --nodes "$nodes" --load "$load" --beta "$beta" \
        --seed "$s" -o "$t"
      for mode in central decentral; do
        for p in srpt hopper; do one "$load" "$beta" "$s" "$mode" "$p" "$nodes" "$t"; done
      done
      one "$load" "$beta" "$s" bound srpt "$unbounded" "$t"
      rm -f "$t"
    done
  done
done

awk -F, -v OFS=, "$sim_awk_med"'
  NR == 1 { next }
  {
    c = $1 OFS $2
    if (!(c in seen)) { seen[c] = 1; order[++nc] = c }
    m[c, $3, $4, $5] = $6; u[c, $3, $4, $5] = $8; got[c, $3] = 1
  }
  END {
    print "load,beta,util_srpt_central,util_hopper_central,util_srpt_decentral,util_hopper_decentral,bound_mean,srpt_central,hopper_central,gain_central,headroom_central,srpt_decentral,hopper_decentral,gain_decentral,headroom_decentral,seeds"
    for (k = 1; k <= nc; k++) {
      c = order[k]; n = 0
      for (s = 1; s <= 5; s++) {
        if (!((c, s) in got)) continue
        n++; b = m[c, s, "bound", "srpt"]; V["b", n] = b
        for (i = 1; i <= 2; i++) {
          mode = i == 1 ? "central" : "decentral"
          sr = m[c, s, mode, "srpt"]; h = m[c, s, mode, "hopper"]
          V["s" i, n] = sr; V["h" i, n] = h; V["g" i, n] = 1 - h / sr; V["r" i, n] = 1 - b / sr
          V["us" i, n] = u[c, s, mode, "srpt"]; V["uh" i, n] = u[c, s, mode, "hopper"]
        }
      }
      printf "%s,%.2f,%.2f,%.2f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", c,
        med("us1", n), med("uh1", n), med("us2", n), med("uh2", n), med("b", n),
        med("s1", n), med("h1", n), med("g1", n), med("r1", n),
        med("s2", n), med("h2", n), med("g2", n), med("r2", n), n
    }
  }' "$runs" >"$out/sim-hopper-fb.csv"
cat "$out/sim-hopper-fb.csv"
