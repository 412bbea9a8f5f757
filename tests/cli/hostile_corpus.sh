#!/usr/bin/env bash
# hostile_corpus.sh KVPLAN SRCDIR — every file of tests/hostile/ is refused cleanly:
# exit status 2, exactly one stderr line that names the file and the key or position
# listed in tests/hostile/expect.tsv, no sanitizer report (ASan/UBSan/LSan make the
# status differ from 2 and print to stderr), no hang. Inputs that cannot be committed
# (directories, symlink loops, FIFOs, files past the size limit, files that grow while
# read, odd names) are made here. With a non-sanitized binary and valgrind installed,
# a sample also runs under memcheck (definite and indirect leaks, invalid accesses).
# A kind's corpus is asserted only when kvplan accepts that kind's valid probe file
# (tests/hostile/probe/), so readers that are not wired into the CLI yet are skipped.
set -u
KVPLAN=$1
SRC=$2
H=$SRC/tests/hostile
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
checked=0
declare -A per_kind

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

known=0
ctrl=0
# check LABEL PATH FRAGMENT KNOWN -- command...
# PATH is what the one error line must name; FRAGMENT the key or position.
# KNOWN (may be empty): a defect listed in expect.tsv; a mismatch is then reported
# as KNOWN, not as a failure, unless the run crashed or a sanitizer spoke.
check() {
    local label=$1 path=$2 frag=$3 why=$4
    shift 5
    local out=$TMP/out err=$TMP/err rc lines problem=""
    timeout "${CHECK_TIMEOUT:-30}" "$@" >"$out" 2>"$err" </dev/null
    rc=$?
    lines=$(wc -l <"$err")
    checked=$((checked + 1))
    if grep -qE "Sanitizer|runtime error|LeakSanitizer" "$err"; then
        fail "$label: sanitizer report: $(head -c 2000 "$err")"
        return
    elif [ "$rc" -eq 124 ]; then
        problem="hangs (killed after ${CHECK_TIMEOUT:-30} s)"
    elif [ "$rc" -ne 2 ] && [ "$rc" -ne 0 ]; then
        fail "$label: exit $rc, expected 2; stderr: $(head -c 600 "$err")"
        return
    elif [ "$rc" -ne 2 ]; then
        problem="exit $rc, expected 2"
    elif [ "$lines" -ne 1 ]; then
        problem="$lines stderr lines, expected 1: $(head -c 600 "$err")"
    elif ! grep -qF -- "$path" "$err"; then
        problem="error does not name the file '$path': $(cat "$err")"
    elif [ -n "$frag" ] && ! grep -qF -- "$frag" "$err"; then
        problem="error does not name '$frag': $(cat "$err")"
    fi
    # Bytes from the input that a terminal would act on (ESC sequences): counted.
    if [ -z "$problem" ] && LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$err"; then
        ctrl=$((ctrl + 1))
    fi
    if [ -n "$problem" ] && [ -n "$why" ]; then
        echo "KNOWN: $label: $why"
        known=$((known + 1))
    elif [ -n "$problem" ]; then
        fail "$label: $problem"
    elif [ -n "$why" ]; then
        echo "note: $label is refused now: drop its known mark in gen_corpus.py"
    fi
}

# Which kinds does this kvplan read? A kind is on when its valid probe exits 0.
accepts() { timeout 30 "$@" >/dev/null 2>&1 </dev/null; }
kind_on() {
    case $1 in
    config) return 0 ;;
    local) accepts "$KVPLAN" local --list ;;
    gguf) accepts "$KVPLAN" cost "$H/probe/llama.gguf" ;;
    safetensors)
        mkdir -p "$TMP/stprobe"
        cp "$SRC/data/models/meta-llama__Llama-3.1-8B.json" "$TMP/stprobe/config.json"
        cp "$H/probe/model.safetensors" "$TMP/stprobe/model.safetensors"
        "$KVPLAN" plan "$TMP/stprobe" --gpu-mem 80GiB --json 2>/dev/null </dev/null |
            grep -q safetensors ;;
    workload) accepts "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --no-timing --workload "$H/probe/workload.jsonl" ;;
    gpus) accepts "$KVPLAN" gpus --catalog --gpu-catalog "$H/probe/gpus.json" ;;
    *) return 1 ;;
    esac
}
declare -A on
for k in config local gguf safetensors workload gpus; do
    if kind_on "$k"; then on[$k]=1; else on[$k]=0; echo "note: $k reader not in the CLI yet: its corpus is not asserted"; fi
