#!/usr/bin/env bash
# hostile_lengths.sh KVPLAN SRCDIR — absurd but legal lengths and counts (issue 17:
# "nothing legal and under 100 MB uses more than 1 GiB or 10 s"). Each command runs
# under an address-space limit of 1 GiB (RLIMIT_AS, what `ulimit -v` sets) and a
# 10 s timeout; it must end with the exit status expected (0 planned, 1 the engine
# would not start / the target cannot be met, 2 refused by name) and the message
# expected on stderr, never be killed, and stay under its peak-RSS bound: memory
# follows the model and the requests, not the length allowed. Sanitizer builds
# (which reserve terabytes of shadow memory) run each case for its exit status and
# message only.
set -u
KVPLAN=$1
. "$(dirname "$0")/lib/cases.bash"
. "$(dirname "$0")/lib/bounded.bash"

# len LABEL WANT_RC FRAGMENT MAX_MIB -- command   (FRAGMENT: in stderr; "" for none)
len() {
    local label=$1 want=$2 frag=$3 mib=$4
    shift 5
    cases=$((cases + 1))
    local res
    # 1 GiB of address space: an allocation past it fails (KVP_NOMEM, exit 2), which
    # counts as a failure like a kill.
    if [ "$sanitized" = 1 ]; then
        res=$(bounded_run "$TMP/err" 0 120 -- "$@")
    else
        res=$(bounded_run "$TMP/err" 1024 10 -- "$@")
    fi
    local rc rss dt
    read -r rc rss dt <<<"$res"
    case $rc in
    timeout) fail "$label: still running after the time bound"; return ;;
    -*) fail "$label: killed by signal ${rc#-}: $(head -c 300 "$TMP/err")"; return ;;
    esac
    [ "$rc" = "$want" ] || { fail "$label: exit $rc, expected $want: $(head -c 400 "$TMP/err")"; return; }
    if [ -n "$frag" ]; then
        grep -qF -- "$frag" "$TMP/err" || fail "$label: stderr does not say '$frag': $(head -c 400 "$TMP/err")"
    fi
    grep -qi "out of memory" "$TMP/err" && fail "$label: ran out of memory: $(head -c 300 "$TMP/err")"
    if [ "$sanitized" = 0 ] && [ "$rss" -gt "$mib" ]; then
        fail "$label: peak memory $rss MiB, bound $mib MiB"
    fi
    echo "ok: $label: exit $rc, $rss MiB, $dt s"
}
M=llama-3.1-8b
BIG="--gpu-mem 64TiB"
VL=(--env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)
# On a 64 TiB device SGLang's automatic mem_fraction_static rounds to 1.000 (PR #10975:
# round((gpu - reserve) / gpu, 3)) and leaves nothing after the pool for the CUDA
# graphs it captures at start-up: S-MEM-3 refuses (docs/memory.md "One headroom
# verdict"). These cases are about lengths, so they run without graphs.
SG=(--env SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 --disable-cuda-graph)
# Lengths the options accept at most: 2^32 (max-model-len family), 33554432 for sim.
L=16000000
MAXL=4294967296

