#!/usr/bin/env bash
# room_fence.sh CC INCLUDE_DIRS — issue 12 item 3: a wrong arrow fails the
# build. INCLUDE_DIRS (':'-joined) are the include directories CMake gives the
# estimate room's object library (kvp_estimate), which does not declare plan.
# With them, a file that includes the plan room's internal header must fail to
# compile for that reason (the header is not found); adding src/plan (declaring
# the arrow) must make the same file compile, and the room's own internal
# header must compile with the room's flags alone. So the fence is what fails,
# not a broken probe.
set -u
CC=$1
IFS=: read -r -a dirs <<<"$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
flags=(-std=c11 -fsyntax-only -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE)
plan_dir=
for d in "${dirs[@]}"; do
    flags+=("-I$d")
    case $d in */src/estimate) plan_dir=${d%/estimate}/plan ;; esac
done
[ -n "$plan_dir" ] || fail "src/estimate is not among the estimate room's include dirs: ${dirs[*]}"
[ -f "$plan_dir/plan_internal.h" ] || fail "no $plan_dir/plan_internal.h to probe with"
for d in "${dirs[@]}"; do
    [ "$d" != "$plan_dir" ] || fail "the estimate room has src/plan on its include path"
done

probe() { # FILE HEADER
    printf '#include "%s"\nint kvp_probe(void);\nint kvp_probe(void) { return 0; }\n' "$2" >"$1"
}

# 1. The wrong arrow: estimate -> plan internals.
probe "$tmp/wrong.c" plan_internal.h
if "$CC" "${flags[@]}" "$tmp/wrong.c" 2>"$tmp/wrong.err"; then
    fail "estimate compiled #include \"plan_internal.h\" without declaring plan"
fi
grep -q 'plan_internal\.h' "$tmp/wrong.err" ||
    fail "the compile failed, but not on plan_internal.h: $(cat "$tmp/wrong.err")"

# 2. The same file with the arrow declared (src/plan on the path) compiles.
"$CC" "${flags[@]}" "-I$plan_dir" "$tmp/wrong.c" 2>"$tmp/right.err" ||
    fail "the probe does not compile even with src/plan: $(cat "$tmp/right.err")"

# 3. The room's own internal header compiles with the room's flags alone.
probe "$tmp/own.c" memory_internal.h
"$CC" "${flags[@]}" "$tmp/own.c" 2>"$tmp/own.err" ||
    fail "estimate cannot include its own memory_internal.h: $(cat "$tmp/own.err")"

echo "room fence: estimate cannot include plan_internal.h; declaring plan would allow it"
