#!/usr/bin/env bash
# from_statements.sh KVPLAN SRCDIR — issue 29, ordinary commands accepted:
#  1. the same value given twice (a flag and the pasted --from command, or its
#     environment) is one statement; a different value is still a contradiction;
#  2. a file named inside --from that is not on this machine is a warning naming
#     it, and the plan is made from the rest;
#  3. the engines' flags that change memory, admission or the cache are table
#     options, read as the engine reads them, given directly or inside --from;
#  4. inside --from, a flag that changes none of those is accepted with a note.
set -u
K=$1
S=$2
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
M=meta-llama/Llama-3.1-8B

# run ARGS...: stdout in $tmp/out, stderr in $tmp/err, exit status in $rc.
run() { "$K" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

# 1. One statement, said twice.
run plan --gpu h100 --from "vllm serve $M -tp 2 --gpu-memory-utilization 0.9 --trust-remote-code" \
    --tp 2 --gpu-memory-utilization 0.90 --trust-remote-code
[ "$rc" = 0 ] || fail "the same --tp / utilization / flag twice: exit $rc: $(cat "$tmp/err")"
grep -qxF "kvplan: --from: planning as: kvplan plan $M --policy vllm --tp 2 --gpu-memory-utilization 0.9 --trust-remote-code --gpu h100" "$tmp/err" ||
    fail "the planning-as line should say each statement once: $(head -1 "$tmp/err")"
run plan --gpu h100 --from "CUDA_VISIBLE_DEVICES=0,1 vllm serve $M -tp 2" --gpus 2
[ "$rc" = 0 ] || fail "--gpus 2 beside CUDA_VISIBLE_DEVICES=0,1: exit $rc: $(cat "$tmp/err")"
run plan --gpu h100 --from "vllm serve $M --no-enable-prefix-caching" --enable-prefix-caching false
[ "$rc" = 0 ] || fail "a negated flag and false: exit $rc: $(cat "$tmp/err")"
run plan --gpu h100 --from "vllm serve $M --kv-cache-memory-bytes 20GiB" --kv-budget 21474836480
[ "$rc" = 0 ] || fail "20GiB and 21474836480 bytes (20 x 2^30): exit $rc: $(cat "$tmp/err")"
# A different value stays a contradiction, both sides named.
run plan --gpu h100 --from "vllm serve $M -tp 2" --tp 4
[ "$rc" = 2 ] && grep -qxF "kvplan: --tp contradicts --from's -tp 2: both set tp; give one" "$tmp/err" ||
    fail "-tp 2 against --tp 4: exit $rc: $(cat "$tmp/err")"
run plan --gpu h100 --from "CUDA_VISIBLE_DEVICES=0,1 vllm serve $M" --gpus 4
[ "$rc" = 2 ] || fail "--gpus 4 against two visible devices: exit $rc"

# 2. Files of another machine.
run plan --gpu h100 --from "trtllm-serve $M --extra_llm_api_options /nonexistent/extra.yaml"
[ "$rc" = 0 ] || fail "a missing options file: exit $rc: $(cat "$tmp/err")"
grep -qxF "kvplan: --from: warning: not on this machine: the options file '/nonexistent/extra.yaml'; planned from the rest of the command" "$tmp/err" ||
    fail "the missing options file is not named: $(cat "$tmp/err")"
run plan --gpu h100 --from "vllm serve /nonexistent/models/meta-llama/Llama-3.1-8B -tp 2"
[ "$rc" = 0 ] || fail "a model folder of another machine: exit $rc: $(cat "$tmp/err")"
grep -qxF "kvplan: --from: warning: not on this machine: the model folder '/nonexistent/models/meta-llama/Llama-3.1-8B'; planned from the rest of the command (the model as the catalogue's 'llama-3.1-8b')" "$tmp/err" ||
    fail "the missing model folder is not named: $(cat "$tmp/err")"
# A folder no catalogue entry names is still no model: exit 2.
run plan --gpu h100 --from "vllm serve /nonexistent/MyOwnFinetune"
[ "$rc" = 2 ] || fail "an unknown missing model folder: exit $rc"

# 3. The engines' flags, each read as its engine reads it.
# SGLang --max-running-requests 2: the cap decides admission (2 of the 3 the KV fits).
run plan llama-3.1-8b --gpu h100 --policy sglang --max-running-requests 2
grep -q "max_running_requests=2, context_len=131072" "$tmp/out" ||
    fail "--max-running-requests 2 is not SGLang's cap: $(grep max_running "$tmp/out")"
grep -q "admitted at once        2 (max_running_requests (2), not the KV cache)" "$tmp/out" ||
    fail "--max-running-requests 2 does not decide admission"
run plan --gpu h100 --from "python -m sglang.launch_server --model-path $M --max-running-requests 2"
grep -q "max_running_requests=2," "$tmp/out" || fail "--max-running-requests inside --from is not read"
# SGLang --chunked-prefill-size: the default mem_fraction_static's reserve, in MB, on
# the catalogue's H100 (79.33 GiB = 81,234 MiB), TP 1, cuda_graph_max_bs 256:
#   default chunk 8192: 512 + 8192 x 1.5 + 256 x 2 + 1/8 x 1024 = 13,440 -> (81234 - 13440)
#   / 81234 = 0.8345 -> 0.835;  32768: 512 + 49152 + 512 + 128 = 50,304 -> 0.381;
#   -1 (no chunking): max(-1, 2048) x 1.5 = 3,072 -> 4,224, raised to 10,240 above 60 GB
#   -> 0.8739 -> 0.874.
for c in "8192 0.835" "32768 0.381" "-1 0.874"; do
    set -- $c
    "$K" plan llama-3.1-8b --gpu h100 --policy sglang --chunked-prefill-size "$1" --explain \
        >"$tmp/out" 2>&1
    grep -qF "budget = avail_after_load - avail_before_load * (1 - $2)" "$tmp/out" ||
        fail "--chunked-prefill-size $1: mem_fraction_static is not $2: $(grep avail_before "$tmp/out")"
done
# SGLang's draft reserve by --speculative-algorithm (PR #10975, MEMORY.md §7): the
# 13,440 MB above + 6,144 for STANDALONE = 19,584 -> (81234 - 19584) / 81234 = 0.7589
# -> 0.759; + 2,048 for EAGLE (and MTP's NEXTN) = 15,488 -> 0.8093 -> 0.809; NGRAM
# drafts with no model: 0.835 as without one. Inside --from, SGLang's own spelling.
for c in "STANDALONE 0.759" "EAGLE 0.809" "NGRAM 0.835" "nextn 0.809"; do
    set -- $c
    "$K" plan llama-3.1-8b --gpu h100 --policy sglang --speculative-algorithm "$1" --explain \
        >"$tmp/out" 2>&1
    grep -qF "budget = avail_after_load - avail_before_load * (1 - $2)" "$tmp/out" ||
        fail "--speculative-algorithm $1: mem_fraction_static is not $2: $(grep avail_before "$tmp/out")"
done
"$K" plan --gpu h100 --explain --from "python -m sglang.launch_server --model-path $M --speculative-algorithm STANDALONE" \
    >"$tmp/out" 2>&1
grep -qF "budget = avail_after_load - avail_before_load * (1 - 0.759)" "$tmp/out" ||
    fail "--speculative-algorithm STANDALONE inside --from: $(grep avail_before "$tmp/out")"
run plan llama-3.1-8b --gpu h100 --policy sglang --chunked-prefill-size 0
[ "$rc" = 2 ] && grep -qxF "kvplan: --chunked-prefill-size: 0 is not a chunk of 1 to 4294967296 tokens, or -1" "$tmp/err" ||
    fail "--chunked-prefill-size 0: exit $rc: $(cat "$tmp/err")"
# SGLang: --max-num-batched-tokens is its chunked_prefill_size, one setting: the same
# value twice is one statement (and the 32768 chunk's 0.381 above); two values, or a
# chunk beside no chunking (-1), contradict each other, both flags named.
"$K" plan llama-3.1-8b --gpu h100 --policy sglang --chunked-prefill-size 32768 \
    --max-num-batched-tokens 32768 --explain >"$tmp/out" 2>&1 &&
    grep -qF "budget = avail_after_load - avail_before_load * (1 - 0.381)" "$tmp/out" ||
    fail "the same chunk twice is not one statement: $(grep avail_before "$tmp/out")"
for c in "4096 8192" "-1 4096"; do
    set -- $c
    run plan llama-3.1-8b --gpu h100 --policy sglang --chunked-prefill-size "$1" --max-num-batched-tokens "$2"
    [ "$rc" = 2 ] && grep -qxF "kvplan: --max-num-batched-tokens contradicts --chunked-prefill-size: under SGLang both are chunked_prefill_size ($1 and $2); give one" "$tmp/err" ||
        fail "--chunked-prefill-size $1 --max-num-batched-tokens $2: exit $rc: $(cat "$tmp/err")"
done
# SGLang --attention-backend flashmla: DeepSeek-V3 (MLA) runs 64-token pages (page 1
# otherwise): the pool is a multiple of 64.
run plan deepseek-v3 --gpu h200 --tp 8 --policy sglang --attention-backend flashmla
grep -q "page_size 64," "$tmp/out" || fail "flashmla does not run 64-token pages"
n=$(sed -n 's/.*max_total_num_tokens=\([0-9]*\),.*/\1/p' "$tmp/out")
[ -n "$n" ] && [ $((n % 64)) = 0 ] || fail "flashmla's pool of $n tokens is not a multiple of 64"
run plan deepseek-v3 --gpu h200 --tp 8 --policy sglang
grep -q "page_size 1," "$tmp/out" || fail "without a backend DeepSeek-V3 should run page 1"
# --ep-size: SGLang moe_tp_size = tp / ep. MiniMax-M2.5 (experts 1536 wide, block-FP8
# 128) at TP 8: 1536 / 8 = 192, refused by S-PAR-2; --ep-size 8 keeps 1536, passes.
MM="$S/data/models/MiniMaxAI__MiniMax-M2.5.json"
run check "$MM" --policy sglang --tp 8 --gpu h200 --trust-remote-code
grep -q "^S-PAR-2  refuse  The output_size of gate's and up's weight = 192" "$tmp/out" ||
    fail "MiniMax-M2.5 TP 8 without EP should be refused by S-PAR-2"
run check --gpu h200 --from "python -m sglang.launch_server --model-path $MM --tp 8 --ep-size 8 --trust-remote-code"
grep -q "^S-PAR-2  pass" "$tmp/out" || fail "--ep-size 8 inside --from: S-PAR-2 should pass: $(grep S-PAR-2 "$tmp/out")"
# The real deployment that started (MiniMax's vLLM recipe: TP 8 with expert parallelism).
run check --gpu h200 --from "vllm serve $MM --tensor-parallel-size 8 --enable-expert-parallel --trust-remote-code"
grep -q "^V-PAR-4  pass" "$tmp/out" || fail "MiniMax-M2.5 TP 8 + EP should pass V-PAR-4"
# vLLM --language-model-only: Qwen3-VL-8B's vision tower is not loaded: the weights
# lose its 576,116,608 parameters x 2 B = 1.07 GiB, deepstack mergers included
# (16.58 -> 15.51 GiB); the deepstack input buffers, 3 x 8192 x 4096 x 2 B =
# 0.19 GiB, are the language model's and stay [uncertain].
run plan qwen3-vl-8b-instruct --gpu h100 --policy vllm --explain
grep -q "weights                     16.58 GiB" "$tmp/out" || fail "Qwen3-VL-8B weights are not 16.58 GiB"
run plan --gpu h100 --explain --from "vllm serve Qwen/Qwen3-VL-8B-Instruct --language-model-only"
grep -q "weights                     15.51 GiB" "$tmp/out" ||
    fail "--language-model-only does not drop the vision tower: $(grep 'weights   ' "$tmp/out")"
# vLLM V1's encoder profile (MEMORY.md 7.4): Gemma-3-27B states 256 tokens per image,
# so 8,192 // 256 = 32 dummy images whose outputs, 32 x 256 x 5376 x 2 B = 0.08 GiB,
# stay alive over the sampler's 3.58 GiB: profile_peak 3.66 GiB. --skip-mm-profiling
# (vLLM's flag, inside --from too) leaves the sampler alone.
run plan gemma-3-27b-it --gpu h100 --policy vllm --explain
grep -q "profile_peak                   3.66 GiB" "$tmp/out" ||
    fail "Gemma-3-27B: the encoder outputs are not on the profile peak: $(grep profile_peak "$tmp/out")"
run plan --gpu h100 --explain --from "vllm serve google/gemma-3-27b-it --skip-mm-profiling"
grep -q "profile_peak                   3.58 GiB" "$tmp/out" ||
    fail "--skip-mm-profiling inside --from does not drop the encoder: $(grep profile_peak "$tmp/out")"
# vLLM 0.9.1's dummy sampler: FlashInfer only when it imports, and a pip install
# has none before 0.10.2, so the PyTorch sort: Llama-3.1-8B on an H100, R 1,024 x
# 128,256 x (2 + 4 + 32) B + hidden 8,192 x 4,096 x 2 B = 4.71 GiB (FlashInfer's
# 14 B: 1.77 GiB). Available = ceil(79.33 GiB x 0.9) = 71.40 - 14.99 - 4.71 - 0.03
# (cuBLAS) = 51.67 GiB; VLLM_USE_FLASHINFER_SAMPLER=1 in the pasted command's
# environment says FlashInfer: 54.60 GiB.
run plan --gpu h100 --engine-version 0.9.1 --from "vllm serve meta-llama/Llama-3.1-8B"
grep -q "Available KV cache memory: 51.67 GiB" "$tmp/out" ||
    fail "vLLM 0.9.1 should sample with the PyTorch sort: $(grep Available "$tmp/out")"
run plan --gpu h100 --engine-version 0.9.1 --from "VLLM_USE_FLASHINFER_SAMPLER=1 vllm serve meta-llama/Llama-3.1-8B"
grep -q "Available KV cache memory: 54.60 GiB" "$tmp/out" ||
    fail "VLLM_USE_FLASHINFER_SAMPLER=1 should plan FlashInfer's sampler: $(grep Available "$tmp/out")"
# vLLM V0 turns chunked prefill on past 32,768 tokens only without a sliding
# window, spec decode, LoRA, multimodal or MLA (MEMORY.md 7.3): Llama-3.1-8B at
# 131,072 profiles 2,048 tokens, DeepSeek-V2-Lite (MLA) its whole 163,840.
run plan llama-3.1-8b --gpu h100 --policy vllm --engine-version 0.7.0 --explain
grep -q "profile_run at max_num_batched_tokens 2048:" "$tmp/out" ||
    fail "V0 Llama-3.1-8B at 131,072: chunked prefill should be on (2,048 tokens)"
run plan deepseek-v2-lite-chat --gpu h100 --policy vllm --engine-version 0.7.0 --explain
grep -q "profile_run at max_num_batched_tokens 163840:" "$tmp/out" ||
    fail "V0 DeepSeek-V2-Lite (MLA): chunked prefill should stay off: $(grep profile_peak "$tmp/out")"
# SchedulerConfig's floors: a multimodal model max(4096, 2048) -> 5,120 tokens,
# a pooling runner 32,768.
run plan gemma-3-27b-it --gpu h100 --policy vllm --engine-version 0.7.0 --max-model-len 4096 --explain
grep -q "profile_run at max_num_batched_tokens 5120:" "$tmp/out" ||
    fail "V0 multimodal floor 5,120: $(grep profile_peak "$tmp/out")"
run plan llama-3.1-8b --gpu h100 --policy vllm --engine-version 0.7.0 --runner pooling --max-model-len 4096 --explain
grep -q "profile_run at max_num_batched_tokens 32768:" "$tmp/out" ||
    fail "V0 pooling floor 32,768: $(grep profile_peak "$tmp/out")"
# SGLang --enable-dp-attention: attention over attn_tp = tp / dp, the embedding
# whole on every rank. DeepSeek-V3.2 on 8 B200 (the deployment of the SGLang
# reference case, whose log printed "#tokens: 975424, KV size: 43.67 GB"):
# weights 90.17 GiB a rank (80.11 split over all 8), 971,904 tokens of 48,068 B.
run plan --gpu b200 --kv-cache-dtype fp8_e4m3 --page-size 64 \
    --from "python -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2 --tp 8 --dp 8 --enable-dp-attention"
grep -q "KV Cache is allocated. #tokens: 971904, KV size: 43.51 GB" "$tmp/out" ||
    fail "SGLang DP attention: attention weights over attn_tp: $(grep 'KV Cache' "$tmp/out")"
# TensorRT-LLM --attention-dp: the attention modules run at tp_size 1 (STARTUP.md
# T-PAR-1): Llama-3.1-8B at TP 2 holds its 1,342,177,280 attention parameters
# whole, 671,088,640 x 2 B = 1,342,177,280 B more a rank (8,064,081,920 -> 9,406,259,200).
w_split=$("$K" plan llama-3.1-8b --gpu h100 --tp 2 --json 2>/dev/null | grep -o '"weights_bytes": [0-9]*' | head -n 1)
w_adp=$("$K" plan llama-3.1-8b --gpu h100 --tp 2 --attention-dp --json 2>/dev/null | grep -o '"weights_bytes": [0-9]*' | head -n 1)
[ "$w_split" = '"weights_bytes": 8064081920' ] && [ "$w_adp" = '"weights_bytes": 9406259200' ] ||
    fail "TensorRT-LLM attention DP weights: '$w_split' -> '$w_adp'"
# vLLM --runner: generate is what kvplan plans; pooling's profile runs the pooler
# (_dummy_pooler_run) instead of compute_logits and the dummy sampler (MEMORY.md
# 1.4): Qwen3-8B on an H100 (1,024 rows x 151,936 vocabulary x (2 + 4 + 8) B
# + hidden 8,192 x 4,096 x 2 B = 2.09 GiB) leaves the profile peak at the forward
# pass, 0.69 GiB: 639 more blocks of 16 x 147,456 B = 1.40 GiB (24,515 -> 25,154).
run plan llama-3.1-8b --gpu h100 --policy vllm --runner generate
[ "$rc" = 0 ] && ! grep -q warning "$tmp/err" || fail "--runner generate: exit $rc: $(cat "$tmp/err")"
run plan llama-3.1-8b --gpu h100 --policy vllm --runner pooling
grep -qF "kvplan: warning: --runner pooling: the profile runs the pooler instead of the sampler (planned); admission is still counted as for generation" "$tmp/err" ||
    fail "--runner pooling's admission is not warned: $(cat "$tmp/err")"
for r in generate:24515 pooling:25154; do
    run plan qwen3-8b --gpu h100 --policy vllm --runner "${r%%:*}" --explain
    grep -qF "(${r##*:} blocks of 16 tokens)" "$tmp/out" ||
        fail "--runner ${r%%:*}: not ${r##*:} blocks: $(grep 'blocks of 16' "$tmp/out" | head -2)"
done
grep -qE "^ +dummy_pooler +0\.06 GiB" "$tmp/out" || fail "--runner pooling: no pooler phase in --explain"
run plan llama-3.1-8b --gpu h100 --policy vllm --runner server
[ "$rc" = 2 ] || fail "--runner server: exit $rc"

# 4. A flag that changes none of those, inside --from: accepted with a note.
run plan --gpu h100 --from "vllm serve $M --port 8000 --served-model-name x"
[ "$rc" = 0 ] && grep -qxF "kvplan: --from: note: 2 option(s) accepted that change neither memory, admission nor the KV cache as kvplan plans them: --port 8000, --served-model-name x" "$tmp/err" ||
    fail "--port inside --from: exit $rc: $(cat "$tmp/err")"

[ "$fails" = 0 ] && echo ok
exit "$fails"
