#!/bin/sh
# tests/test-controller-preempt.sh with bigc in mode kill (YARN's capacity scheduler: a
# displaced long task is killed and started again from the start). A job fails after 4 kills
# of one task by default: 20 short jobs of 2 tasks on 6 long tasks need more.
EBB_CTL_TEST_POLICY="--policy bigc --policy-opt mode=kill --policy-opt kill-attempts=100"
EBB_CTL_TEST_KILLS=1
. "${EBB_TOP_SRCDIR:-.}/tests/test-controller-preempt.sh"
