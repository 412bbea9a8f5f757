#!/usr/bin/env bash
# export_count.sh KVPLAN SRCDIR — issue 27 item 7: docs/ARCHITECTURE.md states how
# many functions libkvplan.so exports; the library beside the kvplan binary must
# export exactly that many (a function made public or internal updates the doc,
# and CHANGELOG.md says why), each declared with KVP_API in include/kvplan/.
set -u
K=$1
S=$2
lib=$(dirname "$K")/libkvplan.so
[ -f "$lib" ] || { echo "FAIL: no $lib beside $K"; exit 1; }
stated=$(grep -o 'only, [0-9]* of them' "$S/docs/ARCHITECTURE.md" | grep -o '[0-9][0-9]*')
[ -n "$stated" ] || { echo "FAIL: docs/ARCHITECTURE.md states no export count"; exit 1; }
syms=$(nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }')
n=$(printf '%s\n' "$syms" | grep -c .)
fails=0
if [ "$n" != "$stated" ]; then
    echo "FAIL: libkvplan.so exports $n functions, docs/ARCHITECTURE.md says $stated"
    fails=1
fi
# Every export is a kvp_ name declared in the public headers (version.h from its .in).
for f in $syms; do
    case $f in kvp_*) ;; *) echo "FAIL: export '$f' has no kvp_ prefix"; fails=1; continue ;; esac
    grep -q "\b$f(" "$S"/include/kvplan/*.h "$S"/include/kvplan/*.h.in || { echo "FAIL: export $f is in no public header"; fails=1; }
done
[ "$fails" = 0 ] && echo "export_count ok: $n"
exit "$fails"
