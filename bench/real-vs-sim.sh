#!/bin/bash
# Real against simulated: the same 100 jobs of the YH2 sample (data/YH2_sub.tr), scaled to
# seconds, run by the real cluster on this machine (ebb-controller, policy ebb, and 3 real
# ebb-agents of 2 CPUs of capacity each, cgroups nested under this script's own) and by
# ebb-sim (policy ebb, 3 nodes of 2000 millicores, the same seed and cutoff). Prints the
# per-class p50 of job runtime (last task finish - submission) of both and their ratio,
# writes one line per job and one per class as CSV, and exits 1 when a class's real p50 is
# not within RVS_TOLERANCE (default 25%) of the simulated one. doc/real-vs-sim.md reads it.
#
#   bench/real-vs-sim.sh [-o CSV] [-j JOBS_CSV]       (root; make bench-real-vs-sim)
#
# Takes about 2.5 minutes. Use a build without --enable-sanitizers (EBB_TOP_BUILDDIR): the
# sanitizers' daemons add to every launch and exit report, which the short jobs feel.
#
# The workload, from the trace (every knob an environment variable, defaults in brackets):
#   jobs      every RVS_STEP-th [33] line, RVS_JOBS [100] jobs: a systematic sample that keeps
#             the trace's mix (8 long jobs of 100, the trace has 10%)
#   class     long when the trace's mean task duration >= 90.5811 s (Hawk/Eagle's YH2 cutoff)
#   tasks     n' = min(RVS_CAP [2], ceil(n / RVS_DIV [50])): the first n' durations of the job
#   duration  d' = RVS_A [0.5] * d ^ RVS_P [0.5] seconds, at least RVS_MIN [0.5]: the trace's
#             4 s .. 15000 s become 1 s .. 61 s, order kept; the cutoff becomes 0.5 * 90.58^0.5
#   arrival   (s - s_first) / RVS_ASC [400]: the 39,000 s of the sample arrive within 98 s
#   demand    long tasks 1000 millicores, short 990 (a suspension frees 990: one short task
#             displaces one long task outright), 64 MiB each (the suspension footprint)
# A task is bench/rvs-task d': it needs d' seconds of progress and progresses only while it is
# not throttled (a suspended task stalls, as in the simulator); the cluster's 6 CPUs of
# capacity cost this machine about a third of a CPU.
set -u
: "${EBB_TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${EBB_TOP_BUILDDIR:=$EBB_TOP_SRCDIR/build}"
export EBB_TOP_SRCDIR EBB_TOP_BUILDDIR
CSV=$EBB_TOP_SRCDIR/bench/real-vs-sim.csv
JOBS_CSV=$EBB_TOP_SRCDIR/bench/real-vs-sim-jobs.csv
while getopts "o:j:" o; do
  case $o in o) CSV=$OPTARG ;; j) JOBS_CSV=$OPTARG ;; *) echo "usage: $0 [-o CSV] [-j JOBS_CSV]" >&2; exit 2 ;; esac
done
TRACE=${TRACES:-$EBB_TOP_SRCDIR/data}/YH2_sub.tr
NJ=${RVS_JOBS:-100} STEP=${RVS_STEP:-33} CAP=${RVS_CAP:-2} DIV=${RVS_DIV:-50}
A=${RVS_A:-0.5} P=${RVS_P:-0.5} MIN=${RVS_MIN:-0.5} ASC=${RVS_ASC:-400}
SEED=${RVS_SEED:-1} TOL=${RVS_TOLERANCE:-25} TRACE_CUT=90.5811
CUT=$(awk -v a="$A" -v p="$P" -v c=$TRACE_CUT 'BEGIN { printf "%.4f", a * c ^ p }')
SIM=$EBB_TOP_BUILDDIR/sim/ebb-sim
TASK=$EBB_TOP_BUILDDIR/bench/rvs-task
for f in "$SIM" "$TASK"; do [ -x "$f" ] || { echo "real-vs-sim: no $f (make)"; exit 77; }; done
[ -r "$TRACE" ] || { echo "real-vs-sim: no $TRACE"; exit 77; }

# The real cluster's helpers (root, cgroups nested under ours, cleanup on exit).
. "$EBB_TOP_SRCDIR/tests/controller/lib.sh"
setup_cgroups
W=$TMP/rvs
mkdir -p "$W"

