#!/usr/bin/env bash
# config_parses.sh KVPLAN SRCDIR — issue 12 "the model is the only reader": each
# command parses a model's config text once per model it loads, and the planner,
# the memory estimate, the policies and the fit/sweep searches read the model's
# facts, never the text again (before: one `fit` parsed the same config.json 21
# times). KVPLAN_DEBUG_COUNTS=1 makes kvplan print both counts on exit.
set -u
K="$1"
S="$2"
fail() { echo "FAIL: $*"; exit 1; }

# expect LOADS ARGS...: the command loads LOADS models and parses LOADS texts.
expect() {
    local loads="$1" line
    shift
    line=$(KVPLAN_DEBUG_COUNTS=1 "$K" "$@" 2>&1 >/dev/null | grep '^kvplan-debug:')
    [ "$line" = "kvplan-debug: model loads $loads, config parses $loads" ] ||
        fail "$*: expected $loads loads and $loads parses, got '$line'"
}

expect 1 plan llama-3.1-8b --gpu H100
expect 1 plan llama-3.1-8b --gpu H100 --max-seq-len 8192 --explain
expect 1 plan llama-3.1-8b --gpu H100 --policy vllm
expect 1 plan llama-3.1-8b --gpu H100 --policy sglang
expect 1 plan deepseek-v3 --gpu H200 --tp 8 --policy sglang
expect 1 plan "$S/data/models/Qwen__Qwen3.5-27B.json" --gpu H100 --policy vllm
expect 2 plan llama-3.1-8b --gpu H100 --draft llama-3.2-1b
expect 1 fit llama-3.1-8b --gpu H100 --concurrency 16
expect 1 fit qwen3-32b --gpu A100 --policy vllm --concurrency 4
expect 1 fit qwen3-next-80b-a3b-thinking --gpu H200 --tp 4 --concurrency 64
expect 1 sweep llama-3.1-8b --gpu H100 --over max-seq-len=4k..64k --over kv-dtype=bf16,fp8
expect 1 sweep llama-3.1-8b --gpu H100 --over policy=trtllm,vllm,sglang --over tp=1,2
expect 1 compare llama-3.1-8b --gpu H100
expect 1 cost qwen3-next-80b-a3b-thinking --tp 2
echo "ok"
