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

# mean_jct JSON: mean completion time over all jobs, from the per-class counts and means.
mean_jct () {
  awk -v sc="$(jget "$1" short count)" -v sm="$(jget "$1" short mean)" \
      -v lc="$(jget "$1" long count)" -v lm="$(jget "$1" long mean)" \
      'BEGIN { printf "%.3f\n", (sc * sm + lc * lm) / (sc + lc) }'
}

# ratio A B: A/B with 3 decimals.
ratio () { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "nan"; else printf "%.3f\n", a / b }'; }

# sim_awk_med: the awk function med(key, n), the median of V[key, 1..n] (the global array
# V filled by the caller; n >= 1), for the medians over seeds; prepend it to a program:
#   awk "$sim_awk_med"'{ ... med("x", n) ... }'
sim_awk_med='
  function med(key, n,   i, j, t, a) {
    for (i = 1; i <= n; i++) a[i] = V[key, i]
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }'
