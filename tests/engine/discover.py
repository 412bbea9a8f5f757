#!/usr/bin/env python3
"""discover.py — derive the metadata an arch needs from llama.cpp's own loader.

Developer tool (not run by the test): for each arch it writes the tiny GGUF,
asks `probe run` to load it, and while llama.cpp answers "key not found
in model: X" adds X with a small value chosen by the key's name, "missing
tensor 'T'" adds T (and its siblings on every block), "tensor 'T' has wrong
shape; expected S" gives T the shape S; tensors llama.cpp reports unused are
dropped. The keys and tensors are recorded in tests/engine/archs.json. Re-run it when the pinned release changes:

    discover.py PROBE ARCH...        (KVP_LLAMA_LIB_DIR set as for the probe)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import tiny_gguf

HERE = os.path.dirname(os.path.abspath(__file__))


I32 = lambda v: {"type": "i32", "value": v}
MOE = {"expert_count": 4, "expert_used_count": 2, "expert_feed_forward_length": 64,
       "expert_shared_count": 1, "expert_shared_feed_forward_length": 64,
       "leading_dense_block_count": 1}
MLA = {"attention.head_count": 2, "attention.head_count_kv": 1, "attention.kv_lora_rank": 64,
       "attention.q_lora_rank": 64, "attention.key_length": 96, "attention.value_length": 64,
       "attention.key_length_mla": 64, "attention.value_length_mla": 32,
       "rope.dimension_count": 32}
DSA = {"attention.indexer.head_count": 2, "attention.indexer.key_length": 64,
       "attention.indexer.top_k": 8}
SSM = {"ssm.conv_kernel": 4, "ssm.inner_size": 256, "ssm.state_size": 16,
       "ssm.time_step_rank": 8, "ssm.group_count": 1}
GDN = {"ssm.conv_kernel": 4, "ssm.inner_size": 128, "ssm.state_size": 32,
       "ssm.time_step_rank": 4, "ssm.group_count": 2, "full_attention_interval": 3}
MROPE = {"rope.dimension_sections": [I32(8), I32(8), I32(8), I32(8)]}
HYB_KV = {"attention.head_count_kv": [0, 0, 1, 0, 0, 1]}
# Geometry an arch needs before its loader gets far enough to name missing keys.
SEEDS = {
    "llama4": MOE, "grok": MOE, "qwen2moe": MOE, "qwen3moe": MOE, "phimoe": MOE,
    "cohere2moe": MOE, "dbrx": MOE, "olmoe": MOE, "arctic": MOE, "deepseek": MOE,
    "glm4moe": MOE, "exaone-moe": MOE, "bailingmoe": MOE, "bailingmoe2": MOE, "dots1": MOE,
    "afmoe": MOE, "laguna": MOE, "ernie4_5-moe": MOE, "hunyuan-moe": MOE, "gpt-oss": MOE,
    "lfm2moe": MOE, "smallthinker": MOE, "llada-moe": MOE, "grovemoe": MOE,
    "minimax-m2": MOE, "rnd1": MOE, "mellum": MOE, "minimax-01": MOE,
    "qwen2vl": MROPE, "qwen3vl": MROPE, "qwen3vlmoe": dict(MOE, **MROPE),
    "qwen3tts": MROPE,
    "qwen3next": dict(MOE, **GDN), "qwen35": dict(MROPE, **GDN),
    "qwen35moe": dict(MOE, **MROPE, **GDN),
    "deepseek2": dict(MOE, **MLA), "mistral4": dict(MOE, **MLA),
    "deepseek2-ocr": dict(MOE, **MLA),
    "deepseek32": dict(MOE, **MLA, **DSA), "glm-dsa": dict(MOE, **MLA, **DSA),
    "mamba": SSM, "jamba": dict(SSM, **HYB_KV), "granitehybrid": dict(SSM, **HYB_KV),
    "rwkv6": {"wkv.head_size": 64, "time_mix_extra_dim": 32, "time_decay_extra_dim": 64,
              "rescale_every_n_layers": 6},
    "rwkv7": {"wkv.head_size": 64},
    # Deci / Nemotron-NAS: attention-free blocks (no KV heads) and wider ones.
    "deci": {"attention.head_count": [2, 0, 2, 2, 0, 2],
             "attention.head_count_kv": [1, 0, 2, 1, 0, 1]},
    # Gemma 3n: more than llama.cpp's 20 cache-owning blocks, window 300.
    "gemma3n": {"block_count": 24, "attention.sliding_window": 300},
    # Per-layer SWA patterns as the converters write them (1 = sliding window).
    "gemma4": {"attention.sliding_window_pattern": [True, True, True, True, True, False]},
    "granite_swa": {"attention.sliding_window_pattern": [True, True, False, True, True, False]},
    "mimo2": {"attention.sliding_window_pattern": [False, True, True, False, True, True]},
    "step35": {"attention.sliding_window_pattern": [True, False, True, False, True, False]},
    "muse-glimmer": {"attention.sliding_window_pattern": 3},
    "cohere2moe": dict(MOE, **{"attention.sliding_window_pattern": 4}),
    "mellum": dict(MOE, **{"attention.sliding_window_pattern": 3}),
    # Hybrid recurrent archs: attention on blocks 2 and 5, recurrent elsewhere.
    "lfm2": dict(HYB_KV, **{"shortconv.l_cache": 3}),
    "lfm2moe": dict(MOE, **HYB_KV, **{"shortconv.l_cache": 3}),
    "plamo2": dict(SSM, **HYB_KV),
    "nemotron_h": dict(SSM, **HYB_KV, **{"feed_forward_length": [0, 192, 0, 0, 192, 0]}),
    "nemotron_h_moe": dict(MOE, **SSM, **HYB_KV,
                           **{"feed_forward_length": [0, 192, 0, 0, 192, 0]}),
}
# Optional tensors an arch needs one of (the loader asserts, naming none).
SEED_TENSORS = {"rwkv6": [("blk.%d.time_mix_lerp_fused.weight", [128, 1, 1, 5])]}
# Every arch llama.cpp gives a sliding window gets one of 300 tokens (not a multiple
# of the 256 padding); phi3 too, whose window llama.cpp ignores.
for _a in ("afmoe", "cohere2", "cohere2moe", "exaone-moe", "exaone4", "gemma2", "gemma3",
           "gemma4", "gpt-oss", "granite_swa", "laguna", "lfm2", "lfm2moe", "llama4", "mellum",
           "mimo2", "muse-glimmer", "olmo2", "plamo3", "smallthinker", "step35", "phi3"):
    SEEDS[_a] = dict(SEEDS.get(_a, {}), **{"attention.sliding_window": 300})


def default_for(key):
    k = key.split(".", 1)[1] if "." in key else key
    if "epsilon" in k or k.endswith("eps"):
        return 1e-5
    if re.search(r"scale|factor|multiplier|freq_base|logit|softcap|alpha|beta|clamp|bias|mult", k):
        return 1.0
    if k == "expert_count":
        return 4
    if k in ("expert_used_count", "expert_shared_count", "expert_group_count",
             "expert_group_used_count"):
        return 1
    if k.startswith("expert_") and "length" in k:
        return 64
    if re.search(r"gating_func", k):
        return 2
    if re.search(r"^use_|norm$|_norm_|causal|swin", k):
        return False
    if "kv_lora_rank" in k or "q_lora_rank" in k:
        return 64
    if "rope.dimension_count" in k:
        return 32
    if "leading_dense" in k:
        return 1
    return 64


def try_load(probe, kvs, tensors, tmp):
    path = os.path.join(tmp, "m.gguf")
    tiny_gguf.write(path, kvs, tensors)
    p = subprocess.run([probe, "run", path], input="", capture_output=True, text=True,
                       timeout=120)
    text = p.stdout + p.stderr
    return ("LOADED" in text), text


BLK = re.compile(r"^blk\.(\d+)\.(.*)$")


def discover(probe, arch, table):
    spec = table.setdefault(arch, {})
    keys = spec.setdefault("keys", {})
    for k, v in SEEDS.get(arch, {}).items():
        keys[k] = v
    n_layer = keys.get("block_count", 6)
    for name, shape in SEED_TENSORS.get(arch, []):
        for i in range(n_layer):
            spec.setdefault("tensors", []).append([name % i, shape])
    tensors = {n: s for n, s in spec.get("tensors", [])}
    placeholder = set()
    replicate = True
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(400):
            ok, text = try_load(probe, tiny_gguf.arch_kvs(arch, table), list(tensors.items()), tmp)
            if ok:
                unused = set(re.findall(r"model has unused tensor (\S+)", text))
                if unused:
                    for u in unused:
                        tensors.pop(u, None)
                    continue
                spec["tensors"] = [[n, s] for n, s in tensors.items()]
                spec["load"] = "ok"
                return True
            m = re.search(r"array key not found in model: (\S+)", text)
            if m:
                keys[m.group(1)[len(arch) + 1:]] = [default_for(m.group(1))] * n_layer
                continue
            m = re.search(r"key not found in model: (\S+)", text)
            if m:
                k = m.group(1)
                k = k[len(arch) + 1:] if k.startswith(arch + ".") else "/" + k
                if k in keys:
                    break
                keys[k] = default_for(m.group(1))
                continue
            m = re.search(r"(?:missing tensor|tensor) '([^']+)'(?: not found|$)", text, re.M)
            if m:
                name = m.group(1)
                b = BLK.match(name)
                names = [name]
                if b and not replicate:
                    known = [v for n, v in tensors.items()
                             if BLK.match(n) and BLK.match(n).group(2) == b.group(2)
                             and n not in placeholder]
                    tensors[name] = known[0] if known else [1]
                    if not known:
                        placeholder.add(name)
                    continue
                if b:
                    names = ["blk.%d.%s" % (i, b.group(2)) for i in range(n_layer)]
                    names = [x for x in names if x not in tensors] or [name]
                if name in tensors and name not in placeholder:
                    break
                for x in names:
                    tensors[x] = [1]
                    placeholder.add(x)
                continue
            if "wrong number of tensors" in text and replicate:
                # A hybrid arch: not every block has every tensor. Start over, one
                # block at a time.
                replicate = False
                tensors = {}
                placeholder = set()
                continue
            m = re.search(r"tensor '([^']+)' has wrong shape; expected ([\d, ]+), got", text)
            if m:
                name = m.group(1)
                shape = [int(x) for x in m.group(2).split(",")]
                if tensors.get(name) == shape:
                    break
                tensors[name] = shape
                placeholder.discard(name)
                b = BLK.match(name)
                if b:
                    for i in range(n_layer):
                        x = "blk.%d.%s" % (i, b.group(2))
                        if x in placeholder:
                            tensors[x] = shape
                continue
            break
        spec["tensors"] = [[n, s] for n, s in tensors.items()]
        errs = [l for l in text.splitlines() if "error" in l or "fail" in l]
        spec["load"] = (errs[0] if errs else (text.strip().splitlines() or ["?"])[-1])
        return False


def save(path, table):
    """archs.json: one arch per block, its keys and tensors on one line each."""
    with open(path, "w") as f:
        f.write("{\n")
        for i, a in enumerate(sorted(table)):
            spec = table[a]
            f.write(" %s: {\n" % json.dumps(a))
            items = sorted(spec.items())
            for j, (k, v) in enumerate(items):
                f.write("  %s: %s%s\n" % (json.dumps(k), json.dumps(v, sort_keys=True),
                                          "," if j + 1 < len(items) else ""))
            f.write(" }%s\n" % ("," if i + 1 < len(table) else ""))
        f.write("}\n")


def main():
    probe, archs = sys.argv[1], sys.argv[2:]
    path = os.path.join(HERE, "archs.json")
    table = json.load(open(path)) if os.path.exists(path) else {}
    for a in archs:
        ok = discover(probe, a, table)
        print(a, "ok" if ok else table[a]["load"], flush=True)
        save(path, table)


if __name__ == "__main__":
    main()
