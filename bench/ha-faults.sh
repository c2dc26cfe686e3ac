#!/bin/sh
# bench/ha-faults.sh [CYCLES]: the fault cycles of tests/ha/faults.sh, CYCLES times (default
# 10): kill -9 of the leader, SIGSTOP 10 s, kill -9 of the etcd Raft leader, PostgreSQL
# stopped 3 s, the leader cut from etcd, the leader cut from an agent; the fleet emulator's
# 1,000 nodes beside the 2 agents (EBB_HA_FLEET_NODES); the checker after every fault; the
# recovery times per fault (min, median, max) at the end. Root (real agents on this host's
# cgroups), about 75 s a cycle. From the top of a build tree:
#   EBB_TOP_SRCDIR=.. EBB_TOP_BUILDDIR=. sh ../bench/ha-faults.sh 10
: "${EBB_TOP_SRCDIR:=.}" "${EBB_TOP_BUILDDIR:=.}"
export EBB_TOP_SRCDIR EBB_TOP_BUILDDIR
EBB_HA_FLEET_NODES=${EBB_HA_FLEET_NODES-1000}
. "$EBB_TOP_SRCDIR/tests/ha/faults.sh"
faults_run "${1:-10}"
exit "$FAILED"
