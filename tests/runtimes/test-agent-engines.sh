#!/bin/bash
# ebb-agent with real Docker and Podman: labeled CPU-burning containers appear in
# GET /v1/tasks within 2 s with source docker|podman, are suspended (<= 2% of a CPU over 2 s,
# measured from /proc/PID/stat) and resumed (>= 80%, or >= 80% of a control burner measured
# at the same time when the shared machine is loaded), and are still managed after each
# engine is killed and restarted. Engines: tests/runtimes/engines.sh; agent helpers:
# tests/agent/lib.sh. Everything is torn down on any exit.
here=$(cd "$(dirname "$0")" && pwd)
. "${EBB_TOP_SRCDIR:-$here/../..}/tests/agent/lib.sh"
for b in dockerd runc podman /usr/bin/docker /bin/busybox; do
  command -v "$b" > /dev/null || skip "$b not installed (scripts/install-deps.sh installs it)"
done
E=$here/engines.sh
# The engines get a directory of their own, outside lib.sh's $TMP.
ET=$(mktemp -d /tmp/ebb-rt-agent.XXXXXX) || exit 99
trap 'cleanup_all' EXIT
trap 'exit 130' INT TERM
cleanup_all () {
  [ -n "$AGENT_PID" ] && kill -9 "$AGENT_PID" 2> /dev/null && wait "$AGENT_PID" 2> /dev/null
  AGENT_PID=
  [ -n "${CONTROL_PID:-}" ] && kill -9 "$CONTROL_PID" 2> /dev/null
  CONTROL_PID=
  "$E" stop "$ET"
  cleanup # lib.sh: agent cgroups, $TMP
}

now_ms () { date +%s%3N; }
setup_cgroups
t0=$(now_ms)
"$E" start "$ET" both
rc=$?
[ $rc = 77 ] && skip "engines unavailable"
[ $rc = 0 ] || { echo "FAIL: engines did not start"; exit 99; }
echo "timing: engines + image import $(($(now_ms) - t0)) ms"
. "$ET/env"
start_agent --docker-socket "$DOCKER_SOCK" --podman-socket "$PODMAN_SOCK" \
  --adopt-root "$CG_PARENT-docker" --adopt-root "$CG_PARENT-podman" \
  || { FAILED=1; fail "agent did not start"; exit 1; }

LABELS="--label ebb.job=rt-agent --label ebb.class=long --label ebb.cpu=1000 --label ebb.memory=268435456"
burner () { # burner docker|podman NAME [extra run options]
  local kind=$1 name=$2
  shift 2
  if [ "$kind" = docker ]; then
    "$E" docker "$ET" run -d --name "$name" --network=none $LABELS "$@" "$IMAGE" sh -c 'while :; do :; done'
  else
    "$E" podman "$ET" run -d --name "$name" --cgroup-parent="$CG_PARENT-podman" $LABELS "$@" \
      "localhost/$IMAGE" sh -c 'while :; do :; done'
  fi > /dev/null
}
cpid () { "$E" "$1" "$ET" inspect -f '{{.State.Pid}}' "$2"; }

# wait_task ID SOURCE PID MAX_MS: until the list GET /v1/tasks shows task ID with SOURCE,
# running, PID.
wait_task () {
  local start
  start=$(now_ms)
  while [ $(($(now_ms) - start)) -le "$4" ]; do
    api GET /v1/tasks
    if [ "$STATUS" = 200 ] && [ "$(jq -r --arg id "$1" \
      '.tasks[] | select(.id == $id) | "\(.source) \(.state) \(.pid)"' "$TMP/body")" = "$2 running $3" ]; then
      WAITED=$(($(now_ms) - start))
      return 0
    fi
    sleep 0.05
  done
  return 1
}

# suspended_ok ID PID [ID2 PID2]: suspend immediate, then <= 2% of a CPU over 2 s.
suspend_check () {
  api POST "/v1/tasks/$1/suspend" '{"mode":"immediate"}'
  [ "$STATUS" = 200 ] && [ "$(field .state)" = suspended ] || { fail "suspend $1: $STATUS $(body)"; return; }
  set -- $1 $(cpu_pct2 "$2")
  echo "$1 suspended: $2% of a CPU"
  [ "$2" -le 2 ] && ok "$1: suspended container uses <= 2% of a CPU ($2%)" || fail "$1: suspended uses $2%"
}

