#!/bin/sh
# --cgroup-parent is created when missing and removed at a clean exit when the agent created
# it and it is empty (issue 22): under this test's own cgroup, an agent given PARENT/made/here
# creates made and made/here in every hierarchy and removes both at SIGTERM; one given a parent
# that exists leaves it; one that exits while a task still runs (--handover) keeps the
# directories its task is in. Budget: about 5 s.
. "${EBB_TOP_SRCDIR:-.}/tests/agent/lib.sh"
setup_cgroups
TOP=$CGP
# dirs_exist PATH: whether PATH is a directory in every hierarchy the agent uses.
dirs_exist () {
  for h in ${HIERS:-x}; do [ -d "$(cgdir $h "$1")" ] || return 1; done
}
# dirs_gone PATH: whether PATH is in no hierarchy.
dirs_gone () {
  for h in ${HIERS:-x}; do [ ! -e "$(cgdir $h "$1")" ] || return 1; done
}
# agent_in PARENT [options]: an agent with --cgroup-parent PARENT.
agent_in () {
  p=$1; shift
  CGP=$p
  start_agent "$@"
  st=$?
  CGP=$TOP
  return $st
}

agent_in "$TOP/made/here" || { fail "agent did not start"; exit 1; }
dirs_exist "$TOP/made/here" && ok "the missing --cgroup-parent made/here was created" ||
  fail "made/here not created: $(ls "$(cgdir "$(echo $HIERS | cut -d' ' -f1)" "$TOP")")"
stop_agent TERM
[ "$AGENT_STATUS" = 0 ] || fail "agent exit status $AGENT_STATUS"
dirs_gone "$TOP/made" && ok "a clean exit removed made/here and made (created by the agent, empty)" ||
  fail "left behind: $(grep -e 'removed\|kept' "$LOG" | tail -4)"
dirs_exist "$TOP" && ok "the test's own cgroup stays" || fail "$TOP was removed"

# A parent that existed before is not the agent's to remove.
agent_in "$TOP" || { fail "agent (existing parent) did not start"; exit 1; }
stop_agent TERM
dirs_exist "$TOP" && ok "an existing --cgroup-parent stays after a clean exit" || fail "$TOP removed"

# A task still running at the exit (handover): its cgroup, and so the parent, stay.
agent_in "$TOP/busy" --handover || { fail "agent (busy) did not start"; exit 1; }
CGP=$TOP/busy
api POST /v1/tasks "$(launch_body t1 '["sleep","30"]' 100 67108864)"
CGP=$TOP
[ "$STATUS" = 201 ] || fail "launch: $STATUS $(cat "$TMP/body")"
stop_agent TERM
dirs_exist "$TOP/busy/t1" && grep -q "kept .*busy" "$LOG" &&
  ok "with a task left running, the created parent stays (said at -v)" || fail "busy: $(tail -3 "$LOG")"
exit $FAILED