done

# Run one corpus file the way its kind is read.
run_file() {
    local rel=$1 frag=$2 why=$3 kind=${1%%/*} p=$H/$1
    [ "${on[$kind]:-0}" = 1 ] || return 0
    per_kind[$kind]=$((${per_kind[$kind]:-0} + 1))
    case $kind in
    config | gguf) check "$rel" "$p" "$frag" "$why" -- "$KVPLAN" cost "$p" ;;
    local) check "$rel" "$p" "$frag" "$why" -- "$KVPLAN" local qwen3-tts --max-num-seqs 4 --decl "$p" ;;
    safetensors)
        local d=$TMP/st/${rel//\//_}
        mkdir -p "$d"
        cp "$SRC/data/models/meta-llama__Llama-3.1-8B.json" "$d/config.json"
        case $rel in
        *.json) cp "$p" "$d/model.safetensors.index.json"; p=$d/model.safetensors.index.json ;;
        *) cp "$p" "$d/model.safetensors"; p=$d/model.safetensors ;;
        esac
        check "$rel" "$p" "$frag" "$why" -- "$KVPLAN" plan "$d" --gpu-mem 80GiB ;;
    workload)
        check "$rel" "$p" "$frag" "$why" -- "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --no-timing --workload "$p" ;;
    gpus)
        # The global option before the command, and a command that looks a GPU up.
        check "$rel" "$p" "$frag" "$why" -- "$KVPLAN" --gpu-catalog "$p" plan llama-3.1-8b --gpu h100 ;;
    esac
}

while IFS=$'\t' read -r rel frag why; do
    case $rel in '#'* | '') continue ;; esac
    [ -e "$H/$rel" ] || { fail "$rel listed in expect.tsv but missing"; continue; }
    run_file "$rel" "$frag" "$why"
done <"$H/expect.tsv"

# Every corpus file is listed (a file nobody checks is a file that cannot fail).
listed=$(grep -vc '^#' "$H/expect.tsv")
present=$(find "$H" -mindepth 2 -type f ! -path "$H/probe/*" | wc -l)
[ "$listed" -eq "$present" ] || fail "expect.tsv lists $listed files but tests/hostile holds $present"

# ---- inputs made here: the file system itself is hostile.
LLAMA=$SRC/data/models/meta-llama__Llama-3.1-8B.json
mkdir -p "$TMP/emptydir"
check "dir-without-config" "$TMP/emptydir" "config.json" "" -- "$KVPLAN" cost "$TMP/emptydir"
mkdir -p "$TMP/dirconfig/config.json"
check "config.json-is-a-dir" "$TMP/dirconfig" "directory" "" -- "$KVPLAN" cost "$TMP/dirconfig"
ln -s loop-b "$TMP/loop-a"
ln -s loop-a "$TMP/loop-b"
check "symlink-loop" "$TMP/loop-a" "" "" -- "$KVPLAN" cost "$TMP/loop-a"
mkdir -p "$TMP/dirloop"
ln -s ../dirloop "$TMP/dirloop/config.json"
check "config.json-links-to-its-dir" "$TMP/dirloop" "" "" -- "$KVPLAN" cost "$TMP/dirloop"
ln -s "$TMP/nowhere.json" "$TMP/dangling.json"
check "dangling-symlink" "$TMP/dangling.json" "" "" -- "$KVPLAN" cost "$TMP/dangling.json"
truncate -s 17M "$TMP/sparse-17M.json"
check "over-size-limit" "$TMP/sparse-17M.json" "limit" "" -- "$KVPLAN" cost "$TMP/sparse-17M.json"
{ printf '{"model_type": "llama", "x": "'; head -c 17000000 /dev/zero | tr '\0' 'a'; printf '"}'; } >"$TMP/big-string.json"
check "over-size-limit-real" "$TMP/big-string.json" "limit" "" -- "$KVPLAN" cost "$TMP/big-string.json"
check "char-device" "/dev/zero" "is a device" "" -- "$KVPLAN" cost /dev/zero
check "dev-null" "/dev/null" "is a device" "" -- "$KVPLAN" cost /dev/null
# A file that grows while read: a FIFO fed without end.
# The FIFO is held open read-write here first, so a writer exists before kvplan opens it.
mkfifo "$TMP/growing.json"
exec 3<>"$TMP/growing.json"
yes '{"a": 1,' >&3 2>/dev/null &
feeder=$!
check "grows-while-read" "$TMP/growing.json" "limit" "" -- "$KVPLAN" cost "$TMP/growing.json"
kill "$feeder" 2>/dev/null
wait "$feeder" 2>/dev/null
exec 3>&-
# A FIFO nobody writes: must not hang (timeout 30 turns a hang into a failure).
mkfifo "$TMP/silent.json"
CHECK_TIMEOUT=10 check "fifo-without-writer" "$TMP/silent.json" "" "" -- "$KVPLAN" cost "$TMP/silent.json"
if [ "${on[gguf]}" = 1 ]; then
    mkfifo "$TMP/silent.gguf"
    CHECK_TIMEOUT=5 check "gguf-fifo-without-writer" "$TMP/silent.gguf" "" "" \
        -- "$KVPLAN" cost "$TMP/silent.gguf"
fi
if [ "${on[local]}" = 1 ]; then
    mkfifo "$TMP/silent-decl.json"
    CHECK_TIMEOUT=10 check "decl-fifo-without-writer" "$TMP/silent-decl.json" "" "" \
        -- "$KVPLAN" local qwen3-tts --max-num-seqs 4 --decl "$TMP/silent-decl.json"
fi
if [ "${on[workload]}" = 1 ]; then
    mkfifo "$TMP/silent.jsonl"
    CHECK_TIMEOUT=10 check "workload-fifo-without-writer" "$TMP/silent.jsonl" "" "" \
        -- "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --no-timing --workload "$TMP/silent.jsonl"
    # (/dev/zero as a workload is refused at the reader's 2 GiB limit, after
    # buffering 2 GiB: too slow for this test under ASan; see docs/hostile.md.)
fi
# Names that could break the one-line rule or a terminal.
nl_name="$TMP/new"$'\n'"line.json"
printf '{"num_hidden_layers": -1}' >"$nl_name"
check "newline-in-name" "$TMP/new" "/num_hidden_layers" "" -- "$KVPLAN" cost "$nl_name"
long=$TMP/$(head -c 4200 /dev/zero | tr '\0' 'x')
check "name-too-long" "xxxxxxxx" "" "" -- "$KVPLAN" cost "$long"
if [ "$(id -u)" != 0 ]; then
    cp "$LLAMA" "$TMP/unreadable.json"
    chmod 000 "$TMP/unreadable.json"
    check "unreadable" "$TMP/unreadable.json" "" "" -- "$KVPLAN" cost "$TMP/unreadable.json"
fi

# ---- valgrind memcheck over a sample (release binary only: ASan and valgrind do not mix).
if command -v valgrind >/dev/null && ! grep -qa "__asan_init\|__tsan_init" "$KVPLAN"; then
    n=0
    while IFS=$'\t' read -r rel frag why; do
        case $rel in '#'* | '') continue ;; esac
        [ -z "$why" ] || continue
        n=$((n + 1))
        [ $((n % 12)) -eq 1 ] || continue
        kind=${rel%%/*}
        [ "${on[$kind]:-0}" = 1 ] || continue
        case $kind in
        config | gguf) args=(cost "$H/$rel") ;;
        local) args=(local qwen3-tts --max-num-seqs 4 --decl "$H/$rel") ;;
        gpus) args=(gpus --catalog --gpu-catalog "$H/$rel") ;;
        *) continue ;;
        esac
        timeout 120 valgrind -q --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite,indirect "$KVPLAN" "${args[@]}" \
            >/dev/null 2>"$TMP/vg" </dev/null
        rc=$?
        if [ "$rc" -ne 2 ]; then fail "valgrind $rel: exit $rc: $(head -c 1500 "$TMP/vg")"; fi
        per_kind[valgrind]=$((${per_kind[valgrind]:-0} + 1))
    done <"$H/expect.tsv"
    timeout 120 valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect "$KVPLAN" cost llama-3.1-8b --json >/dev/null 2>"$TMP/vg"
    [ $? -eq 0 ] || fail "valgrind on a valid model: $(head -c 1500 "$TMP/vg")"
fi

if [ "$ctrl" -gt 0 ]; then
    echo "KNOWN: $ctrl error lines carry control characters (ESC) from the input to the terminal"
    known=$((known + 1))
fi
summary=""
for k in "${!per_kind[@]}"; do summary="$summary $k=${per_kind[$k]}"; done
echo "hostile corpus: $checked refusals checked ($summary ), $fails failures, $known known defects"
[ "$fails" -eq 0 ]
