#!/bin/sh
# tests/test-controller-preempt.sh with the ebb policy (Hawk's placement, preemption at a
# short task's arrival; doc/ebb-policy.md). Its suspend bound allows M = 2 preemptions of a
# task per 600 s by default: 20 short jobs of 2 tasks on 6 long tasks need up to 8.
EBB_CTL_TEST_POLICY="--policy ebb --policy-opt max-suspends=8"
. "${EBB_TOP_SRCDIR:-.}/tests/test-controller-preempt.sh"
