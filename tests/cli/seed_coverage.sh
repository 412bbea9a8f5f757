#!/bin/bash
# seed_coverage.sh KVPLAN SRC — every row of docs/seed-coverage.md marked ported names
# tests that exist: FILE/FUNCTION (a `static void FUNCTION(` in tests/unit/FILE.c),
# golden:NAME (tests/golden/NAME.args) or cli:SCRIPT (tests/cli/SCRIPT).
SRC=${2:-.}
doc="$SRC/docs/seed-coverage.md"
[ -f "$doc" ] || { echo "FAIL: no $doc"; exit 1; }
bad=0 rows=0
while IFS= read -r line; do
    status=$(printf '%s' "$line" | awk -F'|' '{print $3}' | sed 's/^ *//; s/ *$//')
    case "$status" in ported*) ;; *) continue ;; esac
    rows=$((rows + 1))
    tests=$(printf '%s' "$line" | awk -F'|' '{print $(NF-1)}')
    [ -n "$(printf '%s' "$tests" | tr -d ' ')" ] || { echo "FAIL: ported row without a test: $line"; bad=1; continue; }
    for t in $tests; do
        t=${t%,}
        case "$t" in
        golden:*) [ -f "$SRC/tests/golden/${t#golden:}.args" ] || { echo "FAIL: no golden ${t#golden:}"; bad=1; } ;;
        cli:*) [ -f "$SRC/tests/cli/${t#cli:}" ] || { echo "FAIL: no cli script ${t#cli:}"; bad=1; } ;;
        */*) f=${t%%/*} fn=${t#*/}
             grep -q "static void $fn(" "$SRC/tests/unit/$f.c" 2>/dev/null || { echo "FAIL: no test $t"; bad=1; } ;;
        *) echo "FAIL: '$t' is not FILE/FUNCTION, golden:NAME or cli:SCRIPT"; bad=1 ;;
        esac
    done
done < <(grep '^| ' "$doc" | grep -v '^| seed function\|^| rule \|^|---')
[ "$rows" -gt 50 ] || { echo "FAIL: only $rows ported rows found"; bad=1; }
[ "$bad" = 0 ] && echo ok
exit $bad
