# Helpers shared by the ebb-sim benchmarks (sourced, not run).
# SIM: the ebb-sim binary; TRACES: the directory with YH2_sub.tr and FB_synthetic_2000.tr.
: "${SIM:=./sim/ebb-sim}"
: "${TRACES:=$(cd "$(dirname "$0")/../data" && pwd)}"

# jget JSON CLASS FIELD: a field of the "short" or "long" object; jget JSON "" KEY: top level.
jget () {
  if [ -n "$2" ]; then
    printf '%s\n' "$1" | sed -n "s/.*\"$2\":{[^}]*\"$3\":\([-0-9.e+]*\).*/\1/p"
  else
    printf '%s\n' "$1" | sed -n "s/.*\"$3\":\([-0-9.e+]*\).*/\1/p"
  fi
}

# run_sim POLICY NODES TRACE CUTOFF [OPTIONS...]: prints the JSON line.
run_sim () {
  p=$1 n=$2 tr=$3 c=$4; shift 4
  "$SIM" --policy "$p" --nodes "$n" --trace "$tr" --cutoff "$c" --short-partition 2 --json "$@"
}

# ratio A B: A/B with 3 decimals.
ratio () { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.3f\n", a / b }'; }
