#!/usr/bin/env bash
# hostile_corpus.sh KVPLAN SRCDIR — every file of tests/hostile/ is refused cleanly:
# exit status 2, exactly one stderr line that names the file and the key or position
# listed in tests/hostile/expect.tsv, no sanitizer report (ASan/UBSan/LSan make the
# status differ from 2 and print to stderr), no hang. Inputs that cannot be committed
# (directories, symlink loops, FIFOs, files past the size limit, files that grow while
# read, odd names) are made here. With a non-sanitized binary and valgrind installed,
# a sample also runs under memcheck (definite and indirect leaks, invalid accesses).
# Every kind's reader must be on: its valid probe file (tests/hostile/probe/) must be
# accepted, else the kind is a failure (a refused probe would hide the whole kind).
# Model files (config, GGUF) go through cost, plan, fit and sim: each command must
# refuse them the same way. Every input kind is also tried as a FIFO nobody writes,
# a device, a socket and a directory: refused by name, never a hang (timeout).
#
# The corpus files and the valgrind sample run in $HOSTILE_JOBS shards at once (default
# 4): the script runs itself with HOSTILE_SHARD=I/N, each shard taking the expect.tsv
# lines whose index is I modulo N, while this process tries the file system cases;
# the shards' counts and failures are added up at the end. Every file still goes
# through every command it went through (cost, plan, fit and sim for models).
set -u
KVPLAN=$1
SRC=$2
H=$SRC/tests/hostile
JOBS=${HOSTILE_JOBS:-4}
SHARD=${HOSTILE_SHARD:-}
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
    checked=$((checked + 1))
    # stderr read once by bash (no wc and grep per case: a third of the time per
    # case); read stops at a NUL byte, and a NUL written to the terminal is a failure.
    local e="" nl
    if IFS= read -r -d '' e <"$err"; then
        fail "$label: a NUL byte on stderr: $(head -c 600 "$err" | tr '\0' '@')"
        return
    fi
    nl=${e//[!$'\n']/}
    lines=${#nl}
    if [[ $e == *Sanitizer* || $e == *"runtime error"* ]]; then
        fail "$label: sanitizer report: ${e:0:2000}"
        return
    elif [ "$rc" -eq 124 ]; then
        problem="hangs (killed after ${CHECK_TIMEOUT:-30} s)"
    elif [ "$rc" -ne 2 ] && [ "$rc" -ne 0 ]; then
        fail "$label: exit $rc, expected 2; stderr: $(head -c 600 "$err")"
        return
    elif [ "$rc" -ne 2 ]; then
        problem="exit $rc, expected 2"
    elif [ "$lines" -ne 1 ]; then
        problem="$lines stderr lines, expected 1: ${e:0:600}"
    elif [[ $e != *"$path"* ]]; then
        problem="error does not name the file '$path': $e"
    elif [ -n "$frag" ] && [[ $e != *"$frag"* ]]; then
        problem="error does not name '$frag': $e"
    fi
    # Bytes from the input that a terminal would act on (ESC sequences): a failure.
    local LC_ALL=C
    if [[ $e == *[$'\x01'-$'\x08'$'\x0b'-$'\x1f'$'\x7f']* ]]; then
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
        truncate -s +16060522496 "$TMP/stprobe/model.safetensors" # the data, as holes
        "$KVPLAN" plan "$TMP/stprobe" --gpu-mem 80GiB --json 2>/dev/null </dev/null |
            grep -q safetensors ;;
    workload) accepts "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --no-timing --workload "$H/probe/workload.jsonl" ;;
    gpus) accepts "$KVPLAN" gpus --catalog --gpu-catalog "$H/probe/gpus.json" ;;
    *) return 1 ;;
    esac
}
declare -A on
if [ -z "$SHARD" ]; then
    for k in config local gguf safetensors workload gpus; do
        if kind_on "$k"; then on[$k]=1; else on[$k]=0; fail "$k: the valid probe file is refused, so the $k corpus cannot be asserted"; fi
    done
