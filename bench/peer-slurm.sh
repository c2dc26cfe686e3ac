#!/bin/bash
# ebb side by side with Slurm's suspend preemption, in one run on this machine
# (doc/peer-slurm.md reads it). Root; Debian 12.
#
#   bash bench/peer-slurm.sh            (make bench-peer-slurm)
#
# The same workload goes through five set-ups, one after the other, each on a fresh cluster of
# 2 nodes of 2 CPUs:
#   slurm-sbatch          Slurm (Debian's slurm-wlm), PreemptType=preempt/partition_prio,
#                         PreemptMode=SUSPEND,GANG: a "short" partition of a higher
#                         PriorityTier suspends jobs of the "long" one; jobs sent with sbatch
#   slurm-sbatch-nodelay  the same with SchedulerParameters=batch_sched_delay=0
#   slurm-srun            the same, short jobs sent with srun (interactive: no batch delay)
#   ebb                   ebb-controller --policy ebb, 2 ebb-agents of 2000 millicores
#   bigc-gp               ebb-controller --policy bigc (graceful preemption), the same agents
# Workload (environment, defaults in brackets): PEER_LONG [4] long jobs of one CPU, each holding
# PEER_LONG_MIB [200] MiB and spinning for ever, fill the cluster; then PEER_SHORT [60] short
# jobs of one CPU and PEER_SHORT_SEC [1] s of CPU work, PEER_GAP [3] s apart. PEER_QUICK=1: 10
# short jobs. PEER_RUNS picks set-ups (a space-separated list of the names above).
#
# Every task is bench/peer-task, the same program under both: a short job's first act writes
# the wall clock to a file; its start delay is that time minus the time taken just before its
# submit command (sbatch, srun or ebbctl submit) was run, so both pay their client's start. A
# long job reports its spin rounds (its work) and its PID every 100 ms.
#
# Printed per set-up: short jobs started (a stamp within 60 s of the stream's end), start delay
# p50/p90/p99/max (nearest rank, ms), suspensions and resumptions of long jobs (Slurm: its gang
# log, DebugFlags=Gang; ebb: the decision log), each long job's work as a share of the most
# advanced one's (min and list), the largest resident memory of a long job seen while it was
# suspended (sampled every 0.5 s from /proc), and the 1-minute load average at the end; then
# ebb's and bigc's p50 and p99 as ratios of each Slurm set-up's.
#
# It installs slurm-wlm and munge when they are missing, runs every daemon from a temporary
# directory (its own munged socket and key, its own ports, no system configuration touched),
# stops what it started by PID and removes the directory: nothing is left behind. Use a build
# without --enable-sanitizers (EBB_TOP_BUILDDIR) for the figures.
set -u
: "${EBB_TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${EBB_TOP_BUILDDIR:=$EBB_TOP_SRCDIR/build}"
export EBB_TOP_SRCDIR EBB_TOP_BUILDDIR
NLONG=${PEER_LONG:-4} MIB=${PEER_LONG_MIB:-200} SSEC=${PEER_SHORT_SEC:-1} GAP=${PEER_GAP:-3}
NSHORT=${PEER_SHORT:-60}
[ "${PEER_QUICK:-0}" = 1 ] && NSHORT=10
RUNS=${PEER_RUNS:-slurm-sbatch slurm-sbatch-nodelay slurm-srun ebb bigc-gp}
TASK=$EBB_TOP_BUILDDIR/bench/peer-task
EBBCTL=$EBB_TOP_BUILDDIR/ebbctl
now () { date +%s.%N; }

