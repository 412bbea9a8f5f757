#!/usr/bin/env bash
# hostile_values.sh KVPLAN SRCDIR — values the corpus files cannot carry alone
# (issue 17, round three): --synthetic specs, the GPU catalogue from the
# environment, and checkpoint folders whose safetensors contradict their index or
# their config. Each refusal is exit 2 with exactly one stderr line naming the
# option, variable, file or key; each accepted case is exit 0.
set -u
KVPLAN=$1
SRC=$2
. "$(dirname "$0")/lib/cases.bash"
# expect LABEL WANT_RC FRAGMENT -- command   (FRAGMENT: in stderr for 2, in stdout for 0)
expect() {
    local label=$1 want=$2 frag=$3
    shift 4
    cases=$((cases + 1))
    timeout 60 "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    local rc=$?
    [ "$rc" = "$want" ] || { fail "$label: exit $rc, expected $want: $(head -c 400 "$TMP/err")"; return; }
    if [ "$want" = 2 ]; then
        [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$label: stderr is not one line: $(head -c 400 "$TMP/err")"
        grep -qF -- "$frag" "$TMP/err" || fail "$label: error does not name '$frag': $(cat "$TMP/err")"
    elif [ -n "$frag" ]; then
        grep -qF -- "$frag" "$TMP/out" || fail "$label: output lacks '$frag'"
    fi
}
M=llama-3.1-8b
SIM=("$KVPLAN" sim $M --kv-budget 8GiB --no-timing --synthetic)

# --synthetic: a key given twice, lengths that would be rounded, the seed's range.
expect "synthetic-requests-twice" 2 "'requests' is given twice" -- "${SIM[@]}" requests=2,prompt=fixed:64,output=fixed:8,requests=3
expect "synthetic-prompt-twice" 2 "kvplan: prompt: 'prompt' is given twice" -- "${SIM[@]}" prompt=fixed:64,output=fixed:8,prompt=fixed:3
expect "synthetic-seed-twice" 2 "kvplan: seed:" -- "${SIM[@]}" requests=2,prompt=fixed:64,output=fixed:8,seed=1,seed=2
expect "synthetic-fixed-fraction" 2 "'fixed:1.5': lengths of fixed: and uniform: are whole token counts" -- "${SIM[@]}" requests=2,prompt=fixed:1.5,output=fixed:8
expect "synthetic-output-fixed-fraction" 2 "kvplan: output: 'fixed:7.9'" -- "${SIM[@]}" requests=2,prompt=fixed:64,output=fixed:7.9
expect "synthetic-uniform-fraction" 2 "kvplan: prompt: 'uniform:1:2.5'" -- "${SIM[@]}" requests=2,prompt=uniform:1:2.5,output=fixed:8
expect "synthetic-fixed-whole-real" 0 "" -- "${SIM[@]}" requests=2,prompt=fixed:64.0,output=fixed:8
expect "synthetic-seed-2^64-1" 0 "" -- "${SIM[@]}" requests=2,prompt=fixed:64,output=fixed:8,seed=18446744073709551615
expect "synthetic-seed-2^64" 2 "kvplan: seed: '18446744073709551616'" -- "${SIM[@]}" requests=2,prompt=fixed:64,output=fixed:8,seed=18446744073709551616
# The same seed twice gives the same run; 2^64-1 and 0 are different seeds.
"${SIM[@]}" requests=50,prompt=uniform:10:500,output=uniform:1:50,seed=18446744073709551615 --json >"$TMP/a.json" 2>/dev/null
"${SIM[@]}" requests=50,prompt=uniform:10:500,output=uniform:1:50,seed=18446744073709551615 --json >"$TMP/b.json" 2>/dev/null
"${SIM[@]}" requests=50,prompt=uniform:10:500,output=uniform:1:50,seed=0 --json >"$TMP/c.json" 2>/dev/null
cases=$((cases + 1))
cmp -s "$TMP/a.json" "$TMP/b.json" || fail "seed 2^64-1: two runs differ"
cmp -s "$TMP/a.json" "$TMP/c.json" && fail "seed 2^64-1 runs the same workload as seed 0"

# sim --help lists every option sim takes, --svg included.
expect "sim-help-svg" 0 "--svg FILE" -- "$KVPLAN" sim --help

# A bad catalogue in KVPLAN_GPU_CATALOG: named in the error, and --help / --version still answer.
printf '{"schema": 1, "gpus": [{"name": "A GPU", "aliases": ["x1"], "cuda_total": "79GiB"}, {"name": "B GPU", "aliases": ["x1"], "cuda_total": "79GiB"}]}' >"$TMP/gpus.json"
expect "env-catalog-named" 2 "kvplan: KVPLAN_GPU_CATALOG: $TMP/gpus.json: /gpus/1/aliases/0:" -- env KVPLAN_GPU_CATALOG="$TMP/gpus.json" "$KVPLAN" plan $M --gpu h100
expect "env-catalog-missing" 2 "kvplan: KVPLAN_GPU_CATALOG: $TMP/none.json:" -- env KVPLAN_GPU_CATALOG="$TMP/none.json" "$KVPLAN" gpus --catalog
expect "env-catalog-help" 0 "usage" -- env KVPLAN_GPU_CATALOG="$TMP/gpus.json" "$KVPLAN" --help
expect "env-catalog-version" 0 "kvplan " -- env KVPLAN_GPU_CATALOG="$TMP/gpus.json" "$KVPLAN" --version
expect "env-catalog-V" 0 "kvplan " -- env KVPLAN_GPU_CATALOG="$TMP/gpus.json" "$KVPLAN" -V
expect "env-catalog-cmd-help" 0 "usage: kvplan plan" -- env KVPLAN_GPU_CATALOG="$TMP/gpus.json" "$KVPLAN" plan --help
expect "env-catalog-help-cmd" 0 "usage: kvplan fit" -- env KVPLAN_GPU_CATALOG="$TMP/gpus.json" "$KVPLAN" help fit
# The option's file is named as itself (no variable involved).
expect "option-catalog-named" 2 "kvplan: $TMP/gpus.json: /gpus/1/aliases/0:" -- "$KVPLAN" --gpu-catalog "$TMP/gpus.json" plan $M --gpu h100

# Checkpoint folders: safetensors headers with the Llama-3.1-8B config beside them.
# st_file NAME DATA_BYTES JSON_HEADER: 8-byte length, header, DATA_BYTES of holes.
st_file() {
    python3 - "$1" "$2" "$3" <<'EOF'
import os, struct, sys
path, data, header = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header)
    f.truncate(8 + len(header) + data)
EOF
}
ckpt() { mkdir -p "$TMP/$1" && cp "$SRC/data/models/meta-llama__Llama-3.1-8B.json" "$TMP/$1/config.json"; }
# 16,060,522,496 B: Llama-3.1-8B's published total_size, in two BF16 halves.
HALF=8030261248
ckpt full
st_file "$TMP/full/model-00001-of-00002.safetensors" $HALF '{"a": {"dtype": "BF16", "shape": [4015130624], "data_offsets": [0, 8030261248]}}'
st_file "$TMP/full/model-00002-of-00002.safetensors" $HALF '{"b": {"dtype": "BF16", "shape": [4015130624], "data_offsets": [0, 8030261248]}}'
printf '{"metadata": {"total_size": 16060522496}, "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}' >"$TMP/full/model.safetensors.index.json"
expect "checkpoint-consistent" 0 '"weights_source": "safetensors index total_size"' -- "$KVPLAN" plan "$TMP/full" --gpu-mem 80GiB --json
# The index's total_size one byte off what the shards hold.
cp -r "$TMP/full" "$TMP/total"
printf '{"metadata": {"total_size": 16060522497}, "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}' >"$TMP/total/model.safetensors.index.json"
expect "index-total-size-off-by-one" 2 "/metadata/total_size: states 16060522497 bytes, but the headers of its 2 shards hold 16060522496" -- "$KVPLAN" plan "$TMP/total" --gpu-mem 80GiB
# The index names one tensor of the two the shards hold.
cp -r "$TMP/full" "$TMP/fewer"
printf '{"metadata": {"total_size": 16060522496}, "weight_map": {"a": "model-00001-of-00002.safetensors"}}' >"$TMP/fewer/model.safetensors.index.json"
rm "$TMP/fewer/model-00002-of-00002.safetensors"
expect "index-fewer-tensors" 2 "/metadata/total_size" -- "$KVPLAN" plan "$TMP/fewer" --gpu-mem 80GiB
printf '{"weight_map": {"a": "model-00001-of-00002.safetensors"}}' >"$TMP/fewer/model.safetensors.index.json"
st_file "$TMP/fewer/model-00001-of-00002.safetensors" $HALF '{"a": {"dtype": "BF16", "shape": [2007565312], "data_offsets": [0, 4015130624]}, "c": {"dtype": "BF16", "shape": [2007565312], "data_offsets": [4015130624, 8030261248]}}'
expect "index-names-1-of-2-tensors" 2 "/weight_map: names 1 tensors, but the headers of its 1 shards hold 2" -- "$KVPLAN" plan "$TMP/fewer" --gpu-mem 80GiB
# A tensor named twice in the index.
cp -r "$TMP/full" "$TMP/dup"
printf '{"weight_map": {"a": "model-00001-of-00002.safetensors", "a": "model-00002-of-00002.safetensors"}}' >"$TMP/dup/model.safetensors.index.json"
expect "index-duplicate-key" 2 "model.safetensors.index.json: line 1, column" -- "$KVPLAN" plan "$TMP/dup" --gpu-mem 80GiB
# An adapter's 16 bytes beside the 8B config: not this model's weights.
ckpt adapter
st_file "$TMP/adapter/adapter.safetensors" 16 '{"lora_A": {"dtype": "BF16", "shape": [2, 4], "data_offsets": [0, 16]}}'
expect "adapter-beside-config" 2 "safetensors headers (1 file): the checkpoint's tensors hold 16 bytes" -- "$KVPLAN" plan "$TMP/adapter" --gpu-mem 80GiB
# Two tensors on the same bytes, twice the size the file holds: counted once they would fit.
ckpt overlap
st_file "$TMP/overlap/model.safetensors" $((2 * HALF)) '{"a": {"dtype": "BF16", "shape": [8030261248], "data_offsets": [0, 16060522496]}, "b": {"dtype": "BF16", "shape": [8030261248], "data_offsets": [0, 16060522496]}}'
expect "tensors-share-bytes" 2 "(overlapping bytes)" -- "$KVPLAN" plan "$TMP/overlap" --gpu-mem 80GiB
# Headers just over 8x the config's estimate (8 x 16060522496 + 2 B); exactly 8x passes.
ckpt huge
st_file "$TMP/huge/model.safetensors" 128484179970 '{"a": {"dtype": "BF16", "shape": [64242089985], "data_offsets": [0, 128484179970]}}'
expect "headers-8x-config" 2 "more than 8x apart" -- "$KVPLAN" plan "$TMP/huge" --gpu-mem 80GiB
st_file "$TMP/huge/model.safetensors" 128484179968 '{"a": {"dtype": "BF16", "shape": [64242089984], "data_offsets": [0, 128484179968]}}'
expect "headers-exactly-8x-config" 0 "" -- "$KVPLAN" plan "$TMP/huge" --gpu-mem 800GiB

