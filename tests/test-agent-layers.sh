#!/bin/sh
# The agent's layering (agent/README.md, between the "layers" markers): no module includes
# the header of a module in a layer above its own, and every agent/*.c and *.h is listed.
set -u
SRC=${EBB_TOP_SRCDIR:-.}
README="$SRC/agent/README.md"
[ -f "$README" ] || { echo "FAIL: no $README"; exit 1; }
LAYERS=$(sed -n '/<!-- layers: begin -->/,/<!-- layers: end -->/p' "$README" | grep -E '^[0-9]+\. ')
[ -n "$LAYERS" ] || { echo "FAIL: no layer list in $README"; exit 1; }
# layer_of MODULE: the number of its layer, empty when unlisted (runtime-parse.c and the other runtime-*.c are runtime).
layer_of () {
  m=${1%%-*}
  echo "$LAYERS" | awk -v m="$m" '{ for (i = 2; i <= NF; i++) if ($i == m) print $1 + 0 }'
}
failed=0 checked=0
for f in "$SRC"/agent/*.c "$SRC"/agent/*.h; do
  m=$(basename "$f"); m=${m%.[ch]}
  own=$(layer_of "$m")
  if [ -z "$own" ]; then echo "FAIL: agent/$m is in no layer"; failed=1; continue; fi
  for h in $(sed -n 's|^#include "agent/\([a-z-]*\)\.h".*|\1|p' "$f"); do
    hl=$(layer_of "$h")
    checked=$((checked + 1))
    if [ -z "$hl" ]; then echo "FAIL: $(basename "$f") includes agent/$h.h, in no layer"; failed=1
    elif [ "$hl" -lt "$own" ]; then
      echo "FAIL: $(basename "$f") (layer $own) includes agent/$h.h (layer $hl, above it)"; failed=1
    fi
  done
done
[ "$checked" -gt 20 ] || { echo "FAIL: only $checked includes seen"; failed=1; }
[ $failed = 0 ] && echo "ok: $checked agent includes follow the layering"
exit $failed
