#!/bin/bash
# Real against simulated: the same 100 jobs of the YH2 sample (data/YH2_sub.tr), scaled to
# seconds, run by the real cluster on this machine (ebb-controller, policy ebb, and 3 real
# ebb-agents of 2 CPUs of capacity each, cgroups nested under this script's own) and by
# ebb-sim (policy ebb, 3 nodes of 2000 millicores, the same seed and cutoff), once per seed of
# RVS_SEEDS [1 2 3]. Prints the per-class p50 of job runtime (last task finish - submission)
# of both over the jobs of all seeds and their ratio, writes one line per job and seed and one
# per class as CSV, and exits 1 when a class's real p50 is not within RVS_TOLERANCE (default
# 25%) of the simulated one. doc/real-vs-sim.md reads it.
#
#   bench/real-vs-sim.sh [-o CSV] [-j JOBS_CSV]       (root; make bench-real-vs-sim)
#
# Takes about 2 minutes per seed (6.5 with the default three). Use a build without
# --enable-sanitizers (EBB_TOP_BUILDDIR): the sanitizers' daemons add to every launch and
# exit report, which the short jobs feel.
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
#
# The real path's fixed costs per task, measured on the real runs and given to ebb-sim
# (--launch-delay, --finish-delay; RVS_LAUNCH_DELAY / RVS_FINISH_DELAY override them):
#   launch    the median over tasks of started_at - the launch decision's time (the call to
#             the agent, fork and exec in a new cgroup, the agent's answer)
#   finish    the median over tasks never suspended of finished_at - started_at - duration
#             (the task's last round, the exit noticed, reported and recorded)
# The simulator also runs without them (sim0 columns), so their share of the match shows.
set -u
: "${EBB_TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${EBB_TOP_BUILDDIR:=$EBB_TOP_SRCDIR/build}"
export EBB_TOP_SRCDIR EBB_TOP_BUILDDIR
TRACE_CUT=90.5811
A=${RVS_A:-0.5} P=${RVS_P:-0.5}
CUT=$(awk -v a="$A" -v p="$P" -v c=$TRACE_CUT 'BEGIN { printf "%.4f", a * c ^ p }')

