#!/bin/sh
# The replicated control plane under faults, one cycle of each (tests/ha/faults.sh: kill -9
# of the leader, SIGSTOP 10 s, kill -9 of the etcd Raft leader, PostgreSQL stopped, the
# leader cut from etcd, the leader cut from an agent), with the checker after every fault.
# Wall time: about 100 s.
# bench/ha-faults.sh runs more cycles.
. "${EBB_TOP_SRCDIR:-.}/tests/ha/faults.sh"
faults_run "${EBB_HA_FAULT_CYCLES:-1}"
exit "$FAILED"
