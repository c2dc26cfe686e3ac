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
  chromium_with 60 --virtual-time-budget=3000 "$@" --dump-dom "$url" >"$out.html" 2>"$out.log"
}

# chromium_with SECONDS FLAGS...: headless Chromium with a fresh profile, at most SECONDS.
CHROMIUM_FLAGS="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage"
chromium_with () {
  secs=$1; shift
  rm -rf "$TMP/profile"
  timeout "$secs" "$CHROMIUM" $CHROMIUM_FLAGS --user-data-dir="$TMP/profile" "$@"
}

# chromium_shot PNG URL: a 1280x860 screenshot after the script ran.
chromium_shot () {
  chromium_with 60 --virtual-time-budget=3000 --hide-scrollbars --window-size=1280,860 --screenshot="$1" "$2" \
    >/dev/null 2>&1
}

# text_of FILE ID: the text inside the element with that id (tags dropped).
text_of () { sed -n "s/.*id=\"$2\"[^>]*>\([^<]*\)<.*/\1/p" "$1" | head -1; }

# fake_api_setup FIXTURES: $TMP, a fresh directory with the JSON files of
# tests/status-page/FIXTURES (NOW replaced by the time, so durations are plausible); it, the
# stand-in, its bridge and a browser of chromium_driven go at exit.
fake_api_setup () {
  FAKE="$EBB_TOP_BUILDDIR/tests/status-page/fake-api"
  [ -x "$FAKE" ] || skip "no $FAKE"
  command -v socat >/dev/null || skip "needs socat"
  TMP=$(mktemp -d /tmp/ebb-status-page.XXXXXX) || exit 99
  FAKE_PID= BRIDGE_PID= BROWSER_PID=
  trap 'for p in $BROWSER_PID $BRIDGE_PID $FAKE_PID; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT
  cp "$EBB_TOP_SRCDIR/tests/status-page/$1"/*.json "$TMP/"
  sed -i "s/NOW/$(date +%s)/g" "$TMP"/*.json
}

# fake_api_start [TOKEN]: the stand-in serving $TMP on $TMP/api.sock and, as Chromium speaks
# TCP, a loopback bridge to it at $URL.
fake_api_start () {
  "$FAKE" "$TMP" "$@" >"$TMP/url" & FAKE_PID=$!
  i=0; while [ ! -s "$TMP/url" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  [ -s "$TMP/url" ] || { fail "fake-api did not start"; exit 1; }
  PORT=$((20000 + ($$ + 21) % 20000))
  socat "TCP-LISTEN:$PORT,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$TMP/api.sock" 2>/dev/null & BRIDGE_PID=$!
  URL="http://127.0.0.1:$PORT"
  i=0; until curl -s -o /dev/null "$URL/"; do i=$((i + 1)); [ $i -lt 50 ] || break; sleep 0.1; done
}

# chromium_driven URL: a headless Chromium showing URL in real time, driven by
# tests/status-page/cdp.py on $DEVTOOLS_PORT (loopback only); its pid is BROWSER_PID.
chromium_driven () {
  DEVTOOLS_PORT=$((20000 + ($$ + 4021) % 20000))
  rm -rf "$TMP/profile"
  # A simple command (not chromium_with) so that BROWSER_PID is timeout's, which passes a kill on.
  timeout 120 "$CHROMIUM" $CHROMIUM_FLAGS --user-data-dir="$TMP/profile" --remote-debugging-address=127.0.0.1 \
    --remote-debugging-port="$DEVTOOLS_PORT" "$1" >"$TMP/driven.log" 2>&1 & BROWSER_PID=$!
}

# bar_in BARS COLOUR WIDTH: the row (y) of a bar of that colour and width in BARS (the output of
# tests/status-page/png-bars.py). Bars are 10 px high; their rounded corners leave 4 rows of
# the full width.
bar_in () { awk -v c="$2" -v w="$3" '$1 == c && $4 == w && $5 >= 4 { print $3; exit }' "$1"; }
