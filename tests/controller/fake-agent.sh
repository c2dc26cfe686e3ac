#!/bin/sh
# A scripted agent for one HTTP request on stdin/stdout (socat runs it per connection; see
# tests/test-controller-fence-reconcile.sh): logs "begin METHOD PATH" and "end METHOD PATH"
# to $FAKE_LOG, answers POST /v1/fence after $FAKE_FENCE_DELAY seconds with the task list in
# $FAKE_TASKS (a file holding a JSON array; [] when absent), and every other call at once
# (a launch 201, its task added to $FAKE_TASKS; the rest 200).
cr=$(printf '\r')
read -r method path _ || exit 0
len=0
while read -r line; do
  line=${line%"$cr"}
  [ -z "$line" ] && break
  case $line in
  [Cc]ontent-[Ll]ength:*) len=${line#*:}; len=$(echo $len) ;;
  [Ee]bb-[Ll]eader-[Ee]poch:*) epoch=${line#*:}; epoch=$(echo $epoch) ;;
  esac
done
body=
[ "$len" -gt 0 ] && body=$(head -c "$len")
echo "begin $method $path ${epoch:-}" >>"$FAKE_LOG"
status=200
case "$method $path" in
"POST /v1/fence")
  sleep "${FAKE_FENCE_DELAY:-0}"
  e=$(printf '%s' "$body" | jq -r .epoch)
  tasks='[]'
  [ -s "$FAKE_TASKS" ] && tasks=$(cat "$FAKE_TASKS")
  out=$(printf '{"epoch":%s,"node":"a1","tasks":%s}' "$e" "$tasks")
  ;;
"POST /v1/tasks")
  status=201
  out=$(printf '%s' "$body" | jq -c '{id, state: "running"}')
  # It has the task from now on: in its fence answers and in the test's heartbeats.
  [ -s "$FAKE_TASKS" ] || echo '[]' >"$FAKE_TASKS"
  jq -c --argjson t "$out" '. + [$t]' "$FAKE_TASKS" >"$FAKE_TASKS.new" && mv "$FAKE_TASKS.new" "$FAKE_TASKS"
  ;;
*) out='{}' ;;
esac
printf 'HTTP/1.1 %s OK\r\nContent-Type: application/json\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' \
  "$status" "${#out}" "$out"
echo "end $method $path" >>"$FAKE_LOG"
