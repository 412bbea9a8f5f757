#!/usr/bin/env bash
# Issue 27 item 5, "the same number from every command, with one meaning per
# field":
#  - a plan refused at start-up carries, beside the refusal, the figures the
#    engine computed before it refused (engine_report, engine_details with
#    estimated_max_model_len, memory, pools, capacity);
#  - a checkpoint folder's safetensors headers give exact weights under every
#    engine (before: TensorRT-LLM only; vLLM, SGLang and llama.cpp said
#    "estimated from config"), in plan and check alike;
#  - compare and sweep print the sequences `plan` admits and what binds them
#    (before: "1,742 limited by max-num-seqs" where vLLM's cap is 1,024).
# Values worked by hand in the comments; python3 reads the JSON.
set -u
KVPLAN=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- 1. vLLM refuses a max_model_len one request cannot hold (ENGINES.md 1.8).
# Llama-3.1-8B: 32 layers x 8 KV heads x (128 + 128) x 2 B = 131,072 B a token;
# a 16-token block over 32 layers = 2 MiB; --kv-budget 8 GiB = 4,096 blocks =
# 65,536 tokens. One request of 131,072 tokens needs 8,192 blocks = 16 GiB >
# 8 GiB: refused. The latest release line keeps the null block back in the check
# (PR #47272, ADMISSION.md): estimated maximum model length (4,096 - 1) x 16 = 65,520.
out=$("$KVPLAN" plan llama-3.1-8b --gpu h100 --policy vllm --max-model-len 131072 \
      --kv-budget 8GiB --json 2>"$tmp/err")
rc=$?
[ "$rc" = 1 ] || fail "refused plan: exit $rc, expected 1"
grep -q "estimated maximum model length is 65520" <<<"$out" ||
    fail "refused plan: the refusal does not name the estimated maximum model length"
python3 - "$out" <<'EOF' || fails=$((fails + 1))
import json, sys
d = json.loads(sys.argv[1])
want = [
    (d["starts"], False), (d["first_refusal"], "V-MEM-3"),
    (d["engine_report"]["num_gpu_blocks"], 4096),
    (d["engine_report"]["gpu_kv_cache_tokens"], 65536),
    (d["engine_report"]["available_kv_cache_bytes"], 8 * 2**30),
    (d["engine_details"]["estimated_max_model_len"], 65520),
    (d["engine_details"]["needed_bytes"], 16 * 2**30),
    (d["engine_details"]["per_request_blocks"], 8192),
    (d["budget_bytes"], 8 * 2**30),
    (d["capacity"]["starts"], False),
    (d["pools"][0]["blocks"], 4096), (d["pools"][0]["page_bytes"], 2 * 2**20),
    ("memory" in d, True),
]
bad = [(i, got, exp) for i, (got, exp) in enumerate(want) if got != exp]
if bad:
    print("FAIL: refused plan figures (index, got, expected):", bad)
    sys.exit(1)
EOF

# With the device's memory terms (no --kv-budget) the refusal carries them too.
out=$("$KVPLAN" plan llama-3.1-8b --gpu h100 --policy vllm --max-model-len 131072 \
      --gpu-memory-utilization 0.3 --json 2>/dev/null)
python3 - "$out" <<'EOF' || fails=$((fails + 1))
import json, sys
d = json.loads(sys.argv[1])
m = d.get("memory") or {}
ok = (d["starts"] is False and d["first_refusal"] == "V-MEM-3" and m.get("weights_bytes", 0) > 0
      and m.get("total_bytes") and d["engine_details"]["estimated_max_model_len"] < 131072)
if not ok:
    print("FAIL: refused plan with device memory lacks its figures:", {k: d.get(k) for k in
          ("starts", "first_refusal", "engine_details")}, m.get("weights_bytes"))
    sys.exit(1)
EOF