# --- one real run (the script runs itself once per seed: RVS_INNER=SEED, RVS_OUT=DIR) ------
# A fresh controller, agents, state and cgroups per seed; lib.sh removes them on exit.
if [ -n "${RVS_INNER:-}" ]; then
  SEED=$RVS_INNER O=$RVS_OUT
  . "$EBB_TOP_SRCDIR/tests/controller/lib.sh"
  setup_cgroups
  echo "real seed $SEED: load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
  CTL_TICK=100ms start_controller --policy ebb --policy-opt "seed=$SEED" --policy-opt "cutoff=$CUT" \
    --node-timeout 30s || { fail "controller did not start"; exit 1; }
  for n in 1 2 3; do start_node $n; done
  wait_for 20 '[.nodes[] | select(.state == "ready")] | length == 3' /v1/nodes || { fail "nodes: $(cat "$TMP/body")"; exit 1; }
  now () { date +%s.%N; }
  t_start=$(now)
  late=0
  while IFS="$(printf '\t')" read -r at body; do
    wait_s=$(awk -v a="$at" -v t0="$t_start" -v n="$(now)" 'BEGIN { w = t0 + a - n; printf "%.3f", (w > 0 ? w : 0) }')
    [ "$wait_s" = 0.000 ] && late=$((late + 1))
    sleep "$wait_s"
    capi POST /v1/jobs "$body"
    [ "$STATUS" = 201 ] || fail "submit: $STATUS $(cat "$TMP/body")"
  done <"$O/bodies"
  nj=$(wc -l <"$O/bodies")
  echo "real seed $SEED: $nj jobs submitted in $(awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s ($late late)"
  wait_for 900 '[.jobs[] | select(.state == "done" or .state == "failed" or .state == "killed")] | length == '"$nj" '/v1/jobs?limit=1000' ||
    fail "not every job ended: $(jq -c '[.jobs[].state] | group_by(.) | map({(.[0]): length}) | add' "$TMP/body")"
  echo "real seed $SEED: all ended after $(awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s;" \
    "load average $(cut -d' ' -f1-3 /proc/loadavg)"
  cut -d' ' -f1 /proc/loadavg >"$O/load-$SEED"
  # Per job: trace line, state, runtime, submission -> first task started, the longest task's
  # started -> finished; per task: trace line, index, id, started, finished, suspensions.
  jq -r '.jobs[].id' "$TMP/body" | while read -r id; do
    capi GET "/v1/jobs/$id"
    cat "$TMP/body"
    echo
  done >"$O/jobs-$SEED.jsonl"
  jq -r '[(.name | ltrimstr("rvs")), .state, .finished_at - .submitted_at,
    ([.tasks[].started_at] | min) - .submitted_at,
    ([.tasks[] | .finished_at - .started_at] | max)] | @tsv' "$O/jobs-$SEED.jsonl" >"$O/real-$SEED.tsv"
  jq -r '(.name | ltrimstr("rvs")) as $l | .tasks[] | [$l, .index, .id, .started_at, .finished_at, .suspensions] | @tsv' \
    "$O/jobs-$SEED.jsonl" >"$O/tasks-$SEED.tsv"
  capi GET "/v1/decisions?since=0"
  cp "$TMP/body" "$O/decisions-$SEED.json"
  echo "real seed $SEED: $(jq '[.decisions[] | select(.action == "suspend")] | length' "$TMP/body") suspends," \
    "$(jq '[.decisions[] | select(.action == "resume")] | length' "$TMP/body") resumes," \
    "$(jq '[.decisions[] | select(.action == "kill")] | length' "$TMP/body") kills"
  bad=$(awk '$2 != "done"' "$O/real-$SEED.tsv" | wc -l)
  [ "$bad" = 0 ] || fail "$bad jobs did not end done"
  exit $FAILED
fi

CSV=$EBB_TOP_SRCDIR/bench/real-vs-sim.csv
JOBS_CSV=$EBB_TOP_SRCDIR/bench/real-vs-sim-jobs.csv
while getopts "o:j:" o; do
  case $o in o) CSV=$OPTARG ;; j) JOBS_CSV=$OPTARG ;; *) echo "usage: $0 [-o CSV] [-j JOBS_CSV]" >&2; exit 2 ;; esac
done
TRACE=${TRACES:-$EBB_TOP_SRCDIR/data}/YH2_sub.tr
NJ=${RVS_JOBS:-100} STEP=${RVS_STEP:-33} CAP=${RVS_CAP:-2} DIV=${RVS_DIV:-50}
MIN=${RVS_MIN:-0.5} ASC=${RVS_ASC:-400}
SEEDS=${RVS_SEEDS:-1 2 3} TOL=${RVS_TOLERANCE:-25}
SIM=$EBB_TOP_BUILDDIR/sim/ebb-sim
TASK=$EBB_TOP_BUILDDIR/bench/rvs-task
for f in "$SIM" "$TASK"; do [ -x "$f" ] || { echo "real-vs-sim: no $f (make)"; exit 77; }; done
[ -r "$TRACE" ] || { echo "real-vs-sim: no $TRACE"; exit 77; }
W=$(mktemp -d /tmp/ebb-rvs.XXXXXX) || exit 99
chmod 755 "$W"
# RVS_KEEP=DIR keeps the run's files (decisions, per-task times, ebb-sim's output) there.
trap '[ -n "${RVS_KEEP:-}" ] && cp -r "$W" "$RVS_KEEP"; rm -rf "$W"' EXIT
# p50 (nearest rank) of the numbers on stdin; "nan" when there are none.
p50 () { sort -g | awk '{ a[NR] = $1 } END { i = int(NR * 0.5); if (i < NR * 0.5) i++; if (i < 1) i = 1; print NR ? a[i] : "nan" }'; }

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
  "tasks min($CAP, ceil(n/$DIV)), durations $A*d^$P s (>= $MIN), arrivals /$ASC; scaled cutoff $CUT s; seeds $SEEDS"
