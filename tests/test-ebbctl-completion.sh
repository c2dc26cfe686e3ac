#!/bin/bash
# The bash completion of ebbctl: commands, global and per-command options, option values, the
# task's command line after "submit --", and that every option of `ebbctl --help` is offered;
# ebb-controller's file options complete file names.
# Budget: about 1 s.
: "${EBB_TOP_SRCDIR:=.}" "${EBB_TOP_BUILDDIR:=.}"
skip () { echo "SKIP: $*"; [ "${EBB_TEST_STRICT:-0}" = 1 ] && exit 1; exit 77; }
BC=/usr/share/bash-completion/bash_completion
[ -r $BC ] || skip "needs the bash-completion package"
[ -x "$EBB_TOP_BUILDDIR/ebbctl" ] || skip "no ebbctl"
FAILED=0
fail () { echo "FAIL: $*"; FAILED=1; }
ok () { echo "ok: $*"; }
. $BC
. "$EBB_TOP_SRCDIR/contrib/bash-completion/ebbctl"
export PATH="$EBB_TOP_BUILDDIR:$PATH"
# No cluster here: id completion must stay quiet and fast.
export EBB_CONTROLLER=unix:/nonexistent.sock EBB_AGENT=unix:/nonexistent.sock

# complete LINE: COMPREPLY for the line as typed (the cursor at its end).
complete_line () {
  COMP_LINE=$1 COMP_POINT=${#1}
  read -r -a COMP_WORDS <<<"$1"
  [[ $1 == *' ' ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _ebbctl ebbctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
  echo "${COMPREPLY[*]}"
}
expect () { # expect LINE WANTED...: every WANTED word is offered
  local got; got=" $(complete_line "$1") "
  local line=$1
  shift
  for w in "$@"; do [[ $got == *" $w "* ]] || { fail "'$line' misses $w: got$got"; return; }; done
  ok "completes $*"
}
expect "ebbctl " status nodes node drain undrain jobs job submit adopt kill decisions watch tasks task suspend resume
expect "ebbctl --" --controller --agent --token-file --ca-file --json --help --version
expect "ebbctl --json su" submit suspend
expect "ebbctl submit --" --name --class --tasks --cpu --memory --est --wait --json
# submit --json FILE: file names (the global --json takes no value).
d=$(mktemp -d /tmp/ebb-completion.XXXXXX) || exit 99
touch "$d/dag.json"
got=$(complete_line "ebbctl submit --json $d/da")
[[ " $got " == *" $d/dag.json "* ]] && ok "submit --json: file names" || fail "submit --json: $got"
rm -rf "$d"
expect "ebbctl submit --class " short long auto
expect "ebbctl adopt --" --name --class --container --runtime --cgroup --cpu --memory
expect "ebbctl adopt --runtime " docker podman
expect "ebbctl --agent unix:/x suspend b1 --mode " immediate graceful
expect "ebbctl suspend b1 --" --mode --cpu --memory
expect "ebbctl watch --" --interval --count
expect "ebbctl decisions --" --follow
expect "ebbctl jobs --" --all --active --state --class --name --output --json
expect "ebbctl jobs --state " queued running done failed killed active
expect "ebbctl jobs -o " json wide name
expect "ebbctl -o " json wide name
# An address with ':' as bash splits it (COMP_WORDBREAKS: "127.0.0.1" ":" "74"): still one
# address to complete, and the command after it still found.
complete_split () { # like complete_line, the words split at ':' as bash does
  COMP_LINE=$1 COMP_POINT=${#1}
  local w; COMP_WORDS=()
  for w in $1; do
    while [[ $w == *:* ]]; do COMP_WORDS+=("${w%%:*}" ":"); w=${w#*:}; done
    COMP_WORDS+=("$w")
  done
  [[ $1 == *' ' ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _ebbctl ebbctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
  echo "${COMPREPLY[*]}"
}
got=$(complete_split "ebbctl --controller 127.0.0.1:74")
[[ " $got " == *" 7480 "* ]] && ok "an address after its ':': completed (the part after the ':')" || fail "address with ':': '$got'"
got=$(complete_split "ebbctl --controller 127.0.0.1:7480 jo")
[[ " $got " == *" jobs "* && " $got " == *" job "* ]] && ok "a command after an address with ':'" || fail "command after host:port: '$got'"
got=$(complete_split "ebbctl --controller 127.0.0.1:7480 jobs --st")
[[ $got == --state ]] && ok "a command's option after an address with ':'" || fail "option after host:port: '$got'"
# After "submit --" the words are a program's: bash's own command completion takes over.
got=$(complete_line "ebbctl submit --tasks 2 -- ech")
[[ " $got " == *" echo "* ]] && ok "after --: commands" || fail "after --: $got"

# Every option in ebbctl --help is offered somewhere.
all=$( { complete_line "ebbctl --"; for c in submit adopt suspend watch decisions jobs history status logs; do complete_line "ebbctl $c --"; done; } | tr ' ' '\n' | sort -u)
# The options are read from the help's option lines (two blanks, then --); a help with fewer
# than the 21 of today would leave this loop checking little, or nothing.
help_opts=$(ebbctl --help | grep -o -E -- '^  (-[a-z], )?--[a-z-]+' | sed 's/^ *\(-[a-z], \)\?//' | sort -u)
nopts=$(echo "$help_opts" | grep -c .)
[ "$nopts" -ge 21 ] || fail "ebbctl --help shows only $nopts options"
missing=0
for o in $help_opts; do
  echo "$all" | grep -qx -- "$o" || { fail "--help has $o, completion does not offer it"; missing=1; }
done
[ "$nopts" -ge 21 ] && [ $missing = 0 ] && ok "each of the $nopts options of --help is completed"

# ebb-controller's completion: the options taking a file complete file names.
. "$EBB_TOP_SRCDIR/contrib/bash-completion/ebb-controller"
d=$(mktemp -d /tmp/ebb-completion.XXXXXX) || exit 99
touch "$d/cert.pem"
for o in --config --token-file --tls-cert --tls-key --agent-ca; do
  COMP_WORDS=(ebb-controller "$o" "$d/ce") COMP_CWORD=2 COMPREPLY=()
  _ebb_controller
  [[ " ${COMPREPLY[*]} " == *" $d/cert.pem "* ]] && ok "ebb-controller $o: file names" ||
    fail "ebb-controller $o: got ${COMPREPLY[*]}"
done
rm -rf "$d"
exit $FAILED
