#!/usr/bin/env bash
# The option table on the command line (docs/options.md): an engine's own flag
# without --policy plans that engine and says so; flags of two engines, and
# every contradictory pair of issue 17, are exit 2 naming both sides.
# $1 = kvplan binary.
set -uo pipefail
kvplan=$1
fail=0
expect() { # NAME STATUS PATTERN -- ARGS... : exit status and a pattern in stdout+stderr
  local name=$1 want=$2 pat=$3; shift 4
  out=$("$kvplan" "$@" 2>&1); rc=$?
  if [ "$rc" != "$want" ] || ! grep -qF -- "$pat" <<<"$out"; then
    echo "FAIL $name: exit $rc (expected $want), want '$pat' in: $out"; fail=1
  fi
}
M="llama-3.1-8b --gpu h100"
# shellcheck disable=SC2086
{
# plan prints the table's note, the same words as fit and check.
expect plan-vllm-flag 0 "kvplan: note: planning for vLLM (policy vllm): --max-model-len is vLLM's flag" -- plan $M --max-model-len 8192
expect plan-vllm-flag-planned 0 "policy: vllm" -- plan $M --max-model-len 8192
expect plan-llamacpp-flag 0 "planning for llama.cpp (policy llamacpp): -c is llama.cpp's flag" -- plan $M -c 8192
# TensorRT-LLM's own flags keep the default, the creator, with no note.
expect plan-trtllm-flag 0 "policy trtllm" -- plan $M --max-batch-size 64 --cp 1
if "$kvplan" plan $M --max-batch-size 64 2>&1 >/dev/null | grep -q "note: planning"; then
  echo "FAIL plan-trtllm-quiet: a note for the default engine"; fail=1
fi
# sim reads the table too: an engine spelling sets the field, and chooses no engine.
expect sim-spelling 0 '"policy": "vllm"' -- sim $M --max_seq_len 4096 --max-batch-size 8 --synthetic prompt=fixed:5,output=fixed:1 --json --no-timing
expect plan-two-engines 2 "--context-length contradicts -c" -- plan $M -c 8192 --context-length 4096
expect fit-sglang-flag 0 "planning for SGLang (policy sglang): --context-length is SGLang's flag" -- fit $M --context-length 8192
expect fit-two-engines 2 "-c is llama.cpp's" -- fit $M --max-model-len 8192 -c 8192
expect policy-policies 2 "--policy contradicts --policies" -- compare $M --policy vllm --policies vllm,sglang
expect over-tp 2 "--tp contradicts --over tp" -- sweep $M --over tp=1,2 --tp 2
expect over-policy 2 "--policy contradicts --over policy" -- sweep $M --over policy=vllm,sglang --policy vllm
expect csv-json 2 "--json contradicts --csv" -- sweep $M --over tp=1,2 --csv --json
# The command's side is named as it was pasted (its -tp), the user's as typed.
expect from-tp 2 "--tp contradicts --from's -tp 2: both set tp; give one" -- plan $M --from "vllm serve m -tp 2" --tp 4
expect from-len 2 "--max-seq-len contradicts --from's --max-model-len 8192: both set max_seq_len" -- fit $M --from "vllm serve m --max-model-len 8192" --max-seq-len 4096
expect from-policy 2 "--policy contradicts --from: the --from command is a vllm command; give one" -- check $M --from "vllm serve m" --policy sglang
# The command's settings fill the same rows the flags do: every command that
# takes --from prints the same stdout for the command as for the flags.
for cmd in plan fit "sweep --over pp=1,2" compare check; do
  a=$("$kvplan" $cmd $M --from "vllm serve m --max-model-len 8192 -tp 2 --kv-cache-dtype fp8" --json 2>/dev/null)
  b=$("$kvplan" $cmd $M --policy vllm --max-model-len 8192 -tp 2 --kv-cache-dtype fp8 --json 2>/dev/null)
  if [ -z "$a" ] || [ "$a" != "$b" ] || grep -q '"error"' <<<"$a"; then
    echo "FAIL from-same-$cmd: --from and the same flags differ, or failed: ${a:0:200}"; fail=1
  fi
done
expect gpu-gpumem 2 "--gpu contradicts --gpu-mem" -- fit llama-3.1-8b --gpu h100 --gpu-mem 80GiB
expect peak-pair 2 "--peak contradicts --activation-peak" -- fit $M --policy vllm --peak 20GiB --activation-peak 4GiB
expect engine-version 2 "'banana' is not a vllm version kvplan knows; expected a release (0.9.1, v0.11.0" -- fit $M --policy vllm --engine-version banana
expect no-meaning 2 "--gpu-memory-utilization has no meaning under TensorRT-LLM (policy trtllm)" -- fit $M --policy trtllm --gpu-memory-utilization 0.8
expect same-spelling-twice 2 "--tp is given twice" -- fit $M --tp 2 --tp 4
expect two-spellings 2 "--tensor-parallel-size contradicts --tp" -- fit $M --tp 2 --tensor-parallel-size 4
expect check-vllm-flag 0 "planning for vLLM (policy vllm)" -- check $M --max-model-len 8192
}
[ $fail = 0 ] && echo "ok: engine flags choose the engine; contradictions name both sides"
exit $fail