else
    # A shard takes the kinds its parent found on (the probes run once).
    for kv in $HOSTILE_ON; do on[${kv%=*}]=${kv#*=}; done
fi

# Run one corpus file the way its kind is read.
run_file() {
    local rel=$1 frag=$2 why=$3 kind=${1%%/*} p=$H/$1
    [ "${on[$kind]:-0}" = 1 ] || return 0
    per_kind[$kind]=$((${per_kind[$kind]:-0} + 1))
    case $kind in
    config | gguf)
        check "$rel" "$p" "$frag" "$why" -- "$KVPLAN" cost "$p"
        check "plan:$rel" "$p" "$frag" "$why" -- "$KVPLAN" plan "$p" --gpu-mem 80GiB
        check "fit:$rel" "$p" "$frag" "$why" -- "$KVPLAN" fit "$p" --gpu-mem 80GiB
        check "sim:$rel" "$p" "$frag" "$why" -- "$KVPLAN" sim "$p" --kv-budget 8GiB --no-timing \
            --synthetic requests=2,prompt=fixed:64,output=fixed:8 ;;
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

# The corpus files of shard I of N: the expect.tsv lines whose index is I modulo N.
run_corpus() {
    local i=-1 rel frag why
    while IFS=$'\t' read -r rel frag why; do
        case $rel in '#'* | '') continue ;; esac
        i=$((i + 1))
        [ $((i % $2)) -eq "$1" ] || continue
        [ -e "$H/$rel" ] || { fail "$rel listed in expect.tsv but missing"; continue; }
        run_file "$rel" "$frag" "$why"
    done <"$H/expect.tsv"
}

# valgrind memcheck over every twelfth file refused as it should (release binary
# only: ASan and valgrind do not mix), the files of shard I of N.
run_valgrind_sample() {
    command -v valgrind >/dev/null && ! grep -qa "__asan_init\|__tsan_init" "$KVPLAN" || return 0
    local n=0 i=-1 rel frag why kind rc args
    while IFS=$'\t' read -r rel frag why; do
        case $rel in '#'* | '') continue ;; esac
        [ -z "$why" ] || continue
        n=$((n + 1))
        [ $((n % 12)) -eq 1 ] || continue
        i=$((i + 1))
        [ $((i % $2)) -eq "$1" ] || continue
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
}

if [ -n "$SHARD" ]; then
    # A shard: its part of the corpus and of the valgrind sample, then its counts.
    run_corpus "${SHARD%/*}" "${SHARD#*/}"
    run_valgrind_sample "${SHARD%/*}" "${SHARD#*/}"
    {
        echo "counts $checked $fails $known $ctrl"
        for k in "${!per_kind[@]}"; do echo "kind $k ${per_kind[$k]}"; done
    } >"$HOSTILE_OUT"
    exit 0
fi
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1
HOSTILE_ON=""
for k in "${!on[@]}"; do HOSTILE_ON="$HOSTILE_ON $k=${on[$k]}"; done
export HOSTILE_ON
shard_pids=()
for ((j = 0; j < JOBS; j++)); do
    HOSTILE_SHARD=$j/$JOBS HOSTILE_OUT=$TMP/shard-$j.counts bash "$0" "$KVPLAN" "$SRC" \
        >"$TMP/shard-$j.log" 2>&1 &
    shard_pids+=($!)
done

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
check "grows-while-read" "$TMP/growing.json" "FIFO" "" -- "$KVPLAN" cost "$TMP/growing.json"
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
# Every input kvplan opens, at every place it is opened from, as a FIFO nobody writes,
# a socket, a device (a link to /dev/zero) and a directory: refused before any read
# could block (a blocking open or read turns into a timeout, reported as a hang).
make_special() { # TYPE PATH
    rm -rf "$2"
    case $1 in
    fifo) mkfifo "$2" ;;
    socket) python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$2" ;;
    device) ln -s /dev/zero "$2" ;;
    dir) mkdir -p "$2" ;;
    esac
}
frag_of() { case $1 in fifo) echo FIFO ;; socket) echo socket ;; device) echo device ;; dir) echo directory ;; esac; }
special=0
# special LABEL TYPES PATH NAMED -- command: PATH is made as each of TYPES in turn.
special_case() {
    local label=$1 types=$2 path=$3 named=$4 t
    shift 5
    for t in $types; do
        make_special "$t" "$path"
        CHECK_TIMEOUT=10 check "$t:$label" "$named" "$(frag_of "$t")" "" -- "$@"
        special=$((special + 1))
    done
    rm -rf "$path"
}
ALL="fifo socket device dir"
S=$TMP/special
mkdir -p "$S"
# Model files given as the MODEL argument, to each command (a directory there is a
# model folder, tried above).
for cmd in cost plan fit sim; do
    case $cmd in
    cost) extra=() ;;
    sim) extra=(--kv-budget 8GiB --no-timing --synthetic requests=2,prompt=fixed:64,output=fixed:8) ;;
    *) extra=(--gpu-mem 80GiB) ;;
    esac
    special_case "$cmd-config" "fifo socket device" "$S/m.json" "$S/m.json" -- "$KVPLAN" "$cmd" "$S/m.json" "${extra[@]}"
    special_case "$cmd-gguf" "fifo socket device" "$S/m.gguf" "$S/m.gguf" -- "$KVPLAN" "$cmd" "$S/m.gguf" "${extra[@]}"
    mkdir -p "$S/folder"
    special_case "$cmd-folder-config" "fifo socket device dir" "$S/folder/config.json" "$S/folder" -- "$KVPLAN" "$cmd" "$S/folder" "${extra[@]}"
