#!/usr/bin/env bash
# hostile_output.sh KVPLAN SRCDIR — files kvplan writes (issue 8, item 6): every
# FILE option a subcommand's --help lists (--svg, --html) writes the whole file
# through a temporary name and a rename, so no temporary is left behind; the same
# inputs write byte-identical files; a target kvplan cannot replace (a directory,
# a missing folder, a read-only folder) is refused with exit 2, one stderr line,
# the old target untouched and no temporary left.
set -u
KVPLAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TMP=$(mktemp -d)
trap 'chmod -R u+w "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
fails=0
writes=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

declare -A base
base[fit]="fit llama-3.1-8b --gpu-mem 80GiB"
base[compare]="compare llama-3.1-8b --gpu-mem 80GiB"
base[sweep]="sweep llama-3.1-8b --gpu-mem 80GiB --over tp=1,2 --over max-seq-len=4k..16k"
base[plan]="plan llama-3.1-8b --gpu-mem 80GiB"

# no_temporaries DIR: nothing but the expected files.
no_temporaries() {
    local left
    left=$(find "$1" -name '*.tmp*' | head -3)
    [ -z "$left" ] || fail "temporary files left in $1: $left"
}

for sub in fit compare sweep plan; do
    read -r -a b <<<"${base[$sub]}"
    "$KVPLAN" "$sub" --help >"$TMP/help" 2>&1 </dev/null || continue
    mapfile -t opts < <(grep -oE -- '--(svg|html|output)[ =]FILE' "$TMP/help" | awk '{print $1}' | sort -u)
    for o in "${opts[@]}"; do
        ext=${o#--}
        d=$TMP/$sub$ext
        mkdir -p "$d"
        if ! timeout 60 "$KVPLAN" "${b[@]}" "$o" "$d/a.$ext" >/dev/null 2>"$TMP/err" </dev/null; then
            fail "kvplan ${b[*]} $o: $(head -c 300 "$TMP/err")"
            continue
        fi
        writes=$((writes + 1))
        [ -s "$d/a.$ext" ] || fail "$sub $o wrote an empty file"
        case $ext in
        svg) tail -c 64 "$d/a.$ext" | grep -q '</svg>' || fail "$sub $o: file does not end with </svg>" ;;
        html) tail -c 64 "$d/a.$ext" | grep -q '</html>' || fail "$sub $o: file does not end with </html>" ;;
        esac
        # Same inputs, same bytes; replacing an existing file works.
        timeout 60 "$KVPLAN" "${b[@]}" "$o" "$d/b.$ext" >/dev/null 2>&1 </dev/null
        cmp -s "$d/a.$ext" "$d/b.$ext" || fail "$sub $o: two runs wrote different files"
        timeout 60 "$KVPLAN" "${b[@]}" "$o" "$d/a.$ext" >/dev/null 2>&1 </dev/null ||
            fail "$sub $o: cannot replace an existing file"
        no_temporaries "$d"
        # Targets that cannot be replaced.
        mkdir -p "$d/dir.$ext"
        touch "$d/dir.$ext/keep"
        for target in "$d/dir.$ext" "$d/missing/a.$ext"; do
            timeout 60 "$KVPLAN" "${b[@]}" "$o" "$target" >/dev/null 2>"$TMP/err" </dev/null
            rc=$?
            [ "$rc" -eq 2 ] || fail "$sub $o $target: exit $rc, expected 2"
            [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$sub $o $target: stderr is not one line: $(cat "$TMP/err")"
        done
        [ -f "$d/dir.$ext/keep" ] || fail "$sub $o: the directory target was disturbed"
        no_temporaries "$d"
        if [ "$(id -u)" != 0 ]; then
            mkdir -p "$d/ro"
            echo old >"$d/ro/a.$ext"
            chmod a-w "$d/ro"
            timeout 60 "$KVPLAN" "${b[@]}" "$o" "$d/ro/a.$ext" >/dev/null 2>&1 </dev/null
            [ $? -eq 2 ] || fail "$sub $o: a read-only folder was not refused"
            [ "$(cat "$d/ro/a.$ext")" = old ] || fail "$sub $o: the old file was damaged"
            chmod u+w "$d/ro"
        fi
    done
done
[ "$writes" -gt 0 ] || echo "note: no subcommand writes files yet"
echo "output files: $writes writers checked, $fails failures"
[ "$fails" -eq 0 ]
