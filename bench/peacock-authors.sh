#!/bin/sh
# Peacock and Eagle of the Peacock authors' simulator (github mansourkhelghatdoust/Peacock,
# Simulator/, Java) against ebb-sim's peacock and eagle on the same jobs and arrivals.
#
# Their simulator reads jobs from Data/ under its working directory, one line per task
# ("job_id field duration", the duration in units of 1e-7 s, truncated to whole seconds),
# and draws its own arrivals (Poisson with a mean from hard-coded Google medians) for a
# hard-coded number of jobs. This script writes an ebb-sim trace in that format and runs
# their classes through a small driver (written below, not theirs) that sets the job count
# and submits each job at its trace time instead; nothing of theirs is copied, and one cast
# is changed for Java 17 (below). Both simulators get the same jobs: task durations and
# submission times rounded to whole seconds (theirs truncates durations, and its arrivals
# are whole seconds: its per-worker sets of rotating jobs treat two jobs submitted less
# than a second apart as one and lose a probe), and their network delay of 5 ms.
#
# Usage: bench/peacock-authors.sh AUTHORS_SRC TRACE NODES [CUTOFF PARTITION [SEEDS [RUNS]]]
#   AUTHORS_SRC  their Simulator/src directory (a checkout of the repository above)
#   TRACE        an ebb-sim trace (data/YH2_sub.tr, or `ebb-sim gen` output)
#   CUTOFF, PARTITION  ebb-sim eagle's long/short cutoff and short-only partition
#                (their Eagle uses a fixed 2000 s cutoff and 20%); default 2000 20
#   SEEDS        ebb-sim seeds (default "1 2 3")
#   RUNS         runs of their simulator, which seeds itself from the clock (default 3)
#   EAGLE_ALSO="CUT PART" in the environment: ebb-sim eagle also with that cutoff and
#                partition (the trace's own, e.g. "90.5811 2" for YH2_sub)
# Prints one line per run: simulator, policy, short/long/all mean job completion time,
# where short/long is split at CUTOFF by the job's mean task duration.
# Needs javac and java (Debian: openjdk-17-jdk-headless).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/sim-lib.sh"
[ $# -ge 3 ] || {
  echo "usage: $0 AUTHORS_SRC TRACE NODES [CUTOFF PARTITION [SEEDS]]" >&2
  exit 2
}
src=$1 trace=$2 nodes=$3 cut=${4:-2000} part=${5:-20} seeds=${6:-1 2 3} reps=${7:-3}
delay=0.005
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Data" "$work/classes"

# The jobs, submission times from 0, durations in whole seconds: their task lines, their
# arrival list, and the same jobs as an ebb-sim trace.
awk -v data="$work/Data/jobs" -v arr="$work/arrivals" -v tr="$work/jobs.tr" '
  NR == 1 { t0 = $1 }
  { t = int($1 - t0 + 0.5) }
  { n = $2; s = 0; line = ""
    for (i = 4; i < 4 + n; i++) {
      d = int($i + 0.5); if (d < 1) d = 1
      s += d; line = line " " d
      printf "%d 0 %d0000000\n", NR - 1, d >data
    }
    printf "%d\n", t >arr
    printf "%d %d %.6f%s\n", t, n, s / n, line >tr }' "$trace"

cat >"$work/EbbDriver.java" <<'EOF'
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import usyd.distributed.scheduling.simulator.Configuration;
import usyd.distributed.scheduling.simulator.Job;
import usyd.distributed.scheduling.simulator.Jobs;
import usyd.distributed.scheduling.simulator.Simulation;
import usyd.distributed.scheduling.simulator.SimulationUtil;
import usyd.distributed.scheduling.simulator.Workers;
import usyd.distributed.scheduling.simulator.events.Event;
import usyd.distributed.scheduling.simulator.events.JobArrivalEvent;
import usyd.distributed.scheduling.simulator.events.Peacock.HopTaskEvent;
import usyd.distributed.scheduling.simulator.events.Peacock.PeacockJobArrivalEvent;
import usyd.distributed.scheduling.simulator.events.Peacock.PeacockWorker;
import usyd.distributed.scheduling.simulator.events.eagle.EagleCentralizedScheduler;
import usyd.distributed.scheduling.simulator.events.eagle.EagleJobArrivalEvent;
import usyd.distributed.scheduling.simulator.events.eagle.EagleWorker;
import usyd.distributed.scheduling.simulator.observers.SimulationObserver;

/* Runs their Peacock or Eagle with the job count and arrival times of the trace. */
public class EbbDriver {
  static double[] arrivals;
  static int next = 1;

  static class PArrival extends PeacockJobArrivalEvent {
    PArrival(double t) { super(t, 0); }
    @Override protected JobArrivalEvent getJobArrivalEvent() { return new PArrival(arrivals[next++]); }
  }

