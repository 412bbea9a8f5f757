#!/usr/bin/env bash
# --from with the engines' multi-value options (argparse nargs='+'): every size
# of a CUDA graph capture list reaches the plan, none is listed as ignored.
# vLLM `--cuda-graph-sizes 1 2 4 8` is the capture list; one value N means
# "capture up to N" (--cuda-graph-max-bs). SGLang's `--cuda-graph-bs` is a list.
set -u
KVPLAN=$1
fails=0
check() { # label, want fragment of stderr's "planning as" line, args...
    local label=$1 want=$2
    shift 2
    local err
    err=$("$KVPLAN" "$@" 2>&1 >/dev/null)
    local rc=$?
    [ "$rc" = 0 ] || { echo "FAIL: $label: exit $rc: $err"; fails=$((fails + 1)); return; }
    grep -qF -- "$want" <<<"$err" || { echo "FAIL: $label: no '$want' in: $err"; fails=$((fails + 1)); }
    if grep -q "ignored" <<<"$err"; then echo "FAIL: $label: a size was ignored: $err"; fails=$((fails + 1)); fi
}
M=meta-llama/Llama-3.1-8B
check vllm-list "--policy vllm --cuda-graph-batch-sizes 1,2,4,8 --max-seq-len 8192" \
    plan --from "vllm serve $M --cuda-graph-sizes 1 2 4 8 --max-model-len 8192" --gpu h100
check vllm-one "--policy vllm --cuda-graph-max-bs 64" \
    plan --from "vllm serve $M --cuda-graph-sizes 64" --gpu h100
check vllm-inline "--policy vllm --cuda-graph-max-bs 32" \
    plan --from "vllm serve $M --cuda-graph-sizes=32" --gpu h100
check sglang-list "--policy sglang --cuda-graph-batch-sizes 1,2,4,8,16" \
    plan --from "python -m sglang.launch_server --model-path $M --cuda-graph-bs 1 2 4 8 16" --gpu h100
# The list ends at the next option: its value is not a capture size.
check vllm-list-then-option "--cuda-graph-batch-sizes 1,2 --max-seq-len 4096" \
    plan --from "vllm serve $M --cuda-graph-sizes 1 2 --max-model-len 4096" --gpu h100
# trtllm-serve's YAML: cuda_graph_config.batch_sizes is the same list.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf 'cuda_graph_config:\n  batch_sizes: [1, 2, 4, 8]\n  max_batch_size: 8\n' >"$TMP/g.yaml"
check trtllm-yaml-list "--cuda-graph-batch-sizes 1,2,4,8 --cuda-graph-batch-size 8" \
    plan --from "trtllm-serve $M --extra_llm_api_options $TMP/g.yaml" --gpu h100
echo "from lists: $fails failures"
[ "$fails" -eq 0 ]
