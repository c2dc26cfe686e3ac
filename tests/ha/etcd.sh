# Sourced by the HA tests: a 3-member etcd cluster (Debian's etcd-server 3.4) on loopback
# ports in a temporary directory, stopped by PID. Random ports from 20000-60000 so tests
# running side by side do not meet.
#
#   etcd_start DIR      starts the members (data and logs in DIR), waits for a leader;
#                       sets ETCD_ENDPOINTS (client URLs, comma-separated) and ETCD_PIDS
#   etcd_leader         prints the index (1-3) of the member that leads the Raft group
#   etcd_kill I         kill -9 of member I (its slot in ETCD_PIDS is emptied)
#   etcd_restart I      starts member I again on its data dir
#   etcd_stop           kill of every member still running, by PID
#   etcdctl_ ARGS...    etcdctl (API v3) on the cluster
#
# ETCD_N (default 3) members; ETCD_TLS=1: the client URLs are https with a throwaway CA
# (DIR/tls: ca.pem, client.pem, client.key; other.pem is a CA that signed nothing) and
# members require a client certificate from that CA (--client-cert-auth).
ETCD_BIN=${ETCD_BIN:-etcd}
ETCD_PIDS=
ETCD_ENDPOINTS=
ETCD_DIR=
ETCD_N=${ETCD_N:-3}
ETCD_TLS=${ETCD_TLS:-}
ETCD_SCHEME=http

etcd_port () { echo $(( $1 + 2 * ($2 - 1) )); } # etcd_port BASE I: client port of member I

# etcd_member I: starts member I in the background; its PID goes to $ETCD_DIR/pid.I.
etcd_member () {
  i=$1 c=$(etcd_port "$ETCD_BASE" "$1")
  p=$((c + 1)) tls=
  [ -n "$ETCD_TLS" ] && tls="--cert-file $ETCD_DIR/tls/server.pem --key-file $ETCD_DIR/tls/server.key \
    --client-cert-auth --trusted-ca-file $ETCD_DIR/tls/ca.pem"
  # shellcheck disable=SC2086 # $tls: several options
  "$ETCD_BIN" --name "m$i" --data-dir "$ETCD_DIR/m$i" $tls \
    --listen-client-urls "$ETCD_SCHEME://127.0.0.1:$c" --advertise-client-urls "$ETCD_SCHEME://127.0.0.1:$c" \
    --listen-peer-urls "http://127.0.0.1:$p" --initial-advertise-peer-urls "http://127.0.0.1:$p" \
    --initial-cluster "$ETCD_CLUSTER" --initial-cluster-token "ebb-test-$ETCD_BASE" \
    --initial-cluster-state new --heartbeat-interval 100 --election-timeout 1000 \
    --logger zap --log-outputs "$ETCD_DIR/m$i.log" >>"$ETCD_DIR/m$i.out" 2>&1 &
  echo $! >"$ETCD_DIR/pid.$i"
}

etcd_pids () { for i in $(seq "$ETCD_N"); do [ -s "$ETCD_DIR/pid.$i" ] && cat "$ETCD_DIR/pid.$i"; done; }

etcdctl_ () { ETCDCTL_API=3 etcdctl --endpoints "$ETCD_ENDPOINTS" --command-timeout 3s $ETCD_CTL_TLS "$@"; }
ETCD_CTL_TLS=

# etcd_certs DIR: a CA, a server certificate for 127.0.0.1 and a client certificate.
etcd_certs () {
  d=$1 ext="$1/ext"
  mkdir -p "$d" || return 1
  for ca in ca other; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
      -keyout "$d/$ca.key" -out "$d/$ca.pem" -subj "/CN=ebb-test-$ca" 2>/dev/null || return 1
  done
  for who in server client; do
    printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' >"$ext"
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$d/$who.key" \
      -out "$d/$who.csr" -subj "/CN=ebb-test-$who" 2>/dev/null &&
      openssl x509 -req -in "$d/$who.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
        -days 1 -extfile "$ext" -out "$d/$who.pem" 2>/dev/null || return 1
  done
}

etcd_start () {
  ETCD_DIR=$1
  mkdir -p "$ETCD_DIR" || return 1
  # Below Linux's ephemeral ports (32768 up): a member killed and started again finds its
  # port free, not taken by an outgoing connection meanwhile (seen in the fault cycles).
  ETCD_BASE=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom) % 12000 ))
  ETCD_CLUSTER= ETCD_ENDPOINTS=
  if [ -n "$ETCD_TLS" ]; then
    etcd_certs "$ETCD_DIR/tls" || { echo "etcd: openssl failed"; return 1; }
    ETCD_SCHEME=https
    ETCD_CTL_TLS="--cacert $ETCD_DIR/tls/ca.pem --cert $ETCD_DIR/tls/client.pem --key $ETCD_DIR/tls/client.key"
  fi
  for i in $(seq "$ETCD_N"); do
    c=$(etcd_port "$ETCD_BASE" "$i")
    ETCD_CLUSTER="$ETCD_CLUSTER${ETCD_CLUSTER:+,}m$i=http://127.0.0.1:$((c + 1))"
    ETCD_ENDPOINTS="$ETCD_ENDPOINTS${ETCD_ENDPOINTS:+,}$ETCD_SCHEME://127.0.0.1:$c"
  done
  for i in $(seq "$ETCD_N"); do etcd_member "$i"; done
  ETCD_PIDS=$(etcd_pids | tr '\n' ' ')
  k=0
  while [ $k -lt 200 ]; do
    etcd_leader >/dev/null 2>&1 && return 0
    sleep 0.1; k=$((k + 1))
  done
  echo "etcd: no leader after 20 s"; tail -5 "$ETCD_DIR"/m*.out
  return 1
}

etcd_leader () {
  # shellcheck disable=SC2086 # $ETCD_CTL_TLS: several options
  ETCDCTL_API=3 etcdctl --endpoints "$ETCD_ENDPOINTS" --command-timeout 1s $ETCD_CTL_TLS endpoint status -w json 2>/dev/null |
    jq -e -r '[.[] | select(.Status.header.member_id == .Status.leader)][0].Endpoint' |
    { read -r ep || exit 1; for i in $(seq "$ETCD_N"); do
        case $ep in *":$(etcd_port "$ETCD_BASE" "$i")") echo "$i"; exit 0 ;; esac
      done; exit 1; }
}

etcd_kill () {
  [ -s "$ETCD_DIR/pid.$1" ] && kill -9 "$(cat "$ETCD_DIR/pid.$1")" 2>/dev/null
  wait "$(cat "$ETCD_DIR/pid.$1")" 2>/dev/null
  : >"$ETCD_DIR/pid.$1"
  ETCD_PIDS=$(etcd_pids | tr '\n' ' ')
}

etcd_restart () {
  etcd_member "$1"
  ETCD_PIDS=$(etcd_pids | tr '\n' ' ')
}

etcd_stop () {
  [ -n "$ETCD_DIR" ] || return 0
  for i in $(seq "$ETCD_N"); do
    [ -s "$ETCD_DIR/pid.$i" ] || continue
    pid=$(cat "$ETCD_DIR/pid.$i")
    kill "$pid" 2>/dev/null
    k=0
    while kill -0 "$pid" 2>/dev/null && [ $k -lt 50 ]; do sleep 0.1; k=$((k + 1)); done
    kill -9 "$pid" 2>/dev/null
    : >"$ETCD_DIR/pid.$i"
  done
  ETCD_PIDS=
}