# ---- 2. Exact weights from a checkpoint folder under every engine.
# A tiny Llama (hidden 256, 2 layers, 4 heads of 64, vocab 1,000, 4,096
# positions, bf16) and one safetensors file of one bf16 tensor of 1,000,000
# elements = 2,000,000 B of data. The weights per rank are the headers' bytes
# plus the rotary cache no checkpoint stores (4,096 positions x 64 x 2 B =
# 524,288 B): 2,524,288 B under every engine.
ck=$tmp/tiny-llama
mkdir -p "$ck"
python3 - "$ck" <<'EOF'
import json, struct, sys
d = sys.argv[1]
json.dump({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
           "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
           "num_key_value_heads": 2, "vocab_size": 1000, "max_position_embeddings": 4096,
           "torch_dtype": "bfloat16", "tie_word_embeddings": False, "rms_norm_eps": 1e-5,
           "rope_theta": 10000.0}, open(d + "/config.json", "w"))
n = 1000000
hdr = json.dumps({"w": {"dtype": "BF16", "shape": [n], "data_offsets": [0, 2 * n]}}).encode()
hdr += b" " * ((8 - len(hdr) % 8) % 8)
with open(d + "/model.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(hdr)))
    f.write(hdr)
    f.truncate(8 + len(hdr) + 2 * n)
EOF
for engine in trtllm vllm sglang llamacpp; do
    out=$("$KVPLAN" plan "$ck" --policy "$engine" --gpu h100 --max-seq-len 4096 --json 2>"$tmp/err")
    rc=$?
    [ "$rc" = 0 ] || { fail "$engine checkpoint plan: exit $rc: $(cat "$tmp/err")"; continue; }
    python3 - "$engine" "$out" <<'EOF' || fails=$((fails + 1))
import json, sys
engine, d = sys.argv[1], json.loads(sys.argv[2])
m = d["memory"]
if (m["weights_bytes"], m["weights_source"]) != (2524288, "safetensors headers (1 file)") \
        or "weights" in m["estimated"]:
    print("FAIL: %s: weights %s from %r, estimated %s (want 2524288 from the headers)"
          % (engine, m["weights_bytes"], m["weights_source"], m["estimated"]))
    sys.exit(1)
EOF
done
# check reads the same weights (V-MEM-5 states them), not "not known".
"$KVPLAN" check "$ck" --policy vllm --gpu h100 --max-model-len 4096 --json 2>/dev/null |
    python3 -c '
import json, sys
d = json.load(sys.stdin)
row = [c for c in d["checks"] if c["rule"] == "V-MEM-5"]
if not row or row[0]["status"] != "pass":
    print("FAIL: check on a checkpoint folder: V-MEM-5", row)
    sys.exit(1)' || fails=$((fails + 1))

# ---- 3. compare and sweep: the count plan admits, and what binds it.
# Llama-3.1-8B on an H100 at max_seq_len 256 under vLLM: the KV cache holds
# 27,881 blocks // 16 blocks a request = 1,742 requests, but max_num_seqs is
# 1,024 on a GPU of 70 GiB and more (get_batch_defaults): 1,024 run at once.
plan_admitted=$("$KVPLAN" plan llama-3.1-8b --gpu h100 --policy vllm --max-seq-len 256 --json |
    python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["capacity"]["admitted"], d["capacity"]["max_sequences"])')
[ "$plan_admitted" = "1024 1742" ] || fail "plan admitted/max_sequences: $plan_admitted, want 1024 1742"
row=$("$KVPLAN" compare llama-3.1-8b --gpu h100 --max-seq-len 256 | grep '^vllm ')
grep -qE ' 1,024 +[0-9.]+  max_num_seqs$' <<<"$row" || fail "compare vllm row: $row"
row=$("$KVPLAN" sweep llama-3.1-8b --gpu h100 --over max-seq-len=256 --policy vllm --quiet | grep '^vllm ')
grep -qE ' 1,024  max_num_seqs$' <<<"$row" || fail "sweep vllm row: $row"
# compare's KV GiB under vLLM is the one block pool, never above the budget
# (gemma-3-27b-it: 7 KV cache groups; before, 102.35 GiB of a 16.51 GiB budget).
row=$("$KVPLAN" compare gemma-3-27b-it --gpu h100 --policies vllm | grep '^vllm ')
python3 - "$row" <<'EOF' || fails=$((fails + 1))
import sys
f = sys.argv[1].split()
budget, kv = float(f[3]), float(f[4])
if kv > budget:
    print("FAIL: compare gemma-3 vllm: KV %.2f GiB of a %.2f GiB budget" % (kv, budget))
    sys.exit(1)
EOF

[ "$fails" = 0 ] && echo "one_number: ok"
exit $((fails > 0))
