# Shared by the tests that scrape ebb's daemons with Debian's prometheus
# (tests/test-prometheus-*.sh): a free loopback port, a self-signed certificate for
# 127.0.0.1, a private prometheus (loopback, its own data dir) and queries of its HTTP API.
# Sourced after tests/agent/lib.sh (TMP, fail).
command -v prometheus >/dev/null || skip "needs prometheus (apt-get install prometheus)"
command -v openssl >/dev/null || skip "needs openssl (apt-get install openssl)"
PROM_PID=

# free_port: a loopback port where nothing answers now.
free_port () {
  for try in 1 2 3 4 5 6 7 8; do
    p=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000))
    curl -s -m 1 -o /dev/null "http://127.0.0.1:$p/" || { echo "$p"; return 0; }
  done
  return 1
}

# self_signed: $TMP/cert.pem and $TMP/key.pem for https on 127.0.0.1.
self_signed () {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$TMP/key.pem" -out "$TMP/cert.pem" -days 2 -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
}

# prom_start PORT: prometheus with $TMP/prometheus.yml, its web API on 127.0.0.1:PORT
# (PROM_PORT); the caller stops it (PROM_PID).
prom_start () {
  PROM_PORT=$1
  prometheus --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/prom" \
    --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$TMP/prometheus.log" 2>&1 &
  PROM_PID=$!
}

# query PROMQL: the first sample's value ("" when there is none); the answer in $TMP/q.json.
query () {
  curl -s -m 5 -G "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" >"$TMP/q.json" || return 1
  jq -r '.data.result[0].value[1] // ""' "$TMP/q.json"
}
