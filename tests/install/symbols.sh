#!/usr/bin/env bash
# The shared library exports exactly the public API: every dynamic symbol it
# defines is a kvp_ function declared KVP_API in include/kvplan/*.h (or the
# generated version.h), and every such declaration is exported.
# $1 = libkvplan.so, $2 = source tree, $3 = build tree.
set -euo pipefail
lib=$1 src=$2 build=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TtDdBbRrVvWw]$/ {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exported"
cat "$src"/include/kvplan/*.h "$build/include/kvplan/version.h" |
  grep -E '^KVP_API ' | grep -oE 'kvp_[a-z0-9_]+\(' | tr -d '(' | sort -u >"$tmp/declared"
fail=0
if grep -qv '^kvp_' "$tmp/exported"; then
  echo "FAIL: symbols outside the kvp_ namespace are exported:"; grep -v '^kvp_' "$tmp/exported" | head; fail=1
fi
if grep -q '^kvp__' "$tmp/exported"; then
  echo "FAIL: kvp__ internals are exported:"; grep '^kvp__' "$tmp/exported" | head; fail=1
fi
if ! diff -u "$tmp/declared" "$tmp/exported" >"$tmp/diff"; then
  echo "FAIL: KVP_API declarations (-) and exported symbols (+) differ:"; cat "$tmp/diff"; fail=1
fi
n=$(wc -l <"$tmp/exported")
[ "$n" -ge 150 ] || { echo "FAIL: only $n symbols exported"; fail=1; }
# Whole outputs first: grep -q closing a pipe early fails the pipeline under pipefail.
dyn=$(objdump -p "$lib")
grep -q 'SONAME *libkvplan\.so\.[0-9]' <<<"$dyn" || { echo "FAIL: no SONAME libkvplan.so.MAJOR"; fail=1; }
grep -q 'NEEDED *libjansson' <<<"$dyn" || { echo "FAIL: jansson not linked"; fail=1; }
[ $fail = 0 ] && echo "ok: $n kvp_ symbols exported, all declared KVP_API"
exit $fail
