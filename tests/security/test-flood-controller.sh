#!/bin/bash
# 5,000 connections from 20 loopback addresses (slow headers, slow bodies, idle reconnects)
# against a real ebb-controller: a tokened GET /v1/health stays at p99 <= 100 ms from an attacking
# address and from another (tests/security/flood.sh). Time budget: about 25 s, at most 70 s.
ATTACK_TARGET=controller
. "${EBB_TOP_SRCDIR:-.}/tests/security/flood.sh"
