#!/usr/bin/env bash
# policy_inputs.sh — the engine-policy command line takes options, not a reference case's
# `inputs` (issue 12 item 4): the harness shapes (input-key spellings, Python None / JSON
# null values, whole floats, repeated --engine-version, --era, an inline geometry, a
# shared/models file name) are refused by name, exit 2, and the harness's translation
# (tests/cli/lib/case_args.py) gives the engine's figures. Still taken: a geometry file
# (with or without a case-style wrapper), the engines' own spellings, engine_report
# carrying every contract field.
# Usage: bash policy_inputs.sh KVPLAN SRCDIR
set -u
KVPLAN=$1
SRC=$2
command -v python3 >/dev/null || { echo "python3 is required"; exit 1; }
exec python3 - "$KVPLAN" "$SRC" <<'PY'
import json, os, subprocess, sys, tempfile

kvplan, src = sys.argv[1:3]
fails = 0

def run(args, code=0):
    p = subprocess.run([kvplan, "plan"] + args, capture_output=True, text=True)
    if p.returncode != code:
        raise AssertionError("exit %d (expected %d): %s %s" % (p.returncode, code, p.stderr.strip(), p.stdout[:200]))
    return json.loads(p.stdout) if "--json" in args and code == 0 else p

def check(name, fn):
    global fails
    try:
        fn()
        print("ok   " + name)
    except Exception as ex:
        fails += 1
        print("FAIL %s: %s" % (name, ex))

# ENGINES.md §1.9 A: 40 layers x 8 KV heads x 128, bf16; 6.51 GiB = 6,990,059,274 B ->
# floor(6990059274 / (65536 * 40)) = 2666 blocks, 42,656 tokens, 2666 / 2048 = 1.30x.
GEO_A = {"source": "log", "num_layers": 40, "num_kv_heads": 8, "head_dim": 128,
         "num_attention_heads": 40, "dtype": "bfloat16"}
A_ARGS = ["--policy", "vllm", "--engine-version", "0.9.2", "--kv-budget", "6990059274",
          "--max-model-len", "32768", "--json"]

def refused(args, phrase):
    p = run(args, code=2)
    assert phrase in p.stderr, p.stderr

def geometry_file_option():
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(GEO_A, f)
    try:
        d = run(["--geometry", f.name] + A_ARGS)
        r = d["engine_report"]
        assert r["gpu_kv_cache_tokens"] == 42656, r
        assert "%.2f" % r["max_concurrency"] == "1.30", r
    finally:
        os.unlink(f.name)
    # Inline JSON is a harness shape: --geometry takes a FILE.
    refused(["--geometry", json.dumps(GEO_A)] + A_ARGS, "cannot open the geometry file")

def geometry_file():
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"id": "x", "geometry": GEO_A}, f)  # a case-style wrapper
    try:
        d = run([f.name] + A_ARGS)
        assert d["engine_report"]["num_gpu_blocks"] == 2666, d["engine_report"]
    finally:
        os.unlink(f.name)

def shared_models_name():
    # The case's config.file with no such file here is not a model name.
    refused(["meta-llama__Llama-3.1-8B.json", "--policy", "vllm", "--kv-budget", "55436181504"],
            "no such file, catalogue model")

M8 = os.path.join(src, "data", "models", "meta-llama__Llama-3.1-8B.json")
VLLM17 = [M8, "--policy", "vllm", "--kv-budget", "55436181504"]

def harness_shapes_refused():
    for extra, phrase in [(["--tp", "None"], "--tp: count 'None' is not a number"),
                          (["--block_size", "null"], "--block_size: count 'null' is not a number"),
                          (["--max_model_len", "131072.0"], "must be a whole number"),
                          (["--era", "v1-mid"], "unknown option or command '--era'"),
                          (["--kv_budget_bytes_lo", "1"], "unknown option or command '--kv_budget_bytes_lo'"),
                          (["--num_draft_kv_layers", "1"], "unknown option or command"),
                          (["--kv_dtype_resolved", "bfloat16"], "unknown option or command"),
                          (["--budget_source", "printed"], "unknown option or command"),
                          (["--indexer_counted", "True"], "unknown option or command"),
                          (["--n_ctx", "4096"], "unknown option or command"),
                          (['{"file": "meta-llama__Llama-3.1-8B.json"}'], "one MODEL only")]:
        refused(VLLM17 + extra, phrase)

