# Shared by the HA tests (tests/ha/test-*.sh): Automake's exit codes (a skip is a failure
# under EBB_TEST_STRICT=1, as in CI), ok/fail lines, the paths of the tree.
set -u
: "${EBB_TOP_BUILDDIR:=.}" "${EBB_TOP_SRCDIR:=.}"
ELECT="$EBB_TOP_BUILDDIR/tests/ha/elect" # a candidate in the election (tests/ha/elect.c)
FAILED=0
skip () { echo "SKIP: $*"; [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1; exit 77; }
fail () { echo "FAIL: $*"; FAILED=1; }
ok () { echo "ok: $*"; }
# need CMD...: skips unless every CMD is on PATH.
need () { for c in "$@"; do command -v "$c" >/dev/null || skip "needs $c (scripts/install-deps.sh)"; done; }