# Measured memory facts that cannot be true together are bad input in every command
# (exit 2 naming the option, issue 12 item 7), as plan refuses them; a model that
# does not fit stays the answer "none" (exit 1). 80 GiB = 85899345920 B; 90 GiB of
# temporary KV beside ~15 GiB of estimated 8B weights is more than the device holds.
for cmd in plan fit; do
    expect "$cmd-estimation-kv-above-device" 2 "kvplan: --estimation-kv: the temporary KV cache of the profiling pass (90.00 GiB) and the weights (14.99 GiB, estimated) exceed the device's 80.00 GiB" -- "$KVPLAN" $cmd $M --policy trtllm --gpu-mem 80GiB --estimation-kv 90GiB
    expect "$cmd-weights-plus-activation-above-device" 2 "kvplan: --activation-peak: the measured weights (70.00 GiB) and activation peak (20.00 GiB) together exceed the device's 80.00 GiB" -- "$KVPLAN" $cmd $M --policy vllm --gpu-mem 80GiB --weights 70GiB --activation-peak 20GiB
    expect "$cmd-weights-above-device" 2 "kvplan: --weights: the measured weights: 96636764160 B (90.00 GiB), more than the device's 85899345920 B" -- "$KVPLAN" $cmd $M --policy sglang --gpu-mem 80GiB --weights 90GiB
    expect "$cmd-peak-plus-non-torch-above-device" 2 "kvplan: --non-torch: the allocator peak (70.00 GiB) and the memory outside the allocator (11.00 GiB) together exceed" -- "$KVPLAN" $cmd $M --policy vllm --engine-version 0.9.1 --gpu-mem 80GiB --peak 70GiB --non-torch 11GiB
