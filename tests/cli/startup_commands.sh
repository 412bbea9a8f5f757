#!/usr/bin/env bash
# startup_commands.sh KVPLAN SRCDIR — the start-up rules run inside the one
# pipeline (docs/startup.md), so `fit`, `sweep`, `compare` and `sim` refuse
# what `plan` refuses, with the same rule: issue 21's three examples (qwen3-32b
# at TP 5: V-PAR-1 / S-PAR-1 / T-PAR-1; max_position_embeddings 2048 at 8192:
# V-LEN-1 and its env override; bf16 on a V100: V-DT-1 refuse for bfloat16,
# adjust to float16 with auto). Exit 1 where the deployment cannot start.
set -u
K="$1"
SRC="$2"
fail() { echo "FAIL: $*"; exit 1; }
out=/tmp/kvp_sc_out.$$
err=/tmp/kvp_sc_err.$$
trap 'rm -f $out $err' EXIT

# expect RC PATTERN ARGS...: exit RC and PATTERN in stdout + stderr ("" = no check).
expect() {
    local want=$1 pat=$2 rc
    shift 2
    "$K" "$@" >$out 2>$err; rc=$?
    [ "$rc" = "$want" ] || fail "exit $rc (expected $want) for: $* : $(cat $out $err)"
    if [ -n "$pat" ]; then cat $out $err | grep -q -- "$pat" || fail "'$pat' not printed by: $*: $(cat $out $err)"; fi
    return 0
}
W="requests=4,prompt=fixed:100,output=fixed:10"
neox="$SRC/tests/data/families/gptneox.json" # max_position_embeddings 2048

# 1. 64 heads at TP 5 (64 % 5 = 4); TP 4 divides.
expect 1 "limited by: V-PAR-1: Total number of attention heads (64)" \
    fit qwen3-32b --policy vllm --gpu h100 --tp 5 --solve max-seq-len
expect 0 "" fit qwen3-32b --policy vllm --gpu h100 --tp 4 --solve max-seq-len
expect 1 "refused at start-up: V-PAR-1" sweep qwen3-32b --policy vllm --gpu h100 --over tp=5
# A grid with a point that starts exits 0; the refused row says so with its rule.
expect 0 "refused at start-up: V-PAR-1" sweep qwen3-32b --policy vllm --gpu h100 --over tp=4,5
grep -q "^vllm *4 .*KV budget" $out || fail "sweep tp=4 row not planned: $(cat $out)"
# compare: each engine column refuses with its own rule (llama.cpp has no TP).
expect 1 "" compare qwen3-32b --gpu h100 --tp 5
for rule in "trtllm *refused at start-up: T-PAR-1" "vllm *refused at start-up: V-PAR-1" \
            "sglang *refused at start-up: S-PAR-1"; do
    grep -q "$rule" $out || fail "compare does not show '$rule': $(cat $out)"
done
expect 0 "" compare qwen3-32b --gpu h100 --tp 4
expect 1 "T-PAR-1" sim qwen3-32b --gpu h100 --tp 5 --synthetic $W
expect 0 "" sim qwen3-32b --gpu h100 --tp 4 --synthetic $W
# JSON: the row carries the rule.
"$K" sweep qwen3-32b --policy vllm --gpu h100 --over tp=5 --json >$out 2>$err
python3 - "$out" <<'PY' || fail "sweep --json row does not carry V-PAR-1: $(cat $out)"
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
assert row["ok"] is False and row["message"].startswith("V-PAR-1: "), row
st = row["startup"]
assert st["starts"] is False and st["first_refusal"] == "V-PAR-1", st
c = [c for c in st["checks"] if c["rule"] == "V-PAR-1"][0]
assert c["status"] == "refuse" and c["setting"] == "tp" and "1, 2, 4, 8" in c["fix"], c
PY

# 2. A length above the derived 2048: 2049 is refused, 2048 plans, the env allows it.
expect 1 "V-LEN-1" fit "$neox" --policy vllm --gpu h100 --max-seq-len 2049
expect 0 "" fit "$neox" --policy vllm --gpu h100 --max-seq-len 2048
expect 0 "" fit "$neox" --policy vllm --gpu h100 --max-seq-len 8192 --env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
expect 1 "refused at start-up: V-LEN-1" sweep "$neox" --policy vllm --gpu h100 --over max-seq-len=8192
expect 0 "" sweep "$neox" --policy vllm --gpu h100 --over max-seq-len=8192 --env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
expect 1 "refused at start-up: V-LEN-1" compare "$neox" --policies vllm --gpu h100 --max-seq-len 8192
# fit's longest length stops at the derived maximum: 2048 serves, 2049 is V-LEN-1.
expect 0 "" fit "$neox" --policy vllm --gpu h100 --solve max-seq-len --max-seq-len-limit 8192
grep -q "answer: *max_seq_len = 2,048" $out || fail "fit max-seq-len not 2048: $(cat $out)"
grep -q "limited by: V-LEN-1: .* (at 2,049)" $out || fail "fit not limited by V-LEN-1 at 2049: $(cat $out)"

# 3. bf16 on a V100 (cc 7.0): explicit bfloat16 refused, auto falls back to float16.
expect 1 "V-DT-1: Bfloat16 is only supported" fit qwen3-8b --policy vllm --gpu v100-32gb \
    --max-seq-len 4096 --dtype bfloat16
expect 0 "" fit qwen3-8b --policy vllm --gpu v100-32gb --max-seq-len 4096 --dtype auto
grep -q "kv float16" $out || fail "fit on a V100 not planned in float16: $(cat $out)"
expect 1 "refused at start-up: V-DT-1" sweep qwen3-8b --policy vllm --gpu v100-32gb \
    --over max-seq-len=4096 --dtype bfloat16
expect 0 "" sweep qwen3-8b --policy vllm --gpu v100-32gb --over max-seq-len=4096
grep -q "^vllm .* float16 " $out || fail "sweep on a V100 not planned in float16: $(cat $out)"
expect 1 "refused at start-up: V-DT-1" compare qwen3-8b --policies vllm --gpu v100-32gb \
    --max-seq-len 4096 --dtype bfloat16
# --disable-rule still switches a rule off.
expect 0 "" fit qwen3-8b --policy vllm --gpu v100-32gb --max-seq-len 4096 --dtype bfloat16 \
    --disable-rule V-DT-1
# check reads the memory terms as plan does (the table's, not a hand copy that
# dropped --activation-peak): 15 GiB weights + a 60 GiB peak on an H100 leave vLLM
# no KV memory at 0.9 x 79.33 GiB = 71.40 GiB requested (V-MEM-2), in both. (A 70 GiB
# peak beside 15 GiB of weights is more than the device holds: exit 2, issue 17.)
expect 1 "V-MEM-2" plan llama-3.1-8b --policy vllm --gpu h100 --weights 15GiB --activation-peak 60GiB
expect 1 "V-MEM-2.*refuse" check llama-3.1-8b --policy vllm --gpu h100 --weights 15GiB \
    --activation-peak 60GiB
expect 2 "activation_peak_bytes\|--activation-peak" plan llama-3.1-8b --policy vllm --gpu h100 --weights 15GiB \
    --activation-peak 70GiB
expect 0 "" check llama-3.1-8b --policy vllm --gpu h100 --weights 15GiB --activation-peak 10GiB
echo "start-up rules in fit, sweep, compare, sim: ok"
