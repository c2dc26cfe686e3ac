#!/bin/bash
# The project's own container engines for tests: a private dockerd and a private Podman REST
# service, offline, runc + the cgroupfs driver, every file under one temporary directory and
# every container's cgroups nested under the caller's own memory cgroup. Nothing outside DIR
# is touched except the cgroup directories it creates (and Docker's empty /run/docker/plugins).
#
#   engines.sh start DIR [docker|podman|both]   start the engine(s), import the busybox image;
#                                               writes DIR/env (sourceable) and prints timings
#   engines.sh stop DIR                         remove containers, stop engines by PID,
#                                               remove cgroups, mounts and DIR
#   engines.sh kill-docker DIR                  SIGKILL dockerd (its PID), as a crash would
#   engines.sh start-docker DIR                 start dockerd again on the same data
#   engines.sh kill-podman DIR / start-podman DIR   the same for the Podman service
#   engines.sh docker DIR ARGS... / podman DIR ARGS...   the CLI against the private engine
#
# Exit status: 0; 77 when the engines are not installed or this is not root; 1 on failure.
# Learned on Debian 12 hybrid-cgroup hosts: crun refuses hybrid cgroups here, Podman
# needs ulimits within the hard limits, and its store is configured only through
# CONTAINERS_CONF/CONTAINERS_STORAGE_CONF.
set -u

IMAGE=ebb-rt-busybox:latest
DOCKER_BIN=/usr/bin/docker # not whatever client comes first in PATH
die () { echo "engines.sh: $*" >&2; exit 1; }
now_ms () { date +%s%3N; }

have_engines () {
  local want=$1
  [ "$(id -u)" = 0 ] || { echo "engines.sh: not root" >&2; return 1; }
  command -v runc > /dev/null || { echo "engines.sh: runc not installed" >&2; return 1; }
  if [ "$want" != podman ]; then
    command -v dockerd > /dev/null && [ -x $DOCKER_BIN ] \
      || { echo "engines.sh: docker.io not installed" >&2; return 1; }
  fi
  if [ "$want" != docker ]; then
    command -v podman > /dev/null || { echo "engines.sh: podman not installed" >&2; return 1; }
  fi
  [ -x /bin/busybox ] || { echo "engines.sh: busybox not installed" >&2; return 1; }
}

load_env () {
  T=$1
  [ -f "$T/env" ] || die "$T/env missing (not started?)"
  . "$T/env"
  export CONTAINERS_CONF CONTAINERS_STORAGE_CONF
}

# A busybox root filesystem as a tar, built once per DIR.
make_rootfs () {
  local R=$T/rootfs
  mkdir -p "$R"/bin "$R"/etc "$R"/proc "$R"/sys "$R"/dev "$R"/tmp "$R"/root
  cp /bin/busybox "$R"/bin/busybox
  # The applets tests use (linking all ~400 costs seconds on a loaded machine).
  for a in sh ash cat echo env false head kill ls mkdir ps rm sleep tail test timeout top true \
           yes dd seq wc grep awk sed id; do
    ln -s busybox "$R/bin/$a"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' > "$R"/etc/passwd
  echo 'root:x:0:' > "$R"/etc/group
  tar -C "$R" -cf "$T"/rootfs.tar . && rm -rf "$R"
}

# True while pid runs; a zombie (an orphaned engine nobody reaped yet) counts as gone.
alive () {
  kill -0 "$1" 2> /dev/null && [ "$(awk '{print $3}' "/proc/$1/stat" 2> /dev/null)" != Z ]
}

wait_ping () { # socket, pid, what
  local i
  for i in $(seq 1 1200); do
    curl -s --max-time 1 --unix-socket "$1" http://d/_ping 2> /dev/null | grep -q OK && return 0
    kill -0 "$2" 2> /dev/null || { echo "engines.sh: $3 exited" >&2; return 1; }
    sleep 0.05
  done
  echo "engines.sh: $3 not ready after 60 s" >&2
  return 1
}

start_dockerd () {
  # A dockerd killed with SIGKILL leaves its pid file, which stops the next one from starting.
  # Its containerd dies with it (parent-death signal); a dead one's pid file, or a zombie
  # not yet reaped, makes the next dockerd wait for it and time out.
  local f
  for f in "$T/docker.pid" "$T/docker-exec/containerd/containerd.pid"; do
    [ -f "$f" ] && ! alive "$(cat "$f")" && rm -f "$f"
  done
  # EBB_RT_LIVE_RESTORE=1: containers outlive a dockerd restart (as on many production hosts).
  local live=
  [ "${EBB_RT_LIVE_RESTORE:-0}" = 1 ] && live=--live-restore
  dockerd --iptables=false --ip6tables=false --bridge=none $live \
    --exec-opt native.cgroupdriver=cgroupfs --cgroup-parent="$CG_PARENT-docker" \
    -H "unix://$DOCKER_SOCK" --data-root "$T/docker-data" --exec-root "$T/docker-exec" \
    --pidfile "$T/docker.pid" >> "$T/dockerd.log" 2>&1 &
  echo $! > "$T/dockerd.pid"
  wait_ping "$DOCKER_SOCK" "$(cat "$T/dockerd.pid")" dockerd || { tail -20 "$T/dockerd.log" >&2; return 1; }
}

