#!/bin/sh
# Options and settings are documented both ways, for every program of the tree:
#   - every option its --help lists is an entry of the OPTIONS section of its man page (the tag
#     line after a .TP), and every such entry is an option its --help lists;
#   - for the daemons with a configuration file (ebb-agent, ebb-controller), every setting the
#     program accepts is an entry of its section of ebb.conf(5), and every entry there is a
#     setting the program accepts.
# The settings a program accepts are asked of the program itself: a file "KEY = x" followed
# by a broken line makes it exit before doing anything, saying 'unknown key "KEY"' (or
# 'unknown setting "KEY"') only when KEY is not one of its settings. Candidates are the man
# page's keys and the program's long options with '-' read as '_' (the tables map options to
# settings that way).
# Subcommands with their own --help (ebbctl COMMAND, ebb-sim gen GENERATOR) are checked the
# same way against the section of the man page that documents them (COMMANDS, GENERATORS):
#   - the subcommands the program's list shows (the indented names under its "Commands:" or
#     "Generators:" heading) are the entries of that section (the tag's first word after the
#     program's prefix), both ways;
#   - each one's --help exits 0 and names it on its Usage line (not a parent's help), and its
#     options are the ones its entry's tag line (its synopsis) shows, plus those the section's
#     introduction (before its first entry) gives to every subcommand (-h, --help), both ways.
# A program is skipped only when its source is not in the tree; when the source is there and
# the program is not built, or its man page is missing, that is a failure.
# Budget: about 6 s on a loaded 2-core host (one --help per program and per subcommand, one
# short run per candidate setting).
set -u
top=${EBB_TOP_SRCDIR:-.}
build=${EBB_TOP_BUILDDIR:-.}
tmp=$(mktemp -d /tmp/ebb-docs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
failures=0
checked=0
bad () { echo "FAIL: $*"; failures=$((failures + 1)); }

# has_main DIR: the part's program is in the tree (a .c file in DIR defines main).
has_main () {
  [ -d "$top/$1" ] && grep -l -E '^(int )?main ?\(' "$top/$1"/*.c >/dev/null 2>&1
}

# find_prog NAME: the built program (top of the build tree or one level down).
find_prog () {
  for p in "$build/$1" "$build"/*/"$1"; do
    [ -f "$p" ] && [ -x "$p" ] && { echo "$p"; return 0; }
  done
  return 1
}

# help_opts PROG [ARG...]: the options of PROG ARG... --help: from each line that starts with
# blanks and a dash, the text before the description (two blanks), its -x and --name tokens.
help_opts () {
  "$@" --help 2>&1 | awk '
    /^[ \t]+-/ {
      sub(/^[ \t]+/, ""); i = index($0, "  "); s = i ? substr($0, 1, i - 1) : $0
      while (match(s, /(^|[ ,\[])--?[A-Za-z0-9][A-Za-z0-9-]*/)) {
        t = substr(s, RSTART, RLENGTH); sub(/^[ ,\[]/, "", t); print t
        s = substr(s, RSTART + RLENGTH)
      }
    }' | sort -u
}

# deroff: roff escapes and font changes out of a tag line.
deroff () {
  sed -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\(..//g' \
    -e 's/^\.[A-Z]* *//' -e 's/"//g'
}

# man_tags FILE SECTION: the tag line after each .TP in .SH SECTION (until the next .SH).
man_tags () {
  awk -v sec="$2" '
    /^\.SH/ { t = $0; sub(/^\.SH[ \t]+/, "", t); gsub(/"/, "", t); in_sec = (t == sec); next }
    in_sec && /^\.TP/ { want = 1; next }
    in_sec && want { print; want = 0 }' "$1" | deroff
}

# opt_tokens: the -x and --name tokens of the text on stdin ("[-o|--output FILE]",
# "(--class X|--preset Y)" included), one a line, sorted.
opt_tokens () {
  grep -o -E '(^|[ ,|(\[])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^[ ,|(\[]//' | sort -u
}

# man_opts FILE: the -x and --name tokens of the OPTIONS entries.
man_opts () {
  man_tags "$1" OPTIONS | opt_tokens
}

# man_intro FILE SECTION: the text of .SH SECTION before its first .TP.
man_intro () {
  awk -v sec="$2" '
    /^\.SH/ { t = $0; sub(/^\.SH[ \t]+/, "", t); gsub(/"/, "", t); in_sec = (t == sec); next }
    in_sec && /^\.TP/ { exit }
    in_sec { print }' "$1" | deroff
}

# accepts_setting PROG KEY: 0 when PROG's configuration parser knows KEY.
accepts_setting () {
  printf '%s = x\n= broken line: stop here\n' "$2" >"$tmp/probe.conf"
  out=$(timeout 10 "$1" --config "$tmp/probe.conf" 2>&1 </dev/null)
  case $out in *"unknown setting \"$2\""* | *"unknown key \"$2\""*) return 1 ;; esac
  return 0
}

# check_options NAME PROG MAN
check_options () {
  help_opts "$2" >"$tmp/help"
  man_opts "$3" >"$tmp/man"
  [ -s "$tmp/help" ] || bad "$1 --help lists no option"
  [ -s "$tmp/man" ] || bad "$3: no option entries (.TP) in OPTIONS"
  for o in $(comm -23 "$tmp/help" "$tmp/man"); do bad "$1: $o is in --help but not in OPTIONS of $(basename "$3")"; done
  for o in $(comm -13 "$tmp/help" "$tmp/man"); do bad "$1: $o is in $(basename "$3") OPTIONS but not in --help"; done
  echo "$1: $(wc -l <"$tmp/help") options in --help, $(wc -l <"$tmp/man") in $(basename "$3")"
}

# check_settings NAME PROG SECTION
check_settings () {
  conf5=$top/man/ebb.conf.5
  # keys are the tag's words before its "(type; default)": "docker_socket, podman_socket (...)"
  man_tags "$conf5" "$3" | sed 's/(.*//' | tr ', ' '\n\n' | grep -E '^[a-z][a-z0-9_]*$' |
    sort -u >"$tmp/keys"
  [ -s "$tmp/keys" ] || bad "ebb.conf(5): no setting entries (.TP) in $3"
  { cat "$tmp/keys"; sed -n 's/^--//p' "$tmp/help" | tr - _; } | sort -u >"$tmp/cand"
  : >"$tmp/known"
  for k in $(cat "$tmp/cand"); do
    accepts_setting "$2" "$k" && echo "$k" >>"$tmp/known"
  done
  sort -u -o "$tmp/known" "$tmp/known"
  [ -s "$tmp/known" ] || bad "$1 accepts none of the candidate settings (probe broken?)"
  for k in $(comm -23 "$tmp/known" "$tmp/keys"); do bad "$1: setting $k is not in ebb.conf(5) $3"; done
  for k in $(comm -13 "$tmp/known" "$tmp/keys"); do bad "$1: ebb.conf(5) $3 lists $k, which $1 does not accept"; done
  echo "$1: $(wc -l <"$tmp/known") settings accepted, $(wc -l <"$tmp/keys") in ebb.conf(5) $3"
}

# help_subcmds PROG ARG...: the subcommands PROG ARG... --help lists: under its line that
# starts "Commands" or "Generators", each line indented by exactly two blanks, its first word
# (the descriptions below each are indented further); the list ends at a blank line.
help_subcmds () {
  "$@" --help 2>&1 | awk '
    /^(Commands|Generators)/ { on = 1; next }
    on && /^$/ { exit }
    on && /^  [a-z]/ { print $1 }' | sort -u
}

# check_subcmds NAME PROG MAN SECTION PREFIX CALL...: PREFIX the words before a subcommand's
# name in the section's tags ("ebb-sim gen ", "" for none), CALL the arguments before its name
# on the command line (none for ebbctl).
check_subcmds () {
  name=$1 prog=$2 man=$3 sec=$4 prefix=$5
  shift 5
  [ $# = 0 ] || name="$name $*"
  help_subcmds "$prog" "$@" >"$tmp/subs"
  man_tags "$man" "$sec" >"$tmp/tags"
  awk -v p="$prefix" 'index($0, p) == 1 { $0 = substr($0, length(p) + 1); print $1 }' \
    "$tmp/tags" | sort -u >"$tmp/entries"
  man_intro "$man" "$sec" | opt_tokens >"$tmp/common"
  [ -s "$tmp/subs" ] || bad "$name --help lists no subcommand"
  [ -s "$tmp/entries" ] || bad "$(basename "$man"): no entries \"$prefix...\" in $sec"
  for s in $(comm -23 "$tmp/subs" "$tmp/entries"); do bad "$name: $s is in --help but not in $sec of $(basename "$man")"; done
  for s in $(comm -13 "$tmp/subs" "$tmp/entries"); do bad "$name: $s is in $sec of $(basename "$man") but not in --help"; done
  n=0
  for s in $(comm -12 "$tmp/subs" "$tmp/entries"); do
    n=$((n + 1))
    out=$("$prog" "$@" "$s" --help 2>&1)
    rc=$?
    [ "$rc" = 0 ] || bad "$name $s --help exits $rc"
    echo "$out" | head -n 1 | grep -q -E "^Usage: .* $s( |\$)" ||
      bad "$name $s --help is not its own (first line: $(echo "$out" | head -n 1))"
    help_opts "$prog" "$@" "$s" >"$tmp/shelp"
    awk -v p="$prefix" -v s="$s" 'index($0, p) == 1 { t = substr($0, length(p) + 1); split(t, w, " ")
      if (w[1] == s) print t }' "$tmp/tags" | opt_tokens | sort -u - "$tmp/common" >"$tmp/sman"
    [ -s "$tmp/shelp" ] || bad "$name $s --help lists no option"
    for o in $(comm -23 "$tmp/shelp" "$tmp/sman"); do bad "$name $s: $o is in its --help but not in its $sec entry of $(basename "$man")"; done
    for o in $(comm -13 "$tmp/shelp" "$tmp/sman"); do bad "$name $s: $o is in its $sec entry of $(basename "$man") but not in its --help"; done
  done
  echo "$name: $(wc -l <"$tmp/subs") subcommands in --help, $(wc -l <"$tmp/entries") in $(basename "$man") $sec, $n checked"
}

# NAME SOURCE-DIR MAN-PAGE SETTINGS-SECTION (- for none)
while read -r name dir man section; do
  if ! has_main "$dir"; then
    echo "$name: not in this tree ($dir/ has no main), skipped"
    continue
  fi
  prog=$(find_prog "$name") || { bad "$name: source in $dir/ but no built $name in $build"; continue; }
  [ -f "$top/man/$man" ] || { bad "$name: no man page man/$man"; continue; }
  checked=$((checked + 1))
  check_options "$name" "$prog" "$top/man/$man"
  [ "$section" = - ] || check_settings "$name" "$prog" "$section"
done <<EOF2
ebb-agent agent ebb-agent.8 AGENT SETTINGS
ebb-sim sim ebb-sim.1 -
ebb-controller controller ebb-controller.8 CONTROLLER SETTINGS
ebbctl cli ebbctl.1 -
EOF2

# NAME SOURCE-DIR MAN-PAGE SECTION TAG-PREFIX(- for none) CALL...
nsub=0
while read -r name dir man sec prefix call; do
  has_main "$dir" || continue
  prog=$(find_prog "$name") || continue # a failure above already
  [ "$prefix" = - ] && prefix= || prefix=$(echo "$prefix" | tr _ ' ')
  # shellcheck disable=SC2086 # CALL is words
  check_subcmds "$name" "$prog" "$top/man/$man" "$sec" "$prefix" $call
  nsub=$((nsub + 1))
done <<EOF3
ebb-sim sim ebb-sim.1 GENERATORS ebb-sim_gen_ gen
ebbctl cli ebbctl.1 COMMANDS -
EOF3

# The policy parameters (one table, policies/param.c) are documented where each program
# offers them: ebb-sim's as options, checked above with the others; the controller's keys of
# --policy-opt, which its --help lists one a line under --policy-opt ("      KEY=VALUE
# ..."), are the entries of POLICY PARAMETERS in ebb-controller(8), both ways.
if has_main controller && prog=$(find_prog ebb-controller); then
  "$prog" --help 2>&1 | awk '
    /^  --policy-opt / { on = 1; next }
    on && /^  --/ { exit }
    on && /^      [a-z]/ { sub(/^ +/, ""); sub(/=.*/, ""); print }' | sort -u >"$tmp/pkeys"
  man_tags "$top/man/ebb-controller.8" "POLICY PARAMETERS" | sed 's/=.*//' | sort -u >"$tmp/pman"
  [ -s "$tmp/pkeys" ] || bad "ebb-controller --help lists no key under --policy-opt"
  [ -s "$tmp/pman" ] || bad "ebb-controller.8: no entries in POLICY PARAMETERS"
  for k in $(comm -23 "$tmp/pkeys" "$tmp/pman"); do bad "ebb-controller: policy parameter $k is in --help but not in POLICY PARAMETERS of ebb-controller.8"; done
  for k in $(comm -13 "$tmp/pkeys" "$tmp/pman"); do bad "ebb-controller: ebb-controller.8 POLICY PARAMETERS lists $k, which --help does not"; done
  echo "ebb-controller: $(wc -l <"$tmp/pkeys") policy parameters in --help, $(wc -l <"$tmp/pman") in ebb-controller.8"
fi

# Each daemon's FILES section names its configuration file.
for d in agent controller; do
  man_tags "$top/man/ebb-$d.8" FILES | grep -q "^/etc/ebb/$d\.conf\$" ||
    bad "ebb-$d.8: FILES does not name /etc/ebb/$d.conf"
done

# Every environment variable a program reads is an entry of its page's ENVIRONMENT: each
# quoted name in a getenv's argument (several a line, "getenv (rows ? "A" : "B")" too), each
# name of an entry's tag ("LINES, COLUMNS").
while read -r dir man; do
  for v in $(grep -h -o -E 'getenv \([^)]*\)' "$top/$dir"/*.c | grep -o -E '"[A-Z][A-Z0-9_]*"' | tr -d '"' | sort -u); do
    man_tags "$top/man/$man" ENVIRONMENT | tr ', ' '\n\n' | grep -qx "$v" || bad "$man: ENVIRONMENT lacks $v"
  done
done <<EOF4
agent ebb-agent.8
controller ebb-controller.8
cli ebbctl.1
sim ebb-sim.1
EOF4

# Every man page's footer (.TH's fourth field) is "ebb VERSION", the version configure gave
# (config.h): pages written at different times must not disagree on what they describe.
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$build/config.h" 2>/dev/null)
[ -n "$version" ] || bad "no PACKAGE_VERSION in $build/config.h"
npages=0
for m in "$top"/man/*.[1-8]; do
  th=$(sed -n 's/^\.TH[ \t]*//p' "$m" | head -n 1)
  # The .TH words, quoted ones whole; no expansion (set -f, and our own pages only).
  footer=$(set -f; eval "set -- $th"; echo "${4:-}")
  [ "$footer" = "ebb $version" ] || bad "$(basename "$m"): footer '$footer', want 'ebb $version' (.TH)"
  npages=$((npages + 1))
done
[ "$npages" -ge 5 ] || bad "only $npages man pages found in $top/man"

# Every default path a program's --help prints ("default /x", "default unix:/x") is in its man
# page: as printed, or with the configured directories written as the pages write them for a
# reader of any build (sysconfdir, localstatedir: /usr/local/etc here, /etc in the Debian
# package), so that neither a --help nor a page can drift alone.
mkvar () { sed -n "s/^$1 = //p" "$build/Makefile" | head -n 1; }
prefix=$(mkvar prefix)
sysconfdir=$(eval "echo $(mkvar sysconfdir)")
localstatedir=$(eval "echo $(mkvar localstatedir)")
[ -n "$prefix" ] && [ -n "$sysconfdir" ] && [ -n "$localstatedir" ] ||
  bad "cannot read prefix, sysconfdir, localstatedir from $build/Makefile"
npaths=0
while read -r name man; do
  prog=$(find_prog "$name") || continue # a failure above already
  deroff <"$top/man/$man" | tr -s ' \n' '  ' >"$tmp/mantext"
  for p in $("$prog" --help 2>&1 | grep -o -E 'default:? (unix:)?/[^ ,;)]+' |
    sed -E 's/^default:? (unix:)?//; s/[.]$//' | sort -u); do
    generic=$(echo "$p" | sed -e "s|^$sysconfdir/|sysconfdir/|" -e "s|^$localstatedir/|localstatedir/|")
    grep -q -F -- "$p" "$tmp/mantext" || grep -q -F -- "$generic" "$tmp/mantext" ||
      bad "$name --help's default $p ($generic) is not in $man"
    npaths=$((npaths + 1))
  done
done <<EOF5
ebb-agent ebb-agent.8
ebb-controller ebb-controller.8
ebbctl ebbctl.1
ebb-sim ebb-sim.1
EOF5
[ "$npaths" -ge 8 ] || bad "only $npaths default paths found in the programs' --help"
echo "docs-options: $npages man page footers, $npaths default paths of --help checked"

[ "$checked" -gt 0 ] || bad "no program checked"
echo "docs-options: $checked program(s) and the subcommands of $nsub checked, $failures failure(s)"
[ "$failures" = 0 ]
