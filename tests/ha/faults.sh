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
# short jobs throughout. Faults per cycle, in order:
#   kill9   kill -9 of the leader: another controller leads at a higher epoch
#   sigstop SIGSTOP of the leader 10 s, then SIGCONT: another leads meanwhile; the old one
#           logs its deposition and exits 3; the agents' refusals of its calls are counted
#   etcd    kill -9 of the etcd member leading the Raft group: no controller failover
#           (unless etcd itself took over 2 s to elect a leader: then reported, not failed)
#   pg      PostgreSQL stopped 3 s and started again: decisions stop, then resume
#   cut     the leader's etcd forwarders killed: it stops acting (exits 3), another leads
# After each fault the checker asserts: no task id ever live (not exited) on two
# agents at once (sampled between submissions and at the check); every submission answered
# 2xx exists exactly once and reaches a final state (and no submission exists twice); every
# agent's journaled epoch only rose ("leader epoch raised to" in its log), is the leader's,
# and a call one below it is refused. It prints the fault's recovery time: from the fault
# (for pg: from PostgreSQL's restart) to the first submission answered 201 after it.
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
  for n in $(seq $NCTL); do
    [ -s "$TMP/sup$n.pid" ] && kill -9 "$(cat "$TMP/sup$n.pid")" 2>/dev/null
    [ -s "$TMP/c$n.pid" ] && kill -9 "$(cat "$TMP/c$n.pid")" 2>/dev/null
    fwd_cut "$n"
  done
  etcd_stop
  pg_stop KILL
  if [ "$FAILED" != 0 ]; then
    for f in "$TMP"/c?.log; do [ -f "$f" ] && { echo "--- $f"; tail -20 "$f"; }; done
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
  for i in $(seq "$ETCD_N"); do
    [ -s "$TMP/fwd$1.$i" ] || continue
    p=$(cat "$TMP/fwd$1.$i")
    # shellcheck disable=SC2046 # the PIDs of its connections, one word each
    kill -9 "$p" $(ps -o pid= --ppid "$p") 2>/dev/null
    wait "$p" 2>/dev/null
    : >"$TMP/fwd$1.$i"
  done
}

