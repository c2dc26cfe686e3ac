# Shared by the status page tests: headless Chromium with a fresh profile, nothing fetched but
# the page under test (no first run, no component updates, no sync, no QUIC).
: "${EBB_TOP_SRCDIR:=.}" "${EBB_TOP_BUILDDIR:=.}"
skip () { echo "SKIP: $*"; [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1; exit 77; }
fail () { echo "FAIL: $*"; FAILED=1; }
ok () { echo "ok: $*"; }
FAILED=0
CHROMIUM=$(command -v chromium || command -v chromium-browser) || skip "needs chromium"

# chromium_run OUT-PREFIX URL [extra flags]: the DOM after the page's script ran (virtual time
# lets its fetches and first refreshes finish) in OUT-PREFIX.html; Chromium's log in .log.
chromium_run () {
  out=$1 url=$2; shift 2
  rm -rf "$TMP/profile"
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$TMP/profile" --virtual-time-budget=3000 "$@" --dump-dom "$url" \
    >"$out.html" 2>"$out.log"
}

# chromium_shot PNG URL: a 1280x860 screenshot after the script ran.
chromium_shot () {
  rm -rf "$TMP/profile"
  timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$TMP/profile" --virtual-time-budget=3000 --hide-scrollbars \
    --window-size=1280,860 --screenshot="$1" "$2" >/dev/null 2>&1
}

# text_of FILE ID: the text inside the element with that id (tags dropped).
text_of () { sed -n "s/.*id=\"$2\"[^>]*>\([^<]*\)<.*/\1/p" "$1" | head -1; }