done
# The policy planners' model files and geometry.
for pol in vllm sglang llamacpp trtllm; do
    special_case "policy-$pol-model" "fifo socket device" "$S/p.json" "$S/p.json" -- "$KVPLAN" plan --policy "$pol" "$S/p.json" --gpu-mem 80GiB
done
special_case "policy-llamacpp-gguf" "fifo socket device" "$S/p.gguf" "$S/p.gguf" -- "$KVPLAN" plan --policy llamacpp "$S/p.gguf" --gpu-mem 80GiB
special_case "policy-geometry" "fifo socket device" "$S/g.json" "$S/g.json" -- "$KVPLAN" plan --policy vllm --geometry "$S/g.json" --gpu-mem 80GiB
# Safetensors: a single shard, the index, and a shard the index names.
mkdir -p "$S/st1" "$S/st2" "$S/st3"
cp "$LLAMA" "$S/st1/config.json"
cp "$LLAMA" "$S/st2/config.json"
cp "$LLAMA" "$S/st3/config.json"
special_case "safetensors-shard" "fifo socket device" "$S/st1/model.safetensors" "$S/st1/model.safetensors" -- "$KVPLAN" plan "$S/st1" --gpu-mem 80GiB
special_case "safetensors-index" "fifo socket device dir" "$S/st2/model.safetensors.index.json" "$S/st2/model.safetensors.index.json" -- "$KVPLAN" plan "$S/st2" --gpu-mem 80GiB
printf '{"metadata": {}, "weight_map": {"model.embed_tokens.weight": "model-00001-of-00001.safetensors"}}' >"$S/st3/model.safetensors.index.json"
special_case "safetensors-index-named-shard" "fifo socket device dir" "$S/st3/model-00001-of-00001.safetensors" "$S/st3/model-00001-of-00001.safetensors" -- "$KVPLAN" plan "$S/st3" --gpu-mem 80GiB
# A Hugging Face cache: refs/main, and the snapshot's config.json.
HUB=$S/hub
R=$HUB/models--acme--special
mkdir -p "$R/refs" "$R/snapshots/abc"
cp "$LLAMA" "$R/snapshots/abc/config.json"
special_case "hf-refs-main" "fifo socket device dir" "$R/refs/main" "$R/refs/main" -- env HF_HUB_CACHE="$HUB" "$KVPLAN" cost acme/special
echo abc >"$R/refs/main"
special_case "hf-snapshot-config" "fifo socket device dir" "$R/snapshots/abc/config.json" "config.json" -- env HF_HUB_CACHE="$HUB" "$KVPLAN" cost acme/special
# Workload, GPU catalogue (option and environment), local-cache declarations.
special_case "workload" "$ALL" "$S/w.jsonl" "$S/w.jsonl" -- "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --no-timing --workload "$S/w.jsonl"
special_case "gpu-catalog" "$ALL" "$S/gpus.json" "$S/gpus.json" -- "$KVPLAN" --gpu-catalog "$S/gpus.json" gpus
special_case "gpu-catalog-env" "$ALL" "$S/gpus.json" "$S/gpus.json" -- env KVPLAN_GPU_CATALOG="$S/gpus.json" "$KVPLAN" plan llama-3.1-8b --gpu h100
special_case "local-decl" "$ALL" "$S/decl.json" "$S/decl.json" -- "$KVPLAN" local qwen3-tts --max-num-seqs 4 --decl "$S/decl.json"
special_case "from-yaml" "$ALL" "$S/extra.yaml" "--from" -- "$KVPLAN" plan --gpu-mem 80GiB --from "trtllm-serve llama-3.1-8b --extra_llm_api_options $S/extra.yaml"
# A sparse file past each kind's size limit: refused from its size, not read whole
# (a 2 GiB-plus sparse workload read whole would take seconds and GBs: timeout 10).
truncate -s 3G "$S/sparse.jsonl"
CHECK_TIMEOUT=10 check "sparse-workload-3G" "$S/sparse.jsonl" "limit" "" -- "$KVPLAN" sim llama-3.1-8b --kv-budget 8GiB --no-timing --workload "$S/sparse.jsonl"
for k in gpus.json decl.json; do truncate -s 17M "$S/sparse-$k"; done
CHECK_TIMEOUT=10 check "sparse-gpu-catalog" "$S/sparse-gpus.json" "limit" "" -- "$KVPLAN" --gpu-catalog "$S/sparse-gpus.json" gpus
CHECK_TIMEOUT=10 check "sparse-decl" "$S/sparse-decl.json" "limit" "" -- "$KVPLAN" local qwen3-tts --max-num-seqs 4 --decl "$S/sparse-decl.json"
truncate -s 80M "$S/st2/model.safetensors.index.json"
CHECK_TIMEOUT=10 check "sparse-safetensors-index" "$S/st2/model.safetensors.index.json" "limit" "" -- "$KVPLAN" plan "$S/st2" --gpu-mem 80GiB
truncate -s 5000 "$R/refs/main"
CHECK_TIMEOUT=10 check "sparse-hf-refs-main" "$R/refs/main" "limit" "" -- env HF_HUB_CACHE="$HUB" "$KVPLAN" cost acme/special
rm -f "$S"/sparse*
[ "$special" -ge 97 ] || fail "only $special special-file cases ran"

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