done
# sweep (every point refused) and compare (every engine refused) alike.
expect "sweep-weights-plus-activation-above-device" 2 "kvplan: --activation-peak: the measured weights (70.00 GiB) and activation peak (20.00 GiB) together exceed" -- "$KVPLAN" sweep $M --gpu-mem 80GiB --weights 70GiB --activation-peak 20GiB --over tp=1,2
expect "compare-weights-above-device" 2 "kvplan: --weights: the measured weights: 96636764160 B (90.00 GiB)" -- "$KVPLAN" compare $M --gpu-mem 80GiB --weights 90GiB
cases=$((cases + 1))
"$KVPLAN" sweep $M --gpu-mem 80GiB --weights 70GiB --activation-peak 20GiB --over tp=1,2 --json >"$TMP/out" 2>/dev/null
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/out" || fail "sweep-json-facts: stdout is no longer one JSON document"
expect "sweep-model-too-big-is-1" 1 "" -- "$KVPLAN" sweep llama-3.1-405b --gpu-mem 80GiB --over tp=1,2
expect "compare-model-too-big-is-1" 1 "" -- "$KVPLAN" compare llama-3.1-405b --gpu-mem 80GiB
# fit --json: the error object on stdout, as plan --json writes it.
cases=$((cases + 1))
"$KVPLAN" fit $M --policy vllm --gpu-mem 80GiB --weights 70GiB --activation-peak 20GiB --json >"$TMP/out" 2>/dev/null
rc=$?
[ "$rc" = 2 ] || fail "fit-json-facts: exit $rc, expected 2"
grep -qF '{"error": {"code": "KVP_CONFIG", "message": "--activation-peak: the measured weights (70.00 GiB)' "$TMP/out" ||
    fail "fit-json-facts: stdout is not the error object: $(head -c 300 "$TMP/out")"
