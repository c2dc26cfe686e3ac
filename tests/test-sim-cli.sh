#!/bin/sh
# ebb-sim's command line: help, errors for bad options, gen | run, JSON keys, determinism.
set -u
sim="${EBB_TOP_BUILDDIR:-.}/sim/ebb-sim"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
check () { # check DESCRIPTION EXPECTED-STATUS STDERR-PATTERN -- ARGS...
  desc=$1 want=$2 pat=$3; shift 4
  "$sim" "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
  if [ "$got" != "$want" ] || { [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/err" "$tmp/out"; }; then
    echo "FAIL: $desc (status $got, want $want; pattern '$pat')"; cat "$tmp/err"; fail=1
  else
    echo "ok: $desc"
  fi
}
check "help" 0 "Usage: ebb-sim" -- --help
check "list policies" 0 "hawk" -- --list-policies
check "option without its value: 'ebb-sim:', not the path run" 2 "^ebb-sim: option '--policy' requires" -- --policy
check "unknown option: 'ebb-sim:'" 2 "^ebb-sim: unrecognized option '--bogus'" -- --bogus
check "missing nodes" 2 "nodes is required" -- --policy sparrow --trace x
check "bad nodes" 2 "invalid --nodes 'abc'" -- --policy sparrow --nodes abc --trace x
check "bad probe ratio" 2 "invalid --probe-ratio '0.5'" -- -p sparrow -n 4 -t x --probe-ratio 0.5
check "unknown policy" 2 "unknown policy 'nope'" -- -p nope -n 4 -t x
check "hawk without cutoff" 2 "needs --cutoff" -- -p hawk -n 4 -t x
check "unknown option" 2 "Try 'ebb-sim --help'" -- -p hawk -n 4 -t x --bogus
check "missing trace file" 1 "open $tmp/none.tr" -- -p sparrow -n 4 -t "$tmp/none.tr"
printf '0 1 1 1\n1 2 1 1\n' >"$tmp/bad.tr"
check "malformed trace" 1 "bad.tr:2: 2 task durations announced, 1 found" -- -p fifo -n 2 -t "$tmp/bad.tr"
check "gen unknown" 2 "unknown generator 'foo'" -- gen foo
check "gen hetero needs classes" 2 "give --class or --preset" -- gen hetero
# A generator refuses what it would ignore (its --help lists only what it takes).
check "gen bigc-google refuses --jobs" 2 "bigc-google: --jobs does not apply" -- gen bigc-google --jobs 9
check "gen hawk2 refuses --preset" 2 "hawk2: --preset does not apply" -- gen hawk2 --preset google
check "gen bigc-pattern help" 0 "Usage: ebb-sim gen bigc-pattern" -- gen bigc-pattern --help
check "gen" 0 "" -- gen hetero --preset google --jobs 300 --interarrival 2 --seed 4 -o "$tmp/g.tr"
# --load: the offered load (task-seconds over nodes x span of the arrivals) is the one asked,
# within a few % over 5000 jobs; the jobs are those of --interarrival with the same seed.
"$sim" gen hetero --preset google --jobs 5000 --load 0.8 --nodes 200 --seed 4 -o "$tmp/l.tr" \
  && "$sim" gen hetero --preset google --jobs 5000 --interarrival 9 --seed 4 -o "$tmp/i.tr" \
  && awk '{ for (i = 4; i <= NF; i++) w += $i; if (NR == 1) first = $1; last = $1 }
          END { load = w / (200 * (last - first)); print "offered load", load
                exit !(NR == 5000 && load > 0.8 * 0.97 && load < 0.8 * 1.03) }' "$tmp/l.tr" \
  && cut -d' ' -f2- "$tmp/l.tr" >"$tmp/l.jobs" && cut -d' ' -f2- "$tmp/i.tr" >"$tmp/i.jobs" \
  && cmp -s "$tmp/l.jobs" "$tmp/i.jobs" \
  && echo "ok: gen hetero --load offers the load" || { echo "FAIL: gen hetero --load"; fail=1; }
check "gen hetero --load with --interarrival" 2 "exclude each other" -- gen hetero --preset google --load 0.8 --nodes 200 --interarrival 2
check "gen hetero --load without --nodes" 2 "go together" -- gen hetero --preset google --load 0.8
check "gen hetero --load 0" 2 "invalid --load '0'" -- gen hetero --preset google --load 0 --nodes 3
check "gen hawk2 refuses --load" 2 "hawk2: --load does not apply" -- gen hawk2 --load 0.5
run () { "$sim" -p hawk -n 200 -t "$tmp/g.tr" --cutoff 400 --json --seed "$1" | \
  sed -e 's/"wall_seconds":[0-9.e+-]*,//' -e 's/"peak_rss_bytes":[0-9-]*,//' \
      -e 's/"events_per_second":[0-9.e+-]*,//' -e 's/"engine_seconds":[0-9.e+-]*,//'; }
a=$(run 1) && b=$(run 1) && c=$(run 2) || { echo "FAIL: run"; fail=1; }
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" != "$c" ] && echo "ok: deterministic JSON" || { echo "FAIL: determinism"; fail=1; }
for k in '"short":{"count":' '"long":{"count":' '"p50":' '"p90":' '"p99":' '"mean":' \
         '"utilization":' '"events":'; do
  echo "$a" | grep -q "$k" || { echo "FAIL: key $k missing"; fail=1; }
done
"$sim" -p hawk -n 200 -t "$tmp/g.tr" --cutoff 400 --json | grep -q '"wall_seconds":.*"peak_rss_bytes":' \
  || { echo "FAIL: volatile keys"; fail=1; }
"$sim" -p sparrow -n 200 -t "$tmp/g.tr" --cutoff 400 --jobs-csv "$tmp/jobs.csv" >/dev/null
[ "$(wc -l <"$tmp/jobs.csv")" = 301 ] && echo "ok: jobs csv" || { echo "FAIL: jobs csv"; fail=1; }
# Resources and BIG-C.
R="--nodes 26 --node-cpu-millis 32000 --node-memory 128G"
"$sim" gen bigc-pattern low --seed 3 -o "$tmp/low.jsonl" || { echo "FAIL: gen bigc-pattern"; fail=1; }
check "bigc without node shape" 2 "needs --node-cpu-millis" -- -p bigc -n 26 -t "$tmp/low.jsonl"
check "slot policy with node shape" 2 "single-slot" -- -p fifo $R -t "$tmp/low.jsonl"
check "bad node memory" 2 "invalid --node-memory '12Q'" -- -p bigc -n 2 --node-cpu-millis 1000 --node-memory 12Q -t "$tmp/low.jsonl"
check "bad mode" 2 "invalid --mode 'nice'" -- -p bigc --mode nice $R -t "$tmp/low.jsonl"
check "gen bigc-pattern kind" 2 "unknown pattern 'mid'" -- gen bigc-pattern mid
check "bad footprint booking" 2 "invalid --book-footprint 'some'" -- -p bigc --book-footprint some $R -t "$tmp/low.jsonl"
check "memory footprint booked on nodes without memory" 1 "cannot book a memory footprint" -- \
  -p ebb -n 200 -t "$tmp/g.tr" --cutoff 400 --book-footprint memory
printf '{"submit":1,"cpu_millis":1000,"memory_bytes":0,"durations":[1]}\n{"submit":2,"cpu_millis":1000,"memory_bytes":0,"durations":[1],"prio":3}\n' >"$tmp/bad.jsonl"
check "json trace unknown key" 1 "bad.jsonl:2: unknown key 'prio'" -- -p bigc $R -t "$tmp/bad.jsonl"
"$sim" gen bigc-google --seed 2 -o "$tmp/g1.jsonl" && "$sim" gen bigc-google --seed 2 -o "$tmp/g2.jsonl" \
  && cmp -s "$tmp/g1.jsonl" "$tmp/g2.jsonl" && [ "$(wc -l <"$tmp/g1.jsonl")" = 2202 ] \
  && echo "ok: gen bigc-google deterministic" || { echo "FAIL: gen bigc-google"; fail=1; }
j=$("$sim" -p bigc --mode gp $R -t "$tmp/low.jsonl" --json)
for k in '"p95":' '"cov":' '"failed":' '"suspends":' '"resumes":' '"kills":' '"gp_steps":' \
         '"frozen":' '"util_above_80_share":'; do
  echo "$j" | grep -q "$k" || { echo "FAIL: bigc key $k missing"; fail=1; }
done
echo "$j" | grep -q '"gp_steps":[1-9]' && echo "ok: gp preempts on the low pattern" \
  || { echo "FAIL: no gp steps"; fail=1; }
# Speculation (hopper, srpt) and Hopper's workloads.
"$sim" gen pareto --jobs 300 --nodes 40 --load 0.8 --beta 1.4 --seed 7 >"$tmp/p1.tr" \
  && "$sim" gen pareto --jobs 300 --nodes 40 --load 0.8 --beta 1.4 --seed 7 >"$tmp/p2.tr" \
  && "$sim" gen pareto --jobs 300 --nodes 40 --load 0.8 --beta 1.4 --seed 8 >"$tmp/p3.tr" \
  && cmp -s "$tmp/p1.tr" "$tmp/p2.tr" && ! cmp -s "$tmp/p1.tr" "$tmp/p3.tr" \
  && [ "$(wc -l <"$tmp/p1.tr")" = 300 ] \
  && echo "ok: gen pareto deterministic" || { echo "FAIL: gen pareto"; fail=1; }
check "gen pareto needs nodes" 2 "nodes is required" -- gen pareto --jobs 3
check "gen pareto beta" 2 "invalid --beta '1'" -- gen pareto --nodes 3 --beta 1
# --from-trace: a trace's jobs (task counts, arrival order, gaps up to one factor), drawn
# durations, the gaps scaled so the drawn work offers --load x the capacity of --nodes.
printf '5 3 9 1 1 1\n5 1 9 1\n6 7 9 1 1 1 1 1 1 1\n10 2 9 1 1\n30 4 9 1 1 1 1\n31.5 1 9 2\n' >"$tmp/src.tr"
ft () { "$sim" gen pareto --from-trace "$tmp/src.tr" --nodes 3 --load 0.6 --beta 1.5 "$@"; }
ft --seed 4 >"$tmp/f1.tr" && ft --seed 4 -o "$tmp/f2.tr" && ft --seed 5 >"$tmp/f3.tr" \
  && cmp -s "$tmp/f1.tr" "$tmp/f2.tr" && ! cmp -s "$tmp/f1.tr" "$tmp/f3.tr" \
  && echo "ok: gen pareto --from-trace deterministic" || { echo "FAIL: gen pareto --from-trace seed"; fail=1; }
# Job j of the output against job j of the source: same task count, as many durations, mean
# 1, first arrival 0, every arrival (src - 5) x one factor; the load from the drawn work.
awk 'NR == FNR { t[FNR] = $1; n[FNR] = $2; next }
     { if ($2 != n[FNR] || NF != 3 + $2 || $3 != 1) bad = "job " FNR " tasks"
       if (FNR == 1 && $1 != 0) bad = "first arrival " $1
       if (t[FNR] == 5 && $1 != 0) bad = "tie " FNR
       if (t[FNR] > 5) { k = $1 / (t[FNR] - 5); if (!f) f = k
                         if (k < f * 0.9999 || k > f * 1.0001) bad = "factor " FNR }
       for (i = 4; i <= NF; i++) w += $i; last = $1; jobs = FNR }
     END { if (FNR != 6 || jobs != 6) bad = "jobs " jobs
           load = w * (jobs - 1) / jobs / (last * 3)
           if (load < 0.5999 || load > 0.6001) bad = "load " load
           if (bad) { print bad; exit 1 } }' "$tmp/src.tr" "$tmp/f1.tr" \
  && echo "ok: gen pareto --from-trace keeps jobs, scales gaps, offers the load" \
  || { echo "FAIL: gen pareto --from-trace replay"; fail=1; }
check "gen pareto --from-trace with --jobs" 2 "exclude each other" -- gen pareto --from-trace "$tmp/src.tr" --nodes 3 --jobs 5
check "gen pareto --from-trace missing" 1 "open $tmp/none.tr" -- gen pareto --from-trace "$tmp/none.tr" --nodes 3
check "gen pareto --from-trace malformed" 1 "bad.tr:2: 2 task durations announced" -- gen pareto --from-trace "$tmp/bad.tr" --nodes 3
printf '5 1 1 1\n4 1 1 1\n' >"$tmp/unsorted.tr"
check "gen pareto --from-trace unsorted" 1 "unsorted.tr: jobs are not in arrival order" -- gen pareto --from-trace "$tmp/unsorted.tr" --nodes 3
printf '5 1 1 1\n' >"$tmp/one.tr"
check "gen pareto --from-trace one job" 1 "1 job, no gap to scale" -- gen pareto --from-trace "$tmp/one.tr" --nodes 3
printf '5 1 1 1\n5 2 1 1 1\n' >"$tmp/tied.tr"
check "gen pareto --from-trace one time" 1 "every job arrives at 5 s" -- gen pareto --from-trace "$tmp/tied.tr" --nodes 3
check "bad hopper mode" 2 "invalid --hopper-mode 'both'" -- -p hopper -n 4 -t "$tmp/p1.tr" --hopper-mode both
check "bad epsilon" 2 "invalid --epsilon '2'" -- -p hopper -n 4 -t "$tmp/p1.tr" --epsilon 2
for pol in hopper srpt; do
  for mode in central decentral; do
    j=$("$sim" -p $pol -n 40 -t "$tmp/p1.tr" --hopper-mode $mode --beta 1.4 --json) \
      || { echo "FAIL: $pol $mode run"; fail=1; continue; }
    echo "$j" | grep -q '"all":{"count":300,"mean":[0-9]' \
      && echo "$j" | grep -q '"speculative_copies":[1-9]' \
      && echo "ok: $pol $mode: all.mean and speculative_copies" \
      || { echo "FAIL: $pol $mode keys: $j"; fail=1; }
  done
done
a=$("$sim" -p hopper -n 40 -t "$tmp/p1.tr" --probes 3 --refusals 1 --epsilon 0.2 --json --seed 3 | \
  sed -e 's/"wall_seconds":[0-9.e+-]*,//' -e 's/"peak_rss_bytes":[0-9-]*,//' \
      -e 's/"events_per_second":[0-9.e+-]*,//' -e 's/"engine_seconds":[0-9.e+-]*,//')
b=$("$sim" -p hopper -n 40 -t "$tmp/p1.tr" --probes 3 --refusals 1 --epsilon 0.2 --json --seed 3 | \
  sed -e 's/"wall_seconds":[0-9.e+-]*,//' -e 's/"peak_rss_bytes":[0-9-]*,//' \
      -e 's/"events_per_second":[0-9.e+-]*,//' -e 's/"engine_seconds":[0-9.e+-]*,//')
[ -n "$a" ] && [ "$a" = "$b" ] && echo "ok: hopper deterministic JSON" || { echo "FAIL: hopper determinism"; fail=1; }
# The controller runs the same policies but not task copies: it refuses hopper at start.
ctl="${EBB_TOP_BUILDDIR:-.}/ebb-controller"
if "$ctl" --policy hopper --state-dir "$tmp/ctl" --listen "unix:$tmp/ctl.sock" >"$tmp/ctl.out" 2>&1; then
  echo "FAIL: ebb-controller accepted hopper"; fail=1
else
  grep -q "runs copies of tasks" "$tmp/ctl.out" && echo "ok: ebb-controller refuses hopper" \
    || { echo "FAIL: ebb-controller hopper: $(cat "$tmp/ctl.out")"; fail=1; }
fi
# The slot policies report all.mean too, without speculative_copies.
"$sim" -p sparrow -n 40 -t "$tmp/p1.tr" --json | grep '"all":{"count":300,"mean":' \
  | grep -vq '"speculative_copies"' && echo "ok: all.mean for sparrow" || { echo "FAIL: sparrow all"; fail=1; }
exit $fail
