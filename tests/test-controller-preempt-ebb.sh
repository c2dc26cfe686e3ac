#!/bin/sh
# tests/test-controller-preempt.sh with the ebb policy (Hawk's placement, preemption at a
# short task's arrival; doc/ebb-policy.md), with its default share of long work (0.5 over
# 600 s), which no count of preemptions limits.
EBB_CTL_TEST_POLICY="--policy ebb"
. "${EBB_TOP_SRCDIR:-.}/tests/test-controller-preempt.sh"