# plan, each policy: 16M tokens and the largest length the option takes.
len "plan-vllm-16M" 0 "V-LEN-1" 64 -- "$KVPLAN" plan $M --policy vllm --max-model-len $L "${VL[@]}" $BIG
len "plan-vllm-16M-80GiB" 1 "V-MEM-3" 64 -- "$KVPLAN" plan $M --policy vllm --max-model-len $L "${VL[@]}" --gpu-mem 80GiB
len "plan-vllm-16M-no-env" 1 "V-LEN-1" 64 -- "$KVPLAN" plan $M --policy vllm --max-model-len $L $BIG
len "plan-vllm-2^32-all-max" 1 "V-MEM-2" 64 -- "$KVPLAN" plan $M --policy vllm --max-model-len $MAXL --max-num-seqs 16777216 --max-num-batched-tokens $MAXL "${VL[@]}" $BIG
len "plan-vllm-2^32+1" 2 "--max-model-len: 4294967297 is out of range" 64 -- "$KVPLAN" plan $M --policy vllm --max-model-len 4294967297 "${VL[@]}" $BIG
len "plan-vllm-graph-sizes-1M" 0 "" 64 -- "$KVPLAN" plan $M --policy vllm --max-model-len $L --cuda-graph-batch-sizes 1,1048576 "${VL[@]}" $BIG
len "plan-vllm-graph-max-bs-1M" 1 "" 64 -- "$KVPLAN" plan $M --policy vllm --max-model-len $MAXL --cuda-graph-max-bs 1048576 "${VL[@]}" $BIG
len "plan-vllm-isl-16M" 0 "" 64 -- "$KVPLAN" plan $M --policy vllm --max-model-len $L --isl 15999999 --max-new-tokens 1 "${VL[@]}" $BIG
len "plan-vllm-hybrid-16M" 0 "" 64 -- "$KVPLAN" plan qwen3-next-80b-a3b-thinking --policy vllm --max-model-len $L "${VL[@]}" $BIG
len "plan-sglang-16M" 0 "S-LEN-1" 64 -- "$KVPLAN" plan $M --policy sglang --context-length $L "${SG[@]}" $BIG
len "plan-sglang-16M-page-1" 0 "" 64 -- "$KVPLAN" plan qwen3-next-80b-a3b-thinking --policy sglang --context-length $L --page-size 1 "${SG[@]}" $BIG
# SGLang starts with a pool below the context and caps each input (S-LEN-2, issue 27).
len "plan-sglang-2^32" 0 "S-LEN-2: starts with 536741979 KV tokens for context 4294967296" 64 -- "$KVPLAN" plan $M --policy sglang --context-length $MAXL "${SG[@]}" $BIG
len "plan-trtllm-16M-block-1" 0 "T-LEN-1" 64 -- "$KVPLAN" plan $M --policy trtllm --max-seq-len $L --tokens-per-block 1 $BIG
len "plan-trtllm-2^32" 0 "T-LEN-1" 64 -- "$KVPLAN" plan $M --policy trtllm --max-seq-len $MAXL $BIG
len "plan-trtllm-2^32-all-max" 1 "the model does not fit" 64 -- "$KVPLAN" plan $M --policy trtllm --max-seq-len $MAXL --max-num-tokens $MAXL --max-batch-size 16777216 $BIG
len "plan-trtllm-mla-16M" 0 "" 64 -- "$KVPLAN" plan deepseek-v3 --policy trtllm --max-seq-len $L $BIG
len "plan-llamacpp-16M" 0 "L-LEN-1" 64 -- "$KVPLAN" plan $M --policy llamacpp --ctx-size $L $BIG
len "plan-llamacpp-2^32" 1 "KV 524288.00 GiB" 64 -- "$KVPLAN" plan $M --policy llamacpp --ctx-size $MAXL $BIG
len "plan-llamacpp-2^31x256" 1 "" 64 -- "$KVPLAN" plan $M --policy llamacpp --ctx-size 2147483647 --parallel 256 $BIG
len "plan-llamacpp-parallel-past" 2 "--parallel: 100000 is out of range" 64 -- "$KVPLAN" plan $M --policy llamacpp --ctx-size $L --parallel 100000 $BIG

# fit, sweep, compare: searches and grids up to 2^32 tokens.
len "fit-limit-2^32" 0 "" 64 -- "$KVPLAN" fit $M $BIG --max-seq-len-limit $MAXL
len "fit-limit-2^32-llamacpp" 0 "" 64 -- "$KVPLAN" fit $M $BIG --policy llamacpp --max-seq-len-limit $MAXL
len "fit-limit-2^32-vllm" 0 "" 64 -- "$KVPLAN" fit $M $BIG --policy vllm --max-seq-len-limit $MAXL "${VL[@]}"
len "fit-concurrency-2^32" 0 "" 64 -- "$KVPLAN" fit $M $BIG --max-seq-len $MAXL --solve concurrency
len "fit-tp-1024-gpus" 0 "" 64 -- "$KVPLAN" fit $M $BIG --max-seq-len $L --solve tp --gpus 1024
len "fit-vllm-16M-no-env" 1 "" 64 -- "$KVPLAN" fit $M $BIG --policy vllm --max-seq-len $L
len "sweep-1..2^32" 0 "" 64 -- "$KVPLAN" sweep $M $BIG --over max-seq-len=1..$MAXL
len "sweep-grid-of-4-axes" 0 "" 64 -- "$KVPLAN" sweep $M $BIG --over max-seq-len=4k..$MAXL --over tp=1,2,4,8 --over policy=vllm,sglang,trtllm,llamacpp
len "sweep-step-1..2^32" 2 "has more than 1000000 values" 64 -- "$KVPLAN" sweep $M $BIG --over max-seq-len=1..$MAXL+1
len "compare-2^32" 0 "" 64 -- "$KVPLAN" compare $M $BIG --max-seq-len $MAXL

