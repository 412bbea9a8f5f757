#!/usr/bin/env bash
# Every command of the README runs as printed. Each ```sh block is a list of
# commands (a line ending in \ continues); each ```python block is one
# script, each ```c block one program (compiled against this tree's headers
# and shared library, then run). A command exits 0 unless it says otherwise in a trailing comment:
# "# exit 2", or "# exit 0|1" for either. A block right after a line
# "<!-- readme-test: skip (why) -->" is not run (builds, installs, CI). A
# plain ``` block right after "<!-- readme-test: output -->" must be exactly
# the stdout of the command run last (the main job's output as shown).
# Commands run in a scratch folder where ./build/kvplan (and kvplan on PATH)
# is the binary under test and tests/, data/, examples/, python/ are the
# repository's, so files they write (sim.svg, docs/img/...) stay there.
# $1 = kvplan binary, $2 = source tree, $3 = libkvplan.so (for python blocks).
set -uo pipefail
kvplan=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") src=$(cd "$2" && pwd) lib=${3:-}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/run/build" "$tmp/run/docs/img" "$tmp/hf"
ln -s "$kvplan" "$tmp/run/build/kvplan"
for d in tests data examples python scripts; do ln -s "$src/$d" "$tmp/run/$d"; done
export PATH="$tmp/run/build:$PATH" HF_HOME="$tmp/hf" PYTHONPATH="$src/python" \
       PYTHONDONTWRITEBYTECODE=1 KVPLAN_CLI="$kvplan"
# The shared library beside the binary (a build tree) unless given.
[ -z "$lib" ] && [ -e "$(dirname "$kvplan")/libkvplan.so.1" ] && lib=$(dirname "$kvplan")/libkvplan.so.1
[ -n "$lib" ] && export KVPLAN_LIBRARY="$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")"
# A sanitizer build's library cannot be loaded into python3 or an
# uninstrumented program: python and C blocks are run by the plain builds only.
py_ok=1
# (ldd's output is taken whole first: grep -q closing the pipe early would
# fail the pipeline under pipefail and hide the match.)
linked=$(ldd "$kvplan" 2>/dev/null || true)
grep -qE 'lib(a|t|ub)san' <<<"$linked" && py_ok=0
unset HF_HUB_CACHE KVPLAN_GPU_CATALOG

fail=0 ran=0
run() { # kind, text, expected statuses (a|b), line
  local kind=$1 text=$2 want=$3 line=$4 rc=0 out
  if [ "$kind" = python ]; then
    out=$(cd "$tmp/run" && python3 -c "$text" 2>&1) || rc=$?
  elif [ "$kind" = c ]; then
    printf '%s' "$text" >"$tmp/example.c"
    out=$(cc -std=c11 -Wall -Wextra -Werror -I"$src/include" -I"$(dirname "$kvplan")/include" \
            "$tmp/example.c" "$KVPLAN_LIBRARY" -Wl,-rpath,"$(dirname "$KVPLAN_LIBRARY")" \
            -o "$tmp/example" 2>&1 && cd "$tmp/run" && "$tmp/example" 2>&1) || rc=$?
  else
    out=$(cd "$tmp/run" && bash -c "$text" 2>"$tmp/stderr" </dev/null) || rc=$?
    [ $rc = 0 ] || out+=$'\n'$(cat "$tmp/stderr")
  fi
  ran=$((ran + 1))
  last_out=$out
  if ! grep -qxE "$want" <<<"$rc"; then
    echo "FAIL: README.md:$line exit $rc (expected $want): $text"
    printf '%s\n' "$out" | tail -n 5 | sed 's/^/    /'
    fail=1
  fi
}

lineno=0 in=none skip=0 prev="" cmd="" cmd_line=0 py="" py_line=0 last_out="" shown="" shown_line=0
while IFS= read -r l || [ -n "$l" ]; do
  lineno=$((lineno + 1))
  case $in in
    none)
      if [[ $l == '```' && $prev == '<!-- readme-test: output -->' ]]; then
        in=output shown="" shown_line=$((lineno + 1))
      elif [[ $l == '```sh' || $l == '```python' || $l == '```c' ]]; then
        in=${l#\`\`\`}
        [[ $prev == '<!-- readme-test: skip'* ]] && skip=1 || skip=0
        py="" py_line=$((lineno + 1))
      fi
      [ -n "$l" ] && prev=$l ;;
    output)
      if [[ $l == '```' ]]; then
        if [ "$shown" != "$last_out"$'\n' ]; then
          echo "FAIL: README.md:$shown_line shows output the command above does not print:"
          diff <(printf '%s' "$shown") <(printf '%s\n' "$last_out") | head -n 20 | sed 's/^/    /'
          fail=1
        fi
        in=none prev=""
      else
        shown+=$l$'\n'
      fi ;;
    sh|python|c)
      if [[ $l == '```' ]]; then
        [ "$in" != sh ] && [ $skip = 0 ] && [ $py_ok = 1 ] && [ -n "${KVPLAN_LIBRARY:-}" ] &&
          run "$in" "$py" 0 "$py_line"
        in=none prev=""
        continue
      fi
      [ $skip = 1 ] && continue
      if [ "$in" != sh ]; then py+=$l$'\n'; continue; fi
      [ -z "$cmd" ] && cmd_line=$lineno
      if [[ $l == *\\ ]]; then cmd+=${l%\\}' '; continue; fi
      cmd+=$l
      trimmed=${cmd#"${cmd%%[![:space:]]*}"}
      if [ -n "$trimmed" ] && [[ $trimmed != \#* ]]; then
        want=0
        if [[ $cmd =~ \#.*exit\ ([0-9|]+) ]]; then want=${BASH_REMATCH[1]}; fi
        run sh "$cmd" "$want" "$cmd_line"
      fi
      cmd="" ;;
  esac
done <"$src/README.md"
[ $ran -ge 20 ] || { echo "FAIL: only $ran commands found in README.md"; fail=1; }
[ $fail = 0 ] && echo "ok: $ran README commands ran as printed"
exit $fail
