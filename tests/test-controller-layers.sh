#!/bin/sh
# The controller's structure (controller/README.md): its layers, and one owner per state. A task's state and
# node and a job's state are written by the setters of the model (controller/model-index.c:
# ebb_ctl_task_set_state, ebb_ctl_task_set_node, ebb_ctl_job_set_state) and nowhere else, so
# the counters they move are right whether or not a change is ever stored; the store moves
# no counter and frees nothing of the model; the store is an opaque handle whose SQLite
# backend nothing outside controller/store*.[ch] sees; a call gets its decision's sequence
# number from the caller.
set -u
SRC=${EBB_TOP_SRCDIR:-.}
failed=0
# The layers of controller/README.md (between the "layers" markers): no file includes the
# header of a module in a layer above its own, and every controller/*.c and *.h is listed.
README="$SRC/controller/README.md"
[ -f "$README" ] || { echo "FAIL: no $README"; exit 1; }
LAYERS=$(sed -n '/<!-- layers: begin -->/,/<!-- layers: end -->/p' "$README" | grep -E '^[0-9]+\. ')
[ -n "$LAYERS" ] || { echo "FAIL: no layer list in $README"; exit 1; }
BOTTOM=$(echo "$LAYERS" | tail -1 | sed 's/\..*//')
# layer_of FILE-STEM: its layer by its prefix (sched-place: sched); a types header (-t) is
# the bottom layer; empty when unlisted.
layer_of () {
  case $1 in *-t) echo "$BOTTOM"; return ;; esac
  m=${1%%-*}
  echo "$LAYERS" | awk -v m="$m" '{ for (i = 2; i <= NF; i++) if ($i == m) print $1 + 0 }'
}
checked=0
for f in "$SRC"/controller/*.c "$SRC"/controller/*.h; do
  m=$(basename "$f"); m=${m%.[ch]}
  own=$(layer_of "$m")
  if [ -z "$own" ]; then echo "FAIL: controller/$m is in no layer"; failed=1; continue; fi
  for h in $(sed -n 's|^#include "controller/\([a-z-]*\)\.h".*|\1|p' "$f"); do
    hl=$(layer_of "$h")
    checked=$((checked + 1))
    if [ -z "$hl" ]; then echo "FAIL: $(basename "$f") includes controller/$h.h, in no layer"; failed=1
    elif [ "$hl" -lt "$own" ]; then
      echo "FAIL: $(basename "$f") (layer $own) includes controller/$h.h (layer $hl, above it)"
      failed=1
    fi
  done
done
# ctl.h is the bottom layer: it declares the model's functions only (and options.c's, whose
# declarations move to their own header with the policy parameter table).
for fn in $(sed -n 's/^[a-z].*[ *]\(ebb_ctl_[a-z0-9_]*\) (.*/\1/p' "$SRC/controller/ctl.h"); do
  def=$(grep -l "^$fn (" "$SRC"/controller/*.c | head -1)
  case $(basename "${def:-none}") in
    model.c | model-*.c | options.c) ;;
    *) echo "FAIL: ctl.h declares $fn of $(basename "${def:-nowhere}")"; failed=1 ;;
  esac
done
[ "$checked" -gt 50 ] || { echo "FAIL: only $checked includes seen"; failed=1; }
# Assignments to a state or a task's node outside the model; a node's own state (n->state)
# is the heartbeat's and the store's, and a fresh task's node = -1 is its construction.
bad=$(grep -nE '(\.|->)state[[:space:]]*=[^=]' "$SRC"/controller/*.c \
  | grep -v '^[^:]*/model-index\.c:' | grep -vE '[^a-z_]n->state[[:space:]]*=')
if [ -n "$bad" ]; then
  echo "FAIL: a state assigned outside controller/model-index.c:"; echo "$bad"; failed=1
fi
bad=$(grep -nE '(\bt|\bat|tasks\[[^]]*\])(\.|->)node[[:space:]]*=[^=]' "$SRC"/controller/*.c \
  | grep -v '^[^:]*/model-index\.c:' | grep -vE 'node[[:space:]]*=[[:space:]]*-1;')
if [ -n "$bad" ]; then
  echo "FAIL: a task's node assigned outside controller/model-index.c:"; echo "$bad"; failed=1
fi
# The setters must exist and be used (a renamed field would make the greps above pass).
n=$(grep -c 'ebb_ctl_task_set_state (' "$SRC"/controller/*.c | awk -F: '{ s += $2 } END { print s }')
[ "$n" -gt 10 ] || { echo "FAIL: ebb_ctl_task_set_state used $n times"; failed=1; }
grep -q 'ebb_ctl_task_state state;' "$SRC/controller/ctl.h" \
  || { echo "FAIL: struct ebb_ctl_task has no state field"; failed=1; }
# The store neither moves counters nor frees the spec (loading fills fresh objects through
# the setters).
bad=$(grep -nE 'ebb_ctl_count_|_set_state|_set_node|json_object_put \([a-z]+->spec' \
  "$SRC"/controller/store*.c | grep -vE '^[^:]*/store-rows\.c:.*_set_(state|node) \(c, ')
if [ -n "$bad" ]; then
  echo "FAIL: the store changes the model:"; echo "$bad"; failed=1
fi
# The store is a handle: SQLite and PostgreSQL are its backends (store-sqlite*.c,
# store-pg*.c), seen by nothing else, and
# the backend's ops table by store*.c only.
bad=$(grep -lE 'sqlite3|store-sqlite\.h|store-backend\.h|store->ops->' "$SRC"/controller/*.c "$SRC"/controller/*.h \
  | grep -vE '/store(-sqlite[a-z-]*|-pg[a-z-]*|-rows)?\.[ch]$|/store-backend\.h$')
if [ -n "$bad" ]; then
  echo "FAIL: the store's backend seen outside controller/store*.[ch]:"; echo "$bad"; failed=1
fi
# A call takes the sequence number of its decision from the caller, not the last one written.
bad=$(grep -n 'ebb_ctl_store_last_seq' "$SRC"/controller/sched-*.c)
if [ -n "$bad" ]; then
  echo "FAIL: a send reads the last decision's number:"; echo "$bad"; failed=1
fi
# The outbox: calls start in controller/outbox.c only, released by ebb_ctl_flush after the
# commit, the one commit outside the store; the agent's busy answer is read in one place.
bad=$(grep -n 'ebb_http_client_start' "$SRC"/controller/*.c | grep -v '^[^:]*/outbox\.c:')
if [ -n "$bad" ]; then
  echo "FAIL: an agent call started outside controller/outbox.c:"; echo "$bad"; failed=1
fi
bad=$(grep -n 'ebb_ctl_store_commit (' "$SRC"/controller/*.c | grep -vE '^[^:]*/(outbox|store[a-z-]*)\.c:')
if [ -n "$bad" ]; then
  echo "FAIL: a commit outside ebb_ctl_flush:"; echo "$bad"; failed=1
fi
n=$(cat "$SRC"/controller/*.c | grep -c 'strcmp ([a-z]*, "busy")')
[ "$n" = 1 ] || { echo "FAIL: the agent's busy answer read in $n places"; failed=1; }
# The use cases own the transaction: the API neither touches the store (its reads go
# through ops.h too) nor schedules (it calls ops*.c), only ops*.c open a transaction, and the
# scheduler reads a task's typed spec, never the API's parsing of the request (api-adopt.c).
bad=$(grep -nE 'ebb_ctl_store_[a-z_]+ \(|controller/store\.h|ebb_ctl_task_write|ebb_ctl_flush|ebb_ctl_(sched_job|kill_job|node_drain|heartbeat) \(' \
  "$SRC"/controller/api-*.c)
if [ -n "$bad" ]; then
  echo "FAIL: the API writes the store or schedules:"; echo "$bad"; failed=1
fi
bad=$(grep -n 'ebb_ctl_store_begin (' "$SRC"/controller/*.c | grep -vE '^[^:]*/(ops[a-z-]*|store[a-z-]*)\.c:')
if [ -n "$bad" ]; then
  echo "FAIL: a transaction opened outside ops*.c:"; echo "$bad"; failed=1
fi
bad=$(grep -nE 'controller/api\.h|ebb_ctl_adopt_(parse_task|field)|"adopt"' "$SRC"/controller/sched-*.c \
  | grep -vE '^[^:]*:[0-9]+:[[:space:]]*(/?\*)' | grep -v 'store_decision (c, "adopt"')
if [ -n "$bad" ]; then
  echo "FAIL: the scheduler reads the API's parsing:"; echo "$bad"; failed=1
fi
# Fewer functions exported than kept static (the lengths of functions and files:
# tests/test-sizes.sh).
counts=$(awk 'FNR == 1 { prev = "" }
  /^[a-z_][a-z0-9_]* \(/ && prev !~ /^(#|\/|\*| )/ && prev != "" && $0 !~ /;$/ {
    if (prev ~ /^static/) st++; else ex++ }
  { prev = $0 }
  END { print ex + 0, st + 0 }' "$SRC"/controller/*.c)
set -- $counts
[ "$1" -lt "$2" ] || { echo "FAIL: controller/ exports $1 functions and keeps $2 static"; failed=1; }
[ $failed = 0 ] && echo "ok: $checked controller includes follow the layering; one writer of task and job states (controller/model-index.c), the store behind its handle, the outbox, the use cases; $1 functions exported, $2 static"
exit $failed