# --- what every set-up does, given its submit_long, submit_short, long_running,
# suspended_longs and preempt_counts ------------------------------------------------------------
# drive OUT: fills the cluster, sends the stream, writes OUT/delays (ms per started short job),
# OUT/summary (started suspends resumes work-list rss-mib load).
drive () {
  local o=$1 i t0 t f pid rss
  mkdir -p "$o/files" && chmod 1777 "$o/files"
  for i in $(seq 1 "$NLONG"); do submit_long "$i" "$o/files/long$i" || return 1; done
  t0=$(date +%s)
  until [ "$(long_running)" -ge "$NLONG" ]; do
    [ $(($(date +%s) - t0)) -lt 60 ] || { echo "$RUN: the long jobs did not all start"; return 1; }
    sleep 0.2
  done
  sleep 2 # every long job past its start-up
  : >"$o/rss"
  ( # the sampler: resident memory of each long job while it is suspended
    while :; do
      for i in $(suspended_longs); do
        pid=$(cut -d' ' -f1 "$o/files/long$i" 2>/dev/null) || continue
        rss=$(awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$pid/status" 2>/dev/null)
        [ -n "$rss" ] && echo "$rss" >>"$o/rss"
      done
      sleep 0.5
    done
  ) &
  local sampler=$!
  t0=$(now)
  for i in $(seq 1 "$NSHORT"); do
    t=$(now)
    echo "$i $t" >>"$o/submits"
    submit_short "$i" "$o/files/short$i"
    sleep "$(awk -v t0="$t0" -v i="$i" -v g="$GAP" -v n="$(now)" 'BEGIN { w = t0 + i * g - n; printf "%.3f", (w > 0 ? w : 0) }')"
  done
  # Short jobs still queued get 60 s more to start.
  t=$(date +%s)
  while [ "$(ls "$o/files" | grep -c '^short[0-9]*$')" -lt "$NSHORT" ] && [ $(($(date +%s) - t)) -lt 60 ]; do
    sleep 0.5
  done
  sleep "$SSEC"
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  read -r sus res < <(preempt_counts)
  while read -r i t; do
    f=$o/files/short$i
    [ -s "$f" ] && awk -v a="$t" '{ printf "%.1f\n", ($1 - a) * 1000 }' "$f"
  done <"$o/submits" >"$o/delays"
  local work
  work=$(for i in $(seq 1 "$NLONG"); do cut -d' ' -f2 "$o/files/long$i" 2>/dev/null || echo 0; done | tr '\n' ' ')
  echo "$(wc -l <"$o/delays") $sus $res $(sort -n "$o/rss" | tail -1 | grep . || echo -)" \
    "$(cut -d' ' -f1 /proc/loadavg) $work" >"$o/summary"
}

# Ends the long jobs' processes that are still alive (their PIDs are in their files).
end_longs () {
  local f pid
  for f in "$1"/files/long*; do
    [ -f "$f" ] || continue
    pid=$(cut -d' ' -f1 "$f")
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
  done
}

# --- Slurm ----------------------------------------------------------------------------------
slurm_run () {
  local o=$1 mode=$2 d p
  d=$(mktemp -d /tmp/ebb-peer-slurm.XXXXXX) || return 1
  chmod 755 "$d"
  SLURM_DIR=$d
  trap 'slurm_down' EXIT
  p=$((20000 + RANDOM % 30000))
  dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$d/munge.key"
  munged -f --socket="$d/munge.sock" --key-file="$d/munge.key" --pid-file="$d/munged.pid" \
    --log-file="$d/munged.log" --seed-file="$d/munged.seed" || { echo "munged did not start"; return 1; }
  local delay=
  [ "$mode" = nodelay ] && delay="SchedulerParameters=batch_sched_delay=0"
  mkdir -p "$d/state"
  cat >"$d/slurm.conf" <<EOF
ClusterName=ebbpeer
SlurmctldHost=localhost
SlurmctldPort=$p
SlurmdPort=$((p + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge.sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool-%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
PreemptType=preempt/partition_prio
PreemptMode=SUSPEND,GANG
SlurmdParameters=config_overrides
DebugFlags=Gang
$delay
NodeName=n1 NodeHostname=localhost Port=$((p + 2)) CPUs=2 RealMemory=2000 State=UNKNOWN
NodeName=n2 NodeHostname=localhost Port=$((p + 3)) CPUs=2 RealMemory=2000 State=UNKNOWN
PartitionName=long Nodes=n1,n2 Default=YES PriorityTier=1 OverSubscribe=FORCE:1 PreemptMode=SUSPEND State=UP MaxTime=INFINITE
PartitionName=short Nodes=n1,n2 PriorityTier=2 OverSubscribe=FORCE:1 PreemptMode=OFF State=UP MaxTime=INFINITE
EOF
  cp "$d/slurm.conf" "$o/slurm.conf"
  export SLURM_CONF=$d/slurm.conf
  slurmctld -f "$SLURM_CONF" -i || { echo "slurmctld did not start"; return 1; }
  slurmd -f "$SLURM_CONF" -N n1 && slurmd -f "$SLURM_CONF" -N n2 || { echo "slurmd did not start"; return 1; }
  local t0=$(date +%s)
  until [ "$(sinfo -h -o '%t %D' 2>/dev/null | awk '$1 == "idle" { n += $2 } END { print n + 0 }')" -ge 2 ]; do
    [ $(($(date +%s) - t0)) -lt 60 ] || { echo "the Slurm nodes did not come up"; return 1; }
    sleep 0.5
  done
  submit_long () { sbatch -Q -p long -n1 -J "l$1" -o /dev/null --wrap "exec $TASK long $2 $MIB"; }
  if [ "$mode" = srun ]; then
    submit_short () { srun -Q -p short -n1 -J "s$1" "$TASK" short "$2" "$SSEC" >/dev/null 2>&1 & }
  else
    submit_short () { sbatch -Q -p short -n1 -J "s$1" -o /dev/null --wrap "exec $TASK short $2 $SSEC"; }
  fi
  long_running () { squeue -h -p long -t R -o %i 2>/dev/null | wc -l; }
  suspended_longs () { squeue -h -p long -t S -o %j 2>/dev/null | sed 's/^l//'; }
  preempt_counts () {
    echo "$(grep -c 'gang: suspending JobId' "$SLURM_DIR/slurmctld.log")" \
      "$(grep -c 'gang: resuming JobId' "$SLURM_DIR/slurmctld.log")"
  }
  drive "$o"
}

slurm_down () {
  local d=$SLURM_DIR f t
  scancel --full -u root >/dev/null 2>&1
  t=$(date +%s)
  while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $(($(date +%s) - t)) -lt 15 ]; do sleep 0.5; done
  wait 2>/dev/null # the srun clients
  end_longs "$PEER_OUT"
  for f in "$d"/slurmd-*.pid "$d/slurmctld.pid" "$d/munged.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  sleep 1
  for f in "$d"/slurmd-*.pid "$d/slurmctld.pid" "$d/munged.pid"; do
    [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null
  done
  cp "$d/slurmctld.log" "$PEER_OUT/" 2>/dev/null
  rm -rf "$d"
}

# --- ebb ------------------------------------------------------------------------------------
ebb_run () {
  local o=$1
  shift
  . "$EBB_TOP_SRCDIR/tests/controller/lib.sh"
  setup_cgroups
  trap 'end_longs "$PEER_OUT"; cp "$CLOG" "$PEER_OUT/"; ctl_cleanup' EXIT
  start_controller --node-timeout 30s "$@" || { echo "the controller did not start"; return 1; }
  start_node 1 && start_node 2
  wait_for 20 '[.nodes[] | select(.state == "ready")] | length == 2' /v1/nodes || { echo "the nodes did not come up"; return 1; }
  LONG_IDS=
  submit_long () {
    local id
    id=$("$EBBCTL" --controller "unix:$CSOCK" --json submit --class long --cpu 1000 --memory 256M \
      --name "l$1" -- "$TASK" long "$2" "$MIB" | jq -r .id) || return 1
    LONG_IDS="$LONG_IDS $1:$id"
  }
  submit_short () {
    "$EBBCTL" --controller "unix:$CSOCK" submit --class short --cpu 1000 --memory 64M \
      --name "s$1" -- "$TASK" short "$2" "$SSEC" >/dev/null
  }
  long_state () { # prints "K STATE" per long job K
    local kv
    for kv in $LONG_IDS; do # not capi: the sampler runs this beside the stream
      echo "${kv%%:*} $(curl -s --unix-socket "$CSOCK" "http://c/v1/jobs/${kv#*:}" | jq -r '.tasks[0].state')"
    done
  }
  long_running () { long_state | grep -c ' running$'; }
  suspended_longs () { long_state | awk '$2 == "suspended" { print $1 }'; }
  preempt_counts () {
    capi GET "/v1/decisions?since=0"
    cp "$TMP/body" "$PEER_OUT/decisions.json"
    echo "$(jq '[.decisions[] | select(.action == "suspend")] | length' "$TMP/body")" \
      "$(jq '[.decisions[] | select(.action == "resume")] | length' "$TMP/body")"
  }
  drive "$o"
}

# --- one set-up, in a process of its own (PEER_INNER=NAME, PEER_OUT=DIR) ---------------------
if [ -n "${PEER_INNER:-}" ]; then
  RUN=$PEER_INNER
  case $RUN in
  slurm-sbatch) slurm_run "$PEER_OUT" default ;;
  slurm-sbatch-nodelay) slurm_run "$PEER_OUT" nodelay ;;
  slurm-srun) slurm_run "$PEER_OUT" srun ;;
  ebb) ebb_run "$PEER_OUT" --policy ebb ;;
  bigc-gp) ebb_run "$PEER_OUT" --policy bigc --policy-opt mode=gp --policy-opt round-sec=0.05 ;;
  *) echo "peer-slurm: unknown set-up '$RUN'" >&2; exit 2 ;;
  esac
  exit $?