# --- the workload: one JSON line per job (ebb-sim reads it as it is) --------------------------
awk -v STEP="$STEP" -v NJ="$NJ" -v CAP="$CAP" -v DIV="$DIV" -v A="$A" -v P="$P" -v MIN="$MIN" \
  -v ASC="$ASC" -v CUT=$TRACE_CUT '
  (NR - 1) % STEP == 0 && k < NJ {
    k++; if (k == 1) s0 = $1
    m = int(($2 + DIV - 1) / DIV); if (m > CAP) m = CAP
    long = $3 >= CUT; sum = 0; ds = ""
    for (i = 1; i <= m; i++) {
      d = A * ($(3 + i)) ^ P; if (d < MIN) d = MIN
      d = int(d * 1000 + 0.5) / 1000; sum += d; ds = ds (i > 1 ? "," : "") d
    }
    printf "{\"id\":\"%d\",\"submit\":%.3f,\"cpu_millis\":%d,\"memory_bytes\":67108864,\"durations\":[%s],\"est\":%.3f,\"class\":\"%s\"}\n",
      NR, ($1 - s0) / ASC, long ? 1000 : 990, ds, sum / m, long ? "long" : "short"
  }' "$TRACE" >"$W/trace.jsonl"
echo "workload: $(wc -l <"$W/trace.jsonl") jobs ($(grep -c '"long"' "$W/trace.jsonl") long) from $TRACE, every ${STEP}th line;" \
  "tasks min($CAP, ceil(n/$DIV)), durations $A*d^$P s (>= $MIN), arrivals /$ASC; scaled cutoff $CUT s"

# --- simulated -----------------------------------------------------------------------------
"$SIM" -p ebb -n 3 --node-cpu-millis 2000 --node-memory 2G -t "$W/trace.jsonl" --cutoff "$CUT" \
  --seed "$SEED" --jobs-csv "$W/sim.csv" >"$W/sim.out" || { cat "$W/sim.out"; echo "ebb-sim failed"; exit 1; }
grep -E '^(short|long|preemption)' "$W/sim.out" | sed 's/^/sim: /'
# How much the per-class p50 moves with the seed alone (probe targets, steal victims): the
# simulator's own spread, against which the real run's difference is read.
for s in $(seq 1 "${RVS_SEEDS:-20}"); do
  "$SIM" -p ebb -n 3 --node-cpu-millis 2000 --node-memory 2G -t "$W/trace.jsonl" --cutoff "$CUT" \
    --seed "$s" --jobs-csv "$W/seed.csv" >/dev/null || exit 1
  for c in short long; do
    awk -F, -v c=$c 'NR > 1 && $5 == c { print $7 }' "$W/seed.csv" | sort -g |
      awk -v c=$c '{ a[NR] = $1 } END { i = int(NR * 0.5); if (i < NR * 0.5) i++; if (i < 1) i = 1; if (NR) print c, a[i] }'
  done
done >"$W/seeds.txt"
awk '{ v[$1] = v[$1] " " $2 } END { for (c in v) print c, v[c] }' "$W/seeds.txt" | while read -r c vals; do
  echo "sim: $c p50 over ${RVS_SEEDS:-20} seeds: $(echo $vals | tr ' ' '\n' | sort -g | awk '{ a[NR] = $1 } END { printf "min %.3f median %.3f max %.3f", a[1], a[int((NR + 1) / 2)], a[NR] }')"
done | tee "$W/spread.txt"

# --- real ----------------------------------------------------------------------------------
CTL_TICK=100ms start_controller --policy ebb --policy-opt "seed=$SEED" --policy-opt "cutoff=$CUT" \
  --node-timeout 30s || { fail "controller did not start"; exit 1; }
for n in 1 2 3; do start_node $n; done
wait_for 20 '[.nodes[] | select(.state == "ready")] | length == 3' /v1/nodes || { fail "nodes: $(cat "$TMP/body")"; exit 1; }
now () { date +%s.%N; }
t_start=$(now)
# One POST /v1/jobs body per job, after its submission time: "submit<TAB>body".
jq -r --arg task "$TASK" '[.submit, ({name: ("rvs" + .id), class, est_task_sec: .est,
  request_id: ("rvs" + .id), tasks: [.durations[] as $d | {argv: [$task, ($d | tostring)],
  cpu_millis, memory_bytes}]} | tojson)] | @tsv' "$W/trace.jsonl" >"$W/bodies"
late=0
while IFS="$(printf '\t')" read -r at body; do
  wait_s=$(awk -v a="$at" -v t0="$t_start" -v n="$(now)" 'BEGIN { w = t0 + a - n; printf "%.3f", (w > 0 ? w : 0) }')
  [ "$wait_s" = 0.000 ] && late=$((late + 1))
  sleep "$wait_s"
  capi POST /v1/jobs "$body"
  [ "$STATUS" = 201 ] || fail "submit: $STATUS $(cat "$TMP/body")"
done <"$W/bodies"
echo "real: $NJ jobs submitted in $(awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s ($late late)"
wait_for 900 '[.jobs[] | select(.state == "done" or .state == "failed" or .state == "killed")] | length == '"$NJ" /v1/jobs ||
  fail "not every job ended: $(jq -c '[.jobs[].state] | group_by(.) | map({(.[0]): length}) | add' "$TMP/body")"
