#!/bin/sh
# The replicated control plane under faults, one cycle of each (tests/ha/faults.sh: kill -9
# of the leader, SIGSTOP 10 s, kill -9 of the etcd Raft leader, PostgreSQL stopped, the
# leader cut from etcd, the leader cut from an agent), with the checker after every fault,
# the fleet emulator's 1,000 nodes beside the 2 agents (EBB_HA_FLEET_NODES; 0: none). Wall
# time: about 80-100 s (1,000 nodes cost little: their heartbeats come every 3 s).
# bench/ha-faults.sh runs more cycles.
. "${EBB_TOP_SRCDIR:-.}/tests/ha/faults.sh"
EBB_HA_FLEET_NODES=${EBB_HA_FLEET_NODES-1000}
faults_run "${EBB_HA_FAULT_CYCLES:-1}"
exit "$FAILED"