fi

# --- the whole comparison -------------------------------------------------------------------
[ "$(id -u)" = 0 ] || { echo "peer-slurm: run as root" >&2; exit 1; }
for f in "$TASK" "$EBBCTL" "$EBB_TOP_BUILDDIR/ebb-controller" "$EBB_TOP_BUILDDIR/ebb-agent"; do
  [ -x "$f" ] || { echo "peer-slurm: no $f (build first: make)" >&2; exit 1; }
done
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "peer-slurm: installing slurm-wlm and munge from Debian"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null ||
    { echo "peer-slurm: cannot install slurm-wlm" >&2; exit 1; }
fi
W=$(mktemp -d /tmp/ebb-peer.XXXXXX) || exit 1
chmod 755 "$W"
# PEER_KEEP=DIR keeps every set-up's files (delays, Slurm's configuration and log) there.
trap '[ -n "${PEER_KEEP:-}" ] && cp -r "$W/." "$PEER_KEEP"; rm -rf "$W"' EXIT
echo "peer-slurm: $NLONG long jobs of 1 CPU and $MIB MiB on 2 nodes of 2 CPUs, then $NSHORT short" \
  "jobs of $SSEC s, $GAP s apart; load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $RUNS; do
  mkdir -p "$W/$r"
  echo "peer-slurm: $r ..."
  PEER_INNER=$r PEER_OUT=$W/$r bash "$0" >"$W/$r/log" 2>&1 || { echo "peer-slurm: $r failed:"; tail -20 "$W/$r/log"; }