start_podman () {
  podman system service --time=0 "unix://$PODMAN_SOCK" >> "$T/podman-service.log" 2>&1 &
  echo $! > "$T/podman-service.pid"
  wait_ping "$PODMAN_SOCK" "$(cat "$T/podman-service.pid")" "podman service" \
    || { tail -20 "$T/podman-service.log" >&2; return 1; }
}

write_podman_conf () {
  cat > "$T/containers.conf" << EOC
[containers]
default_ulimits = ["nofile=$(ulimit -Hn):$(ulimit -Hn)", "nproc=32768:32768"]
netns = "none"
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
tmp_dir = "$T/podman-tmp"
volume_path = "$T/podman-root/volumes"
EOC
  cat > "$T/storage.conf" << EOC
[storage]
driver = "overlay"
graphroot = "$T/podman-root"
runroot = "$T/podman-run"
EOC
}

cmd_start () {
  T=$1
  local want=${2:-both}
  have_engines "$want" || exit 77
  mkdir -p "$T" || die "cannot create $T"
  T=$(cd "$T" && pwd)
  # Cgroup parents nest under the caller's memory cgroup (the only hierarchy where the caller
  # may not be at the root), suffixed so parallel runs do not meet.
  local mine
  mine=$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
  [ "$mine" = / ] && mine=
  cat > "$T/env" << EOE
T='$T'
CG_PARENT='$mine/ebb-rt-$$'
DOCKER_SOCK='$T/docker.sock'
PODMAN_SOCK='$T/podman.sock'
CONTAINERS_CONF='$T/containers.conf'
CONTAINERS_STORAGE_CONF='$T/storage.conf'
IMAGE='$IMAGE'
ENGINES='$want'
EOE
  load_env "$T"
  # The engines create the parent path in every hierarchy; remember which directories of it
  # did not exist, so that stop removes them again (deepest first, and only when empty).
  local h d
  for h in /sys/fs/cgroup/*/; do
    d=${h%/}$mine
    while [ -n "$mine" ] && [ "$d" != "${h%/}" ] && [ ! -d "$d" ]; do
      echo "$d" >> "$T/cg-created"
      d=$(dirname "$d")
    done
  done
  local t0 t1
  t0=$(now_ms)
  make_rootfs || die "cannot build the busybox rootfs"
  t1=$(now_ms)
  echo "timing: rootfs ${want} $((t1 - t0)) ms"
  if [ "$want" != docker ]; then
    write_podman_conf
    t0=$(now_ms)
    start_podman || die "podman service did not start"
    t1=$(now_ms)
    echo "timing: podman service ready $((t1 - t0)) ms"
    podman import -q --change 'CMD ["/bin/sh"]' "$T/rootfs.tar" "localhost/$IMAGE" > /dev/null \
      || die "podman import failed"
    t0=$(now_ms)
    echo "timing: podman import $((t0 - t1)) ms"
  fi
  if [ "$want" != podman ]; then
    t0=$(now_ms)
    start_dockerd || die "dockerd did not start"
    t1=$(now_ms)
    echo "timing: dockerd ready $((t1 - t0)) ms"
    $DOCKER_BIN -H "unix://$DOCKER_SOCK" import -c 'CMD ["/bin/sh"]' "$T/rootfs.tar" "$IMAGE" \
      > /dev/null || die "docker import failed"
    t0=$(now_ms)
    echo "timing: docker import $((t0 - t1)) ms"
  fi
}

kill_wait () { # pidfile, signal, seconds
  local pid i
  [ -f "$1" ] || return 0
  pid=$(cat "$1")
  [ -n "$pid" ] || return 0
  kill -"$2" "$pid" 2> /dev/null || return 0
  for i in $(seq 1 $(($3 * 20))); do
    alive "$pid" || return 0
    sleep 0.05
  done
  kill -KILL "$pid" 2> /dev/null
  return 0
}

# Processes that dockerd or Podman started for us (containerd, shims, conmon) are found by
# the private directory on their command line: nobody else's mention it.
# A shim killed this way leaves its socket in /run/containerd/s and runc its state in
# /run/runc: remove those of ours too.
kill_ours () {
  local p socks ids
  socks=$(ss -xlpn 2> /dev/null | awk -v pids=" $(pgrep -f -- "containerd-shim.*$T/" | tr '\n' ' ')" \
    '{ if (match($0, /pid=[0-9]+,/)) { p = substr($0, RSTART + 4, RLENGTH - 5);
         if (index(pids, " " p " ")) print $5 } }' | grep '^/run/containerd/s/')
  ids=$(ls "$T/podman-root/overlay-containers" 2> /dev/null)
  for p in $(pgrep -f -- "$T/" 2> /dev/null); do
    [ "$p" = $$ ] && continue
    kill -KILL "$p" 2> /dev/null
  done
  [ -n "$socks" ] && rm -f $socks
  for p in $ids; do runc delete --force "$p" > /dev/null 2>&1; done
}

# Container processes an engine could not stop (it was dead, or a test froze them) live only
# in the cgroups under our parents: thaw those, SIGKILL what is left, remove the directories.
our_cgroups () {
  local d
  for d in /sys/fs/cgroup/*"$CG_PARENT"-docker /sys/fs/cgroup/*"$CG_PARENT"-podman; do
    [ -d "$d" ] && echo "$d"
  done
}

kill_cgroups () {
  local d f p i left
  for d in $(our_cgroups); do
    case $d in
      /sys/fs/cgroup/freezer/*)
        find "$d" -name freezer.state | while read -r f; do echo THAWED > "$f"; done 2> /dev/null ;;
    esac
  done
  for i in $(seq 1 40); do
    left=0
    for d in $(our_cgroups); do
      for p in $(find "$d" -name cgroup.procs -exec cat {} + 2> /dev/null); do
        kill -KILL "$p" 2> /dev/null && left=1
      done
    done
    [ $left = 0 ] && break
    sleep 0.05
  done
  for d in $(our_cgroups); do
    find "$d" -depth -type d -exec rmdir {} \; 2> /dev/null
    [ -d "$d" ] && echo "engines.sh: could not remove $d" >&2
  done
  [ -f "$T/cg-created" ] && while read -r d; do rmdir "$d" 2> /dev/null; done < "$T/cg-created"
  return 0
}

# DIR lost its env (someone removed the directory under running engines): find the engines
# by DIR on their command lines and the cgroup parent on dockerd's.
recover_env () {
  CG_PARENT=$(pgrep -af -- "$T/" | sed -n 's/.*--cgroup-parent=\([^ ]*\)-docker .*/\1/p' | head -1)
  local c p
  for c in $(pgrep -f -- "conmon .*$T/"); do # Podman only: from a container's own cgroup
    [ -n "$CG_PARENT" ] && break
    for p in $(pgrep -P "$c"); do
      CG_PARENT=$(awk -F: '$2 == "memory" {print $3}' "/proc/$p/cgroup" | sed -n 's|-podman/libpod-.*||p')
      [ -n "$CG_PARENT" ] && break
    done
  done
  DOCKER_SOCK=$T/docker.sock
  echo "engines.sh: $T/env missing; cgroup parent from dockerd: ${CG_PARENT:-unknown}" >&2
}

