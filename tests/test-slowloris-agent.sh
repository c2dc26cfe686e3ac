#!/bin/bash
# Slowloris (slowhttptest -c 2000 -H -i 10 -r 400) against a real ebb-agent: GET /v1/health
# stays under 100 ms p99 from another address and from the attacker's own (tests/slowloris.sh).
# Time budget: about 20 s, at most 50 s.
SLOWLORIS_TARGET=agent
. "${EBB_TOP_SRCDIR:-.}/tests/slowloris.sh"