# sim: block tables follow the tokens held (a table of max_model_len / block entries
# per batch slot took 510 MB for four 72-token requests at 16M).
SYN=prompt=fixed:64,output=fixed:8
for p in vllm sglang trtllm; do
    len "sim-$p-16M-short-requests" 0 "" 48 -- "$KVPLAN" sim $M --policy $p --max-model-len $L --gpu-mem 80GiB --no-timing --synthetic requests=4,$SYN
done
len "sim-32M-block-1" 0 "" 48 -- "$KVPLAN" sim $M --max-model-len 33554432 --block-size 1 $BIG --no-timing --synthetic requests=4,$SYN
len "sim-hybrid-16M" 0 "" 48 -- "$KVPLAN" sim qwen3-next-80b-a3b-thinking --max-model-len $L $BIG --no-timing --synthetic requests=4,$SYN
len "sim-sliding-16M" 0 "" 48 -- "$KVPLAN" sim gemma-3-27b-it --max-model-len $L $BIG --no-timing --synthetic requests=4,$SYN
# Four prompts of 15M tokens at once: ~470k blocks each, the tables they hold.
len "sim-4x15M-prompts" 0 "" 256 -- "$KVPLAN" sim $M --max-model-len $L $BIG --no-timing --synthetic requests=4,prompt=fixed:15000000,output=fixed:8
len "sim-16M-in-16M-out" 0 "" 64 -- "$KVPLAN" sim $M --max-model-len 33554432 --gpu-mem 80GiB --no-timing --synthetic requests=4,prompt=fixed:16777216,output=fixed:16777216
len "sim-max-model-len-past" 2 "--max-model-len: 33554433 is out of range, expected 1 to 33554432" 48 -- "$KVPLAN" sim $M --max-model-len 33554433 --gpu-mem 80GiB --synthetic requests=4,$SYN
len "sim-prompt-past" 2 "fixed:N (1 <= N <= 16777216)" 48 -- "$KVPLAN" sim $M --kv-budget 8GiB --synthetic requests=4,prompt=fixed:16777217,output=fixed:8

# Hangs: a config of 100,000 layers (what a 6 MB config can declare) planned over a
# grid of 1,000 lengths, searched and simulated, inside the 10 s bound (about 1 s:
# a sweep walks the layers once per run, not once per row; docs/hostile.md).
python3 - "$2/data/models/meta-llama__Llama-3.1-8B.json" "$TMP/layers-100k.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["num_hidden_layers"] = 100000
json.dump(c, open(sys.argv[2], "w"))
PY
len "sweep-100k-layers-1000-lengths" 0 "" 128 -- "$KVPLAN" sweep "$TMP/layers-100k.json" $BIG --quiet --over max-seq-len=1k..1000k+1k
len "fit-100k-layers" 0 "" 128 -- "$KVPLAN" fit "$TMP/layers-100k.json" $BIG
len "sim-100k-layers" 0 "" 128 -- "$KVPLAN" sim "$TMP/layers-100k.json" --kv-budget 64TiB --no-timing --synthetic requests=4,$SYN

# 1,024 local-cache declarations that all name one 6 MB config: the config is
# parsed once and shared (issue 17), so this stays small and fast; re-parsing
# it per declaration took seconds and a gigabyte.
python3 - "$2/data/models/Qwen__Qwen2-0.5B.json" "$TMP/big-config.json" "$TMP/decls.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["padding"] = "x" * (6 << 20)  # an unread key: 6 MB to parse
json.dump(c, open(sys.argv[2], "w"))
decl = lambda i: {"name": "cache_%d" % i, "kind": "static_cache",
                  "bound": {"mechanism": "constant", "max_cache_len": 2048},
                  "geometry": {"hf_config": sys.argv[2]}, "scope": "invocation",
                  "row_driver": "FIXED", "rows_fixed": 1, "rows_reason": "one per call"}
json.dump({"model": "many-decls", "module_tree": {"class": "M",
           "declares": [decl(i) for i in range(1024)]}}, open(sys.argv[3], "w"))
PY
len "local-1024-declarations-one-6MB-config" 0 "" 128 -- "$KVPLAN" local many-decls --decl "$TMP/decls.json" --max-num-seqs 8
echo "hostile lengths: $cases cases, $fails failures"
[ "$fails" -eq 0 ]