  static class EArrival extends EagleJobArrivalEvent {
    EArrival(double t) { super(t, 0); }
    @Override protected JobArrivalEvent getJobArrivalEvent() { return new EArrival(arrivals[next++]); }
  }

  public static void main(String[] a) throws Exception {
    boolean peacock = a[0].equals("peacock");
    arrivals = Files.readAllLines(Paths.get("arrivals")).stream().mapToDouble(Double::parseDouble).toArray();
    Configuration.googleNumberOfJobs = arrivals.length;
    Configuration.setUP(Integer.parseInt(a[1]), 1, Double.parseDouble(a[2]), 1.0,
        peacock ? PeacockJobArrivalEvent.class : EagleJobArrivalEvent.class);
    PrintStream out = System.out;
    System.setOut(new PrintStream(OutputStream.nullOutputStream())); /* a line per job done */
    SimulationObserver.simulationStarted();
    if (peacock) {
      PeacockWorker.setWorkers();
      Simulation.addEvent(new PArrival(arrivals[0]));
      Simulation.addEvent(new HopTaskEvent(0));
    } else {
      EagleWorker.setWorkers();
      EagleCentralizedScheduler.initialize();
      Simulation.addEvent(new EArrival(arrivals[0]));
    }
    /* Simulation.run(), without its own arrivals. */
    for (Event e = Simulation.getEvent(); e != null; e = Simulation.getEvent()) {
      SimulationUtil.setCurrentTime(e.getTime());
      e.run();
    }
    if (!peacock) {
      /* Workers their Eagle still counts as holding long work, with nothing left to run. */
      java.lang.reflect.Field f = EagleWorker.class.getDeclaredField("hasLongJob");
      f.setAccessible(true);
      int marked = 0, sum = 0;
      for (usyd.distributed.scheduling.simulator.Worker w : Workers.getWorkers()) {
        marked += f.getInt(w) > 0 ? 1 : 0;
        sum += f.getInt(w);
      }
      System.err.println("# their eagle, at the end: " + marked + " workers marked as holding long work (sum "
          + sum + ")");
    }
    for (Job j : Jobs.getJobs().values())
      out.println(j.getJobId() + " " + j.getNumTasks() + " " + j.getAvgExecutionTime() + " "
          + (j.isCompleted() ? j.getEndTime() - j.getStartTime() : -1));
    out.flush();
    System.exit(0);
  }
}
EOF
# Their code casts Arrays.asList(Integer[]).toArray() to Integer[], which holds up to Java 8
# only (an Object[] since Java 9): compile a copy with the array typed as Java 8 gave it.
cp -R "$src" "$work/src"
find "$work/src" -name '*.java' -exec sed -i \
  's/(Integer\[\]) listWorkers\.toArray()/listWorkers.toArray(new Integer[0])/' {} +
# shellcheck disable=SC2046
javac -nowarn -d "$work/classes" $(find "$work/src" -name '*.java') "$work/EbbDriver.java" 2>/dev/null

# summary: "short long all" mean JCT from "job_id jct" lines, short/long by the job's mean
# task duration in jobs.tr against the cutoff; jobs left unfinished (jct < 0) are counted.
summary () {
  awk -v c="$cut" 'NR == FNR { mean[FNR - 1] = $3; next }
    $2 < 0 { miss++; next }
    { if (mean[$1] >= c) { ln++; ls += $2 } else { sn++; ss += $2 }; an++; as += $2 }
    END { printf "%.1f %.1f %.1f jobs=%d unfinished=%d\n", sn ? ss / sn : 0, ln ? ls / ln : 0,
          an ? as / an : 0, an, miss }' "$work/jobs.tr" -
}
echo "# $(basename "$trace"), $nodes nodes, delay $delay s, whole-second durations; short/long at $cut s"
echo "# simulator policy seed short_mean long_mean all_mean"
for p in peacock eagle; do
  r=0
  while [ $r -lt "$reps" ]; do
    r=$((r + 1))
    (cd "$work" && java -cp classes EbbDriver "$p" "$nodes" "$delay") >"$work/out"
    echo "authors $p run$r $(awk '{ print $1, $4 }' "$work/out" | summary)"
  done
done
ebb () { # ebb POLICY LABEL CUTOFF PARTITION
  for s in $seeds; do
    "$SIM" -p "$1" -n "$nodes" -t "$work/jobs.tr" --cutoff "$3" --short-partition "$4" \
      --net-delay "$delay" --seed "$s" --jobs-csv "$work/jobs.csv" >/dev/null
    echo "ebb-sim $2 seed$s $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) f[$i] = i; next }
      { print $f["job"], $f["runtime"] }' "$work/jobs.csv" | summary)"
  done
}
ebb peacock peacock "$cut" "$part"
ebb eagle eagle "$cut" "$part"
if [ -n "${EAGLE_ALSO:-}" ]; then
  # shellcheck disable=SC2086
  set -- $EAGLE_ALSO
  ebb eagle "eagle-cutoff-$1" "$1" "$2"
fi
