# Sourced by tests/ha/test-faults.sh (few cycles, make check) and bench/ha-faults.sh (more):
# the replicated control plane under repeated faults, with a checker after every fault
# (issue 20; doc/ha.md "Fault matrix"). faults_run CYCLES runs it.
#
# 3 etcd members (tests/ha/etcd.sh), PostgreSQL (tests/ha/pg.sh), 3 ebb-controllers sharing
# that store, 2 real ebb-agents on this host's cgroups following them
# (--controller URL,URL,URL). Each controller reaches etcd only through its own socat
# forwarders (one per member), so "leader cut from etcd" kills the leader's forwarders. A
# supervisor loop per controller stands for systemd: a controller that exits is started
# again (as a standby) 0.5 s later. ebbctl --controller URL,URL,URL submits a stream of
# short jobs throughout. With EBB_HA_FLEET_NODES=N (test-faults.sh and bench/ha-faults.sh:
# 1,000) the fleet emulator's N epoch-checking nodes (tests/controller/fleet) follow the
# leader beside the agents and submit 10 short jobs a second of their own (fleet_start).
# Faults per cycle, in order:
#   kill9   kill -9 of the leader: another controller leads at a higher epoch
#   sigstop SIGSTOP of the leader 10 s, then SIGCONT: another leads meanwhile; the old one
#           logs its deposition and exits 3; the agents' refusals of its calls are counted
#   etcd    kill -9 of the etcd member leading the Raft group: no controller failover
#           (unless etcd itself took over 2 s to elect a leader: then reported, not failed)
#   pg      PostgreSQL stopped 3 s and started again: decisions stop, then resume
#   cut     the leader's etcd forwarders killed: it stops acting (exits 3), another leads
#   agents  the leader cut from agent a1 both ways (see afwd_start) until it has a1 lost and
#           launched a1's long task again on a2; then joined again: the old copy ends
# After each fault the checker asserts: no task (job and index, any generation) ever live
# (not exited) on two agents at once (sampled between submissions and at the check; during
# the agents cut only after the heal); every submission answered 2xx exists exactly once
# and reaches a final state (and no submission exists twice); every agent's journaled epoch
# only rose ("leader epoch raised to" in its log), is the leader's, and a call one below it
# is refused; every call a leader committed was executed or superseded (check_calls); the
# fleet's nodes accepted no call below their highest epoch, never had a task live on two of
# them, and their highest epoch is the leader's (check_fleet). It
# prints the fault's recovery time: from the fault (for pg: from PostgreSQL's restart; for
# agents: from the heal) to the answer (201) of the first submission sent after it. EBB_HA_FAULTS
# (a list of the names above) runs only those faults.
. "$EBB_TOP_SRCDIR/tests/controller/lib.sh"
command -v etcd >/dev/null && command -v etcdctl >/dev/null || skip "needs etcd and etcdctl (scripts/install-deps.sh)"
command -v socat >/dev/null || skip "needs socat (scripts/install-deps.sh)"
. "$EBB_TOP_SRCDIR/tests/ha/etcd.sh"
. "$EBB_TOP_SRCDIR/tests/ha/pg.sh"
[ -x "$PG_BIN/postgres" ] || skip "no PostgreSQL 15 in $PG_BIN (scripts/install-deps.sh)"
[ "$(id -u)" != 0 ] || id "$PG_USER" >/dev/null 2>&1 || skip "no user $PG_USER to run PostgreSQL as"
EBBCTL="$EBB_TOP_BUILDDIR/ebbctl"
NCTL=3
now_ms () { date +%s%3N; }