# supervise N: controller N, started again 0.5 s after each exit (its status appended to
# $TMP/cN.exits), until $TMP/stop exists; the running controller's PID in $TMP/cN.pid.
supervise () {
  n=$1
  while [ ! -e "$TMP/stop" ]; do
    "$CTL_BIN" --listen "unix:$TMP/c$n.sock" --advertise-url "unix:$TMP/c$n.sock" \
      --state-dir "$TMP/c$n-state" --token-file "$TOKEN_FILE" --tick 200ms --policy fifo \
      --node-timeout 10s --etcd "$(fwd_urls "$n")" --store "$PG_URL" -v >>"$TMP/c$n.log" 2>&1 &
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
    curl -s -m 1 -o "$TMP/cluster" --unix-socket "$TMP/c$n.sock" http://c/v1/cluster 2>/dev/null &&
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

# live_sample: one look at both agents' task lists; a task id live on two at once is logged
# in $TMP/twice.
live_sample () {
  for a in 1 2; do
    curl -s -m 2 --unix-socket "$TMP/a$a.sock" http://a/v1/tasks 2>/dev/null |
      jq -r '.tasks[]? | select(.state != "exited") | .id' 2>/dev/null
  done | sort | uniq -d >>"$TMP/twice"
}

# stream: a submission about every 0.3 s through ebbctl with the 3 controllers; each
# answered one's name and answer time go to $TMP/acked, the others' to $TMP/refused.
stream () {
  i=0
  while [ ! -e "$TMP/stop" ]; do
    i=$((i + 1))
    if timeout 40 "$EBBCTL" --controller "$CTLS" -o name submit --name "s$i" --cpu 100 \
      --memory 16M -- sleep 0.3 >/dev/null 2>&1; then
      echo "s$i $(now_ms)" >>"$TMP/acked"
    else
      echo "s$i $(now_ms)" >>"$TMP/refused"
    fi
    live_sample
    sleep 0.2
  done
}

# jobs_all: every job of the leader as "NAME STATE" lines (paged).
jobs_all () {
  CSOCK="$TMP/c$LN.sock" after=0
  while :; do
    capi GET "/v1/jobs?limit=1000&after=$after"
    [ "$STATUS" = 200 ] || return 1
    jq -r '.jobs[] | "\(.name) \(.state)"' "$TMP/body"
    after=$(jq -r '.next_after // empty' "$TMP/body")
    [ -n "$after" ] || return 0
  done
}

# check FAULT T0 [SINCE]: the checker after a fault (see the top); the recovery time is from T0
# to the first submission answered after SINCE (default T0; the new leader's lead when the
# old one may still answer for a while after the fault, as a cut one does until its deadline).
check () {
  wait_leader 30 || { fail "$1: no leader 30 s after the fault"; return; }
  # The first submission answered after T0 (none at the end: the stream stopped).
  k=0 rec=-
  since=${3:-$2}
  while [ "$1" != end ] && ! awk -v t="$since" '$2 > t { f = 1 } END { exit !f }' "$TMP/acked" && [ $k -lt 300 ]; do
    sleep 0.1; k=$((k + 1))
  done
  if [ "$1" != end ]; then
    rec=$(awk -v t="$since" -v t0="$2" '$2 > t { print $2 - t0; exit }' "$TMP/acked")
    [ -n "$rec" ] && echo "$1 $rec" >>"$TMP/recovery" || fail "$1: no submission answered 30 s after the fault"
  fi
  # Every submission answered so far: exactly once, final (done, failed or cancelled) within
  # 30 s (the ones answered meanwhile are the next check's).
  cp "$TMP/acked" "$TMP/acked.now"
  k=0 bad='' t1=$(now_ms)
  while [ $k -lt 60 ]; do
    jobs_all >"$TMP/jobs" || { sleep 0.5; k=$((k + 1)); wait_leader 10; continue; }
    bad=$(cut -d' ' -f1 "$TMP/acked.now" | awk 'NR == FNR { n[$1]++; s[$1] = $2; next }
      { if (n[$1] != 1) print $1 " x" n[$1] + 0; else if (s[$1] !~ /^(done|failed|cancelled)$/) print $1 " " s[$1] }' \
      "$TMP/jobs" -)
    [ -z "$bad" ] && break
    sleep 0.5; k=$((k + 1))
  done
  twice=$(cut -d' ' -f1 "$TMP/jobs" | sort | uniq -d | head -3)
  [ -z "$bad" ] && [ -z "$twice" ] &&
    ok "$1: all $(wc -l <"$TMP/acked.now") submissions answered 2xx so far exist once and ended ($(($(now_ms) - t1)) ms after the check began; leader c$LN, epoch $LE; recovery $rec ms)" ||
    fail "$1: answered submissions missing, doubled or not final: $(echo "$bad" | head -3 | tr '\n' ';') doubled: $twice"
  live_sample
  [ ! -s "$TMP/twice" ] && ok "$1: no task live on two agents at once" ||
    fail "$1: live on two agents: $(sort -u "$TMP/twice" | head -3 | tr '\n' ' ')"
  check_epochs "$1"
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
    st=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$TMP/a$a.sock" -X POST \
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
    curl -s --unix-socket "$TMP/a$a.sock" http://a/metrics |
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

fault_sigstop () {
  wait_leader 30; old=$LN oe=$LE n0=$(exits "$old")
  pid=$(cat "$TMP/c$old.pid")
  t0=$(now_ms)
  kill -STOP "$pid"
  wait_leader 30 "$oe" && [ "$LN" != "$old" ] && ok "sigstop: c$LN leads at epoch $LE after $(($(now_ms) - t0)) ms" ||
    fail "sigstop: no new leader while c$old is stopped"
  while [ $(($(now_ms) - t0)) -lt 10000 ]; do sleep 0.2; done
  r0=$(refused)
  kill -CONT "$pid"
  wait_exit "$old" "$n0" 10 && [ "$(exit_after "$old" "$n0")" = 3 ] &&
    ok "sigstop: c$old resumed after 10 s exited 3 (deposed); its calls refused by the agents: $(($(refused) - r0)) (the others never left)" ||
    fail "sigstop: c$old after SIGCONT: exits $(exits "$old"), status $(exit_after "$old" "$n0")"
  echo "sigstop $(($(refused) - r0))" >>"$TMP/deposed-refused"
  grep -q "no longer the leader at epoch $oe" "$TMP/c$old.log" &&
    ok "sigstop: c$old logged that it no longer leads at epoch $oe (it sends nothing after that)" ||
    fail "sigstop: c$old did not log its deposition at epoch $oe"
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

# faults_run CYCLES: the whole run; prints the recovery times per fault at the end.
faults_run () {
  setup_cgroups
  etcd_start "$TMP/etcd" || { fail "etcd did not start"; exit 1; }
  pg_start "$TMP/pg" || { fail "PostgreSQL did not start"; exit 1; }
  FWD_BASE=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 39000))
  CTLS='' REFUSED_PROBES=0
  : >"$TMP/acked" && : >"$TMP/refused" && : >"$TMP/twice" && : >"$TMP/recovery"
  for n in $(seq $NCTL); do
    fwd_start "$n"
    CTLS="$CTLS${CTLS:+,}unix:$TMP/c$n.sock"
    supervise "$n" &
    echo $! >"$TMP/sup$n.pid"
    wait_leader 20 || { fail "c1 did not lead"; exit 1; }
  done
  start_node 1 --controller "$CTLS"; start_node 2 --controller "$CTLS"
  CSOCK="$TMP/c$LN.sock"
  wait_for 20 '[.nodes[] | select(.state == "ready")] | length == 2' /v1/nodes ||
    { fail "agents not ready: $(cat "$TMP/body")"; exit 1; }
  stream & STREAM_PID=$!
  sleep 2
  for cycle in $(seq "$1"); do
    for fault in kill9 sigstop etcd pg cut; do
      echo "# cycle $cycle: $fault"
      "fault_$fault"
    done
  done
  touch "$TMP/stop"
  wait "$STREAM_PID"; STREAM_PID=
  check end "$(now_ms)"
  echo "submissions: $(wc -l <"$TMP/acked") answered 2xx, $(wc -l <"$TMP/refused") not (refused or timed out during faults)"
  for f in kill9 sigstop etcd pg cut; do
    grep "^$f " "$TMP/recovery" | cut -d' ' -f2 | sort -n |
      awk -v f="$f" '{ v[NR] = $1 } END { if (NR) printf "recovery %-7s n=%d min %d ms, median %d ms, max %d ms\n", f, NR, v[1], v[int((NR + 1) / 2)], v[NR] }'
  done
  echo "deposed leaders' calls refused by agents (per sigstop cycle): $(cut -d' ' -f2 "$TMP/deposed-refused" 2>/dev/null | tr '\n' ' ')"
  cat "$TMP/pg-outages" 2>/dev/null
  [ -s "$TMP/etcd-slow" ] && echo "etcd faults where etcd's own election outlasted the keepalives' margin (failed over): $(cut -d' ' -f2 "$TMP/etcd-slow" | tr '\n' ' ')ms"
  return 0
}
