#!/usr/bin/env bash
# hostile_hardening.sh KVPLAN SRCDIR — a release build of kvplan is hardened
# (issue 8, item 5): position-independent executable, full RELRO (GNU_RELRO
# segment + BIND_NOW), non-executable stack, stack protector and FORTIFY checks
# linked in. Checked on the built binary with readelf. Builds where CMakeLists.txt
# does not harden (Debug, sanitizers, fuzzing, KVP_HARDEN=OFF) are skipped.
set -u
KVPLAN=$1
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
command -v readelf >/dev/null || { echo "skip: readelf not installed"; exit 0; }
cache=$(dirname "$KVPLAN")/CMakeCache.txt
if [ -f "$cache" ]; then
    get() { sed -n "s/^$1:[A-Z]*=//p" "$cache"; }
    if [ "$(get CMAKE_BUILD_TYPE)" = Debug ] || [ "$(get KVP_HARDEN)" = OFF ] ||
        [ "$(get KVP_SANITIZE)" = ON ] || [ "$(get KVP_TSAN)" = ON ] || [ "$(get KVP_FUZZ)" = ON ]; then
        echo "skip: not a hardened build ($(get CMAKE_BUILD_TYPE), sanitize=$(get KVP_SANITIZE))"
        exit 0
    fi
fi
if grep -qa "__asan_init\|__tsan_init" "$KVPLAN"; then
    echo "skip: sanitizer build"
    exit 0
fi

check_elf() {
    local f=$1 what=$2
    local dyn prog
    dyn=$(readelf -dW "$f")
    prog=$(readelf -lW "$f")
    grep -q "GNU_RELRO" <<<"$prog" || fail "$what: no GNU_RELRO segment (RELRO)"
    grep -qE "BIND_NOW|FLAGS.*\bNOW\b" <<<"$dyn" || fail "$what: not linked with -z now (full RELRO)"
    grep -E "GNU_STACK" <<<"$prog" | grep -q "RWE" && fail "$what: executable stack"
    local syms
    syms=$(readelf -sW --dyn-syms "$f")
    grep -q "__stack_chk_fail" <<<"$syms" || fail "$what: no stack protector (__stack_chk_fail)"
    grep -qE "__[a-z]+_chk@" <<<"$syms" || fail "$what: no _FORTIFY_SOURCE checks (__*_chk)"
}

[ "$(readelf -hW "$KVPLAN" | sed -n 's/ *Type: *\([A-Z]*\).*/\1/p')" = DYN ] ||
    fail "kvplan is not a position-independent executable (ELF type is not DYN)"
readelf -dW "$KVPLAN" | grep -q "FLAGS_1.*PIE" || fail "kvplan: FLAGS_1 lacks PIE"
check_elf "$KVPLAN" kvplan
lib=$(dirname "$KVPLAN")/libkvplan.so
[ -f "$lib" ] && check_elf "$lib" libkvplan.so
echo "hardening: $fails failures"
[ "$fails" -eq 0 ]
