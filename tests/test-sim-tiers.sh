#!/bin/sh
# Priority tiers in ebb-sim's JSON-lines traces ("priority", issue 23): on one node of 2000
# millicores filled by a tier-0 long job (2 tasks of 100 s), a tier-1 long job of 10 s
# arriving at 10 s suspends one of them and finishes by 21 s; without its priority it waits
# for the node until 100 s; so under bigc. A policy without tiers refuses such a trace.
set -u
sim="${EBB_TOP_BUILDDIR:-.}/sim/ebb-sim"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
cat >"$tmp/t1.jsonl" <<'X'
{"submit":0,"cpu_millis":1000,"memory_bytes":67108864,"durations":[100,100],"class":"long"}
{"submit":10,"cpu_millis":990,"memory_bytes":67108864,"durations":[10],"class":"long","priority":1}
X
sed 's/,"priority":1//' "$tmp/t1.jsonl" >"$tmp/t0.jsonl"
# finish TRACE: the tier-1 job's finish time (s).
finish () {
  "$sim" --policy ebb --nodes 1 --node-cpu-millis 2000 --node-memory 2G --short-partition 0 \
    --trace "$1" --jobs-csv "$tmp/jobs.csv" >/dev/null || { echo "FAIL: ebb-sim on $1"; fail=1; }
  awk -F, '$1 == 1 { print $6 }' "$tmp/jobs.csv"
}
f1=$(finish "$tmp/t1.jsonl") f0=$(finish "$tmp/t0.jsonl")
awk -v f="$f1" 'BEGIN { exit !(f != "" && f <= 21) }' && echo "ok: tier 1 finishes at $f1 s over tier 0" ||
  { echo "FAIL: tier 1 finished at ${f1:-?} s"; fail=1; }
awk -v f="$f0" 'BEGIN { exit !(f != "" && f >= 100) }' && echo "ok: without the priority it waits (finishes at $f0 s)" ||
  { echo "FAIL: tier 0 second job finished at ${f0:-?} s"; fail=1; }
# bigc has tiers too (its rounds and arrivals: the tier-1 job suspends a tier-0 container
# whole, in every preemptive mode), and waits for the node without the priority.
for m in kill ip gp; do
  "$sim" --policy bigc --mode "$m" --nodes 1 --node-cpu-millis 2000 --node-memory 2G \
    --trace "$tmp/t1.jsonl" --jobs-csv "$tmp/jobs.csv" >/dev/null || { echo "FAIL: bigc $m"; fail=1; }
  b1=$(awk -F, '$1 == 1 { print $6 }' "$tmp/jobs.csv")
  "$sim" --policy bigc --mode "$m" --nodes 1 --node-cpu-millis 2000 --node-memory 2G \
    --trace "$tmp/t0.jsonl" --jobs-csv "$tmp/jobs.csv" >/dev/null || { echo "FAIL: bigc $m"; fail=1; }
  b0=$(awk -F, '$1 == 1 { print $6 }' "$tmp/jobs.csv")
  awk -v a="$b1" -v b="$b0" 'BEGIN { exit !(a != "" && a <= 21 && b != "" && b >= 100) }' &&
    echo "ok: bigc $m: tier 1 finishes at $b1 s, without the priority at $b0 s" ||
    { echo "FAIL: bigc $m: tier 1 at ${b1:-?} s, without at ${b0:-?} s"; fail=1; }
done
if "$sim" --policy graphene --nodes 1 --node-cpu-millis 2000 --node-memory 2G --trace "$tmp/t1.jsonl" \
  >/dev/null 2>"$tmp/err"; then
  echo "FAIL: graphene ran a trace with priorities"; fail=1
else
  grep -q "no priority tiers" "$tmp/err" && echo "ok: graphene refuses it: $(cat "$tmp/err")" ||
    { echo "FAIL: graphene: $(cat "$tmp/err")"; fail=1; }
fi
"$sim" --policy ebb --nodes 1 --node-cpu-millis 2000 --node-memory 2G \
  --trace "$tmp/t1.jsonl" --json >/dev/null 2>&1 || { echo "FAIL: --json"; fail=1; }
printf '{"submit":0,"cpu_millis":1,"memory_bytes":0,"durations":[1],"priority":1.5}\n' >"$tmp/bad.jsonl"
"$sim" --policy ebb --nodes 1 --node-cpu-millis 2000 --node-memory 2G --trace "$tmp/bad.jsonl" \
  >/dev/null 2>&1 && { echo "FAIL: a priority of 1.5 was taken"; fail=1; } || echo "ok: priority must be an integer"
exit $fail