done

# pct Q: the Q-th percentile (nearest rank) of the numbers on stdin, "-" when none.
pct () { sort -g | awk -v q="$1" '{ a[NR] = $1 } END { if (!NR) { print "-"; exit } i = int(NR * q / 100); if (i < NR * q / 100) i++; if (i < 1) i = 1; print a[i] }'; }
printf '\n%-21s %8s %7s %7s %7s %7s %5s %5s %9s %-24s %8s %5s\n' set-up started p50 p90 p99 max susp res \
  "work min" "work of each long job" "susp RSS" load
printf '%-21s %8s %7s %7s %7s %7s %5s %5s %9s %-24s %8s %5s\n' "" "" ms ms ms ms "" "" "/ max" "(% of the max)" MiB 1-min
for r in $RUNS; do
  s=$W/$r/summary
  [ -s "$s" ] || { printf '%-21s failed (see PEER_KEEP)\n' "$r"; continue; }
  read -r started sus res rss load work <"$s"
  shares=$(echo "$work" | tr ' ' '\n' | grep . | awk '{ w[NR] = $1; if ($1 > m) m = $1 } END { for (i = 1; i <= NR; i++) printf "%s%d", (i > 1 ? " " : ""), m ? 100 * w[i] / m : 0 }')
  wmin=$(echo "$shares" | tr ' ' '\n' | sort -n | head -1)
  for q in 50 90 99 100; do eval "p$q=\$(pct $q <\"$W/$r/delays\")"; done
  printf '%-21s %8s %7s %7s %7s %7s %5s %5s %8s%% %-24s %8s %5s\n' "$r" "$started/$NSHORT" "$p50" "$p90" "$p99" \
    "$p100" "$sus" "$res" "$wmin" "$shares" "$rss" "$load"
  echo "$p50 $p99" >"$W/$r/p"
done
echo
for e in ebb bigc-gp; do
  [ -s "$W/$e/p" ] || continue
  read -r ep50 ep99 <"$W/$e/p"
  for s in slurm-sbatch slurm-sbatch-nodelay slurm-srun; do
    [ -s "$W/$s/p" ] || continue
    read -r sp50 sp99 <"$W/$s/p"
    awk -v e="$e" -v s="$s" -v a="$ep50" -v b="$sp50" -v c="$ep99" -v d="$sp99" \
      'BEGIN { printf "%s / %s: p50 %.3f, p99 %.3f\n", e, s, a / b, c / d }'
  done
done
