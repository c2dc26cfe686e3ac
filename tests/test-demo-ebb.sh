#!/bin/sh
# The options scripts/demo.sh gives the ebb policy, on the demo's workload in ebb-sim (the
# policy code the controller runs): three nodes of 2000 millicores and 1 GiB filled by six
# long tasks of 1000 millicores, then five bursts of three short jobs (1000 millicores, 1.5 s)
# 3 s apart. Every short job must start on arrival, so its runtime is its 1.5 s and the launch
# round trip. Rounds of 0.05 s (D = 0.15 s) spent the suspend bound that preceded ebb's share
# before the fifth burst, whose jobs waited (doc/ebb-policy.md, "The demo"): they must start
# on arrival too now.
set -u
top=${EBB_TOP_SRCDIR:-.}
sim="${EBB_TOP_BUILDDIR:-.}/sim/ebb-sim"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
line=$(grep '^run_policy ebb ' "$top/scripts/demo.sh") || {
  echo "FAIL: no 'run_policy ebb' line in scripts/demo.sh"
  exit 1
}
# run_policy ebb --policy ebb [--policy-opt KEY=VALUE]...: ebb-sim names its options alike.
opts=$(echo "$line" | sed -e 's/^run_policy ebb --policy ebb//' -e 's/--policy-opt \([a-z-]*\)=/--\1 /g')
echo "demo's ebb options:${opts:- none}"
{
  printf '{"submit":0,"cpu_millis":1000,"memory_bytes":67108864,"durations":[1000,1000,1000,1000,1000,1000],"class":"long"}\n'
  for b in 0 1 2 3 4; do
    for s in 1 2 3; do
      printf '{"submit":%d.0%d,"cpu_millis":1000,"memory_bytes":67108864,"durations":[1.5],"class":"short"}\n' \
        $((1 + 3 * b)) "$s"
    done
  done
} >"$tmp/demo.jsonl"
# waited OPTIONS...: prints the short jobs that did not start on arrival (runtime over 1.6 s).
waited() {
  "$sim" -p ebb -n 3 --node-cpu-millis 2000 --node-memory 1G -t "$tmp/demo.jsonl" \
    --jobs-csv "$tmp/jobs.csv" "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "sim failed"; return; }
  awk -F, '$5 == "short" && $7 > 1.6 { printf "job %s (submitted at %s s) ran %s s\n", $1, $2, $7 }' \
    "$tmp/jobs.csv"
}
# shellcheck disable=SC2086 # the options are words
w=$(waited $opts)
if [ -z "$w" ]; then echo "ok: every short job started on arrival"; else echo "FAIL: under the demo's options:"; echo "$w"; fail=1; fi
w=$(waited --round-sec 0.05)
if [ -z "$w" ]; then echo "ok: rounds of 0.05 s: every short job started on arrival"; else echo "FAIL: rounds of 0.05 s:"; echo "$w"; fail=1; fi
exit $fail
