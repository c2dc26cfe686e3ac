#!/bin/bash
# make check entry for the real-engine test of agent/runtime.c: starts a private dockerd and
# Podman service (tests/runtimes/engines.sh), runs tests/test-runtime-engines against them,
# and tears everything down on any exit (containers, engines by PID, cgroups, mounts, dir).
# Exit 77 (skip) when not root or the engines are not installed; EBB_TEST_STRICT=1 turns
# that into a failure, as in CI.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_build=${EBB_TOP_BUILDDIR:-$(pwd)}
skip () {
  echo "SKIP: $*" >&2
  case ${EBB_TEST_STRICT:-} in "" | 0) exit 77 ;; *) echo "EBB_TEST_STRICT: a skip is a failure" >&2; exit 1 ;; esac
}
[ "$(id -u)" = 0 ] || skip "needs root"
for b in dockerd runc podman /usr/bin/docker /bin/busybox; do
  command -v "$b" > /dev/null || skip "$b not installed (scripts/install-deps.sh installs it)"
done
T=$(mktemp -d /tmp/ebb-rt-test.XXXXXX) || exit 99
trap '"$here/engines.sh" stop "$T"' EXIT
trap 'exit 130' INT TERM
t0=$(date +%s%3N)
"$here/engines.sh" start "$T" both
rc=$?
[ $rc = 77 ] && skip "engines unavailable"
[ $rc = 0 ] || { echo "FAIL: engines did not start" >&2; exit 99; }
echo "timing: both engines started and image imported in $(($(date +%s%3N) - t0)) ms"
. "$T/env"
EBB_RT_DIR=$T EBB_RT_ENGINES_SH=$here/engines.sh EBB_RT_IMAGE=$IMAGE EBB_RT_CG_PARENT=$CG_PARENT \
  "$top_build/tests/test-runtime-engines"
