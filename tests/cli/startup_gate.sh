#!/usr/bin/env bash
# startup_gate.sh KVPLAN SRCDIR — the start-up rules (docs/startup.md) in `plan`:
# a deployment the engine refuses exits 1 with its rule on stderr and no plan;
# an adjustment is said and planned with; `--from` bad input is exit 2 naming
# the word; `cost` and `plan` agree on TP divisibility.
set -u
K="$1"
SRC="$2"
fail() { echo "FAIL: $*"; exit 1; }
err=/tmp/kvp_gate_err.$$
trap 'rm -f $err' EXIT

# expect RC RULE ARGS...: exit RC, RULE named on stderr (RULE "" = no check), for refusals
# nothing on stdout.
expect() {
    local want=$1 rule=$2 out rc
    shift 2
    out=$("$K" "$@" 2>$err); rc=$?
    [ "$rc" = "$want" ] || fail "exit $rc (expected $want) for: $* : $(cat $err)"
    if [ -n "$rule" ]; then grep -q -- "$rule" $err || fail "'$rule' not on stderr for: $*: $(cat $err)"; fi
    if [ "$want" = 1 ] && [ "$1" = plan ]; then [ -z "$out" ] || fail "a refused deployment printed a plan: $*"; fi
    return 0
}

# The three examples of issue 21.
expect 1 "V-PAR-1" plan qwen3-32b --policy vllm --tp 5 --gpu h100
expect 0 "" plan qwen3-32b --policy vllm --tp 4 --gpu h100
neox="$SRC/tests/data/families/gptneox.json"   # max_position_embeddings 2048
expect 1 "V-LEN-1" plan "$neox" --policy vllm --max-model-len 8192 --gpu h100
expect 0 "VLLM_ALLOW_LONG_MAX_MODEL_LEN" plan "$neox" --policy vllm --max-model-len 8192 --gpu h100 \
    --env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
expect 0 "" plan "$neox" --policy vllm --max-model-len 2048 --gpu h100
expect 1 "V-DT-1" plan qwen3-8b --policy vllm --gpu v100-32gb --dtype bfloat16
expect 0 "V-DT-1: .*Falling back to torch.float16" plan qwen3-8b --policy vllm --gpu v100-32gb --dtype auto
expect 0 "" plan qwen3-8b --policy vllm --gpu v100-32gb --dtype float16
# SGLang forces fp16 below sm80 and refuses below sm75.
expect 0 "S-DT-1" plan qwen3-0.6b --policy sglang --gpu t4
expect 1 "S-DT-1" plan qwen3-0.6b --policy sglang --gpu v100
# The same refusal through --from, with the GPU count from CUDA_VISIBLE_DEVICES.
expect 1 "V-PAR-8" plan --gpu h100 --from "CUDA_VISIBLE_DEVICES=0,1 vllm serve Qwen/Qwen3-8B -tp 4"
expect 0 "" plan --gpu h100 --from "CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve Qwen/Qwen3-8B -tp 4"

# cost and plan agree: a TP that cost refuses is refused by plan, and the reverse.
for tp in 1 2 3 4 5 6 8 16; do
    "$K" cost qwen3-32b --tp $tp >/dev/null 2>&1; c=$?
    "$K" plan qwen3-32b --policy vllm --tp $tp --kv-budget 40GiB >/dev/null 2>&1; p=$?
    if [ "$c" = 0 ] && [ "$p" != 0 ]; then fail "TP $tp: cost plans, plan refuses"; fi
    if [ "$c" != 0 ] && [ "$p" = 0 ]; then fail "TP $tp: cost refuses, plan plans"; fi
done

# check: exit codes and the unknown count in the summary line.
expect 1 "" check qwen3-32b --policy vllm --tp 5 --gpu h100
expect 0 "" check qwen3-8b --policy vllm --gpu-mem 80G
out=$("$K" check qwen3-8b --policy vllm --gpu-mem 80G)
printf '%s\n' "$out" | grep -q "unknown: .*V-DT-1\|^V-DT-1 *unknown" || fail "V-DT-1 not unknown without a GPU"
printf '%s\n' "$out" | tail -1 | grep -q "[1-9][0-9]* unknown" || fail "summary does not count unknowns: $(printf '%s' "$out" | tail -1)"

# --from bad input: exit 2, one line naming the word.
bad_from() {
    local word=$1 rc
    shift
    "$K" check qwen3-8b --gpu h100 --from "$1" >/dev/null 2>$err; rc=$?
    [ "$rc" = 2 ] || fail "exit $rc (expected 2) for --from '$1'"
    grep -q -- "$word" $err || fail "'$word' not named for --from '$1': $(cat $err)"
}
bad_from "CUDA_VISIBLE_DEVICES=0,,1" "CUDA_VISIBLE_DEVICES=0,,1 vllm serve m"
bad_from "CUDA_VISIBLE_DEVICES=x" "CUDA_VISIBLE_DEVICES=x vllm serve m"
bad_from "two engines" "vllm serve m && python -m sglang.launch_server --model-path m"
bad_from "-tp needs a value" "vllm serve m -tp"
bad_from "unterminated double quote" "vllm serve \"m"
bad_from "'|'" "vllm serve m | tee log"
# An unknown engine flag is warned about by name, never dropped silently.
"$K" check --gpu h100 --from "vllm serve Qwen/Qwen3-8B --max-model-lenn 4096" >/dev/null 2>$err
grep -q "warning: .*--max-model-lenn" $err || fail "unknown flag not named: $(cat $err)"
# $VAR is left as text and said so.
"$K" check --gpu h100 --from "vllm serve Qwen/Qwen3-8B --download-dir \$HF_HOME" >/dev/null 2>$err
grep -q '\$HF_HOME left as text' $err || fail "\$VAR not reported: $(cat $err)"
# SGLang's S-MEM-1: the engine's words, then why, not the same sentence twice. Qwen3-32B at
# fp8 on an RTX 4090: weights 31.97 GiB, more than mem_fraction_static 0.847 x 23.24 GiB free
# before they load (19.68 GiB): rest memory 19.68 - 31.97 = -12.29 GiB.
expect 1 "S-MEM-1" plan qwen3-32b --gpu "RTX 4090" --policy sglang --quantization fp8
line=$(grep "S-MEM-1" $err)
[ "$(printf '%s' "$line" | grep -o "Not enough memory" | wc -l)" = 1 ] || fail "S-MEM-1 says it twice: $line"
printf '%s' "$line" | grep -q "rest memory -12.29 GiB <= 0: the weights (31.97 GiB) exceed mem_fraction_static 0.847 x 23.24 GiB" \
    || fail "S-MEM-1 does not say why: $line"
echo "startup gate: ok"
