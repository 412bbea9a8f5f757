#!/bin/bash
# sim_plan.sh KVPLAN SRCDIR — `kvplan sim --gpu/--kv-budget` simulates the very
# pools `kvplan plan` sizes: the block (slot) counts agree pool by pool.
set -u
K=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
W=requests=50,prompt=fixed:100,output=fixed:5

# pool_blocks FILE: the "blocks" of the top-level "pools" array.
pool_blocks() {
    awk '/^  "pools": \[/ {on = 1} on && /"blocks": [0-9]+/ {match($0, /[0-9]+/); print substr($0, RSTART, RLENGTH)} on && /^  \]/ {on = 0}' "$1"
}

# same MODEL ARGS...: plan and sim agree on every pool's blocks.
same() {
    local m=$1
    shift
    "$K" plan "$m" "$@" --max-batch-size 256 --json >"$T/plan" 2>"$T/err" || fail "plan $m $*: $(cat "$T/err")"
    "$K" sim "$m" "$@" --max-batch-size 256 --synthetic $W --json >"$T/sim" 2>"$T/err" || fail "sim $m $*: $(cat "$T/err")"
    pool_blocks "$T/plan" >"$T/pb"
    pool_blocks "$T/sim" >"$T/sb"
    [ -s "$T/pb" ] || fail "$m $*: no blocks in the plan"
    cmp -s "$T/pb" "$T/sb" || fail "$m $*: plan blocks $(tr '\n' ' ' <"$T/pb") != sim blocks $(tr '\n' ' ' <"$T/sb")"
}

same llama-3.1-8b --gpu h100
same llama-3.2-1b --kv-budget 20GiB
same qwen3-next-80b-a3b-thinking --tp 4 --gpu h100
same llama-3.1-8b --gpu-mem 48GiB --free-gpu-memory-fraction 0.5

# A budget too small for the model is one clear line, exit 1 (it cannot start).
"$K" sim llama-3.1-8b --kv-budget 1MiB --synthetic $W >"$T/out" 2>"$T/err"
[ $? -eq 1 ] || fail "tiny budget: exit status"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "tiny budget: $(cat "$T/err")"
exit 0
