#!/bin/sh
# tests/test-controller-drain-preempt.sh with the ebb policy (its serve and can_start plan
# with a node's current capacity, 0 when drained).
EBB_CTL_TEST_POLICY="--policy ebb"
. "${EBB_TOP_SRCDIR:-.}/tests/test-controller-drain-preempt.sh"