# One POST /v1/jobs body per job, after its submission time: "submit<TAB>body".
jq -r --arg task "$TASK" '[.submit, ({name: ("rvs" + .id), class, est_task_sec: .est,
  request_id: ("rvs" + .id), tasks: [.durations[] as $d | {argv: [$task, ($d | tostring)],
  cpu_millis, memory_bytes}]} | tojson)] | @tsv' "$W/trace.jsonl" >"$W/bodies"
# Per job: trace line, class, tasks, scaled submission, mean and longest duration, and the
# durations by task index (for the finish cost).
jq -r '[.id, .class, (.durations | length), .submit, (.durations | add / length), (.durations | max)] | @tsv' \
  "$W/trace.jsonl" >"$W/trace.tsv"
jq -r '.id as $l | .durations | to_entries[] | [$l, .key, .value] | @tsv' "$W/trace.jsonl" >"$W/durations.tsv"

# --- real, one run per seed ------------------------------------------------------------------
for s in $SEEDS; do
  RVS_INNER=$s RVS_OUT=$W bash "$0"
  st=$?
  [ $st = 77 ] && exit 77
  [ $st = 0 ] || { echo "FAIL: real run of seed $s"; exit 1; }
done

# --- the real path's fixed costs -------------------------------------------------------------
for s in $SEEDS; do
  jq -r '.decisions[] | select(.action == "launch") | [.task, .time] | @tsv' "$W/decisions-$s.json" >"$W/launch-$s.tsv"
  awk -F'\t' 'FILENAME ~ /launch/ { if (!($1 in l)) l[$1] = $2; next }
    FILENAME ~ /durations/ { d[$1 " " $2] = $3; next }
    ($3 in l) { print "launch", $4 - l[$3] }
    $6 == 0 { print "finish", $5 - $4 - d[$1 " " $2] }' \
    "$W/launch-$s.tsv" "$W/durations.tsv" "$W/tasks-$s.tsv"
done >"$W/costs.txt"
LAUNCH=${RVS_LAUNCH_DELAY:-$(awk '$1 == "launch" { print $2 }' "$W/costs.txt" | p50)}
FINISH=${RVS_FINISH_DELAY:-$(awk '$1 == "finish" { print $2 }' "$W/costs.txt" | p50)}
LAUNCH=$(awk -v v="$LAUNCH" 'BEGIN { printf "%.3f", (v > 0 ? v : 0) }')
FINISH=$(awk -v v="$FINISH" 'BEGIN { printf "%.3f", (v > 0 ? v : 0) }')
for k in launch finish; do
  awk -v k=$k '$1 == k { print $2 }' "$W/costs.txt" | sort -g |
    awk -v k=$k '{ a[NR] = $1; s += $1 } END { printf "real: %s cost over %d tasks: p10 %.3f p50 %.3f mean %.3f p90 %.3f s\n", k, NR, a[int(NR * 0.1) + 1], a[int((NR + 1) / 2)], s / NR, a[int(NR * 0.9)] }'
done
echo "sim: --launch-delay $LAUNCH --finish-delay $FINISH"

# --- simulated: the same seeds with and without the fixed costs, and the seed spread --------
simrun () { # simrun SEED OUT.csv [OPTION...]
  s=$1 out=$2; shift 2
  "$SIM" -p ebb -n 3 --node-cpu-millis 2000 --node-memory 2G -t "$W/trace.jsonl" --cutoff "$CUT" \
    --seed "$s" --jobs-csv "$out" --json "$@"
}
for s in $SEEDS; do
  simrun "$s" "$W/sim-$s.csv" --launch-delay "$LAUNCH" --finish-delay "$FINISH" >"$W/sim-$s.json" &&
    simrun "$s" "$W/sim0-$s.csv" >"$W/sim0-$s.json" || { echo "FAIL: ebb-sim"; exit 1; }
