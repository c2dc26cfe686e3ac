#!/bin/sh
# `make install` into a staging directory with a prefix other than /usr: every program, man
# page, unit, example configuration and completion lands where configure said, and what is
# installed names the configured paths, never /usr/sbin or /etc when they were not chosen.
# Budget: about 10 s (an install of already built files).
set -eu
: "${EBB_TOP_BUILDDIR:?}"
stage=$(mktemp -d /tmp/ebb-install-XXXXXX)
trap 'rm -rf "$stage"' EXIT
fail () { echo "FAIL: $*" >&2; exit 1; }
mk () { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$EBB_TOP_BUILDDIR" "$@"; }
var () { mk -f Makefile -f - print-var V="$1" <<'MK'
print-var:
	@echo '$($(V))'
MK
}
prefix=$(var prefix)
sbindir=$(var sbindir)
sysconfdir=$(var sysconfdir)
localstatedir=$(var localstatedir)
libexecdir=$(var libexecdir)
unitdir=$(var systemdsystemunitdir)
compdir=$(var bashcompletiondir)
mandir=$(var mandir)
mk install DESTDIR="$stage" >/dev/null
for f in "$sbindir/ebb-agent" "$sbindir/ebb-controller" "$(var bindir)/ebb-sim" "$libexecdir/ebb/ebb-agent-delegated"; do
  [ -x "$stage$f" ] || fail "$f not installed executable"
done
for f in "$mandir/man8/ebb-agent.8" "$mandir/man1/ebb-sim.1" "$mandir/man5/ebb.conf.5" \
  "$mandir/man8/ebb-controller.8" "$unitdir/ebb-agent.service" "$unitdir/ebb-controller.service" \
  "$sysconfdir/ebb/agent.conf.example" "$sysconfdir/ebb/controller.conf.example" \
  "$compdir/ebb-agent" "$compdir/ebb-sim" "$compdir/ebb-controller"; do
  [ -s "$stage$f" ] || fail "$f not installed"
done
[ -d "$stage$localstatedir/lib/ebb" ] || fail "$localstatedir/lib/ebb not created"
unit=$stage$unitdir/ebb-agent.service
grep -q "^ExecStart=$libexecdir/ebb/ebb-agent-delegated $sbindir/ebb-agent " "$unit" ||
  fail "ExecStart does not name $sbindir: $(grep ExecStart= "$unit")"
grep -q -- "--state-dir $localstatedir/lib/ebb/agent" "$unit" || fail "unit: no --state-dir under $localstatedir"
grep -q '^Delegate=yes' "$unit" || fail "unit: no Delegate=yes"
! grep '^ExecStart=' "$unit" | grep -q -- '--config' || fail "unit makes a config file mandatory"
! grep -n '@[a-z]*@' "$unit" "$stage$sysconfdir/ebb/agent.conf.example" "$stage$libexecdir/ebb/ebb-agent-delegated" ||
  fail "unsubstituted @variables@"
ctlunit=$stage$unitdir/ebb-controller.service
grep -q "^ExecStart=$sbindir/ebb-controller" "$ctlunit" || fail "controller unit: $(grep ExecStart= "$ctlunit")"
! grep '^ExecStart=' "$ctlunit" | grep -q -- '--config' || fail "controller unit makes a config file mandatory"
if [ "$prefix" != /usr ]; then
  ! grep -n '/usr/sbin' "$unit" "$ctlunit" || fail "a unit names /usr/sbin under prefix $prefix"
fi
grep -q "^state_dir = $localstatedir/lib/ebb/agent" "$stage$sysconfdir/ebb/agent.conf.example" ||
  fail "example state_dir is not under $localstatedir"
# Every installed example loads in its own program: with a broken line appended, the program
# stops at that line (and not before: every line of the example was accepted).
for p in ebb-agent ebb-controller; do
  ex=$stage$sysconfdir/ebb/${p#ebb-}.conf.example
  [ -s "$ex" ] || fail "no $ex"
  n=$(($(wc -l <"$ex") + 1))
  { cat "$ex"; echo "= broken"; } >"$stage/probe.conf"
  out=$("$stage$sbindir/$p" --config "$stage/probe.conf" 2>&1 </dev/null) || true
  case $out in *"probe.conf:$n:"*) ;; *) fail "$p does not load ${ex#$stage}: $out" ;; esac
  rm -f "$stage/probe.conf"
done
# The agent reads its default config from the configured sysconfdir.
"$stage$sbindir/ebb-agent" --help | grep -q -- "--config FILE .*(default $sysconfdir/ebb/agent.conf)" ||
  fail "ebb-agent --help: default config is not $sysconfdir/ebb/agent.conf"
# The completions load and complete the programs' options.
if command -v bash >/dev/null; then
  out=$(PATH="$stage$sbindir:$stage$(var bindir):$PATH" bash -c '
    . "$1"; . "$2"; . "$3"
    COMP_WORDS=(ebb-agent --foot); COMP_CWORD=1; _ebb_agent; echo "${COMPREPLY[*]}"
    COMP_WORDS=(ebb-sim --pol); COMP_CWORD=1; _ebb_sim; echo "${COMPREPLY[*]}"
    COMP_WORDS=(ebb-sim --policy ha); COMP_CWORD=2; _ebb_sim; echo "${COMPREPLY[*]}"
    COMP_WORDS=(ebb-controller --node-t); COMP_CWORD=1; _ebb_controller; echo "${COMPREPLY[*]}"' _ \
    "$stage$compdir/ebb-agent" "$stage$compdir/ebb-sim" "$stage$compdir/ebb-controller")
  [ "$out" = "--footprint-memory
--policy
hawk
--node-timeout" ] || fail "completion gave: $out"
fi
mk uninstall DESTDIR="$stage" >/dev/null
left=$(find "$stage" -type f | head -5)
[ -z "$left" ] || fail "uninstall left: $left"
echo "install tree: ok (prefix $prefix)"
