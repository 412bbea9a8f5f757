#!/usr/bin/env bash
# The man page and the bash completion match the CLI's real options.
#  - every command of `kvplan --help` has a section in the generated kvplan.1
#    that lists every option its `--help` lists;
#  - the completion offers exactly those commands and, after `kvplan CMD --`,
#    exactly those options;
#  - every option a help text lists is one the command accepts (not "unknown
#    option"), so help, man page and completion cannot name a flag that is not
#    there.
# $1 = kvplan binary (its folder holds kvplan.1), $2 = source tree.
set -euo pipefail
kvplan=$1 src=$2
man=$(dirname "$kvplan")/kvplan.1
fail=0
[ -f "$man" ] || { echo "FAIL: $man not generated"; exit 1; }
# The options a help text defines; cross-references to another command's option
# ("kvplan local --list", "usable with --gpu") are not the command's own.
opts() { "$kvplan" "$1" --help 2>/dev/null |
         sed -E 's/kvplan [a-z]+ --[a-z-]+//g; s/usable with --[a-z-]+//g' | grep -oE -- '(^|[][ ,|(/])--?[a-zA-Z][a-zA-Z0-9-]*' |
         sed 's#^[][ ,|(/]##' | sort -u; }
commands=$("$kvplan" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 9 ] || { echo "FAIL: commands not found in kvplan --help"; exit 1; }

# shellcheck disable=SC1091
source "$src/docs/kvplan.bash-completion"
complete_words() { # words... ; the last one is the word being completed
  COMP_WORDS=("$kvplan" "$@"); COMP_CWORD=$#; COMPREPLY=()
  _kvplan; printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
want=$(printf '%s\nhelp\n' "$commands" | sort -u)
got=$(complete_words "")
[ "$got" = "$want" ] || { echo "FAIL: completion of commands:"; diff <(echo "$want") <(echo "$got"); fail=1; }

for cmd in $commands; do
  section=$(awk -v c="kvplan $cmd" '$0 == ".SS " c {on = 1; next} /^\.S[SH] / {on = 0} on' "$man")
  [ -n "$section" ] || { echo "FAIL: kvplan.1 has no section for $cmd"; fail=1; continue; }
  want=$(opts "$cmd")
  for o in $want; do
    grep -qF -- "$o" <<<"$section" || { echo "FAIL: kvplan.1 ($cmd) lacks $o"; fail=1; }
    # An engine's spelling is accepted under that engine's policy (plan --help
    # lists them in its "--policy" part): refused only when every policy refuses it.
    refused=1
    for pol in "" vllm sglang llamacpp; do
      args=("$cmd"); [ -n "$pol" ] && args+=(--policy "$pol")
      err=$("$kvplan" "${args[@]}" "$o" 2>&1 </dev/null || true)
      grep -q "unknown option" <<<"$err" || { refused=0; break; }
      [ "$cmd" = plan ] || break
    done
    [ $refused = 0 ] || { echo "FAIL: '$cmd --help' lists $o, which $cmd refuses: $err"; fail=1; }
  done
  got=$(complete_words "$cmd" "-")
  [ "$got" = "$(printf '%s\n' "$want" | grep -E -- '^-' | sort -u)" ] ||
    { echo "FAIL: completion of '$cmd -':"; diff <(echo "$want") <(echo "$got"); fail=1; }
done
# Values: engines after --policy.
got=$(complete_words plan --policy "")
[ "$got" = "$(printf '%s\n' help llamacpp sglang trtllm vllm)" ] || { echo "FAIL: --policy values: $got"; fail=1; }
[ $fail = 0 ] && echo "ok: man page and completion list the options of $(echo $commands | wc -w) commands"
exit $fail
