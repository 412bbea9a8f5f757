#!/usr/bin/env bash
# config_literals.sh KVPLAN SRCDIR — issue 12: a config with a Python NaN or
# Infinity reads the same in every command. In a key kvplan does not read it
# changes nothing (before: Whisper + "x": NaN made `plan` fail on a key that is
# present, and Qwen3.5 + NaN halved the profiling pass); in a key kvplan reads it
# is refused, naming the key, by every command alike.
set -u
K="$1"
S="$2"
fail() { echo "FAIL: $*"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# DIR/config.json: MODEL's config with TEXT added as the outer object's last member.
make_cfg() {
    mkdir -p "$1"
    sed '$ s/}[[:space:]]*$//' "$S/data/models/$2" >"$1/config.json"
    printf ',\n  %s\n}\n' "$3" >>"$1/config.json"
}

# same MODEL ARGS...: identical stdout and exit status with and without the literals.
same() {
    local model="$1" a b ra rb
    shift
    mkdir -p "$T/plain"
    cp "$S/data/models/$model" "$T/plain/config.json"
    make_cfg "$T/nan" "$model" '"x": NaN, "y": [Infinity, -Infinity, NaN]'
    a=$(cd "$T/plain" && "$K" "$@" 2>&1); ra=$?
    b=$(cd "$T/nan" && "$K" "$@" 2>&1); rb=$?
    [ "$ra" = "$rb" ] || fail "$model $*: exit $ra without literals, $rb with"
    [ "$a" = "$b" ] || fail "$model $*: output differs with literals in unread keys"
}

W=openai__whisper-large-v3.json
same $W cost config.json
same $W plan config.json --gpu H100 --cross-kv-cache-fraction 0.5
same $W plan config.json --gpu H100 --cross-kv-cache-fraction 0.5 --explain --json
Q=Qwen__Qwen3.5-27B.json
same $Q cost config.json --tp 2
same $Q plan config.json --gpu-mem 80GiB --weights 38GiB --peak 40GiB --non-torch 2GiB \
    --max-seq-len 32768 --max-batch-size 256 --explain
same $Q plan config.json --gpu H100 --policy vllm
same $Q plan config.json --gpu H100 --policy sglang
same $Q fit config.json --gpu H100 --concurrency 8
same $Q sweep config.json --gpu H100 --over max-seq-len=4k..32k
same $Q compare config.json --gpu H100
# The profiling pass of Qwen3.5 (linear and full pools): 2 pool groups of
# max(ceil(8193 / 64) = 129, warm-up 1152, 256) = 1152 blocks -> 2304 blocks.
out=$(cd "$T/nan" && "$K" plan config.json --gpu-mem 80GiB --weights 38GiB --peak 40GiB \
    --non-torch 2GiB --max-seq-len 32768 --max-batch-size 256 --explain)
case "$out" in *"x pool groups x beam = 2304"*) ;; *) fail "Qwen3.5 profiling pass: $out" ;; esac

# A literal in a key kvplan reads: every command refuses it with the same line.
L=meta-llama__Llama-3.1-8B.json
mkdir -p "$T/used"
sed 's/"intermediate_size": 14336/"intermediate_size": NaN/' "$S/data/models/$L" >"$T/used/config.json"
want="kvplan: config.json: /intermediate_size: holds a Python NaN literal; kvplan reads this key and needs a finite value"
for args in "cost config.json" "plan config.json --gpu H100" "plan config.json --gpu H100 --policy vllm" \
    "plan config.json --gpu H100 --policy sglang" "fit config.json --gpu H100 --concurrency 8" \
    "sweep config.json --gpu H100 --over max-seq-len=4k..8k" "compare config.json --gpu H100"; do
    # shellcheck disable=SC2086
    err=$(cd "$T/used" && "$K" $args 2>&1 >/dev/null); rc=$?
    [ "$rc" = 2 ] || fail "$args: expected exit 2 for a NaN intermediate_size, got $rc"
    [ "$err" = "$want" ] || fail "$args: expected '$want', got '$err'"
done
echo "ok"