done
# How much the per-class p50 moves with the seed alone (probe targets, steal victims): the
# simulator's own spread, against which a single seed's difference is read.
for s in $(seq 1 "${RVS_SPREAD_SEEDS:-20}"); do
  simrun "$s" "$W/seed.csv" --launch-delay "$LAUNCH" --finish-delay "$FINISH" >/dev/null || exit 1
  for c in short long; do
    echo "$c $(awk -F, -v c=$c 'NR > 1 && $5 == c { print $7 }' "$W/seed.csv" | p50)"
  done
done >"$W/seeds.txt"
for c in short long; do
  echo "$c $(awk -v c=$c '$1 == c { print $2 }' "$W/seeds.txt" | sort -g | awk '{ a[NR] = $1 } END { print a[1], a[int((NR + 1) / 2)], a[NR] }')"
done >"$W/spread.txt"

# --- suspensions: first SUSPEND to RESUME decision, per task ---------------------------------
for s in $SEEDS; do
  jq -r '.decisions[] | select(.action == "suspend" or .action == "resume") | [.time, .action, .task] | @tsv' "$W/decisions-$s.json" |
    awk -F'\t' '$2 == "suspend" && !($3 in at) { at[$3] = $1 } $2 == "resume" && ($3 in at) { print $1 - at[$3]; delete at[$3] }'
done >"$W/real-preempt.txt"
echo "real: preempted (first SUSPEND to RESUME decision): $(wc -l <"$W/real-preempt.txt") resumed over seeds $SEEDS," \
  "p50 $(p50 <"$W/real-preempt.txt" | xargs printf "%.3f") s, mean $(awk '{ s += $1 } END { printf "%.3f", NR ? s / NR : 0 }' "$W/real-preempt.txt") s"
for v in sim sim0; do
  cat "$W/$v"-*.json | jq -s -r --arg v "$v" '"\($v): preempted (first SUSPEND to RESUME decision): \(map(.preemptions_resumed) | add) resumed over the seeds, p50 per seed \(map(.preempted_p50_sec) | map(tostring) | join(" ")) s, mean \((map(.preempted_mean_sec * .preemptions_resumed) | add) / ([map(.preemptions_resumed) | add, 1] | max) | . * 1000 | round / 1000) s; \(map(.suspends) | add) suspends, \(map(.resumes) | add) resumes"'
done

# --- comparison ----------------------------------------------------------------------------
# One line per job and seed: seed, trace line, real runtime, simulated with and without the
# fixed costs, real submission -> first start and longest task. ebb-sim numbers jobs from 0
# in file order; the real ones are named by trace line.
for s in $SEEDS; do
  awk -F'\t' -v s="$s" 'FILENAME ~ /trace.tsv$/ { line[FNR - 1] = $1; next }
    FILENAME ~ /sim-/ { if (FNR > 1) { split($0, f, ","); sim[line[f[1]]] = f[7] }; next }
    FILENAME ~ /sim0-/ { if (FNR > 1) { split($0, f, ","); sim0[line[f[1]]] = f[7] }; next }
    { print s "\t" $1 "\t" $3 "\t" sim[$1] "\t" sim0[$1] "\t" $4 "\t" $5 }' \
    "$W/trace.tsv" "$W/sim-$s.csv" "$W/sim0-$s.csv" "$W/real-$s.tsv"
