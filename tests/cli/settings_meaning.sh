#!/usr/bin/env bash
# Issue 27 items 1 (versions), 3 and 4 on the command line: each case failed on
# efecc94.
#  - llama.cpp: --max-seq-len is the per-request context (n_ctx = length x
#    --parallel), and --quantization Q4_K_M is its file type, applied with no
#    "not read" warning;
#  - SGLang with a pool below the context starts and caps the input (S-LEN-2),
#    never "adjusts" and then "would not start";
#  - V-PAR-2 says what it tested (8 KV heads at TP 5 are refused), and a refused
#    deployment prints no "runs with";
#  - TensorRT-LLM release numbers map to their rule set; a release newer than
#    kvplan knows warns and plans with the newest line; no version is exit 2.
# $1 = kvplan binary.
set -uo pipefail
kvplan=$1
fail=0
run() { out=$("$kvplan" "$@" 2>/tmp/kvp_settings_err.$$); rc=$?; err=$(cat /tmp/kvp_settings_err.$$); }
want() { # NAME STATUS [+PATTERN | -PATTERN]... -- ARGS...: exit status; patterns in (+) or absent from (-) stdout+stderr
  local name=$1 status=$2; shift 2
  local pats=()
  while [ "$1" != "--" ]; do pats+=("$1"); shift; done
  shift
  run "$@"
  if [ "$rc" != "$status" ]; then echo "FAIL $name: exit $rc, expected $status: $out $err"; fail=1; return; fi
  for p in "${pats[@]}"; do
    case $p in
      +*) grep -qF -- "${p:1}" <<<"$out$err" || { echo "FAIL $name: want '${p:1}' in: $out $err"; fail=1; } ;;
      -*) ! grep -qF -- "${p:1}" <<<"$out$err" || { echo "FAIL $name: '${p:1}' should not be in: $out $err"; fail=1; } ;;
    esac
  done
}
{
# llama.cpp: 16384 tokens per request, one slot: n_ctx 16384 (was the train length 40960,
# 10 GiB of KV that did not fit the 24 GiB card; now weights 18.40 + KV 4 + 1.04 GiB fit).
want llamacpp-len 0 "+n_ctx = 16384, n_ctx_seq = 16384" "-does not read it" "-warning" \
  -- plan qwen3-32b --gpu "RTX 4090" --policy llamacpp --quantization Q4_K_M --max-seq-len 16384
# Two slots of 8192: n_ctx = 8192 x 2 = 16384, each slot 8192 cells.
want llamacpp-slots 0 "+n_seq_max = 2, n_ctx = 16384, n_ctx_seq = 8192" \
  -- plan qwen3-32b --gpu h100 --policy llamacpp --max-seq-len 8192 --parallel 2
# A unified cache: every slot sees the whole context, n_ctx = the length.
want llamacpp-unified 0 "+n_seq_max = 2, n_ctx = 8192, n_ctx_seq = 8192" \
  -- plan qwen3-32b --gpu h100 --policy llamacpp --max-seq-len 8192 --parallel 2 --kv-unified
# Q4_K_M is the GGUF file type: weights 18.40 GiB (61 GiB unquantized), no warning.
want llamacpp-q4 0 "+weights 18.40 GiB" "-warning" \
  -- plan qwen3-32b --gpu h100 --policy llamacpp --quantization Q4_K_M --max-seq-len 16384
want llamacpp-c-and-len 2 "+--max-seq-len contradicts -c: both set the context" \
  -- plan qwen3-32b --gpu h100 --policy llamacpp -c 8192 --max-seq-len 4096
# SGLang: 18761 KV tokens for a context of 40960 on one H100: starts, inputs capped.
want sglang-starts 0 "+S-LEN-2: starts with" "-would not start" \
  -- plan qwen3-32b --policy sglang --gpu h100
want sglang-fit-starts 0 "-would not start" -- compare qwen3-32b --gpu h100 --policies sglang
# V-PAR-2: 8 KV heads at TP 5 (8 % 5 = 3) refuse; no "runs with" after a refusal.
want vpar2-tp5 1 "+V-PAR-2  refuse  8 is not divisible by 5" "-runs with" \
  -- check qwen3-32b --gpu h100 --policy vllm --tp 5
want vpar2-tp4 0 "+V-PAR-2  pass    8 KV heads divide by TP 4" "+runs with" \
  -- check qwen3-32b --gpu h100 --policy vllm --tp 4 --max-model-len 8192
# TensorRT-LLM releases: 1.2.0rc4 is rule set 2025 (STARTUP.md A.4), 1.3.0rc2 2026.
want trt-1.2 0 "+TensorRT-LLM rule set 2025" -- plan qwen3-32b --policy trtllm --gpu h100 --max-seq-len 8192 --engine-version 1.2.0rc4
want trt-0.20 0 "+TensorRT-LLM rule set 2025" -- plan qwen3-32b --policy trtllm --gpu h100 --max-seq-len 8192 --engine-version 0.20.0
want trt-1.1 0 "+TensorRT-LLM rule set 2025" -- plan qwen3-32b --policy trtllm --gpu h100 --max-seq-len 8192 --engine-version 1.1
want trt-1.3 0 "+TensorRT-LLM rule set 2026" -- plan qwen3-32b --policy trtllm --gpu h100 --max-seq-len 8192 --engine-version 1.3.0rc2
want trt-newer 0 "+--engine-version 1.4.0 is newer than the newest TensorRT-LLM release kvplan knows; planned with the rules of its newest line (2026)" \
  -- plan qwen3-32b --policy trtllm --gpu h100 --max-seq-len 8192 --engine-version 1.4.0
want trt-banana 2 "+'banana' is not a trtllm version kvplan knows; expected a release (1.2.0rc4, 0.20.0, 1.1, v1.3.0)" \
  -- plan qwen3-32b --policy trtllm --gpu h100 --engine-version banana
want vllm-dev 0 "-not understood" -- plan qwen3-32b --policy vllm --gpu h100 --max-seq-len 8192 --engine-version 0.12.0rc1.dev5+g1a2b3c4
want sglang-post 0 "+policy: sglang (pre-11309, v0.4.9.post2)" -- plan qwen3-32b --policy sglang --gpu h100 --max-seq-len 8192 --engine-version v0.4.9.post2
want llamacpp-version 0 "+policy: llamacpp (pad-old" -- plan qwen3-32b --policy llamacpp --gpu h100 --max-seq-len 8192 --engine-version "version: 6000 (abc)"
# One start-up verdict: check, plan and compare (one engine) exit the same way
# for the same deployment (0 starts, 1 refused), from the one pipeline.
verdict() { # WANT ENGINE ARGS...: check, plan and compare agree on WANT
  local want=$1 eng=$2; shift 2
  "$kvplan" check "$@" --policy "$eng" >/dev/null 2>&1; local c=$?
  "$kvplan" plan "$@" --policy "$eng" >/dev/null 2>&1; local p=$?
  "$kvplan" compare "$@" --policies "$eng" >/dev/null 2>&1; local m=$?
  if [ "$c$p$m" != "$want$want$want" ]; then
    echo "FAIL verdict $eng $*: check $c, plan $p, compare $m (want $want)"; fail=1
  fi
}
verdict 1 vllm qwen3-32b --gpu h100                 # V-MEM-3: 40960 tokens need 10 GiB
verdict 0 vllm qwen3-32b --gpu h100 --max-seq-len 8192
verdict 0 sglang qwen3-32b --gpu h100               # S-LEN-2: starts, inputs capped
verdict 1 vllm qwen3-32b --gpu h100 --tp 5          # V-PAR-1, V-PAR-2, V-PAR-3
verdict 1 trtllm qwen3-32b --gpu l40s               # T-MEM-2: the weights do not fit
verdict 0 trtllm qwen3-32b --gpu h100 --max-seq-len 200000  # T-LEN-1 clamps to 40960
verdict 0 llamacpp qwen3-32b --gpu "RTX 4090" --max-seq-len 16384 --quantization Q4_K_M
# An option with no meaning under the engine: exit 2 naming both (test_options:
# inside a pasted --from command, the engine's own flag is a warning).
want no-meaning 2 "+--gpu-memory-utilization has no meaning under TensorRT-LLM (policy trtllm)" \
  -- plan qwen3-32b --policy trtllm --gpu h100 --gpu-memory-utilization 0.8
}
rm -f /tmp/kvp_settings_err.$$
[ $fail = 0 ] && echo "ok: settings mean one thing under every engine; one start-up verdict; release lines"
exit $fail
