#!/usr/bin/env bash
# hostile_output.sh KVPLAN SRCDIR — files kvplan writes (issue 8, item 6): every
# FILE option a subcommand's --help lists (--svg, --html) writes the whole file
# through a temporary name and a rename, so no temporary is left behind; the same
# inputs write byte-identical files; a target kvplan cannot replace (a directory,
# a missing folder, a read-only folder) is refused with exit 2, one stderr line,
# the old target untouched and no temporary left. Only regular files are written:
# a FIFO, a socket, /dev/null, /dev/full, a link to a device and a dangling link are
# refused and left as they were (as root, a rename over /dev/null would replace it);
# a link to a regular file writes that file and keeps the link. A write error (a
# file-size limit) is exit 2. And a write error on stdout (/dev/full, a closed
# stdout) is exit 2 with one stderr line for every command, never exit 0.
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
base[sim]="sim llama-3.1-8b --kv-budget 8GiB --no-timing --synthetic requests=20,prompt=fixed:64,output=fixed:8"

# no_temporaries DIR: nothing but the expected files.
no_temporaries() {
    local left
    left=$(find "$1" -name '*.tmp*' | head -3)
    [ -z "$left" ] || fail "temporary files left in $1: $left"
}

for sub in fit compare sweep plan sim; do
    read -r -a b <<<"${base[$sub]}"
    "$KVPLAN" "$sub" --help >"$TMP/help" 2>&1 </dev/null || continue
    mapfile -t opts < <(grep -oE -- '--(svg|html|output)[ =]FILE' "$TMP/help" | awk '{print $1}' | sort -u)
    # sim takes --svg without listing it in its --help yet.
    [ "$sub" = sim ] && [ "${#opts[@]}" -eq 0 ] && opts=(--svg)
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
        # Things that are not regular files: refused, left as they were, no hang.
        mkfifo "$d/fifo.$ext"
        python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/sock.$ext"
        ln -s /dev/null "$d/null-link.$ext"
        ln -s "$d/nowhere.$ext" "$d/dangling.$ext"
        for target in "$d/fifo.$ext" "$d/sock.$ext" /dev/null /dev/full "$d/null-link.$ext" "$d/dangling.$ext"; do
            timeout 20 "$KVPLAN" "${b[@]}" "$o" "$target" >/dev/null 2>"$TMP/err" </dev/null
            rc=$?
            [ "$rc" -eq 2 ] || fail "$sub $o $target: exit $rc, expected 2 (refused)"
            [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$sub $o $target: stderr is not one line: $(cat "$TMP/err")"
            grep -qF "will not be replaced" "$TMP/err" || fail "$sub $o $target: unclear refusal: $(cat "$TMP/err")"
        done
        [ -p "$d/fifo.$ext" ] || fail "$sub $o: the FIFO was replaced"
        [ -S "$d/sock.$ext" ] || fail "$sub $o: the socket was replaced"
        [ -c /dev/null ] && [ -c /dev/full ] || fail "$sub $o: /dev/null or /dev/full was replaced"
        [ -L "$d/null-link.$ext" ] && [ -L "$d/dangling.$ext" ] || fail "$sub $o: a link was replaced"
        [ ! -e "$d/nowhere.$ext" ] || fail "$sub $o: wrote through a dangling link"
        ls /dev/*.tmp.* >/dev/null 2>&1 && fail "$sub $o: temporary left in /dev"
        # A link to a regular file: the file is written, the link kept.
        echo old >"$d/real.$ext"
        ln -s "real.$ext" "$d/link.$ext"
        timeout 60 "$KVPLAN" "${b[@]}" "$o" "$d/link.$ext" >/dev/null 2>"$TMP/err" </dev/null ||
            fail "$sub $o: cannot write through a link: $(cat "$TMP/err")"
        [ -L "$d/link.$ext" ] || fail "$sub $o: the link was replaced by a file"
        cmp -s "$d/real.$ext" "$d/a.$ext" || fail "$sub $o: the linked file is not the output"
        # A write error (a 1-block file-size limit; SIGXFSZ ignored so write fails
        # with EFBIG): exit 2, one line, the old file untouched, no temporary.
        echo old >"$d/limited.$ext"
        (trap '' XFSZ; ulimit -f 1; exec timeout 60 "$KVPLAN" "${b[@]}" "$o" "$d/limited.$ext") >/dev/null 2>"$TMP/err" </dev/null
        rc=$?
        [ "$rc" -eq 2 ] || fail "$sub $o: a write error gave exit $rc, expected 2"
        [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$sub $o: write error: stderr is not one line: $(cat "$TMP/err")"
        [ "$(cat "$d/limited.$ext")" = old ] || fail "$sub $o: a failed write damaged the old file"
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
# stdout that cannot be written: /dev/full and a closed stdout, for every command.
stdout_runs=0
for args in "cost llama-3.1-8b" "cost llama-3.1-8b --json" "plan llama-3.1-8b --gpu-mem 80GiB" \
    "plan llama-3.1-8b --gpu-mem 80GiB --json" "fit llama-3.1-8b --gpu-mem 80GiB" \
    "compare llama-3.1-8b --gpu-mem 80GiB" "sweep llama-3.1-8b --gpu-mem 80GiB --over tp=1,2" \
    "sweep llama-3.1-8b --gpu-mem 80GiB --over tp=1,2 --csv" "models" "models --json" "gpus" \
    "local qwen3-tts --max-num-seqs 4" "sim llama-3.1-8b --kv-budget 8GiB --no-timing --synthetic requests=20,prompt=fixed:64,output=fixed:8" \
    "plan --policy vllm llama-3.1-8b --gpu-mem 80GiB" "--help" "--version" "cost --help" "fit llama-3.1-8b --gpu-mem 1GiB"; do
    read -r -a a <<<"$args"
    timeout 60 "$KVPLAN" "${a[@]}" >/dev/full 2>"$TMP/err" </dev/null
    rc=$?
    [ "$rc" -eq 2 ] || fail "kvplan $args >/dev/full: exit $rc, expected 2"
    grep -qF "cannot write the output to stdout: No space left on device" "$TMP/err" ||
        fail "kvplan $args >/dev/full: $(head -c 300 "$TMP/err")"
    timeout 60 "$KVPLAN" "${a[@]}" >&- 2>"$TMP/err" </dev/null
    rc=$?
    [ "$rc" -eq 2 ] || fail "kvplan $args >&-: exit $rc, expected 2"
    grep -qF "cannot write the output to stdout" "$TMP/err" || fail "kvplan $args >&-: $(head -c 300 "$TMP/err")"
    stdout_runs=$((stdout_runs + 2))
done
# Two outputs into one file (issue 29), however the path is spelt, or an output over the
# model file read: exit 2, one line naming both, nothing written.
clash=0
cp "$(dirname "$0")/../../data/models/meta-llama__Llama-3.1-8B.json" "$TMP/model.json"
cp "$TMP/model.json" "$TMP/model.orig"
for args in "plan llama-3.1-8b --gpu-mem 80GiB --svg $TMP/one --html $TMP/one" \
            "plan llama-3.1-8b --gpu-mem 80GiB --svg $TMP/one --html $TMP/./one" \
            "plan llama-3.1-8b --policy vllm --gpu-mem 80GiB --svg $TMP/one --html $TMP/../$(basename "$TMP")/one" \
            "sweep llama-3.1-8b --gpu-mem 80GiB --over max-seq-len=4k..16k --svg $TMP/one --html $TMP/one" \
            "plan $TMP/model.json --gpu-mem 80GiB --html $TMP/model.json" \
            "plan $TMP/model.json --policy sglang --gpu-mem 80GiB --svg $TMP/model.json" \
            "sim $TMP/model.json --kv-budget 8GiB --synthetic requests=2 --svg $TMP/model.json"; do
    read -r -a a <<<"$args"
    rm -f "$TMP/one"
    timeout 60 "$KVPLAN" "${a[@]}" >/dev/null 2>"$TMP/err" </dev/null
    rc=$?
    clash=$((clash + 1))
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
        grep -qE "^kvplan: --(svg|html) .* is (--html|the MODEL file) \(.*\): one file cannot hold both" "$TMP/err" ||
        fail "kvplan $args: exit $rc, expected 2 naming both files: $(head -c 300 "$TMP/err")"
    [ ! -e "$TMP/one" ] || fail "kvplan $args wrote $TMP/one"
    cmp -s "$TMP/model.json" "$TMP/model.orig" || fail "kvplan $args wrote over the model file"
done
# The outputs the clash check above missed on main (issue 29, round two): fit --svg
# and compare --html over the model, why --record appending to the log it reads or to
# its --model file, and any picture over the GPU catalogue read (by option or by
# environment). Each exit 2, one line naming both files, nothing written; with
# --json the error object on stdout too.
cp "$(dirname "$0")/../data/why/vllm_v1.log" "$TMP/v.log"
cp "$TMP/v.log" "$TMP/v.orig"
printf '{"schema": 1, "gpus": [{"name": "Clash GPU 80GB", "vendor": "nvidia", "cuda_total": "80GiB", "bandwidth_gb_s": 3000}]}\n' >"$TMP/cat.json"
cp "$TMP/cat.json" "$TMP/cat.orig"
clash2=0
# clash2 WHAT-IT-IS -- args...
clash2() {
    local what=$1
    shift 2
    timeout 60 "$KVPLAN" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    local rc=$?
    clash2=$((clash2 + 1))
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
        grep -qE "^kvplan: --(svg|html|record) .* is $what \(.*\): one file cannot hold both" "$TMP/err" ||
        fail "kvplan $*: exit $rc, expected 2 naming both files ($what): $(head -c 300 "$TMP/err")"
    cmp -s "$TMP/model.json" "$TMP/model.orig" || fail "kvplan $* wrote over the model file"
    cmp -s "$TMP/v.log" "$TMP/v.orig" || fail "kvplan $* wrote into the log"
    cmp -s "$TMP/cat.json" "$TMP/cat.orig" || fail "kvplan $* wrote over the GPU catalogue"
    case " $* " in
    *" --json "*) grep -q '^{"error": {"code": "KVP_INVALID_ARG"' "$TMP/out" ||
        fail "kvplan $*: no error object on stdout: $(head -c 200 "$TMP/out")" ;;
    esac
}
(
    cd "$TMP" || exit 1
    fails=0
    clash2 "the MODEL file" -- fit model.json --gpu-mem 80GiB --svg ./model.json
    clash2 "the MODEL file" -- fit model.json --gpu-mem 80GiB --svg model.json --json
    clash2 "the MODEL file" -- compare model.json --gpu-mem 80GiB --html "$TMP/model.json"
    clash2 "the LOGFILE" -- why v.log --record ./v.log
    clash2 "the LOGFILE" -- why v.log --record "$TMP/v.log" --json
    clash2 "the MODEL file" -- why v.log --model model.json --record model.json
    clash2 "the --gpu-catalog file" -- --gpu-catalog cat.json plan llama-3.1-8b --gpu "Clash GPU 80GB" --svg ./cat.json
    clash2 "the --gpu-catalog file" -- --gpu-catalog cat.json plan llama-3.1-8b --policy vllm --gpu-mem 80GiB --html cat.json
    KVPLAN_GPU_CATALOG=cat.json clash2 "the --gpu-catalog file" -- sweep llama-3.1-8b --gpu-mem 80GiB --over max-seq-len=4k,8k --svg cat.json
    KVPLAN_GPU_CATALOG=cat.json clash2 "the --gpu-catalog file" -- fit llama-3.1-8b --gpu-mem 80GiB --svg "$TMP/cat.json"
    KVPLAN_GPU_CATALOG=cat.json clash2 "the --gpu-catalog file" -- compare llama-3.1-8b --gpu-mem 80GiB --html cat.json --json
    clash2 "the --gpu-catalog file" -- --gpu-catalog cat.json sim llama-3.1-8b --kv-budget 8GiB --synthetic requests=2,prompt=fixed:8,output=fixed:8 --svg ./cat.json --json
    clash2 "the --geometry file" -- plan --policy vllm --geometry model.json --gpu-mem 80GiB --svg ./model.json
    clash2 "the --geometry file" -- plan --policy sglang --geometry model.json --gpu-mem 80GiB --html model.json --json
    clash2 "the --draft model" -- plan llama-3.1-8b --draft model.json --gpu-mem 80GiB --svg model.json
    clash2 "the MODEL file" -- sim model.json --kv-budget 8GiB --synthetic requests=2,prompt=fixed:8,output=fixed:8 --svg model.json
    # A record elsewhere is still appended: one line per run.
    rm -f rec.jsonl
    timeout 60 "$KVPLAN" why v.log --record rec.jsonl >/dev/null 2>"$TMP/err" </dev/null ||
        fail "why --record rec.jsonl: $(head -c 200 "$TMP/err")"
    [ "$(wc -l <rec.jsonl)" -eq 1 ] || fail "why --record rec.jsonl: not one line"
    echo "$fails $clash2" >"$TMP/clash2"
)
read -r sub_fails clash2 <"$TMP/clash2"
fails=$((fails + sub_fails))
clash=$((clash + clash2))

# An output path left out before another word that reads as an option ("--svg
# --json", fit's "--svg --explain"): the word is
# not taken as the file's name (it wrote a file named "--json"), it is refused
# naming both; the joined form "--svg=--x.svg" is a path written on purpose.
(
    cd "$TMP" || exit 1
    for args in "plan llama-3.1-8b --gpu-mem 80GiB --svg --json" \
                "plan llama-3.1-8b --policy vllm --gpu-mem 80GiB --html --tp 2" \
                "fit llama-3.1-8b --gpu-mem 80GiB --svg --explain" \
                "why v.log --record --model llama-3.1-8b"; do
        # shellcheck disable=SC2086
        timeout 60 "$KVPLAN" $args >/dev/null 2>"$TMP/err" </dev/null
        rc=$?
        opt=${args##* --}; opt=${opt%% *}
        [ "$rc" = 2 ] || echo "FAIL: $args: exit $rc, expected 2" >&2
        grep -q "needs a value (found '--$opt', an option" "$TMP/err" ||
            echo "FAIL: $args: $(head -c 200 "$TMP/err")" >&2
        [ ! -e "$TMP/--$opt" ] || echo "FAIL: $args wrote a file named --$opt" >&2
    done
    timeout 60 "$KVPLAN" plan llama-3.1-8b --policy vllm --gpu-mem 80GiB --svg=--x.svg >/dev/null 2>&1 </dev/null &&
        [ -s "$TMP/--x.svg" ] || echo "FAIL: --svg=--x.svg did not write the file --x.svg" >&2
) 2>"$TMP/forgot"
if [ -s "$TMP/forgot" ]; then cat "$TMP/forgot"; fails=$((fails + $(wc -l <"$TMP/forgot"))); fi

[ "$writes" -gt 0 ] || fail "no subcommand writes files"
echo "output files: $writes writers checked, $stdout_runs unwritable-stdout runs, $clash one-file clashes, $fails failures"
[ "$fails" -eq 0 ]
