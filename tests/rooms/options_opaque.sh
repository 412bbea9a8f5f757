#!/usr/bin/env bash
# options_opaque.sh CC SRCDIR BUILDDIR — issue 27 item 7: kvp_options is opaque
# to library users. A program that includes only the public headers
# (include/kvplan/ and the generated version.h) and dereferences o->deployment
# must fail to compile, on the incomplete type; the same program through the
# accessor (kvp_options_deployment) compiles; and the dereference compiles once
# the library's internal header (src/options/options_struct.h) is included, so
# the failure is the opacity, not a broken probe. A missing compiler fails.
set -u
CC=$1 S=$2 B=$3
fail() { echo "FAIL: $*"; exit 1; }
command -v "$CC" >/dev/null 2>&1 || fail "no C compiler '$CC'"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c11 -fsyntax-only -Wall -Werror "-I$S/include" "-I$B/include")
cat >"$tmp/peek.c" <<'C'
#include <kvplan/kvplan.h>
#include <kvplan/options.h>
int kvp_probe(const kvp_options *o);
int kvp_probe(const kvp_options *o) { return (int)o->deployment.point.tp; }
C
cat >"$tmp/accessor.c" <<'C'
#include <kvplan/kvplan.h>
#include <kvplan/options.h>
int kvp_probe(const kvp_options *o);
int kvp_probe(const kvp_options *o) { return (int)kvp_options_deployment(o)->point.tp; }
C
cat >"$tmp/size.c" <<'C'
#include <kvplan/options.h>
unsigned long kvp_probe(void);
unsigned long kvp_probe(void) { return (unsigned long)sizeof(kvp_options); }
C

# 1. Public headers only: the dereference and sizeof do not compile.
if "$CC" "${flags[@]}" "$tmp/peek.c" 2>"$tmp/peek.err"; then
    fail "o->deployment compiled with only the public headers: kvp_options is not opaque"
fi
grep -qi 'incomplete' "$tmp/peek.err" ||
    fail "the dereference failed, but not on the incomplete type: $(cat "$tmp/peek.err")"
if "$CC" "${flags[@]}" "$tmp/size.c" 2>"$tmp/size.err"; then
    fail "sizeof(kvp_options) compiled with only the public headers (a caller could allocate it)"
fi
# 2. The accessor compiles with the same flags.
"$CC" "${flags[@]}" "$tmp/accessor.c" 2>"$tmp/acc.err" ||
    fail "kvp_options_deployment does not compile with the public headers: $(cat "$tmp/acc.err")"
# 3. With the internal header the same dereference compiles.
[ -f "$S/src/options/options_struct.h" ] || fail "no $S/src/options/options_struct.h"
"$CC" "${flags[@]}" "-I$S/src/options" -include options_struct.h "$tmp/peek.c" 2>"$tmp/in.err" ||
    fail "o->deployment does not compile even with options_struct.h: $(cat "$tmp/in.err")"
echo "options opaque: o->deployment and sizeof refused with the public headers; the accessor compiles"
