#!/bin/sh
# Issue 21's steady stream in ebb-sim (the policy code the controller runs): 2 nodes of 1000
# millicores, 2 long burners filling them (120 s of work each), then 60 short jobs of 1000
# millicores, 1 s each, one every 3 s (data/stream-2x1000.jsonl). Every short job must start
# on arrival (start delay p99 <= 0.2 s, the latency tests' bar), and each long task must keep
# at least half its CPU time (work / runtime >= 0.5), the least at least half the most. Under
# the suspension count ebb had before its share (2 per task per 600 s), 4 short jobs started
# and the rest queued until a long task ended.
#
# Then a workload that would thrash: short jobs of 0.3 s every 0.3 s (as much short work as
# one of the two nodes) for 600 s, with a share window of 60 s. The share bounds it: each long
# task keeps at least half its time (the short jobs beyond that wait), and there is at most
# one suspension per short job.
set -u
top=${EBB_TOP_SRCDIR:-.}
sim="${EBB_TOP_BUILDDIR:-.}/sim/ebb-sim"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# run TRACE OPTIONS...: runs ebb on the 2 nodes, the jobs' lines in $tmp/jobs.csv.
run() {
  trace=$1
  shift
  "$sim" -p ebb -n 2 --node-cpu-millis 1000 --node-memory 2G -t "$trace" \
    --jobs-csv "$tmp/jobs.csv" --json "$@" >"$tmp/out.json" 2>"$tmp/err" || {
    cat "$tmp/err"
    echo "FAIL: ebb-sim failed"
    exit 1
  }
}

# check NAME MAX_P99: prints the figures and checks them (short start delay = runtime - work;
# long share = work / runtime).
check() {
  awk -F, 'NR > 1 && $5 == "short" { print $7 - $4 }' "$tmp/jobs.csv" | sort -g >"$tmp/delays"
  awk -F, 'NR > 1 && $5 == "long" { print $4 / $7 }' "$tmp/jobs.csv" >"$tmp/shares"
  awk -v name="$1" -v maxp99="$2" -v shares="$tmp/shares" '
    { d[NR] = $1; started += $1 < 0.2 }
    END {
      n = NR
      p99 = d[int(n * 0.99 + 0.999999)]
      printf "%s: %d short jobs, %d started within 0.2 s, start delay p50 %.3f s p99 %.3f s\n", name, n, started, d[int(n * 0.5 + 0.5)], p99
      nl = 0
      while ((getline s < shares) > 0) {
        nl++
        printf "%s: long task %d keeps %.3f of its CPU time\n", name, nl, s
        if (nl == 1 || s < lo) lo = s
        if (nl == 1 || s > hi) hi = s
      }
      printf "%s: min/max %.3f\n", name, lo / hi
      bad = nl != 2
      if (p99 > maxp99) { printf "FAIL: %s: start delay p99 %.3f s over %s s\n", name, p99, maxp99; bad = 1 }
      if (lo < 0.5) { printf "FAIL: %s: a long task kept %.3f < 0.5\n", name, lo; bad = 1 }
      if (lo / hi < 0.5) { printf "FAIL: %s: min/max %.3f < 0.5\n", name, lo / hi; bad = 1 }
      exit bad
    }' "$tmp/delays"
}

run "$top/data/stream-2x1000.jsonl"
check stream 0.2 || fail=1

{
  printf '{"submit":0,"cpu_millis":1000,"memory_bytes":536870912,"durations":[250],"class":"long"}\n'
  printf '{"submit":0,"cpu_millis":1000,"memory_bytes":536870912,"durations":[250],"class":"long"}\n'
  awk 'BEGIN { for (i = 1; i <= 2000; i++) printf "{\"submit\":%.1f,\"cpu_millis\":1000,\"memory_bytes\":67108864,\"durations\":[0.3],\"class\":\"short\"}\n", 0.3 * i }'
} >"$tmp/thrash.jsonl"
run "$tmp/thrash.jsonl" --share-window 60
# The short jobs beyond the long tasks' share wait: no bar on their delay here.
check thrash 1e9 || fail=1
susp=$(sed -n 's/.*"suspends": *\([0-9]*\).*/\1/p' "$tmp/out.json")
echo "thrash: $susp suspensions for 2000 short jobs"
if [ -z "$susp" ] || [ "$susp" -gt 2000 ]; then
  echo "FAIL: thrash: more than one suspension per short job"
  fail=1
fi
exit $fail