# 405B's ~756 GiB of estimated weights on 80 GiB: the target cannot be met (1), not bad input.
expect "fit-model-too-big-is-1" 1 "answer:     none: the target cannot be met" -- "$KVPLAN" fit llama-3.1-405b --gpu-mem 80GiB
# A measured estimation KV beside estimated weights that alone exceed the device
# (70B: 131.45 GiB on 80 GiB): the model does not fit (1); the two inputs do not
# contradict each other, the estimate simply has no room.
expect "plan-estimation-kv-model-too-big-is-1" 1 "" -- "$KVPLAN" plan llama-3.1-70b --policy trtllm --gpu-mem 80GiB --estimation-kv 10GiB
grep -qF "kvplan: the model does not fit: weights 131.45 GiB (estimated)" "$TMP/err" ||
    fail "plan-estimation-kv-model-too-big-is-1: stderr: $(head -c 300 "$TMP/err")"

# The options added lately (--cuda-graph-batch-sizes, --cuda-graph-max-bs, --isl,
# --osl, --max-new-tokens, --enforce-eager, --quantization): each hostile value is
# refused by name (exit 2, one line), never read as something else.
PV=("$KVPLAN" plan $M --policy vllm --gpu-mem 80GiB)
for v in "1,,2:''" "0:'0'" "-1:'-1'" "1048577:'1048577'" "1e3:'1e3'" "18446744073709551617:'18446744073709551617'" ",:''"; do
    expect "cuda-graph-batch-sizes=${v%%:*}" 2 "kvplan: --cuda-graph-batch-sizes: ${v#*:} is not a batch size from 1 to 1048576" -- "${PV[@]}" --cuda-graph-batch-sizes "${v%%:*}"
