#!/usr/bin/env bash
# determinism_json.sh KVPLAN SRCDIR — the same inputs give byte-identical --json
# output on every run: every catalogue model through `kvplan cost --json --layers`
# (default and a tp/pp/fp8 deployment), run twice under different environments
# (malloc perturbation, working directory, locale, time zone), and `kvplan plan
# --json`, sim, sweep, compare, fit and local the same way when they exist. Also: a model read from a path
# gives the same pools as the same model read from the catalogue.
set -u
KVPLAN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: runs change directory
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
runs=0

fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

# twice ARGS...: run twice in different environments; outputs must match byte for byte.
twice() {
    (cd "$TMP" && timeout 60 "$KVPLAN" "$@" >"$TMP/a" 2>"$TMP/ea")
    local ra=$?
    (cd / && env MALLOC_PERTURB_=165 LC_ALL=C.UTF-8 TZ=Asia/Kolkata KVP_UNUSED=$RANDOM \
        timeout 60 "$KVPLAN" "$@" >"$TMP/b" 2>"$TMP/eb")
    local rb=$?
    runs=$((runs + 1))
    if [ "$ra" -ne "$rb" ]; then
        fail "kvplan $*: exit $ra then $rb"
    elif ! cmp -s "$TMP/a" "$TMP/b"; then
        fail "kvplan $*: stdout differs between runs: $(diff "$TMP/a" "$TMP/b" | head -5)"
    elif ! cmp -s "$TMP/ea" "$TMP/eb"; then
        fail "kvplan $*: stderr differs between runs"
    fi
    return "$ra"
}

mapfile -t models < <("$KVPLAN" models --json | grep -oE '"name": "[^"]+"' | sed 's/"name": "//; s/"$//')
[ "${#models[@]}" -gt 10 ] || fail "kvplan models --json lists ${#models[@]} models"
ok=0
for m in "${models[@]}"; do
    twice cost "$m" --json --layers && ok=$((ok + 1))
    twice cost "$m" --json --tp 8 --pp 4 --kv-dtype fp8 --block-size 64 >/dev/null
done
[ "$ok" -eq "${#models[@]}" ] || fail "only $ok of ${#models[@]} catalogue models cost cleanly"

# Text output is deterministic too.
twice cost llama-3.1-8b --layers --tp 2 || fail "cost text output failed"

# The same config from a path and from the catalogue: same pools and figures.
"$KVPLAN" cost "$SRC/data/models/meta-llama__Llama-3.1-8B.json" --json | grep -v '"model":' >"$TMP/path"
"$KVPLAN" cost llama-3.1-8b --json | grep -v '"model":' >"$TMP/cat"
cmp -s "$TMP/path" "$TMP/cat" || fail "cost of a path and of its catalogue entry differ"

# Errors are deterministic as well.
twice cost "$SRC/tests/hostile/config/llama-kv-not-dividing.json" --json
[ $? -eq 2 ] || fail "a hostile config did not exit 2"

# The planner, when it exists.
if timeout 60 "$KVPLAN" plan llama-3.1-8b --gpu-mem 80GiB --json >/dev/null 2>&1; then
    for m in llama-3.1-8b deepseek-v3 gemma-3-27b-it qwen3-next-80b-a3b-thinking gpt-oss-20b; do
        twice plan "$m" --gpu-mem 80GiB --json >/dev/null
        twice plan "$m" --gpu-mem 141GiB --tp 8 --kv-dtype fp8 --json >/dev/null
    done
else
    echo "note: kvplan plan is not available yet: only cost checked"
fi

# The other subcommands that print --json, when they exist (a seeded synthetic
# workload and --no-timing make sim reproducible).
more=(
    "sim llama-3.1-8b --kv-budget 8GiB --no-timing --json --synthetic requests=300,prompt=lognormal:800:1,output=uniform:10:200,shared_prefix=256:0.5,prefixes=4,seed=7"
    "sim qwen3-next-80b-a3b-thinking --kv-budget 20GiB --no-timing --json --synthetic requests=100,prompt=fixed:2000,output=fixed:100,seed=3"
    "sweep llama-3.1-8b --gpu-mem 80GiB --over tp=1,2 --over max-seq-len=4k..32k --over kv-dtype=bf16,fp8 --json"
    "compare llama-3.1-8b --gpu-mem 80GiB --json"
    "fit llama-3.1-8b --gpu-mem 80GiB --json"
    "local qwen3-tts --max-num-seqs 8 --async-chunk --json"
)
for cmd in "${more[@]}"; do
    read -r -a a <<<"$cmd"
    if timeout 60 "$KVPLAN" "${a[@]}" >/dev/null 2>&1; then
        twice "${a[@]}" >/dev/null
    else
        echo "note: '$cmd' does not run here: not checked"
    fi
done

echo "determinism: $runs paired runs, $fails failures"
[ "$fails" -eq 0 ]
