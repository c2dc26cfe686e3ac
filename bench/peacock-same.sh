#!/bin/sh
# Whether two ebb-sim builds run peacock alike: per-job output (--jobs-csv) and the JSON
# report less its timings (wall_seconds, engine_seconds, events_per_second, peak_rss_bytes)
# byte-identical on 14 runs, YH2_sub at 4,000 nodes with the options that change its paths
# (seeds, cutoff, rotation interval, threshold scale, no rotation), the Google-like trace
# of doc/peacock-fidelity.md at 200 nodes (interarrivals 11.85 and 4.74 s: offered loads of
# 5.5 and 13.7, task-seconds over nodes x span; heavy queues, many rotations; --interarrival
# so that an older build generates them too) and FB_synthetic_2000 at 1,000
# nodes. For speed work on policies/peacock.c, which must not change a result: build the
# commit before in another tree, then compare. About 1 minute of CPU per build.
# Usage: bench/peacock-same.sh OLD_SIM NEW_SIM
set -eu
[ $# -eq 2 ] || {
  echo "usage: $0 OLD_SIM NEW_SIM" >&2
  exit 2
}
old=$1 new=$2
: "${TRACES:=$(cd "$(dirname "$0")/../data" && pwd)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The Google-like trace: the classes of gen hetero's Google preset with 7 and 24 tasks.
for ia in 11.85 4.74; do
  "$old" gen hetero --class 0.9:7:175 --class 0.1:24:2700 --jobs 500 --seed 1 \
    --interarrival "$ia" -o "$work/g$ia.tr"
done
yh="-n 4000 -t $TRACES/YH2_sub.tr"
g80="-n 200 -t $work/g11.85.tr --cutoff 1000 --short-partition 17"
g200="-n 200 -t $work/g4.74.tr --cutoff 1000 --short-partition 17"
# One run a line, compared by bench/sim-same.sh (JSON less its timings, --jobs-csv).
sed 's/^/-p peacock /' >"$work/runs" <<EOF
$yh --seed 1
$yh --seed 2
$yh --seed 3 --cutoff 90.5811 --short-partition 2
$yh --cutoff 90.5811
$yh --rotation-interval 0.1
$yh --threshold-scale 0
$yh --threshold-scale 2 --rotation-interval 5
$yh --no-rotation
$g80
$g80 --seed 2
$g200
$g200 --rotation-interval 5 --threshold-scale 2
$g200 --no-rotation
-n 1000 -t $TRACES/FB_synthetic_2000.tr
EOF
sh "$(dirname "$0")/sim-same.sh" "$old" "$new" "$work/runs"