def harness_translation():
    # vllm-17 as case_args.py writes it: --engine-version "v1-mid 0.9.1.dev705+g01220ce89",
    # --kv-dtype bfloat16 (what auto resolved to), --num-draft-layers 1, --pp 1 (from 1.0).
    sys.path.insert(0, os.path.join(src, "tests", "cli", "lib"))
    import case_args
    case = {"id": "x", "config": {"file": "meta-llama__Llama-3.1-8B.json"},
            "inputs": {"policy": "vllm", "kv_budget_bytes_lo": 55436181504, "tp": None,
                       "pp": 1.0, "block_size": None, "max_model_len": "131072.0",
                       "engine_version": "0.9.1.dev705+g01220ce89", "era": "v1-mid",
                       "num_draft_kv_layers": 1, "kv_dtype": "auto", "kv_dtype_resolved": "bfloat16",
                       "budget_source": "printed 51.63 GiB"}}
    with tempfile.TemporaryDirectory() as tmp:
        argv = case_args.case_runs(case, src, tmp)["lo"]
    d = run(argv + ["--json"])
    # dev vllm-17 with 33 layers: 55,436,181,504 / 2,162,688 = 25,633 blocks -> 410,128 tokens.
    assert d["engine_report"]["gpu_kv_cache_tokens"] == 410128, d["engine_report"]
    assert d["era"] == "v1-mid", d["era"]

def repeated_version():
    # README maps both engine_version and era to --engine-version: one option, one value;
    # the harness joins them ("0.8.5 v0").
    refused([M8, "--policy", "vllm", "--kv-budget", "20GiB", "--engine-version", "0.8.5",
             "--engine-version", "v0"], "--engine-version given twice")
    # 20 GiB: one 131072-token request needs 16 GiB, so vLLM starts.
    d = run([M8, "--policy", "vllm", "--kv-budget", "20GiB", "--engine-version", "0.8.5 v0", "--json"])
    assert d["era"] == "v0", d["era"]
    assert "0.8.5" in d["engine_version"] and "v0" in d["engine_version"], d["engine_version"]

def llamacpp_fields():
    d = run([M8, "--policy", "llamacpp", "-c", "4096", "-np", "1", "-ctk", "f16", "-ctv", "f16",
             "--swa-full=false", "-ub", "512", "-b", "2048", "--json"])
    r = d["engine_report"]
    for k in ("kv_size_bytes", "k_size_bytes", "v_size_bytes", "cells", "swa_kv_size_bytes",
              "recurrent_size_bytes"):
        assert k in r, (k, r)
    assert r["swa_kv_size_bytes"] is None and r["recurrent_size_bytes"] is None, r
    # 32 layers x 1024 x 2 B x 4096 cells = 256 MiB for K.
    assert r["k_size_bytes"] == 268435456, r

def flash_attn_before_model():
    m = os.path.join(src, "data", "models", "meta-llama__Llama-3.1-8B.json")
    run(["-fa", m, "--policy", "llamacpp", "--ctx-size", "4096", "--json"])
    run(["--flash-attn", "auto", m, "--policy", "llamacpp", "--ctx-size", "0", "--json"])

def typo_still_refused():
    m = os.path.join(src, "data", "models", "meta-llama__Llama-3.1-8B.json")
    p = run([m, "--policy", "vllm", "--kv-budgt", "1GiB"], code=2)
    assert "kv-budget" in p.stderr, p.stderr
    run([m, "--policy", "vllm", "--kv-budget="], code=2)

def sglang_fields():
    m = os.path.join(src, "data", "models", "deepseek-ai__DeepSeek-V3.2.json")
    d = run([m, "--policy", "sglang", "--kv-budget", "46881860393", "--tp-size", "8", "--dp-size", "8",
             "--enable-dp-attention", "--kv-cache-dtype", "fp8_e4m3", "--engine-version",
             "PR #11309 branch (2025-10-07) post-11309", "--json"])
    r = d["engine_report"]
    assert set(r) == {"max_total_num_tokens", "k_size_bytes", "v_size_bytes",
                      "max_running_requests"}, r
    # page 64 by default for the NSA model: (46881860393 // 48068) // 64 * 64 = 975,296.
    assert r["max_total_num_tokens"] == 975296, r

def trtllm_inputs():
    # --policy trtllm is the creator, with kvplan's names. Llama-3.1-8B bf16, 131,072 B/token,
    # 40 GiB, 32-token blocks: 10,240 blocks = 327,680 tokens, 42,949,672,960 B (ENGINES.md §4.6).
    d = run([M8, "--policy", "trtllm", "--kv-budget", "42949672960", "--tokens-per-block", "32",
             "--kv-dtype", "auto", "--max-seq-len", "8192", "--json"])
    r = d["engine_report"]
    assert r["max_tokens"] == 327680 and r["kv_cache_bytes"] == 42949672960, r

for name, fn in [("trtllm inputs", trtllm_inputs),
                 ("--geometry FILE, not inline", geometry_file_option),
                 ("geometry file, case wrapper", geometry_file),
                 ("shared/models file name refused", shared_models_name),
                 ("harness shapes refused", harness_shapes_refused),
                 ("harness translation (case_args.py)", harness_translation),
                 ("repeated --engine-version", repeated_version),
                 ("llama.cpp contract fields", llamacpp_fields),
                 ("-fa before MODEL", flash_attn_before_model),
                 ("typos still refused", typo_still_refused),
                 ("sglang contract fields", sglang_fields)]:
    check(name, fn)
print("%d failed" % fails)
sys.exit(1 if fails else 0)
PY
