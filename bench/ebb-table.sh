#!/bin/sh
# The ebb policy against fifo, sparrow, hawk and BIG-C gp (the paper's: --no-arrival-preempt): medians over seeds 1-5 of the
# short and long job runtimes, on YH2_sub.tr at 4000 and 5000 nodes (Hawk's cutoff
# 90.5811 s, 2% short partition) and on a generated resource trace (`ebb-sim gen
# bigc-google`, BIG-C's Google replay: one trace per seed, 26 nodes of 32 CPU / 128 GiB). Checks of the ebb policy (doc/ebb-policy.md):
#   short p90 <= 1.2 x short.bound_p90 (zero-wait runtime), long p50 <= 1.10 x hawk's,
#   no long job failed.
# A policy or generator this ebb-sim does not have is reported as missing (a row with
# "missing"), never as a pass. The ratio against Hawk is computed in the same run.
# Usage: bench/ebb-table.sh [OUT.csv]   (SIM=path/to/ebb-sim, TRACES=dir with YH2_sub.tr,
# default: data/ of the source tree)
set -eu
: "${TRACES:=$(dirname "$0")/../data}"
. "$(dirname "$0")/sim-lib.sh"
out=${1:-ebb-table.csv}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
have_policy () { "$SIM" --list-policies 2>/dev/null | grep -q "^$1\b"; }

# median of the arguments
median () { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# row TRACE-NAME NODES POLICY ARGS...: runs seeds 1-5, appends the medians to the CSV and
# sets the shell variables s90 b90 l50 failed of the row.
row () {
  name=$1 n=$2 p=$3; shift 3
  s50s= s90s= b90s= l50s= l90s= fails= sus=
  for seed in 1 2 3 4 5; do
    # @SEED@ in an argument: the per-seed generated trace
    # shellcheck disable=SC2046
    j=$("$SIM" --policy "$p" --nodes "$n" --json --seed "$seed" $(printf '%s\n' "$@" | sed "s/@SEED@/$seed/g"))
    s50s="$s50s $(jget "$j" short p50)"; s90s="$s90s $(jget "$j" short p90)"
    b90s="$b90s $(jget "$j" short bound_p90)"; l50s="$l50s $(jget "$j" long p50)"
    l90s="$l90s $(jget "$j" long p90)"
    # Failed jobs: counted in resource mode only; a slot policy cannot fail a job.
    f=$(jget "$j" "" failed_jobs)
    [ -z "$f" ] && case $p in fifo | sparrow | hawk) f=0 ;; *) f=unknown ;; esac
    fails="$fails $f"
    sus="$sus $(jget "$j" "" suspends)"
  done
  # shellcheck disable=SC2086
  s50=$(median $s50s) s90=$(median $s90s) b90=$(median $b90s) l50=$(median $l50s) l90=$(median $l90s)
  # shellcheck disable=SC2086
  case $fails in *unknown*) failed=unknown ;; *) failed=$(printf '%s\n' $fails | sort -g | tail -1) ;; esac
  # shellcheck disable=SC2086
  suspends=$( [ -n "$(echo $sus)" ] && median $sus || echo 0)
  echo "$name,$n,$p,$s50,$s90,$b90,$l50,$l90,$failed,$suspends" >>"$out"
}

missing () { echo "$1,$2,$3,missing,missing,missing,missing,missing,missing,missing" >>"$out"; }

verdict () { # verdict COND TEXT (a figure the run did not report is a failure)
  case $1 in *unknown* | *missing*) echo "FAIL $2 (not reported)"; status=1; return ;; esac
  if awk "BEGIN { exit !($1) }"; then echo "PASS $2"; else echo "FAIL $2"; status=1; fi
}

status=0
echo "trace,nodes,policy,short_p50,short_p90,short_bound_p90,long_p50,long_p90,failed_jobs_max,suspends" >"$out"
yh2=$TRACES/YH2_sub.tr
for n in 4000 5000; do
  for p in fifo sparrow hawk bigc ebb; do
    if ! have_policy "$p"; then missing YH2_sub "$n" "$p"; continue; fi
    set -- --trace "$yh2" --cutoff 90.5811 --short-partition 2
    # BIG-C as its paper has it: preemption in the rounds only (not ebb-sim's default
    # arrival pass; bench/sim-bigc.sh does the same).
    [ "$p" = bigc ] && set -- "$@" --mode gp --no-arrival-preempt
    if [ "$p" = bigc ] && ! "$SIM" --policy bigc --nodes "$n" --json "$@" >/dev/null 2>&1; then
      missing YH2_sub "$n" "$p"; continue
    fi
    row YH2_sub "$n" "$p" "$@"
    case $p in
      hawk) hawk_l50=$l50 ;;
      ebb)
        verdict "$s90 <= 1.2 * $b90" "YH2_sub $n nodes: ebb short p90 $s90 <= 1.2 x bound $b90 ($(ratio "$s90" "$b90"))"
        verdict "$l50 <= 1.10 * $hawk_l50" "YH2_sub $n nodes: ebb long p50 $l50 <= 1.10 x hawk $hawk_l50 ($(ratio "$l50" "$hawk_l50"))"
        verdict "$failed == 0" "YH2_sub $n nodes: no long job failed under ebb"
        ;;
    esac
  done
done
# The generated resource trace: BIG-C's Google replay (26 nodes of 32 CPU / 128 GiB).
gen_ok=1
for seed in 1 2 3 4 5; do
  "$SIM" gen bigc-google --seed "$seed" -o "$work/google-$seed.jsonl" 2>/dev/null || gen_ok=0
done
if [ $gen_ok = 1 ]; then
  for p in bigc ebb; do
    if ! have_policy "$p"; then missing bigc-google 26 "$p"; continue; fi
    set -- --trace "$work/google-@SEED@.jsonl" --node-cpu-millis 32000 --node-memory 128G
    [ "$p" = bigc ] && set -- "$@" --mode gp --no-arrival-preempt
    row bigc-google 26 "$p" "$@"
    [ "$p" = ebb ] && verdict "$s90 <= 1.2 * $b90" "bigc-google: ebb short p90 $s90 <= 1.2 x bound $b90"
    [ "$p" = ebb ] && verdict "$failed == 0" "bigc-google: no long job failed under ebb"
  done
else
  echo "MISSING this ebb-sim has no 'gen bigc-google': the resource-trace rows are not measured"
  missing bigc-google 26 bigc
  missing bigc-google 26 ebb
  status=1
fi
cat "$out"
exit $status