# resume_check ID PID: resume, then >= 80% of a CPU within one of 3 windows of 2 s; on a
# loaded machine, >= 80% of what an equal-terms control burner gets in the same window and at
# least 5% (five times the 1% footprint, so the suspension limit is certainly gone).
resume_check () {
  api POST "/v1/tasks/$1/resume"
  [ "$STATUS" = 200 ] && [ "$(field .state)" = running ] || { fail "resume $1: $STATUS $(body)"; return; }
  # The control burner competes on equal terms: a sibling of the container's cgroup in the
  # cpu hierarchy (a burner elsewhere would see different group weights above it).
  local ctl
  if [ "$LAYOUT" = v2 ]; then
    ctl=/sys/fs/cgroup$(dirname "$(sed -n 's/^0:://p' "/proc/$2/cgroup")")/ebb-control
  else
    ctl=/sys/fs/cgroup/cpu$(dirname "$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3}' "/proc/$2/cgroup")")/ebb-control
  fi
  mkdir -p "$ctl"
  sh -c 'while :; do :; done' &
  CONTROL_PID=$!
  echo "$CONTROL_PID" > "$ctl/cgroup.procs" || fail "control burner into $ctl"
  local w got=no
  for w in 1 2 3; do
    set -- "$1" "$2" $(cpu_pct2 "$2" "$CONTROL_PID")
    echo "$1 resumed (window $w): container $3% control $4%"
    if [ "$3" -ge 80 ]; then ok "$1: resumed container uses >= 80% ($3%)"; got=yes; break; fi
    if [ $(($3 * 100)) -ge $(($4 * 80)) ] && [ "$3" -ge 5 ]; then
      ok "$1: resumed container uses $3%, >= 80% of the control burner's $4% (machine loaded)"
      got=yes
      break
    fi
  done
  [ $got = yes ] || fail "$1: resumed container did not get its CPU back"
  kill -9 "$CONTROL_PID"
  wait "$CONTROL_PID" 2> /dev/null
  CONTROL_PID=
  rmdir "$ctl" 2> /dev/null
}

# --- discovery: both containers appear within 2 s of their start -------------------------
burner docker rt-agent-d --restart=always || fail "docker run"
wait_task rt-agent-d docker "$(cpid docker rt-agent-d)" 2000 \
  && ok "docker container in /v1/tasks ${WAITED} ms after docker run returned" \
  || fail "docker container not in /v1/tasks within 2 s: $(body)"
burner podman rt-agent-p || fail "podman run"
wait_task rt-agent-p podman "$(cpid podman rt-agent-p)" 2000 \
  && ok "podman container in /v1/tasks ${WAITED} ms after podman run returned" \
  || fail "podman container not in /v1/tasks within 2 s: $(body)"
api GET /v1/tasks
echo "tasks: $(jq -c '[.tasks[] | {id, source, state, pid, cgroup}]' "$TMP/body")"

# --- adoption by name of an unlabeled container: Docker is asked first (no such container),
# then Podman, both through the agent's asynchronous client; an unknown name is a 404 ------
"$E" podman "$ET" run -d --name rt-adopt-u --cgroup-parent="$CG_PARENT-podman" "localhost/$IMAGE" \
  sleep 100000 > /dev/null || fail "podman run rt-adopt-u"
api POST /v1/tasks/adopt '{"container":"rt-adopt-u","id":"u1","job":"ju","class":"long"}'
[ "$STATUS" = 201 ] && [ "$(field .source)" = podman ] && [ "$(field .pid)" = "$(cpid podman rt-adopt-u)" ] \
  && ok "unlabeled podman container adopted by name (docker asked first): 201, source podman" \
  || fail "adopt by name: $STATUS $(body)"
api POST /v1/tasks/adopt '{"container":"no-such-container-ebb"}'
[ "$STATUS" = 404 ] && ok "adopting an unknown container: 404 from both engines" || fail "unknown container: $STATUS $(body)"
api DELETE /v1/tasks/u1
"$E" podman "$ET" rm -f rt-adopt-u > /dev/null 2>&1

# --- suspend both, resume one at a time (two burners and a control on two cores would
# share them three ways) ------------------------------------------------------------------
DPID=$(cpid docker rt-agent-d)
PPID_=$(cpid podman rt-agent-p)
suspend_check rt-agent-d "$DPID"
suspend_check rt-agent-p "$PPID_"
resume_check rt-agent-d "$DPID"
suspend_check rt-agent-d "$DPID"
resume_check rt-agent-p "$PPID_"