# valgrind on a valid model (the refusals' sample runs in the shards).
if command -v valgrind >/dev/null && ! grep -qa "__asan_init\|__tsan_init" "$KVPLAN"; then
    timeout 120 valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite,indirect "$KVPLAN" cost llama-3.1-8b --json >/dev/null 2>"$TMP/vg"
    [ $? -eq 0 ] || fail "valgrind on a valid model: $(head -c 1500 "$TMP/vg")"
fi

# Add up the shards: their failures are printed as they reported them.
for ((j = 0; j < JOBS; j++)); do
    wait "${shard_pids[$j]}"
    cat "$TMP/shard-$j.log"
    if [ ! -s "$TMP/shard-$j.counts" ]; then
        fail "shard $j/$JOBS ended without its counts"
        continue
    fi
    while read -r what a b c d; do
        case $what in
        counts) checked=$((checked + a)) fails=$((fails + b)) known=$((known + c)) ctrl=$((ctrl + d)) ;;
        kind) per_kind[$a]=$((${per_kind[$a]:-0} + b)) ;;
        esac
    done <"$TMP/shard-$j.counts"
done

[ "$ctrl" -eq 0 ] || fail "$ctrl error lines carry control characters from the input to the terminal"
summary=""
for k in "${!per_kind[@]}"; do summary="$summary $k=${per_kind[$k]}"; done
echo "hostile corpus: $checked refusals checked ($summary ), $fails failures, $known known defects"
[ "$fails" -eq 0 ]