done >"$W/joined.tsv"
awk -F'\t' -v OFS=, -v tol="$TOL" -v jobs_csv="$JOBS_CSV" -v launch="$LAUNCH" -v finish="$FINISH" '
  FILENAME ~ /spread.txt$/ { split($0, f, " "); smin[f[1]] = f[2]; smax[f[1]] = f[4]; next }
  FILENAME ~ /trace.tsv$/ { cls[$1] = $2; nt[$1] = $3; sub_s[$1] = $4; mean[$1] = $5; mx[$1] = $6; order[++nl] = $1; next }
  { n++; seed[n] = $1; ln[n] = $2; real[n] = $3; sim[n] = $4; sim0[n] = $5; rw[n] = $6; rt[n] = $7
    if (!($1 in seen)) { seen[$1] = 1; seeds[++ns] = $1 } }
  # p50/p90: nearest rank over the k values of v.
  function pct(v, k, q,   i, j, t, a) {
    for (i = 1; i <= k; i++) a[i] = v[i]
    for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    i = int(q * k); if (i < q * k) i++; if (i < 1) i = 1
    return a[i]
  }
  function med3(v, k) { return pct(v, k, 0.5) }
  END {
    print "seed,trace_line,class,tasks,submit_s,mean_task_s,max_task_s,real_runtime_s,sim_runtime_s,sim_no_costs_runtime_s,real_first_start_s,real_longest_task_s" >jobs_csv
    for (i = 1; i <= n; i++)
      printf "%s,%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f\n", seed[i], ln[i], cls[ln[i]], nt[ln[i]], sub_s[ln[i]],
        mean[ln[i]], mx[ln[i]], real[i], sim[i], sim0[i], rw[i], rt[i] >jobs_csv
    printf "class,jobs,runs,real_p50_s,sim_p50_s,p50_ratio,within_%d%%,real_p50_median_of_seeds_s,sim_p50_median_of_seeds_s,median_of_seeds_ratio,real_p90_s,sim_p90_s,real_mean_s,sim_mean_s,sim_no_costs_p50_s,no_costs_ratio,launch_delay_s,finish_delay_s,sim_p50_min_over_seeds_s,sim_p50_max_over_seeds_s\n", tol
    bad = 0
    for (c = 1; c <= 2; c++) {
      name = c == 1 ? "short" : "long"; k = 0; sr = 0; ss = 0
      for (i = 1; i <= n; i++) if (cls[ln[i]] == name) { k++; r[k] = real[i]; s[k] = sim[i]; z[k] = sim0[i]; sr += r[k]; ss += s[k] }
      if (!k) continue
      for (q = 1; q <= ns; q++) {
        m = 0
        for (i = 1; i <= n; i++) if (cls[ln[i]] == name && seed[i] == seeds[q]) { m++; rr[m] = real[i]; qq[m] = sim[i] }
        rp[q] = pct(rr, m, 0.5); sp[q] = pct(qq, m, 0.5)
      }
      ratio = pct(r, k, 0.5) / pct(s, k, 0.5)
      ok = (ratio - 1) * 100 <= tol && (1 - ratio) * 100 <= tol
      bad += !ok
      printf "%s,%d,%d,%.3f,%.3f,%.3f,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%s,%s,%s,%s\n", name, k / ns, ns,
        pct(r, k, 0.5), pct(s, k, 0.5), ratio, ok ? "yes" : "no", med3(rp, ns), med3(sp, ns), med3(rp, ns) / med3(sp, ns),
        pct(r, k, 0.9), pct(s, k, 0.9), sr / k, ss / k, pct(z, k, 0.5), pct(r, k, 0.5) / pct(z, k, 0.5),
        launch, finish, smin[name], smax[name]
      for (q = 1; q <= ns; q++) printf "%s seed %s: real p50 %.3f sim p50 %.3f ratio %.3f\n", name, seeds[q], rp[q], sp[q], rp[q] / sp[q] >"/dev/stderr"
    }
    exit bad > 0
  }' "$W/spread.txt" "$W/trace.tsv" "$W/joined.tsv" >"$CSV"
st=$?
column -t -s, "$CSV"
if [ $st = 0 ]; then
  echo "ok: per-class p50 of real and simulated (jobs of seeds $SEEDS) within $TOL%"
else
  echo "FAIL: a class's p50 differs by more than $TOL%"
fi
exit $st