done
expect "cuda-graph-batch-sizes-65" 2 "kvplan: --cuda-graph-batch-sizes: more than 64 sizes" -- "${PV[@]}" --cuda-graph-batch-sizes "$(seq -s, 1 65)"
expect "cuda-graph-batch-sizes-64" 0 "" -- "${PV[@]}" --cuda-graph-batch-sizes "$(seq -s, 1 64)"
expect "cuda-graph-max-bs-0" 2 "kvplan: --cuda-graph-max-bs: 0 is out of range, expected 1 to 1048576" -- "${PV[@]}" --cuda-graph-max-bs 0
expect "cuda-graph-max-bs-2^20+1" 2 "kvplan: --cuda-graph-max-bs: 1048577 is out of range, expected 1 to 1048576" -- "${PV[@]}" --cuda-graph-max-bs 1048577
expect "quantization-escape" 2 "kvplan: --quantization: unknown quantization 'fp8\x1b[31m'" -- "${PV[@]}" --quantization "$(printf 'fp8\033[31m')"
expect "quantization-32-bytes" 2 "is too long (at most 31 bytes)" -- "${PV[@]}" --quantization "$(head -c 32 /dev/zero | tr '\0' q)"
expect "quantization-empty" 2 "kvplan: --quantization: the value is empty" -- "${PV[@]}" --quantization ""
expect "enforce-eager-twice" 2 "kvplan: --enforce-eager is given twice" -- "${PV[@]}" --enforce-eager --enforce-eager
expect "isl-0" 2 "kvplan: --isl: 0 is out of range, expected 1 to 4294967296" -- "${PV[@]}" --isl 0
expect "osl-2^64" 2 "kvplan: --osl: count '18446744073709551616' does not fit in 64 bits" -- "${PV[@]}" --osl 18446744073709551616
expect "max-new-tokens-fraction" 2 "kvplan: --max-new-tokens: count '1.5' must be a whole number" -- "${PV[@]}" --max-new-tokens 1.5
expect "max-new-tokens-above-length" 2 "kvplan: --max-new-tokens: 131073 is above max_seq_len 131072" -- "${PV[@]}" --max-new-tokens 131073
expect "isl-above-length" 2 "kvplan: --isl: a prompt of 131073 tokens is longer than max_seq_len 131072" -- "${PV[@]}" --isl 131073
# Both lengths given: the contradiction names both options as typed (it named the
# fields seq_len and max_seq_len).
expect "seq-len-above-max" 2 "kvplan: --seq-len 200000 is longer than --max-seq-len 1000" -- "$KVPLAN" plan llama-3.1-8b --gpu h100 --seq-len 200000 --max-seq-len 1000
expect "seq-len-above-max-model-len" 2 "kvplan: --seq-len 2000 is longer than --max-model-len 1000" -- "$KVPLAN" plan llama-3.1-8b --gpu h100 --policy vllm --seq-len 2000 --max-model-len 1000
# A prompt filling max_seq_len leaves the default max_new_tokens (length - prompt) at
# 0: refused by name in every policy (it was "the steady state overflows 64 bits").
for pol in vllm sglang trtllm llamacpp; do
    expect "isl-fills-length-$pol" 2 "kvplan: --isl: a prompt of 131072 tokens fills max_seq_len 131072, leaving no output token" -- "$KVPLAN" plan $M --policy $pol --gpu-mem 80GiB --isl 131072
done
expect "isl-one-short-of-length" 0 "" -- "${PV[@]}" --isl 131071

echo "hostile values: $cases cases, $fails failures"
[ "$fails" -eq 0 ]