echo "real: all ended after $(awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
# Per job: trace line, state, runtime, and where the time went: submission -> first task
# started (the agent's answer to the launch), and the longest task's started -> finished.
jq -r '.jobs[].id' "$TMP/body" | while read -r id; do
  capi GET "/v1/jobs/$id"
  jq -r '[(.name | ltrimstr("rvs")), .state, .finished_at - .submitted_at,
    ([.tasks[].started_at] | min) - .submitted_at,
    ([.tasks[] | .finished_at - .started_at] | max)] | @tsv' "$TMP/body"
done >"$W/real.tsv"
capi GET "/v1/decisions?since=0"
echo "real: $(jq '[.decisions[] | select(.action == "suspend")] | length' "$TMP/body") suspends," \
  "$(jq '[.decisions[] | select(.action == "resume")] | length' "$TMP/body") resumes," \
  "$(jq '[.decisions[] | select(.action == "kill")] | length' "$TMP/body") kills"
bad=$(awk '$2 != "done"' "$W/real.tsv" | wc -l)
[ "$bad" = 0 ] || fail "$bad jobs did not end done"

# --- comparison ----------------------------------------------------------------------------
# Per job: trace line, class, tasks, scaled submission, real runtime, simulated runtime.
# ebb-sim numbers jobs from 0 in file order; the real ones are named by trace line.
jq -r '[.id, .class, (.durations | length), .submit, (.durations | add / length), (.durations | max)] | @tsv' \
  "$W/trace.jsonl" >"$W/trace.tsv"
awk -F'\t' -v OFS=, -v tol="$TOL" -v jobs_csv="$JOBS_CSV" '
  FILENAME ~ /sim.csv$/ { if (FNR > 1) { split($0, f, ","); sim[f[1] + 1] = f[7] }; next }
  FILENAME ~ /real.tsv$/ { real[$1] = $3; rwait[$1] = $4; rtask[$1] = $5; next }
  FILENAME ~ /spread.txt$/ { split($0, f, " "); smin[f[2]] = f[8]; smax[f[2]] = f[12]; next }
  { n++; line[n] = $1; cls[n] = $2; nt[n] = $3; sub_s[n] = $4; mean[n] = $5; mx[n] = $6 }
  # p50/p90: nearest rank over the values of one class.
  function pct(v, k, q,   i, j, t, a) {
    for (i = 1; i <= k; i++) a[i] = v[i]
    for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    i = int(q * k); if (i < q * k) i++; if (i < 1) i = 1
    return a[i]
  }
  END {
    print "trace_line,class,tasks,submit_s,mean_task_s,max_task_s,real_runtime_s,sim_runtime_s,real_first_start_s,real_longest_task_s" >jobs_csv
    for (i = 1; i <= n; i++)
      printf "%s,%s,%d,%.3f,%.3f,%.3f,%s,%.3f,%s,%s\n", line[i], cls[i], nt[i], sub_s[i], mean[i], mx[i],
        (line[i] in real) ? sprintf("%.3f", real[line[i]]) : "nan", sim[i],
        (line[i] in real) ? sprintf("%.3f", rwait[line[i]]) : "nan",
        (line[i] in real) ? sprintf("%.3f", rtask[line[i]]) : "nan" >jobs_csv
    printf "class,jobs,real_p50_s,sim_p50_s,p50_ratio,real_p90_s,sim_p90_s,real_mean_s,sim_mean_s,within_%d%%,sim_p50_min_over_seeds_s,sim_p50_max_over_seeds_s\n", tol
    bad = 0
    for (c = 1; c <= 2; c++) {
      name = c == 1 ? "short" : "long"; k = 0; sr = 0; ss = 0
      for (i = 1; i <= n; i++) if (cls[i] == name) { k++; r[k] = real[line[i]]; s[k] = sim[i]; sr += r[k]; ss += s[k] }
      if (!k) continue
      ratio = pct(r, k, 0.5) / pct(s, k, 0.5)
      ok = (ratio - 1) * 100 <= tol && (1 - ratio) * 100 <= tol
      bad += !ok
      printf "%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%s,%s\n", name, k, pct(r, k, 0.5), pct(s, k, 0.5), ratio,
        pct(r, k, 0.9), pct(s, k, 0.9), sr / k, ss / k, ok ? "yes" : "no", smin[name], smax[name]
    }
    exit bad > 0
  }' "$W/sim.csv" "$W/real.tsv" "$W/spread.txt" "$W/trace.tsv" >"$CSV"
st=$?
column -t -s, "$CSV"
[ $st = 0 ] && ok "per-class p50 of real and simulated within $TOL%" || fail "a class's p50 differs by more than $TOL%"
exit $FAILED
