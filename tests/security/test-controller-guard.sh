#!/bin/sh
# Issue 24's controller points and issue 22's audit trail, against the real ebb-controller
# (no agent: the jobs stay queued): a request_id reused with another body is refused with 409
# request_id_reused while a retry of the same body (white space aside) gets the first answer.
# Time budget: a few seconds.
. "${EBB_TOP_SRCDIR:-.}/tests/controller/lib.sh"
start_controller --policy fifo || { fail "controller did not start"; exit 1; }

T1=$(burner_task g1 1000)
capi POST /v1/jobs "$(job_body reuse long "$T1")"
[ "$STATUS" = 201 ] && cp "$TMP/body" "$TMP/first" && ok "a job with request_id reuse -> 201" ||
  fail "submit: $STATUS $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body reuse long "$T1" | sed 's/,/, /g')"
[ "$STATUS" = 201 ] && cmp -s "$TMP/body" "$TMP/first" &&
  ok "the same body again (other white space) gets the first answer" ||
  fail "retry: $STATUS $(cat "$TMP/body")"
capi POST /v1/jobs "$(job_body reuse long "$T1" "$(burner_task g2 1000)")"
[ "$STATUS" = 409 ] && jq -e '.error == "request_id_reused"' "$TMP/body" >/dev/null &&
  ok "another body under the same request_id -> 409 request_id_reused" ||
  fail "reuse: $STATUS $(cat "$TMP/body")"
capi GET /v1/jobs
jq -e '[.jobs[] | select(.request_id == "reuse")] | length == 1' "$TMP/body" >/dev/null &&
  ok "one job of that request_id" || fail "jobs: $(cat "$TMP/body")"
exit $FAILED
