#!/bin/bash
# The placement rate with the PostgreSQL store against SQLite's in the same run, at 1,000
# emulated nodes (bench/controller-bench.sh, EBB_BENCH_MODE=store; PostgreSQL 15 started as
# tests/ha/pg.sh does). Run from the build directory of a sanitizer-free build:
#   EBB_TOP_BUILDDIR=. bash ../bench/ha-store.sh
EBB_BENCH_MODE=store exec bash "$(dirname "$0")/controller-bench.sh"
