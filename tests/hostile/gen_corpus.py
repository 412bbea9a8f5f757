#!/usr/bin/env python3
"""Regenerate the hostile corpus under tests/hostile/ (docs/hostile.md).

Every file written here must be REFUSED by kvplan: exit status 2, one stderr
line naming the file and the key (JSON pointer) or the position (line/column,
byte offset) of the fault. expect.tsv lists, per file, a fragment that the
error line must contain; tests/cli/hostile_corpus.sh checks it.

Things that cannot be committed (symlink loops, directories, FIFOs, files over
the 16 MiB limit, files that grow while read) are made by the test script.

Usage: python3 tests/hostile/gen_corpus.py   (from the repository root)
The output is committed; rerun only when the mutations below change.
"""
import copy
import json
import os
import struct
import sys

sys.setrecursionlimit(100000)

ROOT = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(ROOT, "..", ".."))
MODELS = os.path.join(SRC, "data", "models")

expect = []  # (relative path, fragment the error line must contain)


def write(rel, data, fragment, known=None):
    """known: why kvplan does not refuse this file as it should yet; the test
    reports it as KNOWN (not a failure) until the reader is fixed."""
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(path, "wb") as f:
        f.write(data)
    expect.append((rel, fragment, known))


def load(name):
    with open(os.path.join(MODELS, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


RAW = "@@RAW@@"


def dump(obj, raw=None):
    text = json.dumps(obj, indent=1)
    if raw is not None:
        text = text.replace('"%s"' % RAW, raw, 1)
    return text + "\n"


def get_path(obj, path):
    for k in path.split("/"):
        obj = obj[int(k)] if isinstance(obj, list) else obj[k]
    return obj


def set_path(obj, path, value):
    """path: "text_config/layer_types/3"; creates nothing, the parent must exist."""
    parts = path.split("/")
    cur = obj
    for p in parts[:-1]:
        cur = cur[int(p)] if isinstance(cur, list) else cur[p]
    last = parts[-1]
    if isinstance(cur, list):
        cur[int(last)] = value
    else:
        cur[last] = value


def del_path(obj, path):
    parts = path.split("/")
    cur = obj
    for p in parts[:-1]:
        cur = cur[int(p)] if isinstance(cur, list) else cur[p]
    if isinstance(cur, list):
        del cur[int(parts[-1])]
    else:
        del cur[parts[-1]]


# ------------------------------------------------------------ config.json
# Values that no count, dimension or window may take. (label, python value or
# RAW marker, raw JSON text when RAW).
BAD_NUMBERS = [
    ("string", "32", None),
    ("bool", True, None),
    ("negative", -1, None),
    ("zero", 0, None),
    ("negzero", RAW, "-0"),
    ("negzero-real", RAW, "-0.0"),
    ("fraction", 1.5, None),
    ("1e300", RAW, "1e300"),
    ("1e309", RAW, "1e309"),
    ("u32max+1", 4294967296, None),
    ("i64max", 9223372036854775807, None),
    ("i64max+1", RAW, "9223372036854775808"),
    ("u64max", RAW, "18446744073709551615"),
    ("u64max+1", RAW, "18446744073709551616"),
    ("i64min", RAW, "-9223372036854775808"),
    ("object", {}, None),
    ("array", [7], None),
    ("nan", RAW, "NaN"),
    ("infinity", RAW, "Infinity"),
    ("neg-infinity", RAW, "-Infinity"),
    ("2^64-real", RAW, "18446744073709551616.0"),
    ("tiny", RAW, "1e-320"),
]
# Values that parse as JSON but jansson refuses (too big for an int64 / a
# double): the error is a position, not a key.
SYNTAX_VALUES = {"1e309", "u64max", "u64max+1", "i64max+1"}
# After Python's NaN/Infinity are rewritten, NaN reads as 0.0.
ZERO_LIKE = {"zero", "negzero", "negzero-real", "nan", "tiny"}


def number_mutations(tag, base, key_path, labels, pointer=None, zero_ok=False):
    """One file per label: key_path set to that bad value."""
    pointer = pointer or "/" + key_path
    for label, value, raw in BAD_NUMBERS:
        if label not in labels:
            continue
        if zero_ok and label in ZERO_LIKE:
            continue
        doc = copy.deepcopy(base)
        set_path(doc, key_path, value)
        text = dump(doc, raw)
        frag = "line " if label in SYNTAX_VALUES else pointer
        write("config/%s-%s-%s.json" % (tag, key_path.replace("/", "."), label), text, frag)


ALL = [b[0] for b in BAD_NUMBERS]
SOME = ["string", "negative", "zero", "fraction", "u32max+1", "object", "1e309", "infinity"]
FEW = ["string", "negative", "u32max+1", "array"]

llama = load("meta-llama__Llama-3.1-8B")
for key in ["num_hidden_layers", "num_attention_heads"]:
    number_mutations("llama", llama, key, ALL)
number_mutations("llama", llama, "num_key_value_heads", SOME)
# hidden_size alone decides head_dim when head_dim is absent.
number_mutations("llama", llama, "hidden_size", ["string", "zero", "negative", "u32max+1", "bool"])
lh = copy.deepcopy(llama)
lh["head_dim"] = 128
number_mutations("llama-headdim", lh, "head_dim", ["string", "zero", "negative", "u32max+1", "i64max", "fraction", "array"])
lv = copy.deepcopy(lh)
lv["v_head_dim"] = 128
number_mutations("llama-vheaddim", lv, "v_head_dim", ["zero", "negative", "u32max+1"])

# Semantic faults in an otherwise well-typed llama.
def llama_variant(name, frag, **changes):
    doc = copy.deepcopy(llama)
    for k, v in changes.items():
        if v is None:
            doc.pop(k, None)
        else:
            doc[k] = v
    write("config/llama-%s.json" % name, dump(doc), frag)

llama_variant("kv-not-dividing", "/num_key_value_heads", num_key_value_heads=7)
llama_variant("kv-more-than-heads", "/num_key_value_heads", num_key_value_heads=64)
llama_variant("heads-missing", "/num_attention_heads", num_attention_heads=None)
llama_variant("layers-missing", "num_hidden_layers", num_hidden_layers=None)
llama_variant("layers-over-limit", "/num_hidden_layers", num_hidden_layers=100001)
llama_variant("heads-over-limit", "/num_attention_heads", num_attention_heads=65537)
llama_variant("hidden-not-divisible", "/hidden_size", hidden_size=4097)
llama_variant("hidden-and-headdim-missing", "/head_dim", hidden_size=None)
llama_variant("dtype-unknown", "/torch_dtype", torch_dtype="float13")
llama_variant("dtype-number", "/torch_dtype", torch_dtype=16)
llama_variant("dtype-fp8", "/torch_dtype", torch_dtype="float8_e4m3fn")
llama_variant("model-type-number", "/model_type", model_type=7)
llama_variant("model-type-array", "/model_type", model_type=["llama"])
llama_variant("quant-config-string", "/quantization_config", quantization_config="fp8")
llama_variant("quant-kv-algo-unknown", "/quantization_config/kv_cache_quant_algo",
              quantization_config={"quant_algo": "FP8", "kv_cache_quant_algo": "FP3"})
llama_variant("quant-kv-algo-number", "/quantization_config/kv_cache_quant_algo",
              quantization_config={"kv_cache_quant_algo": 8})
llama_variant("quant-kv-scheme-bits-zero", "/quantization_config/kv_cache_scheme/num_bits",
              quantization_config={"kv_cache_scheme": {"num_bits": 0, "type": "float"}})
llama_variant("quant-kv-scheme-bits-3", "/quantization_config/kv_cache_scheme/num_bits",
              quantization_config={"kv_cache_scheme": {"num_bits": 3, "type": "float"}})
llama_variant("quant-kv-scheme-type-number", "/quantization_config/kv_cache_scheme/type",
              quantization_config={"kv_cache_scheme": {"num_bits": 8, "type": 8}})
llama_variant("quant-kv-scheme-array", "/quantization_config/kv_cache_scheme",
              quantization_config={"kv_cache_scheme": [8]})
llama_variant("sliding-window-string", "/sliding_window", sliding_window="4096")
llama_variant("sliding-window-negative", "/sliding_window", sliding_window=-4096)
llama_variant("sliding-window-zero", "/sliding_window", sliding_window=0)
llama_variant("sliding-window-huge", "/sliding_window", sliding_window=1 << 40)
llama_variant("use-sliding-window-string", "/use_sliding_window", use_sliding_window="yes",
              sliding_window=4096)
llama_variant("max-window-layers-negative", "/max_window_layers", use_sliding_window=True,
              sliding_window=4096, max_window_layers=-3)
llama_variant("multi-query-string", "/multi_query", num_key_value_heads=None, multi_query="true")
llama_variant("text-config-string", "/text_config", text_config="llama")
llama_variant("text-config-array", "/text_config", text_config=[llama])
llama_variant("chunk-size-not-llama4", "/attention_chunk_size", attention_chunk_size=8192)
llama_variant("layer-types-short", "/layer_types", layer_types=["full_attention"] * 31)
llama_variant("layer-types-long", "/layer_types", layer_types=["full_attention"] * 33)
llama_variant("layer-types-number", "/layer_types/5",
              layer_types=["full_attention"] * 5 + [1] + ["full_attention"] * 26)
llama_variant("layer-types-unknown", "/layer_types/31",
              layer_types=["full_attention"] * 31 + ["quantum_attention"])
llama_variant("layer-types-object", "/layer_types", layer_types={"0": "full_attention"})
llama_variant("layer-types-null-entry", "/layer_types/0", layer_types=[None] + ["full_attention"] * 31)
llama_variant("layer-types-newline", "/layer_types/0",
              layer_types=["full\nattention\r\u001b[31m"] + ["full_attention"] * 31)
llama_variant("sliding-pattern-zero", "/sliding_window_pattern", sliding_window=4096,
              sliding_window_pattern=0)

# Gemma 3: nested text_config, explicit layer_types.
gemma = load("google__gemma-3-27b-it")
n = gemma["text_config"].get("num_hidden_layers", 62)
number_mutations("gemma3", gemma, "text_config/sliding_window", SOME, pointer="/text_config/sliding_window")
number_mutations("gemma3", gemma, "text_config/num_hidden_layers", FEW)
g = copy.deepcopy(gemma)
g["text_config"]["layer_types"] = ["sliding_attention"] * (n - 1)
write("config/gemma3-layer-types-short.json", dump(g), "/text_config/layer_types")
g["text_config"]["layer_types"] = ["sliding_attention"] * (n - 1) + [{"type": "full"}]
write("config/gemma3-layer-types-object-entry.json", dump(g), "/text_config/layer_types/%d" % (n - 1))
g = copy.deepcopy(gemma)
g["text_config"]["torch_dtype"] = "int8"
write("config/gemma3-inner-dtype-int8.json", dump(g), "/text_config/torch_dtype")
g = copy.deepcopy(gemma)
g["text_config"]["text_config"] = 5
write("config/gemma3-nested-text-config-number.json", dump(g), "/text_config/text_config")

# Wrappers nested deeper than any real checkpoint.
inner = {"text_config": {"llm_config": {"language_config": {"thinker_config": {"text_config": {}}}}}}
write("config/wrappers-nested-6-empty.json", dump(inner), "/text_config/llm_config/language_config/thinker_config")

# DeepSeek V3: MLA geometry.
ds = load("deepseek-ai__DeepSeek-V3")
number_mutations("deepseek", ds, "kv_lora_rank", ["string", "zero", "negative", "u32max+1", "nan", "1e300"])
# qk_rope_head_dim may be 0 (no rotary part), so zero-like values are valid there.
number_mutations("deepseek", ds, "qk_rope_head_dim", ["string", "negative", "u32max+1", "1e300"])
number_mutations("deepseek", ds, "qk_nope_head_dim", ["string", "negative", "object"])
number_mutations("deepseek", ds, "num_attention_heads", ["zero", "array"])
ds2 = load("deepseek-ai__DeepSeek-V3.2")
number_mutations("deepseek32", ds2, "index_head_dim", ["string", "zero", "negative", "u32max+1"])

# Qwen3-Next: gated-delta-net.
qn = load("Qwen__Qwen3-Next-80B-A3B-Thinking")
for key in ["linear_num_value_heads", "linear_key_head_dim", "linear_conv_kernel_dim"]:
    number_mutations("qwen3next", qn, key, ["string", "zero", "negative", "u32max+1"])
number_mutations("qwen3next", qn, "full_attention_interval", ["zero", "string", "negative"])
q = copy.deepcopy(qn)
q["linear_num_value_heads"] = 33
write("config/qwen3next-value-heads-not-multiple.json", dump(q), "/linear_num_value_heads")
q = copy.deepcopy(qn)
del q["linear_num_key_heads"]
write("config/qwen3next-key-heads-missing.json", dump(q), "/linear_num_key_heads")

# Nemotron-H: hybrid_override_pattern.
nh = load("nvidia__Nemotron-H-56B-Base-8K")
p = nh["hybrid_override_pattern"]
for label, pat in [("short", p[:-1]), ("long", p + "M"), ("garbage", "Q" + p[1:]),
                   ("empty", ""), ("nul-escape", RAW)]:
    doc = copy.deepcopy(nh)
    doc["hybrid_override_pattern"] = pat
    raw = '"M\\u0000' + p[2:] + '"' if pat == RAW else None
    frag = "line " if raw else "/hybrid_override_pattern"
    write("config/nemotronh-pattern-%s.json" % label, dump(doc, raw), frag)
number_mutations("nemotronh", nh, "hybrid_override_pattern", ["bool", "array", "negative"])
for key in ["mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel"]:
    if key in nh:
        number_mutations("nemotronh", nh, key, ["zero", "string", "u32max+1"])

# Jamba: attention period / offset.
jb = load("ai21labs__Jamba-v0.1.partial")
number_mutations("jamba", jb, "attn_layer_period", ["zero", "string", "negative"])
j = copy.deepcopy(jb)
j["attn_layer_offset"] = 8
write("config/jamba-offset-equals-period.json", dump(j), "/attn_layer_offset")
number_mutations("jamba", jb, "mamba_d_state", ["zero", "string", "u32max+1"])
number_mutations("jamba", jb, "mamba_expand", ["zero", "negative", "u32max+1"])

# Llama 4: chunked attention.
l4 = load("meta-llama__Llama-4-Scout-17B-16E")
tc = l4["text_config"]
number_mutations("llama4", l4, "text_config/attention_chunk_size", ["zero", "string", "negative", "u32max+1"])
d = copy.deepcopy(l4)
d["text_config"]["no_rope_layers"] = [1] * (tc["num_hidden_layers"] + 1)
write("config/llama4-no-rope-layers-long.json", dump(d), "/text_config/no_rope_layers")
d = copy.deepcopy(l4)
d["text_config"]["no_rope_layers"] = ["yes"] * tc["num_hidden_layers"]
write("config/llama4-no-rope-layers-string-entry.json", dump(d), "/text_config/no_rope_layers/0")
d = copy.deepcopy(l4)
d["text_config"].pop("no_rope_layers", None)
d["text_config"]["no_rope_layer_interval"] = 0
write("config/llama4-no-rope-interval-zero.json", dump(d), "/text_config/no_rope_layer_interval")

# gpt-oss: layer_types.
go = load("openai__gpt-oss-20b")
d = copy.deepcopy(go)
d["layer_types"] = d["layer_types"][:-1]
write("config/gptoss-layer-types-short.json", dump(d), "/layer_types")
d = copy.deepcopy(go)
d["layer_types"] = "sliding_attention"
write("config/gptoss-layer-types-string.json", dump(d), "/layer_types")
number_mutations("gptoss", go, "sliding_window", ["zero", "negative", "string", "u32max+1"])

# MiMo-V2: hybrid_layer_pattern of 0/1.
mm = load("XiaomiMiMo__MiMo-V2-Flash")
d = copy.deepcopy(mm)
d["hybrid_layer_pattern"][3] = 2
write("config/mimo-pattern-two.json", dump(d), "/hybrid_layer_pattern/3")
d = copy.deepcopy(mm)
d["hybrid_layer_pattern"] = d["hybrid_layer_pattern"][:10]
write("config/mimo-pattern-short.json", dump(d), "/hybrid_layer_pattern")
number_mutations("mimo", mm, "swa_num_key_value_heads", ["zero", "string", "u32max+1"])

# Encoder-decoder.
t5 = load("google-t5__t5-base")
for key in ["num_layers", "num_decoder_layers", "num_heads", "d_kv"]:
    number_mutations("t5", t5, key, ["zero", "string", "negative"])
wh = load("openai__whisper-large-v3")
for key in ["decoder_layers", "max_source_positions", "decoder_attention_heads"]:
    number_mutations("whisper", wh, key, ["zero", "string", "u32max+1"])

# mamba_ssm (state-spaces) configs.
m2 = load("state-spaces__mamba2-2.7b")
number_mutations("mamba2ssm", m2, "n_layer", ["zero", "string", "negative"])
number_mutations("mamba2ssm", m2, "d_model", ["zero", "string"])
d = copy.deepcopy(m2)
d["ssm_cfg"] = "Mamba2"
write("config/mamba2ssm-ssm-cfg-string.json", dump(d), "/ssm_cfg")
d = copy.deepcopy(m2)
d["attn_layer_idx"] = [70]
d["attn_cfg"] = {"num_heads": 32}
write("config/mamba2ssm-attn-idx-out-of-range.json", dump(d), "/attn_layer_idx")
d["attn_layer_idx"] = [3, "4"]
write("config/mamba2ssm-attn-idx-string.json", dump(d), "/attn_layer_idx")
# Found by this corpus: d_model x expand used to wrap the 32-bit head count,
# and a derived attention head dim of d_model / num_heads could be 0.
d = copy.deepcopy(m2)
d["d_model"] = 4294967295
d["ssm_cfg"] = {"layer": "Mamba1", "expand": 64}
write("config/mamba2ssm-d-inner-wraps-u32.json", dump(d), "/d_model")
d = copy.deepcopy(m2)
d["attn_layer_idx"] = [3]
d["attn_cfg"] = {"num_heads": 65536}
write("config/mamba2ssm-attn-head-dim-zero.json", dump(d), "/attn_cfg/num_heads")
d = copy.deepcopy(m2)
d["ssm_cfg"] = {"layer": "Mamba3"}
write("config/mamba2ssm-layer-unknown.json", dump(d), "/ssm_cfg/layer")

# Nemotron NAS block_configs.
nas = load("nvidia__Llama-3_3-Nemotron-Super-49B-v1")
d = copy.deepcopy(nas)
d["block_configs"] = d["block_configs"][:-1]
write("config/nas-block-configs-short.json", dump(d), "/block_configs")
d = copy.deepcopy(nas)
d["block_configs"][0] = "attention"
write("config/nas-block-config-string.json", dump(d), "/block_configs/0")
d = copy.deepcopy(nas)
d["block_configs"][1]["attention"] = 7
write("config/nas-block-attention-number.json", dump(d), "/block_configs/1/attention")
d = copy.deepcopy(nas)
d["block_configs"][2]["attention"]["n_heads_in_group"] = 0
write("config/nas-heads-in-group-zero.json", dump(d), "/block_configs/2/attention/n_heads_in_group")
d = copy.deepcopy(nas)
d["block_configs"][2]["attention"]["n_heads_in_group"] = 3
write("config/nas-heads-in-group-not-dividing.json", dump(d), "/block_configs/2/attention/n_heads_in_group")

# Falcon-H1.
fh = load("tiiuae__Falcon-H1-0.5B.partial")
for key in ["mamba_n_heads", "mamba_d_head", "mamba_d_state"]:
    number_mutations("falconh1", fh, key, ["zero", "string"])

# Issue 13 readers: MiniMax attn_type_list, Nemotron-3 layers_block_type and
# its MTP list, GLM-5 DSA indexer schedule, the watch list.
mm = load("MiniMaxAI__MiniMax-M2.5")
n_mm = mm["num_hidden_layers"]
d = copy.deepcopy(mm)
d["attn_type_list"] = [1] * (n_mm - 1)
write("config/minimax-attn-type-list-short.json", dump(d), "/attn_type_list")
d = copy.deepcopy(mm)
d["attn_type_list"] = [1] * (n_mm - 1) + [2]
write("config/minimax-attn-type-list-value-2.json", dump(d), "/attn_type_list/%d" % (n_mm - 1))
d = copy.deepcopy(mm)
d["attn_type_list"] = ["1"] * n_mm
write("config/minimax-attn-type-list-string.json", dump(d), "/attn_type_list/0")
d = copy.deepcopy(mm)
d["attn_type_list"] = [1] * n_mm
d["layer_types"] = ["linear_attention"] * n_mm
write("config/minimax-layer-types-contradict.json", dump(d), "/layer_types/0")
nm = load("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
kinds = {"M": "mamba", "*": "attention", "E": "moe", "-": "mlp"}
blocks = [kinds[ch] for ch in nm["hybrid_override_pattern"]]
nb = copy.deepcopy(nm)
del nb["hybrid_override_pattern"]
del nb["num_hidden_layers"]
nb["layers_block_type"] = blocks
d = copy.deepcopy(nb)
d["layers_block_type"] = blocks[:3] + ["ssd"] + blocks[4:]
write("config/nemotron3-block-type-unknown.json", dump(d), "/layers_block_type/3")
d = copy.deepcopy(nb)
d["layers_block_type"] = []
write("config/nemotron3-block-type-empty.json", dump(d), "/layers_block_type")
d = copy.deepcopy(nb)
d["num_hidden_layers"] = len(blocks) + 1
write("config/nemotron3-block-type-count-mismatch.json", dump(d), "/layers_block_type")
d = copy.deepcopy(nb)
d["mtp_layers_block_type"] = ["attention", "router"]
write("config/nemotron3-mtp-block-unknown.json", dump(d), "/mtp_layers_block_type/1")
d = copy.deepcopy(nb)
d["mtp_layers_block_type"] = ["mamba"]
write("config/nemotron3-mtp-block-mamba.json", dump(d), "/mtp_layers_block_type/0")
d = copy.deepcopy(nb)
d["layers_block_type"] = "mamba"
write("config/nemotron3-block-type-string.json", dump(d), "/layers_block_type")
glm = load("zai-org__GLM-5")
n_glm = glm["num_hidden_layers"]
number_mutations("glm5", glm, "index_topk_freq", ["zero", "negative", "string", "u32max+1"])
d = copy.deepcopy(glm)
d["index_topk_pattern"] = "F" * (n_glm - 1)
write("config/glm5-topk-pattern-short.json", dump(d), "/index_topk_pattern")
d = copy.deepcopy(glm)
d["index_topk_pattern"] = "F" * (n_glm - 1) + "X"
write("config/glm5-topk-pattern-letter.json", dump(d), "/index_topk_pattern")
d = copy.deepcopy(glm)
d["index_topk_pattern"] = ["F"] * (n_glm - 1) + ["FS"]
write("config/glm5-topk-pattern-list-entry.json", dump(d), "/index_topk_pattern/%d" % (n_glm - 1))
d = copy.deepcopy(glm)
d["indexer_types"] = ["full"] * (n_glm - 1)
write("config/glm5-indexer-types-short.json", dump(d), "/indexer_types")
d = copy.deepcopy(glm)
d["indexer_types"] = ["full"] * (n_glm - 1) + ["sparse"]
write("config/glm5-indexer-types-unknown.json", dump(d), "/indexer_types/%d" % (n_glm - 1))
d = copy.deepcopy(glm)
d["index_topk_freq"] = 2
d["indexer_types"] = ["full"] * n_glm
write("config/glm5-indexer-types-contradict.json", dump(d), "/indexer_types/0")
ll = load("meta-llama__Llama-3.1-8B")
for key, val in [("compress_ratios", [4] * 32), ("sparse_attention_config", {"sparse_index_dim": 128}),
                 ("use_sparse_attention", True), ("index_head_dim", 128), ("linear_attn_config", {}),
                 ("kv_shared_layer_index", 0), ("layer_kinds", ["attention"] * 32)]:
    d = copy.deepcopy(ll)
    d[key] = val
    write("config/watch-%s.json" % key.replace("_", "-"), dump(d), "/" + key)
d = copy.deepcopy(ll)
d["use_sparse_attention"] = "yes"
write("config/watch-use-sparse-attention-string.json", dump(d), "/use_sparse_attention")

# Kimi KDA (1-indexed layer lists) and MiniMax-M3 index keys.
km = load("moonshotai__Kimi-Linear-48B-A3B-Instruct")
n_km = km["num_hidden_layers"]
for name, lists, frag in [
        ("zero-entry", {"kda_layers": [0] + km["linear_attn_config"]["kda_layers"][1:]}, "/linear_attn_config/kda_layers/0"),
        ("past-end", {"full_attn_layers": km["linear_attn_config"]["full_attn_layers"][:-1] + [n_km + 1]},
         "/linear_attn_config/full_attn_layers/%d" % (len(km["linear_attn_config"]["full_attn_layers"]) - 1)),
        ("in-both", {"full_attn_layers": [1] + km["linear_attn_config"]["full_attn_layers"]}, "/linear_attn_config/full_attn_layers/0"),
        ("missing-layer", {"full_attn_layers": km["linear_attn_config"]["full_attn_layers"][:-1]}, "/linear_attn_config/full_attn_layers"),
        ("kda-string", {"kda_layers": "1,2,3"}, "/linear_attn_config/kda_layers"),
        ("no-kda-list", {"kda_layers": None}, "/linear_attn_config/kda_layers")]:
    d = copy.deepcopy(km)
    d["linear_attn_config"].update(lists)
    write("config/kimi-linear-%s.json" % name, dump(d), frag)
number_mutations("kimi-linear", km, "linear_attn_config/num_heads", ["zero", "negative", "string", "u32max+1"])
number_mutations("kimi-linear", km, "linear_attn_config/short_conv_kernel_size", ["zero", "string"])
d = copy.deepcopy(km)
d["model_type"] = "deepseek_v3"
write("config/kimi-linear-wrong-model-type.json", dump(d), "/linear_attn_config")
m3 = load("MiniMaxAI__MiniMax-M3")
n_m3 = m3["num_hidden_layers"]
number_mutations("minimax-m3", m3, "sparse_attention_config/sparse_index_dim", ["zero", "negative", "string", "u32max+1"])
d = copy.deepcopy(m3)
d["sparse_attention_config"]["sparse_attention_freq"] = [1] * (n_m3 + 1)
write("config/minimax-m3-freq-long.json", dump(d), "/sparse_attention_config/sparse_attention_freq")
d = copy.deepcopy(m3)
d["sparse_attention_config"]["sparse_attention_freq"][5] = "1"
write("config/minimax-m3-freq-string-entry.json", dump(d), "/sparse_attention_config/sparse_attention_freq/5")
d = copy.deepcopy(m3)
d["sparse_attention_config"]["sparse_disable_index_value"] = 0
write("config/minimax-m3-index-value.json", dump(d), "/sparse_attention_config/sparse_disable_index_value")
d = copy.deepcopy(m3)
d["sparse_attention_config"] = [1]
write("config/minimax-m3-config-list.json", dump(d), "/sparse_attention_config")

# DeepSeek-V4: compress_ratios (one per layer, optional trailing MTP entries).
v4 = load("deepseek-ai__DeepSeek-V4-Flash")
n_v4 = v4["num_hidden_layers"]
for name, ratios, frag in [
        ("short", v4["compress_ratios"][:n_v4 - 1], "/compress_ratios"),
        ("long", v4["compress_ratios"] + [0, 0], "/compress_ratios"),
        ("negative", [-4] + v4["compress_ratios"][1:], "/compress_ratios/0"),
        ("fraction", [0.5] + v4["compress_ratios"][1:], "/compress_ratios/0"),
        ("string-entry", ["4"] + v4["compress_ratios"][1:], "/compress_ratios/0"),
        ("ratio-16", [16] + v4["compress_ratios"][1:], "/compress_ratios/0"),
        ("not-a-list", 4, "/compress_ratios")]:
    d = copy.deepcopy(v4)
    d["compress_ratios"] = ratios
    write("config/deepseek-v4-ratios-%s.json" % name, dump(d), frag)
number_mutations("deepseek-v4", v4, "index_head_dim", ["zero", "negative", "string", "u32max+1"])
number_mutations("deepseek-v4", v4, "head_dim", ["zero", "string", "u32max+1"])
number_mutations("deepseek-v4", v4, "sliding_window", ["zero", "string", "negative"])
# qk_rope_head_dim: the rope part the engines' packed entry splits off head_dim.
number_mutations("deepseek-v4", v4, "qk_rope_head_dim", ["string", "negative", "u32max+1"])
d = copy.deepcopy(v4)
d["qk_rope_head_dim"] = d["head_dim"]
write("config/deepseek-v4-rope-not-below-head-dim.json", dump(d), "/qk_rope_head_dim")

# Issue 13, bad input the readers above already refuse, one file per fault
# (round five): lists too long or short, 1-indexed entries past the end or not
# integers, ratios that are not positive integers, index dims of 0.
d = copy.deepcopy(mm)
d["attn_type_list"] = [1] * (n_mm + 1)
write("config/minimax-attn-type-list-long.json", dump(d), "/attn_type_list")
tx = load("MiniMaxAI__MiniMax-Text-01")
d = copy.deepcopy(tx)
d["attn_type_list"][3] = 1.5
write("config/minimax-text01-attn-type-fraction.json", dump(d), "/attn_type_list/3")
d = copy.deepcopy(tx)
d["attn_type_list"] = d["attn_type_list"][:-1]
write("config/minimax-text01-attn-type-list-short.json", dump(d), "/attn_type_list")
for name, freq, frag in [
        ("freq-short", [1] * (n_m3 - 1), "/sparse_attention_config/sparse_attention_freq"),
        ("freq-negative-entry", m3["sparse_attention_config"]["sparse_attention_freq"][:4] + [-1]
         + m3["sparse_attention_config"]["sparse_attention_freq"][5:],
         "/sparse_attention_config/sparse_attention_freq/4"),
        ("freq-fraction-entry", m3["sparse_attention_config"]["sparse_attention_freq"][:4] + [0.5]
         + m3["sparse_attention_config"]["sparse_attention_freq"][5:],
         "/sparse_attention_config/sparse_attention_freq/4")]:
    d = copy.deepcopy(m3)
    d["sparse_attention_config"]["sparse_attention_freq"] = freq
    write("config/minimax-m3-%s.json" % name, dump(d), frag)
d = copy.deepcopy(m3)
del d["sparse_attention_config"]["sparse_index_dim"]
write("config/minimax-m3-no-index-dim.json", dump(d), "/sparse_attention_config/sparse_index_dim")
kda = km["linear_attn_config"]["kda_layers"]
for name, lst, frag in [
        ("kda-past-end", kda[:-1] + [n_km + 1], "/linear_attn_config/kda_layers/%d" % (len(kda) - 1)),
        ("kda-fraction", [1.5] + kda[1:], "/linear_attn_config/kda_layers/0"),
        ("kda-negative", [-1] + kda[1:], "/linear_attn_config/kda_layers/0")]:
    d = copy.deepcopy(km)
    d["linear_attn_config"]["kda_layers"] = lst
    write("config/kimi-linear-%s.json" % name, dump(d), frag)
number_mutations("kimi-linear", km, "linear_attn_config/head_dim", ["zero", "negative", "string"])
number_mutations("kimi-linear", km, "kv_lora_rank", ["zero"])
number_mutations("glm5", glm, "index_head_dim", ["zero", "negative", "string"])
g2 = copy.deepcopy(glm)
g2["index_topk_freq"] = 2
number_mutations("glm5", g2, "index_skip_topk_offset", ["negative", "string", "fraction"])
number_mutations("glm5", glm, "index_topk_freq", ["fraction"])
for name, ratios, frag in [
        ("null-entry", v4["compress_ratios"][:3] + [None] + v4["compress_ratios"][4:], "/compress_ratios/3"),
        ("bool-entry", v4["compress_ratios"][:3] + [True] + v4["compress_ratios"][4:], "/compress_ratios/3"),
        ("huge-entry", v4["compress_ratios"][:3] + [1e30] + v4["compress_ratios"][4:], "/compress_ratios/3"),
        ("empty", [], "/compress_ratios")]:
    d = copy.deepcopy(v4)
    d["compress_ratios"] = ratios
    write("config/deepseek-v4-ratios-%s.json" % name, dump(d), frag)
d = copy.deepcopy(v4)
d["num_nextn_predict_layers"] = 0
write("config/deepseek-v4-ratios-mtp-entry-without-mtp.json", dump(d), "/compress_ratios")

# ---- text-level faults (syntax): the error is a position.
llama_text = dump(llama)
for frac in [0.1, 0.5, 0.9, 0.99]:
    cut = int(len(llama_text) * frac)
    write("config/truncated-%02d.json" % int(frac * 100), llama_text[:cut], "line ")
i = llama_text.index('"model_type"')
write("config/truncated-mid-key.json", llama_text[: i + 5], "line ")
write("config/truncated-mid-escape.json", llama_text[: i] + '"model\\u00', "line ")
write("config/truncated-after-backslash.json", llama_text[: i] + '"model\\', "line ")
write("config/truncated-infinity.json", '{"num_hidden_layers": Infinit', "line ")
write("config/whitespace-only.json", "   \n\t\n  ", "line ")
write("config/top-null.json", "null", "line 1")
write("config/top-array.json", "[" + llama_text + "]", "found an array")
write("config/top-number.json", "42", "line 1")
write("config/top-string.json", '"llama"', "line 1")
write("config/trailing-garbage.json", llama_text + "}", "line ")
write("config/two-documents.json", llama_text + llama_text, "line ")
write("config/trailing-comma.json", llama_text.replace('"vocab_size": 128256', '"vocab_size": 128256,'), "line ")
write("config/comment.json", "// llama\n" + llama_text, "line ")
write("config/single-quotes.json", llama_text.replace('"model_type"', "'model_type'"), "line ")
write("config/unquoted-key.json", llama_text.replace('"model_type"', "model_type"), "line ")
write("config/hex-number.json", llama_text.replace('"num_hidden_layers": 32', '"num_hidden_layers": 0x20'), "line ")
write("config/leading-zero.json", llama_text.replace('"num_hidden_layers": 32', '"num_hidden_layers": 032'), "line ")
write("config/plus-sign.json", llama_text.replace('"num_hidden_layers": 32', '"num_hidden_layers": +32'), "line ")
write("config/bare-dot.json", llama_text.replace('"num_hidden_layers": 32', '"num_hidden_layers": .5'), "line ")
write("config/python-true.json", llama_text.replace('"use_cache": true', '"use_cache": True'), "line ")
write("config/python-none.json", llama_text.replace('"use_cache": true', '"use_cache": None'), "line ")
write("config/duplicate-key.json", llama_text.replace('"num_hidden_layers": 32', '"num_hidden_layers": 32, "num_hidden_layers": 2'), "line ")
write("config/duplicate-key-nested.json",
      dump(gemma).replace('"text_config": {', '"text_config": {"num_hidden_layers": 1, ', 1), "line ")
write("config/bom.json", b"\xef\xbb\xbf" + llama_text.encode(), "line ")
write("config/utf16le.json", llama_text.encode("utf-16-le"), "offset ")
write("config/cr-only-newlines.json", llama_text.replace("\n", "\r").replace('"num_hidden_layers": 32', '"num_hidden_layers": -32'), "/num_hidden_layers")
write("config/one-long-line.json", json.dumps(dict(llama, num_key_value_heads=5), separators=(",", ":")), "/num_key_value_heads")
write("config/key-nul-escape.json", llama_text.replace('"model_type"', '"model\\u0000type"'), "line ")
write("config/value-nul-escape.json", llama_text.replace('"llama"', '"lla\\u0000ma"'), "line ")
write("config/lone-surrogate-escape.json", llama_text.replace('"llama"', '"\\ud800"'), "line ")
write("config/control-char-in-string.json", llama_text.replace('"llama"', '"lla\tma"'), "line ")

# NUL bytes and invalid UTF-8 (the error is a byte offset).
lb = llama_text.encode()
k = lb.index(b'"llama"') + 3
for label, bad in [("nul", b"\x00"), ("ff", b"\xff"), ("overlong-slash", b"\xc0\xaf"),
                   ("surrogate", b"\xed\xa0\x80"), ("truncated-3byte", b"\xe2\x82"),
                   ("five-byte", b"\xf8\x88\x80\x80\x80"), ("above-10ffff", b"\xf4\x90\x80\x80"),
                   ("lone-continuation", b"\x80"), ("overlong-nul", b"\xc0\x80")]:
    write("config/bytes-%s-in-value.json" % label, lb[:k] + bad + lb[k:], "offset %d" % k)
write("config/bytes-nul-first.json", b"\x00" + lb, "offset 0")
write("config/bytes-ff-in-key.json", lb.replace(b'"model_type"', b'"model\xfftype"'), "offset ")
write("config/bytes-utf8-at-end-truncated.json", lb + b"\xf0\x9f\x98", "offset %d" % len(lb))

# Deep nesting: jansson stops at 2048 levels.
write("config/deep-arrays.json", "[" * 100000 + "]" * 100000, "line ")
write("config/deep-objects.json", '{"a":' * 5000 + "1" + "}" * 5000, "line ")
d = copy.deepcopy(llama)
d["rope_scaling"] = RAW
write("config/deep-ignored-key.json",
      dump(d, '{"a":' * 1000 + "1" + "}" * 1000).replace('"num_key_value_heads": 8', '"num_key_value_heads": 3'),
      "/num_key_value_heads")

# ------------------------------------------------------------ model-local declarations
with open(os.path.join(SRC, "data", "local", "qwen3-tts.json"), encoding="utf-8") as f:
    decl = json.load(f)
DECL0 = "module_tree/children/1/declares/0"


def decl_variant(name, path, value, frag, raw=None):
    doc = copy.deepcopy(decl)
    if value is None and raw is None:
        del_path(doc, path)
    else:
        set_path(doc, path, RAW if raw else value)
    write("local/%s.json" % name, dump(doc, raw), frag)


for label, value, raw in BAD_NUMBERS:
    if label in ("string", "negative", "zero", "u32max+1", "1e309", "u64max+1", "object", "fraction"):
        frag = "line " if label in SYNTAX_VALUES else "geometry"
        decl_variant("geometry-layers-" + label, DECL0 + "/geometry/layers", value, frag, raw)
decl_variant("geometry-kv-heads-huge", DECL0 + "/geometry/kv_heads", 1 << 62, "kv_heads")
decl_variant("geometry-dtype-unknown", DECL0 + "/geometry/dtype", "float7", "dtype")
decl_variant("bound-window-string", DECL0 + "/bound/sliding_window", "72", "sliding_window")
decl_variant("bound-window-negative", DECL0 + "/bound/sliding_window", -72, "sliding_window")
decl_variant("bound-mechanism-unknown", DECL0 + "/bound/mechanism", "unbounded_forever", "mechanism")
decl_variant("kind-unknown", DECL0 + "/kind", "magic_cache", "kind")
decl_variant("scope-number", DECL0 + "/scope", 3, "scope")
decl_variant("row-driver-unknown", DECL0 + "/row_driver", "MAX_NUM_EVERYTHING", "row_driver")
decl_variant("declares-string", "module_tree/children/1/declares", "codec", "declares")
decl_variant("children-object", "module_tree/children", {"a": 1}, "children")
decl_variant("module-tree-missing", "module_tree", None, "module_tree")
decl_variant("model-number", "model", 5, "model")
decl_variant("when-string", DECL0 + "/when", "async", "when")
deep = {"name": "x", "class": "X"}
for _ in range(900):  # 1800 JSON levels: under jansson's 2048, so the walker recurses
    deep = {"name": "x", "class": "X", "children": [deep]}
d = copy.deepcopy(decl)
del deep["name"]  # the root module has no attribute name
d["module_tree"] = deep
d["module_tree"]["declares"] = 7
write("local/module-tree-deep.json", json.dumps(d), "declares")
write("local/empty-object.json", "{}", "/model")
write("local/truncated.json", dump(decl)[:700], "line ")
write("local/not-utf8.json", dump(decl).encode().replace(b"qwen3", b"qw\xffn3", 1), "line ")

# ------------------------------------------------------------ GGUF headers
# Layout in src/model/gguf.c. Strings are u64 length + bytes.
def gstr(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gkv(key, typ, payload):
    return gstr(key) + struct.pack("<I", typ) + payload


U32, I32, F32, STR, ARR, U64 = 4, 5, 6, 8, 9, 10


def gguf(kvs, tensors=b"", n_tensors=0, version=3, magic=b"GGUF", n_kv=None):
    n_kv = len(kvs) if n_kv is None else n_kv
    return magic + struct.pack("<IQQ", version, n_tensors, n_kv) + b"".join(kvs) + tensors


LLAMA_KV = [
    gkv("general.architecture", STR, gstr("llama")),
    gkv("llama.block_count", U32, struct.pack("<I", 32)),
    gkv("llama.embedding_length", U32, struct.pack("<I", 4096)),
    gkv("llama.attention.head_count", U32, struct.pack("<I", 32)),
    gkv("llama.attention.head_count_kv", U32, struct.pack("<I", 8)),
    gkv("llama.context_length", U32, struct.pack("<I", 131072)),
]
good = gguf(LLAMA_KV)
write("gguf/bad-magic.gguf", gguf(LLAMA_KV, magic=b"GGUG"), "magic")
write("gguf/empty.gguf", b"", "empty")
write("gguf/magic-only.gguf", b"GGUF", "offset 4")
write("gguf/version-1.gguf", gguf(LLAMA_KV, version=1), "version")
write("gguf/version-99.gguf", gguf(LLAMA_KV, version=99), "version")
write("gguf/truncated-header.gguf", good[:15], "offset ")
write("gguf/truncated-in-kv.gguf", good[:60], "kv_count")
write("gguf/truncated-last-byte.gguf", good[:-1], "offset ")
write("gguf/kv-count-huge.gguf", gguf(LLAMA_KV, n_kv=(1 << 64) - 1), "kv_count")
write("gguf/tensor-count-huge.gguf", gguf(LLAMA_KV, n_tensors=(1 << 63)), "tensor_count")
write("gguf/key-length-huge.gguf", gguf([struct.pack("<Q", (1 << 64) - 1) + b"general"]), "offset ")
write("gguf/string-length-huge.gguf",
      gguf([gkv("general.architecture", STR, struct.pack("<Q", 1 << 62) + b"llama")]), "general.architecture")
write("gguf/type-invalid.gguf", gguf([gkv("general.architecture", 13, gstr("llama"))]), "general.architecture")
write("gguf/type-huge.gguf", gguf([gkv("general.architecture", 0xFFFFFFFF, gstr("llama"))]), "general.architecture")
write("gguf/array-count-huge.gguf",
      gguf(LLAMA_KV + [gkv("tokenizer.ggml.tokens", ARR, struct.pack("<IQ", STR, 1 << 60))]), "tokenizer.ggml.tokens")
write("gguf/array-of-arrays.gguf",
      gguf(LLAMA_KV + [gkv("x.nested", ARR, struct.pack("<IQ", ARR, 1) + struct.pack("<IQ", U32, 1) + struct.pack("<I", 1))]), "x.nested")
write("gguf/array-bad-elem-type.gguf",
      gguf(LLAMA_KV + [gkv("x.bad", ARR, struct.pack("<IQ", 77, 1) + b"\0" * 8)]), "x.bad")
write("gguf/arch-wrong-type.gguf",
      gguf([gkv("general.architecture", U32, struct.pack("<I", 7))] + LLAMA_KV[1:]), "general.architecture")
write("gguf/arch-unknown.gguf",
      gguf([gkv("general.architecture", STR, gstr("quantumformer"))] + LLAMA_KV[1:]), "quantumformer")
write("gguf/block-count-zero.gguf",
      gguf(LLAMA_KV[:1] + [gkv("llama.block_count", U32, struct.pack("<I", 0))] + LLAMA_KV[2:]), "llama.block_count")
write("gguf/block-count-negative.gguf",
      gguf(LLAMA_KV[:1] + [gkv("llama.block_count", I32, struct.pack("<i", -1))] + LLAMA_KV[2:]), "llama.block_count")
write("gguf/head-count-kv-not-dividing.gguf",
      gguf(LLAMA_KV[:4] + [gkv("llama.attention.head_count_kv", U32, struct.pack("<I", 7))] + LLAMA_KV[5:]), "llama.attention.head_count_kv")
write("gguf/head-count-missing.gguf", gguf(LLAMA_KV[:3] + LLAMA_KV[4:]), "head_count")
write("gguf/head-count-float.gguf",
      gguf(LLAMA_KV[:3] + [gkv("llama.attention.head_count", F32, struct.pack("<f", 32.5))] + LLAMA_KV[4:]), "llama.attention.head_count")
write("gguf/duplicate-key.gguf", gguf(LLAMA_KV + LLAMA_KV[1:2]), "llama.block_count")
tensor = gstr("blk.0.attn_q.weight") + struct.pack("<I", 5) + struct.pack("<5Q", 1, 1, 1, 1, 1) + struct.pack("<IQ", 0, 0)
write("gguf/tensor-five-dims.gguf", gguf(LLAMA_KV, tensor, 1), "tensor #0")
tensor = gstr("t") + struct.pack("<I", 2) + struct.pack("<2Q", 1 << 40, 1 << 40) + struct.pack("<IQ", 0, 0)
write("gguf/tensor-ne-overflow.gguf", gguf(LLAMA_KV, tensor, 1), "t")
tensor = gstr("t") + struct.pack("<I", 1) + struct.pack("<Q", 16) + struct.pack("<IQ", 999, 0)
write("gguf/tensor-bad-ggml-type.gguf", gguf(LLAMA_KV, tensor, 1), "t")
write("gguf/tensor-count-more-than-present.gguf", gguf(LLAMA_KV, b"", 3), "offset ")
write("gguf/alignment-zero.gguf", gguf(LLAMA_KV + [gkv("general.alignment", U32, struct.pack("<I", 0))]), "general.alignment")
write("gguf/alignment-not-pow2.gguf", gguf(LLAMA_KV + [gkv("general.alignment", U32, struct.pack("<I", 24))]), "general.alignment")
write("gguf/json-pretending.gguf", b'{"GGUF": 3}', "magic")

# ------------------------------------------------------------ safetensors headers
def st(header_bytes, declared=None, data=b""):
    n = len(header_bytes) if declared is None else declared
    return struct.pack("<Q", n) + header_bytes + data


hdr = json.dumps({"__metadata__": {"format": "pt"},
                  "model.layers.0.self_attn.k_proj.weight": {"dtype": "BF16", "shape": [1024, 4096], "data_offsets": [0, 8388608]}}).encode()
write("safetensors/empty.safetensors", b"", "empty")
write("safetensors/short-length.safetensors", b"\x10\x00\x00", "offset ")
write("safetensors/length-huge.safetensors", st(hdr, declared=(1 << 64) - 1), "offset ")
write("safetensors/length-past-end.safetensors", st(hdr, declared=len(hdr) + 100), "offset ")
write("safetensors/length-zero.safetensors", st(b"", declared=0), "offset ")
write("safetensors/header-not-json.safetensors", st(b"GGUF\x03\x00\x00\x00"), "offset ")
write("safetensors/header-array.safetensors", st(b"[1,2,3]"), "offset ")
write("safetensors/header-invalid-utf8.safetensors", st(hdr.replace(b"model.", b"mo\xffl.")), "offset ")
def st_tensor(name, spec):
    return st(json.dumps({name: spec}).encode())
write("safetensors/dtype-unknown.safetensors", st_tensor("w", {"dtype": "BF17", "shape": [2], "data_offsets": [0, 4]}), "w")
write("safetensors/shape-negative.safetensors", st_tensor("w", {"dtype": "BF16", "shape": [-2], "data_offsets": [0, 4]}), "w")
write("safetensors/shape-string.safetensors", st_tensor("w", {"dtype": "BF16", "shape": "2", "data_offsets": [0, 4]}), "w")
write("safetensors/shape-overflow.safetensors", st_tensor("w", {"dtype": "F32", "shape": [1 << 32, 1 << 32, 1 << 10], "data_offsets": [0, 4]}), "w")
write("safetensors/offsets-reversed.safetensors", st_tensor("w", {"dtype": "BF16", "shape": [2], "data_offsets": [4, 0]}), "w")
write("safetensors/offsets-size-mismatch.safetensors", st_tensor("w", {"dtype": "BF16", "shape": [2], "data_offsets": [0, 5]}), "w")
write("safetensors/offsets-three.safetensors", st_tensor("w", {"dtype": "BF16", "shape": [2], "data_offsets": [0, 2, 4]}), "w")
write("safetensors/offsets-u64max.safetensors", st(b'{"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 18446744073709551615]}}'), "w")
write("safetensors/tensor-not-object.safetensors", st_tensor("w", 7), "w")
write("safetensors/metadata-number.safetensors", st(b'{"__metadata__": 5}'), "__metadata__")
write("safetensors/index-weight-map-array.json", json.dumps({"metadata": {"total_size": 16}, "weight_map": ["a"]}), "weight_map")
write("safetensors/index-total-size-negative.json", json.dumps({"metadata": {"total_size": -16}, "weight_map": {"w": "model.safetensors"}}), "total_size")
write("safetensors/index-total-size-string.json", json.dumps({"metadata": {"total_size": "16GB"}, "weight_map": {"w": "model.safetensors"}}), "total_size")
write("safetensors/index-shard-escapes.json", json.dumps({"metadata": {"total_size": 16}, "weight_map": {"w": "../../../etc/passwd"}}), "weight_map")

# ------------------------------------------------------------ workload traces (JSON lines)
# Fields (kvplan sim --help): arrival, prompt_len (or prompt_tokens: an array of
# token ids), output_len, prefix_id + prefix_len.
def wl(*lines):
    return "".join(l + "\n" for l in lines)
OKL = '{"arrival": 0, "prompt_len": 100, "output_len": 10}'
write("workload/empty.jsonl", b"", "empty")
write("workload/not-json.jsonl", "arrival,prompt_len,output_len\n0,100,100\n", "line 1")
write("workload/negative-prompt.jsonl", wl(OKL, '{"arrival": 1, "prompt_len": -5, "output_len": 10}'), "line 2")
write("workload/huge-prompt.jsonl", wl('{"arrival": 0, "prompt_len": 18446744073709551616, "output_len": 10}'), "line 1")
write("workload/string-prompt.jsonl", wl('{"arrival": 0, "prompt_len": "100", "output_len": 10}'), "line 1")
write("workload/zero-prompt.jsonl", wl(OKL, '{"arrival": 0, "prompt_len": 0, "output_len": 10}'), "line 2")
write("workload/missing-output.jsonl", wl(OKL, OKL, '{"arrival": 2, "prompt_len": 100}'), "line 3")
write("workload/negative-output.jsonl", wl('{"arrival": 0, "prompt_len": 100, "output_len": -1}'), "line 1")
write("workload/truncated-line.jsonl", OKL + '\n{"arrival": 1, "prompt_le', "line 2")
write("workload/nul-byte.jsonl", b'{"arrival": 0, "prompt_len": 1\x0000, "output_len": 10}\n', "line 1")
write("workload/invalid-utf8.jsonl", b'{"arrival": 0, "prompt_len": 100, "output_len": 10, "prefix_id": "\xff"}\n', "line 1")
write("workload/arrival-nan.jsonl", wl('{"arrival": NaN, "prompt_len": 100, "output_len": 10}'), "line 1")
write("workload/arrival-negative.jsonl", wl('{"arrival": -1, "prompt_len": 1, "output_len": 1}'), "line 1")
write("workload/arrival-string.jsonl", wl('{"arrival": "soon", "prompt_len": 1, "output_len": 1}'), "line 1")
write("workload/line-is-array.jsonl", wl(OKL, "[0, 100, 10]"), "line 2")
write("workload/prefix-len-over-prompt.jsonl", wl('{"arrival": 0, "prompt_len": 100, "output_len": 10, "prefix_id": "s", "prefix_len": 101}'), "line 1")
write("workload/prompt-over-max-len.jsonl", wl('{"arrival": 0, "prompt_len": 4294967295, "output_len": 10}'), "line 1")
write("workload/tokens-not-array.jsonl", wl('{"arrival": 0, "prompt_tokens": 100, "output_len": 10}'), "line 1")
write("workload/tokens-empty.jsonl", wl('{"arrival": 0, "prompt_tokens": [], "output_len": 10}'), "line 1")
write("workload/tokens-strings.jsonl", wl('{"arrival": 0, "prompt_tokens": [1, "2", 3], "output_len": 10}'), "line 1")
write("workload/tokens-negative-id.jsonl", wl('{"arrival": 0, "prompt_tokens": [1, -2, 3], "output_len": 10}'), "line 1")
write("workload/both-len-and-tokens-disagree.jsonl", wl('{"arrival": 0, "prompt_len": 5, "prompt_tokens": [1, 2, 3], "output_len": 10}'), "line 1")
write("workload/deep-line.jsonl", '{"arrival": 0, "prompt_len": 1, "output_len": 1, "x": ' + "[" * 5000 + "]" * 5000 + "}\n", "line 1")

# ------------------------------------------------------------ GPU catalogue files (--gpu-catalog)
GOOD_GPU = {"name": "Test GPU 80GB", "vendor": "nvidia", "aliases": ["testgpu"],
            "cuda_total": "79GiB", "bandwidth_gb_s": 3000}


def gpus(*entries, **top):
    doc = {"schema": 1, "gpus": list(entries)}
    doc.update(top)
    return json.dumps(doc)


def gpu_variant(file_name, frag, **changes):
    e = dict(GOOD_GPU)
    for k, v in changes.items():
        k = k.replace("__", "-")
        if v is None:
            e.pop(k, None)
        else:
            e[k] = v
    write("gpus/%s.json" % file_name, gpus(e), frag)


write("gpus/empty.json", b"", "empty")
write("gpus/top-array.json", "[]", "expected a JSON object")
write("gpus/no-gpus.json", '{"schema": 1}', "/gpus")
write("gpus/gpus-object.json", '{"gpus": {}}', "/gpus")
write("gpus/schema-2.json", gpus(GOOD_GPU, schema=2), "/schema")
write("gpus/schema-string.json", gpus(GOOD_GPU, schema="1"), "/schema")
write("gpus/unknown-top-key.json", gpus(GOOD_GPU, gpu=[]), "/gpu")
write("gpus/entry-string.json", gpus("H100"), "/gpus/0")
write("gpus/duplicate-key.json", '{"gpus": [], "gpus": []}', "line 1")
write("gpus/duplicate-name.json", gpus(GOOD_GPU, dict(GOOD_GPU, name="test-gpu 80gb")), "/gpus/1/name")
write("gpus/truncated.json", gpus(GOOD_GPU)[:40], "line 1")
write("gpus/nul-byte.json", gpus(GOOD_GPU).encode().replace(b"Test", b"Te\x00st"), "offset")
write("gpus/invalid-utf8.json", gpus(GOOD_GPU).encode().replace(b"Test", b"T\xffst"), "offset")
write("gpus/deep.json", '{"gpus": ' + "[" * 3000 + "]" * 3000 + "}", "line 1")
gpu_variant("unknown-key", "/gpus/0/nvml_total_mb", nvml_total_mb=81559)
gpu_variant("no-name", "/gpus/0/name", name=None)
gpu_variant("name-empty", "/gpus/0/name", name="")
gpu_variant("name-number", "/gpus/0/name", name=100)
gpu_variant("name-punctuation-only", "/gpus/0", name="---")
gpu_variant("name-too-long", "/gpus/0/name", name="G" * 200)
gpu_variant("vendor-array", "/gpus/0/vendor", vendor=["nvidia"])
gpu_variant("aliases-string", "/gpus/0/aliases", aliases="testgpu")
gpu_variant("alias-number", "/gpus/0/aliases/1", aliases=["ok", 7])
gpu_variant("alias-empty", "/gpus/0/aliases/0", aliases=[""])
gpu_variant("too-many-aliases", "/gpus/0/aliases", aliases=["a%d" % i for i in range(65)])
gpu_variant("no-total", "/gpus/0", cuda_total=None)
gpu_variant("cuda-total-number", "/gpus/0/cuda_total", cuda_total=79)
gpu_variant("cuda-total-zero", "/gpus/0/cuda_total", cuda_total="0GiB")
gpu_variant("cuda-total-unit", "/gpus/0/cuda_total", cuda_total="80XB")
gpu_variant("cuda-total-negative", "/gpus/0/cuda_total", cuda_total="-80GiB")
gpu_variant("cuda-total-2pib", "/gpus/0/cuda_total", cuda_total="2048TiB")
gpu_variant("cuda-total-overflow", "/gpus/0/cuda_total", cuda_total="18446744073709551616")
gpu_variant("derived-total-1e309", "/gpus/0/derived_total", cuda_total=None, derived_total="1e309GiB")
gpu_variant("nvml-mib-zero", "/gpus/0/nvml_total_mib", cuda_total=None, nvml_total_mib=0)
gpu_variant("nvml-mib-negative", "/gpus/0/nvml_total_mib", cuda_total=None, nvml_total_mib=-1)
gpu_variant("nvml-mib-real", "/gpus/0/nvml_total_mib", cuda_total=None, nvml_total_mib=81559.5)
gpu_variant("nvml-mib-u64max", "line 1", cuda_total=None, nvml_total_mib=18446744073709551615)
gpu_variant("nvml-mib-2pib", "/gpus/0/nvml_total_mib", cuda_total=None, nvml_total_mib=2 ** 31)
gpu_variant("bandwidth-zero", "/gpus/0/bandwidth_gb_s", bandwidth_gb_s=0)
gpu_variant("bandwidth-string", "/gpus/0/bandwidth_gb_s", bandwidth_gb_s="3 TB/s")
gpu_variant("bandwidth-huge", "/gpus/0/bandwidth_gb_s", bandwidth_gb_s=10 ** 12)
gpu_variant("source-number", "/gpus/0/cuda_source", cuda_source=1)
write("gpus/too-many-entries.json", gpus(*[dict(GOOD_GPU, name="g%d" % i, aliases=[]) for i in range(1025)]), "/gpus")

# ------------------------------------------------------------ round two (issue 17)
# Truncation of a line at every third byte, NUL bytes on a later line, errors after
# CRLF and blank lines (the streamed reader's line counting), values of the wrong
# type or range, and control characters inside values that are refused, so the
# error line must carry them escaped (the corpus check fails on a raw control byte).
ESCS = ["\x1b]0;pwned\x07", "\x1b[31m", "\x1b[2J", "\u009b31m", "\x7f", "\x08\x08", "\r"]
for cut in range(4, len(OKL) - 1, 3):
    write("workload/r2-truncated-at-%02d.jsonl" % cut, OKL + "\n" + OKL[:cut], "line 2")
for k in range(1, 6):
    write("workload/r2-nul-on-line-%d.jsonl" % k,
          ("\n".join([OKL] * (k - 1) + ['{"arrival": 0, "prompt_len": 1\x0000, "output_len": 1}']) + "\n").encode(),
          "line %d" % k)
write("workload/r2-nul-last-line-no-newline.jsonl", (OKL + "\n" + OKL + "\n\x00\x00\x00").encode(), "line 3")
write("workload/r2-crlf-error-line-3.jsonl", OKL + "\r\n" + OKL + "\r\n" + '{"arrival": 0, "prompt_len": -1, "output_len": 1}\r\n', "line 3")
write("workload/r2-blank-lines-error-line-5.jsonl", OKL + "\n\n  \n\t\n" + '{"arrival": 0, "prompt_len": 0, "output_len": 1}\n', "line 5")
for tag, line in [
        ("output-2^32", '{"arrival": 0, "prompt_len": 1, "output_len": 4294967296}'),
        ("output-fraction", '{"arrival": 0, "prompt_len": 1, "output_len": 1.5}'),
        ("output-bool", '{"arrival": 0, "prompt_len": 1, "output_len": true}'),
        ("output-null", '{"arrival": 0, "prompt_len": 1, "output_len": null}'),
        ("prompt-fraction", '{"arrival": 0, "prompt_len": 10.5, "output_len": 1}'),
        ("prompt-bool", '{"arrival": 0, "prompt_len": true, "output_len": 1}'),
        ("prompt-1e400", '{"arrival": 0, "prompt_len": 1e400, "output_len": 1}'),
        ("arrival-1e400", '{"arrival": 1e400, "prompt_len": 1, "output_len": 1}'),
        ("arrival-infinity", '{"arrival": Infinity, "prompt_len": 1, "output_len": 1}'),
        ("prefix-len-negative", '{"arrival": 0, "prompt_len": 10, "output_len": 1, "prefix_id": "a", "prefix_len": -1}'),
        ("prefix-id-object", '{"arrival": 0, "prompt_len": 10, "output_len": 1, "prefix_id": {}, "prefix_len": 2}'),
        ("prefix-id-array", '{"arrival": 0, "prompt_len": 10, "output_len": 1, "prefix_id": [1], "prefix_len": 2}'),
        ("prefix-len-no-id-first", '{"arrival": 0, "prompt_len": 10, "output_len": 1, "prefix_id": "new"}'),
        ("tokens-2^32", '{"arrival": 0, "prompt_tokens": [4294967296], "output_len": 1}'),
        ("tokens-fraction", '{"arrival": 0, "prompt_tokens": [1.5], "output_len": 1}'),
        ("tokens-nested", '{"arrival": 0, "prompt_tokens": [[1]], "output_len": 1}'),
        ("line-is-string", '"arrival"'),
        ("line-is-number", "42"),
        ("two-objects-one-line", OKL + " " + OKL),
        ("trailing-comma", '{"arrival": 0, "prompt_len": 1, "output_len": 1,}')]:
    write("workload/r2-%s.jsonl" % tag, wl(OKL, line), "line 2")
for i, e in enumerate(ESCS):
    # A prefix longer than its prompt, named by an id full of control characters.
    write("workload/r2-escape-%d-prefix-id.jsonl" % i,
          wl(json.dumps({"arrival": 0, "prompt_len": 10, "output_len": 1, "prefix_id": "p" + e, "prefix_len": 20})), "line 1")
    gpu_variant("r2-escape-%d-name-bad-total" % i, "/gpus/0/cuda_total", name="GPU" + e, cuda_total="-1GiB")
    gpu_variant("r2-escape-%d-alias-bad-bandwidth" % i, "/gpus/0/bandwidth_gb_s", aliases=["a" + e], bandwidth_gb_s="fast" + e)
    gpu_variant("r2-escape-%d-unknown-key" % i, "/gpus/0/", **{"k" + e: 1})
    write("config/r2-escape-%d-layers-string.json" % i,
          dump(dict(load("meta-llama__Llama-3.1-8B"), num_hidden_layers="32" + e)), "/num_hidden_layers")
    write("config/r2-escape-%d-layer-types.json" % i,
          dump(dict(load("google__gemma-3-27b-it"), text_config=dict(load("google__gemma-3-27b-it")["text_config"], layer_types=["sliding" + e] * 62))),
          "/text_config/layer_types/0")
for cut in (1, 9, 30, 100, 200, 400, 600, 700):
    text = gpus(GOOD_GPU)
    if cut < len(text):
        write("gpus/r2-truncated-at-%03d.json" % cut, text[:cut], "line 1")
for tag, frag, ch in [("memory-object", "/gpus/0/memory", dict(memory={})),
                      ("vendor-number", "/gpus/0/vendor", dict(vendor=7)),
                      ("aliases-string", "/gpus/0/aliases", dict(aliases="x")),
                      ("cuda-source-number", "/gpus/0/cuda_source", dict(cuda_source=1)),
                      ("nvml-total-string", "/gpus/0/nvml_total_mib", dict(nvml_total_mib="81559")),
                      ("derived-total-zero", "/gpus/0/derived_total", dict(derived_total="0GiB", cuda_total=None))]:
    gpu_variant("r2-" + tag, frag, **ch)

# ------------------------------------------------------------ round three (issue 17): values
# Values that are well-typed JSON but misread before: quantization widths and groups,
# contradicting sources, MoE routing, layer lists; GGUF strings, bools and types;
# safetensors offsets and index keys.
GPTQ = {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True}
for tag, raw in [("string", '"8"'), ("word", '"four"'), ("64", "64"), ("5", "5"), ("1", "1"),
                 ("0", "0"), ("negative", "-4"), ("bool", "true"), ("array", "[4]"),
                 ("fraction", "4.5"), ("object", "{}"), ("1e300", "1e300"), ("2^64", "18446744073709551616")]:
    q = dict(GPTQ, bits=RAW)
    doc = dict(copy.deepcopy(llama), quantization_config=q)
    write("config/r3-gptq-bits-%s.json" % tag, dump(doc, raw), "/quantization_config/bits" if tag != "2^64" else "line ")
for tag, raw in [("string", '"4"'), ("7", "7"), ("16", "16"), ("negative", "-1")]:
    q = {"quant_method": "awq", "w_bit": RAW, "q_group_size": 128, "zero_point": True, "version": "gemm"}
    write("config/r3-awq-w-bit-%s.json" % tag, dump(dict(copy.deepcopy(llama), quantization_config=q), raw),
          "/quantization_config/w_bit")
for tag, v in [("-2", -2), ("-128", -128), ("0", 0), ("half", 0.5), ("string", "128"), ("bool", True),
               ("2^21", 1 << 21), ("array", [128]), ("1e30", 1e30)]:
    write("config/r3-gptq-group-%s.json" % tag, dump(dict(copy.deepcopy(llama), quantization_config=dict(GPTQ, group_size=v))),
          "/quantization_config/group_size")
write("config/r3-awq-q-group-negative.json",
      dump(dict(copy.deepcopy(llama), quantization_config={"quant_method": "awq", "w_bit": 4, "q_group_size": -64})),
      "/quantization_config/q_group_size")
def ct(weights):
    return {"quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": weights}}, "ignore": ["lm_head"]}
for tag, w, frag in [("group-negative", {"num_bits": 4, "type": "int", "group_size": -3}, "group_size"),
                     ("group-string", {"num_bits": 4, "type": "int", "group_size": "128"}, "group_size"),
                     ("group-zero", {"num_bits": 4, "type": "int", "group_size": 0}, "group_size"),
                     ("bits-string", {"num_bits": "4", "type": "int", "group_size": 128}, "num_bits"),
                     ("bits-zero", {"num_bits": 0, "type": "int", "group_size": 128}, "num_bits"),
                     ("bits-17", {"num_bits": 17, "type": "int", "group_size": 128}, "num_bits"),
                     ("bits-fraction", {"num_bits": 4.5, "type": "int", "group_size": 128}, "num_bits")]:
    write("config/r3-ct-%s.json" % tag, dump(dict(copy.deepcopy(llama), quantization_config=ct(w))),
          "/quantization_config/config_groups/group_0/weights/" + frag)
for tag, td, d in [("bf16-fp16", "bfloat16", "float16"), ("fp32-bf16", "float32", "bfloat16"),
                   ("fp16-fp32", "float16", "float32")]:
    write("config/r3-dtype-vs-torch-dtype-%s.json" % tag, dump(dict(copy.deepcopy(llama), torch_dtype=td, dtype=d)), "/dtype")
g3 = load("google__gemma-3-27b-it")
g3b = copy.deepcopy(g3)
g3b["text_config"]["torch_dtype"] = "bfloat16"
g3b["text_config"]["dtype"] = "float32"
write("config/r3-dtype-vs-torch-dtype-nested.json", dump(g3b), "/text_config/dtype")
g3q = copy.deepcopy(g3)
g3q["quantization_config"] = {"quant_method": "fp8", "activation_scheme": "dynamic"}
g3q["text_config"]["quantization_config"] = {"quant_method": "gptq", "bits": 4, "group_size": 128}
write("config/r3-quant-config-inner-vs-outer.json", dump(g3q), "/text_config/quantization_config")
for tag, algo, scheme in [("fp8-vs-int8", "FP8", {"num_bits": 8, "type": "int"}),
                          ("nvfp4-vs-fp8", "NVFP4", {"num_bits": 8, "type": "float"}),
                          ("int8-vs-fp8", "INT8", {"num_bits": 8, "type": "float"}),
                          ("fp8-vs-fp4", "FP8", {"num_bits": 4, "type": "float"})]:
    write("config/r3-kv-quant-%s.json" % tag,
          dump(dict(copy.deepcopy(llama), quantization_config={"quant_method": "modelopt", "quant_algo": "FP8",
                                                              "kv_cache_quant_algo": algo, "kv_cache_scheme": scheme})),
          "/quantization_config/kv_cache_scheme")
q3moe = load("Qwen__Qwen3-30B-A3B")
for tag, k in [("129", 129), ("1000", 1000), ("65536", 65536)]:
    write("config/r3-qwen3-moe-topk-%s.json" % tag, dump(dict(copy.deepcopy(q3moe), num_experts_per_tok=k)), "/num_experts_per_tok")
mix = load("mistralai__Mixtral-8x7B-v0.1")
write("config/r3-mixtral-topk-9.json", dump(dict(copy.deepcopy(mix), num_experts_per_tok=9)), "/num_experts_per_tok")
for tag, v, frag in [("string", "0,1", "/mlp_only_layers"), ("int", 7, "/mlp_only_layers"),
                     ("object", {"0": 1}, "/mlp_only_layers"), ("bool", True, "/mlp_only_layers"),
                     ("past-end", [48], "/mlp_only_layers/0"), ("negative", [0, -1], "/mlp_only_layers/1"),
                     ("fraction", [1.5], "/mlp_only_layers/0"), ("string-entry", ["0"], "/mlp_only_layers/0"),
                     ("null-entry", [3, None], "/mlp_only_layers/1"), ("nested", [[1]], "/mlp_only_layers/0"),
                     ("2^32", [1 << 32], "/mlp_only_layers/0")]:
    write("config/r3-qwen3-moe-mlp-only-%s.json" % tag, dump(dict(copy.deepcopy(q3moe), mlp_only_layers=v)), frag)

BOOL = 7
def gkv_bool(key, b):
    return gkv(key, BOOL, struct.pack("<B", b))
def replace_kv(i, kv):
    return LLAMA_KV[:i] + [kv] + LLAMA_KV[i + 1:]
write("gguf/r3-key-nul-in-middle.gguf",
      gguf(LLAMA_KV + [gkv(b"general.alignment\x00evil", U32, struct.pack("<I", 32))]), "metadata key #6")
write("gguf/r3-key-nul-at-end.gguf",
      gguf(replace_kv(1, gkv(b"llama.block_count\x00", U32, struct.pack("<I", 32)))), "metadata key #1")
write("gguf/r3-arch-string-nul.gguf",
      gguf(replace_kv(0, gkv("general.architecture", STR, gstr(b"llama\x00mamba")))), "general.architecture")
write("gguf/r3-name-string-nul.gguf",
      gguf(LLAMA_KV + [gkv("general.name", STR, gstr(b"tiny\x00"))]), "general.name")
write("gguf/r3-key-length-zero.gguf", gguf(LLAMA_KV + [gkv(b"", U32, struct.pack("<I", 1))]), "metadata key #6")
write("gguf/r3-block-count-bool.gguf", gguf(replace_kv(1, gkv_bool("llama.block_count", 1))), "llama.block_count")
write("gguf/r3-embedding-bool.gguf", gguf(replace_kv(2, gkv_bool("llama.embedding_length", 1))), "llama.embedding_length")
write("gguf/r3-head-count-bool.gguf", gguf(replace_kv(3, gkv_bool("llama.attention.head_count", 1))), "llama.attention.head_count")
write("gguf/r3-head-count-kv-bool-array.gguf",
      gguf(replace_kv(4, gkv("llama.attention.head_count_kv", ARR, struct.pack("<IQ", BOOL, 32) + b"\x01" * 32))),
      "llama.attention.head_count_kv")
write("gguf/r3-context-length-bool.gguf", gguf(replace_kv(5, gkv_bool("llama.context_length", 1))), "llama.context_length")
write("gguf/r3-head-count-kv-zero.gguf", gguf(replace_kv(4, gkv("llama.attention.head_count_kv", U32, struct.pack("<I", 0)))),
      "llama.attention.head_count_kv")
write("gguf/r3-head-count-kv-zero-array.gguf",
      gguf(replace_kv(4, gkv("llama.attention.head_count_kv", ARR, struct.pack("<IQ", U32, 32) + b"\0" * 128))),
      "llama.attention.head_count_kv")
for tag, used, total in [("9-of-8", 9, 8), ("2-of-1", 2, 1), ("u32max-of-128", 0xFFFFFFFF, 128)]:
    write("gguf/r3-expert-used-%s.gguf" % tag,
          gguf(LLAMA_KV + [gkv("llama.expert_count", U32, struct.pack("<I", total)),
                           gkv("llama.expert_used_count", U32, struct.pack("<I", used))]), "llama.expert_used_count")
for tag, kv in [("f32", gkv("general.alignment", F32, struct.pack("<f", 32.0))),
                ("string", gkv("general.alignment", STR, gstr("32"))),
                ("u64", gkv("general.alignment", U64, struct.pack("<Q", 32))),
                ("i32", gkv("general.alignment", I32, struct.pack("<i", 32))),
                ("bool", gkv_bool("general.alignment", 1)),
                ("array", gkv("general.alignment", ARR, struct.pack("<IQ", U32, 1) + struct.pack("<I", 32)))]:
    write("gguf/r3-alignment-%s.gguf" % tag, gguf(LLAMA_KV + [kv]), "general.alignment")

def st_multi(tensors, data_len):
    return st(json.dumps(tensors).encode(), data=b"\0" * data_len)
T8 = lambda b, e: {"dtype": "BF16", "shape": [(e - b) // 2], "data_offsets": [b, e]}
write("safetensors/r3-offsets-identical.safetensors", st_multi({"x": T8(0, 8), "y": T8(0, 8)}, 8), "data_offsets begin")
write("safetensors/r3-offsets-overlap.safetensors", st_multi({"x": T8(0, 8), "y": T8(4, 12)}, 12), "/y")
write("safetensors/r3-offsets-contained.safetensors", st_multi({"x": T8(0, 16), "y": T8(4, 8)}, 16), "/y")
write("safetensors/r3-offsets-gap.safetensors", st_multi({"x": T8(0, 8), "y": T8(10, 18)}, 18), "/y")
write("safetensors/r3-offsets-not-from-zero.safetensors", st_multi({"x": T8(4, 12)}, 12), "/x")
write("safetensors/r3-data-trailing.safetensors", st_multi({"x": T8(0, 8)}, 12), "data_offsets")
write("safetensors/r3-three-same-bytes.safetensors", st_multi({"a": T8(0, 8), "b": T8(0, 8), "c": T8(0, 8)}, 8), "data_offsets begin")
write("safetensors/r3-index-duplicate-tensor.json",
      '{"metadata": {"total_size": 16}, "weight_map": {"w": "model.safetensors", "w": "model.safetensors"}}', "line 1")
write("safetensors/r3-index-duplicate-metadata.json",
      '{"metadata": {"total_size": 16}, "metadata": {}, "weight_map": {"w": "model.safetensors"}}', "line 1")

P280 = "p" * 280
for tag, a, b in [("280", P280 + "A", P280 + "B"), ("1000", "q" * 1000 + "1", "q" * 1000 + "2"),
                  ("utf8", "é" * 200 + "x", "é" * 200 + "y")]:
    # Two ids that share their first bytes are two prefixes: the second, new, needs its prefix_len.
    write("workload/r3-prefix-id-long-%s.jsonl" % tag,
          wl(json.dumps({"arrival": 0, "prompt_len": 100, "output_len": 10, "prefix_id": a, "prefix_len": 10}),
             json.dumps({"arrival": 1, "prompt_len": 100, "output_len": 10, "prefix_id": b})), "line 2")
write("workload/r3-prefix-id-long-len-changes.jsonl",
      wl(json.dumps({"arrival": 0, "prompt_len": 100, "output_len": 10, "prefix_id": P280 * 3, "prefix_len": 10}),
         json.dumps({"arrival": 1, "prompt_len": 100, "output_len": 10, "prefix_id": P280 * 3, "prefix_len": 11})), "line 2")
write("gguf/r3-head-count-kv-string-array.gguf",
      gguf(replace_kv(4, gkv("llama.attention.head_count_kv", ARR, struct.pack("<IQ", STR, 32) + b"".join(gstr("8") for _ in range(32))))),
      "llama.attention.head_count_kv")
write("gguf/r3-head-count-string-array-short.gguf",
      gguf(replace_kv(3, gkv("llama.attention.head_count", ARR, struct.pack("<IQ", STR, 2) + gstr("32") + gstr("32")))),
      "llama.attention.head_count")
write("gguf/r3-head-count-kv-short-array.gguf",
      gguf(replace_kv(4, gkv("llama.attention.head_count_kv", ARR, struct.pack("<IQ", U32, 31) + struct.pack("<31I", *([8] * 31))))),
      "expected 32 (block_count)")
gpu_b = dict(GOOD_GPU, name="Other GPU 48GB", aliases=["other"])
for tag, entries, frag in [
        ("alias-shared", [dict(GOOD_GPU, aliases=["shared"]), dict(gpu_b, aliases=["shared"])], "/gpus/1/aliases/0"),
        ("alias-is-other-name", [GOOD_GPU, dict(gpu_b, aliases=["Test GPU 80GB"])], "/gpus/1/aliases/0"),
        ("name-is-other-alias", [dict(GOOD_GPU, aliases=["other-gpu-48gb"]), dict(gpu_b, aliases=[])], "/gpus/1/name"),
        ("alias-spelling-differs", [dict(GOOD_GPU, aliases=["My-GPU"]), dict(gpu_b, aliases=["my gpu"])], "/gpus/1/aliases/0"),
        ("alias-third-entry", [GOOD_GPU, gpu_b, dict(GOOD_GPU, name="Third GPU", aliases=["x", "testgpu"])], "/gpus/2/aliases/1"),
        ("alias-shadows-builtin", [dict(GOOD_GPU, aliases=["h100"])], "/gpus/0/aliases/0"),
        ("name-shadows-builtin-alias", [dict(GOOD_GPU, name="H100", aliases=[])], "/gpus/0/name")]:
    write("gpus/r3-%s.json" % tag, gpus(*entries), frag)

# ------------------------------------------------------------ round four (issue 17, session 3)
# A declaration whose bytes per row pass 64 bits: refused naming its geometry (it was a
# skipped declarer, so the cache read 0 B). Every width at its bound and a 2^31 window.
d = copy.deepcopy(decl)
dd = get_path(d, DECL0)
dd.pop("when", None)
dd["geometry"].update(layers=100000, kv_heads=65536, head_dim=65536)
dd["bound"]["sliding_window"] = 1 << 31
write("local/r4-bytes-per-row-overflow.json", dump(d), "geometry: declaration")
decl_variant("r4-geometry-head-dim-huge", DECL0 + "/geometry/head_dim", 1 << 40, "head_dim")
decl_variant("r4-geometry-kv-heads-string", DECL0 + "/geometry/kv_heads", "16", "kv_heads")
decl_variant("r4-bound-window-fraction", DECL0 + "/bound/sliding_window", 72.5, "sliding_window")
decl_variant("r4-name-number", DECL0 + "/name", 12, "name")

R4L = lambda **kv: json.dumps(dict({"arrival": 0, "prompt_len": 100, "output_len": 10}, **kv))
for tag, line, frag in [
        ("prefix-id-float", R4L(prefix_id=1.5, prefix_len=10), "line 1"),
        ("prefix-id-null", R4L(prefix_id=None, prefix_len=10), "line 1"),
        ("prefix-id-bool", R4L(prefix_id=True, prefix_len=10), "line 1"),
        ("prefix-id-array", R4L(prefix_id=["a"], prefix_len=10), "line 1"),
        ("prefix-len-without-id", R4L(prefix_len=10), "line 1"),
        ("prefix-len-zero", R4L(prefix_id="a", prefix_len=0), "line 1"),
        ("prefix-len-string", R4L(prefix_id="a", prefix_len="10"), "line 1"),
        ("prefix-first-without-len", R4L(prefix_id="a"), "line 1"),
        ("output-zero", R4L(output_len=0), "line 1"),
        ("output-string", R4L(output_len="10"), "line 1"),
        ("output-over-limit", R4L(output_len=16777217), "line 1"),
        ("output-fraction", R4L(output_len=10.5), "line 1"),
        ("arrival-fraction-steps", R4L(arrival=1.5), "line 1"),
        ("arrival-1e16", R4L(arrival=1e16), "line 1"),
        ("arrival-bool", R4L(arrival=False), "line 1"),
        ("prompt-fraction", R4L(prompt_len=100.5), "line 1"),
        ("prompt-bool", R4L(prompt_len=True), "line 1"),
        ("prompt-over-limit", R4L(prompt_len=16777217), "line 1"),
        ("tokens-id-2^32", json.dumps({"arrival": 0, "prompt_tokens": [1, 4294967296], "output_len": 1}), "line 1"),
        ("tokens-id-float", json.dumps({"arrival": 0, "prompt_tokens": [1, 2.5], "output_len": 1}), "line 1"),
        ("tokens-nested", json.dumps({"arrival": 0, "prompt_tokens": [[1, 2]], "output_len": 1}), "line 1"),
        ("tokens-with-prefix-id", json.dumps({"arrival": 0, "prompt_tokens": [1, 2], "output_len": 1, "prefix_id": "a", "prefix_len": 1}), "line 1"),
        ("line-is-string", '"arrival"', "line 1"),
        ("line-is-null", "null", "line 1")]:
    write("workload/r4-%s.jsonl" % tag, wl(line), frag)
write("workload/r4-line-2-is-number.jsonl", wl(OKL, "42"), "line 2")
write("workload/r4-prefix-int-len-changes.jsonl",
      wl(R4L(prefix_id=7, prefix_len=10), R4L(arrival=1, prefix_id=7, prefix_len=20)), "line 2")
write("workload/r4-crlf-then-bad.jsonl", (OKL + "\r\n") * 2 + '{"arrival": 0, "prompt_len": -1, "output_len": 1}\r\n', "line 3")
write("workload/r4-bom.jsonl", b"\xef\xbb\xbf" + OKL.encode() + b"\n", "line 1")
write("workload/r4-bad-after-many.jsonl", wl(*([OKL] * 500 + ['{"arrival": 0, "prompt_len": 1}'])), "line 501")

for tag, key, typ, payload in [
        ("block-count-zero", "llama.block_count", U32, struct.pack("<I", 0)),
        ("block-count-2^40", "llama.block_count", U64, struct.pack("<Q", 1 << 40)),
        ("head-count-zero", "llama.attention.head_count", U32, struct.pack("<I", 0)),
        ("context-length-string", "llama.context_length", STR, gstr("131072")),
        ("embedding-f32", "llama.embedding_length", F32, struct.pack("<f", 4096.0))]:
    idx = {"llama.block_count": 1, "llama.embedding_length": 2, "llama.attention.head_count": 3,
           "llama.context_length": 5}[key]
    write("gguf/r4-%s.gguf" % tag, gguf(replace_kv(idx, gkv(key, typ, payload))), key)

for tag, frag, changes in [
        ("cuda-total-nan", "cuda_total", {"cuda_total": "NaNGiB"}),
        ("cuda-total-inf", "cuda_total", {"cuda_total": "infGiB"}),
        ("cuda-total-empty", "cuda_total", {"cuda_total": ""}),
        ("bandwidth-negative", "bandwidth_gb_s", {"bandwidth_gb_s": -1}),
        ("bandwidth-string", "bandwidth_gb_s", {"bandwidth_gb_s": "3000"}),
        ("bandwidth-nan", "line 1", {"bandwidth_gb_s": "__NAN__"}),
        ("aliases-number", "aliases", {"aliases": 5}),
        ("aliases-nested", "aliases", {"aliases": [["x"]]}),
        ("vendor-number", "vendor", {"vendor": 10}),
        ("name-number", "name", {"name": 80})]:
    e = dict(GOOD_GPU, **changes)
    text = gpus(e)
    if changes.get("bandwidth_gb_s") == "__NAN__":
        text = text.replace('"bandwidth_gb_s": "__NAN__"', '"bandwidth_gb_s": NaN')
    write("gpus/r4-%s.json" % tag, text, frag)
write("gpus/r4-schema-string.json", json.dumps({"schema": "1", "gpus": [GOOD_GPU]}), "schema")
write("gpus/r4-gpus-object.json", json.dumps({"schema": 1, "gpus": {"a": GOOD_GPU}}), "gpus")

llama_variant("r4-kv-heads-bool", "/num_key_value_heads", num_key_value_heads=True)
llama_variant("r4-layers-bool", "/num_hidden_layers", num_hidden_layers=True)
llama_variant("r4-head-dim-negative", "/head_dim", head_dim=-128)
llama_variant("r4-head-dim-string", "/head_dim", head_dim="128")
llama_variant("r4-heads-fraction", "/num_attention_heads", num_attention_heads=32.5)
llama_variant("r4-kv-heads-array", "/num_key_value_heads", num_key_value_heads=[8])

# ------------------------------------------------------------ round five (issue 29)
# A zero-length string read as a count or a switch that decides the cache or the
# weights, an empty RoPE type, the MLA switch contradicting a rank, a per-layer list
# whose name is a cache word: each refused by its key.
llama_variant("i29-nextn-empty-string", "/num_nextn_predict_layers", num_nextn_predict_layers="")
llama_variant("i29-mtp-layers-negative", "/mtp_num_hidden_layers", mtp_num_hidden_layers=-1)
llama_variant("i29-tie-empty-string", "/tie_word_embeddings", tie_word_embeddings="")
llama_variant("i29-rope-type-empty", "/rope_scaling/rope_type",
              rope_scaling={"rope_type": "", "factor": 4.0})
llama_variant("i29-use-mla-false-with-rank", "/kv_lora_rank", use_mla=False, kv_lora_rank=512)
llama_variant("i29-attn-norm-list", "/attn_norm_types",
              attn_norm_types=["rms"] * llama["num_hidden_layers"])
# Round six (issue 29, the classes still open): an empty map where the format needs
# entries. ModelOpt MIXED_PRECISION names each quantized module in quantized_layers
# (vLLM ModelOptMixedPrecisionConfig); an empty map quantizes nothing and was read as
# an unquantized checkpoint. A missing map was refused, but its pointer named the key
# twice (/quantization_config/quantized_layers/quantized_layers): the ':' after the
# fragment checks the key is named once.
llama_variant("i29-mixed-precision-empty-map", "/quantization_config/quantized_layers:",
              quantization_config={"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                                   "quantized_layers": {}})
llama_variant("i29-mixed-precision-no-map", "/quantization_config/quantized_layers:",
              quantization_config={"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION"})

# ------------------------------------------------------------ probes (valid files)
# Not part of expect.tsv: the test runs each probe first and asserts a kind's
# corpus only when kvplan accepts its probe (the reader exists and is wired).
def probe(rel, data):
    path = os.path.join(ROOT, "probe", rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
probe("llama.gguf", good)
# With a vocabulary array, a float, a string and a tensor table: every value kind the reader keeps.
rich_kv = LLAMA_KV + [
    gkv("general.name", STR, gstr("tiny llama")),
    gkv("llama.rope.freq_base", F32, struct.pack("<f", 500000.0)),
    gkv("llama.attention.layer_norm_rms_epsilon", F32, struct.pack("<f", 1e-5)),
    gkv("tokenizer.ggml.tokens", ARR, struct.pack("<IQ", STR, 5) + b"".join(gstr(t) for t in ["<s>", "</s>", "a", "b", "c"])),
    gkv("tokenizer.ggml.scores", ARR, struct.pack("<IQ", F32, 5) + struct.pack("<5f", 0, 0, -1, -2, -3)),
    gkv("general.alignment", U32, struct.pack("<I", 32)),
]
tensors = b"".join(gstr(n) + struct.pack("<I", 2) + struct.pack("<2Q", 4, 4) + struct.pack("<IQ", 0, off)
                   for n, off in [("blk.0.attn_k.weight", 0), ("blk.0.attn_v.weight", 64)])
rich = gguf(rich_kv, tensors, 2)
rich += b"\0" * (-len(rich) % 32) + b"\0" * 128  # aligned data of two 4x4 f32 tensors
probe("llama-rich.gguf", rich)
# The header of a checkpoint the size of the Llama-3.1-8B config the test puts beside
# it (its index's total_size, 16060522496 B, in one BF16 tensor); the test appends the
# data section as holes (truncate -s +16060522496): kvplan refuses headers more than
# 8x away from the config's estimate.
probe("model.safetensors", st(json.dumps({"__metadata__": {"format": "pt"},
      "model.weights": {"dtype": "BF16", "shape": [8030261248], "data_offsets": [0, 16060522496]}}).encode()))
probe("workload.jsonl", wl(OKL, '{"arrival": 1, "prompt_tokens": [1, 2, 3], "output_len": 20}'))
probe("gpus.json", gpus(GOOD_GPU, dict(GOOD_GPU, name="H100 SXM 80GB", aliases=["h100"], cuda_total="79.10GiB")))

with open(os.path.join(ROOT, "expect.tsv"), "w", encoding="utf-8") as f:
    f.write("# file\tfragment the one stderr line must contain\t[known defect, not yet refused"
            " as it should be] (generated by gen_corpus.py)\n")
    for rel, frag, known in sorted(expect):
        f.write("%s\t%s%s\n" % (rel, frag, "\t" + known if known else ""))
print("%d files" % len(expect), file=sys.stderr)