cmd_stop () {
  T=${1%/}
  if [ -f "$T/env" ]; then
    load_env "$T"
  else
    recover_env
  fi
  if [ -f "$T/podman-service.pid" ] && [ -f "$T/containers.conf" ]; then
    podman rm -af -t 0 > /dev/null 2>&1
    kill_wait "$T/podman-service.pid" TERM 5
  fi
  if [ -f "$T/dockerd.pid" ]; then
    if kill -0 "$(cat "$T/dockerd.pid")" 2> /dev/null; then
      local ids
      ids=$(timeout 20 $DOCKER_BIN -H "unix://$DOCKER_SOCK" ps -aq 2> /dev/null)
      [ -n "$ids" ] && timeout 20 $DOCKER_BIN -H "unix://$DOCKER_SOCK" rm -f $ids > /dev/null 2>&1
    fi
    kill_wait "$T/dockerd.pid" TERM 10
  fi
  kill_ours
  [ -n "${CG_PARENT:-}" ] && kill_cgroups
  sleep 0.1
  # Mounts under DIR (overlay layers, the store's private bind), deepest first.
  awk -v t="$T/" 'index($5, t) == 1 {print $5}' /proc/self/mountinfo | sort -r \
    | while read -r m; do umount -l "$m" 2> /dev/null; done
  rmdir /run/docker/plugins /run/docker 2> /dev/null
  rm -rf "$T"
  return 0
}

cmd=${1:-}
[ $# -ge 2 ] || die "usage: engines.sh start|stop|kill-docker|start-docker|kill-podman|start-podman|docker|podman DIR ..."
case $cmd in
  start) cmd_start "$2" "${3:-both}" ;;
  stop) cmd_stop "$2" ;;
  kill-docker) load_env "$2"; kill_wait "$T/dockerd.pid" KILL 5 ;;
  start-docker) load_env "$2"; start_dockerd || exit 1 ;;
  kill-podman) load_env "$2"; kill_wait "$T/podman-service.pid" KILL 5 ;;
  start-podman) load_env "$2"; start_podman || exit 1 ;;
  docker) load_env "$2"; shift 2; exec $DOCKER_BIN -H "unix://$DOCKER_SOCK" "$@" ;;
  podman) load_env "$2"; shift 2; exec podman "$@" ;;
  *) die "unknown command $cmd" ;;
esac