faults_cleanup () {
  touch "$TMP/stop"
  [ -n "${STREAM_PID:-}" ] && kill "$STREAM_PID" 2>/dev/null
  [ -n "${FLEET_PID:-}" ] && kill -9 "$FLEET_PID" 2>/dev/null
  for n in $(seq $NCTL); do
    [ -s "$TMP/sup$n.pid" ] && kill -9 "$(cat "$TMP/sup$n.pid")" 2>/dev/null
    [ -s "$TMP/c$n.pid" ] && kill -9 "$(cat "$TMP/c$n.pid")" 2>/dev/null
    fwd_cut "$n"
  done
  for f in "$TMP"/afwd.*; do fwd_kill "$f"; done
  etcd_stop
  pg_stop KILL
  if [ "$FAILED" != 0 ]; then
    for f in "$TMP"/c?.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
    # EBB_HA_KEEP=DIR: the logs of a failed run kept there.
    [ -z "${EBB_HA_KEEP:-}" ] || { mkdir -p "$EBB_HA_KEEP" && cp "$TMP"/*.log "$TMP"/*.json "$TMP"/acked "$EBB_HA_KEEP" 2>/dev/null; }
  fi
  ctl_cleanup
}
trap faults_cleanup EXIT

# fwd_start N: controller N's forwarders to the 3 etcd members (ports FWD_BASE + 3(N-1) + I;
# the same ports again after a cut), their PIDs in $TMP/fwdN.I.
fwd_start () {
  for i in $(seq "$ETCD_N"); do
    socat "TCP-LISTEN:$((FWD_BASE + 3 * ($1 - 1) + i)),bind=127.0.0.1,fork,reuseaddr" \
      "TCP:127.0.0.1:$(etcd_port "$ETCD_BASE" "$i")" 2>/dev/null &
    echo $! >"$TMP/fwd$1.$i"
  done
}
fwd_urls () {
  u=
  for i in $(seq "$ETCD_N"); do u="$u${u:+,}http://127.0.0.1:$((FWD_BASE + 3 * ($1 - 1) + i))"; done
  echo "$u"
}
# fwd_cut N: kill -9 of controller N's forwarders and of the connections they forked.
fwd_cut () {
  for i in $(seq "$ETCD_N"); do fwd_kill "$TMP/fwd$1.$i"; done
}
# fwd_kill PIDFILE: kill -9 of the socat in PIDFILE and of the connections it forked.
fwd_kill () {
  [ -s "$1" ] || return 0
  p=$(cat "$1")
  # shellcheck disable=SC2046 # the PIDs of its connections, one word each
  kill -9 "$p" $(ps -o pid= --ppid "$p") 2>/dev/null
  wait "$p" 2>/dev/null
  : >"$1"
}

# The cut between agent a1 and a controller, both ways, on unix sockets: each controller
# runs in a mount namespace of its own (unshare -m) where each agent's socket directory
# $TMP/aM.d is $TMP/cN-aM.d, whose socket is a socat forwarder to the agent's; a1 runs in one
# where each controller's $TMP/cN.d is $TMP/a1-cN.d, a forwarder to that controller. The URLs
# stay the ones everybody uses (a standby's "leader" and the fence's name the real socket),
# and killing a forwarder cuts the new connections and the open ones. The namespaces are
# private: nothing is mounted outside these processes, and their mounts end with them. The
# forwarders to the agents dump what they carry (socat -v) in $TMP/afwd-cN-aM.log: every call
# controller N sent to agent M and its answer, read by the sigstop fault.
# afwd_start NAME: the forwarder $TMP/NAME.d/s, NAME cN-aM (to agent M) or a1-cN (to
# controller N).
afwd_start () {
  mkdir -p "$TMP/$1.d"
  case $1 in
    c*) socat -v "UNIX-LISTEN:$TMP/$1.d/s,fork,unlink-early" "UNIX-CONNECT:$TMP/${1#*-}.d/s" \
      2>>"$TMP/afwd-$1.log" & ;;
    *) socat "UNIX-LISTEN:$TMP/$1.d/s,fork,unlink-early" "UNIX-CONNECT:$TMP/${1#a1-}.d/s" \
      2>/dev/null & ;;
  esac
  echo $! >"$TMP/afwd.$1"
}
# ns_exec DIR-OVER... -- ARGV: ARGV in a private mount namespace where each pair "FROM:TO"
# of the list is bind-mounted (FROM over TO); the PID stays ARGV's (exec).
ns_exec () {
  # shellcheck disable=SC2016 # the inner shell expands them
  exec unshare -m --propagation private sh -c '
    while [ "$1" != -- ]; do mount --bind "${1%%:*}" "${1#*:}" || exit 1; shift; done
    shift; exec "$@"' sh "$@"
}

# supervise N: controller N, started again 0.5 s after each exit (its status appended to
# $TMP/cN.exits), until $TMP/stop exists; the running controller's PID in $TMP/cN.pid.
supervise () {
  n=$1
  while [ ! -e "$TMP/stop" ]; do
    mkdir -p "$TMP/c$n.d"
    (ns_exec "$TMP/c$n-a1.d:$TMP/a1.d" "$TMP/c$n-a2.d:$TMP/a2.d" -- "$CTL_BIN" --listen "unix:$TMP/c$n.d/s" --advertise-url "unix:$TMP/c$n.d/s" \
      --state-dir "$TMP/c$n-state" --token-file "$TOKEN_FILE" --tick 200ms --policy fifo \
      --node-timeout 10s --etcd "$(fwd_urls "$n")" --store "$PG_URL" ${AGENT_CA:+--agent-ca "$AGENT_CA"} \
      -v >>"$TMP/c$n.log" 2>&1) &
    echo $! >"$TMP/c$n.pid"
    wait $!
    echo "$? $(now_ms)" >>"$TMP/c$n.exits"
    sleep 0.5
  done
}

# leader: prints "N EPOCH" of the controller that says it leads (nothing when none does).
# A stopped controller accepts the connection and never answers: 1 s at most for each.
leader () {
  for n in $(seq $NCTL); do
    curl -s -m 1 -o "$TMP/cluster" --unix-socket "$TMP/c$n.d/s" http://c/v1/cluster 2>/dev/null &&
      jq -e '.role == "leader"' "$TMP/cluster" >/dev/null 2>&1 &&
      { echo "$n $(jq .leader.epoch "$TMP/cluster")"; return 0; }
  done
  return 1
}
# wait_leader SECONDS [NOT-EPOCH]: waits for a leader (at another epoch than NOT-EPOCH);
# sets LN and LE.
wait_leader () {
  _end=$(($(date +%s) + $1))
  while [ "$(date +%s)" -le "$_end" ]; do
    if l=$(leader); then
      LN=${l% *} LE=${l#* }
      [ "$LE" != "${2:-}" ] && return 0
    fi
    sleep 0.1
  done
  return 1
}

# live_sample: one look at both agents' task lists; a task (job and index, any generation)
# live on two at once is logged in $TMP/twice, or in $TMP/twice-cut while a1 is cut from the
# leader (allowed then: doc/ha.md "Partitions"; fault_agents bounds it after the heal).
live_sample () {
  tw=$TMP/twice
  [ -e "$TMP/cutting" ] && tw=$TMP/twice-cut
  live_both >>"$tw"
}
# live_both: the tasks (jJ-tI) live (not exited) on both agents now.
live_both () {
  for a in 1 2; do
    curl -s -m 2 --unix-socket "$TMP/a$a.d/s" http://a/v1/tasks 2>/dev/null |
      jq -r '.tasks[]? | select(.state != "exited") | .id' 2>/dev/null | sed 's/-g[0-9]*$//' | sort -u
  done | sort | uniq -d
}

# stream: a submission about every 0.3 s through ebbctl with the 3 controllers, one at a time;
# each answered one's name, answer time and send time go to $TMP/acked, the others' to
# $TMP/refused.
stream () {
  i=0
  while [ ! -e "$TMP/stop" ]; do
    i=$((i + 1))
    sent=$(now_ms)
    if timeout 40 "$EBBCTL" --controller "$CTLS" -o name submit --name "s$i" --cpu 100 \
      --memory 16M -- sleep 0.3 >/dev/null 2>&1; then
      echo "s$i $(now_ms) $sent" >>"$TMP/acked"
    else
      echo "s$i $(now_ms) $sent" >>"$TMP/refused"
    fi
    live_sample
    sleep 0.2
  done
}

# jobs_all: every job of the leader as "NAME STATE" lines (paged).
jobs_all () {
  CSOCK="$TMP/c$LN.d/s" after=0
  while :; do
    capi GET "/v1/jobs?limit=1000&after=$after"
    [ "$STATUS" = 200 ] || return 1
    jq -r '.jobs[] | "\(.name) \(.state)"' "$TMP/body"
    after=$(jq -r '.next_after // empty' "$TMP/body")
    [ -n "$after" ] || return 0
  done
}

# check FAULT T0 [SINCE]: the checker after a fault (see the top); the recovery time is from T0
# to the answer of the first submission sent after SINCE (default T0; the new leader's lead
# when the old one may still answer for a while after the fault, as a cut one does until its
# deadline). Sent after, not answered after: one answered a moment after the fault was
# served before it (a SIGSTOP lands between the answer and its record).
check () {
  wait_leader 30 || { fail "$1: no leader 30 s after the fault"; return; }
  # The first submission sent after SINCE and answered (none at the end: the stream stopped).
  k=0 rec=-
  since=${3:-$2}
  while [ "$1" != end ] && ! awk -v t="$since" '$3 >= t { f = 1 } END { exit !f }' "$TMP/acked" && [ $k -lt 300 ]; do
    sleep 0.1; k=$((k + 1))
  done
  if [ "$1" != end ]; then
    rec=$(awk -v t="$since" -v t0="$2" '$3 >= t { print $2 - t0; exit }' "$TMP/acked")
    [ -n "$rec" ] && echo "$1 $rec" >>"$TMP/recovery" || fail "$1: no submission answered 30 s after the fault"
  fi
  # Every submission answered so far: exactly once, final (done, failed or cancelled) within
  # 30 s (the ones answered meanwhile are the next check's).
  cp "$TMP/acked" "$TMP/acked.now"
  k=0 bad='' t1=$(now_ms)
  while [ $k -lt 60 ]; do
    jobs_all >"$TMP/jobs" || { sleep 0.5; k=$((k + 1)); wait_leader 10; continue; }
    bad=$(cut -d' ' -f1 "$TMP/acked.now" | awk 'NR == FNR { n[$1]++; s[$1] = $2; next }
      { if (n[$1] != 1) print $1 " x" n[$1] + 0; else if (s[$1] !~ /^(done|failed|killed)$/) print $1 " " s[$1] }' \
      "$TMP/jobs" -)
    [ -z "$bad" ] && break
    sleep 0.5; k=$((k + 1))
  done
  twice=$(cut -d' ' -f1 "$TMP/jobs" | grep -v '^null$' | sort | uniq -d | head -3)
  [ -z "$bad" ] && [ -z "$twice" ] &&
    ok "$1: all $(wc -l <"$TMP/acked.now") submissions answered 2xx so far exist once and ended ($(($(now_ms) - t1)) ms after the check began; leader c$LN, epoch $LE; recovery $rec ms)" ||
    fail "$1: answered submissions missing, doubled or not final: $(echo "$bad" | head -3 | tr '\n' ';') doubled: $twice"
  live_sample
  [ ! -s "$TMP/twice" ] && ok "$1: no task live on two agents at once" ||
    fail "$1: live on two agents: $(sort -u "$TMP/twice" | head -3 | tr '\n' ' ')"
  check_epochs "$1"
  check_calls "$1"
  [ -z "${FLEET_PID:-}" ] || check_fleet "$1"
}

# fleet_stats: the fleet's counters now (SIGUSR1; it renames a new file in) in $TMP/fleet.json.
fleet_stats () {
  rm -f "$TMP/fleet.json"
  kill -USR1 "$FLEET_PID"
  k=0
  while [ ! -s "$TMP/fleet.json" ] && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
  [ -s "$TMP/fleet.json" ]
}
# check_fleet FAULT: the fleet's nodes accepted no call below their highest epoch, never had a
# task live on two nodes, and their highest epoch is the leader's once it fenced them.
check_fleet () {
  k=0
  while fleet_stats && [ "$(jq .epoch_max "$TMP/fleet.json")" != "$LE" ] && [ $k -lt 20 ]; do
    sleep 0.5; k=$((k + 1))
  done
  f=$TMP/fleet.json
  [ -s "$f" ] || { fail "$1: no stats from the fleet"; return; }
  [ "$(jq '.accepted_below_highest == 0 and .duplicate_live == 0' "$f")" = true ] &&
    [ "$(jq .epoch_max "$f")" = "$LE" ] &&
    ok "$1: fleet of $(jq .nodes "$f"): epochs $(jq .epoch_min "$f")-$(jq .epoch_max "$f") (the leader's $LE), calls accepted $(jq .calls_accepted "$f"), refused stale $(jq .calls_refused_stale "$f") $(jq -c .refused_by_epoch "$f"), fences $(jq .fences "$f"), launches $(jq .launches "$f"), none accepted below the highest, no task live twice" ||
    fail "$1: fleet: $(jq -c . "$f")"
}

# check_calls FAULT: every agent call a leader committed was executed or superseded. The
# store keeps a call (the calls table, one per task: kill, suspend, resume) until its agent
# answered it, and a decision per launch (the decisions table). Once the submissions ended:
# no call is left whose task has no later decision nor a newer generation (a new leader sends
# the ones its predecessor left, so a row here is a call left pending forever), and each
# task's last decision, when a launch, was launched by its agent (its log's "launched task
# jJ-tI-gG") -- any later decision (a kill, a fence, a launch of a newer generation after the
# node was lost) supersedes a launch.
check_calls () {
  k=0
  while :; do
    psql_ -At -F ' ' -c "SELECT c.job, c.idx, c.generation, c.kind FROM calls c
      LEFT JOIN tasks t ON t.job = c.job AND t.idx = c.idx
      WHERE COALESCE(t.generation, 0) <= c.generation AND NOT EXISTS (SELECT 1 FROM decisions d
        WHERE d.job = c.job AND d.task = c.idx AND d.seq > c.seq)" >"$TMP/calls-left" 2>&1 &&
      psql_ -At -F ' ' -c "SELECT d.job, d.task, d.generation, d.node FROM decisions d
        WHERE d.kind = 'launch' AND NOT EXISTS (SELECT 1 FROM decisions e
          WHERE e.job = d.job AND e.task = d.task AND e.seq > d.seq)" >"$TMP/launches" 2>&1 &&
      [ -s "$TMP/calls-left" ] && [ $k -lt 20 ] || break
    sleep 0.5; k=$((k + 1))
  done
  nf=0
  while read -r j i g node; do
    case $node in
      a[12]) grep -q "launched task j$j-t$i-g$g " "$TMP/agent-${node#a}.log" 2>/dev/null ||
        echo "launch j$j-t$i-g$g on $node" >>"$TMP/calls-bad" ;;
      *) nf=$((nf + 1)) ;; # a fleet node: no log per task (check_fleet counts its calls)
    esac
  done <"$TMP/launches"
  sed 's/^/call left pending: /' "$TMP/calls-left" >>"$TMP/calls-bad"
  if [ -s "$TMP/calls-bad" ]; then
    fail "$1: committed calls neither executed nor superseded: $(head -3 "$TMP/calls-bad" | tr '\n' ';')"
  else
    ok "$1: every committed call was executed or superseded ($(($(wc -l <"$TMP/launches") - nf)) launches on the agents last for their task, all launched; $nf on the fleet not checked; no call left)"
  fi
  rm -f "$TMP/calls-bad"
}

# check_epochs FAULT: each agent's raises only rose, its epoch is the leader's, and a call one
# below is refused (409 stale_leader; counted in REFUSED_PROBES, not as a deposed leader's).
check_epochs () {
  for a in 1 2; do
    sed -n 's/.*leader epoch raised to \([0-9]*\).*/\1/p' "$TMP/agent-$a.log" |
      awk 'NR > 1 && $1 <= p { bad = 1 } { p = $1 } END { exit bad }' ||
      fail "$1: agent a$a's epoch did not only rise: $(grep -o 'raised to [0-9]*' "$TMP/agent-$a.log" | tr '\n' ' ')"
    k=0
    while [ "$(jq -r .epoch "$TMP/a$a/epoch" 2>/dev/null)" != "$LE" ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
    e=$(jq -r .epoch "$TMP/a$a/epoch" 2>/dev/null)
    [ "$e" = "$LE" ] || fail "$1: agent a$a at epoch $e, the leader's $LE"
    st=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$TMP/a$a.d/s" -X POST \
      -H 'Content-Type: application/json' -H "Ebb-Leader-Epoch: $((e - 1))" \
      --data "{\"epoch\":$((e - 1))}" http://a/v1/fence)
    REFUSED_PROBES=$((REFUSED_PROBES + 1))
    [ "$st" = 409 ] || fail "$1: agent a$a answered $st to a call at epoch $((e - 1)) below its $e"
  done
  ok "$1: the agents' epochs only rose, are the leader's ($LE), and refuse a lower one"
}

# refused: the calls both agents refused as below their epoch.
refused () {
  for a in 1 2; do
    curl -s --unix-socket "$TMP/a$a.d/s" http://a/metrics |
      sed -n 's/^ebb_agent_fence_calls_total{result="refused"} //p'
  done | awk '{ s += $1 } END { print s + 0 }'
}

# exits N: how many times controller N exited; exit_after N COUNT: the status of its exit
# after the first COUNT (a controller cut from etcd may fail to start again after it).
exits () { cat "$TMP/c$1.exits" 2>/dev/null | wc -l; }
exit_after () { sed -n "$(($2 + 1))p" "$TMP/c$1.exits" | cut -d' ' -f1; }

# wait_exit N COUNT SECONDS: waits until controller N exited more than COUNT times.
wait_exit () {
  k=0
  while [ "$(exits "$1")" -le "$2" ] && [ $k -lt $(($3 * 10)) ]; do sleep 0.1; k=$((k + 1)); done
  [ "$(exits "$1")" -gt "$2" ]
}

fault_kill9 () {
  wait_leader 30; old=$LN oe=$LE
  t0=$(now_ms)
  kill -9 "$(cat "$TMP/c$old.pid")"
  wait_leader 30 "$oe" && [ "$LE" -gt "$oe" ] && [ "$LN" != "$old" ] &&
    ok "kill9: c$old (epoch $oe) killed, c$LN leads at epoch $LE after $(($(now_ms) - t0)) ms" ||
    fail "kill9: no new leader after c$old (epoch $oe)"
  check kill9 "$t0"
}

# afwd_mark N: the end of what controller N's forwarders to the agents carried so far;
# afwd_since N: what they carried after it, as "SENT REFUSED ACCEPTED": the calls sent with an
# epoch header, the answers 409 stale_leader and the answers 2xx.
afwd_mark () {
  for m in 1 2; do wc -c <"$TMP/afwd-c$1-a$m.log" >"$TMP/afwd-c$1-a$m.off" 2>/dev/null || echo 0 >"$TMP/afwd-c$1-a$m.off"; done
}
afwd_since () {
  for m in 1 2; do tail -c "+$(($(cat "$TMP/afwd-c$1-a$m.off") + 1))" "$TMP/afwd-c$1-a$m.log" 2>/dev/null; done |
    sed 's/\\r$//' | awk 'tolower($0) ~ /^ebb-leader-epoch: [0-9]+$/ { s++ }
      /^HTTP\/1\.[01] 409 / { r++ } /^HTTP\/1\.[01] 2[0-9][0-9] / { a++ } END { print s + 0, r + 0, a + 0 }'
}

fault_sigstop () {
  wait_leader 30; old=$LN oe=$LE n0=$(exits "$old")
  pid=$(cat "$TMP/c$old.pid")
  t0=$(now_ms)
  kill -STOP "$pid"
  wait_leader 30 "$oe" && [ "$LN" != "$old" ] && ok "sigstop: c$LN leads at epoch $LE after $(($(now_ms) - t0)) ms" ||
    fail "sigstop: no new leader while c$old is stopped"
  while [ $(($(now_ms) - t0)) -lt 10000 ]; do sleep 0.2; done
  r0=$(refused) fr0=0 fr=-
  [ -z "${FLEET_PID:-}" ] || { fleet_stats && fr0=$(jq ".refused_by_epoch[\"$oe\"] // 0" "$TMP/fleet.json"); }
  afwd_mark "$old"
  kill -CONT "$pid"
  # Deposed either way: its renew deadline passed (exit 3), or PostgreSQL ended the
  # transaction it was stopped in (idle_in_transaction_session_timeout) and its commit
  # failed (exit 75, the calls it decided not sent).
  wait_exit "$old" "$n0" 10
  st=$(exit_after "$old" "$n0")
  if [ "$st" = 3 ] && grep -q "no longer the leader at epoch $oe" "$TMP/c$old.log"; then
    ok "sigstop: c$old resumed after 10 s exited 3, deposed (it logged that it no longer leads at epoch $oe)"
  elif [ "$st" = 75 ] && tail -n 40 "$TMP/c$old.log" | grep -q "the commit failed: .* not sent; exiting"; then
    ok "sigstop: c$old resumed after 10 s exited 75: its transaction was ended meanwhile and its commit failed (nothing sent)"
  else
    fail "sigstop: c$old after SIGCONT: exits $(exits "$old"), status $st"
  fi
  echo "$st" >>"$TMP/deposed-exit"
  # What the deposed leader sent the agents between its SIGCONT and its exit, as its own
  # forwarders carried it (it alone uses them), and the agents' count of refused calls.
  # shellcheck disable=SC2046 # three numbers
  set -- $(afwd_since "$old")
  rr=$(($(refused) - r0))
  [ -z "${FLEET_PID:-}" ] || { fleet_stats && fr=$(($(jq ".refused_by_epoch[\"$oe\"] // 0" "$TMP/fleet.json") - fr0)); }
  echo "sigstop $rr $1 $2 $3 $fr" >>"$TMP/deposed-refused"
  [ "$3" = 0 ] &&
    ok "sigstop: the deposed c$old (epoch $oe) after SIGCONT: $1 calls sent, $2 refused 409, $3 accepted; agents' refused-call counters +$rr; the fleet's refused at epoch $oe +$fr" ||
    fail "sigstop: an agent accepted $3 calls of the deposed c$old (epoch $oe) after SIGCONT ($1 sent, $2 refused)"
  check sigstop "$t0"
}

fault_etcd () {
  wait_leader 30; old=$LN oe=$LE
  m=$(etcd_leader) || { fail "etcd: no Raft leader"; return; }
  t0=$(now_ms)
  etcd_kill "$m"
  # etcd's own election: until it has a leader again no keepalive is answered, and past the
  # renew deadline (3 s after the last renewal, which was up to 1 s before the kill) the
  # controller must stop acting. So a failover is a failure only when etcd was back in time.
  k=0
  until etcd_leader >/dev/null 2>&1 || [ $k -ge 100 ]; do sleep 0.1; k=$((k + 1)); done
  t_raft=$(($(now_ms) - t0))
  sleep 5
  l=$(leader)
  if [ "$l" = "$old $oe" ]; then
    ok "etcd: kill -9 of member m$m (Raft leader; etcd led again after $t_raft ms): c$old still leads at epoch $oe 5 s later"
  elif [ "$t_raft" -gt 2000 ]; then
    ok "etcd: kill -9 of member m$m: etcd took $t_raft ms to elect (> 2 s: the keepalives' margin), so the controllers failed over (${l:-no leader}, was c$old $oe)"
    echo "etcd $t_raft" >>"$TMP/etcd-slow"
  else
    fail "etcd: the controllers failed over after kill -9 of member m$m though etcd led again after $t_raft ms: ${l:-no leader} (was c$old $oe)"
  fi
  etcd_restart "$m"
  k=0
  until ETCDCTL_API=3 etcdctl --endpoints "http://127.0.0.1:$(etcd_port "$ETCD_BASE" "$m")" \
    --command-timeout 1s endpoint health >/dev/null 2>&1 || [ $k -ge 50 ]; do sleep 0.2; k=$((k + 1)); done
  [ $k -lt 50 ] || fail "etcd: member m$m did not start again: $(tail -1 "$ETCD_DIR/m$m.log" | cut -c1-200)"
  check etcd "$t0"
}

fault_pg () {
  wait_leader 30
  t_stop=$(now_ms)
  pg_stop INT
  sleep 3
  pg_run || { fail "pg: PostgreSQL did not start again"; return; }
  t0=$(now_ms)
  echo "pg outage $((t0 - t_stop)) ms" >>"$TMP/pg-outages"
  check pg "$t0"
}

fault_cut () {
  wait_leader 30; old=$LN oe=$LE n0=$(exits "$old")
  t0=$(now_ms)
  fwd_cut "$old"
  wait_exit "$old" "$n0" 10 && [ "$(exit_after "$old" "$n0")" = 3 ] &&
    ok "cut: c$old, cut from etcd, stopped acting and exited 3 after $(($(now_ms) - t0)) ms" ||
    fail "cut: c$old after the cut: exits $(exits "$old"), status $(exit_after "$old" "$n0")"
  wait_leader 30 "$oe" && [ "$LN" != "$old" ] && ok "cut: c$LN leads at epoch $LE after $(($(now_ms) - t0)) ms" ||
    fail "cut: no new leader after c$old was cut"
  t_new=$(now_ms)
  fwd_start "$old"
  check cut "$t0" "$t_new"
}

# a1_cut N / a1_heal N: agent a1 cut from controller N both ways (its forwarders killed) /
# joined again.
a1_cut () { fwd_kill "$TMP/afwd.c$1-a1"; fwd_kill "$TMP/afwd.a1-c$1"; }
a1_heal () { afwd_start "c$1-a1"; afwd_start "a1-c$1"; }

# long_job NAME: submits a job of one task of 100 millicores sleeping 10 min to the leader
# and waits for it to run; its id in JID, its node in JNODE.
long_job () {
  CSOCK="$TMP/c$LN.d/s"
  capi POST /v1/jobs "{\"name\":\"$1\",\"class\":\"long\",\"request_id\":\"$1\",\"tasks\":[{\"argv\":[\"sleep\",\"600\"],\"cpu_millis\":100,\"memory_bytes\":16777216}]}"
  JID=$(jq -r .id "$TMP/body") JNODE=
  [ "$STATUS" = 201 ] || { fail "agents: $1 not submitted: $STATUS $(cat "$TMP/body")"; return 1; }
  wait_for 20 '.tasks[0].state == "running"' "/v1/jobs/$JID" || { fail "agents: $1 not running"; return 1; }
  JNODE=$(jq -r '.tasks[0].node' "$TMP/body")
}
# long_on_a1: a long job running on a1 (JID), submitted again until one lands there: fifo
# gives a task to the slot freed last. The ones elsewhere (ids in LONG_OTHERS) keep their
# slots until the fault's end: killed at once, each would free the slot the next one takes.
long_on_a1 () {
  LONG_OTHERS= LONG_N=$((${LONG_N:-0} + 1))
  for k in $(seq 20); do
    long_job "long$LONG_N-$k" || return 1
    [ "$JNODE" = a1 ] && return 0
    LONG_OTHERS="$LONG_OTHERS $JID"
  done
  fail "agents: no long job on a1 in 20"
  return 1
}
# a1_long: the tasks (jJ-tI-gG) of job JID live on a1.
a1_long () {
  curl -s -m 2 --unix-socket "$TMP/a1.d/s" http://a/v1/tasks 2>/dev/null |
    jq -r --arg j "j$JID-" '.tasks[]? | select(.state != "exited") | .id | select(startswith($j))'
}

# fault_agents: the leader cut from agent a1 (both ways) until it has a1 lost, then joined
# again. While cut, the tasks of a1 run on (a1 does not hear that it is lost) and the leader
# launches them again elsewhere: the two copies are allowed then (doc/ha.md "Partitions"),
# and must be gone within 20 s of the heal (the leader fences a1 and ends its old copies).
fault_agents () {
  wait_leader 30; old=$LN oe=$LE
  long_on_a1 || { for j in $LONG_OTHERS; do capi DELETE "/v1/jobs/$j"; done; return; }
  lj=long$LONG_N-$k
  g0=$(jq -r '.tasks[0].generation' "$TMP/body")
  touch "$TMP/cutting"
  t0=$(now_ms)
  a1_cut "$old"
  CSOCK="$TMP/c$old.d/s"
  wait_for 40 '.nodes[] | select(.name == "a1") | .state == "lost"' /v1/nodes &&
    ok "agents: c$old (epoch $oe), cut from a1, has it lost after $(($(now_ms) - t0)) ms (--node-timeout 10s)" ||
    fail "agents: c$old did not lose a1 in 40 s: $(cat "$TMP/body")"
  # Its task launched again elsewhere (a newer generation) while the old copy runs on in a1.
  wait_for 20 ".tasks[0].node != \"a1\" and .tasks[0].state == \"running\" and .tasks[0].generation > $g0" "/v1/jobs/$JID" &&
    ok "agents: $lj (on a1 at generation $g0) runs again on $(jq -r .tasks[0].node "$TMP/body") at generation $(jq .tasks[0].generation "$TMP/body") $(($(now_ms) - t0)) ms after the cut" ||
    fail "agents: $lj not launched again after a1 was lost: $(jq -c .tasks "$TMP/body")"
  a1_heal "$old"
  t_heal=$(now_ms)
  # The old copy ends on a1 (the relaunched one may be on a fleet node: live_both sees only
  # the agents, so the old generation's end on a1 is what is waited for).
  k=0
  until [ -z "$(live_both)" ] && [ -z "$(a1_long | grep -x "j$JID-t0-g$g0")" ] && [ $k -ge 1 ] || [ $k -gt 200 ]; do
    sleep 0.1; k=$((k + 1))
  done
  overlap=$(sort -u "$TMP/twice-cut" 2>/dev/null | wc -l)
  rm -f "$TMP/cutting" "$TMP/twice-cut"
  [ -z "$(live_both)" ] && [ -z "$(a1_long | grep -x "j$JID-t0-g$g0")" ] &&
    ok "agents: the old copy on a1 ended $(($(now_ms) - t_heal)) ms after the heal ($overlap task(s) seen live on both agents during the cut: allowed)" ||
    fail "agents: 20 s after the heal, still on a1: $(a1_long | tr '\n' ' '); live on both agents: $(live_both | head -3 | tr '\n' ' ')"
  wait_for 30 '.nodes[] | select(.name == "a1") | .state == "ready"' /v1/nodes &&
    ok "agents: a1 ready again at the leader after $(($(now_ms) - t_heal)) ms" ||
    fail "agents: a1 not ready 30 s after the heal: $(cat "$TMP/body")"
  wait_leader 10
  CSOCK="$TMP/c$LN.d/s"
  for j in $LONG_OTHERS $JID; do
    capi DELETE "/v1/jobs/$j"
    wait_for 30 '.state == "killed"' "/v1/jobs/$j" || fail "agents: long job $j not killed: $(cat "$TMP/body")"
  done
  k=0
  while [ -n "$(a1_long)" ] && [ $k -lt 100 ]; do sleep 0.2; k=$((k + 1)); done
  [ -z "$(a1_long)" ] || fail "agents: $lj still on a1 after its kill: $(a1_long | tr '\n' ' ')"
  check agents "$t_heal"
}

# fleet_start N: the fleet emulator (tests/controller/fleet) of N epoch-checking nodes of 1
# CPU beside the agents, heartbeats every 3 s to the 3 controllers (following the leader),
# over https (a throwaway certificate the controllers trust with --agent-ca, given them at
# their start), submitting EBB_HA_FLEET_RATE (default 10) one-task jobs of "sleep 0.5" a
# second throughout, so part of the load lands on its nodes; waits for its nodes to be ready.
fleet_start () {
  FLEET_PID=
  [ -x "$EBB_TOP_BUILDDIR/tests/controller/fleet" ] || { fail "no tests/controller/fleet"; return 1; }
  EBB_FLEET_TLS_CERT=$TMP/cert.pem EBB_FLEET_TLS_KEY=$TMP/key.pem EBB_FLEET_STATS=$TMP/fleet.json \
    "$EBB_TOP_BUILDDIR/tests/controller/fleet" "$CTLS" "$1" "$TOKEN_FILE" 3 1000 \
    "${EBB_HA_FLEET_RATE:-10}" 100000 1 >"$TMP/fleet.out" 2>"$TMP/fleet.err" &
  FLEET_PID=$!
  t=$(now_ms)
  CSOCK="$TMP/c$LN.d/s"
  wait_for 120 ".nodes.ready >= $(($1 + 2))" /v1/cluster &&
    ok "fleet: $1 nodes ready after $(($(now_ms) - t)) ms" || fail "fleet: not ready: $(jq -c .nodes "$TMP/body")"
}

# faults_run CYCLES: the whole run; prints the recovery times per fault at the end.
faults_run () {
  setup_cgroups
  etcd_start "$TMP/etcd" || { fail "etcd did not start"; exit 1; }
  pg_start "$TMP/pg" || { fail "PostgreSQL did not start"; exit 1; }
  # Below the ephemeral ports, as etcd's (etcd.sh): a cut controller's forwarders listen again.
  FWD_BASE=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000))
  AGENT_CA=
  if [ "${EBB_HA_FLEET_NODES:-0}" != 0 ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
      -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 -subj /CN=localhost \
      -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || { fail "openssl req failed"; exit 1; }
    AGENT_CA=$TMP/cert.pem
  fi
  CTLS='' REFUSED_PROBES=0
  : >"$TMP/acked" && : >"$TMP/refused" && : >"$TMP/twice" && : >"$TMP/recovery"
  mkdir -p "$TMP/a1.d" "$TMP/a2.d"
  for n in $(seq $NCTL); do
    mkdir -p "$TMP/c$n.d"
    a1_heal "$n"
    afwd_start "c$n-a2"
  done
  for n in $(seq $NCTL); do
    fwd_start "$n"
    CTLS="$CTLS${CTLS:+,}unix:$TMP/c$n.d/s"
    supervise "$n" &
    echo $! >"$TMP/sup$n.pid"
    wait_leader 20 || { fail "c1 did not lead"; exit 1; }
  done
  # a1 in its namespace (see afwd_start), through a wrapper standing for the agent's binary.
  real_agent=$AGENT_BIN
  AGENT_BIN=$TMP/agent-ns
  m=
  for n in $(seq $NCTL); do m="$m mount --bind $TMP/a1-c$n.d $TMP/c$n.d &&"; done
  printf '#!/bin/sh\nexec unshare -m --propagation private sh -c %s %s "$@"\n' \
    "'$m exec \"\$0\" \"\$@\"'" "$real_agent" >"$AGENT_BIN"
  chmod +x "$AGENT_BIN"
  # a1 offers 32 slots (fifo's: one per CPU; its tasks sleep), so that among the fleet's
  # 1,000 fifo gives it a long task within a few tries (long_on_a1).
  start_node 1 --controller "$CTLS" --listen "unix:$TMP/a1.d/s" --advertise-url "unix:$TMP/a1.d/s" \
    --capacity-cpu-millis 32000
  AGENT_BIN=$real_agent
  start_node 2 --controller "$CTLS" --listen "unix:$TMP/a2.d/s" --advertise-url "unix:$TMP/a2.d/s"
  CSOCK="$TMP/c$LN.d/s"
  wait_for 20 '[.nodes[] | select(.state == "ready")] | length == 2' /v1/nodes ||
    { fail "agents not ready: $(cat "$TMP/body")"; exit 1; }
  [ "${EBB_HA_FLEET_NODES:-0}" = 0 ] || fleet_start "$EBB_HA_FLEET_NODES"
  stream & STREAM_PID=$!
  sleep 2
  for CYCLE in $(seq "$1"); do
    for fault in ${EBB_HA_FAULTS:-kill9 sigstop etcd pg cut agents}; do
      echo "# cycle $CYCLE: $fault"
      "fault_$fault"
    done
  done
  touch "$TMP/stop"
  wait "$STREAM_PID"; STREAM_PID=
  check end "$(now_ms)"
  [ -z "${FLEET_PID:-}" ] || { kill "$FLEET_PID"; wait "$FLEET_PID"; FLEET_PID=; }
  echo "submissions: $(wc -l <"$TMP/acked") answered 2xx, $(wc -l <"$TMP/refused") not (refused or timed out during faults)"
  for f in kill9 sigstop etcd pg cut agents; do
    grep "^$f " "$TMP/recovery" | cut -d' ' -f2 | sort -n |
      awk -v f="$f" '{ v[NR] = $1 } END { if (NR) printf "recovery %-7s n=%d min %d ms, median %d ms, max %d ms\n", f, NR, v[1], v[int((NR + 1) / 2)], v[NR] }'
  done
  echo "deposed leaders after SIGCONT, per sigstop cycle (agents' refused counters, calls sent, refused, accepted, the fleet's refused): $(cut -d' ' -f2- "$TMP/deposed-refused" 2>/dev/null | tr ' \n' '/ ')"
  echo "deposed leaders' exit statuses (3: renew deadline, 75: commit failed): $(tr '\n' ' ' <"$TMP/deposed-exit" 2>/dev/null)"
  cat "$TMP/pg-outages" 2>/dev/null
  [ -s "$TMP/etcd-slow" ] && echo "etcd faults where etcd's own election outlasted the keepalives' margin (failed over): $(cut -d' ' -f2 "$TMP/etcd-slow" | tr '\n' ' ')ms"
  return 0
}