# --- Podman service killed and restarted while rt-agent-d and rt-agent-p are as they are:
# rt-agent-p keeps running (conmon), stays managed; a new container is discovered ------------
suspend_check rt-agent-p "$PPID_"
"$E" kill-podman "$ET"
sleep 0.5
t0=$(now_ms)
"$E" start-podman "$ET" || fail "podman service did not restart"
echo "timing: podman service restart $(($(now_ms) - t0)) ms"
api GET /v1/tasks/rt-agent-p
[ "$(field .state)" = suspended ] && ok "rt-agent-p still suspended after the Podman restart" \
  || fail "rt-agent-p after restart: $(body)"
resume_check rt-agent-p "$PPID_"
burner podman rt-agent-p2 || fail "podman run p2"
wait_task rt-agent-p2 podman "$(cpid podman rt-agent-p2)" 2000 \
  && ok "new podman container found ${WAITED} ms after the restart" || fail "p2 not found: $(body)"
"$E" podman "$ET" rm -f rt-agent-p2 > /dev/null
suspend_check rt-agent-p "$PPID_" # quiet while dockerd is tested

# --- dockerd killed by PID and restarted: it restarts rt-agent-d (--restart=always, new
# PID); the agent re-finds it and manages the new process -----------------------------------
api POST /v1/tasks/rt-agent-d/resume
"$E" kill-docker "$ET"
t0=$(now_ms)
"$E" start-docker "$ET" || fail "dockerd did not restart"
echo "timing: dockerd restart $(($(now_ms) - t0)) ms"
NEWPID=
for i in $(seq 1 300); do
  NEWPID=$(cpid docker rt-agent-d 2> /dev/null)
  [ -n "$NEWPID" ] && [ "$NEWPID" != 0 ] && break
  sleep 0.1
done
echo "rt-agent-d PID $DPID -> $NEWPID"
wait_task rt-agent-d docker "$NEWPID" 5000 \
  && ok "rt-agent-d managed again after the dockerd restart (PID $NEWPID, ${WAITED} ms)" \
  || fail "rt-agent-d after the dockerd restart: $(body)"
suspend_check rt-agent-d "$NEWPID"
resume_check rt-agent-d "$NEWPID"

# --- dockerd SIGKILLed and restarted with --live-restore (common in production): the
# container keeps running with the same PID, and the agent keeps it suspended and managed ----
suspend_check rt-agent-d "$NEWPID"
"$E" kill-docker "$ET"
t0=$(now_ms)
EBB_RT_LIVE_RESTORE=1 "$E" start-docker "$ET" || fail "dockerd --live-restore did not start"
echo "timing: dockerd restart with --live-restore $(($(now_ms) - t0)) ms"
[ "$(cpid docker rt-agent-d)" = "$NEWPID" ] && ok "rt-agent-d survived the dockerd restart (PID $NEWPID)" \
  || fail "rt-agent-d PID after live-restore: $(cpid docker rt-agent-d)"
sleep 0.5 # the agent's runtime client reconnects and re-lists
api GET /v1/tasks/rt-agent-d
[ "$(field .state)" = suspended ] && [ "$(field .pid)" = "$NEWPID" ] \
  && ok "rt-agent-d still suspended and known after the restart" || fail "after live-restore: $(body)"
set -- $(cpu_pct2 "$NEWPID")
[ "$1" -le 2 ] && ok "rt-agent-d still <= 2% of a CPU ($1%)" || fail "rt-agent-d uses $1% after the restart"
resume_check rt-agent-d "$NEWPID"

# --- a kill is seen as an exit ---------------------------------------------------------------
"$E" docker "$ET" update --restart=no rt-agent-d > /dev/null
"$E" docker "$ET" kill rt-agent-d > /dev/null
for i in $(seq 1 40); do
  api GET /v1/tasks/rt-agent-d
  [ "$(field .state)" = exited ] && break
  sleep 0.05
done
[ "$(field .state)" = exited ] && ok "docker kill -> task exited" || fail "after docker kill: $(body)"

stop_agent TERM
[ "$AGENT_STATUS" = 0 ] && ok "agent SIGTERM -> exit 0" || fail "agent exit status $AGENT_STATUS"
exit $FAILED
